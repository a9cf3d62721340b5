/**
 * Webhook subscriptions of the open wallet (issue 20; tsmonero's extension, no monero-wallet-rpc
 * has them): add_webhook, list_webhooks, remove_webhook over ../events/. Restricted: a
 * --restricted-rpc server refuses them (−7), as they make the wallet send its history elsewhere.
 */
import { optional, str, u32, withDefault } from "../../rpc/index.js";
import { walletEvents } from "../events/events.js";
import type { Webhook } from "../events/webhooks.js";
import { def, fail, list, obj, W, type WalletRpcDeps } from "./common.js";

const shown = (h: Webhook) => ({
  id: h.id,
  url: h.url,
  confirmations: h.confirmations,
  ...(h.account_index !== null ? { account_index: h.account_index } : {}),
  subaddress_indices: [...h.subaddress_indices],
});

export function eventMethods(d: WalletRpcDeps) {
  const ev = () => {
    d.w();
    return walletEvents(d.svc, d.o.log ? { log: d.o.log } : {});
  };
  return [
    def({
      name: "add_webhook",
      summary: "tsmonero extension: subscribes a URL to the wallet's push events (HMAC-signed POSTs, retried, kept in an outbox)",
      restricted: true,
      params: obj({ url: str, secret: str, confirmations: withDefault(u32, 1), account_index: optional(u32), subaddress_indices: list(u32) }),
      handler: (p) => {
        let u: URL;
        try {
          u = new URL(p.url);
        } catch {
          return fail(W.UNKNOWN_ERROR, `add_webhook: url ${JSON.stringify(p.url.slice(0, 200))} is not a URL; give an absolute http:// or https:// URL`);
        }
        if (u.protocol !== "http:" && u.protocol !== "https:") fail(W.UNKNOWN_ERROR, `add_webhook: url must be http:// or https://, not ${u.protocol}`);
        if (p.secret.length < 16) fail(W.UNKNOWN_ERROR, "add_webhook: secret must be at least 16 characters (the receiver checks X-Tsmonero-Signature with it)");
        if (p.confirmations < 1) fail(W.UNKNOWN_ERROR, "add_webhook: confirmations must be at least 1");
        if (p.subaddress_indices.length > 0 && p.account_index === undefined) fail(W.UNKNOWN_ERROR, "add_webhook: subaddress_indices needs account_index");
        const h = ev().addWebhook({ url: u.href, secret: p.secret, confirmations: p.confirmations, account_index: p.account_index ?? null, subaddress_indices: p.subaddress_indices });
        return { id: h.id };
      },
    }),
    def({ name: "list_webhooks", summary: "tsmonero extension: the wallet's webhook subscriptions", restricted: true, params: obj({}), handler: () => ({ webhooks: ev().listWebhooks().map(shown) }) }),
    def({
      name: "remove_webhook",
      summary: "tsmonero extension: removes a webhook subscription by id",
      restricted: true,
      params: obj({ id: str }),
      handler: (p) => {
        if (!ev().removeWebhook(p.id)) fail(W.UNKNOWN_ERROR, `remove_webhook: no webhook ${JSON.stringify(p.id.slice(0, 64))}; list_webhooks shows their ids`);
        return {};
      },
    }),
  ];
}
