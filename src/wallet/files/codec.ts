/**
 * Exact JSON for wallet file payloads: bigints and byte arrays survive a round trip unchanged.
 * A bigint becomes {"$n": "<decimal>"}, a Uint8Array {"$b": "<hex>"}; plain objects whose only key
 * is "$n" or "$b" are therefore reserved (the wallet never stores such objects itself).
 */

/** Values a wallet file payload may hold. */
export type FileValue =
  | null
  | boolean
  | number
  | string
  | bigint
  | Uint8Array
  | readonly FileValue[]
  | { readonly [k: string]: FileValue | undefined };

function isTagged(v: Record<string, unknown>, key: "$n" | "$b"): boolean {
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === key && typeof v[key] === "string";
}

/** Serializes a payload to UTF-8 JSON bytes. */
export function encodePayload(value: unknown): Buffer {
  const text = JSON.stringify(value, function (this: unknown, _k: string, v: unknown) {
    if (typeof v === "bigint") return { $n: v.toString(10) };
    if (v instanceof Uint8Array) return { $b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex") };
    return v;
  });
  return Buffer.from(text, "utf8");
}

/** The inverse of `encodePayload`. Throws SyntaxError on malformed text. */
export function decodePayload(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  return JSON.parse(text, (_k, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (isTagged(o, "$n")) {
        const s = o.$n as string;
        if (!/^-?\d+$/.test(s)) throw new SyntaxError(`bad bigint ${JSON.stringify(s)}`);
        return BigInt(s);
      }
      if (isTagged(o, "$b")) {
        const s = o.$b as string;
        if (!/^(?:[0-9a-f]{2})*$/.test(s)) throw new SyntaxError("bad hex bytes");
        return new Uint8Array(Buffer.from(s, "hex"));
      }
    }
    return v;
  });
}
