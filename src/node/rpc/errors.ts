/**
 * The node's RPC edge for domain errors: each typed error of the node's modules (they carry a
 * kind and a cause, never an RPC code) becomes monerod's JSON-RPC error here, in one place
 * (codes of core_rpc_server_error_codes.h; messages are the domain's, which word monerod's).
 */
import { CORE_RPC_ERROR } from "../../rpc/error-codes.js";
import { RpcError, type RpcErrorDoc } from "../../rpc/methods.js";
import { MiningError, type MiningFailure } from "../mining/errors.js";

/** monerod's code for each mining failure (a new kind does not compile until it has one). */
export const MINING_RPC_CODES = {
  "wrong-address": CORE_RPC_ERROR.WRONG_WALLET_ADDRESS,
  subaddress: CORE_RPC_ERROR.MINING_TO_SUBADDRESS,
  "reserve-too-big": CORE_RPC_ERROR.TOO_BIG_RESERVE_SIZE,
  "bad-request": CORE_RPC_ERROR.WRONG_PARAM,
  "regtest-required": CORE_RPC_ERROR.REGTEST_REQUIRED,
  "block-not-accepted": CORE_RPC_ERROR.BLOCK_NOT_ACCEPTED,
  internal: CORE_RPC_ERROR.INTERNAL_ERROR,
} as const satisfies Record<MiningFailure, number>;

/** The JSON-RPC error a domain error answers with; undefined for anything that is not one. */
export function domainRpcError(e: unknown): RpcError | undefined {
  if (e instanceof MiningError) return new RpcError(MINING_RPC_CODES[e.kind], e.message);
  return undefined;
}

/** For the docs of a method: the codes these mining failures answer with. */
export function miningErrorDocs(...kinds: MiningFailure[]): RpcErrorDoc[] {
  const text: Record<MiningFailure, string> = {
    "wrong-address": "Failed to parse wallet address",
    subaddress: "Mining to subaddress is not supported yet",
    "reserve-too-big": "Too big reserved size, maximum 255",
    "bad-request": "Wrong param",
    "regtest-required": "Regtest required when generating blocks",
    "block-not-accepted": "Block not accepted",
    internal: "Internal error",
  };
  return kinds.map((k) => ({ code: MINING_RPC_CODES[k], message: text[k] }));
}
