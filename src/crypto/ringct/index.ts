/**
 * RingCT: amounts and commitments, CLSAG / MLSAG ring signatures, Bulletproofs+ / Bulletproofs /
 * Borromean range proofs, full transaction verification (one, a batch, or in worker threads) and
 * the type-6 prover. Every function takes the `CryptoBackend` to run on.
 */
export * from "./amounts.js";
export { proveBorromeanRange, verifyBorromeanRange } from "./borromean.js";
export { type BulletproofProof, bulletproofProve, bulletproofVerify } from "./bulletproof.js";
export { type BulletproofPlusProof, bulletproofPlusProve, bulletproofPlusVerify } from "./bulletproof-plus.js";
export { type ClsagSignature, clsagSign, clsagVerify } from "./clsag.js";
export { type GeneratorFamily, generators, MAX_GENERATORS } from "./generators.js";
export { type MlsagSignature, mlsagSign, mlsagSignSimple, mlsagVerify, mlsagVerifySimple } from "./mlsag.js";
export { keyImageOf, type ProveRctArgs, proveRctClsagBpp, type RctInputSecret, type RctOutputSecret } from "./prove.js";
export {
  type CtKey,
  fullRctMatrix,
  preMlsagHash,
  type RctPrunableLike,
  type RctSigLike,
  type RctVerifyItem,
  verifyRctBatch,
  verifyRctNonSemantics,
  verifyRctSemantics,
  verifyRctSimple,
} from "./verify.js";
export { RctVerifyPool, type RctVerifyMode, VerifyWorkerCrashError } from "./verify-pool.js";
