/**
 * The chain and the node (wallet_rpc_server.cpp): get_height, refresh, auto_refresh,
 * rescan_blockchain, scan_tx, rescan_spent, set_daemon.
 */
import { SslConfigError, type SslOptions, sslOptionsFromSetDaemon } from "../../rpc/tls.js";
import { bool, type JsonValue, str, u32, u64, withDefault } from "../../rpc/index.js";
import { def, list, fail, isHash, obj, W, type WalletRpcDeps } from "./common.js";

/** Height, refresh, rescans, scan_tx, the node. */
export function syncMethods(d: WalletRpcDeps) {
  const { svc, w } = d;
  return [
    // m_blockchain holds genesis from the start: a wallet that has not refreshed yet answers 1
    def({ name: "get_height", aliases: ["getheight"], mirrors: "tools::wallet_rpc_server::on_getheight", params: obj({}), handler: () => ({ height: Math.max(1, w().ledger.height) }) }),
    def({
      name: "refresh",
      restricted: true,
      params: obj({ start_height: u64 }),
      handler: async (p) => {
        const start = p.start_height > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(p.start_height);
        const r = await svc.refresh(w(), start);
        return { blocks_fetched: r.blocks_fetched, received_money: r.received_money };
      },
    }),
    def({
      name: "auto_refresh",
      wallet: false,
      restricted: true,
      params: obj({ enable: withDefault(bool, true), period: u32 }),
      handler: (p) => {
        svc.setAutoRefresh(p.enable, p.period);
        return {};
      },
    }),
    def({
      name: "rescan_blockchain",
      restricted: true,
      params: obj({ hard: bool }),
      handler: async () => {
        await svc.rescanBlockchain();
        return {};
      },
    }),
    def({
      name: "scan_tx",
      restricted: true,
      params: obj({ txids: list(str) }),
      handler: async (p) => {
        const wal = w();
        for (const id of p.txids) if (!isHash(id)) fail(W.WRONG_TXID, "TX ID has invalid format");
        if (p.txids.length === 0) return {};
        const node = svc.daemon;
        if (!node) return fail(W.NO_DAEMON_CONNECTION, "no connection to daemon: the service runs --offline");
        const found: { blob: Uint8Array; txid: Uint8Array; height: number; timestamp: bigint; inPool: boolean; outputIndices: bigint[] }[] = [];
        for (let i = 0; i < p.txids.length; i += 100) {
          const ids = p.txids.slice(i, i + 100).map((x) => x.toLowerCase());
          const r = await node.getTransactions(ids, { decodeAsJson: false, prune: false });
          if (r.txs.length !== ids.length) fail(W.UNKNOWN_ERROR, "Failed to get transaction from daemon");
          // monerod answers a coinbase (no prunable part) in pruned_as_hex only; wallet2::get_pruned_tx reads either
          const hexOf = (t: (typeof r.txs)[number]) => (t.as_hex !== "" ? t.as_hex : t.pruned_as_hex !== "" ? t.pruned_as_hex + t.prunable_as_hex : "");
          if (r.txs.some((t) => hexOf(t) === "")) fail(W.UNKNOWN_ERROR, "Failed to get transaction from daemon");
          for (const t of r.txs)
            found.push({
              blob: Uint8Array.from(Buffer.from(hexOf(t), "hex")),
              txid: Uint8Array.from(Buffer.from(t.tx_hash, "hex")),
              height: Number(t.block_height),
              timestamp: t.block_timestamp,
              inPool: t.in_pool,
              outputIndices: t.output_indices,
            });
        }
        await wal.scanTxs(found);
        // a pool tx enters the pool view now (wallet2 processes it at once), not at the next refresh
        if (found.some((t) => t.inPool)) await wal.updatePool();
        return {};
      },
    }),
    def({
      name: "rescan_spent",
      restricted: true,
      params: obj({}),
      handler: async () => {
        const wal = w();
        const node = svc.daemon;
        if (!node) return fail(W.NO_DAEMON_CONNECTION, "no connection to daemon: the service runs --offline");
        const list = wal.keyImageList();
        for (let i = 0; i < list.length; i += 1000) {
          const part = list.slice(i, i + 1000);
          const r = (await node.json("/is_key_image_spent", { key_images: part.map((x) => x.keyImage) })) as Record<string, JsonValue>;
          const status = r.spent_status as JsonValue[];
          if (r.status !== "OK" || !Array.isArray(status) || status.length !== part.length)
            fail(W.UNKNOWN_ERROR, `daemon returned wrong response for is_key_image_spent, wrong amounts count = ${Array.isArray(status) ? status.length : 0}, expected ${part.length}`);
          part.forEach((x, k) => {
            const t = wal.ledger.state.transfers[x.index];
            const spent = Number(status[k]) !== 0;
            if (spent && !t.spent) {
              t.spent = true;
              t.spentHeight = 0;
            } else if (!spent && t.spent) {
              t.spent = false;
              t.spentHeight = 0;
              t.spentTxid = "";
            }
          });
        }
        return {};
      },
    }),
    def({
      name: "set_daemon",
      restricted: true,
      params: obj({
        address: str,
        username: str,
        password: str,
        trusted: bool,
        ssl_support: withDefault(str, "autodetect"),
        ssl_private_key_path: str,
        ssl_certificate_path: str,
        ssl_ca_file: str,
        ssl_allowed_fingerprints: list(str),
        ssl_allow_any_cert: bool,
      }),
      handler: async (p) => {
        let ssl: SslOptions;
        try {
          ssl = sslOptionsFromSetDaemon(p);
        } catch (e) {
          if (!(e instanceof SslConfigError)) throw e;
          return fail(W.NO_DAEMON_CONNECTION, e.message);
        }
        await svc.setDaemon({ address: p.address, username: p.username, password: p.password, trusted: p.trusted, ssl });
        return {};
      },
    }),
  ];
}
