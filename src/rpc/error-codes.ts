/**
 * Error codes the two services answer with (Monero v0.18: src/rpc/core_rpc_server_error_codes.h,
 * src/wallet/wallet_rpc_server_error_codes.h, and epee's JSON-RPC codes).
 */

/** epee's JSON-RPC layer, shared by both services. */
export const JSONRPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
} as const;

/** monerod (CORE_RPC_ERROR_CODE_*). */
export const CORE_RPC_ERROR = {
  WRONG_PARAM: -1,
  TOO_BIG_HEIGHT: -2,
  TOO_BIG_RESERVE_SIZE: -3,
  WRONG_WALLET_ADDRESS: -4,
  INTERNAL_ERROR: -5,
  WRONG_BLOCKBLOB: -6,
  BLOCK_NOT_ACCEPTED: -7,
  CORE_BUSY: -9,
  WRONG_BLOCKBLOB_SIZE: -10,
  UNSUPPORTED_RPC: -11,
  MINING_TO_SUBADDRESS: -12,
  REGTEST_REQUIRED: -13,
  PAYMENT_REQUIRED: -14,
  INVALID_CLIENT: -15,
  PAYMENT_TOO_LOW: -16,
  DUPLICATE_PAYMENT: -17,
  STALE_PAYMENT: -18,
  RESTRICTED: -19,
  UNSUPPORTED_BOOTSTRAP: -20,
  PAYMENTS_NOT_ENABLED: -21,
} as const;

/** monero-wallet-rpc (WALLET_RPC_ERROR_CODE_*), the ones the shared layers refer to. */
export const WALLET_RPC_ERROR = {
  UNKNOWN_ERROR: -1,
  WRONG_ADDRESS: -2,
  DAEMON_IS_BUSY: -3,
  GENERIC_TRANSFER_ERROR: -4,
  NOT_OPEN: -13,
  /** The wallet answers this, with the client error's text, when the node cannot be reached. */
  NO_DAEMON_CONNECTION: -38,
  DISABLED: -48,
} as const;
