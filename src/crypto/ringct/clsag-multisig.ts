/**
 * Multisig CLSAG (src/multisig/multisig_clsag_context.cpp, v0.18.0.0): a CLSAG whose real-key
 * response is the sum of partial responses, one per signer, with MuSig2-style nonces.
 *
 * Every signer holds, per input, `numAlpha` (2) secret nonces αⱼ; the group's public nonces are the
 * sums over signers of αⱼ·G and αⱼ·Hp(P[l]). A merge factor b = H("CLSAG_round_ms_merge_factor" ‖
 * P ‖ C ‖ C_offset ‖ message ‖ ΣαG ‖ ΣαH ‖ I ‖ D ‖ fake responses ‖ l ‖ numAlpha ‖ n) binds them: the
 * round's L = Σ bʲ·(ΣαⱼG), R = Σ bʲ·(ΣαⱼH), and each signer's combined nonce is Σ bʲ·αⱼ. The ring
 * challenge c at index l then follows as in CLSAG_Gen, and each signer answers
 * sᵢ = α_combinedᵢ − c·wᵢ with wᵢ = μ_P·(its share of the spend key) (the proposer adds μ_P·(derivation
 * part) + μ_C·z). The final s[l] = Σ sᵢ, c1 = the challenge at index 0: an ordinary CLSAG that
 * `clsagVerify` accepts.
 *
 * Pure functions over a backend; randomness (the nonces, the fake responses) comes from the caller.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { concatBytes, domainKey, G, IDENTITY, INV_EIGHT, ZERO } from "./scalar.js";

const ROUND = domainKey("CLSAG_round");
const ROUND_MULTISIG = domainKey("CLSAG_round_ms_merge_factor");
const AGG_0 = domainKey("CLSAG_agg_0");
const AGG_1 = domainKey("CLSAG_agg_1");

/** multisig::signing::kAlphaComponents. */
export const MULTISIG_ALPHA_COMPONENTS = 2;

export interface MultisigClsagInput {
  /** Ring members' one-time keys. */
  P: readonly Bytes[];
  /** Ring members' commitments (C_nonzero). */
  C: readonly Bytes[];
  /** The input's pseudo output. */
  cOffset: Bytes;
  /** get_pre_mlsag_hash of the transaction. */
  message: Bytes;
  /** The full key image. */
  I: Bytes;
  /** The auxiliary image z·Hp(P[l]) (not divided by 8). */
  D: Bytes;
  /** The real member. */
  l: number;
  /** Responses, the fake ones used; s[l] is ignored. */
  s: readonly Bytes[];
}

/** CLSAG_context_t after init: everything that does not depend on the nonces. */
export interface MultisigClsagContext {
  readonly n: number;
  readonly l: number;
  readonly numAlpha: number;
  readonly muP: Bytes;
  readonly muC: Bytes;
  readonly s: readonly Bytes[];
  /** H("CLSAG_round" ‖ P ‖ C ‖ C_offset ‖ message ‖ L ‖ R) with L and R at `cLOffset`. */
  readonly cParams: Bytes;
  readonly cLOffset: number;
  /** The merge-factor hash input with the public nonces at `bLOffset` / `bROffset`. */
  readonly bParams: Bytes;
  readonly bLOffset: number;
  readonly bROffset: number;
  /** μ_P·P[i] + μ_C·(C[i] − C_offset). */
  readonly W: readonly Bytes[];
  /** Hp(P[i]). */
  readonly Hp: readonly Bytes[];
  /** μ_P·I + μ_C·D. */
  readonly wHl: Bytes;
}

/** Little-endian u64 in a 32-byte key (encode_int_to_key_le). */
function intKey(v: number): Bytes {
  const k = new Uint8Array(32);
  new DataView(k.buffer).setBigUint64(0, BigInt(v), true);
  return k;
}

function need<T>(v: T | null, what: string): T {
  if (v === null) throw new RangeError(`multisig CLSAG: ${what} does not decode`);
  return v;
}

/** CLSAG_context_t::init. Throws RangeError on a malformed ring or an undecodable point. */
export function multisigClsagInit(b: CryptoBackend, x: MultisigClsagInput, numAlpha = MULTISIG_ALPHA_COMPONENTS): MultisigClsagContext {
  const n = x.P.length;
  if (n === 0) throw new RangeError("multisig CLSAG: empty ring");
  if (x.C.length !== n || x.s.length !== n) throw new RangeError("multisig CLSAG: P, C and s must have the ring's size");
  if (!Number.isInteger(x.l) || x.l < 0 || x.l >= n) throw new RangeError("multisig CLSAG: real index outside the ring");
  if (numAlpha < 1) throw new RangeError("multisig CLSAG: at least one nonce component");

  const cParams = concatBytes([ROUND, ...x.P, ...x.C, x.cOffset, x.message, new Uint8Array(64)]);
  const cLOffset = 32 * (2 * n + 3);
  const fakes = [...x.s.slice(0, x.l), ...x.s.slice(x.l + 1)];
  const bParams = concatBytes([
    ROUND_MULTISIG,
    ...x.P,
    ...x.C,
    x.cOffset,
    x.message,
    new Uint8Array(64 * numAlpha),
    x.I,
    x.D,
    ...fakes,
    intKey(x.l),
    intKey(numAlpha),
    intKey(n),
  ]);
  const bLOffset = 32 * (2 * n + 3);
  const bROffset = bLOffset + 32 * numAlpha;

  const D8inv = need(b.scalarMult(INV_EIGHT, x.D), "D");
  const agg = concatBytes([AGG_0, ...x.P, ...x.C, x.I, D8inv, x.cOffset]);
  const muP = b.hashToScalar(agg);
  agg.set(AGG_1, 0);
  const muC = b.hashToScalar(agg);

  const wHl = need(b.doubleScalarMult(muP, x.I, muC, x.D), "the key image or D");
  const W: Bytes[] = [];
  const Hp: Bytes[] = [];
  for (let i = 0; i < n; i++) {
    const Ci = need(b.pointSub(x.C[i], x.cOffset), `ring commitment ${i} or the pseudo output`);
    W.push(need(b.doubleScalarMult(muP, x.P[i], muC, Ci), `ring member ${i}`));
    Hp.push(b.hashToEc(x.P[i]));
  }
  return { n, l: x.l, numAlpha, muP, muC, s: x.s.map((v) => v.slice()), cParams, cLOffset, bParams, bLOffset, bROffset, W, Hp, wHl };
}

/** The round's challenges once the group's public nonces are known. */
export interface MultisigChallenge {
  /** The merge factor b. */
  merge: Bytes;
  /** The challenge at index 0 (the signature's c1). */
  c0: Bytes;
  /** The challenge at index l, which every signer answers. */
  c: Bytes;
}

/**
 * combine_alpha_and_compute_challenge without the local part: from the group's public nonces
 * (ΣαⱼG and ΣαⱼH per component), the merge factor and the challenges. Deterministic: every signer
 * computes the same values.
 */
export function multisigClsagChallenge(b: CryptoBackend, ctx: MultisigClsagContext, totalAlphaG: readonly Bytes[], totalAlphaH: readonly Bytes[]): MultisigChallenge {
  if (totalAlphaG.length !== ctx.numAlpha || totalAlphaH.length !== ctx.numAlpha) throw new RangeError(`multisig CLSAG: ${ctx.numAlpha} nonce components needed`);
  const bp = ctx.bParams.slice();
  for (let i = 0; i < ctx.numAlpha; i++) {
    bp.set(totalAlphaG[i], ctx.bLOffset + 32 * i);
    bp.set(totalAlphaH[i], ctx.bROffset + 32 * i);
  }
  const merge = b.hashToScalar(bp);
  let L: Bytes = IDENTITY;
  let R: Bytes = IDENTITY;
  let bi: Bytes = intKey(1);
  for (let i = 0; i < ctx.numAlpha; i++) {
    L = need(b.pointAdd(L, need(b.scalarMult(bi, totalAlphaG[i]), "a public nonce")), "a public nonce");
    R = need(b.pointAdd(R, need(b.scalarMult(bi, totalAlphaH[i]), "a public nonce")), "a public nonce");
    bi = b.scMul(bi, merge);
  }
  const cp = ctx.cParams.slice();
  cp.set(L, ctx.cLOffset);
  cp.set(R, ctx.cLOffset + 32);
  let c = b.hashToScalar(cp);
  let c0: Bytes | null = null;
  for (let i = (ctx.l + 1) % ctx.n; i !== ctx.l; i = (i + 1) % ctx.n) {
    if (i === 0) c0 = c;
    const Li = need(b.multiScalarMult(concatBytes([ctx.s[i], c]), concatBytes([G, ctx.W[i]])), `ring member ${i}`);
    const Ri = need(b.multiScalarMult(concatBytes([ctx.s[i], c]), concatBytes([ctx.Hp[i], ctx.wHl])), "the key image");
    cp.set(Li, ctx.cLOffset);
    cp.set(Ri, ctx.cLOffset + 32);
    c = b.hashToScalar(cp);
  }
  if (ctx.l === 0) c0 = c;
  return { merge, c0: c0 as Bytes, c };
}

/** Σ bʲ·αⱼ: a signer's combined secret nonce. */
export function multisigCombineAlpha(b: CryptoBackend, merge: Bytes, alpha: readonly Bytes[]): Bytes {
  let acc: Bytes = ZERO;
  let bi: Bytes = intKey(1);
  for (const a of alpha) {
    acc = b.scMulAdd(a, bi, acc);
    bi = b.scMul(bi, merge);
  }
  return acc;
}

/**
 * A signer's partial response, added to what earlier signers answered (`prior`, zero for the
 * proposer): prior + α_combined − c·w. The proposer's w is μ_P·x + μ_C·z (x its part of the one-time
 * key: derivation, subaddress and all its multisig keys), every later signer's μ_P·(its unused keys).
 */
export function multisigPartialResponse(b: CryptoBackend, ctx: MultisigClsagContext, challenge: MultisigChallenge, alpha: readonly Bytes[], w: Bytes, prior: Bytes = ZERO): Bytes {
  if (alpha.length !== ctx.numAlpha) throw new RangeError(`multisig CLSAG: ${ctx.numAlpha} secret nonces needed`);
  const combined = multisigCombineAlpha(b, challenge.merge, alpha);
  return b.scMulSub(challenge.c, w, b.scAdd(prior, combined));
}

/** The proposer's weight: μ_P·x + μ_C·z. */
export function multisigProposerWeight(b: CryptoBackend, ctx: MultisigClsagContext, x: Bytes, z: Bytes): Bytes {
  return b.scMulAdd(ctx.muC, z, b.scMul(ctx.muP, x));
}

/** A later signer's weight: μ_P·x. */
export function multisigSignerWeight(b: CryptoBackend, ctx: MultisigClsagContext, x: Bytes): Bytes {
  return b.scMul(ctx.muP, x);
}
