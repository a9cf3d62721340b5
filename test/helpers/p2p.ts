/**
 * Private regtest P2P networks for the P2P tests: real monerods and tsmonerods on loopback with
 * fixed difficulty 1, each test picking its ports from 19200–19399, processes and dirs tracked by
 * a `Net` so one `close()` stops and removes them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Daemon, startProcess } from "./monerod.js";
import { nodeCall, nodePath } from "./node-rpc.js";
import { stopProcesses } from "./wallet-rpc.js";

/** A mainnet address to mine to (regtest uses mainnet's address prefixes). */
export const MINER_ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const TS = new URL("../../../bin/tsmonerod", import.meta.url).pathname;

export class Net {
  readonly procs: Daemon[] = [];
  private readonly dirs: string[] = [];

  tmp(): string {
    const d = mkdtempSync(join(tmpdir(), "tsmonero-p2p-"));
    this.dirs.push(d);
    return d;
  }

  /**
   * A real monerod; `extra` flags after ours. TSMONERO_TEST_REAL_WALLET_LOG_DIR keeps its level-2
   * log outside its temp dir, when chasing a failure.
   */
  monerod(rpc: number, p2p: number, dir: string, extra: string[]): Daemon {
    const args = ["--regtest", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2p), "--no-zmq", "--non-interactive", "--no-igd", "--log-level", "0", ...extra];
    const logDir = process.env.TSMONERO_TEST_REAL_WALLET_LOG_DIR;
    if (logDir) args.splice(args.indexOf("--log-level"), 2, "--log-level", "2", "--log-file", `${logDir}/monerod-${rpc}-${Date.now()}.log`);
    const d = startProcess("/usr/bin/monerod", args, dir, `http://127.0.0.1:${rpc}`);
    this.procs.push(d);
    return d;
  }

  /** tsmonerod; `env` adds to the environment (e.g. TSMONERO_TEST_DANDELION_FLUFF_PERCENT). */
  tsmonerod(rpc: number, p2p: number, dir: string, extra: string[], env?: NodeJS.ProcessEnv): Daemon {
    const args = ["--regtest", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-port", String(rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2p), "--no-zmq", "--non-interactive", ...extra];
    const d = startProcess(TS, args, dir, `http://127.0.0.1:${rpc}`, env);
    this.procs.push(d);
    return d;
  }

  async close(): Promise<void> {
    await stopProcesses(this.procs);
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** Polls `f` every 300 ms until it gives a value; fails after `ms` with the last error seen. */
export async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${what}: timed out${last ? ` (${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export const up = (d: Daemon): Promise<boolean> => until(`${d.url} up`, () => nodeCall(d.url, "get_info").then(() => true));

export async function top(url: string): Promise<{ height: number; hash: string }> {
  const h = (await nodeCall(url, "get_last_block_header")).block_header;
  return { height: Number(h.height), hash: h.hash };
}

/** Waits until the node at `url` has `hash` on top. */
export const hasTop = (url: string, hash: string, ms?: number): Promise<boolean> =>
  until(`${url} at ${hash.slice(0, 12)}`, async () => ((await top(url)).hash === hash ? true : undefined), ms);

export async function pool(url: string): Promise<string[]> {
  return (await nodePath(url, "/get_transaction_pool_hashes", {})).tx_hashes ?? [];
}
