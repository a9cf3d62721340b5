/**
 * The C kernel backend: a thin wrapper over the Node-API addon `build/Release/tsmonero_crypto.node`
 * (sources in native/crypto/). The wrapper checks buffer lengths, allocates result buffers when
 * the caller passes no `out`, and maps the addon's boolean results to `null`/`false`.
 */
import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Bytes, type CryptoBackend, NO_VIEW_TAG, type OutputScan, type ScalarBatchOp } from "../backend.js";
import { hashToScalarsItemLength, need, outBuf, scalarCount, scanProbeCount, scBatchCount, viewTagCandidateRows, viewTagCount } from "../args.js";

/** The addon's exports (native/crypto/addon.c): results go to the trailing `out` argument. */
interface Addon {
  keccak256(data: Bytes, out: Bytes): void;
  hashToScalar(data: Bytes, out: Bytes): void;
  scReduce32(s: Bytes, out: Bytes): void;
  scReduce64(s: Bytes, out: Bytes): void;
  scAdd(a: Bytes, b: Bytes, out: Bytes): void;
  scSub(a: Bytes, b: Bytes, out: Bytes): void;
  scMul(a: Bytes, b: Bytes, out: Bytes): void;
  scMulAdd(a: Bytes, b: Bytes, c: Bytes, out: Bytes): void;
  scMulSub(a: Bytes, b: Bytes, c: Bytes, out: Bytes): void;
  scInvert(a: Bytes, out: Bytes): void;
  scCheck(s: Bytes): boolean;
  scIsNonZero(s: Bytes): boolean;
  /** op: 0 reduce32, 1 add, 2 sub, 3 mul (sc.h TSM_SC_OP_*); b n×32 or 32 bytes. */
  scBatch(op: number, a: Bytes, b: Bytes, out: Bytes): void;
  scCheckBatch(s: Bytes): number;
  hashToScalars(data: Bytes, n: number, out: Bytes): void;
  deriveViewTags(d: Bytes, indices: Uint32Array, out: Uint8Array): void;
  scanOutputs(d: Bytes, keys: Bytes, tags: Uint16Array, probes: Uint32Array, status: Uint8Array, out: Bytes, indices?: Uint32Array): void;
  viewTagCandidates(d: Bytes, wallets: number, tags: Uint16Array, probes: Uint32Array, flags: Uint8Array): void;
  pointCheck(p: Bytes): boolean;
  pointAdd(p: Bytes, q: Bytes, out: Bytes): boolean;
  pointSub(p: Bytes, q: Bytes, out: Bytes): boolean;
  pointMul8(p: Bytes, out: Bytes): boolean;
  scalarMult(s: Bytes, p: Bytes, out: Bytes): boolean;
  scalarMultBase(s: Bytes, out: Bytes): void;
  doubleScalarMultBase(a: Bytes, p: Bytes, b: Bytes, out: Bytes): boolean;
  /** mask·G + amount·H; amount as 8 bytes little-endian (absent from an addon built before it). */
  commit?(amount: Bytes, mask: Bytes, out: Bytes): void;
  doubleScalarMult(a: Bytes, p: Bytes, b: Bytes, q: Bytes, out: Bytes): boolean;
  multiScalarMult(scalars: Bytes, points: Bytes, out: Bytes, algo?: number): boolean;
  hashToPoint(h: Bytes, out: Bytes): void;
  hashToEc(p: Bytes, out: Bytes): void;
  secretKeyToPublicKey(sec: Bytes, out: Bytes): boolean;
  generateKeyDerivation(pub: Bytes, sec: Bytes, out: Bytes): boolean;
  /** Absent from an addon built before it (then the wrapper loops over generateKeyDerivation). 1 ok, 0 pub does not decode. */
  generateKeyDerivations?(pub: Bytes, secs: Bytes, out: Bytes): number;
  /** Absent from an addon built before them (then the wrappers loop over the single calls). */
  generateKeyDerivationPairs?(pubs: Bytes, secs: Bytes, out: Bytes, ok: Uint8Array): void;
  generateKeyImages?(pubs: Bytes, secs: Bytes, out: Bytes): void;
  /** 8 when the batch calls run eight lanes (AVX-512 IFMA) on this machine, else 1. */
  batchLanes?(): number;
  derivationToScalar(d: Bytes, index: number, out: Bytes): void;
  derivePublicKey(d: Bytes, index: number, base: Bytes, out: Bytes): boolean;
  deriveSecretKey(d: Bytes, index: number, base: Bytes, out: Bytes): void;
  deriveSubaddressPublicKey(outKey: Bytes, d: Bytes, index: number, out: Bytes): boolean;
  deriveViewTag(d: Bytes, index: number): number;
  generateKeyImage(pub: Bytes, sec: Bytes, out: Bytes): void;
  generateSignature(prefix: Bytes, pub: Bytes, sec: Bytes, k: Bytes, out: Bytes): void;
  checkSignature(prefix: Bytes, pub: Bytes, sig: Bytes): boolean;
  generateRingSignature(
    prefix: Bytes,
    image: Bytes,
    pubs: Bytes,
    sec: Bytes,
    secIndex: number,
    nonces: Bytes,
    out: Bytes,
  ): number;
  checkRingSignature(prefix: Bytes, image: Bytes, pubs: Bytes, sigs: Bytes): boolean;
  preparedSize(n: number): number;
  preparePoints(points: Bytes, out: Bytes): boolean;
  multiScalarMultPrepared(prepared: Bytes, preparedScalars: Bytes, scalars: Bytes, points: Bytes, out: Bytes): boolean;
  bulletproofPlusProve(prepared: Bytes, amounts: Bytes, gammas: Bytes, nonces: Bytes, h: Bytes, transcript0: Bytes, out: Bytes, threads: number): number;
  clsagSign(message: Bytes, P: Bytes, C: Bytes, p: Bytes, z: Bytes, cOffset: Bytes, l: number, nonces: Bytes, out: Bytes): number;
  checkKeyImageSignatures(kis: Bytes, pubs: Bytes, sigs: Bytes, threads: number): number;
  subaddressSpendKeys?(spendPub: Bytes, viewSec: Bytes, major: number, begin: number, out: Bytes, threads: number): number;
}

/** The kernel's scalar batch op codes (native/crypto/sc.h TSM_SC_OP_*). */
const SC_OPS: Record<ScalarBatchOp, number> = { reduce32: 0, add: 1, sub: 2, mul: 3 };
const EMPTY = new Uint8Array(0);

/** Forces one multi-scalar algorithm (tests and benchmarks); the backend itself picks by size. */
export const MSM_AUTO = 0;
export const MSM_STRAUS = 1;
export const MSM_PIPPENGER = 2;

let threads: number | undefined;
/**
 * Threads the kernel's Bulletproofs+ prover (and its batch of key image checks) uses: 2 (each round's L/R and G/H folds in parallel)
 * where the machine has two cores or more, 1 otherwise or with TSMONERO_PROVER_THREADS=1.
 */
export function proverThreads(): number {
  threads ??= process.env.TSMONERO_PROVER_THREADS === "1" || availableParallelism() < 2 ? 1 : 2;
  return threads;
}

/** Overrides proverThreads() for this process (tests compare both settings). */
export function setProverThreads(n: 1 | 2): void {
  threads = n;
}

function needMultiple(fn: string, name: string, v: Bytes, unit: number): number {
  if (!(v instanceof Uint8Array)) throw new TypeError(`${fn}: ${name} must be a Uint8Array`);
  if (v.length % unit !== 0) throw new TypeError(`${fn}: ${name} must be a multiple of ${unit} bytes, got ${v.length}`);
  return v.length / unit;
}

function needIndex(fn: string, index: number): void {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new TypeError(`${fn}: index must be a non-negative safe integer, got ${index}`);
}

/** The native backend, plus a hook to force the multi-scalar algorithm (tests, benchmarks). */
export type NativeBackend = CryptoBackend & {
  multiScalarMultWith(algo: number, scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null;
  /** How many scalar multiplications the batch calls run at once here: 8 on AVX-512 IFMA (unless TSMONERO_NO_AVX512=1), else 1. */
  batchLanes(): number;
};

/** Wraps a loaded addon as a `CryptoBackend`. */
export function wrapAddon(a: Addon): NativeBackend {
  const be = {
    name: "native" as const,

    keccak256(data: Bytes, out?: Bytes): Bytes {
      if (!(data instanceof Uint8Array)) throw new TypeError("keccak256: data must be a Uint8Array");
      const o = outBuf("keccak256", out);
      a.keccak256(data, o);
      return o;
    },

    scReduce32(s: Bytes, out?: Bytes): Bytes {
      need("scReduce32", "s", s, 32);
      const o = outBuf("scReduce32", out);
      a.scReduce32(s, o);
      return o;
    },
    scReduce64(s: Bytes, out?: Bytes): Bytes {
      need("scReduce64", "s", s, 64);
      const o = outBuf("scReduce64", out);
      a.scReduce64(s, o);
      return o;
    },
    scAdd(x: Bytes, y: Bytes, out?: Bytes): Bytes {
      need("scAdd", "a", x, 32);
      need("scAdd", "b", y, 32);
      const o = outBuf("scAdd", out);
      a.scAdd(x, y, o);
      return o;
    },
    scSub(x: Bytes, y: Bytes, out?: Bytes): Bytes {
      need("scSub", "a", x, 32);
      need("scSub", "b", y, 32);
      const o = outBuf("scSub", out);
      a.scSub(x, y, o);
      return o;
    },
    scMul(x: Bytes, y: Bytes, out?: Bytes): Bytes {
      need("scMul", "a", x, 32);
      need("scMul", "b", y, 32);
      const o = outBuf("scMul", out);
      a.scMul(x, y, o);
      return o;
    },
    scMulAdd(x: Bytes, y: Bytes, z: Bytes, out?: Bytes): Bytes {
      need("scMulAdd", "a", x, 32);
      need("scMulAdd", "b", y, 32);
      need("scMulAdd", "c", z, 32);
      const o = outBuf("scMulAdd", out);
      a.scMulAdd(x, y, z, o);
      return o;
    },
    scMulSub(x: Bytes, y: Bytes, z: Bytes, out?: Bytes): Bytes {
      need("scMulSub", "a", x, 32);
      need("scMulSub", "b", y, 32);
      need("scMulSub", "c", z, 32);
      const o = outBuf("scMulSub", out);
      a.scMulSub(x, y, z, o);
      return o;
    },
    scInvert(x: Bytes, out?: Bytes): Bytes {
      need("scInvert", "a", x, 32);
      const o = outBuf("scInvert", out);
      a.scInvert(x, o);
      return o;
    },
    scCheck(s: Bytes): boolean {
      need("scCheck", "s", s, 32);
      return a.scCheck(s);
    },
    scIsNonZero(s: Bytes): boolean {
      need("scIsNonZero", "s", s, 32);
      return a.scIsNonZero(s);
    },
    hashToScalar(data: Bytes, out?: Bytes): Bytes {
      if (!(data instanceof Uint8Array)) throw new TypeError("hashToScalar: data must be a Uint8Array");
      const o = outBuf("hashToScalar", out);
      a.hashToScalar(data, o);
      return o;
    },

    scBatch(op: ScalarBatchOp, x: Bytes, y: Bytes | null, out?: Bytes): Bytes {
      const n = scBatchCount(op, x, y);
      const o = outBuf("scBatch", out, 32 * n);
      a.scBatch(SC_OPS[op], x, y ?? EMPTY, o);
      return o;
    },
    scCheckBatch(s: Bytes): number {
      scalarCount("scCheckBatch", s);
      return a.scCheckBatch(s);
    },
    hashToScalars(data: Bytes, n: number, out?: Bytes): Bytes {
      hashToScalarsItemLength(data, n);
      const o = outBuf("hashToScalars", out, 32 * n);
      a.hashToScalars(data, n, o);
      return o;
    },
    deriveViewTags(derivations: Bytes, indices: Uint32Array, out?: Uint8Array): Uint8Array {
      const o = outBuf("deriveViewTags", out, viewTagCount(derivations, indices));
      a.deriveViewTags(derivations, indices, o);
      return o;
    },
    scanOutputs(derivations: Bytes, outKeys: Bytes, viewTags: Uint16Array, probes: Uint32Array, indices?: Uint32Array): OutputScan {
      const q = scanProbeCount(derivations, outKeys, viewTags, probes, indices);
      // one allocation for both (each fresh typed array handed to the addon costs ~0.3-0.6 µs)
      const buf = new Uint8Array(33 * q);
      const keys = buf.subarray(0, 32 * q);
      const status = buf.subarray(32 * q);
      if (!indices) a.scanOutputs(derivations, outKeys, viewTags, probes, status, keys);
      else if (a.batchLanes) a.scanOutputs(derivations, outKeys, viewTags, probes, status, keys, indices);
      else
        // an addon built before indices (it would hash each key's position): a probe at a time, the
        // key placed at its index
        for (let k = 0; k < q; k++) {
          const o = probes[2 * k + 1];
          const i = indices[o];
          const one = new Uint8Array(32 * (i + 1));
          one.set(outKeys.subarray(32 * o, 32 * o + 32), 32 * i);
          const tag = new Uint16Array(i + 1).fill(NO_VIEW_TAG);
          tag[i] = viewTags[o];
          const d = derivations.subarray(32 * probes[2 * k], 32 * probes[2 * k] + 32);
          a.scanOutputs(d, one, tag, Uint32Array.of(0, i), status.subarray(k, k + 1), keys.subarray(32 * k, 32 * k + 32));
        }
      return { status, keys };
    },

    viewTagCandidates(derivations: Bytes, wallets: number, viewTags: Uint16Array, probes: Uint32Array): Uint8Array {
      viewTagCandidateRows(derivations, wallets, viewTags, probes);
      const flags = new Uint8Array(wallets);
      a.viewTagCandidates(derivations, wallets, viewTags, probes, flags);
      return flags;
    },

    pointCheck(p: Bytes): boolean {
      need("pointCheck", "p", p, 32);
      return a.pointCheck(p);
    },
    pointAdd(p: Bytes, q: Bytes, out?: Bytes): Bytes | null {
      need("pointAdd", "p", p, 32);
      need("pointAdd", "q", q, 32);
      const o = outBuf("pointAdd", out);
      return a.pointAdd(p, q, o) ? o : null;
    },
    pointSub(p: Bytes, q: Bytes, out?: Bytes): Bytes | null {
      need("pointSub", "p", p, 32);
      need("pointSub", "q", q, 32);
      const o = outBuf("pointSub", out);
      return a.pointSub(p, q, o) ? o : null;
    },
    pointMul8(p: Bytes, out?: Bytes): Bytes | null {
      need("pointMul8", "p", p, 32);
      const o = outBuf("pointMul8", out);
      return a.pointMul8(p, o) ? o : null;
    },
    scalarMult(s: Bytes, p: Bytes, out?: Bytes): Bytes | null {
      need("scalarMult", "s", s, 32);
      need("scalarMult", "p", p, 32);
      const o = outBuf("scalarMult", out);
      return a.scalarMult(s, p, o) ? o : null;
    },
    scalarMultBase(s: Bytes, out?: Bytes): Bytes {
      need("scalarMultBase", "s", s, 32);
      const o = outBuf("scalarMultBase", out);
      a.scalarMultBase(s, o);
      return o;
    },
    doubleScalarMultBase(x: Bytes, p: Bytes, y: Bytes, out?: Bytes): Bytes | null {
      need("doubleScalarMultBase", "a", x, 32);
      need("doubleScalarMultBase", "p", p, 32);
      need("doubleScalarMultBase", "b", y, 32);
      const o = outBuf("doubleScalarMultBase", out);
      return a.doubleScalarMultBase(x, p, y, o) ? o : null;
    },
    ...(a.commit
      ? {
          commit(amount: bigint, mask: Bytes, out?: Bytes): Bytes {
            if (amount < 0n || amount > 0xffffffffffffffffn) throw new RangeError(`commit: amount must be a u64, got ${amount}`);
            need("commit", "mask", mask, 32);
            const am = new Uint8Array(8);
            new DataView(am.buffer).setBigUint64(0, amount, true);
            const o = outBuf("commit", out);
            a.commit?.(am, mask, o);
            return o;
          },
        }
      : {}),
    doubleScalarMult(x: Bytes, p: Bytes, y: Bytes, q: Bytes, out?: Bytes): Bytes | null {
      need("doubleScalarMult", "a", x, 32);
      need("doubleScalarMult", "p", p, 32);
      need("doubleScalarMult", "b", y, 32);
      need("doubleScalarMult", "q", q, 32);
      const o = outBuf("doubleScalarMult", out);
      return a.doubleScalarMult(x, p, y, q, o) ? o : null;
    },
    multiScalarMult(scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null {
      return be.multiScalarMultWith(MSM_AUTO, scalars, points, out);
    },
    multiScalarMultWith(algo: number, scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null {
      const n = needMultiple("multiScalarMult", "scalars", scalars, 32);
      if (needMultiple("multiScalarMult", "points", points, 32) !== n)
        throw new TypeError(`multiScalarMult: ${n} scalars but ${points.length / 32} points`);
      const o = outBuf("multiScalarMult", out);
      return a.multiScalarMult(scalars, points, o, algo) ? o : null;
    },
    preparePoints(points: Bytes): Bytes | null {
      const n = needMultiple("preparePoints", "points", points, 32);
      const o = new Uint8Array(a.preparedSize(n));
      return a.preparePoints(points, o) ? o : null;
    },
    multiScalarMultPrepared(prepared: Bytes, preparedScalars: Bytes, scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null {
      if (!(prepared instanceof Uint8Array)) throw new TypeError("multiScalarMultPrepared: prepared must be a Uint8Array");
      needMultiple("multiScalarMultPrepared", "preparedScalars", preparedScalars, 32);
      const n = needMultiple("multiScalarMultPrepared", "scalars", scalars, 32);
      if (needMultiple("multiScalarMultPrepared", "points", points, 32) !== n)
        throw new TypeError(`multiScalarMultPrepared: ${n} scalars but ${points.length / 32} points`);
      const o = outBuf("multiScalarMultPrepared", out);
      return a.multiScalarMultPrepared(prepared, preparedScalars, scalars, points, o) ? o : null;
    },
    clsagSign(message: Bytes, P: Bytes, C: Bytes, p: Bytes, z: Bytes, cOffset: Bytes, l: number, nonces: Bytes): Bytes | number {
      const n = needMultiple("clsagSign", "P", P, 32);
      const o = new Uint8Array(32 * (n + 3));
      const rc = a.clsagSign(message, P, C, p, z, cOffset, l, nonces, o);
      return rc === 0 ? o : rc === 1 ? -1 : rc - 10;
    },
    checkKeyImageSignatures(keyImages: Bytes, pubs: Bytes, sigs: Bytes): { index: number; why: "domain" | "signature" } | null {
      const n = needMultiple("checkKeyImageSignatures", "keyImages", keyImages, 32);
      need("checkKeyImageSignatures", "pubs", pubs, 32 * n);
      need("checkKeyImageSignatures", "sigs", sigs, 64 * n);
      const r = a.checkKeyImageSignatures(keyImages, pubs, sigs, proverThreads());
      return r < 0 ? null : { index: Math.floor(r / 4), why: r % 4 === 1 ? "domain" : "signature" };
    },
    ...(a.subaddressSpendKeys
      ? {
          subaddressSpendKeys(spendPublicKey: Bytes, viewSecretKey: Bytes, major: number, begin: number, end: number): Bytes | null {
            need("subaddressSpendKeys", "spendPublicKey", spendPublicKey, 32);
            need("subaddressSpendKeys", "viewSecretKey", viewSecretKey, 32);
            needIndex("subaddressSpendKeys", major);
            needIndex("subaddressSpendKeys", begin);
            needIndex("subaddressSpendKeys", end);
            if (major > 0xffffffff || end > 2 ** 32 || begin > end) throw new RangeError(`subaddressSpendKeys: indices must be u32 with begin <= end (${major}, ${begin}..${end})`);
            const o = new Uint8Array((end - begin) * 32);
            // a second thread pays from a few thousand keys (~20 µs each); below, one is as quick
            const rc = a.subaddressSpendKeys?.(spendPublicKey, viewSecretKey, major, begin, o, end - begin >= 4096 ? proverThreads() : 1);
            return rc === 1 ? o : null;
          },
        }
      : {}),
    bulletproofPlusProve(prepared: Bytes, amounts: Bytes, gammas: Bytes, nonces: Bytes, h: Bytes, transcript0: Bytes): Bytes | null {
      const m = needMultiple("bulletproofPlusProve", "amounts", amounts, 8);
      let logMN = 6;
      while (1 << (logMN - 6) < m) logMN++;
      const o = new Uint8Array(32 * (m + 6 + 2 * logMN));
      return a.bulletproofPlusProve(prepared, amounts, gammas, nonces, h, transcript0, o, proverThreads()) === 0 ? o : null;
    },
    hashToPoint(h: Bytes, out?: Bytes): Bytes {
      need("hashToPoint", "h", h, 32);
      const o = outBuf("hashToPoint", out);
      a.hashToPoint(h, o);
      return o;
    },
    hashToEc(p: Bytes, out?: Bytes): Bytes {
      need("hashToEc", "p", p, 32);
      const o = outBuf("hashToEc", out);
      a.hashToEc(p, o);
      return o;
    },

    secretKeyToPublicKey(sec: Bytes, out?: Bytes): Bytes | null {
      need("secretKeyToPublicKey", "sec", sec, 32);
      const o = outBuf("secretKeyToPublicKey", out);
      return a.secretKeyToPublicKey(sec, o) ? o : null;
    },
    generateKeyDerivation(pub: Bytes, sec: Bytes, out?: Bytes): Bytes | null {
      need("generateKeyDerivation", "pub", pub, 32);
      need("generateKeyDerivation", "sec", sec, 32);
      const o = outBuf("generateKeyDerivation", out);
      return a.generateKeyDerivation(pub, sec, o) ? o : null;
    },
    generateKeyDerivations(pub: Bytes, secs: Bytes): Bytes | null {
      need("generateKeyDerivations", "pub", pub, 32);
      needMultiple("generateKeyDerivations", "secs", secs, 32);
      const n = secs.length / 32;
      const o = new Uint8Array(secs.length);
      // the kernel's table of pub costs about two single derivations: below 4 keys they are cheaper
      if (a.generateKeyDerivations && n >= 4) return a.generateKeyDerivations(pub, secs, o) === 1 ? o : null;
      for (let i = 0; i < secs.length; i += 32) if (!a.generateKeyDerivation(pub, secs.subarray(i, i + 32), o.subarray(i, i + 32))) return null;
      return o;
    },
    batchLanes(): number {
      return a.batchLanes?.() ?? 1;
    },
    generateKeyDerivationPairs(pubs: Bytes, secs: Bytes): { derivations: Bytes; ok: Uint8Array } {
      const n = needMultiple("generateKeyDerivationPairs", "pubs", pubs, 32);
      need("generateKeyDerivationPairs", "secs", secs, 32 * n);
      const derivations = new Uint8Array(32 * n);
      const ok = new Uint8Array(n);
      if (a.generateKeyDerivationPairs) a.generateKeyDerivationPairs(pubs, secs, derivations, ok);
      else
        for (let k = 0; k < n; k++)
          ok[k] = a.generateKeyDerivation(pubs.subarray(32 * k, 32 * k + 32), secs.subarray(32 * k, 32 * k + 32), derivations.subarray(32 * k, 32 * k + 32)) ? 1 : 0;
      return { derivations, ok };
    },
    generateKeyImages(pubs: Bytes, secs: Bytes): Bytes {
      const n = needMultiple("generateKeyImages", "pubs", pubs, 32);
      need("generateKeyImages", "secs", secs, 32 * n);
      const o = new Uint8Array(32 * n);
      if (a.generateKeyImages) a.generateKeyImages(pubs, secs, o);
      else for (let k = 0; k < n; k++) a.generateKeyImage(pubs.subarray(32 * k, 32 * k + 32), secs.subarray(32 * k, 32 * k + 32), o.subarray(32 * k, 32 * k + 32));
      return o;
    },
    derivationToScalar(d: Bytes, index: number, out?: Bytes): Bytes {
      need("derivationToScalar", "derivation", d, 32);
      needIndex("derivationToScalar", index);
      const o = outBuf("derivationToScalar", out);
      a.derivationToScalar(d, index, o);
      return o;
    },
    derivePublicKey(d: Bytes, index: number, base: Bytes, out?: Bytes): Bytes | null {
      need("derivePublicKey", "derivation", d, 32);
      needIndex("derivePublicKey", index);
      need("derivePublicKey", "base", base, 32);
      const o = outBuf("derivePublicKey", out);
      return a.derivePublicKey(d, index, base, o) ? o : null;
    },
    deriveSecretKey(d: Bytes, index: number, base: Bytes, out?: Bytes): Bytes {
      need("deriveSecretKey", "derivation", d, 32);
      needIndex("deriveSecretKey", index);
      need("deriveSecretKey", "base", base, 32);
      const o = outBuf("deriveSecretKey", out);
      a.deriveSecretKey(d, index, base, o);
      return o;
    },
    deriveSubaddressPublicKey(outKey: Bytes, d: Bytes, index: number, out?: Bytes): Bytes | null {
      need("deriveSubaddressPublicKey", "outKey", outKey, 32);
      need("deriveSubaddressPublicKey", "derivation", d, 32);
      needIndex("deriveSubaddressPublicKey", index);
      const o = outBuf("deriveSubaddressPublicKey", out);
      return a.deriveSubaddressPublicKey(outKey, d, index, o) ? o : null;
    },
    deriveViewTag(d: Bytes, index: number): number {
      need("deriveViewTag", "derivation", d, 32);
      needIndex("deriveViewTag", index);
      return a.deriveViewTag(d, index);
    },
    generateKeyImage(pub: Bytes, sec: Bytes, out?: Bytes): Bytes {
      need("generateKeyImage", "pub", pub, 32);
      need("generateKeyImage", "sec", sec, 32);
      const o = outBuf("generateKeyImage", out);
      a.generateKeyImage(pub, sec, o);
      return o;
    },
    generateSignature(prefixHash: Bytes, pub: Bytes, sec: Bytes, k: Bytes): Bytes {
      need("generateSignature", "prefixHash", prefixHash, 32);
      need("generateSignature", "pub", pub, 32);
      need("generateSignature", "sec", sec, 32);
      need("generateSignature", "k", k, 32);
      const o = new Uint8Array(64);
      a.generateSignature(prefixHash, pub, sec, k, o);
      return o;
    },
    checkSignature(prefixHash: Bytes, pub: Bytes, sig: Bytes): boolean {
      need("checkSignature", "prefixHash", prefixHash, 32);
      need("checkSignature", "pub", pub, 32);
      need("checkSignature", "sig", sig, 64);
      return a.checkSignature(prefixHash, pub, sig);
    },
    generateRingSignature(
      prefixHash: Bytes,
      image: Bytes,
      pubs: Bytes,
      sec: Bytes,
      secIndex: number,
      nonces: Bytes,
    ): Bytes {
      const fn = "generateRingSignature";
      need(fn, "prefixHash", prefixHash, 32);
      need(fn, "image", image, 32);
      const n = needMultiple(fn, "pubs", pubs, 32);
      if (n < 1) throw new TypeError(`${fn}: the ring needs at least one member`);
      need(fn, "sec", sec, 32);
      if (!Number.isSafeInteger(secIndex) || secIndex < 0 || secIndex >= n)
        throw new RangeError(`${fn}: secIndex ${secIndex} outside the ring of ${n}`);
      need(fn, "nonces", nonces, (2 * n - 1) * 32);
      const o = new Uint8Array(64 * n);
      const rc = a.generateRingSignature(prefixHash, image, pubs, sec, secIndex, nonces, o);
      // Monero aborts the process here (local_abort); a bad key image or ring member is a caller bug.
      if (rc === -1) throw new Error(`${fn}: the key image is not a valid point`);
      if (rc === -2) throw new Error(`${fn}: a ring member is not a valid point`);
      return o;
    },
    checkRingSignature(prefixHash: Bytes, image: Bytes, pubs: Bytes, sigs: Bytes): boolean {
      const fn = "checkRingSignature";
      need(fn, "prefixHash", prefixHash, 32);
      need(fn, "image", image, 32);
      const n = needMultiple(fn, "pubs", pubs, 32);
      need(fn, "sigs", sigs, 64 * n);
      return a.checkRingSignature(prefixHash, image, pubs, sigs);
    },
  };
  return be;
}

/** The package root: the nearest ancestor directory holding this package's package.json. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = join(dir, "package.json");
    if (existsSync(pj)) {
      try {
        if ((JSON.parse(readFileSync(pj, "utf8")) as { name?: string }).name === "tsmonero") return dir;
      } catch {
        // not ours; keep climbing
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  // compiled layout: dist/src/crypto/native/index.js
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
}

/** Why the addon is missing, as scripts/build-native.mjs recorded it. */
function buildStatusReason(root: string): string {
  const file = join(root, "build", "tsmonero-native-status.json");
  try {
    const st = JSON.parse(readFileSync(file, "utf8")) as { ok?: boolean; reason?: string };
    if (st.ok === false && st.reason) return st.reason;
  } catch {
    // no status recorded
  }
  return "not built";
}

/** Loads the C kernel, or explains why it is unavailable. */
export function loadNativeBackend(): { backend: NativeBackend } | { error: string } {
  const root = packageRoot();
  const file = join(root, "build", "Release", "tsmonero_crypto.node");
  if (!existsSync(file)) return { error: buildStatusReason(root) };
  try {
    const addon = createRequire(import.meta.url)(file) as Addon;
    return { backend: wrapAddon(addon) };
  } catch (e) {
    return { error: `could not load ${file}: ${(e as Error).message}` };
  }
}
