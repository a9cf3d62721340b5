/**
 * Errors of the mining module, carrying monerod's RPC error code (core_rpc_server_error_codes.h)
 * and a message that says what was wrong and how to fix it.
 */
import { CORE_RPC_ERROR } from "../../rpc/error-codes.js";

export class MiningError extends Error {
  override readonly name = "MiningError";
  constructor(
    /** monerod's JSON-RPC error code for this failure. */
    readonly code: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const miningErrors = {
  wrongAddress: (why: string): MiningError => new MiningError(CORE_RPC_ERROR.WRONG_WALLET_ADDRESS, `Failed to parse wallet address: ${why}`),
  subaddress: (): MiningError =>
    new MiningError(CORE_RPC_ERROR.MINING_TO_SUBADDRESS, "Mining to subaddress is not supported yet: give the wallet's standard (primary) address"),
  reserveTooBig: (n: number): MiningError => new MiningError(CORE_RPC_ERROR.TOO_BIG_RESERVE_SIZE, `Too big reserved size, maximum 255 (got ${n})`),
  bothNonces: (): MiningError => new MiningError(CORE_RPC_ERROR.WRONG_PARAM, "Cannot specify both a reserve_size and an extra_nonce"),
  extraNonceTooBig: (n: number): MiningError =>
    new MiningError(CORE_RPC_ERROR.TOO_BIG_RESERVE_SIZE, `Too big extra_nonce size, maximum 510 hex chars (got ${2 * n})`),
  internal: (why: string): MiningError => new MiningError(CORE_RPC_ERROR.INTERNAL_ERROR, `Internal error: failed to create block template: ${why}`),
} as const;
