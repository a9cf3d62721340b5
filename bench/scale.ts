/**
 * `npm run bench -- scale`: tsmonerod next to monerod (Debian package `monero`) on the large chain
 * artifact of `npm run bench -- chain` (issue 19), both in the same run, the same work on both sides:
 *
 *   load      the chain replayed into each fresh daemon over RPC (send_raw_transaction of each tx,
 *             then submit_block): ms per block in the window at height 1,000 and in the last window,
 *             and their ratio (the cost's growth with height). Windows of 250 blocks alternate
 *             between the daemons, so a load change on the shared machine hits both alike. Both
 *             verify every tx and block and hash every block's RandomX PoW (tsmonerod with
 *             TSMONERO_HASH_TRIVIAL_POW=1; at difficulty 1 it would skip that by default), both with
 *             --db-sync-mode fast:async:250000000bytes (monerod's default; tsmonerod's is safe).
 *   storage   the LMDB file of each after the load: bytes allocated on disk and the file's length;
 *             daemon RSS (now and peak).
 *   start     both stopped, the OS page cache dropped (/proc/sys/vm/drop_caches, when allowed),
 *             both started: start → first answer.
 *   cold      every header, block, tx and output read once in random order (get_block_header_by_height,
 *             get_block by height, /get_transactions of one tx, /get_outs of one output; up to --reads
 *             of each), concurrency 1, keep-alive HTTP: req/s; tsmonerod's cache hits during the row
 *             (its get_cache_stats) beside it. Then get_output_distribution of the whole chain.
 *             Two cold passes, each after a restart with the page cache dropped: tsmonerod with its
 *             start-up RPC warm-up off (TSMONERO_RPC_WARMUP=0), then as launched by default, the
 *             rows starting once it reports the warm-up over (node/rpc/warmup.ts: it empties every
 *             cache when it ends, so the data is as cold; the code is optimized).
 *   warm      the same reads again in the same order.
 *   random    /get_outs of 10 random outputs per request, as a wallet picks decoys.
 *   wallets   monero-wallet-rpc ← monerod, tsmonero-wallet-rpc ← monerod and ← tsmonerod, each
 *             restored from the chain owner's keys and refreshing the whole chain, with the wallet
 *             pinned to one core (the daemon to the other) and on all cores: seconds, chain outputs
 *             per second, outputs found (checked against the chain), then get_balance and
 *             get_transfers on that wallet (tens of thousands of transfers on a large chain).
 *
 *   npm run bench -- scale [--chain-dir DIR] [--scale-blocks N] [--reads N] [--load-dir DIR [--load-only]]
 *
 * A long chain takes hours to load (at difficulty 1 each daemon still hashes every block's RandomX
 * PoW in light mode, ~40 ms a block here: 100,000 blocks are over an hour per daemon). With
 * `--load-dir DIR` both daemons' data dirs and the per-window times live in DIR and outlast the run:
 * a later run with the same DIR goes on where the last one stopped (both daemons brought back to its
 * last whole window with /pop_blocks, their pools flushed), and `--load-only` stops after the load.
 * SIGINT or SIGTERM during the load ends it after the current window, both daemons stopped cleanly.
 * The load rows then sum windows timed in several sittings; the report says how many.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { defaultBackend } from "../src/crypto/index.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { CHAIN_DIR_FLAG, chainDir } from "./chain.js";
import { readChain, readMeta } from "./lib/big-chain.js";
import { formatRatio } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine, processRssMiB, processStat } from "./lib/system.js";
import { seededRandom } from "../test/helpers/random.js";
import { markdownTable } from "./lib/table.js";
import { refreshWallet } from "./lib/owner-wallet.js";
import { launch, post, type Proc, rpc, stop, waitAnswer } from "./wallet.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PORTS = { monerod: { rpc: 29150, p2p: 29151 }, tsmonerod: { rpc: 29160, p2p: 29161 } } as const;
type Impl = keyof typeof PORTS;
const IMPLS: readonly Impl[] = ["tsmonerod", "monerod"];
const WINDOW = 250;
const SYNC_MODE = "fast:async:250000000bytes";

const FLAGS: readonly FlagSpec[] = [
  CHAIN_DIR_FLAG,
  { name: "scale-blocks", takesValue: true, help: "Load only the first N blocks of the artifact (default: all)" },
  { name: "reads", takesValue: true, help: "Reads per cold/warm row at most (a random sample when there are more)", defaultValue: "20000" },
  { name: "no-wallets", takesValue: false, help: "Skip the wallet refresh rows" },
  { name: "load-dir", takesValue: true, help: "Keep both daemons' chains and the load's window times in DIR; a later run with the same DIR resumes the load" },
  { name: "load-only", takesValue: false, help: "Stop after the load (with --load-dir: a load longer than one sitting)" },
];

interface LoadWindow {
  from: number;
  n: number;
  ms: Record<Impl, number>;
}

/** What --load-dir keeps between runs: the chain it loads and the windows timed so far. */
interface LoadRecord {
  chain: string;
  sittings: number;
  windows: LoadWindow[];
}

function readLoadRecord(dir: string, chain: string): LoadRecord {
  const f = join(dir, "load.json");
  if (!existsSync(f)) return { chain, sittings: 0, windows: [] };
  const r = JSON.parse(readFileSync(f, "utf8")) as LoadRecord;
  if (r.chain !== chain) throw new Error(`${dir} holds a load of ${r.chain}, not of ${chain}: give another --load-dir`);
  return r;
}

function writeLoadRecord(dir: string, r: LoadRecord): void {
  const f = join(dir, "load.json");
  writeFileSync(`${f}.tmp`, `${JSON.stringify(r)}\n`);
  renameSync(`${f}.tmp`, f);
}

const WALLET_PORT = 29170;

interface Daemon {
  impl: Impl;
  dataDir: string;
  proc?: Proc;
  port: number;
  peakRss: number;
}

/** `warmup`: tsmonerod's start-up RPC warm-up (node/rpc/warmup.ts) as the launcher does it, or off (TSMONERO_RPC_WARMUP=0). */
function start(d: Daemon, warmup = true): Proc {
  const p = PORTS[d.impl];
  const common = [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", d.dataDir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(p.rpc),
    "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p.p2p), "--no-zmq", "--non-interactive", "--log-level", "0", "--db-sync-mode", SYNC_MODE,
    // regtest wipes the chain at start without it, in both
    "--keep-fakechain",
  ];
  // stop() removes a Proc's dir: each run gets a scratch one, the chain stays in dataDir
  const scratch = mkdtempSync(join(tmpdir(), `tsmonero-bench-scale-${d.impl}-run-`));
  d.proc =
    d.impl === "monerod"
      ? launch("monerod", "/usr/bin/monerod", common, scratch)
      : launch("tsmonerod", join(ROOT, "bin/tsmonerod"), common, scratch, { TSMONERO_HASH_TRIVIAL_POW: "1", ...(warmup ? {} : { TSMONERO_RPC_WARMUP: "0" }) });
  return d.proc;
}

function dropPageCache(): boolean {
  try {
    writeFileSync("/proc/sys/vm/drop_caches", "1\n");
    return true;
  } catch {
    return false;
  }
}

/** A seeded shuffle, so both daemons read in the same order. */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const next = seededRandom(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function cacheTotals(port: number): Promise<{ hits: number; misses: number }> {
  const r = (await rpc(port, "get_cache_stats")) as { caches?: { hits: number; misses: number }[] };
  return (r.caches ?? []).reduce((s, c) => ({ hits: s.hits + c.hits, misses: s.misses + c.misses }), { hits: 0, misses: 0 });
}

type Read = (port: number) => Promise<boolean>;

interface ReadRow {
  name: string;
  reads: Read[];
}

interface ReadResult {
  rate: number;
  errors: number;
  hitRate?: number;
  /** The daemon's CPU (every thread) per read, µs, and its major page faults (disk reads) per read. */
  cpuUs: number;
  faults: number;
}

/** The CPU and fault cells of a read row: tsmonerod / monerod; "—" for a row of too few reads for /proc's 10 ms CPU ticks. */
const perRead = (t: ReadResult, m: ReadResult, reads: number): [string, string] =>
  reads < 100 ? ["—", "—"] : [`${t.cpuUs.toFixed(0)} / ${m.cpuUs.toFixed(0)}`, `${t.faults.toFixed(2)} / ${m.faults.toFixed(2)}`];

/** Runs `reads` in order at concurrency 1: req/s, errors, the daemon's CPU and page faults per read, and tsmonerod's cache hit rate over the row. */
async function timeReads(d: Daemon, reads: readonly Read[]): Promise<ReadResult> {
  const before = d.impl === "tsmonerod" ? await cacheTotals(d.port) : undefined;
  let errors = 0;
  const c0 = processStat(d.proc?.proc.pid);
  const t0 = performance.now();
  for (const r of reads) if (!(await r(d.port))) errors++;
  const secs = (performance.now() - t0) / 1000;
  const c1 = processStat(d.proc?.proc.pid);
  let hitRate: number | undefined;
  if (before) {
    const after = await cacheTotals(d.port);
    const hits = after.hits - before.hits;
    const all = hits + after.misses - before.misses;
    hitRate = all > 0 ? hits / all : 0;
  }
  return { rate: reads.length / secs, errors, hitRate, cpuUs: (1000 * ((c1?.cpuMs ?? 0) - (c0?.cpuMs ?? 0))) / reads.length, faults: ((c1?.majorFaults ?? 0) - (c0?.majorFaults ?? 0)) / reads.length };
}

/** The first failed read's answer or error, per port, for the report. */
const firstFailure = new Map<number, string>();
const okStatus = (port: number, what: string, j: unknown): boolean => {
  const good = (j as { status?: string }).status === "OK";
  if (!good && !firstFailure.has(port)) firstFailure.set(port, `${what}: ${JSON.stringify(j).slice(0, 300)}`);
  return good;
};
/** get_block_count calls to each daemon before the cold rows (the bench client's own warm-up). */
const CLIENT_WARMUP = 500;

const okResult = async (port: number, method: string, params: unknown): Promise<boolean> => {
  try {
    return okStatus(port, method, await rpc(port, method, params));
  } catch (e) {
    return okStatus(port, method, { error: String(e) });
  }
};
const okPath = async (port: number, path: string, body: unknown): Promise<boolean> => {
  try {
    return okStatus(port, path, await post(port, path, body));
  } catch (e) {
    return okStatus(port, path, { error: String(e) });
  }
};

async function run(args: ParsedArgs): Promise<void> {
  const dir = chainDir(args);
  if (!existsSync(join(dir, "meta.json"))) throw new Error(`no chain artifact in ${dir}: make one with \`npm run bench -- chain\``);
  const meta = readMeta(dir);
  const blocks = Math.min(meta.blocks, Number(flagString(args, "scale-blocks") ?? meta.blocks));
  const maxReads = Number(flagString(args, "reads") ?? 20_000);
  const be = defaultBackend();
  const loadDir = flagString(args, "load-dir");
  const dataDir = (impl: Impl): string => {
    if (loadDir === undefined) return mkdtempSync(join(tmpdir(), `tsmonero-bench-scale-${impl === "tsmonerod" ? "ts" : impl}-`));
    const d = join(loadDir, impl);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const daemons: Record<Impl, Daemon> = {
    tsmonerod: { impl: "tsmonerod", dataDir: dataDir("tsmonerod"), port: PORTS.tsmonerod.rpc, peakRss: 0 },
    monerod: { impl: "monerod", dataDir: dataDir("monerod"), port: PORTS.monerod.rpc, peakRss: 0 },
  };
  const record: LoadRecord = loadDir === undefined ? { chain: dir, sittings: 0, windows: [] } : readLoadRecord(loadDir, dir);
  let stopAsked = false;
  const onSignal = (): void => {
    stopAsked = true;
    progress("stopping after the current window");
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const all = IMPLS.map((i) => daemons[i]);
  const sampleRss = (): void => {
    for (const d of all) d.peakRss = Math.max(d.peakRss, processRssMiB(d.proc?.proc.pid).peak);
  };
  try {
    for (const d of all) start(d);
    for (const d of all) if (d.proc) await waitAnswer(d.proc, d.port, "get_info");

    // ---- load, in alternating windows; with --load-dir, from where the kept chains stop
    const windows = record.windows;
    let next = 1;
    if (loadDir !== undefined) {
      const counts = await Promise.all(all.map(async (d) => Number((await rpc(d.port, "get_block_count")).count)));
      const reach = Math.min(...counts);
      // the last whole window both daemons hold (a sitting stopped by a kill may have lost its last blocks)
      while (windows.length > 0 && windows[windows.length - 1].from + windows[windows.length - 1].n > reach) windows.pop();
      next = windows.length === 0 ? 1 : windows[windows.length - 1].from + windows[windows.length - 1].n;
      for (const [k, d] of all.entries()) {
        if (counts[k] > next) {
          const r = (await post(d.port, "/pop_blocks", { nblocks: counts[k] - next })) as { status?: string };
          if (r.status !== "OK") throw new Error(`${d.impl} did not pop back to height ${next}: ${JSON.stringify(r)}`);
        }
        await rpc(d.port, "flush_txpool");
      }
      if (next > 1) progress(`resuming the load at height ${next} (${windows.length} windows kept in ${loadDir})`);
    }
    let sitting = false;
    progress(`loading ${blocks} blocks into both daemons in windows of ${WINDOW}`);
    let txCount = 0;
    const txIds: string[] = [];
    let batch: { block: string; txs: string[] }[] = [];
    const flush = async (from: number): Promise<void> => {
      const ms = { tsmonerod: 0, monerod: 0 } as Record<Impl, number>;
      const order = windows.length % 2 === 0 ? all : [...all].reverse();
      for (const d of order) {
        const t0 = performance.now();
        for (const [i, b] of batch.entries()) {
          for (const t of b.txs) {
            const r = (await post(d.port, "/send_raw_transaction", { tx_as_hex: t, do_not_relay: true })) as { status?: string; reason?: string };
            if (r.status !== "OK") throw new Error(`${d.impl} refused a tx of block ${from + i}: ${JSON.stringify(r)}`);
          }
          const r = await rpc(d.port, "submit_block", [b.block]);
          if (r.status !== "OK") throw new Error(`${d.impl} refused block ${from + i}: ${JSON.stringify(r)}`);
        }
        ms[d.impl] = (performance.now() - t0) / batch.length;
      }
      sampleRss();
      windows.push({ from, n: batch.length, ms });
      if (!sitting) {
        sitting = true;
        record.sittings++;
      }
      if (loadDir !== undefined) writeLoadRecord(loadDir, record);
      batch = [];
    };
    let windowStart = 1;
    for (const rec of readChain(dir, blocks)) {
      if (batch.length === 0) windowStart = rec.height;
      txCount += rec.txs.length;
      for (const t of rec.txs) txIds.push(Buffer.from(txHash(parseTransaction(t), be)).toString("hex"));
      if (rec.height < next) continue;
      batch.push({ block: Buffer.from(rec.block).toString("hex"), txs: rec.txs.map((t) => Buffer.from(t).toString("hex")) });
      if (batch.length === WINDOW || rec.height === blocks) {
        if (stopAsked) break;
        await flush(windowStart);
        if (windows.length % 4 === 0) progress(`loaded ${rec.height} / ${blocks}`);
      }
    }
    if (stopAsked || flagSet(args, "load-only")) {
      const at = windows.length === 0 ? 0 : windows[windows.length - 1].from + windows[windows.length - 1].n - 1;
      progress(`load stopped at height ${at} of ${blocks}${loadDir === undefined ? "" : `; run again with --load-dir ${loadDir} to go on`}`);
      return;
    }
    const outputs = await outputCount(daemons.monerod.port);

    // ---- storage and memory after the load
    const storage = all.map((d) => {
      const f = join(d.dataDir, "fake", "lmdb", "data.mdb");
      const st = existsSync(f) ? statSync(f) : undefined;
      const rss = processRssMiB(d.proc?.proc.pid);
      return { impl: d.impl, allocated: st ? st.blocks * 512 : 0, length: st?.size ?? 0, rss: rss.now, peak: Math.max(d.peakRss, rss.peak) };
    });

    // ---- restart cold: both stopped, the page cache dropped, both started; tsmonerod with or without its warm-up
    let dropped = false;
    const startMs = { tsmonerod: 0, monerod: 0 } as Record<Impl, number>;
    let warmupMs = 0;
    const restart = async (warmup: boolean): Promise<void> => {
      for (const d of all) await stop(d.proc);
      dropped = dropPageCache();
      for (const d of all) {
        const t0 = performance.now();
        const p = start(d, warmup);
        await waitAnswer(p, d.port, "get_block_count", 600_000);
        startMs[d.impl] = performance.now() - t0;
        if (d.impl === "tsmonerod" && warmup) {
          // the rows start once tsmonerod says its warm-up is over (get_cache_stats' rpc_warmup)
          for (;;) {
            const st = ((await rpc(d.port, "get_cache_stats")) as { rpc_warmup?: string }).rpc_warmup;
            if (st !== "running") {
              if (st !== "done") throw new Error(`tsmonerod's RPC warm-up did not run to its end: ${st}`);
              break;
            }
            await new Promise((r) => setTimeout(r, 50));
          }
          warmupMs = performance.now() - t0 - startMs[d.impl];
        }
      }
      // the bench's own client is freshly compiled code too: without this, the first cold row paid the
      // client's JIT for whichever daemon went first (tsmonerod). The same count of get_block_count
      // calls to each daemon, which reads none of the data the rows read
      for (const d of all) for (let i = 0; i < CLIENT_WARMUP; i++) await okResult(d.port, "get_block_count", {});
    };

    // ---- reads
    const sample = <T>(xs: readonly T[], seed: number): T[] => shuffled(xs, seed).slice(0, maxReads);
    const heights = sample(Array.from({ length: blocks + 1 }, (_, h) => h), 1);
    const txs = sample(txIds, 2);
    const outs = sample(Array.from({ length: outputs }, (_, i) => i), 3);
    const rows: ReadRow[] = [
      { name: `get_block_header_by_height (${heights.length} heights)`, reads: heights.map((h) => (port) => okResult(port, "get_block_header_by_height", { height: h })) },
      { name: `get_block by height (${heights.length})`, reads: heights.map((h) => (port) => okResult(port, "get_block", { height: h })) },
      { name: `/get_transactions, 1 tx (${txs.length} txs)`, reads: txs.map((t) => (port) => okPath(port, "/get_transactions", { txs_hashes: [t] })) },
      { name: `/get_outs, 1 output (${outs.length} outputs)`, reads: outs.map((i) => (port) => okPath(port, "/get_outs", { outputs: [{ amount: 0, index: i }], get_txid: true })) },
      {
        name: "get_output_distribution, amount 0, whole chain, cumulative",
        reads: [(port) => okResult(port, "get_output_distribution", { amounts: [0], from_height: 0, to_height: 0, cumulative: true, binary: false })],
      },
    ];
    const readTable: string[][] = [];
    // first both restarted with tsmonerod's warm-up off, then both again as launched by default
    for (const pass of ["cold, tsmonerod without warm-up", "cold", "warm"] as const) {
      if (pass !== "warm") await restart(pass === "cold");
      for (const [k, row] of rows.entries()) {
        const got = {} as Record<Impl, ReadResult>;
        const order = k % 2 === 0 ? all : [...all].reverse();
        for (const d of order) {
          progress(`${pass}: ${row.name} on ${d.impl}`);
          got[d.impl] = await timeReads(d, row.reads);
        }
        sampleRss();
        const t = got.tsmonerod;
        const m = got.monerod;
        const errs = t.errors + m.errors > 0 ? ` (errors: tsmonerod ${t.errors}, monerod ${m.errors})` : "";
        const fmt = (r: number): string => (row.reads.length === 1 ? `${(1000 / r).toFixed(1)} ms` : `${r.toFixed(0)}/s`);
        readTable.push([pass, `${row.name}${errs}`, fmt(t.rate), fmt(m.rate), formatRatio(t.rate / m.rate), ...perRead(t, m, row.reads.length), t.hitRate === undefined ? "—" : `${(100 * t.hitRate).toFixed(0)} %`]);
      }
    }

    // ---- random /get_outs batches of 10, as decoy picks
    const rand = shuffled(Array.from({ length: outputs }, (_, i) => i), 4);
    const batches: Read[] = [];
    for (let i = 0; i + 10 <= rand.length && batches.length < 2000; i += 10) {
      const idx = rand.slice(i, i + 10);
      batches.push((port) => okPath(port, "/get_outs", { outputs: idx.map((index) => ({ amount: 0, index })), get_txid: true }));
    }
    const randomRow = {} as Record<Impl, ReadResult>;
    for (const d of all) randomRow[d.impl] = await timeReads(d, batches);
    // both daemons have now served the same reads since their last restart: a like-for-like RSS in any sitting
    const rssAfterReads = Object.fromEntries(all.map((d) => [d.impl, processRssMiB(d.proc?.proc.pid).now])) as Record<Impl, number>;
    readTable.push([
      "random",
      `/get_outs, 10 random outputs of ${outputs} (${batches.length} requests)`,
      `${randomRow.tsmonerod.rate.toFixed(0)}/s`,
      `${randomRow.monerod.rate.toFixed(0)}/s`,
      formatRatio(randomRow.tsmonerod.rate / randomRow.monerod.rate),
      ...perRead(randomRow.tsmonerod, randomRow.monerod, batches.length),
      `${(100 * (randomRow.tsmonerod.hitRate ?? 0)).toFixed(0)} %`,
    ]);
    sampleRss();

    // ---- wallets: restore from the owner's keys at height 0 and refresh the whole chain
    const walletRows: string[][] = [];
    if (!flagSet(args, "no-wallets")) {
      const pairs: { wallet: "monero-wallet-rpc" | "tsmonero-wallet-rpc"; daemon: Daemon }[] = [
        { wallet: "monero-wallet-rpc", daemon: daemons.monerod },
        { wallet: "tsmonero-wallet-rpc", daemon: daemons.monerod },
        { wallet: "tsmonero-wallet-rpc", daemon: daemons.tsmonerod },
      ];
      const base: Record<string, number> = {};
      let expected: number | undefined;
      for (const oneCore of [true, false]) {
        for (const pair of pairs) {
          progress(`wallet: ${pair.wallet} refreshing from ${pair.daemon.impl}${oneCore ? " (wallet on cpu 0, daemon on cpu 1)" : ""}`);
          const r = await refreshWallet(pair.wallet, { port: pair.daemon.port, pid: pair.daemon.proc?.proc.pid }, meta, { oneCore, port: WALLET_PORT });
          const key = `${oneCore}`;
          if (pair.wallet === "monero-wallet-rpc") base[key] = r.secs;
          // the whole artifact says how many outputs pay the owner; a prefix is checked against the first wallet
          expected ??= blocks === meta.blocks ? meta.ownedOutputs : r.found;
          const found = r.found === expected ? `${r.found}` : `${r.found} (≠ ${expected}!)`;
          walletRows.push([
            oneCore ? "1 (cpu 0; daemon on cpu 1)" : "all",
            `${pair.wallet} ← ${pair.daemon.impl}`,
            r.secs.toFixed(1),
            (outputs / r.secs).toFixed(0),
            found,
            (base[key] / r.secs).toFixed(2),
            `${r.walletCpu.toFixed(1)} / ${r.daemonCpu.toFixed(1)}`,
            ((r.walletCpu + r.daemonCpu) / r.secs).toFixed(2),
            r.rss.toFixed(0),
            r.balanceMs.toFixed(1),
            `${r.transfersMs.toFixed(0)} (${r.transfers})`,
          ]);
        }
      }
    }

    // ---- report
    const first = windows.find((w) => w.from >= 1000) ?? windows[0];
    const last = windows[windows.length - 1];
    const mib = (b: number): string => (b / 2 ** 20).toFixed(1);
    const out: string[] = [];
    out.push(`## scale — tsmonerod and monerod on the same ${blocks}-block regtest chain (${txCount} txs, ${outputs} outputs)\n`);
    out.push(`${machineLine()}\n`);
    out.push(`Chain: ${dir} (bench/lib/big-chain.ts; ${meta.blocks} blocks built, plan ${meta.plan.blocks}). Both daemons: --regtest --offline --fixed-difficulty 1 --db-sync-mode ${SYNC_MODE}; tsmonerod hashes every block's PoW as monerod does (TSMONERO_HASH_TRIVIAL_POW=1).\n`);
    if (record.sittings > 1) out.push(`The load was timed over ${record.sittings} sittings (--load-dir ${loadDir ?? ""}): each window is timed whole within one sitting, on both daemons alike; RSS after the load is the last sitting's processes.\n`);
    out.push("### Load: send_raw_transaction of each tx, then submit_block (both verify everything)\n");
    out.push(
      markdownTable(
        [{ header: "window" }, { header: "tsmonerod ms/block", align: "right" }, { header: "monerod ms/block", align: "right" }, { header: "tsmonerod / monerod time", align: "right" }],
        [first, last].map((w) => [`heights ${w.from}–${w.from + w.n - 1}`, w.ms.tsmonerod.toFixed(2), w.ms.monerod.toFixed(2), (w.ms.tsmonerod / w.ms.monerod).toFixed(2)]).concat([
          ["growth (last / first window)", (last.ms.tsmonerod / first.ms.tsmonerod).toFixed(2), (last.ms.monerod / first.ms.monerod).toFixed(2), "goal for tsmonerod: ≤ 1.20"],
          [
            "whole load (s)",
            (windows.reduce((s, w) => s + w.ms.tsmonerod * w.n, 0) / 1000).toFixed(1),
            (windows.reduce((s, w) => s + w.ms.monerod * w.n, 0) / 1000).toFixed(1),
            (windows.reduce((s, w) => s + w.ms.tsmonerod * w.n, 0) / windows.reduce((s, w) => s + w.ms.monerod * w.n, 0)).toFixed(2),
          ],
        ]),
      ),
    );
    out.push("\n### Storage and memory after the load\n");
    const s = Object.fromEntries(storage.map((x) => [x.impl, x])) as Record<Impl, (typeof storage)[number]>;
    out.push(
      markdownTable(
        [{ header: "" }, { header: "tsmonerod", align: "right" }, { header: "monerod", align: "right" }, { header: "ratio", align: "right" }],
        [
          ["LMDB data.mdb, allocated on disk (MiB)", mib(s.tsmonerod.allocated), mib(s.monerod.allocated), (s.tsmonerod.allocated / s.monerod.allocated).toFixed(2)],
          ["LMDB data.mdb, file length (MiB)", mib(s.tsmonerod.length), mib(s.monerod.length), (s.tsmonerod.length / s.monerod.length).toFixed(2)],
          [
            sitting ? "RSS after the load (MiB)" : "RSS after opening the kept chains (MiB; no block loaded in this sitting: idle processes, not the load's)",
            s.tsmonerod.rss.toFixed(0),
            s.monerod.rss.toFixed(0),
            (s.tsmonerod.rss / s.monerod.rss).toFixed(2),
          ],
          ["RSS after the reads below (MiB; restarted, warm-up, cold, warm and random reads, the same on both)", rssAfterReads.tsmonerod.toFixed(0), rssAfterReads.monerod.toFixed(0), (rssAfterReads.tsmonerod / rssAfterReads.monerod).toFixed(2)],
          [sitting ? "peak RSS, load and reads (MiB)" : "peak RSS, reads (MiB)", Math.max(s.tsmonerod.peak, daemons.tsmonerod.peakRss).toFixed(0), Math.max(s.monerod.peak, daemons.monerod.peakRss).toFixed(0), (Math.max(s.tsmonerod.peak, daemons.tsmonerod.peakRss) / Math.max(s.monerod.peak, daemons.monerod.peakRss)).toFixed(2)],
          [`restart → first answer (ms; page cache ${dropped ? "dropped" : "not dropped: no permission"})`, startMs.tsmonerod.toFixed(0), startMs.monerod.toFixed(0), (startMs.tsmonerod / startMs.monerod).toFixed(2)],
          ["first answer → end of tsmonerod's RPC warm-up (ms; the cold rows start after it)", warmupMs.toFixed(0), "—", "monerod has none"],
        ],
      ),
    );
    out.push(
      `\n### Reads after the restart, concurrency 1 (cold: each read once, in random order; warm: the same again)\n\nBefore the cold rows, ${CLIENT_WARMUP} get_block_count calls to each daemon warm the bench's own client (its JIT), and touch no data the rows read. Both daemons are restarted (page cache dropped) before each cold pass: first with tsmonerod's start-up RPC warm-up turned off (TSMONERO_RPC_WARMUP=0), then as launched by default, where the rows start once tsmonerod reports its warm-up over. The warm-up reads random heights, txs and outputs over loopback and empties every cache when it ends: its effect is on the code (V8's optimized tiers), not on the data, as the hit column shows.\n`,
    );
    out.push(
      markdownTable(
        [{ header: "pass" }, { header: "row" }, { header: "tsmonerod", align: "right" }, { header: "monerod", align: "right" }, { header: "ratio (>1: tsmonerod faster)", align: "right" },
          { header: "daemon CPU per read, µs (ts / monerod)", align: "right" },
          { header: "disk reads (major faults) per read (ts / monerod)", align: "right" },
          { header: "tsmonerod cache lookups that hit", align: "right" },
        ],
        readTable,
      ),
    );
    if (walletRows.length > 0) {
      out.push(`\n### Wallet restore and refresh of the whole chain from height 0 (generate_from_keys with the chain owner's keys, then refresh, timed together; both wallets --daemon-ssl disabled)\n`);
      out.push(`The CPU columns are each process's CPU time (all threads) over the same span. "Cores busy" is their sum over the seconds: on one core (the wallet pinned to cpu 0, the daemon to cpu 1) up to 2; on all cores of this ${availableParallelism()}-core machine, a value near ${availableParallelism()} means the wallet and the daemon together used every core, so a shorter time needs less CPU, not more parallelism.\n`);
      out.push(
        markdownTable(
          [
            { header: "cores" },
            { header: "wallet ← daemon" },
            { header: "seconds", align: "right" },
            { header: "chain outputs/s", align: "right" },
            { header: "outputs found", align: "right" },
            { header: "speed vs monero-wallet-rpc", align: "right" },
            { header: "CPU s, wallet / daemon", align: "right" },
            { header: "cores busy ((wallet + daemon CPU) / seconds)", align: "right" },
            { header: "wallet peak RSS (MiB)", align: "right" },
            { header: "get_balance ms", align: "right" },
            { header: "get_transfers in+out ms (transfers)", align: "right" },
          ],
          walletRows,
        ),
      );
    }
    for (const d of all) {
      const f = firstFailure.get(d.port);
      if (f) out.push(`\n${d.impl}'s first failed read: ${f}`);
    }
    process.stdout.write(`${out.join("\n")}\n`);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    for (const d of all) await stop(d.proc);
    if (loadDir === undefined) for (const d of all) rmSync(d.dataDir, { recursive: true, force: true });
  }
}

/** RingCT outputs in the chain, from monerod's output histogram. */
async function outputCount(port: number): Promise<number> {
  const r = await rpc(port, "get_output_histogram", { amounts: [0], min_count: 0, max_count: 0, unlocked: false, recent_cutoff: 0 });
  const h = (r.histogram as { total_instances: number }[] | undefined)?.[0];
  return h?.total_instances ?? 0;
}

export const suite: BenchSuite = {
  name: "scale",
  summary: "tsmonerod and monerod on the large chain artifact: load cost by height, LMDB size, RSS, cold and warm reads with cache hit rates",
  flags: FLAGS,
  run,
};
