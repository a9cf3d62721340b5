/**
 * The pure-TypeScript crypto backend: Monero's crypto-ops.c / crypto.cpp semantics (v0.18.0.0) on
 * bigint field arithmetic, with Keccak from @noble/hashes. This is the reference oracle the C kernel
 * is differentially tested against and the fallback when the kernel is unavailable.
 *
 * Semantics that differ from "textbook" ed25519 (all deliberate, all Monero's):
 * - decompression accepts torsioned and small-order points; rejects y ≥ p and x = 0 with sign bit set;
 * - scalarMult / scalarMultBase / the key operations use the scalar bytes as a 256-bit integer, except
 *   that a top radix-16 digit above 8 is dropped (as `ge_scalarmult`/`ge_scalarmult_base` do);
 * - the vartime double multiplications use ref10's sliding-window recoding, which loses a carry past
 *   bit 255 (only reachable for scalars ≥ 2^255);
 * - multiScalarMult uses scalars as plain 256-bit integers (as rct's multiexp does).
 */
import { type Bytes, type CryptoBackend, NO_VIEW_TAG, type OutputScan, SCAN_BAD_KEY, SCAN_SPEND_KEY, SCAN_TAG_MISMATCH, type ScalarBatchOp } from "../backend.js";
import { outBuf as checkedOut, hashToScalarsItemLength, scalarCount, scanProbeCount, scBatchCount, viewTagCandidateRows, viewTagCount } from "../args.js";
import * as M from "./monero.js";
import * as G from "./point.js";
import * as S from "./scalar.js";

function need(b: unknown, len: number, name: string): asserts b is Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`${name}: expected Uint8Array`);
  if (b.length !== len) throw new TypeError(`${name}: expected ${len} bytes, got ${b.length}`);
}

function needMultiple(b: unknown, unit: number, name: string): asserts b is Uint8Array {
  if (!(b instanceof Uint8Array)) throw new TypeError(`${name}: expected Uint8Array`);
  if (b.length % unit !== 0) throw new TypeError(`${name}: length ${b.length} is not a multiple of ${unit}`);
}

function needIndex(i: unknown, name: string): asserts i is number {
  if (typeof i !== "number" || !Number.isSafeInteger(i) || i < 0)
    throw new TypeError(`${name}: expected a non-negative safe integer`);
}

/** The caller's out buffer (checked) or a fresh 32-byte one. */
function outBuf(out: Uint8Array | undefined): Uint8Array {
  if (out === undefined) return new Uint8Array(32);
  need(out, 32, "out");
  return out;
}

/** Writes a nullable result into out only when it exists. */
function viaTemp(out: Uint8Array | undefined, f: (o: Uint8Array) => Uint8Array | null): Uint8Array | null {
  const o = outBuf(out);
  // Compute into a scratch buffer so a null result leaves the caller's buffer untouched.
  const tmp = new Uint8Array(32);
  const r = f(tmp);
  if (r === null) return null;
  o.set(tmp);
  return o;
}

function bytesToPoints(buf: Uint8Array): G.Pt[] | null {
  const n = buf.length / 32;
  const pts: G.Pt[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const p = G.decode(buf, 32 * i);
    if (p === null) return null;
    pts[i] = p;
  }
  return pts;
}

const PREPARED_TAG = Uint8Array.from(Buffer.from("TSMTSPR1", "ascii"));
const preparedCache = new WeakMap<Uint8Array, G.Pt[]>();

/** The decoded points of a `preparePoints` buffer (decoded again if the buffer is a copy). */
function preparedPoints(prepared: Uint8Array): G.Pt[] {
  if (!(prepared instanceof Uint8Array)) throw new TypeError("prepared: expected Uint8Array");
  const hit = preparedCache.get(prepared);
  if (hit) return hit;
  const tagOk = prepared.length >= PREPARED_TAG.length && PREPARED_TAG.every((v, i) => prepared[i] === v);
  if (!tagOk || (prepared.length - PREPARED_TAG.length) % 32 !== 0) throw new TypeError("prepared: not a preparePoints buffer");
  const pts = bytesToPoints(prepared.subarray(PREPARED_TAG.length));
  if (pts === null) throw new TypeError("prepared: not a preparePoints buffer");
  preparedCache.set(prepared, pts);
  return pts;
}

/** The pure-TypeScript implementation of the crypto backend contract. */
export const tsBackend: CryptoBackend = {
  name: "ts",

  /** Keccak-256, original padding (crypto/hash.c `cn_fast_hash`). */
  keccak256(data: Bytes, out?: Bytes): Bytes {
    if (!(data instanceof Uint8Array)) throw new TypeError("data: expected Uint8Array");
    const o = outBuf(out);
    o.set(M.keccak(data));
    return o;
  },

  /** 256-bit integer mod ℓ (crypto-ops.c `sc_reduce32`). */
  scReduce32(s: Bytes, out?: Bytes): Bytes {
    need(s, 32, "s");
    return S.reduce32(s, outBuf(out));
  },

  /** 512-bit integer mod ℓ (crypto-ops.c `sc_reduce`). */
  scReduce64(s: Bytes, out?: Bytes): Bytes {
    need(s, 64, "s");
    return S.reduce64(s, outBuf(out));
  },

  /** (a + b) mod ℓ on the raw integers (crypto-ops.c `sc_add`). */
  scAdd(a: Bytes, b: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    need(b, 32, "b");
    return S.writeScalar(S.scalarToBig(a) + S.scalarToBig(b), outBuf(out));
  },

  /** (a − b) mod ℓ on the raw integers (crypto-ops.c `sc_sub`). */
  scSub(a: Bytes, b: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    need(b, 32, "b");
    return S.writeScalar(S.scalarToBig(a) - S.scalarToBig(b), outBuf(out));
  },

  /** (a · b) mod ℓ on the raw integers (crypto-ops.c `sc_mul`). */
  scMul(a: Bytes, b: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    need(b, 32, "b");
    return S.writeScalar(S.scalarToBig(a) * S.scalarToBig(b), outBuf(out));
  },

  /** (a · b + c) mod ℓ (crypto-ops.c `sc_muladd`). */
  scMulAdd(a: Bytes, b: Bytes, c: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    need(b, 32, "b");
    need(c, 32, "c");
    return S.writeScalar(S.scalarToBig(a) * S.scalarToBig(b) + S.scalarToBig(c), outBuf(out));
  },

  /** (c − a · b) mod ℓ (crypto-ops.c `sc_mulsub`). */
  scMulSub(a: Bytes, b: Bytes, c: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    need(b, 32, "b");
    need(c, 32, "c");
    return S.writeScalar(S.scalarToBig(c) - S.scalarToBig(a) * S.scalarToBig(b), outBuf(out));
  },

  /** a⁻¹ mod ℓ, 0 for a ≡ 0. */
  scInvert(a: Bytes, out?: Bytes): Bytes {
    need(a, 32, "a");
    return S.writeScalar(S.invert(S.scalarToBig(a)), outBuf(out));
  },

  /** s < ℓ over all 256 bits (crypto-ops.c `sc_check` == 0). */
  scCheck(s: Bytes): boolean {
    need(s, 32, "s");
    return S.check(s);
  },

  /** Any byte non-zero (crypto-ops.c `sc_isnonzero`). */
  scIsNonZero(s: Bytes): boolean {
    need(s, 32, "s");
    return S.isNonZero(s);
  },

  /** keccak256 mod ℓ (crypto.cpp `hash_to_scalar`). */
  hashToScalar(data: Bytes, out?: Bytes): Bytes {
    if (!(data instanceof Uint8Array)) throw new TypeError("data: expected Uint8Array");
    return M.hashToScalar(data, outBuf(out));
  },

  /** n independent sc_reduce32 / sc_add / sc_sub / sc_mul. */
  scBatch(op: ScalarBatchOp, a: Bytes, b: Bytes | null, out?: Bytes): Bytes {
    const n = scBatchCount(op, a, b);
    const o = checkedOut("scBatch", out, 32 * n);
    const step = b !== null && b.length === 32 ? 0 : 32;
    for (let i = 0; i < n; i++) {
      const r = o.subarray(32 * i, 32 * i + 32);
      if (op === "reduce32" || b === null) {
        S.reduce32(a.subarray(32 * i, 32 * i + 32), r);
        continue;
      }
      const x = S.scalarToBig(a.subarray(32 * i, 32 * i + 32));
      const y = S.scalarToBig(b.subarray(step * i, step * i + 32));
      S.writeScalar(op === "add" ? x + y : op === "sub" ? x - y : x * y, r);
    }
    return o;
  },

  /** The first non-canonical scalar's index (sc_check), or −1. */
  scCheckBatch(s: Bytes): number {
    const n = scalarCount("scCheckBatch", s);
    for (let i = 0; i < n; i++) if (!S.check(s.subarray(32 * i, 32 * i + 32))) return i;
    return -1;
  },

  /** hash_to_scalar of each of n equal-length inputs. */
  hashToScalars(data: Bytes, n: number, out?: Bytes): Bytes {
    const len = hashToScalarsItemLength(data, n);
    const o = checkedOut("hashToScalars", out, 32 * n);
    for (let i = 0; i < n; i++) M.hashToScalar(data.subarray(len * i, len * i + len), o.subarray(32 * i, 32 * i + 32));
    return o;
  },

  /** derive_view_tag per (derivation, index) pair. */
  deriveViewTags(derivations: Bytes, indices: Uint32Array, out?: Uint8Array): Uint8Array {
    const n = viewTagCount(derivations, indices);
    const o = checkedOut("deriveViewTags", out, n);
    for (let i = 0; i < n; i++) o[i] = M.deriveViewTag(derivations.subarray(32 * i, 32 * i + 32), indices[i]);
    return o;
  },

  /** check_acc_out_precomp's view tag and derive_subaddress_public_key per probe (backend.ts). */
  scanOutputs(derivations: Bytes, outKeys: Bytes, viewTags: Uint16Array, probes: Uint32Array, indices?: Uint32Array): OutputScan {
    const q = scanProbeCount(derivations, outKeys, viewTags, probes, indices);
    const status = new Uint8Array(q);
    const keys = new Uint8Array(32 * q);
    for (let k = 0; k < q; k++) {
      const d = derivations.subarray(32 * probes[2 * k], 32 * probes[2 * k] + 32);
      const i = probes[2 * k + 1];
      const index = indices ? indices[i] : i;
      if (viewTags[i] !== NO_VIEW_TAG && M.deriveViewTag(d, index) !== viewTags[i]) {
        status[k] = SCAN_TAG_MISMATCH;
        continue;
      }
      const D = M.deriveSubaddressPublicKey(outKeys.subarray(32 * i, 32 * i + 32), d, index, keys.subarray(32 * k, 32 * k + 32));
      status[k] = D === null ? SCAN_BAD_KEY : SCAN_SPEND_KEY;
    }
    return { status, keys };
  },

  /** The hub's view tag prefilter over many wallets' derivations (backend.ts). */
  viewTagCandidates(derivations: Bytes, wallets: number, viewTags: Uint16Array, probes: Uint32Array): Uint8Array {
    viewTagCandidateRows(derivations, wallets, viewTags, probes);
    const flags = new Uint8Array(wallets);
    for (let k = 0; k < probes.length; k += 2) {
      const [r, i] = [probes[k], probes[k + 1]];
      if (viewTags[i] === NO_VIEW_TAG) return flags.fill(1);
      for (let w = 0; w < wallets; w++) {
        const at = 32 * (r * wallets + w);
        if (!flags[w] && M.deriveViewTag(derivations.subarray(at, at + 32), i) === viewTags[i]) flags[w] = 1;
      }
    }
    return flags;
  },

  /** Decompresses under crypto-ops.c `ge_frombytes_vartime` rules (crypto.cpp `check_key`). */
  pointCheck(p: Bytes): boolean {
    need(p, 32, "p");
    return G.decode(p) !== null;
  },

  /** P + Q, null if either does not decompress (crypto-ops.c `ge_add`). */
  pointAdd(p: Bytes, q: Bytes, out?: Bytes): Bytes | null {
    need(p, 32, "p");
    need(q, 32, "q");
    return viaTemp(out, (o) => {
      const a = G.decode(p);
      const b = G.decode(q);
      return a === null || b === null ? null : G.encode(G.add(a, b), o);
    });
  },

  /** P − Q, null if either does not decompress (crypto-ops.c `ge_sub`). */
  pointSub(p: Bytes, q: Bytes, out?: Bytes): Bytes | null {
    need(p, 32, "p");
    need(q, 32, "q");
    return viaTemp(out, (o) => {
      const a = G.decode(p);
      const b = G.decode(q);
      return a === null || b === null ? null : G.encode(G.subtract(a, b), o);
    });
  },

  /** 8·P, null if P does not decompress (crypto-ops.c `ge_mul8`). */
  pointMul8(p: Bytes, out?: Bytes): Bytes | null {
    need(p, 32, "p");
    return viaTemp(out, (o) => {
      const a = G.decode(p);
      return a === null ? null : G.encode(G.mul8(a), o);
    });
  },

  /** s·P with crypto-ops.c `ge_scalarmult` digit semantics, null if P does not decompress. */
  scalarMult(s: Bytes, p: Bytes, out?: Bytes): Bytes | null {
    need(s, 32, "s");
    need(p, 32, "p");
    return viaTemp(out, (o) => {
      const a = G.decode(p);
      return a === null ? null : G.encode(G.scalarMult(s, a), o);
    });
  },

  /** s·G with crypto-ops.c `ge_scalarmult_base` digit semantics. */
  scalarMultBase(s: Bytes, out?: Bytes): Bytes {
    need(s, 32, "s");
    return G.encode(G.scalarMultBase(s), outBuf(out));
  },

  /** a·P + b·G as crypto-ops.c `ge_double_scalarmult_base_vartime`. */
  doubleScalarMultBase(a: Bytes, p: Bytes, b: Bytes, out?: Bytes): Bytes | null {
    need(a, 32, "a");
    need(p, 32, "p");
    need(b, 32, "b");
    return viaTemp(out, (o) => {
      const pa = G.decode(p);
      return pa === null ? null : G.encode(G.doubleScalarMultBase(a, pa, b), o);
    });
  },

  /** a·P + b·Q as crypto-ops.c `ge_double_scalarmult_precomp_vartime`. */
  doubleScalarMult(a: Bytes, p: Bytes, b: Bytes, q: Bytes, out?: Bytes): Bytes | null {
    need(a, 32, "a");
    need(p, 32, "p");
    need(b, 32, "b");
    need(q, 32, "q");
    return viaTemp(out, (o) => {
      const pa = G.decode(p);
      const pb = G.decode(q);
      return pa === null || pb === null ? null : G.encode(G.doubleScalarMult(a, pa, b, pb), o);
    });
  },

  /** Σ sᵢ·Pᵢ with raw 256-bit scalars (as ringct/multiexp.cc), identity when empty. */
  multiScalarMult(scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null {
    needMultiple(scalars, 32, "scalars");
    needMultiple(points, 32, "points");
    if (scalars.length !== points.length) throw new TypeError("scalars and points must have the same count");
    return viaTemp(out, (o) => {
      const pts = bytesToPoints(points);
      if (pts === null) return null;
      const ss: bigint[] = [];
      for (let i = 0; i < pts.length; i++) ss.push(S.scalarToBig(scalars.subarray(32 * i, 32 * i + 32)));
      return G.encode(G.multiScalarMult(ss, pts), o);
    });
  },

  /** Opaque form: an 8-byte tag then the compressed points; the decoded points are cached per buffer. */
  preparePoints(points: Bytes): Bytes | null {
    needMultiple(points, 32, "points");
    const pts = bytesToPoints(points);
    if (pts === null) return null;
    const o = new Uint8Array(PREPARED_TAG.length + points.length);
    o.set(PREPARED_TAG);
    o.set(points, PREPARED_TAG.length);
    preparedCache.set(o, pts);
    return o;
  },

  multiScalarMultPrepared(prepared: Bytes, preparedScalars: Bytes, scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null {
    const q = preparedPoints(prepared);
    needMultiple(preparedScalars, 32, "preparedScalars");
    needMultiple(scalars, 32, "scalars");
    needMultiple(points, 32, "points");
    if (scalars.length !== points.length) throw new TypeError("scalars and points must have the same count");
    const k = preparedScalars.length / 32;
    if (k > q.length) throw new TypeError(`preparedScalars: ${k} scalars for ${q.length} prepared points`);
    return viaTemp(out, (o) => {
      const pts = bytesToPoints(points);
      if (pts === null) return null;
      const ss: bigint[] = [];
      for (let i = 0; i < k; i++) ss.push(S.scalarToBig(preparedScalars.subarray(32 * i, 32 * i + 32)));
      for (let i = 0; i < pts.length; i++) ss.push(S.scalarToBig(scalars.subarray(32 * i, 32 * i + 32)));
      return G.encode(G.multiScalarMult(ss, [...q.slice(0, k), ...pts]), o);
    });
  },

  /** crypto-ops.c `ge_fromfe_frombytes_vartime` then `ge_tobytes`. */
  hashToPoint(h: Bytes, out?: Bytes): Bytes {
    need(h, 32, "h");
    const tmp = G.hashToPointBytes(h, new Uint8Array(32));
    const o = outBuf(out);
    o.set(tmp);
    return o;
  },

  /** 8·map(keccak256(p)) (crypto.cpp `hash_to_ec`). */
  hashToEc(p: Bytes, out?: Bytes): Bytes {
    need(p, 32, "p");
    return G.encode(M.hashToEcPoint(p), outBuf(out));
  },

  /** sec·G, null when sc_check fails (crypto.cpp `secret_key_to_public_key`). */
  secretKeyToPublicKey(sec: Bytes, out?: Bytes): Bytes | null {
    need(sec, 32, "sec");
    return viaTemp(out, (o) => M.secretKeyToPublicKey(sec, o));
  },

  /** 8·(sec·pub) (crypto.cpp `generate_key_derivation`). */
  generateKeyDerivation(pub: Bytes, sec: Bytes, out?: Bytes): Bytes | null {
    need(pub, 32, "pub");
    need(sec, 32, "sec");
    return viaTemp(out, (o) => M.generateKeyDerivation(pub, sec, o));
  },

  /** generateKeyDerivation for each 32-byte secret of `secs` (one after the other here). */
  generateKeyDerivations(pub: Bytes, secs: Bytes): Bytes | null {
    need(pub, 32, "pub");
    if (!(secs instanceof Uint8Array) || secs.length % 32 !== 0) throw new TypeError("secs must be a multiple of 32 bytes");
    const out = new Uint8Array(secs.length);
    for (let i = 0; i < secs.length; i += 32) if (!M.generateKeyDerivation(pub, secs.subarray(i, i + 32), out.subarray(i, i + 32))) return null;
    return out;
  },

  /** generateKeyDerivation of each (pub, sec) pair (one after the other here). */
  generateKeyDerivationPairs(pubs: Bytes, secs: Bytes): { derivations: Bytes; ok: Uint8Array } {
    if (!(pubs instanceof Uint8Array) || pubs.length % 32 !== 0) throw new TypeError("pubs must be a multiple of 32 bytes");
    need(secs, pubs.length, "secs");
    const n = pubs.length / 32;
    const derivations = new Uint8Array(32 * n);
    const ok = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const d = M.generateKeyDerivation(pubs.subarray(32 * k, 32 * k + 32), secs.subarray(32 * k, 32 * k + 32), new Uint8Array(32));
      if (d) {
        derivations.set(d, 32 * k);
        ok[k] = 1;
      }
    }
    return { derivations, ok };
  },

  /** Hs(derivation ‖ varint(index)) (crypto.cpp `derivation_to_scalar`). */
  derivationToScalar(derivation: Bytes, index: number, out?: Bytes): Bytes {
    need(derivation, 32, "derivation");
    needIndex(index, "index");
    return M.derivationToScalar(derivation, index, outBuf(out));
  },

  /** base + Hs(…)·G (crypto.cpp `derive_public_key`). */
  derivePublicKey(derivation: Bytes, index: number, base: Bytes, out?: Bytes): Bytes | null {
    need(derivation, 32, "derivation");
    needIndex(index, "index");
    need(base, 32, "base");
    return viaTemp(out, (o) => M.derivePublicKey(derivation, index, base, o));
  },

  /** base + Hs(…) mod ℓ (crypto.cpp `derive_secret_key`). */
  deriveSecretKey(derivation: Bytes, index: number, base: Bytes, out?: Bytes): Bytes {
    need(derivation, 32, "derivation");
    needIndex(index, "index");
    need(base, 32, "base");
    return M.deriveSecretKey(derivation, index, base, outBuf(out));
  },

  /** outKey − Hs(…)·G (crypto.cpp `derive_subaddress_public_key`). */
  deriveSubaddressPublicKey(outKey: Bytes, derivation: Bytes, index: number, out?: Bytes): Bytes | null {
    need(outKey, 32, "outKey");
    need(derivation, 32, "derivation");
    needIndex(index, "index");
    return viaTemp(out, (o) => M.deriveSubaddressPublicKey(outKey, derivation, index, o));
  },

  /** First byte of keccak256("view_tag" ‖ derivation ‖ varint) (crypto.cpp `derive_view_tag`). */
  deriveViewTag(derivation: Bytes, index: number): number {
    need(derivation, 32, "derivation");
    needIndex(index, "index");
    return M.deriveViewTag(derivation, index);
  },

  /** sec·hash_to_ec(pub) (crypto.cpp `generate_key_image`). */
  generateKeyImage(pub: Bytes, sec: Bytes, out?: Bytes): Bytes {
    need(pub, 32, "pub");
    need(sec, 32, "sec");
    const tmp = M.generateKeyImage(pub, sec, new Uint8Array(32));
    const o = outBuf(out);
    o.set(tmp);
    return o;
  },

  /** generateKeyImage of each (pub, sec) pair (one after the other here). */
  generateKeyImages(pubs: Bytes, secs: Bytes): Bytes {
    if (!(pubs instanceof Uint8Array) || pubs.length % 32 !== 0) throw new TypeError("pubs must be a multiple of 32 bytes");
    need(secs, pubs.length, "secs");
    const out = new Uint8Array(pubs.length);
    for (let k = 0; k < pubs.length; k += 32) out.set(M.generateKeyImage(pubs.subarray(k, k + 32), secs.subarray(k, k + 32), new Uint8Array(32)), k);
    return out;
  },

  /** Schnorr signature with the given nonce (crypto.cpp `generate_signature`). */
  generateSignature(prefixHash: Bytes, pub: Bytes, sec: Bytes, k: Bytes): Bytes {
    need(prefixHash, 32, "prefixHash");
    need(pub, 32, "pub");
    need(sec, 32, "sec");
    need(k, 32, "k");
    return M.generateSignature(prefixHash, pub, sec, k);
  },

  /** crypto.cpp `check_signature`, identity-commitment check included. */
  checkSignature(prefixHash: Bytes, pub: Bytes, sig: Bytes): boolean {
    need(prefixHash, 32, "prefixHash");
    need(pub, 32, "pub");
    need(sig, 64, "sig");
    return M.checkSignature(prefixHash, pub, sig);
  },

  /** crypto.cpp `generate_ring_signature` with supplied nonces; throws where Monero aborts. */
  generateRingSignature(
    prefixHash: Bytes,
    image: Bytes,
    pubs: Bytes,
    sec: Bytes,
    secIndex: number,
    nonces: Bytes,
  ): Bytes {
    need(prefixHash, 32, "prefixHash");
    need(image, 32, "image");
    needMultiple(pubs, 32, "pubs");
    need(sec, 32, "sec");
    const n = pubs.length / 32;
    if (n === 0) throw new TypeError("pubs: ring must have at least one member");
    needIndex(secIndex, "secIndex");
    if (secIndex >= n) throw new TypeError(`secIndex ${secIndex} out of range for ring of ${n}`);
    need(nonces, (2 * n - 1) * 32, "nonces");
    return M.generateRingSignature(prefixHash, image, pubs, sec, secIndex, nonces);
  },

  /** crypto.cpp `check_ring_signature`. */
  checkRingSignature(prefixHash: Bytes, image: Bytes, pubs: Bytes, sigs: Bytes): boolean {
    need(prefixHash, 32, "prefixHash");
    need(image, 32, "image");
    needMultiple(pubs, 32, "pubs");
    need(sigs, (pubs.length / 32) * 64, "sigs");
    return M.checkRingSignature(prefixHash, image, pubs, sigs);
  },
};
