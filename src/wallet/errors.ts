/**
 * The wallet's domain errors for what its service, keys, hub, events and decoy selection refuse:
 * a `kind` that says what failed, Monero's message (monero-wallet-rpc answers it as is) and, where
 * that message is vague, the precise reason as `cause`. No RPC codes here: the wallet's RPC edge
 * (wallet/rpc/errors.ts) maps each kind to monero-wallet-rpc's code, in one place.
 */
import { BaseError } from "../base/errors.js";
import { NoDaemonConnectionError, NodeStatusError } from "../client/node-client.js";

export type WalletFailure =
  /** The operation failed (monero-wallet-rpc's catch-all, UNKNOWN_ERROR). */
  | "failed"
  /** Monero lets the exception out of the handler, so epee answers code 0 (query_key's unknown key type, a password change of an in-memory wallet). */
  | "uncoded"
  /** An address that does not parse, or of the wrong kind for the call. */
  | "wrong-address"
  /** The node answered BUSY. */
  | "daemon-busy"
  /** Decoy selection or another step of building a transaction failed. */
  | "transfer-failed"
  | "wrong-payment-id"
  | "wrong-uri"
  /** No wallet is open (or no wallet of that name, or one without files). */
  | "not-open"
  /** The chain holds too few spendable outputs for the ring size. */
  | "not-enough-outs"
  /** A wallet file of that name exists already. */
  | "already-exists"
  | "wrong-password"
  /** The service was started without --wallet-dir. */
  | "no-wallet-dir"
  /** The call needs the spend key. */
  | "watch-only"
  /** The node cannot be reached. */
  | "no-daemon"
  /** The wallet's spend key does not come from a seed. */
  | "non-deterministic";

export class WalletError extends BaseError<WalletFailure> {
  override readonly name = "WalletError";
  constructor(kind: WalletFailure, message: string, cause?: unknown) {
    super(kind, message, cause === undefined ? {} : { cause });
  }
}

/**
 * A node failure as the wallet words it (wallet2's no_connection_to_daemon / daemon_busy), with the
 * client's error as cause; undefined for any other error.
 */
export function nodeFailure(e: unknown): WalletError | undefined {
  if (e instanceof NoDaemonConnectionError) return new WalletError("no-daemon", "no connection to daemon", e);
  if (e instanceof NodeStatusError && e.status === "BUSY") return new WalletError("daemon-busy", "daemon is busy", e);
  return undefined;
}
