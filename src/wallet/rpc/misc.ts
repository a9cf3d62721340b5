/**
 * The rest of monero-wallet-rpc's small methods: get_version, start_mining, stop_mining,
 * set_log_level, set_log_categories.
 */
import { bool, i32, type JsonValue, str, u64 } from "../../rpc/index.js";
import { def, fail, obj, W, WALLET_RPC_VERSION, type WalletRpcDeps } from "./common.js";

/** Version, mining through the node, log level and categories. */
export function miscMethods(d: WalletRpcDeps) {
  const { svc, o, w } = d;
  let logLevel = 0;
  let logCategories = "";
  return [
    // as the Debian build of monero-wallet-rpc answers
    def({ name: "get_version", wallet: false, params: obj({}), handler: () => ({ version: WALLET_RPC_VERSION, release: false }) }),
    def({
      name: "start_mining",
      params: obj({ threads_count: u64, do_background_mining: bool, ignore_battery: bool }),
      handler: async (p) => {
        const wal = w();
        if (!svc.trusted) fail(W.UNKNOWN_ERROR, "This command requires a trusted daemon.");
        const max = BigInt(Math.max(o.maxConcurrency ?? 2, 2));
        if (p.threads_count < 1n || p.threads_count > max) fail(W.UNKNOWN_ERROR, "The specified number of threads is inappropriate.");
        const node = svc.daemon;
        let ok: boolean;
        try {
          const r = node
            ? ((await node.json("/start_mining", {
                miner_address: wal.address({ major: 0, minor: 0 }),
                threads_count: p.threads_count,
                do_background_mining: p.do_background_mining,
                ignore_battery: p.ignore_battery,
              })) as Record<string, JsonValue>)
            : null;
          ok = r?.status === "OK";
        } catch {
          ok = false;
        }
        if (!ok) fail(W.UNKNOWN_ERROR, "Couldn't start mining due to unknown error.");
        return {};
      },
    }),
    def({
      name: "stop_mining",
      params: obj({}),
      handler: async () => {
        const node = svc.daemon;
        let ok: boolean;
        try {
          ok = node ? ((await node.json("/stop_mining", {})) as Record<string, JsonValue>).status === "OK" : false;
        } catch {
          ok = false;
        }
        if (!ok) fail(W.UNKNOWN_ERROR, "Couldn't stop mining due to unknown error.");
        return {};
      },
    }),
    def({
      name: "set_log_level",
      summary: "Sets the log level (0..4) of the wallet service",
      description: "In: level int (0 least verbose to 4 most verbose). Out: none. −44 for a level outside 0..4.",
      wallet: false,
      restricted: true,
      params: obj({ level: i32 }),
      handler: (p) => {
        if (p.level < 0 || p.level > 4) fail(W.INVALID_LOG_LEVEL, "Error: log level not valid");
        logLevel = p.level;
        o.log?.(`log level ${logLevel}`);
        return {};
      },
    }),
    def({
      name: "set_log_categories",
      summary: "Sets the log categories of the wallet service",
      description: "In: categories string (comma-separated <Category>:<Level>, as monerod's /set_log_categories). Out: categories string (the active ones).",
      wallet: false,
      restricted: true,
      params: obj({ categories: str }),
      handler: (p) => {
        logCategories = p.categories;
        return { categories: logCategories };
      },
    }),
  ];
}
