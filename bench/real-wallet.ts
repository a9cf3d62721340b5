/**
 * `npm run bench -- real-wallet`: the real monero-wallet-rpc (Debian package `monero`) with default
 * flags — no --daemon-ssl*, so it tries TLS first (autodetect) — on tsmonerod and on monerod
 * (issue 13's acceptance row: at least as fast on tsmonerod).
 *
 * Both daemons run at once on the same replayed chain: test/fixtures/chain (333 blocks, 154 txs made
 * by real wallets) replayed into `--regtest --offline --fixed-difficulty 1`, then --extra-blocks
 * mined to bob. Each daemon has two real wallets of its own: one restores alice (a new wallet file
 * each round), one holds bob (restored once, for the sends). Ports 19600-19619.
 *
 * The work is measured in rounds; each round does every row once on each daemon, the two daemons
 * one after the other, the first one alternating from round to round (so drift in the machine's
 * load hits both alike). Rows, ms per call:
 *   restore + refresh   restore_deterministic_wallet (alice, restore_height 0) + refresh: the whole
 *                       chain, no warm-up (each round's first contact with the daemon is part of it)
 *   of which refresh    the refresh alone (the restore is the wallet's own work)
 *   refresh             refresh with no new block (what every later refresh costs), --repeat times
 *                       in a row per round; the round's figure is their mean (a 2 ms call read once
 *                       per round only shows whole milliseconds of noise)
 *   refresh, 1 block    one generateblocks (not timed), then refresh; --repeat times, the mean
 *   transfer            bob, 1 destination, do_not_relay (built, signed, not relayed)
 *   sweep_all           bob, 50 inputs (the rest frozen), do_not_relay
 * The table gives per daemon the median and the min–max of the rounds, the ratio of the medians and
 * the median of the per-round ratios.
 *
 * --trace puts a logging TCP proxy (bench/lib/trace-proxy.ts) between each wallet and its daemon
 * and prints, per row, what the wallet asked and how long each answer took (from the request's last
 * byte to the answer's last byte), summed over the rounds. The wallet talks TLS (autodetect), so
 * exchanges are not named; --plain gives the wallets --daemon-ssl disabled, which names them.
 * --replay N (with --trace --plain) then sends each daemon's recorded requests of the last round
 * again N times, plain and over TLS, with no wallet and no proxy in the way: the daemon's share of
 * each row, call by call. TSMONERO_BENCH_CPU_PROF=<dir> makes tsmonerod write a CPU profile there.
 * --wire captures both daemons' RPC ports with tcpdump (bench/lib/wire.ts) and gives, per row, each
 * daemon's turnaround on the wire: a request's last segment to its answer's first, with no proxy in
 * the way and TLS as the wallets speak it; then the same exchanges by request size (one kind of
 * call), with each daemon's quantiles: a path slower than monerod's shows in the median, a tail
 * (collections, other work on the main thread) in the max and the mean.
 * --warm N first puts both daemons through the same untimed traffic (bob's refreshes, refreshes
 * after a block, transfers, sweeps): the rows then compare daemons that have served wallets for a
 * while (tsmonerod's JIT has compiled its request paths) instead of just-started ones.
 * A call a real wallet answers with -38 "no connection to daemon" is repeated (at most twice) and
 * counted under the table (`walletCall`).
 * Results, causes found and what is left: docs/bench-real-wallet.md.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { recordedBlocks, WALLET_SEEDS } from "../test/helpers/chain.js";
import { formatRatio, mean, median, quantile } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine, processStat } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { ReplayConnection } from "./lib/replay.js";
import { byName, type Exchange, TraceProxy } from "./lib/trace-proxy.js";
import { startCapture, type WireExchange } from "./lib/wire.js";
import { agents, launch, type Proc, replayRecordedChain, rpc, stop, waitAnswer } from "./wallet.js";
import { launcherCommand } from "./lib/launcher.js";

const DAEMONS = ["tsmonerod", "monerod"] as const;
type Daemon = (typeof DAEMONS)[number];
/** rpc, p2p, alice's wallet, bob's wallet, the trace proxy */
const PORTS: Record<Daemon, { rpc: number; p2p: number; alice: number; bob: number; proxy: number }> = {
  tsmonerod: { rpc: 19600, p2p: 19601, alice: 19602, bob: 19603, proxy: 19604 },
  monerod: { rpc: 19610, p2p: 19611, alice: 19612, bob: 19613, proxy: 19614 },
};
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
const CAROL = "42C1Dp59SFVM1VzBdzc7xJFkEmNGvKLSVMFU3cuhvvAJFwtQjUCMkV1XisaXJPUfKU6drNCSHx59kNn4iCNcqTGXMzNbksS";

const FLAGS: readonly FlagSpec[] = [
  { name: "extra-blocks", takesValue: true, help: "Blocks mined to bob after the recorded chain (≥ 120: the sweep needs 50 unlocked outputs)", defaultValue: "300" },
  { name: "rounds", takesValue: true, help: "Rounds (each row once per daemon per round; median over rounds)", defaultValue: "7" },
  { name: "repeat", takesValue: true, help: "Refreshes per round in the two small refresh rows (their mean is the round's figure)", defaultValue: "10" },
  { name: "quick", takesValue: false, help: "120 extra blocks, 3 rounds" },
  { name: "trace", takesValue: false, help: "Per-call table: a logging proxy between each wallet and its daemon (adds a hop to both)" },
  { name: "plain", takesValue: false, help: "With --trace: wallets get --daemon-ssl disabled, so calls are named" },
  { name: "replay", takesValue: true, help: "With --trace --plain: send the recorded requests of the last round's refreshes, transfer and sweep again N times to each daemon (same bytes to both) and time each answer" },
  { name: "wire", takesValue: false, help: "Capture both daemons' RPC ports with tcpdump during the rounds and give, per row, each daemon's turnaround on the wire (a request's last segment to its answer's first), per call and per exchange (needs tcpdump and root)" },
  { name: "warm", takesValue: true, help: "Before the rounds, bob's wallet on each daemon makes N refreshes, N/20 refreshes after a new block, 3 transfers and 2 sweeps (untimed, the same on both): a daemon that has served traffic, not one just started", defaultValue: "0" },
];

const ROWS = [
  "restore + refresh (alice from 0)",
  "  of which the refresh (the whole chain)",
  "refresh, no new block",
  "refresh after 1 new block",
  "transfer, 1 destination (do_not_relay)",
  "sweep_all of 50 inputs (do_not_relay)",
] as const;
type Row = (typeof ROWS)[number];

interface Side {
  daemon: Proc;
  alice: Proc;
  bob: Proc;
  proxy?: TraceProxy;
  height: number;
  ms: Map<Row, number[]>;
  /** CPU time (user + system, ms) the daemon and the wallet in use spent during each call */
  cpu: Map<Row, { daemon: number[]; wallet: number[] }>;
  trace: Map<Row, Exchange[]>;
  /** calls repeated because the real wallet lost its daemon connection (see `walletCall`) */
  lost: string[];
  /** Each timed call's span (epoch ms), for --wire. */
  windows: { row: Row; from: number; to: number }[];
}

/**
 * A call to a real wallet, repeated (at most twice) when the wallet answers -38 "no connection to
 * daemon": a real monero-wallet-rpc on the real monerod sometimes loses its keep-alive connection in
 * the middle of a sweep (seen ~1 run in 10, on monerod only; its log says no more than
 * no_connection_to_daemon). Every repeat is counted and printed under the table; a timed call that
 * failed is timed again from its start (its failed attempt is not in the row).
 */
async function walletCall<T>(side: Side, who: string, f: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await f();
    } catch (e) {
      if (attempt >= 2 || !lostDaemon(e)) throw e;
      progress(`real-wallet: ${who}: ${(e as Error).message}; repeating the call`);
      side.lost.push(who);
    }
  }
}

const lostDaemon = (e: unknown): boolean => e instanceof Error && e.message.includes("no connection to daemon (-38)");

/** A process's CPU time so far (all its threads), ms; 0 where /proc is not there. */
function cpuMs(p: Proc): number {
  return processStat(p.proc.pid)?.cpuMs ?? 0;
}

function startDaemon(which: Daemon, timingFile?: string): Proc {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-bench-rw-${which}-`));
  const flags = [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(PORTS[which].rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(PORTS[which].p2p),
    "--no-zmq", "--non-interactive", "--log-level", "0",
  ];
  return which === "monerod"
    ? launch("monerod", "/usr/bin/monerod", flags, dir)
    : launch("tsmonerod", ...launcherCommand(join(ROOT, "bin", "tsmonerod"), flags, profileFlags()), dir, timingFile ? { TSMONERO_RPC_TIMING: timingFile } : undefined);
}

/** TSMONERO_BENCH_CPU_PROF=<dir>: tsmonerod writes a V8 CPU profile there when it stops (node --cpu-prof). */
function profileFlags(): string[] {
  const dir = process.env.TSMONERO_BENCH_CPU_PROF;
  return dir ? ["--cpu-prof", "--cpu-prof-dir", dir] : [];
}

/** The real wallet with default flags: only where its files go, where the daemon is, and its own port. */
function startRealWallet(name: string, daemonPort: number, port: number, plain: boolean): Proc {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-bench-rw-${name}-`));
  return launch(name, "/usr/bin/monero-wallet-rpc", [
    "--wallet-dir", dir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${daemonPort}`, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(port), "--log-file", join(dir, "wallet.log"), "--non-interactive",
    ...(plain ? ["--daemon-ssl", "disabled"] : []),
  ], dir);
}

/** `procs` gets each process as it starts, so that a failure part-way still stops them all. */
async function setUp(which: Daemon, extra: number, trace: boolean, plain: boolean, procs: Proc[]): Promise<Side> {
  const p = PORTS[which];
  // with --trace, tsmonerod also logs each call's handler time (src/rpc/server.ts TSMONERO_RPC_TIMING)
  const daemon = startDaemon(which, trace ? TIMING_FILE : undefined);
  procs.push(daemon);
  const side: Side = { daemon, alice: undefined as unknown as Proc, bob: undefined as unknown as Proc, height: 0, ms: new Map(), cpu: new Map(), trace: new Map(), lost: [], windows: [] };
  await waitAnswer(daemon, p.rpc, "get_info");
  progress(`real-wallet: ${which}: replaying test/fixtures/chain and mining ${extra} blocks`);
  side.height = await replayRecordedChain(p.rpc, extra);
  let walletsTo = p.rpc;
  if (trace) {
    side.proxy = new TraceProxy(p.rpc);
    await side.proxy.listen(p.proxy);
    walletsTo = p.proxy;
  }
  side.alice = startRealWallet(`${which}-alice`, walletsTo, p.alice, plain);
  side.bob = startRealWallet(`${which}-bob`, walletsTo, p.bob, plain);
  procs.push(side.alice, side.bob);
  await waitAnswer(side.alice, p.alice, "get_version");
  await waitAnswer(side.bob, p.bob, "get_version");
  // bob: restored once, refreshed, one untimed transfer and sweep (the wallet's own first-time work)
  const b = (method: string, params: unknown = {}) => walletCall(side, `${which} bob ${method}`, () => rpc(p.bob, method, params));
  await b("restore_deterministic_wallet", { filename: "bob", seed: WALLET_SEEDS.bob, password: "", restore_height: recordedBlocks().length, language: "English" });
  await b("auto_refresh", { enable: false });
  await b("refresh");
  await b("transfer", TRANSFER);
  const inc = (await b("incoming_transfers", { transfer_type: "available" })) as { transfers?: { key_image: string; unlocked: boolean }[] };
  const unlocked = (inc.transfers ?? []).filter((t) => t.unlocked);
  if (unlocked.length < 50) throw new Error(`bob has ${unlocked.length} unlocked outputs, the sweep row needs 50: give --extra-blocks ≥ 120`);
  for (const t of unlocked.slice(50)) await b("freeze", { key_image: t.key_image });
  await b("sweep_all", SWEEP);
  return side;
}

const TIMING_FILE = join(tmpdir(), "tsmonero-bench-rw-rpc-timing.log");
const TRANSFER = { destinations: [{ address: CAROL, amount: 1_000_000_000 }], do_not_relay: true };
const SWEEP = { address: CAROL, do_not_relay: true };

/**
 * --warm: what a daemon that has served wallets for a while has been through (its JIT has compiled
 * the request paths; monerod's C++ needs no such thing), the same calls on both daemons, untimed:
 * bob's refreshes with nothing new, refreshes after a new block (mined to carol, so that bob's sweep
 * keeps its 50 inputs), transfers and sweeps.
 */
async function warmUp(which: Daemon, side: Side, n: number): Promise<void> {
  const p = PORTS[which];
  const b = (method: string, params: unknown = {}) => walletCall(side, `${which} bob ${method} (warm-up)`, () => rpc(p.bob, method, params));
  for (let k = 0; k < n; k++) await b("refresh");
  for (let k = 0; k < Math.floor(n / 20); k++) {
    // mined to carol: bob's new outputs would not be frozen, and the sweep row would take more than 50 inputs
    await rpc(p.rpc, "generateblocks", { amount_of_blocks: 1, wallet_address: CAROL });
    await b("refresh");
  }
  for (let k = 0; k < 3; k++) await b("transfer", TRANSFER);
  for (let k = 0; k < 2; k++) await b("sweep_all", SWEEP);
}

/** One round on one daemon: every row once. */
async function round(which: Daemon, side: Side, i: number, repeat: number): Promise<void> {
  const p = PORTS[which];
  const a = (method: string, params: unknown = {}) => rpc(p.alice, method, params);
  const b = (method: string, params: unknown = {}) => rpc(p.bob, method, params);
  const add = (row: Row, t0: number, t1 = performance.now()) => {
    const list = side.ms.get(row) ?? [];
    list.push(t1 - t0);
    side.ms.set(row, list);
  };
  /** `times` > 1: `f` runs that many times (`before` untimed ahead of each) and the row gets their mean. */
  const traced = async (row: Row, f: () => Promise<unknown>, wallet = side.alice, times = 1, before?: () => Promise<unknown>): Promise<void> => {
    const mark = side.proxy?.now() ?? 0;
    let spent = 0;
    const cpu = [0, 0];
    for (let k = 0; k < times; k++) {
      if (before) await before();
      let c0 = [0, 0];
      let t0 = 0;
      await walletCall(side, `${which} ${row.trim()}`, () => {
        c0 = [cpuMs(side.daemon), cpuMs(wallet)];
        t0 = performance.now();
        return f();
      });
      const t1 = performance.now();
      spent += t1 - t0;
      side.windows.push({ row, from: performance.timeOrigin + t0, to: performance.timeOrigin + t1 });
      cpu[0] += cpuMs(side.daemon) - c0[0];
      cpu[1] += cpuMs(wallet) - c0[1];
    }
    add(row, 0, spent / times);
    const c = side.cpu.get(row) ?? { daemon: [], wallet: [] };
    c.daemon.push(cpu[0] / times);
    c.wallet.push(cpu[1] / times);
    side.cpu.set(row, c);
    if (side.proxy) side.trace.set(row, [...(side.trace.get(row) ?? []), ...side.proxy.since(mark).exchanges]);
  };
  if (i > 0) await a("close_wallet");
  let t1 = 0;
  const t0 = performance.now();
  await traced(ROWS[0], async () => {
    await a("restore_deterministic_wallet", { filename: `alice-${i}`, seed: WALLET_SEEDS.alice, password: "", restore_height: 0, language: "English" });
    t1 = performance.now();
    await a("refresh");
  });
  add(ROWS[1], t1);
  void t0;
  await a("auto_refresh", { enable: false });
  const h = Number((await a("get_height")).height);
  const daemonHeight = Number((await rpc(p.rpc, "get_block_count")).count);
  if (h !== daemonHeight) throw new Error(`${which}: alice's height ${h} after refresh, daemon ${daemonHeight}`);
  await traced(ROWS[2], () => a("refresh"), side.alice, repeat);
  await traced(ROWS[3], () => a("refresh"), side.alice, repeat, () => rpc(p.rpc, "generateblocks", { amount_of_blocks: 1, wallet_address: BOB }));
  await traced(ROWS[4], () => b("transfer", TRANSFER), side.bob);
  await traced(ROWS[5], () => b("sweep_all", SWEEP), side.bob);
}

/** Milliseconds as the table prints them: a decimal below 10 ms (the small refreshes are means of several calls). */
const ms = (x: number): string => x.toFixed(x < 10 ? 1 : 0);

function spread(xs: readonly number[]): string {
  return `${ms(Math.min(...xs))}–${ms(Math.max(...xs))}`;
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const extra = Number(flagString(args, "extra-blocks") ?? (quick ? "120" : "300"));
  const rounds = Number(flagString(args, "rounds") ?? (quick ? "3" : "7"));
  const repeat = Number(flagString(args, "repeat") ?? "10");
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat wants a whole number ≥ 1, got ${flagString(args, "repeat")}`);
  const trace = flagSet(args, "trace");
  if (trace) rmSync(TIMING_FILE, { force: true });
  const plain = flagSet(args, "plain");
  const replay = Number(flagString(args, "replay") ?? "0");
  const warm = Number(flagString(args, "warm") ?? "0");
  if (!Number.isInteger(warm) || warm < 0) throw new Error(`--warm wants a whole number ≥ 0, got ${flagString(args, "warm")}`);
  if (replay > 0 && !(trace && plain)) throw new Error("--replay needs --trace --plain (it replays the plain requests the trace proxy recorded)");
  const wire = flagSet(args, "wire");
  let wired: Map<number, WireExchange[]> | undefined;
  let replayed: string | undefined;
  for (const bin of ["/usr/bin/monerod", "/usr/bin/monero-wallet-rpc"]) {
    if (!existsSync(bin)) throw new Error(`bench real-wallet needs Debian package monero (apt-get install -y monero); missing ${bin}`);
  }
  const sides = new Map<Daemon, Side>();
  const procs: Proc[] = [];
  try {
    for (const d of DAEMONS) {
      sides.set(d, await setUp(d, extra, trace, plain, procs));
    }
    if (warm > 0) {
      for (const d of DAEMONS) {
        progress(`real-wallet: ${d}: warming with ${warm} refreshes, ${Math.floor(warm / 20)} after a new block, 3 transfers, 2 sweeps`);
        await warmUp(d, sides.get(d)!, warm);
      }
    }
    const capture = wire ? await startCapture(DAEMONS.map((d) => PORTS[d].rpc)) : undefined;
    if (typeof capture === "string") throw new Error(`--wire: cannot capture: ${capture}`);
    try {
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? DAEMONS : [...DAEMONS].reverse();
        for (const d of order) {
          progress(`real-wallet: round ${i + 1}/${rounds}: ${d}`);
          await round(d, sides.get(d)!, i, repeat);
        }
      }
    } finally {
      if (capture) wired = await capture.stop();
    }
    if (replay > 0) replayed = await replayCalls(sides, replay);
  } catch (e) {
    progress(`real-wallet: ${e instanceof Error ? e.message : String(e)}`);
    for (const p of procs) progress(`${p.name}: ${p.output.join("").slice(-600)}`);
    throw e;
  } finally {
    for (const s of sides.values()) await s.proxy?.close();
    for (const p of procs.reverse()) await stop(p);
    for (const a of agents.values()) a.destroy();
  }
  const ts = sides.get("tsmonerod")!;
  const real = sides.get("monerod")!;
  const rows = ROWS.map((row) => {
    const a = ts.ms.get(row) ?? [];
    const b = real.ms.get(row) ?? [];
    const r = median(a) / median(b);
    const perRound = median(a.map((x, k) => x / b[k]));
    return [row, ms(median(a)), spread(a), ms(median(b)), spread(b), formatRatio(r), formatRatio(perRound), r <= 1 ? "met" : "NOT met"];
  });
  process.stdout.write(`## real-wallet — a real monero-wallet-rpc (default flags${plain ? " but --daemon-ssl disabled" : ""}) on tsmonerod vs on monerod\n\n${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(
      [
        { header: `ms per call, ${rounds} rounds` },
        { header: "tsmonerod median", align: "right" },
        { header: "min–max", align: "right" },
        { header: "monerod median", align: "right" },
        { header: "min–max", align: "right" },
        { header: "ratio of medians", align: "right" },
        { header: "median per-round ratio", align: "right" },
        { header: "≤ 1× (goal)" },
      ],
      rows,
    )}\n`,
  );
  process.stdout.write(
    `\nChain: test/fixtures/chain (333 blocks) + ${extra} blocks mined to bob (${ts.height} blocks${warm > 0 ? ` + ${Math.floor(warm / 20)} in the warm-up` : ""}; +${repeat} per round). ${warm > 0 ? `Both daemons warmed first, untimed and alike (--warm ${warm}: bob's ${warm} refreshes, ${Math.floor(warm / 20)} after a new block, 3 transfers, 2 sweeps). ` : "Both daemons just started (no --warm). "}Both daemons up at once, ` +
      `each with its own two real wallets; in each round every row runs once on each daemon (the two small refresh rows ${repeat} times, their mean), the first daemon alternating.${trace ? " Through the trace proxy (one more hop on both sides)." : ""}\n`,
  );
  for (const [d, side] of sides) {
    if (side.lost.length > 0) {
      process.stdout.write(`\n${d}'s real wallets lost their daemon connection (-38 "no connection to daemon") ${side.lost.length} time(s) and the call was repeated (a timed call was timed again from its start): ${side.lost.join("; ")}\n`);
    }
  }
  const cpuRows = ROWS.filter((r) => r !== ROWS[1]).map((row) => {
    const f = (side: Side, k: "daemon" | "wallet") => {
      const xs = side.cpu.get(row)?.[k] ?? [];
      return xs.length ? ms(median(xs)) : "—";
    };
    return [row, f(ts, "daemon"), f(real, "daemon"), f(ts, "wallet"), f(real, "wallet")];
  });
  process.stdout.write(
    `\nWhat each side did: CPU time (user + system, ms, median over the rounds; /proc, 10 ms ticks) of the daemon and of the real wallet during each row:\n\n${markdownTable(
      [
        { header: "CPU ms" },
        { header: "tsmonerod", align: "right" },
        { header: "monerod", align: "right" },
        { header: "wallet on tsmonerod", align: "right" },
        { header: "wallet on monerod", align: "right" },
      ],
      cpuRows,
    )}\n`,
  );
  if (wired) printWire(ts, real, wired);
  if (trace) {
    printTrace(ts, real, rounds);
    process.stdout.write(`\ntsmonerod's own per-call log (handler and encode times): ${TIMING_FILE}\n`);
  }
  if (replayed) process.stdout.write(replayed);
}

/** --wire: a row's timed calls on one daemon, and the exchanges the capture saw during them. */
function rowExchanges(side: Side, d: Daemon, row: Row, wired: ReadonlyMap<number, WireExchange[]>): { calls: number; xs: WireExchange[] } {
  const spans = side.windows.filter((w) => w.row === row);
  return { calls: spans.length, xs: (wired.get(PORTS[d].rpc) ?? []).filter((x) => spans.some((w) => x.requestAt >= w.from && x.requestAt <= w.to)) };
}

/** --wire: per row, each daemon's share of the calls as the capture saw it. */
function printWire(ts: Side, real: Side, wired: ReadonlyMap<number, WireExchange[]>): void {
  const of = (side: Side, d: Daemon, row: Row) => {
    const { calls, xs } = rowExchanges(side, d, row, wired);
    const turn = xs.map((x) => x.answerAt - x.requestAt);
    return { calls, exchanges: xs.length, perCall: calls ? turn.reduce((a, b) => a + b, 0) / calls : 0, median: median(turn) };
  };
  const rows = ROWS.filter((r) => r !== ROWS[1]).map((row) => {
    const a = of(ts, "tsmonerod", row);
    const b = of(real, "monerod", row);
    return [row, `${(a.exchanges / Math.max(1, a.calls)).toFixed(1)} / ${(b.exchanges / Math.max(1, b.calls)).toFixed(1)}`, `${a.perCall.toFixed(2)} / ${b.perCall.toFixed(2)}`, formatRatio(a.perCall / b.perCall), `${(1000 * a.median).toFixed(0)} / ${(1000 * b.median).toFixed(0)}`];
  });
  process.stdout.write(
    `
On the wire (--wire: tcpdump on loopback, both daemons' RPC ports; an exchange's turnaround is from a request's last segment to its answer's first, the daemon's whole share of it, TLS included):

${markdownTable(
      [
        { header: "row" },
        { header: "exchanges per call (ts / monerod)", align: "right" },
        { header: "daemon turnaround, ms per call (ts / monerod)", align: "right" },
        { header: "ratio", align: "right" },
        { header: "median exchange, µs (ts / monerod)", align: "right" },
      ],
      rows,
    )}

${wireBySize(ts, real, wired)}
`,
  );
}

/**
 * --wire, per row: the exchanges grouped by request size (the wallets send the same requests to
 * both daemons, so a size is one kind of call on both: /get_transaction_pool_hashes.bin,
 * /getblocks.bin from the top, one get_outs.bin…), the groups that cost the most first: how often
 * per call, and each daemon's turnaround quantiles. A mean far above the median is a tail (the
 * calls that land on a collection or on other work), a median above monerod's is the path itself.
 */
function wireBySize(ts: Side, real: Side, wired: ReadonlyMap<number, WireExchange[]>): string {
  const groups = (side: Side, d: Daemon, row: Row): { calls: number; bySize: Map<number, number[]> } => {
    const { calls, xs } = rowExchanges(side, d, row, wired);
    const bySize = new Map<number, number[]>();
    for (const x of xs) {
      const l = bySize.get(x.requestBytes) ?? [];
      l.push(1000 * (x.answerAt - x.requestAt));
      bySize.set(x.requestBytes, l);
    }
    return { calls, bySize };
  };
  const q = (v: readonly number[] | undefined): string =>
    v && v.length > 0 ? `${quantile(v, 0.5).toFixed(0)} / ${quantile(v, 0.9).toFixed(0)} / ${Math.max(...v).toFixed(0)} / ${mean(v).toFixed(0)}` : "—";
  const out: string[][] = [];
  for (const row of ROWS.filter((r) => r !== ROWS[1])) {
    const a = groups(ts, "tsmonerod", row);
    const b = groups(real, "monerod", row);
    const sizes = [...new Set([...a.bySize.keys(), ...b.bySize.keys()])];
    const cost = (size: number): number => [a, b].reduce((t, g) => t + (g.bySize.get(size) ?? []).reduce((x, y) => x + y, 0) / Math.max(1, g.calls), 0);
    for (const size of sizes.sort((x, y) => cost(y) - cost(x)).slice(0, 4)) {
      const na = (a.bySize.get(size)?.length ?? 0) / Math.max(1, a.calls);
      const nb = (b.bySize.get(size)?.length ?? 0) / Math.max(1, b.calls);
      out.push([row, String(size), `${na.toFixed(1)} / ${nb.toFixed(1)}`, q(a.bySize.get(size)), q(b.bySize.get(size))]);
    }
  }
  return `The same exchanges by request size (the four that cost the most per row; µs):

${markdownTable(
    [
      { header: "row" },
      { header: "request bytes", align: "right" },
      { header: "per call (ts / monerod)", align: "right" },
      { header: "tsmonerod p50 / p90 / max / mean", align: "right" },
      { header: "monerod p50 / p90 / max / mean", align: "right" },
    ],
    out,
  )}`;
}

/**
 * --replay: the requests each daemon's real wallets sent during the last round's refreshes, transfer
 * and sweep_all, sent again byte for byte `n` times to that daemon over one keep-alive connection,
 * plain and TLS, the two daemons alternating. Each daemon gets its own wallets' requests: the two
 * chains are the recorded chain plus blocks each daemon mined itself (their hashes differ), so a
 * getblocks.bin's block ids only fit the chain they came from, and the decoys a wallet picks are
 * its own draw of the same distribution (the answer bytes show the work is the same size). Times are
 * from the request's first byte written to the answer's last byte read, with no proxy in between.
 */
async function replayCalls(sides: ReadonlyMap<Daemon, Side>, n: number): Promise<string> {
  const modes = [false, true];
  const conns = new Map<string, ReplayConnection>();
  const conn = async (d: Daemon, tls: boolean): Promise<ReplayConnection> => {
    let c = conns.get(`${d}:${tls}`);
    if (!c || c.closed) conns.set(`${d}:${tls}`, (c = await ReplayConnection.open(PORTS[d].rpc, tls)));
    return c;
  };
  /** The last round's exchanges of a row on a side, by name: the last `count / rounds` of each name, in order. */
  const lastRound = (side: Side, row: Row): Map<string, Exchange[]> => {
    const perName = new Map<string, Exchange[]>();
    for (const e of (side.trace.get(row) ?? []).filter((x) => x.request)) perName.set(e.name, [...(perName.get(e.name) ?? []), e]);
    const rounds = side.ms.get(row)?.length ?? 1;
    for (const [name, list] of perName) perName.set(name, list.slice(list.length - Math.max(1, Math.round(list.length / rounds))));
    return perName;
  };
  const lines: string[][] = [];
  const retried: string[] = [];
  const totals = new Map<string, number>();
  const add = (k: string, v: number) => totals.set(k, (totals.get(k) ?? 0) + v);
  try {
    for (const row of ROWS.slice(2)) {
      const mine = new Map(DAEMONS.map((d) => [d, lastRound(sides.get(d)!, row)]));
      const names = [...new Set(DAEMONS.flatMap((d) => [...mine.get(d)!.keys()]))];
      for (const name of names) {
        const reqs = new Map(DAEMONS.map((d) => [d, mine.get(d)!.get(name) ?? []]));
        if (DAEMONS.some((d) => reqs.get(d)!.length === 0)) continue; // asked on one side only (the wallet's own caching): not comparable
        const cells: string[] = [];
        const bytes = new Map<Daemon, number>();
        for (const tls of modes) {
          const ms = new Map<Daemon, number[]>(DAEMONS.map((d) => [d, []]));
          for (let i = 0; i < n; i++) {
            const order = i % 2 === 0 ? DAEMONS : [...DAEMONS].reverse();
            for (const d of order) {
              let t = 0;
              let b = 0;
              for (const e of reqs.get(d)!) {
                // epee closes a keep-alive connection after a while; a close that crosses our request
                // on the wire fails that request. monerod 0.18.0.0 also sent a TLS record that failed
                // its MAC check once under replayed /get_outs.bin answers (OpenSSL "decryption failed
                // or bad record mac"). Either way the request is sent again on a new connection, at
                // most twice (every replayed request is a read); the retries are counted.
                let a: { status: number; bytes: number } | undefined;
                for (let attempt = 0; a === undefined; attempt++) {
                  const c = await conn(d, tls);
                  const t0 = performance.now();
                  try {
                    a = await c.send(e.request!);
                    t += performance.now() - t0;
                  } catch (err) {
                    if (attempt >= 2) throw new Error(`replay: ${d} ${tls ? "TLS" : "plain"} ${name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
                    c.close();
                    conns.delete(`${d}:${tls}`);
                    retried.push(`${d} ${tls ? "TLS" : "plain"} ${name}: ${err instanceof Error ? err.message.split("\n")[0].slice(0, 120) : String(err)}`);
                  }
                }
                b += a.bytes;
                if (a.status !== 200) throw new Error(`replay: ${d} answered ${name} with HTTP ${a.status}`);
              }
              ms.get(d)!.push(t);
              bytes.set(d, b);
            }
          }
          const [a, b] = DAEMONS.map((d) => median(ms.get(d)!));
          add(`tsmonerod:${tls}`, a);
          add(`monerod:${tls}`, b);
          cells.push(a.toFixed(2), b.toFixed(2), formatRatio(a / b));
        }
        const counts = DAEMONS.map((d) => reqs.get(d)!.length).join(" / ");
        lines.push([`${row.split(" (")[0]}: ${name}`, counts, DAEMONS.map((d) => bytes.get(d)).join(" / "), ...cells]);
      }
    }
  } finally {
    for (const c of conns.values()) c.close();
  }
  const sum = modes.flatMap((tls) => {
    const [a, b] = DAEMONS.map((d) => totals.get(`${d}:${tls}`) ?? 0);
    return [a.toFixed(2), b.toFixed(2), formatRatio(a / b)];
  });
  lines.push(["all of the above", "", "", ...sum]);
  return `\n### The daemon's share, replayed: each daemon's real wallets' requests of the last round, sent again ${n} times to it, plain HTTP and TLS\n\n${markdownTable(
    [
      { header: "row: call" },
      { header: "requests ts / m", align: "right" },
      { header: "answer bytes ts / m", align: "right" },
      { header: "plain: tsmonerod ms", align: "right" },
      { header: "monerod ms", align: "right" },
      { header: "ratio", align: "right" },
      { header: "TLS: tsmonerod ms", align: "right" },
      { header: "monerod ms", align: "right" },
      { header: "ratio", align: "right" },
    ],
    lines,
  )}\n\n${retried.length ? `Requests sent again on a new connection after a failure (${retried.length}): ${[...new Set(retried)].join("; ")}.\n\n` : ""}Medians over the ${n} repetitions. Each daemon gets the requests its own wallets sent (the chains' own block ids; each wallet's own decoy draw: the answer sizes show the same work). One keep-alive connection per daemon and mode, opened again only when the daemon closed it (no connect or handshake in the times).\n`;
}

function printTrace(ts: Side, real: Side, rounds: number): void {
  for (const row of ROWS.slice(0, 1).concat(ROWS.slice(2))) {
    const a = byName(ts.trace.get(row) ?? []);
    const b = new Map(byName(real.trace.get(row) ?? []).map((r) => [r.name, r]));
    const names = [...new Set([...a.map((r) => r.name), ...b.keys()])];
    const am = new Map(a.map((r) => [r.name, r]));
    const lines = names.map((n) => {
      const x = am.get(n);
      const y = b.get(n);
      const f = (r: typeof x) => (r ? [(r.count / rounds).toFixed(1), (r.totalMs / rounds).toFixed(1), r.maxMs.toFixed(1), (r.resBytes / r.count).toFixed(0)] : ["—", "—", "—", "—"]);
      return [n, ...f(x), ...f(y)];
    });
    const conns = (s: Side) => new Set((s.trace.get(row) ?? []).map((e) => e.conn)).size / rounds;
    process.stdout.write(`\n### ${row.trim()}: per call (per round: count, ms summed; max ms of one call; answer bytes) — connections per round: tsmonerod ${conns(ts).toFixed(1)}, monerod ${conns(real).toFixed(1)}\n\n`);
    process.stdout.write(
      `${markdownTable(
        [
          { header: "exchange" },
          { header: "ts n", align: "right" },
          { header: "ts ms", align: "right" },
          { header: "ts max", align: "right" },
          { header: "ts bytes", align: "right" },
          { header: "m n", align: "right" },
          { header: "m ms", align: "right" },
          { header: "m max", align: "right" },
          { header: "m bytes", align: "right" },
        ],
        lines,
      )}\n`,
    );
  }
}

export const suite: BenchSuite = {
  name: "real-wallet",
  summary: "a real monero-wallet-rpc with default flags on tsmonerod vs on monerod: restore+refresh, refresh, transfer, sweep_all",
  flags: FLAGS,
  run,
};
