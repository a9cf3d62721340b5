/**
 * The contract every crypto backend implements: bytes in, bytes out.
 *
 * Two implementations exist: the C kernel (`crypto/native`, a Node-API addon built from `native/`)
 * and pure TypeScript (`crypto/ts`, on @noble/curves + @noble/hashes). They must return identical
 * bytes for every input; `test/crypto-differential.test.ts` checks that.
 *
 * Conventions:
 * - Scalars, points, hashes, derivations and key images are 32-byte `Uint8Array`s (little-endian
 *   scalars, compressed Edwards points exactly as Monero encodes them).
 * - Arrays of points/scalars are passed concatenated (n × 32 bytes) to keep native calls cheap.
 * - Functions that can fail on bad input (a point that does not decompress, a non-canonical scalar)
 *   return `null` or `false` exactly where Monero's C++ returns false; they never throw for bad
 *   cryptographic input. They throw `TypeError` only for wrong buffer lengths (programming errors).
 * - Hot-path functions take an optional `out` buffer (32 bytes unless noted); when given, the
 *   result is written there and `out` is returned, avoiding an allocation.
 * - Randomness never comes from inside a backend: signing functions take their nonces as inputs,
 *   so results are reproducible and Monero's test vectors (which use a seeded generator) can be
 *   replayed. `crypto/random.ts` supplies nonces.
 */
export type Bytes = Uint8Array;

export type BackendName = "native" | "ts";

/** The operations `scBatch` runs n at a time: `sc_reduce32`, `sc_add`, `sc_sub`, `sc_mul`. */
export type ScalarBatchOp = "reduce32" | "add" | "sub" | "mul";

/** `scanOutputs` view tag entry for an output without one (a `key` output, before view tags). */
export const NO_VIEW_TAG = 256;
/** `scanOutputs` status: the output's view tag differs from the derivation's; nothing computed. */
export const SCAN_TAG_MISMATCH = 0;
/** `scanOutputs` status: the tag matched (or there is none) but the output key does not decompress. */
export const SCAN_BAD_KEY = 1;
/** `scanOutputs` status: the subaddress spend key D was written. */
export const SCAN_SPEND_KEY = 2;

/** What `scanOutputs` returns for q probes. */
export interface OutputScan {
  /** q bytes: SCAN_TAG_MISMATCH, SCAN_BAD_KEY or SCAN_SPEND_KEY per probe. */
  readonly status: Uint8Array;
  /** q × 32 bytes: probe k's D at 32k where status[k] is SCAN_SPEND_KEY (other slots unspecified). */
  readonly keys: Bytes;
}

export interface CryptoBackend {
  /** Which implementation this is. */
  readonly name: BackendName;

  // ---- hashing ----
  /** Keccak-256 with the original Keccak padding (Monero's `cn_fast_hash`). */
  keccak256(data: Bytes, out?: Bytes): Bytes;

  // ---- scalars mod ℓ = 2^252 + 27742317777372353535851937790883648493 ----
  /** Reduce a 32-byte little-endian integer mod ℓ (`sc_reduce32`). */
  scReduce32(s: Bytes, out?: Bytes): Bytes;
  /** Reduce a 64-byte little-endian integer mod ℓ (`sc_reduce`). */
  scReduce64(s: Bytes, out?: Bytes): Bytes;
  /** (a + b) mod ℓ (`sc_add`). */
  scAdd(a: Bytes, b: Bytes, out?: Bytes): Bytes;
  /** (a − b) mod ℓ (`sc_sub`). */
  scSub(a: Bytes, b: Bytes, out?: Bytes): Bytes;
  /** (a · b) mod ℓ (`sc_mul`). */
  scMul(a: Bytes, b: Bytes, out?: Bytes): Bytes;
  /** (a · b + c) mod ℓ (`sc_muladd`). */
  scMulAdd(a: Bytes, b: Bytes, c: Bytes, out?: Bytes): Bytes;
  /** (c − a · b) mod ℓ (`sc_mulsub`). */
  scMulSub(a: Bytes, b: Bytes, c: Bytes, out?: Bytes): Bytes;
  /** a⁻¹ mod ℓ; the inverse of 0 is 0. */
  scInvert(a: Bytes, out?: Bytes): Bytes;
  /** True when s < ℓ, i.e. canonical (`sc_check(s) == 0`). */
  scCheck(s: Bytes): boolean;
  /** True when s ≠ 0 (as bytes; `sc_isnonzero`). */
  scIsNonZero(s: Bytes): boolean;
  /** keccak256(data) reduced mod ℓ (`hash_to_scalar`). */
  hashToScalar(data: Bytes, out?: Bytes): Bytes;

  // ---- batches: n independent operations in one call ----
  // A call from JavaScript into the C kernel costs ~0.05–0.1 µs (more than a scalar addition), so
  // hot loops over independent values pass them all at once, concatenated.
  /**
   * n scalar operations: out[i] = op(a[i], b[i]) with `a` n×32 bytes and `b` n×32 bytes or one
   * 32-byte scalar used for every i (null for "reduce32"). Returns n×32 bytes; `out` may be `a` or `b`.
   */
  scBatch(op: ScalarBatchOp, a: Bytes, b: Bytes | null, out?: Bytes): Bytes;
  /** The index of the first scalar of `s` (n×32 bytes) that is not canonical (`sc_check`), or −1. */
  scCheckBatch(s: Bytes): number;
  /** hashToScalar of each of n equal-length inputs concatenated in `data`: n×32 bytes. */
  hashToScalars(data: Bytes, n: number, out?: Bytes): Bytes;
  /** deriveViewTag(derivations[32i..], indices[i]) for each of n pairs: n bytes (`derive_view_tag`). */
  deriveViewTags(derivations: Bytes, indices: Uint32Array, out?: Uint8Array): Uint8Array;
  /**
   * One transaction's output scan (wallet2's `check_acc_out_precomp` per output and derivation) in
   * one call. `derivations`: m×32 bytes (the main derivation, the additional ones, in any order);
   * `outKeys`: the tx's n output keys, n×32 (any bytes for outputs never probed); `viewTags`: n
   * entries, the output's view tag or NO_VIEW_TAG. `probes`: 2q entries, probe k being (derivation
   * number probes[2k], output index probes[2k+1]); the output index is also the `index` hashed. Per
   * probe: when the output has a tag and `deriveViewTag(d, i)` differs, SCAN_TAG_MISMATCH; else
   * `deriveSubaddressPublicKey(outKey, d, i)`: SCAN_BAD_KEY when it is null, else SCAN_SPEND_KEY and
   * D in `keys`. Throws RangeError for a probe outside the derivations or outputs.
   * `indices` (n entries, optional): the index hashed for each output key instead of its position,
   * so that a chunk of transactions' outputs, one after the other, goes in one call (each output's
   * index within its own transaction).
   */
  scanOutputs(derivations: Bytes, outKeys: Bytes, viewTags: Uint16Array, probes: Uint32Array, indices?: Uint32Array): OutputScan;
  /**
   * Many wallets' view tag check of one transaction (the hub's prefilter before `scanOutputs`):
   * `derivations` is rows × wallets × 32 bytes, row r holding tx public key r's derivation for every
   * wallet (as `generateKeyDerivations` returns them); `probes` are (row, output index) pairs;
   * `viewTags` as for scanOutputs. Returns `wallets` bytes: 1 where some probe's output has no view
   * tag or `deriveViewTag(derivation of that wallet in that row, output)` equals its tag (the wallet
   * must look at the transaction), 0 where every probe fails its tag (scanOutputs would find nothing).
   */
  viewTagCandidates(derivations: Bytes, wallets: number, viewTags: Uint16Array, probes: Uint32Array): Uint8Array;

  // ---- points on ed25519 (compressed 32-byte form) ----
  /** True when the bytes decompress to a curve point under Monero's `ge_frombytes_vartime` rules (`check_key`). */
  pointCheck(p: Bytes): boolean;
  /** P + Q, or null if either does not decompress. */
  pointAdd(p: Bytes, q: Bytes, out?: Bytes): Bytes | null;
  /** P − Q, or null if either does not decompress. */
  pointSub(p: Bytes, q: Bytes, out?: Bytes): Bytes | null;
  /** 8·P, or null if P does not decompress. */
  pointMul8(p: Bytes, out?: Bytes): Bytes | null;
  /** s·P in constant time (s secret; s is used as a 256-bit integer, not reduced), or null if P does not decompress. */
  scalarMult(s: Bytes, p: Bytes, out?: Bytes): Bytes | null;
  /** s·G in constant time with precomputed tables (`ge_scalarmult_base`; s must be < 2^255). */
  scalarMultBase(s: Bytes, out?: Bytes): Bytes;
  /** a·P + b·G, variable time (`ge_double_scalarmult_base_vartime`), or null if P does not decompress. */
  doubleScalarMultBase(a: Bytes, p: Bytes, b: Bytes, out?: Bytes): Bytes | null;
  /**
   * mask·G + amount·H (`rct::commit`) in constant time from fixed tables of G and H (mask must be
   * < 2^255; amount a u64). Optional: without it, callers use doubleScalarMultBase with H.
   */
  commit?(amount: bigint, mask: Bytes, out?: Bytes): Bytes;
  /** a·P + b·Q, variable time (`ge_double_scalarmult_precomp_vartime`), or null if P or Q does not decompress. */
  doubleScalarMult(a: Bytes, p: Bytes, b: Bytes, q: Bytes, out?: Bytes): Bytes | null;
  /**
   * Σ sᵢ·Pᵢ, variable time (Straus for small n, Pippenger for large), or null if any Pᵢ does not
   * decompress. `scalars` and `points` are n×32 bytes each. The empty sum is the identity (01 00…00).
   */
  multiScalarMult(scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null;
  /**
   * Decodes n points (n×32 bytes) once, for repeated `multiScalarMultPrepared` calls on a fixed set
   * such as the Bulletproof generators. Returns an opaque buffer that only this backend reads, or
   * null if any point does not decompress.
   */
  preparePoints(points: Bytes): Bytes | null;
  /**
   * Σ aᵢ·Qᵢ + Σ sⱼ·Pⱼ, variable time, like `multiScalarMult`: Qᵢ are the first k points of
   * `prepared` (k = preparedScalars.length/32, at most the prepared count), Pⱼ compressed points.
   * Null if a Pⱼ does not decompress. Throws TypeError when `prepared` is not from `preparePoints`.
   */
  multiScalarMultPrepared(prepared: Bytes, preparedScalars: Bytes, scalars: Bytes, points: Bytes, out?: Bytes): Bytes | null;
  /**
   * Optional accelerator (the C kernel has it): one Bulletproofs+ proof attempt for m amounts
   * (`amounts` m × u64 little-endian, `gammas` m × 32) with the given nonces (α, dL/dR per round,
   * r, s, d, η); `prepared` is `preparePoints` of the interleaved generators G0,H0,G1,H1,…, `h` is
   * rct's H, `transcript0` the initial transcript. Returns V ‖ A ‖ A1 ‖ B ‖ r1 ‖ s1 ‖ d1 ‖ L ‖ R,
   * or null when a challenge was zero. Callers fall back to the portable prover in
   * `ringct/bulletproof-plus.ts`, which gives the same bytes for the same nonces.
   */
  bulletproofPlusProve?(prepared: Bytes, amounts: Bytes, gammas: Bytes, nonces: Bytes, h: Bytes, transcript0: Bytes): Bytes | null;
  /**
   * Optional accelerator (the C kernel has it): CLSAG_Gen over a ring of n members (`P`, `C`
   * n × 32 each) for member `l`, with `nonces` α then the decoy responses in ring order from l+1
   * (n × 32). Returns s[n] ‖ c1 ‖ D/8 ‖ I, or a number when a point does not decode (−1: the
   * pseudo output; i ≥ 0: ring member i). `ringct/clsag.ts` gives the same bytes without it.
   */
  clsagSign?(message: Bytes, P: Bytes, C: Bytes, p: Bytes, z: Bytes, cOffset: Bytes, l: number, nonces: Bytes): Bytes | number;
  /**
   * Optional accelerator (the C kernel has it, on two threads when allowed): import_key_images'
   * checks of n signed key images (`keyImages`, `pubs` n × 32, `sigs` n × 64): each key image in the
   * prime-order subgroup and each one-member ring signature over the key image good. null when all
   * hold, else the first that fails and why. Without it, callers loop over `checkRingSignature`.
   */
  checkKeyImageSignatures?(keyImages: Bytes, pubs: Bytes, sigs: Bytes): { index: number; why: "domain" | "signature" } | null;
  /**
   * Subaddress spend public keys of account `major`, minors begin..end−1, concatenated (n×32 bytes;
   * `get_subaddress_spend_public_keys`), or null when the spend key does not decompress. A batch for
   * large lookaheads (one decompression, one inversion per chunk, two threads). Without it, callers
   * derive each key with hashToScalar, scalarMultBase and pointAdd.
   */
  subaddressSpendKeys?(spendPublicKey: Bytes, viewSecretKey: Bytes, major: number, begin: number, end: number): Bytes | null;
  /** Monero's raw map of 32 bytes to a point, without hashing or cofactor (`ge_fromfe_frombytes_vartime`). */
  hashToPoint(h: Bytes, out?: Bytes): Bytes;
  /** Monero's `hash_to_ec`: 8 · map(keccak256(p)). Accepts any 32 bytes. */
  hashToEc(p: Bytes, out?: Bytes): Bytes;

  // ---- Monero key operations (crypto/crypto.cpp) ----
  /** sec·G, or null when sec is not canonical (`secret_key_to_public_key`). */
  secretKeyToPublicKey(sec: Bytes, out?: Bytes): Bytes | null;
  /** 8·(sec·pub) (`generate_key_derivation`), or null if pub does not decompress. */
  generateKeyDerivation(pub: Bytes, sec: Bytes, out?: Bytes): Bytes | null;
  /**
   * generateKeyDerivation of each 32-byte secret of `secs` (n×32 bytes) with one `pub`: n×32 bytes,
   * or null if pub does not decompress. Many wallets' view keys against one tx public key in one
   * call (the C kernel builds pub's table once for all of them).
   */
  generateKeyDerivations(pub: Bytes, secs: Bytes): Bytes | null;
  /**
   * generateKeyDerivation of n (pub, sec) pairs (`pubs`, `secs`: n×32 bytes each): the derivations
   * (n×32 bytes, zeros where a pub does not decompress) and `ok` (1 where pub k decompressed, else 0).
   * One wallet's view key against a chunk of transactions' public keys in one call: the C kernel
   * computes eight at a time where the machine has AVX-512 IFMA.
   */
  generateKeyDerivationPairs(pubs: Bytes, secs: Bytes): { derivations: Bytes; ok: Uint8Array };
  /** hash_to_scalar(derivation ‖ varint(index)) (`derivation_to_scalar`). */
  derivationToScalar(derivation: Bytes, index: number, out?: Bytes): Bytes;
  /** base + derivation_to_scalar·G (`derive_public_key`), or null if base does not decompress. */
  derivePublicKey(derivation: Bytes, index: number, base: Bytes, out?: Bytes): Bytes | null;
  /** base + derivation_to_scalar mod ℓ (`derive_secret_key`). */
  deriveSecretKey(derivation: Bytes, index: number, base: Bytes, out?: Bytes): Bytes;
  /** outKey − derivation_to_scalar·G (`derive_subaddress_public_key`), or null if outKey does not decompress. */
  deriveSubaddressPublicKey(outKey: Bytes, derivation: Bytes, index: number, out?: Bytes): Bytes | null;
  /** First byte of keccak256("view_tag" ‖ derivation ‖ varint(index)) (`derive_view_tag`). */
  deriveViewTag(derivation: Bytes, index: number): number;
  /** sec · hash_to_ec(pub) (`generate_key_image`). */
  generateKeyImage(pub: Bytes, sec: Bytes, out?: Bytes): Bytes;
  /** generateKeyImage of n (pub, sec) pairs (n×32 bytes each): n×32 bytes; batched as generateKeyDerivationPairs. */
  generateKeyImages(pubs: Bytes, secs: Bytes): Bytes;
  /**
   * Schnorr signature (c ‖ r, 64 bytes) of Monero's `generate_signature`, with nonce k given
   * (k must be a canonical non-zero scalar, as `random_scalar` yields).
   */
  generateSignature(prefixHash: Bytes, pub: Bytes, sec: Bytes, k: Bytes): Bytes;
  /** Monero's `check_signature` (sig is c ‖ r). */
  checkSignature(prefixHash: Bytes, pub: Bytes, sig: Bytes): boolean;
  /**
   * Monero's `generate_ring_signature` for n = pubs.length/32 members. `nonces` holds the scalars
   * in the order Monero draws them: for i = 0..n−1, k if i = secIndex, else cᵢ then rᵢ
   * (so 2n − 1 scalars, (2n − 1)×32 bytes). Returns n × 64 bytes.
   */
  generateRingSignature(
    prefixHash: Bytes,
    image: Bytes,
    pubs: Bytes,
    sec: Bytes,
    secIndex: number,
    nonces: Bytes,
  ): Bytes;
  /** Monero's `check_ring_signature`; pubs is n×32, sigs n×64. */
  checkRingSignature(prefixHash: Bytes, image: Bytes, pubs: Bytes, sigs: Bytes): boolean;
}
