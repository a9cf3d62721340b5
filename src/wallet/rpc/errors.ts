/**
 * The wallet's RPC edge for errors: what the service, the keys, the hub, the events and the node
 * client throw becomes monero-wallet-rpc's JSON-RPC error here, in one place
 * (wallet_rpc_server_error_codes.h; messages are the domain's, which word monero-wallet-rpc's).
 * The per-module errors with their own advice (SendError, ProofError, ColdError, MultisigError) are
 * mapped by their method files (send.ts, proofs.ts, cold.ts, multisig.ts) with these same codes.
 */
import { NodeClientError } from "../../client/node-client.js";
import { JSONRPC_ERROR, WALLET_RPC_ERROR as W } from "../../rpc/error-codes.js";
import { type ErrorPolicy, RpcError } from "../../rpc/methods.js";
import { nodeFailure, WalletError, type WalletFailure } from "../errors.js";

/** monero-wallet-rpc's code for each wallet failure (a new kind does not compile until it has one). */
export const WALLET_FAILURE_CODES = {
  failed: W.UNKNOWN_ERROR,
  // epee's default when the handler lets the exception out
  uncoded: 0,
  "wrong-address": W.WRONG_ADDRESS,
  "daemon-busy": W.DAEMON_IS_BUSY,
  "transfer-failed": W.GENERIC_TRANSFER_ERROR,
  "wrong-payment-id": W.WRONG_PAYMENT_ID,
  "wrong-uri": W.WRONG_URI,
  "not-open": W.NOT_OPEN,
  "not-enough-outs": W.NOT_ENOUGH_OUTS_TO_MIX,
  "already-exists": W.WALLET_ALREADY_EXISTS,
  "wrong-password": W.INVALID_PASSWORD,
  "no-wallet-dir": W.NO_WALLET_DIR,
  "watch-only": W.WATCH_ONLY,
  "no-daemon": W.NO_DAEMON_CONNECTION,
  "non-deterministic": W.NON_DETERMINISTIC,
} as const satisfies Record<WalletFailure, number>;

/** The answer of a WalletError: its kind's code, its message. */
export function walletRpcError(e: WalletError): RpcError {
  return new RpcError(WALLET_FAILURE_CODES[e.kind], e.message);
}

/**
 * How the wallet words params that do not load: epee's -32602 "Invalid params" (as
 * monero-wallet-rpc), followed by what was wrong; a handler's unexpected failure is -1 (what
 * handle_rpc_exception answers for a std::exception), its details only in the log.
 */
export const WALLET_ERRORS: ErrorPolicy = {
  invalidParams: (err) => ({ code: JSONRPC_ERROR.INVALID_PARAMS, message: `Invalid params: ${err.message}` }),
  internal: (method) => ({ code: W.UNKNOWN_ERROR, message: `Internal error in ${method}; the service's log has the details` }),
};

/** Maps what the service and the node client throw to monero-wallet-rpc's error answers. */
export function toRpcError(e: unknown): unknown {
  if (e instanceof RpcError) return e;
  if (e instanceof WalletError) return walletRpcError(e);
  const node = nodeFailure(e);
  if (node) return new RpcError(WALLET_FAILURE_CODES[node.kind], `${node.message}: ${(e as Error).message}`);
  if (e instanceof NodeClientError) return new RpcError(W.UNKNOWN_ERROR, e.message);
  if (e instanceof RangeError) return new RpcError(W.UNKNOWN_ERROR, e.message);
  if (e instanceof Error && e.name.endsWith("Error") && e.name !== "Error" && e.name !== "TypeError") return new RpcError(W.UNKNOWN_ERROR, e.message);
  return e;
}
