/**
 * `npm run bench -- transfers`: a wallet with tens of thousands of transfers (issue 19), the chain
 * artifact owner's, restored from its keys by monero-wallet-rpc and by tsmonero-wallet-rpc, then
 * get_balance and get_transfers (in and out, all accounts) on each, median of 3.
 *
 * Both wallets sync from the same tsmonerod, started on a copy of the artifact's build store
 * (bench/lib/big-chain.ts keeps it in tsmonerod's own format), so no chain is replayed and a build
 * still under way can be measured (the copy is an LMDB snapshot, `mdb_env_copy`). The daemon is the
 * same for both wallets; the rows compare the wallets. `scale` times the same calls on the chain it
 * loads into both daemons.
 *
 *   npm run bench -- transfers [--chain-dir DIR]
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { open } from "lmdb";
import type { ParsedArgs } from "../src/cli/args.js";
import { chainDir as storeDir } from "../src/node/daemon.js";
import { CHAIN_DIR_FLAG, chainDir } from "./chain.js";
import { readMeta } from "./lib/big-chain.js";
import { type OwnerWalletRun, refreshWallet, type WalletImpl } from "./lib/owner-wallet.js";
import { formatRatio } from "./lib/stats.js";
import type { BenchSuite } from "./lib/suite.js";
import { progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { launch, rpc, stop, waitAnswer } from "./wallet.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DAEMON = { rpc: 29180, p2p: 29181 } as const;
const WALLET_PORT = 29182;
const WALLETS: readonly WalletImpl[] = ["monero-wallet-rpc", "tsmonero-wallet-rpc"];

/** A consistent copy of the LMDB environment in `from` (the builder may be writing it) into `to`. */
async function snapshotStore(from: string, to: string): Promise<void> {
  mkdirSync(to, { recursive: true });
  const env = open({ path: from, readOnly: true, noSubdir: false });
  try {
    // mdb_env_copy2 writes data.mdb into the directory it is given (the environment has subdirectories)
    await env.backup(to, false);
  } finally {
    await env.close();
  }
}

async function run(args: ParsedArgs): Promise<void> {
  const dir = chainDir(args);
  const meta = readMeta(dir);
  const dataDir = mkdtempSync(join(tmpdir(), "tsmonero-bench-transfers-"));
  const scratch = mkdtempSync(join(tmpdir(), "tsmonero-bench-transfers-run-"));
  progress(`copying the build store of ${dir} (${meta.blocks} blocks at its last checkpoint)`);
  await snapshotStore(join(dir, "build", "node"), storeDir(dataDir, "regtest"));
  const daemon = launch("tsmonerod", join(ROOT, "bin/tsmonerod"), [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dataDir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(DAEMON.rpc),
    "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(DAEMON.p2p), "--no-zmq", "--non-interactive", "--log-level", "0", "--keep-fakechain",
  ], scratch);
  try {
    await waitAnswer(daemon, DAEMON.rpc, "get_block_count", 120_000);
    const height = Number((await rpc(DAEMON.rpc, "get_block_count")).count);
    const runs = new Map<WalletImpl, OwnerWalletRun>();
    for (const w of WALLETS) {
      progress(`${w}: restoring the owner's wallet over ${height} blocks`);
      runs.set(w, await refreshWallet(w, { port: DAEMON.rpc, pid: daemon.proc.pid }, meta, { oneCore: false, port: WALLET_PORT }));
    }
    const mo = runs.get("monero-wallet-rpc") as OwnerWalletRun;
    const ts = runs.get("tsmonero-wallet-rpc") as OwnerWalletRun;
    const same = mo.inKeys.join("\n") === ts.inKeys.join("\n") && mo.outKeys.join("\n") === ts.outKeys.join("\n");
    const ratio = (a: number, b: number): string => formatRatio(a / b);
    const out: string[] = [];
    out.push(`## The chain owner's wallet: ${ts.transfers.toLocaleString("en-US")} transfers (${ts.inKeys.length.toLocaleString("en-US")} in, ${ts.outKeys.length.toLocaleString("en-US")} out), ${height.toLocaleString("en-US")} blocks\n`);
    out.push(`${machineLine()}. Both wallets restored from the owner's keys at height 0 from the same tsmonerod (a copy of ${join(dir, "build", "node")}); get_balance (all accounts) and get_transfers (in + out, all accounts): median of 3, each wallet alone on the machine with its daemon.\n`);
    out.push(
      markdownTable(
        [
          { header: "row" },
          { header: "monero-wallet-rpc", align: "right" },
          { header: "tsmonero-wallet-rpc", align: "right" },
          { header: "speed, tsmonero / monero", align: "right" },
        ],
        [
          ["restore + refresh (s)", mo.secs.toFixed(1), ts.secs.toFixed(1), ratio(mo.secs, ts.secs)],
          ["outputs found", String(mo.found), String(ts.found), mo.found === ts.found ? "same" : "DIFFERENT"],
          ["get_balance (ms)", mo.balanceMs.toFixed(1), ts.balanceMs.toFixed(1), ratio(mo.balanceMs, ts.balanceMs)],
          [`get_transfers, in + out (ms)`, mo.transfersMs.toFixed(0), ts.transfersMs.toFixed(0), ratio(mo.transfersMs, ts.transfersMs)],
          ["transfers listed (in + out)", `${mo.inKeys.length} + ${mo.outKeys.length}`, `${ts.inKeys.length} + ${ts.outKeys.length}`, same ? "same entries" : "DIFFERENT entries"],
          ["wallet peak RSS (MiB)", mo.rss.toFixed(0), ts.rss.toFixed(0), ratio(ts.rss, mo.rss) + " (size ratio)"],
        ],
      ),
    );
    if (!same) out.push("\nThe two get_transfers answers list different entries (txid, subaddress and amount in; txid, amount and fee out): the rows above did not do the same work.");
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    await stop(daemon);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: "transfers",
  summary: "the chain artifact owner's wallet (tens of thousands of transfers) in monero-wallet-rpc and tsmonero-wallet-rpc: restore, get_balance, get_transfers",
  flags: [CHAIN_DIR_FLAG],
  run,
};
