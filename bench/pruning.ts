/**
 * Pruning, like for like (issue 13): the same regtest chain (the recorded chain's 333 blocks with
 * real RingCT txs, then coinbase-only blocks mined by tsmonerod and fed byte for byte to monerod) in
 * a real monerod and in tsmonerod; each database copied compactly (live pages only) before and
 * after pruning with the same stripe (monerod's prune_blockchain draws it; our store is pruned with
 * that stripe through ChainStore.prune, the code behind our prune_blockchain). The share saved is
 * what pruning removes; the goal is a share at least monerod's.
 *
 *   npm run bench -- pruning [--extra-blocks N]   (default 5,600: the tip window is 5,500 blocks)
 * Needs lmdb-utils (mdb_copy) for monerod's side.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { open } from "lmdb";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { ChainStore } from "../src/node/store/chain-store.js";
import { seedStripe } from "../src/protocol/pruning.js";
import { type BenchSuite, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { launch, type Proc, replayRecordedChain, rpc, stop, waitAnswer } from "./wallet.js";
import { launcherCommand } from "./lib/launcher.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PORTS = { monerod: 29910, monerodP2p: 29911, ours: 29912 } as const;
const FLAGS: readonly FlagSpec[] = [{ name: "extra-blocks", takesValue: true, help: "coinbase-only blocks after the recorded chain (default 5600)" }];

/** The directory holding data.mdb under `base`. */
function lmdbDir(base: string): string {
  const f = readdirSync(base, { recursive: true }).map(String).find((p) => p.endsWith("data.mdb"));
  if (!f) throw new Error(`no data.mdb under ${base}`);
  return join(base, f, "..");
}

/**
 * Bytes of a compact copy (mdb_env_copy2 with MDB_CP_COMPACT) of the environment in `dir`: ours
 * through lmdb-js, monerod's through LMDB's own mdb_copy -c (lmdb-utils; lmdb-js's LMDB cannot open
 * monerod's 0.9 file format, nor mdb_copy ours), the same operation on each side.
 */
async function compactBytes(dir: string, kind: "monerod" | "ours"): Promise<number> {
  const into = mkdtempSync(join(tmpdir(), "tsmonero-bench-compact-"));
  if (kind === "monerod") {
    const r = spawnSync("mdb_copy", ["-c", dir, into], { encoding: "utf8" });
    if (r.error || r.status !== 0) throw new Error(`mdb_copy -c ${dir}: ${r.error?.message ?? r.stderr} (apt-get install lmdb-utils)`);
  } else {
    const env = open({ path: dir, readOnly: true, maxDbs: 64 });
    await env.backup(into, true);
    await env.close();
  }
  const size = statSync(join(into, "data.mdb")).size;
  rmSync(into, { recursive: true, force: true });
  return size;
}

function daemonFlags(dir: string, port: number, keep: boolean): string[] {
  return [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port),
    "--non-interactive", "--log-level", "0", ...(keep ? ["--keep-fakechain"] : []),
  ];
}

const startMonerod = (dir: string, keep: boolean): Proc =>
  launch("monerod", "/usr/bin/monerod", [...daemonFlags(dir, PORTS.monerod, keep), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(PORTS.monerodP2p), "--no-zmq"], dir);
const startOurs = (dir: string, keep: boolean): Proc =>
  launch("tsmonerod", ...launcherCommand(join(ROOT, "bin", "tsmonerod"), [...daemonFlags(dir, PORTS.ours, keep), "--db-sync-mode", "fastest", "--no-zmq"]), dir);

/** Stops a daemon without removing its directory (bench/wallet.ts's stop removes it). */
async function halt(p: Proc): Promise<void> {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  const gone = new Promise((r) => p.proc.once("exit", r));
  p.proc.kill("SIGTERM");
  const t = setTimeout(() => p.proc.kill("SIGKILL"), 30_000);
  await gone;
  clearTimeout(t);
}

async function run(args: ParsedArgs): Promise<void> {
  const extra = Number(flagString(args, "extra-blocks") ?? 5600);
  const mdir = mkdtempSync(join(tmpdir(), "tsmonero-bench-prune-monerod-"));
  const odir = mkdtempSync(join(tmpdir(), "tsmonero-bench-prune-ours-"));
  let monerod = startMonerod(mdir, false);
  const ours = startOurs(odir, false);
  try {
    await waitAnswer(monerod, PORTS.monerod, "get_info");
    await waitAnswer(ours, PORTS.ours, "get_info");
    // the extra blocks are mined once (by tsmonerod: monerod's generateblocks hashes RandomX twice
    // per block) and fed to monerod, which checks each block's PoW once
    progress(`tsmonerod: the recorded chain + ${extra} blocks`);
    const height = await replayRecordedChain(PORTS.ours, extra);
    progress(`monerod: the same ${height} blocks`);
    await replayRecordedChain(PORTS.monerod, 0);
    for (let h = Number((await rpc(PORTS.monerod, "get_block_count")).count); h < height; h++) {
      const b = await rpc(PORTS.ours, "get_block", { height: h });
      const r = await rpc(PORTS.monerod, "submit_block", [String(b.blob)]);
      if (r.status !== "OK") throw new Error(`submit_block ${h} to monerod: ${JSON.stringify(r)}`);
      if (h % 500 === 0) progress(`  ${h}/${height}`);
    }
    const tops = await Promise.all([PORTS.monerod, PORTS.ours].map(async (p) => String(((await rpc(p, "get_last_block_header")).block_header as Record<string, unknown>).hash)));
    if (tops[0] !== tops[1]) throw new Error(`the chains differ: ${tops.join(" vs ")}`);
    await halt(monerod);
    await halt(ours);
    const before = { monerod: await compactBytes(lmdbDir(mdir), "monerod"), ours: await compactBytes(lmdbDir(odir), "ours") };

    progress("monerod: prune_blockchain");
    monerod = startMonerod(mdir, true);
    await waitAnswer(monerod, PORTS.monerod, "get_info", 120_000);
    const pr = await rpc(PORTS.monerod, "prune_blockchain", { check: false });
    const seed = Number(pr.pruning_seed);
    await halt(monerod);
    progress(`tsmonerod's store: prune with monerod's stripe ${seedStripe(seed)} (seed ${seed})`);
    const store = ChainStore.open(lmdbDir(odir), "regtest", { sync: "fast" });
    const t0 = performance.now();
    const done = await store.prune(seedStripe(seed));
    const pruneMs = performance.now() - t0;
    await store.close();
    const after = { monerod: await compactBytes(lmdbDir(mdir), "monerod"), ours: await compactBytes(lmdbDir(odir), "ours") };

    const mb = (n: number) => (n / 1024 / 1024).toFixed(2);
    const share = (a: number, b: number) => `${(100 * (1 - b / a)).toFixed(1)}%`;
    console.log(`\n## Pruning: the same ${height}-block regtest chain, compact copies before and after (stripe ${seedStripe(seed)})\n`);
    console.log(machineLine());
    console.log(`Both sides hold the same blocks and txs (top ${tops[0].slice(0, 16)}…); each copy holds only live pages (mdb_env_copy2, compact).`);
    console.log(`tsmonerod's store removed the prunable part of ${done.txs} txs in ${done.blocks} blocks (${done.bytes} bytes) in ${pruneMs.toFixed(0)} ms.\n`);
    console.log(markdownTable(
      [{ header: "database" }, { header: "unpruned MiB", align: "right" }, { header: "pruned MiB", align: "right" }, { header: "saved", align: "right" }],
      [
        ["monerod", mb(before.monerod), mb(after.monerod), share(before.monerod, after.monerod)],
        ["tsmonerod", mb(before.ours), mb(after.ours), share(before.ours, after.ours)],
        ["tsmonerod / monerod", (before.ours / before.monerod).toFixed(2) + "×", (after.ours / after.monerod).toFixed(2) + "×", ""],
      ],
    ));
  } finally {
    await halt(monerod).catch(() => undefined);
    await halt(ours).catch(() => undefined);
    await stop(monerod);
    await stop(ours);
  }
}

export const suite: BenchSuite = {
  name: "pruning",
  summary: "database sizes before and after pruning the same chain, monerod and tsmonerod",
  flags: FLAGS,
  run,
};
