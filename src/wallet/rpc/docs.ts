/**
 * How tsmonero-wallet-rpc documents its RPC (the OpenRPC document it serves at rpc.discover and
 * GET /openrpc.json, and docs/openrpc/wallet.json): the spec's text per method, the class whose
 * on_<name> functions the methods mirror, the errors every method can answer.
 */
import { JSONRPC_ERROR, type RpcErrorDoc, type ServiceDocs } from "../../rpc/index.js";
import { RESTRICTED_MSG, W } from "./common.js";
import { WALLET_SPEC_TEXT } from "./spec-text.js";

/** The errors of the checks walletMethods wraps around every handler, in their order. */
export function wrapperErrors(d: { readonly wallet?: boolean; readonly restricted?: boolean }): RpcErrorDoc[] {
  const out: RpcErrorDoc[] = [];
  if (d.wallet !== false) out.push({ code: W.NOT_OPEN, message: "No wallet file" });
  if (d.restricted === true) out.push({ code: W.DENIED, message: RESTRICTED_MSG });
  return out;
}

export const WALLET_DOCS: ServiceDocs = {
  title: "tsmonero-wallet-rpc",
  version: "0.18.0.0",
  description:
    "monero-wallet-rpc 0.18's JSON-RPC methods at POST /json_rpc. u64 values are bare JSON integers, exact beyond 2^53. " +
    "A --restricted-rpc server answers its restricted methods −7.",
  mirrorsClass: "tools::wallet_rpc_server",
  text: WALLET_SPEC_TEXT,
  commonErrors: () => [
    { code: JSONRPC_ERROR.INVALID_PARAMS, message: "Invalid params" },
    { code: W.UNKNOWN_ERROR, message: "Internal error (details in the service's log)" },
  ],
};
