/**
 * Why a transfer cannot be made: wallet2's transfer errors (src/wallet/wallet_errors.h), as data.
 * `message` starts with wallet2's own text (monero-wallet-rpc answers it as is); `details` carries the
 * figures the RPC layer turns into advice. No RPC codes here: wallet/rpc maps kinds to codes.
 */
import { BaseError } from "../../base/errors.js";


export type SendErrorKind =
  | "zero_destination"
  | "zero_amount"
  | "tx_sum_overflow"
  | "not_enough_money"
  | "not_enough_unlocked_money"
  | "tx_not_possible"
  | "tx_too_big"
  | "not_enough_outs_to_mix"
  | "tx_rejected"
  | "watch_only"
  | "no_unlocked_balance"
  | "key_image_not_found"
  | "subtract_fee_bad_index"
  | "internal";

export interface SendErrorDetails {
  available?: bigint;
  needed?: bigint;
  fee?: bigint;
  weight?: number;
  limit?: number;
  /** The daemon's answer to a refused transaction. */
  reason?: string;
}

export class SendError extends BaseError<SendErrorKind, SendErrorDetails> {
  constructor(kind: SendErrorKind, message: string, details: SendErrorDetails = {}, options?: { cause?: unknown }) {
    super(kind, message, { ...options, details });
    this.name = "SendError";
  }
}
