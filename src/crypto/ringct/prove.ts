/**
 * Building the RingCT part of a spend, type 6 (CLSAG + Bulletproofs+), as genRctSimple does in
 * src/ringct/rctSigs.cpp: one BP+ over all outputs, pseudo outputs whose masks sum to the output
 * masks, then one CLSAG per input over get_pre_mlsag_hash.
 *
 * The rctSigBase serialization lives in protocol/ (above this layer), so the caller passes it as
 * a function; everything else is computed here.
 */
import type { Bytes, CryptoBackend } from "../backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../random.js";
import { commit } from "./amounts.js";
import { bulletproofPlusProve } from "./bulletproof-plus.js";
import { clsagSign } from "./clsag.js";
import { type CtKey, preMlsagHash, RCT_TYPE_BULLETPROOF_PLUS, type RctSigLike } from "./verify.js";

export interface RctInputSecret {
  /** Ring members in key-offset order. */
  ring: CtKey[];
  /** Position of the real output in the ring. */
  realIndex: number;
  /** One-time secret key of the real output. */
  secretKey: Bytes;
  /** Commitment mask and amount of the real output. */
  mask: Bytes;
  amount: bigint;
}

export interface RctOutputSecret {
  amount: bigint;
  /** Commitment mask (genCommitmentMask of the output's shared secret). */
  mask: Bytes;
  /** 8-byte ecdhInfo amount (amounts.ts encryptAmount). */
  encryptedAmount: Bytes;
}

export interface ProveRctArgs {
  prefixHash: Bytes;
  inputs: readonly RctInputSecret[];
  outputs: readonly RctOutputSecret[];
  fee: bigint;
  /** Serializes an rctSigBase exactly as the transaction will carry it (protocol/tx.ts serializeRctBase). */
  serializeBase(rct: RctSigLike): Bytes;
}

/**
 * The RingCT signatures of a type-6 transaction, with the key images the prefix must carry (the
 * prefix hash is signed, so the caller builds the prefix with `keyImageOf` first).
 */
export function proveRctClsagBpp(b: CryptoBackend, args: ProveRctArgs, rng: RandomSource = systemRandom): { rct: RctSigLike; keyImages: Bytes[] } {
  const { inputs, outputs, fee } = args;
  if (inputs.length === 0) throw new RangeError("proveRct: no inputs");
  if (outputs.length === 0 || outputs.length > 16) throw new RangeError("proveRct: 1 to 16 outputs");
  const sumIn = inputs.reduce((s, i) => s + i.amount, 0n);
  const sumOut = outputs.reduce((s, o) => s + o.amount, 0n);
  if (sumIn !== sumOut + fee) throw new RangeError(`proveRct: inputs ${sumIn} ≠ outputs ${sumOut} + fee ${fee}`);

  const bpp = bulletproofPlusProve(
    b,
    outputs.map((o) => o.amount),
    outputs.map((o) => o.mask),
    rng,
  );
  const outPk = bpp.V.map((v) => {
    const c = b.pointMul8(v);
    if (c === null) throw new Error("impossible");
    return c;
  });
  // pseudo-output masks: random, the last one closes Σ a = Σ output masks
  let sumOutMask: Bytes = new Uint8Array(32);
  for (const o of outputs) sumOutMask = b.scAdd(sumOutMask, o.mask);
  const a: Bytes[] = [];
  let sumA: Bytes = new Uint8Array(32);
  for (let i = 0; i < inputs.length - 1; i++) {
    a.push(randomScalar(b, rng));
    sumA = b.scAdd(sumA, a[i]);
  }
  a.push(b.scSub(sumOutMask, sumA));
  const pseudoOuts = inputs.map((inp, i) => commit(b, inp.amount, a[i]));

  const { V: _v, ...proof } = bpp;
  const rct: RctSigLike = {
    type: RCT_TYPE_BULLETPROOF_PLUS,
    fee,
    pseudoOuts: [],
    ecdhInfo: outputs.map((o) => ({ amount: o.encryptedAmount })),
    outPk,
    prunable: { rangeSigs: [], bulletproofs: [], bulletproofsPlus: [proof], MGs: [], CLSAGs: [], pseudoOuts },
  };
  const message = preMlsagHash(b, args.prefixHash, args.serializeBase(rct), rct);
  const keyImages: Bytes[] = [];
  inputs.forEach((inp, i) => {
    const P = inp.ring.map((m) => m.dest);
    const C = inp.ring.map((m) => m.mask);
    const { signature, keyImage } = clsagSign(b, message, P, C, inp.secretKey, b.scSub(inp.mask, a[i]), pseudoOuts[i], inp.realIndex, rng);
    rct.prunable?.CLSAGs.push(signature);
    keyImages.push(keyImage);
  });
  return { rct, keyImages };
}

/** The key image of an input (generate_key_image of its real output), for building the prefix. */
export function keyImageOf(b: CryptoBackend, inp: RctInputSecret): Bytes {
  return b.generateKeyImage(inp.ring[inp.realIndex].dest, inp.secretKey);
}
