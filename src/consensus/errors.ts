/**
 * Why a block or transaction is rejected. Each code maps to the flag monerod sets in its
 * tx_verification_context / block_verification_context (cryptonote_basic/verification_context.h),
 * so RPC answers (send_raw_transaction, submit_block) can report the same flags.
 */

export type TxFlag =
  | "verification_failed"
  | "verification_impossible"
  | "low_mixin"
  | "double_spend"
  | "invalid_input"
  | "invalid_output"
  | "too_big"
  | "overspend"
  | "fee_too_low"
  | "too_few_outputs"
  | "tx_extra_too_big";

export type BlockFlag = "verification_failed" | "marked_as_orphaned" | "bad_pow" | "missing_txs";

/**
 * Per code: `flag`, the rule's own tvc flag, and `flags`, the set monerod's send_raw_transaction
 * reports when this is the first rule a transaction breaks (check_tx_semantic failures set none;
 * any check_tx_inputs failure adds invalid_input) — recorded in test/fixtures/consensus.
 */
export const TX_ERRORS = {
  NO_INPUTS: { flag: "verification_failed", message: "tx with empty inputs", flags: [] },
  BAD_INPUT_TYPE: { flag: "invalid_input", message: "unsupported input type (only to_key inputs)", flags: [] },
  EMPTY_RING: { flag: "invalid_input", message: "input with no key offsets", flags: ["invalid_input"] },
  BAD_VERSION: { flag: "verification_failed", message: "transaction version not allowed at this hard fork", flags: ["invalid_input"] },
  BAD_OUTPUT_KEY: { flag: "invalid_output", message: "output public key is not a valid point", flags: [] },
  BAD_OUTPUT_TYPE: { flag: "invalid_output", message: "output target type not allowed (view tags required)", flags: [] },
  BAD_OUTPUT_AMOUNT: { flag: "invalid_output", message: "v1 output amount is not a single digit times a power of ten", flags: ["invalid_output"] },
  NONZERO_OUTPUT_AMOUNT: { flag: "invalid_output", message: "RingCT transaction with a nonzero output amount", flags: ["invalid_output"] },
  BAD_RCT_TYPE: { flag: "invalid_output", message: "RingCT type not allowed at this hard fork", flags: ["invalid_output"] },
  OUTPK_MISMATCH: { flag: "verification_failed", message: "outPk count differs from output count", flags: [] },
  RCT_SHAPE: { flag: "verification_failed", message: "RingCT signature shape does not match the inputs and outputs", flags: [] },
  TOO_MANY_OUTPUTS: { flag: "verification_failed", message: "more outputs than one Bulletproof+ covers (16)", flags: [] },
  MONEY_OVERFLOW: { flag: "verification_failed", message: "sum of amounts overflows 64 bits", flags: [] },
  TOO_BIG: { flag: "too_big", message: "transaction weight above the limit", flags: ["too_big"] },
  DUPLICATE_KEY_IMAGE: { flag: "verification_failed", message: "the same key image is used twice in the transaction", flags: [] },
  DUPLICATE_RING_MEMBER: { flag: "verification_failed", message: "duplicate ring member (zero relative key offset)", flags: [] },
  KEY_IMAGE_DOMAIN: { flag: "verification_failed", message: "key image is not in the prime-order subgroup", flags: [] },
  TOO_FEW_OUTPUTS: { flag: "too_few_outputs", message: "fewer than 2 outputs", flags: ["invalid_input", "too_few_outputs"] },
  MIXED_RING_SIZES: { flag: "low_mixin", message: "inputs with different ring sizes", flags: ["invalid_input", "low_mixin"] },
  BAD_RING_SIZE: { flag: "low_mixin", message: "ring size must be 16", flags: ["invalid_input", "low_mixin"] },
  UNSORTED_KEY_IMAGES: { flag: "verification_failed", message: "inputs not sorted by key image (descending)", flags: ["invalid_input"] },
  KEY_IMAGE_SPENT: { flag: "double_spend", message: "key image already spent", flags: ["double_spend", "invalid_input"] },
  RING_MEMBER_MISSING: { flag: "verification_failed", message: "ring member refers to an output that does not exist", flags: ["invalid_input"] },
  RING_MEMBER_LOCKED: { flag: "verification_failed", message: "ring member output is still locked", flags: ["invalid_input"] },
  RING_MEMBER_TOO_YOUNG: { flag: "verification_failed", message: "ring member output younger than 10 blocks", flags: ["invalid_input"] },
  EXTRA_TOO_BIG: { flag: "tx_extra_too_big", message: "tx extra larger than 1060 bytes (pool rule, v0.18.2+)", flags: ["tx_extra_too_big"] },
  FEE_TOO_LOW: { flag: "fee_too_low", message: "fee below the minimum for the transaction weight", flags: ["fee_too_low"] },
  /** For callers that verify RingCT (crypto/ringct) after these rules: expand_transaction_2 + verRctNonSemanticsSimple. */
  RCT_SEMANTICS: { flag: "verification_failed", message: "RingCT balance or range proofs do not verify", flags: [] },
  SIGNATURE_SHAPE: { flag: "invalid_input", message: "CLSAG count or size does not match the inputs' rings", flags: ["invalid_input"] },
  INVALID_SIGNATURES: { flag: "verification_failed", message: "ring signatures or range proofs do not verify", flags: ["invalid_input"] },
} as const satisfies Record<string, { flag: TxFlag; message: string; flags: readonly TxFlag[] }>;

export const BLOCK_ERRORS = {
  BAD_MAJOR_VERSION: { flag: "verification_failed", message: "block major version differs from the hard fork version at its height" },
  BAD_VOTE: { flag: "verification_failed", message: "block votes for a version below the current one" },
  PREV_ID_MISMATCH: { flag: "marked_as_orphaned", message: "previous block id is not the chain tip" },
  TIMESTAMP_TOO_OLD: { flag: "verification_failed", message: "timestamp below the median of the last 60 blocks" },
  TIMESTAMP_IN_FUTURE: { flag: "verification_failed", message: "timestamp more than 2 hours ahead of local time" },
  BAD_POW: { flag: "bad_pow", message: "proof of work does not meet the difficulty" },
  TOO_MANY_TXS: { flag: "verification_failed", message: "too many transactions in the block" },
  DUPLICATE_TX: { flag: "verification_failed", message: "the same transaction twice in the block" },
  MISSING_TX: { flag: "missing_txs", message: "a transaction of the block is not available" },
  MINER_TX_INPUTS: { flag: "verification_failed", message: "coinbase must have exactly one gen input" },
  MINER_TX_HEIGHT: { flag: "verification_failed", message: "coinbase gen input height differs from the block height" },
  MINER_TX_VERSION: { flag: "verification_failed", message: "coinbase transaction version not allowed" },
  MINER_TX_RCT: { flag: "verification_failed", message: "RingCT signatures not allowed in the coinbase" },
  MINER_TX_UNLOCK_TIME: { flag: "verification_failed", message: "coinbase unlock time must be height + 60" },
  MINER_TX_OVERFLOW: { flag: "verification_failed", message: "coinbase outputs overflow 64 bits" },
  MINER_TX_OUTPUT_TYPE: { flag: "verification_failed", message: "coinbase output type not allowed (view tags required)" },
  MINER_TX_OUTPUT_KEY: { flag: "verification_failed", message: "coinbase output key is not a valid point" },
  TOO_HEAVY: { flag: "verification_failed", message: "block weight above the limit (2 × effective median)" },
  REWARD_TOO_HIGH: { flag: "verification_failed", message: "coinbase spends more than reward + fees" },
  REWARD_NOT_EXACT: { flag: "verification_failed", message: "coinbase does not claim exactly reward + fees" },
  BAD_TX: { flag: "verification_failed", message: "a transaction of the block is invalid" },
  CHECKPOINT: { flag: "verification_failed", message: "block id differs from the checkpoint at its height (CHECKPOINT VALIDATION FAILED)" },
  ALT_BELOW_CHECKPOINT: { flag: "verification_failed", message: "an alternative block cannot fork at or below the last checkpoint the chain has passed" },
} as const satisfies Record<string, { flag: BlockFlag; message: string }>;

export type TxErrorCode = keyof typeof TX_ERRORS;
export type BlockErrorCode = keyof typeof BLOCK_ERRORS;

export interface TxRuleError {
  readonly kind: "tx";
  readonly code: TxErrorCode;
  readonly flag: TxFlag;
  /** The flags monerod's send_raw_transaction sets for this failure (TX_ERRORS[code].flags). */
  readonly flags: readonly TxFlag[];
  /** The fixed message plus specifics (index, values). */
  readonly message: string;
  /** Index of the offending input or output, when there is one. */
  readonly index?: number;
}

export interface BlockRuleError {
  readonly kind: "block";
  readonly code: BlockErrorCode;
  readonly flag: BlockFlag;
  readonly message: string;
  /** For BAD_TX: the transaction's position in the block and its own error. */
  readonly txIndex?: number;
  readonly txError?: TxRuleError;
}

export function txError(code: TxErrorCode, detail?: string, index?: number): TxRuleError {
  const e = TX_ERRORS[code];
  return { kind: "tx", code, flag: e.flag, flags: e.flags, message: detail ? `${e.message}: ${detail}` : e.message, ...(index === undefined ? {} : { index }) };
}

export function blockError(code: BlockErrorCode, detail?: string, extra: { txIndex?: number; txError?: TxRuleError } = {}): BlockRuleError {
  const e = BLOCK_ERRORS[code];
  return { kind: "block", code, flag: e.flag, message: detail ? `${e.message}: ${detail}` : e.message, ...extra };
}
