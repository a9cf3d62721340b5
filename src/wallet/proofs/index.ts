/** Proofs and signed messages in wallet2's formats (see README.md). */
export { ProofError, type ProofErrorKind } from "./errors.js";
export { type ProofWallet } from "./context.js";
export { messageHash, signMessage, type SignatureType, verifyMessage, type VerifyResult } from "./message.js";
export { checkTxProofOf, type CheckTxProofResult, getTxProof, makeTxProof, type ProofAddress, verifyTxProof } from "./tx-proof.js";
export { checkSpendProof, getSpendProof } from "./spend-proof.js";
export {
  checkReserveProof,
  type CheckReserveResult,
  decodeReserveProof,
  encodeReserveProof,
  getReserveProof,
  type ReserveProof,
  type ReserveProofEntry,
  type ReserveRequest,
} from "./reserve-proof.js";
export { outputAmount, outputKey, receivedBy } from "./received.js";
