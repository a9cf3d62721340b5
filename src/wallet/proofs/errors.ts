/**
 * Why a proof or signature cannot be made or checked, as data. `message` starts with wallet2's own
 * words where it has some (monero-wallet-rpc answers e.what() as is) and goes on with what was wrong
 * and what to do. No RPC codes here: wallet/rpc maps kinds to codes.
 */
import { BaseError } from "../../base/errors.js";


export type ProofErrorKind =
  /** wallet2's wallet_internal_error and the like: monero-wallet-rpc answers −1 with the message. */
  | "internal"
  /** Needs the spend secret key, the wallet is view-only. */
  | "watch_only"
  /** The daemon could not be reached or answered something unusable. */
  | "daemon";

export class ProofError extends BaseError<ProofErrorKind> {
  constructor(kind: ProofErrorKind, message: string, options?: { cause?: unknown }) {
    super(kind, message, options);
    this.name = "ProofError";
  }
}

/** A wallet_internal_error with wallet2's words, then ours. */
export const internal = (words: string, help?: string): ProofError => new ProofError("internal", help ? `${words}${words.endsWith(".") ? " " : ": "}${help}` : words);
