/**
 * How tsmonerod documents its RPC (the OpenRPC document it serves at rpc.discover and
 * GET /openrpc.json, and docs/openrpc/node.json): the spec's text per method, the class whose
 * on_<name> functions the methods mirror, the errors every JSON-RPC method can answer.
 */
import { JSONRPC_ERROR } from "../../rpc/error-codes.js";
import type { ServiceDocs } from "../../rpc/methods.js";
import { NODE_SPEC_TEXT } from "./spec-text.js";

export const NODE_DOCS: ServiceDocs = {
  title: "tsmonerod",
  version: "0.18.0.0",
  description:
    "monerod 0.18's RPC: JSON-RPC methods at POST /json_rpc, plain JSON paths and epee binary (.bin) paths (x-paths). " +
    "u64 values are bare JSON integers, exact beyond 2^53. Restricted methods are hidden on a restricted server.",
  mirrorsClass: "cryptonote::core_rpc_server",
  text: NODE_SPEC_TEXT,
  commonErrors: () => [
    { code: JSONRPC_ERROR.INVALID_PARAMS, message: "Invalid params" },
    { code: JSONRPC_ERROR.INTERNAL_ERROR, message: "Internal error" },
  ],
};
