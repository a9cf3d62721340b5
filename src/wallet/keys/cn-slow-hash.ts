/** CryptoNight v0 (placeholder until the implementation lands). */
export function cnSlowHash(_data: Uint8Array): Uint8Array {
  throw new Error("cnSlowHash: not implemented yet");
}
