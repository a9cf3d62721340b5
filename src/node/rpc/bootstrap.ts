/**
 * The bootstrap daemon (--bootstrap-daemon-address / -login, /set_bootstrap_daemon): while this
 * node is well behind another node, monerod answers wallets' calls from that node instead, marked
 * `untrusted` (core_rpc_server::use_bootstrap_daemon_if_necessary). Every 30 s it asks the
 * bootstrap daemon's get_info: a bootstrap daemon that is itself syncing is not used; otherwise it
 * is used while our height + 10 is below its height, and once we catch up it is never used again
 * (monerod: "The local daemon is fully synced. Not switching back"). With --no-sync the heights are
 * not compared (the bootstrap daemon stays in use).
 *
 * What is not here: "auto" (monerod picks public nodes from its peer list; here "auto" is accepted
 * and nothing is forwarded) and SOCKS proxies (refused: a proxy that is silently bypassed would
 * leak the wallet's traffic).
 */
import { NodeClient } from "../../client/index.js";
import type { JsonValue, JsonWritable } from "../../rpc/json.js";
import { isJsonObject } from "../../rpc/json.js";
import { JSONRPC_ERROR } from "../../rpc/error-codes.js";
import { type MethodTable, RpcError } from "../../rpc/methods.js";
import type { RpcContext } from "../../rpc/methods.js";

/** monerod's forwarded JSON paths (aliases are forwarded under the path that was called). */
const JSON_PATHS = [
  "/get_height", "/get_info", "/get_alt_blocks_hashes", "/get_outs", "/get_transactions", "/is_key_image_spent",
  "/send_raw_transaction", "/get_transaction_pool", "/get_transaction_pool_hashes.bin", "/get_transaction_pool_hashes",
  "/get_transaction_pool_stats", "/get_limit",
];
/** monerod's forwarded .bin paths. */
const BIN_PATHS = ["/get_blocks.bin", "/get_blocks_by_height.bin", "/get_hashes.bin", "/get_outs.bin", "/get_o_indexes.bin", "/get_output_distribution.bin"];
/** monerod's forwarded JSON-RPC methods (by their main names; aliases map to them). */
const JSON_RPC = [
  "get_block_template", "add_aux_pow", "get_last_block_header", "get_block_header_by_hash", "get_block_headers_range",
  "get_block_header_by_height", "get_block", "hard_fork_info", "get_output_histogram", "get_version", "get_fee_estimate",
  "get_txpool_backlog", "get_output_distribution", "get_info",
];

export interface BootstrapOptions {
  /** host:port, or a URL; "auto" (accepted, nothing forwarded). */
  address: string;
  /** "user:pass" for the bootstrap daemon's digest login. */
  login?: string;
  /** How often the bootstrap daemon's height is asked again (monerod: 30 s). */
  checkIntervalMs?: number;
}

/** One bootstrap daemon and the decision to use it. */
export class BootstrapDaemon {
  readonly address: string;
  private readonly client: NodeClient | undefined;
  private readonly intervalMs: number;
  private lastCheck = -Infinity;
  /** m_should_use_bootstrap_daemon: true until we caught up once. */
  private shouldUse = true;
  /** m_was_bootstrap_ever_used. */
  everUsed = false;

  constructor(o: BootstrapOptions) {
    this.intervalMs = o.checkIntervalMs ?? 30_000;
    if (o.address === "auto") {
      this.address = "auto";
      this.client = undefined;
      return;
    }
    const url = /^[a-z]+:\/\//i.test(o.address) ? o.address : `http://${o.address}`;
    const u = new URL(url);
    if (u.protocol !== "http:") throw new Error(`bootstrap daemon ${o.address}: only http:// is supported (got ${u.protocol}//)`);
    this.address = `${u.hostname.replace(/^\[|\]$/g, "")}:${u.port === "" ? "0" : u.port}`;
    this.client = new NodeClient({ url: url.replace(/\/+$/, ""), ...(o.login ? { login: o.login } : {}), retries: 0, timeoutMs: 30_000 });
  }

  /**
   * Whether this call goes to the bootstrap daemon (use_bootstrap_daemon_if_necessary's decision):
   * `ourHeight` is our chain's height (blocks), `noSync` --no-sync.
   */
  async use(ourHeight: number, noSync: boolean, log: (m: string) => void): Promise<NodeClient | undefined> {
    if (!this.client || !this.shouldUse) return undefined;
    const now = Date.now();
    if (now - this.lastCheck > this.intervalMs) {
      this.lastCheck = now;
      let info: JsonValue;
      try {
        info = await this.client.json("/get_info", {});
      } catch (e) {
        log(`bootstrap daemon ${this.address}: failed to fetch its height (${e instanceof Error ? e.message : String(e)})`);
        return undefined;
      }
      const height = isJsonObject(info) ? Number(info.height ?? 0) : 0;
      const target = isJsonObject(info) ? Number(info.target_height ?? 0) : 0;
      if (height < target) {
        log(`bootstrap daemon ${this.address} is out of sync (${height} of ${target})`);
        return undefined;
      }
      if (!noSync) {
        this.shouldUse = ourHeight + 10 < height;
        log(`${this.shouldUse ? "Using" : "Not using"} the bootstrap daemon (our height: ${ourHeight}, bootstrap daemon's height: ${height})`);
        if (!this.shouldUse) return undefined;
      }
    }
    this.everUsed = true;
    return this.client;
  }
}

/** Marks a forwarded answer untrusted (res.untrusted = true), as monerod does. */
function untrusted(v: JsonValue, what: string): JsonWritable {
  if (!isJsonObject(v)) throw new Error(`bootstrap daemon: ${what} answered something that is not an object`);
  return { ...v, untrusted: true };
}

export interface BootstrapDeps {
  /** The bootstrap daemon in use (undefined: none). */
  current(): BootstrapDaemon | undefined;
  height(): number;
  noSync: boolean;
  log(m: string): void;
}

/**
 * Wraps monerod's forwarded methods of `t`: each asks the bootstrap daemon first and answers
 * locally when it is not to be used. get_info keeps our own height as height_without_bootstrap.
 */
export function addBootstrapForwarding(t: MethodTable, d: BootstrapDeps): void {
  const { jsonRpc, json, bin } = t.list();
  const fail = (what: string, e: unknown): never => {
    throw new RpcError(JSONRPC_ERROR.INTERNAL_ERROR, `Internal error: the bootstrap daemon failed to answer ${what}: ${e instanceof Error ? e.message : String(e)}`);
  };
  const infoExtras = (v: JsonWritable): JsonWritable => ({
    ...(v as Record<string, JsonWritable>),
    bootstrap_daemon_address: d.current()?.address ?? "",
    height_without_bootstrap: d.height(),
    was_bootstrap_ever_used: true,
  });
  /** A handler that asks the bootstrap daemon (`forward`) when it is to be used, else answers with `local`. */
  const forwarding =
    <P, R>(local: (p: P, ctx: RpcContext) => R | Promise<R>, what: string, forward: (c: NodeClient, p: P) => Promise<R>) =>
    (p: P, ctx: RpcContext): R | Promise<R> => {
      const b = d.current();
      // no bootstrap daemon (the usual case): the local handler, in this tick when it is synchronous
      if (!b) return local(p, ctx);
      return (async () => {
        const c = await b.use(d.height(), d.noSync, d.log);
        if (!c) return local(p, ctx);
        try {
          return await forward(c, p);
        } catch (e) {
          return fail(what, e);
        }
      })();
    };
  for (const m of jsonRpc) {
    if (!JSON_RPC.includes(m.name)) continue;
    m.handler = forwarding(m.handler.bind(m), m.name, async (c, p) => {
      const v = untrusted(await c.jsonRpc(m.name, p as JsonWritable), m.name);
      return m.name === "get_info" ? infoExtras(v) : v;
    });
  }
  for (const m of json) {
    if (!JSON_PATHS.includes(m.path)) continue;
    m.handler = forwarding(m.handler.bind(m), m.path, async (c, p) => {
      const v = untrusted(await c.json(m.path, p as JsonWritable, { idempotent: m.path !== "/send_raw_transaction" }), m.path);
      return m.path === "/get_info" ? infoExtras(v) : v;
    });
  }
  for (const m of bin) {
    if (!BIN_PATHS.includes(m.path)) continue;
    // with a bootstrap daemon set, answers may come from it: none is sent again
    const reuse = m.reuse;
    if (reuse) m.reuse = { ...reuse, stamp: () => (d.current() ? undefined : reuse.stamp()) };
    const quick = m.quick?.bind(m);
    if (quick) m.quick = (body, ctx) => (d.current() ? undefined : quick(body, ctx));
    m.handler = forwarding(m.handler.bind(m), m.path, async (c, req) => {
      const res = await c.bin(m.path, m.request, req, m.response);
      return typeof res === "object" && res !== null && "untrusted" in res ? { ...res, untrusted: true } : res;
    });
  }
}
