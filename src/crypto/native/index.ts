// Placeholder until the C kernel lands.
import type { CryptoBackend } from "../backend.js";
export function loadNativeBackend(): { backend: CryptoBackend } | { error: string } {
  return { error: "the C kernel is not written yet" };
}
