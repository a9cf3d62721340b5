export { ColdError, type ColdErrorKind } from "./errors.js";
export { type ColdContext, openOutput, type OpenedOutput } from "./context.js";
export { decryptWithViewKey, encryptWithViewKey } from "./cipher.js";
export * from "./formats.js";
export { exportOutputs, importOutputs, OUTPUT_EXPORT_MAGIC, outputsToExport, readOutputsExport } from "./outputs.js";
export { exportKeyImages, importKeyImages, type ImportKeyImagesResult, type SignedKeyImage } from "./key-images.js";
export {
  describeTransfers,
  exportUnsignedSet,
  readSignedSet,
  readUnsignedSet,
  type SignedTx,
  SIGNED_TX_PREFIX,
  signUnsignedSet,
  type TransferDescription,
  type TransferSummary,
  UNSIGNED_TX_PREFIX,
} from "./txsets.js";
