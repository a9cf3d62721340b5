/**
 * What can go wrong moving outputs, key images and transaction sets between wallets. The RPC layer
 * (../rpc/cold.ts) maps each kind to monero-wallet-rpc's code; messages say what was wrong and
 * what to do.
 */
import { BaseError } from "../../base/errors.js";

export type ColdErrorKind =
  /** Truncated, altered or unparsable data, or a format version this wallet does not read. */
  | "bad_data"
  /** Made by (or for) another wallet: other keys, or authentication failed. */
  | "wrong_wallet"
  /** Indices that do not match this wallet's outputs (offset beyond them, too many key images). */
  | "out_of_range"
  /** A key image's signature does not verify, or the image is outside the prime-order subgroup. */
  | "bad_signature"
  /** The operation needs the spend key (view-only wallet) or a daemon. */
  | "watch_only"
  | "no_daemon"
  /** The daemon refused or failed a request. */
  | "daemon"
  /** Building or signing failed. */
  | "sign_failed";

export class ColdError extends BaseError<ColdErrorKind> {
  override readonly name = "ColdError";
  constructor(kind: ColdErrorKind, message: string, options?: { cause?: unknown }) {
    super(kind, message, options);
  }
}
