/**
 * The chain artifact owner's wallet (bench/lib/big-chain.ts), restored from its keys by
 * monero-wallet-rpc or tsmonero-wallet-rpc against a running daemon, refreshed, then asked for its
 * balance and its whole transfer history: what `scale` and `transfers` time.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChainMeta } from "./big-chain.js";
import { processRssMiB, processStat } from "./system.js";
import { launch, rpc, stop, waitAnswer } from "../wallet.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export type WalletImpl = "monero-wallet-rpc" | "tsmonero-wallet-rpc";

/** Pins every thread of `pid` to `cpus` (taskset -a -p). */
export function pin(pid: number | undefined, cpus: string): void {
  if (pid === undefined) return;
  const r = spawnSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`taskset -a -p -c ${cpus} ${pid} failed`);
}

export interface OwnerWalletRun {
  /** Seconds from generate_from_keys to refresh's answer. */
  secs: number;
  /** Outputs the wallet holds afterwards (incoming_transfers all, accounts 0–4). */
  found: number;
  /** The wallet's peak RSS, MiB. */
  rss: number;
  /** CPU seconds (all threads, user + system) from generate_from_keys to refresh's answer: the wallet's, the daemon's. */
  walletCpu: number;
  daemonCpu: number;
  /** get_balance (all accounts), median of 3, ms. */
  balanceMs: number;
  /** get_transfers in + out, all accounts, median of 3, ms. */
  transfersMs: number;
  /** How many entries that answer held (in + out). */
  transfers: number;
  /** Its in entries as `txid:subaddress major/minor:amount`, sorted (to check both wallets list the same). */
  inKeys: string[];
  /** Its out entries as `txid:amount:fee`, sorted. */
  outKeys: string[];
}

/**
 * One wallet restored from the chain owner's keys at height 0 (generate_from_keys), then refreshed
 * to the top: seconds from generate_from_keys to refresh's answer, outputs found (incoming_transfers
 * all), the wallet's peak RSS. monero-wallet-rpc scans the chain before refresh is even called (in
 * generate_from_keys or its auto-refresh right after), so only the two together are the same work.
 * Then the refreshed wallet's get_balance and get_transfers (in and out, all accounts): median of 3.
 * `oneCore`: the wallet on cpu 0 and the daemon (pid) on cpu 1 while it runs.
 */
export async function refreshWallet(
  wallet: WalletImpl,
  daemon: { port: number; pid?: number },
  meta: ChainMeta,
  opts: { oneCore: boolean; port: number },
): Promise<OwnerWalletRun> {
  const { oneCore, port } = opts;
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-owner-wallet-"));
  const flags = [
    "--wallet-dir", dir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${daemon.port}`, "--daemon-ssl", "disabled", "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(port), "--log-file", join(dir, "wallet.log"), "--non-interactive",
  ];
  const cmd = wallet === "monero-wallet-rpc" ? ["/usr/bin/monero-wallet-rpc", ...flags] : [process.execPath, join(ROOT, "bin", "tsmonero-wallet-rpc"), ...flags];
  const p = oneCore ? launch(wallet, "taskset", ["-c", "0", ...cmd], dir) : launch(wallet, cmd[0], cmd.slice(1), dir);
  try {
    if (oneCore) pin(daemon.pid, "1");
    await waitAnswer(p, port, "get_version");
    const cpu0 = [processStat(p.proc.pid)?.cpuMs ?? 0, processStat(daemon.pid)?.cpuMs ?? 0];
    const t0 = performance.now();
    // a restore of the 100,000-block chain is one call of minutes for monero-wallet-rpc: no idle limit short of an hour
    const HOUR = 3_600_000;
    await rpc(port, "generate_from_keys", {
      filename: "owner", address: meta.owner.address, spendkey: meta.owner.spendSecretKey, viewkey: meta.owner.viewSecretKey, password: "", restore_height: 0, autosave_current: false,
    }, HOUR);
    await rpc(port, "refresh", { start_height: 0 }, HOUR);
    const secs = (performance.now() - t0) / 1000;
    const walletCpu = ((processStat(p.proc.pid)?.cpuMs ?? 0) - cpu0[0]) / 1000;
    const daemonCpu = ((processStat(daemon.pid)?.cpuMs ?? 0) - cpu0[1]) / 1000;
    const r = (await rpc(port, "incoming_transfers", { transfer_type: "all", account_index: 0, subaddr_indices: [] })) as { transfers?: unknown[] };
    let found = r.transfers?.length ?? 0;
    // the builder pays accounts 0–4; an account the chain's prefix never paid does not exist
    for (let account = 1; account < 5; account++) {
      const x = (await rpc(port, "incoming_transfers", { transfer_type: "all", account_index: account }).catch(() => ({}))) as { transfers?: unknown[] };
      found += x.transfers?.length ?? 0;
    }
    // the refreshed wallet's reads: get_balance and get_transfers (in and out, every account), median of 3
    const timed = async (method: string, params: unknown): Promise<{ ms: number; answer: Record<string, unknown> }> => {
      const runs: number[] = [];
      let answer: Record<string, unknown> = {};
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        answer = await rpc(port, method, params);
        runs.push(performance.now() - t);
      }
      return { ms: runs.sort((a, b) => a - b)[1], answer };
    };
    const balance = await timed("get_balance", { account_index: 0, all_accounts: true });
    const transfers = await timed("get_transfers", { in: true, out: true, all_accounts: true });
    type Entry = { txid: string; amount: unknown; fee: unknown; subaddr_index?: { major: number; minor: number } };
    const list = (k: string): Entry[] => (transfers.answer[k] as Entry[] | undefined) ?? [];
    const inKeys = list("in").map((e) => `${e.txid}:${e.subaddr_index?.major}/${e.subaddr_index?.minor}:${String(e.amount)}`).sort();
    const outKeys = list("out").map((e) => `${e.txid}:${String(e.amount)}:${String(e.fee)}`).sort();
    return { secs, found, rss: processRssMiB(p.proc.pid).peak, walletCpu, daemonCpu, balanceMs: balance.ms, transfersMs: transfers.ms, transfers: inKeys.length + outKeys.length, inKeys, outKeys };
  } finally {
    if (oneCore) pin(daemon.pid, "0-1");
    await stop(p);
  }
}
