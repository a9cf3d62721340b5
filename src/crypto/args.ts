/**
 * Argument checks shared by the backends: the batch entry points' (`scBatch`, `hashToScalars`,
 * `deriveViewTags`, `scanOutputs`), so both backends reject the same calls with the same errors
 * (TypeError for wrong buffer types or lengths, RangeError for indices out of range), and the
 * native wrapper's fixed-length buffers (`need`, `outBuf`).
 */
import { type Bytes, NO_VIEW_TAG, type ScalarBatchOp } from "./backend.js";

function bytesOf(fn: string, name: string, v: unknown): asserts v is Uint8Array {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${fn}: ${name} must be a Uint8Array`);
}

function lengthIs(fn: string, name: string, v: Uint8Array, len: number): void {
  if (v.length !== len) throw new TypeError(`${fn}: ${name} must be ${len} bytes, got ${v.length}`);
}

/** `v` is a Uint8Array of exactly `len` bytes. */
export function need(fn: string, name: string, v: unknown, len: number): asserts v is Uint8Array {
  bytesOf(fn, name, v);
  lengthIs(fn, name, v, len);
}

/** The caller's out buffer of `len` bytes (checked), or a new one. */
export function outBuf(fn: string, out: Uint8Array | undefined, len = 32): Uint8Array {
  if (out === undefined) return new Uint8Array(len);
  need(fn, "out", out, len);
  return out;
}

/** n for scBatch: a is n×32, b n×32 or 32 (ignored for reduce32). */
export function scBatchCount(op: ScalarBatchOp, a: Bytes, b: Bytes | null): number {
  if (op !== "reduce32" && op !== "add" && op !== "sub" && op !== "mul") throw new TypeError(`scBatch: unknown op ${String(op)}`);
  bytesOf("scBatch", "a", a);
  if (a.length % 32 !== 0) throw new TypeError(`scBatch: a must be n×32 bytes, got ${a.length}`);
  if (op !== "reduce32") {
    bytesOf("scBatch", "b", b);
    if (b.length !== a.length && b.length !== 32) throw new TypeError(`scBatch: b must be ${a.length} or 32 bytes, got ${b.length}`);
  }
  return a.length / 32;
}

/** n for scCheckBatch. */
export function scalarCount(fn: string, s: Bytes): number {
  bytesOf(fn, "scalars", s);
  if (s.length % 32 !== 0) throw new TypeError(`${fn}: scalars must be n×32 bytes, got ${s.length}`);
  return s.length / 32;
}

/** The length of each input of hashToScalars. */
export function hashToScalarsItemLength(data: Bytes, n: number): number {
  bytesOf("hashToScalars", "data", data);
  if (!Number.isSafeInteger(n) || n < 1 || data.length % n !== 0)
    throw new TypeError(`hashToScalars: ${data.length} bytes do not split into n = ${n} equal inputs`);
  return data.length / n;
}

/** n for deriveViewTags. */
export function viewTagCount(derivations: Bytes, indices: Uint32Array): number {
  bytesOf("deriveViewTags", "derivations", derivations);
  if (!(indices instanceof Uint32Array)) throw new TypeError("deriveViewTags: indices must be a Uint32Array");
  lengthIs("deriveViewTags", "derivations", derivations, 32 * indices.length);
  return indices.length;
}

/** The row count of viewTagCandidates, after checking every probe and tag. */
export function viewTagCandidateRows(derivations: Bytes, wallets: number, viewTags: Uint16Array, probes: Uint32Array): number {
  const fn = "viewTagCandidates";
  bytesOf(fn, "derivations", derivations);
  if (!Number.isSafeInteger(wallets) || wallets < 1 || wallets > 0xffffffff) throw new TypeError(`${fn}: wallets must be a positive integer, got ${wallets}`);
  if (!(viewTags instanceof Uint16Array)) throw new TypeError(`${fn}: viewTags must be a Uint16Array`);
  if (!(probes instanceof Uint32Array)) throw new TypeError(`${fn}: probes must be a Uint32Array`);
  if (derivations.length % (32 * wallets) !== 0) throw new TypeError(`${fn}: derivations must be rows×${wallets}×32 bytes, got ${derivations.length}`);
  const rows = derivations.length / (32 * wallets);
  checkProbes(fn, "row", rows, viewTags, probes);
  return rows;
}

/** q, the probe count of scanOutputs, after checking every probe and tag. */
export function scanProbeCount(derivations: Bytes, outKeys: Bytes, viewTags: Uint16Array, probes: Uint32Array, indices?: Uint32Array): number {
  const fn = "scanOutputs";
  if (indices !== undefined && !(indices instanceof Uint32Array)) throw new TypeError(`${fn}: indices must be a Uint32Array`);
  if (indices !== undefined && indices.length !== viewTags.length) throw new TypeError(`${fn}: indices must hold one index per output key (${viewTags.length}), got ${indices.length}`);
  bytesOf(fn, "derivations", derivations);
  bytesOf(fn, "outKeys", outKeys);
  if (!(viewTags instanceof Uint16Array)) throw new TypeError(`${fn}: viewTags must be a Uint16Array`);
  if (!(probes instanceof Uint32Array)) throw new TypeError(`${fn}: probes must be a Uint32Array`);
  if (derivations.length % 32 !== 0) throw new TypeError(`${fn}: derivations must be m×32 bytes, got ${derivations.length}`);
  lengthIs(fn, "outKeys", outKeys, 32 * viewTags.length);
  checkProbes(fn, "derivation", derivations.length / 32, viewTags, probes);
  return probes.length / 2;
}

/** (`what`, output) probe pairs within `count` of what and the outputs, and view tags up to NO_VIEW_TAG (scanOutputs, viewTagCandidates). */
function checkProbes(fn: string, what: string, count: number, viewTags: Uint16Array, probes: Uint32Array): void {
  if (probes.length % 2 !== 0) throw new TypeError(`${fn}: probes must hold (${what}, output) pairs`);
  for (let k = 0; k < probes.length; k += 2)
    if (probes[k] >= count || probes[k + 1] >= viewTags.length)
      throw new RangeError(`${fn}: probe ${k / 2} (${probes[k]}, ${probes[k + 1]}) outside ${count} ${what}s, ${viewTags.length} outputs`);
  for (const t of viewTags) if (t > NO_VIEW_TAG) throw new RangeError(`${fn}: view tag ${t} above NO_VIEW_TAG`);
}
