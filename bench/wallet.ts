/**
 * `npm run bench -- wallet`: tsmonero-wallet-rpc next to monero-wallet-rpc (Debian package `monero`),
 * both measured in the same run, on the same machine, against the same real monerod and chain.
 *
 * The chain: test/fixtures/chain (333 blocks, 154 txs made by real wallets) replayed into
 * `monerod --regtest --offline --fixed-difficulty 1` (ports 29350-29369), then --extra-blocks more
 * mined to bob (owned coinbase outputs all along the chain). The rows (issue 7's goals):
 *   restore + full refresh   restore_deterministic_wallet (alice, restore_height 0) + refresh, blocks/s
 *                            (height / wall time, median of --repeats fresh restores); goal ≥ 2× the real wallet
 *   get_balance, get_address, get_transfers (in+out, all accounts) req/s at concurrency 1 and 32,
 *                                after an uncounted warm-up of the same calls (min(1 s, half a row))
 *                            (keep-alive HTTP, --seconds per row); goal ≥ 1×
 *   get_balance latency while rescan_blockchain runs (sequential calls from another connection
 *                            for the whole rescan): median and p99, goal < 50 ms
 *   sends (issue 12's goals): bob restored at the recorded top; transfer with 1 and 2 destinations,
 *                            transfer_split with 16, sweep_all of 50 inputs (all other outputs frozen),
 *                            each with do_not_relay (built, proved and signed; not relayed), ms per
 *                            call, median of 7 after one uncounted call; goal ≤ half the real wallet's time. tsmonero's kernel proves
 *                            Bulletproofs+ on two threads; each send row is repeated with
 *                            TSMONERO_PROVER_THREADS=1 (one core, as wallet2) on a fresh wallet process
 *   reserve proofs (issue 17's goals): bob's get_reserve_proof over all his outputs (the extra
 *                            blocks' coinbase outputs, before the sweep row freezes them) and
 *                            check_reserve_proof of it, ms per call, median of 3; goal ≤ half
 *   key images (issue 17): bob's export_key_images (all), then import_key_images of them into a
 *                            fresh view-only wallet of bob, ms per call, median of 3; goal ≤ half for the import
 * Each implementation runs alone (the other one is stopped) so they do not share the 2 cores.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "../test/helpers/chain.js";
import { median, quantile, formatRatio } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";

const DAEMON_RPC = 29350;
const DAEMON_P2P = 29351;
const WALLET_PORT = { tsmonero: 29361, real: 29362 } as const;
type Impl = keyof typeof WALLET_PORT;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
/** Where the send rows pay to (carol: no wallet under test). */
const CAROL = "42C1Dp59SFVM1VzBdzc7xJFkEmNGvKLSVMFU3cuhvvAJFwtQjUCMkV1XisaXJPUfKU6drNCSHx59kNn4iCNcqTGXMzNbksS";

const FLAGS: readonly FlagSpec[] = [
  { name: "extra-blocks", takesValue: true, help: "Blocks mined to bob after the recorded chain", defaultValue: "1000" },
  { name: "repeats", takesValue: true, help: "Fresh restores timed per implementation (median)", defaultValue: "3" },
  { name: "seconds", takesValue: true, help: "Seconds per req/s row", defaultValue: "3" },
  { name: "quick", takesValue: false, help: "300 extra blocks, 1 restore, 1 s per req/s row (noisier figures)" },
  { name: "subject", takesValue: true, help: "'real' runs monero-wallet-rpc in tsmonero's place (checks the bench itself)", defaultValue: "tsmonero" },
];

// ---------------------------------------------------------------------------------------------
// JSON-RPC over keep-alive HTTP (one agent per target, up to 32 sockets)

export const agents = new Map<number, http.Agent>();
function agent(port: number): http.Agent {
  let a = agents.get(port);
  if (!a) {
    a = new http.Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(port, a);
  }
  return a;
}

export function post(port: number, path: string, body: unknown, timeoutMs = 600_000): Promise<unknown> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: "POST", agent: agent(port), timeout: timeoutMs, headers: { "Content-Type": "application/json", "Content-Length": data.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) return reject(new Error(`${path} on ${port}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${path} on ${port}: timed out`)));
    req.on("error", reject);
    req.end(data);
  });
}

interface RpcReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export async function rpc(port: number, method: string, params: unknown = {}, timeoutMs?: number): Promise<Record<string, unknown>> {
  const j = (await post(port, "/json_rpc", { jsonrpc: "2.0", id: "0", method, params }, timeoutMs)) as RpcReply;
  if (j.error) throw new Error(`${method} on ${port}: ${j.error.message} (${j.error.code})`);
  return j.result ?? {};
}

// ---------------------------------------------------------------------------------------------
// processes

export interface Proc {
  name: string;
  proc: ChildProcess;
  dir: string;
  output: string[];
}

export function launch(name: string, bin: string, args: string[], dir: string, env?: NodeJS.ProcessEnv): Proc {
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env: env ? { ...process.env, ...env } : process.env });
  const output: string[] = [];
  const keep = (b: Buffer): void => {
    output.push(b.toString());
    if (output.length > 100) output.shift();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  return { name, proc, dir, output };
}

export async function stop(p: Proc | undefined): Promise<void> {
  if (!p) return;
  if (p.proc.exitCode === null && p.proc.signalCode === null) {
    const gone = new Promise((r) => p.proc.once("exit", r));
    p.proc.kill("SIGTERM");
    const t = setTimeout(() => p.proc.kill("SIGKILL"), 8000);
    await gone;
    clearTimeout(t);
  }
  rmSync(p.dir, { recursive: true, force: true });
}

export async function waitAnswer(p: Proc, port: number, method: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (p.proc.exitCode !== null) throw new Error(`${p.name} exited ${p.proc.exitCode}: ${p.output.join("").slice(-1500)}`);
    try {
      await rpc(port, method);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${p.name} did not answer in ${ms} ms: ${String(e)}`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function startWallet(impl: Impl, binary: Impl, env?: NodeJS.ProcessEnv): Proc {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-bench-wallet-${impl}-`));
  const flags = [
    "--wallet-dir", dir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${DAEMON_RPC}`, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(WALLET_PORT[impl]), "--log-file", join(dir, "wallet.log"), "--non-interactive",
  ];
  return binary === "real"
    ? launch(`monero-wallet-rpc (${impl} slot)`, "/usr/bin/monero-wallet-rpc", flags, dir)
    : launch("tsmonero-wallet-rpc", process.execPath, [join(ROOT, "bin", "tsmonero-wallet-rpc"), ...flags], dir, env);
}

// ---------------------------------------------------------------------------------------------
// measurements

interface Figures {
  restoreBps: number[];
  rps: Record<string, number>;
  rescanLatencyMs: number[];
  rescanSeconds: number;
  resets: Record<string, number>;
  /** ms per call of each send row (do_not_relay: built and signed, not relayed). */
  sendMs: Record<string, number[]>;
  /** The same rows with TSMONERO_PROVER_THREADS=1 (tsmonero only: its prover then uses one core, as wallet2's). */
  sendMs1?: Record<string, number[]>;
  /** ms per call of the reserve proof and key image rows, and how many outputs the proof covered. */
  proofMs: Record<string, number[]>;
  /** How many key images the key image rows moved. */
  keyImages?: number;
  /** import_key_images with TSMONERO_PROVER_THREADS=1 (the kernel's batch check on one thread). */
  keyImageMs1?: number[];
  proofOutputs: number;
  error?: string;
}

async function restoreAndRefresh(port: number, filename: string, height: number): Promise<number> {
  const t0 = performance.now();
  await rpc(port, "restore_deterministic_wallet", { filename, seed: WALLET_SEEDS.alice, password: "", restore_height: 0, language: "English" });
  await rpc(port, "refresh", {});
  const s = (performance.now() - t0) / 1000;
  const h = Number((await rpc(port, "get_height")).height);
  if (h !== height) throw new Error(`${filename}: wallet height ${h} after refresh, daemon ${height}`);
  return height / s;
}

/** A connection the server dropped (monero-wallet-rpc resets some under 32 concurrent callers). */
const dropped = (e: unknown): boolean => /ECONNRESET|EPIPE|socket hang up/.test(String(e));

/**
 * Requests per second of `method` with `concurrency` callers for `seconds`; answered requests only.
 * A dropped connection is counted in `resets` and the caller goes on with a new one.
 */
async function reqPerSecond(port: number, method: string, params: unknown, concurrency: number, seconds: number): Promise<{ rps: number; resets: number }> {
  for (let i = 0; i < 3; i++) await rpc(port, method, params); // warm the connection and caches
  let done = 0;
  let resets = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        try {
          await rpc(port, method, params);
          done++;
        } catch (e) {
          if (!dropped(e) || ++resets > 10_000) throw e;
        }
      }
    }),
  );
  return { rps: done / ((performance.now() - t0) / 1000), resets };
}

/** get_balance latencies (ms), called back to back while rescan_blockchain runs. */
async function latencyDuringRescan(port: number): Promise<{ ms: number[]; seconds: number }> {
  const ms: number[] = [];
  let running = true;
  const t0 = performance.now();
  const rescan = rpc(port, "rescan_blockchain", {}).finally(() => {
    running = false;
  });
  await new Promise((r) => setTimeout(r, 20)); // let the rescan start first
  while (running) {
    const t = performance.now();
    await rpc(port, "get_balance", { account_index: 0 });
    ms.push(performance.now() - t);
  }
  await rescan;
  return { ms, seconds: (performance.now() - t0) / 1000 };
}

/**
 * The send rows again on a fresh tsmonero-wallet-rpc with TSMONERO_PROVER_THREADS=1: the kernel's
 * Bulletproofs+ prover then runs on one core, as wallet2's does (by default it splits each round
 * over two threads).
 */
async function measureSendsOneThread(impl: Impl, f: Figures): Promise<void> {
  const port = WALLET_PORT[impl];
  const w = startWallet(impl, "tsmonero", { TSMONERO_PROVER_THREADS: "1" });
  const g: Figures = { restoreBps: [], rps: {}, rescanLatencyMs: [], rescanSeconds: 0, resets: {}, sendMs: {}, proofMs: {}, proofOutputs: 0 };
  try {
    await waitAnswer(w, port, "get_version");
    await measureSends(port, `${impl} (1 prover thread)`, g, false, false, true);
    f.sendMs1 = g.sendMs;
    f.keyImageMs1 = g.proofMs[KEY_IMAGE_ROWS[1]];
  } catch (e) {
    progress(`  ${impl} (1 prover thread): ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await stop(w);
  }
}

const RPS_ROWS: { method: string; params: unknown }[] = [
  { method: "get_balance", params: { account_index: 0 } },
  { method: "get_address", params: { account_index: 0 } },
  { method: "get_transfers", params: { in: true, out: true, all_accounts: true } },
];

async function measure(impl: Impl, binary: Impl, height: number, repeats: number, seconds: number): Promise<Figures> {
  const f: Figures = { restoreBps: [], rps: {}, rescanLatencyMs: [], rescanSeconds: 0, resets: {}, sendMs: {}, proofMs: {}, proofOutputs: 0 };
  const port = WALLET_PORT[impl];
  const w = startWallet(impl, binary);
  try {
    await waitAnswer(w, port, "get_version");
    for (let i = 0; i < repeats; i++) {
      if (i > 0) await rpc(port, "close_wallet", {});
      progress(`  ${impl}: restore + refresh ${i + 1}/${repeats}`);
      f.restoreBps.push(await restoreAndRefresh(port, `alice-${i}`, height));
    }
    for (const { method, params } of RPS_ROWS) {
      // warm-up, not counted: the same calls for a moment (a JIT compiles the handler, the
      // collector clears what the refresh left); both implementations get it
      await reqPerSecond(port, method, params, 1, Math.min(1, seconds / 2));
      for (const c of [1, 32]) {
        progress(`  ${impl}: ${method} at concurrency ${c}`);
        const r = await reqPerSecond(port, method, params, c, seconds);
        f.rps[`${method}/${c}`] = r.rps;
        if (r.resets) f.resets[`${method}/${c}`] = r.resets;
      }
    }
    progress(`  ${impl}: get_balance during rescan_blockchain`);
    const r = await latencyDuringRescan(port);
    f.rescanLatencyMs = r.ms;
    f.rescanSeconds = r.seconds;
    await measureSends(port, impl, f);
  } catch (e) {
    f.error = e instanceof Error ? e.message : String(e);
    progress(`  ${impl}: ${f.error}`);
  } finally {
    await stop(w);
  }
  return f;
}

/** The send rows: each request is built and signed with do_not_relay, so the wallet state stays the same. */
const SEND_ROWS: { label: string; method: string; dests: number; sweep?: boolean }[] = [
  { label: "transfer, 1 destination", method: "transfer", dests: 1 },
  { label: "transfer, 2 destinations", method: "transfer", dests: 2 },
  { label: "transfer_split, 16 destinations (wallet2 makes 2 txs)", method: "transfer_split", dests: 16 },
  { label: "sweep_all of 50 inputs (the rest frozen)", method: "sweep_all", dests: 1, sweep: true },
];
const SEND_REPEATS = 7;

/**
 * bob (who holds the --extra-blocks coinbase outputs) restored from the recorded chain's top; then
 * each send row once uncounted, then SEND_REPEATS times, timed per call. For the sweep, all but 50 unlocked outputs are
 * frozen first (freeze, on both implementations).
 */
async function measureSends(port: number, impl: string, f: Figures, walletOpen = true, withProofs = true, withKeyImages = withProofs): Promise<void> {
  if (walletOpen) await rpc(port, "close_wallet", {});
  progress(`  ${impl}: restoring bob for the send rows`);
  await rpc(port, "restore_deterministic_wallet", { filename: "bob", seed: WALLET_SEEDS.bob, password: "", restore_height: recordedBlocks().length, language: "English" });
  await rpc(port, "auto_refresh", { enable: false });
  await rpc(port, "refresh", {});
  if (withProofs) await measureReserveProofs(port, impl, f);
  if (withKeyImages) await measureKeyImages(port, impl, f);
  for (const row of SEND_ROWS) {
    if (row.sweep) {
      const inc = (await rpc(port, "incoming_transfers", { transfer_type: "available" })) as { transfers?: { key_image: string; unlocked: boolean }[] };
      const unlocked = (inc.transfers ?? []).filter((t) => t.unlocked);
      for (const t of unlocked.slice(50)) await rpc(port, "freeze", { key_image: t.key_image });
    }
    const times: number[] = [];
    const params = row.sweep
      ? { address: CAROL, do_not_relay: true }
      : { destinations: Array.from({ length: row.dests }, (_, k) => ({ address: CAROL, amount: 1_000_000_000 + k })), do_not_relay: true };
    // one uncounted call first, on both implementations (as the req/s rows warm up): what a first
    // call pays once (JIT, caches, connections) is not what the row measures
    progress(`  ${impl}: ${row.label} (warm-up)`);
    await rpc(port, row.method, params);
    for (let i = 0; i < SEND_REPEATS; i++) {
      progress(`  ${impl}: ${row.label} ${i + 1}/${SEND_REPEATS}`);
      const t0 = performance.now();
      await rpc(port, row.method, params);
      times.push(performance.now() - t0);
    }
    f.sendMs[row.label] = times;
  }
}

const PROOF_ROWS = ["get_reserve_proof, all: true", "check_reserve_proof of it"] as const;
const KEY_IMAGE_ROWS = ["export_key_images, all: true (full wallet)", "import_key_images of them (fresh view-only wallet)"] as const;

/**
 * Issue 17's key image rows: bob's full wallet exports all its signed key images (PROOF_REPEATS
 * calls); then, PROOF_REPEATS times, a fresh view-only wallet of bob (generate_from_keys at the
 * recorded top, refreshed, not timed) imports them: every signature checked, one is_key_image_spent
 * for all. bob's full wallet is restored again afterwards for the send rows.
 */
async function measureKeyImages(port: number, impl: string, f: Figures): Promise<void> {
  const exp: number[] = [];
  let ski: unknown[] = [];
  for (let i = 0; i < PROOF_REPEATS; i++) {
    progress(`  ${impl}: export_key_images ${i + 1}/${PROOF_REPEATS}`);
    const t0 = performance.now();
    const r = (await rpc(port, "export_key_images", { all: true })) as { signed_key_images?: unknown[] };
    exp.push(performance.now() - t0);
    ski = r.signed_key_images ?? [];
  }
  f.keyImages = ski.length;
  const viewkey = String((await rpc(port, "query_key", { key_type: "view_key" })).key);
  const imp: number[] = [];
  for (let i = 0; i < PROOF_REPEATS; i++) {
    await rpc(port, "close_wallet", {});
    await rpc(port, "generate_from_keys", { filename: `bob-view-${i}`, address: BOB, viewkey, password: "", restore_height: recordedBlocks().length });
    await rpc(port, "auto_refresh", { enable: false });
    await rpc(port, "refresh", {});
    progress(`  ${impl}: import_key_images of ${ski.length} ${i + 1}/${PROOF_REPEATS}`);
    const t0 = performance.now();
    const r = await rpc(port, "import_key_images", { offset: 0, signed_key_images: ski });
    imp.push(performance.now() - t0);
    if (r.spent === undefined) throw new Error(`import_key_images on ${impl}: no answer`);
  }
  f.proofMs[KEY_IMAGE_ROWS[0]] = exp;
  f.proofMs[KEY_IMAGE_ROWS[1]] = imp;
  await rpc(port, "close_wallet", {});
  await rpc(port, "restore_deterministic_wallet", { filename: "bob-2", seed: WALLET_SEEDS.bob, password: "", restore_height: recordedBlocks().length, language: "English" });
  await rpc(port, "auto_refresh", { enable: false });
  await rpc(port, "refresh", {});
}
const PROOF_REPEATS = 3;

/**
 * Issue 17's reserve proof rows, on bob before anything is frozen: get_reserve_proof over all his
 * outputs (the --extra-blocks coinbase outputs), then check_reserve_proof of that proof by the same
 * wallet; PROOF_REPEATS calls each, timed per call. Each check must answer good.
 */
async function measureReserveProofs(port: number, impl: string, f: Figures): Promise<void> {
  const inc = (await rpc(port, "incoming_transfers", { transfer_type: "available" })) as { transfers?: unknown[] };
  f.proofOutputs = inc.transfers?.length ?? 0;
  const make: number[] = [];
  const check: number[] = [];
  let signature = "";
  for (let i = 0; i < PROOF_REPEATS; i++) {
    progress(`  ${impl}: get_reserve_proof over ${f.proofOutputs} outputs ${i + 1}/${PROOF_REPEATS}`);
    const t0 = performance.now();
    signature = String((await rpc(port, "get_reserve_proof", { all: true, message: "bench" })).signature);
    make.push(performance.now() - t0);
  }
  for (let i = 0; i < PROOF_REPEATS; i++) {
    progress(`  ${impl}: check_reserve_proof ${i + 1}/${PROOF_REPEATS}`);
    const t0 = performance.now();
    const r = await rpc(port, "check_reserve_proof", { address: BOB, message: "bench", signature });
    check.push(performance.now() - t0);
    if (r.good !== true) throw new Error(`check_reserve_proof on ${impl}: not good`);
  }
  f.proofMs[PROOF_ROWS[0]] = make;
  f.proofMs[PROOF_ROWS[1]] = check;
}

// ---------------------------------------------------------------------------------------------

/**
 * Replays test/fixtures/chain into the daemon on `port` (its txs, then each block with submit_block)
 * and mines `extra` blocks to bob; the chain height.
 */
export async function replayRecordedChain(port: number, extra: number): Promise<number> {
  const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t.as_hex]));
  for (const b of recordedBlocks().slice(1)) {
    for (const h of b.tx_hashes) {
      const r = (await post(port, "/send_raw_transaction", { tx_as_hex: txById.get(h), do_not_relay: false })) as { status: string };
      if (r.status !== "OK") throw new Error(`send_raw_transaction ${h}: ${JSON.stringify(r)}`);
    }
    const r = await rpc(port, "submit_block", [b.blob]);
    if (r.status !== "OK") throw new Error(`submit_block ${b.height}`);
  }
  for (let left = extra; left > 0; left -= 100) await rpc(port, "generateblocks", { amount_of_blocks: Math.min(100, left), wallet_address: BOB });
  return Number((await rpc(port, "get_block_count")).count);
}

async function startChain(extra: number): Promise<{ daemon: Proc; height: number }> {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-monerod-"));
  const daemon = launch("monerod", "/usr/bin/monerod", [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(DAEMON_RPC), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(DAEMON_P2P),
    "--no-zmq", "--non-interactive", "--log-level", "0",
  ], dir);
  await waitAnswer(daemon, DAEMON_RPC, "get_info");
  const height = await replayRecordedChain(DAEMON_RPC, extra);
  return { daemon, height };
}

function fmtRate(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? "—" : x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(1);
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const extra = Number(flagString(args, "extra-blocks") ?? (quick ? "300" : "1000"));
  const repeats = Number(flagString(args, "repeats") ?? (quick ? "1" : "3"));
  const seconds = Number(flagString(args, "seconds") ?? (quick ? "1" : "3"));
  const subject: Impl = flagString(args, "subject") === "real" ? "real" : "tsmonero";
  for (const bin of ["/usr/bin/monerod", "/usr/bin/monero-wallet-rpc"]) {
    if (!existsSync(bin)) throw new Error(`bench wallet needs Debian package monero (apt-get install -y monero); missing ${bin}`);
  }
  progress(`wallet: replaying test/fixtures/chain and mining ${extra} blocks into monerod`);
  const { daemon, height } = await startChain(extra);
  let ts: Figures;
  let real: Figures;
  try {
    progress(`wallet: chain height ${height}; measuring ${subject === "real" ? "monero-wallet-rpc (in tsmonero's slot)" : "tsmonero-wallet-rpc"}`);
    ts = await measure("tsmonero", subject, height, repeats, seconds);
    if (subject === "tsmonero") await measureSendsOneThread("tsmonero", ts);
    progress("wallet: measuring monero-wallet-rpc");
    real = await measure("real", "real", height, repeats, seconds);
  } finally {
    await stop(daemon);
    for (const a of agents.values()) a.destroy();
  }

  const rows: string[][] = [];
  const mark = (ok: boolean | undefined) => (ok === undefined ? "—" : ok ? "met" : "NOT met");
  const ratio = (a: number | undefined, b: number | undefined) => (a && b ? a / b : undefined);
  const tsB = ts.restoreBps.length ? median(ts.restoreBps) : undefined;
  const rlB = real.restoreBps.length ? median(real.restoreBps) : undefined;
  const rB = ratio(tsB, rlB);
  rows.push([`restore + full refresh, ${height} blocks (blocks/s, median of ${repeats})`, fmtRate(tsB), fmtRate(rlB), rB ? formatRatio(rB) : "—", "≥ 2×", mark(rB === undefined ? (ts.error ? false : undefined) : rB >= 2)]);
  for (const { method } of RPS_ROWS) {
    for (const c of [1, 32]) {
      const a = ts.rps[`${method}/${c}`];
      const b = real.rps[`${method}/${c}`];
      const r = ratio(a, b);
      rows.push([`${method} req/s, concurrency ${c}`, fmtRate(a), fmtRate(b), r ? formatRatio(r) : "—", "≥ 1×", mark(r === undefined ? (ts.error ? false : undefined) : r >= 1)]);
    }
  }
  const lat = (f: Figures, q: number) => (f.rescanLatencyMs.length ? quantile(f.rescanLatencyMs, q) : undefined);
  const ms = (x: number | undefined) => (x === undefined ? "—" : `${x.toFixed(1)} ms`);
  for (const [label, q] of [["median", 0.5], ["p99", 0.99]] as const) {
    const a = lat(ts, q);
    const b = lat(real, q);
    rows.push([`get_balance latency during rescan_blockchain, ${label}`, ms(a), ms(b), a && b ? formatRatio(a / b) : "—", "< 50 ms", mark(a === undefined ? (ts.error ? false : undefined) : a < 50)]);
  }

  for (const row of SEND_ROWS) {
    const a = ts.sendMs[row.label]?.length ? median(ts.sendMs[row.label]) : undefined;
    const b = real.sendMs[row.label]?.length ? median(real.sendMs[row.label]) : undefined;
    const r = a !== undefined && b !== undefined ? a / b : undefined;
    rows.push([`${row.label}, ms per call (median of ${SEND_REPEATS}, do_not_relay)`, a === undefined ? "—" : a.toFixed(0), b === undefined ? "—" : b.toFixed(0), r ? formatRatio(r) : "—", "≤ 0.5× (time)", mark(r === undefined ? (ts.error ? false : undefined) : r <= 0.5)]);
    const one = ts.sendMs1?.[row.label];
    if (one?.length) {
      const a1 = median(one);
      const r1 = b !== undefined ? a1 / b : undefined;
      rows.push([`  the same, tsmonero's prover on 1 thread (TSMONERO_PROVER_THREADS=1)`, a1.toFixed(0), b === undefined ? "—" : b.toFixed(0), r1 ? formatRatio(r1) : "—", "≤ 0.5× (time)", mark(r1 === undefined ? undefined : r1 <= 0.5)]);
    }
  }

  for (const label of PROOF_ROWS) {
    const a = ts.proofMs[label]?.length ? median(ts.proofMs[label]) : undefined;
    const b = real.proofMs[label]?.length ? median(real.proofMs[label]) : undefined;
    const r = a !== undefined && b !== undefined ? a / b : undefined;
    rows.push([`${label} (${ts.proofOutputs || real.proofOutputs} outputs), ms per call (median of ${PROOF_REPEATS})`, a === undefined ? "—" : a.toFixed(0), b === undefined ? "—" : b.toFixed(0), r ? formatRatio(r) : "—", "≤ 0.5× (time)", mark(r === undefined ? (ts.error ? false : undefined) : r <= 0.5)]);
  }

  for (const label of KEY_IMAGE_ROWS) {
    const a = ts.proofMs[label]?.length ? median(ts.proofMs[label]) : undefined;
    const b = real.proofMs[label]?.length ? median(real.proofMs[label]) : undefined;
    const r = a !== undefined && b !== undefined ? a / b : undefined;
    const goal = label.startsWith("import") ? "≤ 0.5× (time)" : "—";
    const met = label.startsWith("import") ? mark(r === undefined ? (ts.error ? false : undefined) : r <= 0.5) : "—";
    rows.push([`${label} (${ts.keyImages ?? real.keyImages ?? 0} images), ms per call (median of ${PROOF_REPEATS})`, a === undefined ? "—" : a.toFixed(0), b === undefined ? "—" : b.toFixed(0), r ? formatRatio(r) : "—", goal, met]);
    if (label.startsWith("import") && ts.keyImageMs1?.length) {
      const a1 = median(ts.keyImageMs1);
      const r1 = b !== undefined ? a1 / b : undefined;
      rows.push([`  the same, tsmonero's checks on 1 thread (TSMONERO_PROVER_THREADS=1)`, a1.toFixed(0), b === undefined ? "—" : b.toFixed(0), r1 ? formatRatio(r1) : "—", "≤ 0.5× (time)", mark(r1 === undefined ? undefined : r1 <= 0.5)]);
    }
  }

  const subjectName = subject === "real" ? "monero-wallet-rpc (as subject)" : "tsmonero-wallet-rpc";
  process.stdout.write(`## wallet — ${subjectName} vs monero-wallet-rpc\n\n${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(
      [{ header: "measure" }, { header: subjectName, align: "right" }, { header: "monero-wallet-rpc", align: "right" }, { header: "ratio", align: "right" }, { header: "goal" }, { header: "goal" }],
      rows,
    )}\n`,
  );
  process.stdout.write(
    `\nChain: test/fixtures/chain (333 blocks) + ${extra} blocks mined to bob; wallet: alice restored from height 0. Each req/s method was called for a moment first, uncounted (warm-up), on both. ` +
      `Rescan: ${subjectName} ${ts.rescanSeconds.toFixed(1)} s (${ts.rescanLatencyMs.length} get_balance calls), monero-wallet-rpc ${real.rescanSeconds.toFixed(1)} s (${real.rescanLatencyMs.length} calls). ` +
      `Restores: ${subjectName} ${ts.restoreBps.map((x) => fmtRate(x)).join(", ") || "—"}; monero-wallet-rpc ${real.restoreBps.map((x) => fmtRate(x)).join(", ") || "—"} blocks/s.\n`,
  );
  for (const [who, f] of [[subjectName, ts], ["monero-wallet-rpc", real]] as const) {
    const r = Object.entries(f.resets);
    if (r.length) process.stdout.write(`\n${who} dropped connections (re-made, not counted as answers): ${r.map(([k, v]) => `${k.replace("/", " at concurrency ")}: ${v}`).join("; ")}.\n`);
  }
  if (ts.error) process.stdout.write(`\n${subjectName} failed: ${ts.error}\n`);
  if (real.error) process.stdout.write(`\nmonero-wallet-rpc failed: ${real.error}\n`);
}

export const suite: BenchSuite = {
  name: "wallet",
  summary: "tsmonero-wallet-rpc vs monero-wallet-rpc: restore+refresh blocks/s, req/s, latency during a rescan",
  flags: FLAGS,
  run,
};
