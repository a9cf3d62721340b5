/**
 * `npm run bench -- node`: tsmonerod next to monerod (Debian package `monero`), both measured in
 * the same run, on the same machine, on the same chain: test/fixtures/chain (333 blocks, 154 txs
 * made by real wallets) replayed into `--regtest --offline --fixed-difficulty 1` (send_raw_transaction
 * of each block's txs, then submit_block). Both daemons stay up but only one is driven at a time:
 * each row runs A B B A in halves of --seconds (generateblocks in alternating batches of 10), so a
 * load change on the shared machine hits both alike. Ports 28950-28969.
 *
 * Rows:
 *   generateblocks               ms per block (--blocks blocks to one address, after a 1-block warm-up
 *                                that pays for the RandomX cache; monerod hashes each block once even at
 *                                difficulty 1)
 *   get_info, get_block_header_by_height, get_block (JSON-RPC), /get_transactions (3 txs),
 *   /get_outs (10 RingCT outputs)  req/s at concurrency 1 and 32, keep-alive HTTP, --seconds per row,
 *                                after an uncounted warm-up of every row on both daemons;
 *                                every answer is checked (errors are counted, not rated)
 * Until bin/tsmonerod starts and answers, its column says why ("tsmonerod not available: …").
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { defaultBackend } from "../src/crypto/index.js";
import { encodeAddress } from "../src/protocol/address.js";
import { recordedBlocks, recordedTxs } from "../test/helpers/chain.js";
import { formatRatio } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { launcherCommand } from "./lib/launcher.js";

/** "tsmonerod-pow": tsmonerod with TSMONERO_HASH_TRIVIAL_POW=1, hashing PoW at difficulty 1 as monerod does. */
const PORTS = { monerod: { rpc: 28950, p2p: 28951 }, tsmonerod: { rpc: 28960, p2p: 28961 }, "tsmonerod-pow": { rpc: 28970, p2p: 28971 } } as const;
type Impl = keyof typeof PORTS;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const FLAGS: readonly FlagSpec[] = [
  { name: "seconds", takesValue: true, help: "Seconds per req/s row", defaultValue: "3" },
  { name: "blocks", takesValue: true, help: "Blocks timed with generateblocks", defaultValue: "100" },
  { name: "quick", takesValue: false, help: "1 s per req/s row, 20 blocks (noisier figures)" },
  { name: "tsmonerod", takesValue: true, help: "tsmonerod launcher to run", defaultValue: "bin/tsmonerod" },
];

/** A fixed standard address (mainnet prefix, as regtest uses) for generateblocks. */
function benchAddress(): string {
  const be = defaultBackend();
  const spend = be.scalarMultBase(be.scReduce32(new Uint8Array(32).fill(0x11)));
  const view = be.scalarMultBase(be.scReduce32(new Uint8Array(32).fill(0x22)));
  return encodeAddress("regtest", "standard", spend, view, null, be);
}

// ---------------------------------------------------------------------------------------------
// HTTP: one keep-alive agent per port

const agents = new Map<number, http.Agent>();
function agentFor(port: number): http.Agent {
  let a = agents.get(port);
  if (!a) {
    a = new http.Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(port, a);
  }
  return a;
}

/** Connections the server reset under a request (retried; monerod's epee server does this under load). */
let resets = 0;

/** POST with JSON; a request the server reset before answering is sent again (up to 5 times). */
async function post(port: number, path: string, body: unknown, timeoutMs = 600_000): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await postOnce(port, path, body, timeoutMs);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (attempt >= 5 || (code !== "ECONNRESET" && code !== "EPIPE")) throw e;
      resets++;
    }
  }
}

function postOnce(port: number, path: string, body: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: "POST", agent: agentFor(port), headers: { "content-type": "application/json", "content-length": data.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if (res.statusCode !== 200) return reject(new Error(`${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
          try {
            resolve(JSON.parse(text) as Record<string, unknown>);
          } catch {
            reject(new Error(`${path}: not JSON: ${text.slice(0, 200)}`));
          }
        });
        res.on("error", reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${path}: timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(data);
  });
}

/** A JSON-RPC call; throws with the error's code and message. */
async function rpc(port: number, method: string, params: unknown = {}): Promise<Record<string, unknown>> {
  const r = await post(port, "/json_rpc", { jsonrpc: "2.0", id: "0", method, params });
  const err = r.error as { code: number; message: string } | undefined;
  if (err) throw new Error(`${method}: ${err.code} ${err.message}`);
  const result = r.result as Record<string, unknown> | undefined;
  if (!result) throw new Error(`${method}: no result`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// processes

interface Proc {
  name: string;
  proc: ChildProcess;
  dir: string;
  output: string[];
}

function launch(impl: Impl, tsmonerod: string): Proc {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-bench-${impl}-`));
  const { rpc: rpcPort, p2p } = PORTS[impl];
  const flags = [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir,
    "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpcPort),
    "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2p),
    "--no-zmq", "--non-interactive", "--log-level", "0",
  ];
  const [bin, args] = impl === "monerod" ? ["/usr/bin/monerod", flags] : launcherCommand(tsmonerod, flags);
  const env = impl === "tsmonerod-pow" ? { ...process.env, TSMONERO_HASH_TRIVIAL_POW: "1" } : process.env;
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], env });
  const output: string[] = [];
  const keep = (b: Buffer): void => {
    output.push(b.toString());
    if (output.length > 100) output.shift();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  proc.on("error", (e) => output.push(`spawn error: ${e.message}`));
  return { name: impl, proc, dir, output };
}

async function stop(p: Proc | undefined): Promise<void> {
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

async function waitReady(p: Proc, port: number, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) {
      throw new Error(`${p.name} exited (${p.proc.exitCode ?? p.proc.signalCode}): ${p.output.join("").trim().slice(-400)}`);
    }
    try {
      await rpc(port, "get_info");
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${p.name} did not answer get_info in ${ms} ms: ${String(e)}`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The recorded chain into a fresh daemon: each block's txs through the pool, then the block. */
async function replay(port: number): Promise<number> {
  const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t.as_hex]));
  for (const b of [...recordedBlocks()].sort((x, y) => x.height - y.height).slice(1)) {
    for (const h of b.tx_hashes) {
      const r = await post(port, "/send_raw_transaction", { tx_as_hex: txById.get(h), do_not_relay: false });
      if (r.status !== "OK") throw new Error(`send_raw_transaction ${h}: ${JSON.stringify(r).slice(0, 300)}`);
    }
    const r = await rpc(port, "submit_block", [b.blob]);
    if (r.status !== "OK") throw new Error(`submit_block ${b.height}: ${JSON.stringify(r)}`);
  }
  return Number((await rpc(port, "get_block_count")).count);
}

// ---------------------------------------------------------------------------------------------
// measurements

interface Row {
  name: string;
  concurrency: number;
  call: (port: number, i: number) => Promise<boolean>;
}

function requestRows(height: number): Row[] {
  const txIds = recordedTxs().filter((t) => !t.coinbase).map((t) => t.tx_hash);
  const ok = (r: Record<string, unknown>): boolean => r.status === "OK";
  const rows: Omit<Row, "concurrency">[] = [
    { name: "get_info", call: async (p) => ok(await rpc(p, "get_info")) },
    { name: "get_block_header_by_height", call: async (p, i) => ok(await rpc(p, "get_block_header_by_height", { height: i % height })) },
    { name: "get_block", call: async (p, i) => ok(await rpc(p, "get_block", { height: i % height })) },
    {
      name: "/get_transactions (3 txs)",
      call: async (p, i) => {
        const ids = [0, 1, 2].map((k) => txIds[(3 * i + k) % txIds.length]);
        const r = await post(p, "/get_transactions", { txs_hashes: ids, decode_as_json: false });
        return ok(r) && Array.isArray(r.txs) && r.txs.length === 3;
      },
    },
    {
      name: "/get_outs (10 outputs)",
      call: async (p, i) => {
        const outputs = Array.from({ length: 10 }, (_, k) => ({ amount: 0, index: (i * 10 + k) % height }));
        const r = await post(p, "/get_outs", { outputs, get_txid: true });
        return ok(r) && Array.isArray(r.outs) && r.outs.length === 10;
      },
    },
  ];
  return rows.flatMap((r) => [1, 32].map((concurrency) => ({ ...r, concurrency })));
}

/** Requests per second over `seconds`, `concurrency` callers in flight; answers that fail are counted apart. */
async function rate(port: number, row: Row, seconds: number): Promise<{ rps: number; errors: number; firstError?: string }> {
  let done = 0;
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const i = next++;
      try {
        if (await row.call(port, i)) done++;
        else {
          errors++;
          firstError ??= "answer not OK";
        }
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: row.concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  return { rps: done / elapsed, errors, ...(firstError ? { firstError } : {}) };
}

interface Figures {
  /** Connections reset by the server during the req/s rows (each request was retried). */
  resets?: number;
  /** Why the implementation could not be measured. */
  unavailable?: string;
  height?: number;
  replaySeconds?: number;
  msPerBlock?: number;
  generateError?: string;
  rows: Map<string, { rps: number; errors: number; firstError?: string }>;
}

interface Running {
  impl: Impl;
  port: number;
  proc: Proc;
  f: Figures;
}

/** Starts a daemon and replays the chain into it; undefined (with f.unavailable set) when it cannot. */
async function setUp(impl: Impl, tsmonerod: string, f: Figures): Promise<Running | undefined> {
  if (impl !== "monerod" && !existsSync(tsmonerod)) {
    f.unavailable = `${tsmonerod} not found`;
    return undefined;
  }
  const port = PORTS[impl].rpc;
  const proc = launch(impl, tsmonerod);
  try {
    await waitReady(proc, port);
    progress(`node: ${impl}: replaying test/fixtures/chain`);
    const t0 = performance.now();
    f.height = await replay(port);
    f.replaySeconds = (performance.now() - t0) / 1000;
    return { impl, port, proc, f };
  } catch (e) {
    f.unavailable = e instanceof Error ? e.message : String(e);
    await tearDown({ impl, port, proc, f });
    return undefined;
  }
}

async function tearDown(r: Running | undefined): Promise<void> {
  if (!r) return;
  await stop(r.proc);
  agentFor(r.port).destroy();
  agents.delete(r.port);
}

/**
 * Both daemons stay up (an idle one costs next to nothing) and every row is measured A B B A in
 * halves, so a load change on the shared machine hits both sides alike.
 */
async function measureAll(live: Running[], seconds: number, blocks: number): Promise<void> {
  const order = (i: number): Running[] => (i % 2 === 0 ? [...live, ...[...live].reverse()] : [...[...live].reverse(), ...live]);
  const height = Math.min(...live.map((r) => r.f.height ?? 333));
  const perImpl = new Map<Impl, number>();
  // warm-up, not counted: every row briefly on every daemon (a JIT compiles the handlers)
  progress("node: warm-up");
  for (const row of requestRows(height)) if (row.concurrency === 1) for (const r of live) await rate(r.port, row, Math.min(0.5, seconds / 4));
  let i = 0;
  for (const row of requestRows(height)) {
    progress(`node: ${row.name} at concurrency ${row.concurrency}`);
    const acc = new Map<Impl, { done: number; secs: number; errors: number; firstError?: string }>();
    for (const r of order(i++)) {
      const before = resets;
      const t0 = performance.now();
      const x = await rate(r.port, row, seconds / 2);
      const secs = (performance.now() - t0) / 1000;
      perImpl.set(r.impl, (perImpl.get(r.impl) ?? 0) + resets - before);
      const a = acc.get(r.impl) ?? { done: 0, secs: 0, errors: 0 };
      a.done += x.rps * secs;
      a.secs += secs;
      a.errors += x.errors;
      a.firstError ??= x.firstError;
      acc.set(r.impl, a);
    }
    for (const r of live) {
      const a = acc.get(r.impl);
      if (a) r.f.rows.set(`${row.name}@${row.concurrency}`, { rps: a.done / a.secs, errors: a.errors, ...(a.firstError ? { firstError: a.firstError } : {}) });
    }
  }
  for (const r of live) r.f.resets = perImpl.get(r.impl) ?? 0;
  await timeGenerate(live, blocks);
}

/** generateblocks: a 1-block warm-up each (RandomX cache), then batches of 10, alternating; ms per block into each f.msPerBlock. */
async function timeGenerate(live: Running[], blocks: number): Promise<void> {
  const order = (i: number): Running[] => (i % 2 === 0 ? [...live, ...[...live].reverse()] : [...[...live].reverse(), ...live]);
  progress(`node: generateblocks ×${blocks} each (${live.map((r) => r.impl).join(", ")}), alternating batches`);
  const address = benchAddress();
  const spent = new Map<Impl, number>();
  for (const r of live) {
    try {
      await rpc(r.port, "generateblocks", { amount_of_blocks: 1, wallet_address: address });
    } catch (e) {
      r.f.generateError = e instanceof Error ? e.message : String(e);
    }
  }
  let batch = 0;
  for (let left = blocks; left > 0; left -= 10, batch++) {
    for (const r of order(batch).slice(0, live.length)) {
      if (r.f.generateError) continue;
      try {
        const t0 = performance.now();
        await rpc(r.port, "generateblocks", { amount_of_blocks: Math.min(10, left), wallet_address: address });
        spent.set(r.impl, (spent.get(r.impl) ?? 0) + performance.now() - t0);
      } catch (e) {
        r.f.generateError = e instanceof Error ? e.message : String(e);
      }
    }
  }
  for (const r of live) if (!r.f.generateError) r.f.msPerBlock = (spent.get(r.impl) ?? 0) / blocks;
}

const fmt = (x: number | undefined, digits = 1): string =>
  x === undefined || !Number.isFinite(x) ? "—" : x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(digits);

function cell(f: Figures, key: string): string {
  if (f.unavailable) return "not available";
  const r = f.rows.get(key);
  if (!r) return "—";
  if (r.errors > 0 && r.rps === 0) return `errors (${r.firstError ?? "?"})`.slice(0, 60);
  return r.errors > 0 ? `${fmt(r.rps)} (${r.errors} errors)` : fmt(r.rps);
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const seconds = Number(flagString(args, "seconds") ?? (quick ? "1" : "3"));
  const blocks = Number(flagString(args, "blocks") ?? (quick ? "20" : "100"));
  const tsmonerod = join(ROOT, flagString(args, "tsmonerod") ?? "bin/tsmonerod");
  if (!existsSync("/usr/bin/monerod")) throw new Error("bench node needs Debian package monero (apt-get install -y monero); missing /usr/bin/monerod");
  if (!(seconds > 0) || !(blocks >= 1)) throw new Error("bench node: --seconds must be > 0 and --blocks ≥ 1");

  const real: Figures = { rows: new Map() };
  const ts: Figures = { rows: new Map() };
  // the like-for-like generateblocks row: tsmonerod hashing PoW, and monerod timed again beside it
  const tsPow: Figures = { rows: new Map() };
  const realAgain: Figures = { rows: new Map() };
  const live: Running[] = [];
  try {
    progress("node: starting monerod");
    const m = await setUp("monerod", tsmonerod, real);
    if (!m) throw new Error(`bench node: monerod could not be measured: ${real.unavailable ?? "?"}`);
    live.push(m);
    progress("node: starting tsmonerod");
    const t = await setUp("tsmonerod", tsmonerod, ts);
    if (t) live.push(t);
    await measureAll(live, seconds, blocks);
    if (t) {
      await tearDown(t);
      live.splice(live.indexOf(t), 1);
      progress("node: starting tsmonerod with TSMONERO_HASH_TRIVIAL_POW=1");
      const tp = await setUp("tsmonerod-pow", tsmonerod, tsPow);
      if (tp) {
        live.push(tp);
        await timeGenerate([{ ...m, f: realAgain }, tp], blocks);
      }
    }
  } finally {
    for (const r of live) await tearDown(r);
  }

  const rows: string[][] = [];
  const ratio = (a: number | undefined, b: number | undefined): string => (a && b ? formatRatio(a / b) : "—");
  const generated = (f: Figures): string =>
    f.unavailable ? "not available" : f.msPerBlock !== undefined ? fmt(f.msPerBlock, 2) : `error: ${f.generateError ?? "?"}`.slice(0, 60);
  rows.push([
    "generateblocks, PoW hashed by both: same work (ms/block, lower is better)",
    "1",
    generated(tsPow),
    generated(realAgain),
    ratio(realAgain.msPerBlock, tsPow.msPerBlock),
  ]);
  rows.push([
    "generateblocks, tsmonerod skips the PoW hash at difficulty 1: less work than monerod (ms/block)",
    "1",
    ts.unavailable ? "not available" : ts.msPerBlock !== undefined ? fmt(ts.msPerBlock, 2) : `error: ${ts.generateError ?? "?"}`.slice(0, 60),
    real.msPerBlock !== undefined ? fmt(real.msPerBlock, 2) : `error: ${real.generateError ?? "?"}`.slice(0, 60),
    // for a time, the speed-up is monerod's time over ours
    ratio(real.msPerBlock, ts.msPerBlock),
  ]);
  for (const row of requestRows(real.height ?? 333)) {
    const key = `${row.name}@${row.concurrency}`;
    rows.push([`${row.name} (req/s)`, String(row.concurrency), cell(ts, key), cell(real, key), ratio(ts.rows.get(key)?.rps, real.rows.get(key)?.rps)]);
  }
  const out: string[] = [];
  out.push(`## node: tsmonerod vs monerod (${machineLine()})`);
  out.push("");
  out.push(
    `Chain: test/fixtures/chain replayed (${real.height ?? "?"} blocks; monerod replay ${fmt(real.replaySeconds)} s` +
      (ts.replaySeconds !== undefined ? `, tsmonerod replay ${fmt(ts.replaySeconds)} s` : "") +
      `), --regtest --offline --fixed-difficulty 1; ${seconds} s per req/s row, ${blocks} blocks for generateblocks. ` +
      "Every row was run briefly on both daemons first, uncounted (warm-up). Speed-up > 1 means tsmonerod is faster. At difficulty 1 monerod's generateblocks still hashes each block " +
      "(RandomX: the nonce search's one hash, then verification's); tsmonerod skips both by default (every hash meets difficulty 1), and hashes both with TSMONERO_HASH_TRIVIAL_POW=1 " +
      "(the first generateblocks row: a second tsmonerod, fresh on the replayed chain, timed in alternation with the same monerod, which is by then " +
      `${blocks + 1} blocks higher).`,
  );
  if (ts.unavailable) out.push("", `tsmonerod not available: ${ts.unavailable}`);
  for (const [name, f] of [["monerod", real], ["tsmonerod", ts]] as const) {
    if (f.resets) out.push("", `${name} reset ${f.resets} keep-alive connections under load; those requests were sent again (their time counts).`);
    const failed = [...f.rows.entries()].filter(([, r]) => r.errors > 0);
    if (failed.length) {
      const [key, r] = failed[0];
      out.push("", `${name}: failed requests are not rated (still failing after 5 resends); first: ${key.replace("@", " at concurrency ")}: ${r.firstError ?? "?"}`);
    }
  }
  out.push("");
  out.push(
    markdownTable(
      [
        { header: "measure" },
        { header: "concurrency", align: "right" },
        { header: "tsmonerod", align: "right" },
        { header: "monerod", align: "right" },
        { header: "speed-up", align: "right" },
      ],
      rows,
    ),
  );
  process.stdout.write(`${out.join("\n")}\n`);
}

export const suite: BenchSuite = {
  name: "node",
  summary: "tsmonerod vs monerod: generateblocks ms/block, RPC req/s at concurrency 1 and 32",
  flags: FLAGS,
  run,
};
