/**
 * The Gi/Hi generator vectors of Bulletproofs and Bulletproofs+ (bulletproofs.cc and
 * bulletproofs_plus.cc `get_exponent`): generator k is hash_to_p3(keccak(H ‖ tag ‖ varint(k))),
 * i.e. hash_to_ec of that keccak, with Hi[i] = generator 2i and Gi[i] = generator 2i + 1.
 * Computed lazily, once per process and tag, as compressed points concatenated (i × 32 bytes).
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { concatBytes, H, isIdentity, varintBytes } from "./scalar.js";

export type GeneratorFamily = "bulletproof" | "bulletproof_plus";

/** maxN · maxM = 64 · 16. */
export const MAX_GENERATORS = 64 * 16;

interface Table {
  Gi: Uint8Array;
  Hi: Uint8Array;
  count: number;
}

const tables = new Map<GeneratorFamily, Table>();

function exponent(b: CryptoBackend, family: GeneratorFamily, k: number): Bytes {
  const hashed = b.keccak256(concatBytes([H, Buffer.from(family, "ascii"), varintBytes(k)]));
  const p = b.hashToEc(hashed);
  if (isIdentity(p)) throw new Error("generator is the point at infinity");
  return p;
}

/**
 * The first `n` generators of each vector: { Gi, Hi }, each n × 32 bytes. The bytes are the same
 * on every backend, so the first backend to ask computes them for all.
 */
export function generators(b: CryptoBackend, family: GeneratorFamily, n: number): { Gi: Bytes; Hi: Bytes } {
  if (n > MAX_GENERATORS) throw new RangeError(`at most ${MAX_GENERATORS} generators`);
  let t = tables.get(family);
  if (!t) {
    t = { Gi: new Uint8Array(MAX_GENERATORS * 32), Hi: new Uint8Array(MAX_GENERATORS * 32), count: 0 };
    tables.set(family, t);
  }
  for (let i = t.count; i < n; i++) {
    t.Hi.set(exponent(b, family, 2 * i), 32 * i);
    t.Gi.set(exponent(b, family, 2 * i + 1), 32 * i);
  }
  if (n > t.count) t.count = n;
  return { Gi: t.Gi.subarray(0, 32 * n), Hi: t.Hi.subarray(0, 32 * n) };
}

interface Prepared {
  prepared: Bytes;
  pairs: number;
}

const preparedByBackend = new WeakMap<CryptoBackend, Map<GeneratorFamily, Prepared>>();

/**
 * The generators Gi[0], Hi[0], Gi[1], Hi[1], … (interleaved, ≥ n pairs) decoded once by the backend
 * (`preparePoints`), for `multiScalarMultPrepared` with interleaved Gi/Hi scalars.
 */
export function preparedGenerators(b: CryptoBackend, family: GeneratorFamily, n: number): Bytes {
  let perFamily = preparedByBackend.get(b);
  if (!perFamily) {
    perFamily = new Map();
    preparedByBackend.set(b, perFamily);
  }
  const have = perFamily.get(family);
  if (have && have.pairs >= n) return have.prepared;
  const pairs = Math.min(MAX_GENERATORS, Math.max(n, 2 * (have?.pairs ?? 64)));
  const g = generators(b, family, pairs);
  const inter = new Uint8Array(64 * pairs);
  for (let i = 0; i < pairs; i++) {
    inter.set(g.Gi.subarray(32 * i, 32 * i + 32), 64 * i);
    inter.set(g.Hi.subarray(32 * i, 32 * i + 32), 64 * i + 32);
  }
  const prepared = b.preparePoints(inter);
  if (prepared === null) throw new Error("a generator did not decode (impossible)");
  perFamily.set(family, { prepared, pairs });
  return prepared;
}
