/**
 * Errors of the mining module: what failed (`kind`), a message that says what was wrong and how to
 * fix it, and the error underneath (`cause`) when there is one. No RPC codes here: the node's RPC
 * edge (node/rpc/errors.ts) maps each kind to monerod's code (core_rpc_server_error_codes.h).
 */
import { BaseError } from "../../base/errors.js";


/** What a mining request failed on. */
export type MiningFailure =
  /** The miner address does not parse, is of another network or its keys are not points. */
  | "wrong-address"
  /** A subaddress was given (monerod mines to standard and integrated addresses only). */
  | "subaddress"
  /** reserve_size or extra_nonce longer than a tx extra nonce can be. */
  | "reserve-too-big"
  /** A request that contradicts itself or the machine (both nonces, too many threads, already mining, no seed hash). */
  | "bad-request"
  /** generateblocks off regtest. */
  | "regtest-required"
  /** A mined block the chain refused, or no nonce found. */
  | "block-not-accepted"
  /** Anything the node could not do (unknown prev_block, a failed verification, an unsupported hard fork). */
  | "internal";

export class MiningError extends BaseError<MiningFailure> {
  override readonly name = "MiningError";
  constructor(kind: MiningFailure, message: string, options?: { cause?: unknown }) {
    super(kind, message, options);
  }
}

export const miningErrors = {
  wrongAddress: (why: string, cause?: unknown): MiningError => new MiningError("wrong-address", `Failed to parse wallet address: ${why}`, cause === undefined ? undefined : { cause }),
  subaddress: (): MiningError => new MiningError("subaddress", "Mining to subaddress is not supported yet: give the wallet's standard (primary) address"),
  reserveTooBig: (n: number): MiningError => new MiningError("reserve-too-big", `Too big reserved size, maximum 255 (got ${n})`),
  bothNonces: (): MiningError => new MiningError("bad-request", "Cannot specify both a reserve_size and an extra_nonce"),
  extraNonceTooBig: (n: number): MiningError => new MiningError("reserve-too-big", `Too big extra_nonce size, maximum 510 hex chars (got ${2 * n})`),
  internal: (why: string, cause?: unknown): MiningError =>
    new MiningError("internal", `Internal error: failed to create block template: ${why}`, cause === undefined ? undefined : { cause }),
} as const;
