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
 *   refresh             refresh with no new block (what every later refresh costs)
 *   refresh, 1 block    one generateblocks (not timed), then refresh
 *   transfer            bob, 1 destination, do_not_relay (built, signed, not relayed)
 *   sweep_all           bob, 50 inputs (the rest frozen), do_not_relay
 * The table gives per daemon the median and the min–max of the rounds, the ratio of the medians and
 * the median of the per-round ratios.
 *
 * --trace puts a logging TCP proxy (bench/lib/trace-proxy.ts) between each wallet and its daemon
 * and prints, per row, what the wallet asked and how long each answer took (from the request's last
 * byte to the answer's last byte), summed over the rounds. The wallet talks TLS (autodetect), so
 * exchanges are not named; --plain gives the wallets --daemon-ssl disabled, which names them.
 * Results, causes found and what is left: docs/bench-real-wallet.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { recordedBlocks, WALLET_SEEDS } from "../test/helpers/chain.js";
import { formatRatio, median } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { byName, type Exchange, TraceProxy } from "./lib/trace-proxy.js";
import { agents, launch, type Proc, replayRecordedChain, rpc, stop, waitAnswer } from "./wallet.js";

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
  { name: "quick", takesValue: false, help: "120 extra blocks, 3 rounds" },
  { name: "trace", takesValue: false, help: "Per-call table: a logging proxy between each wallet and its daemon (adds a hop to both)" },
  { name: "plain", takesValue: false, help: "With --trace: wallets get --daemon-ssl disabled, so calls are named" },
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
}

/** A process's CPU time so far (all its threads), ms; 0 where /proc is not there. */
function cpuMs(p: Proc): number {
  try {
    const f = readFileSync(`/proc/${p.proc.pid}/stat`, "latin1");
    const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
    return (Number(rest[11]) + Number(rest[12])) * 10; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
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
    : launch("tsmonerod", process.execPath, [join(ROOT, "bin", "tsmonerod"), ...flags], dir, timingFile ? { TSMONERO_RPC_TIMING: timingFile } : undefined);
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

async function setUp(which: Daemon, extra: number, trace: boolean, plain: boolean): Promise<Side> {
  const p = PORTS[which];
  // with --trace, tsmonerod also logs each call's handler time (src/rpc/server.ts TSMONERO_RPC_TIMING)
  const daemon = startDaemon(which, trace ? TIMING_FILE : undefined);
  const side: Side = { daemon, alice: undefined as unknown as Proc, bob: undefined as unknown as Proc, height: 0, ms: new Map(), cpu: new Map(), trace: new Map() };
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
  await waitAnswer(side.alice, p.alice, "get_version");
  await waitAnswer(side.bob, p.bob, "get_version");
  // bob: restored once, refreshed, one untimed transfer and sweep (the wallet's own first-time work)
  const b = (method: string, params: unknown = {}) => rpc(p.bob, method, params);
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

/** One round on one daemon: every row once. */
async function round(which: Daemon, side: Side, i: number): Promise<void> {
  const p = PORTS[which];
  const a = (method: string, params: unknown = {}) => rpc(p.alice, method, params);
  const b = (method: string, params: unknown = {}) => rpc(p.bob, method, params);
  const add = (row: Row, t0: number, t1 = performance.now()) => {
    const list = side.ms.get(row) ?? [];
    list.push(t1 - t0);
    side.ms.set(row, list);
  };
  const traced = async (row: Row, f: () => Promise<unknown>, wallet = side.alice): Promise<void> => {
    const mark = side.proxy?.now() ?? 0;
    const c0 = [cpuMs(side.daemon), cpuMs(wallet)];
    const t0 = performance.now();
    await f();
    add(row, t0);
    const c = side.cpu.get(row) ?? { daemon: [], wallet: [] };
    c.daemon.push(cpuMs(side.daemon) - c0[0]);
    c.wallet.push(cpuMs(wallet) - c0[1]);
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
  await traced(ROWS[2], () => a("refresh"));
  await rpc(p.rpc, "generateblocks", { amount_of_blocks: 1, wallet_address: BOB });
  await traced(ROWS[3], () => a("refresh"));
  await traced(ROWS[4], () => b("transfer", TRANSFER), side.bob);
  await traced(ROWS[5], () => b("sweep_all", SWEEP), side.bob);
}

function spread(xs: readonly number[]): string {
  return `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const extra = Number(flagString(args, "extra-blocks") ?? (quick ? "120" : "300"));
  const rounds = Number(flagString(args, "rounds") ?? (quick ? "3" : "7"));
  const trace = flagSet(args, "trace");
  if (trace) rmSync(TIMING_FILE, { force: true });
  const plain = flagSet(args, "plain");
  for (const bin of ["/usr/bin/monerod", "/usr/bin/monero-wallet-rpc"]) {
    if (!existsSync(bin)) throw new Error(`bench real-wallet needs Debian package monero (apt-get install -y monero); missing ${bin}`);
  }
  const sides = new Map<Daemon, Side>();
  const procs: Proc[] = [];
  try {
    for (const d of DAEMONS) {
      const s = await setUp(d, extra, trace, plain);
      sides.set(d, s);
      procs.push(s.daemon, s.alice, s.bob);
    }
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? DAEMONS : [...DAEMONS].reverse();
      for (const d of order) {
        progress(`real-wallet: round ${i + 1}/${rounds}: ${d}`);
        await round(d, sides.get(d)!, i);
      }
    }
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
    return [row, median(a).toFixed(0), spread(a), median(b).toFixed(0), spread(b), formatRatio(r), formatRatio(perRound), r <= 1 ? "met" : "NOT met"];
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
    `\nChain: test/fixtures/chain (333 blocks) + ${extra} blocks mined to bob (${ts.height} blocks; +1 per round). Both daemons up at once, ` +
      `each with its own two real wallets; in each round every row runs once on each daemon, the first daemon alternating.${trace ? " Through the trace proxy (one more hop on both sides)." : ""}\n`,
  );
  const cpuRows = ROWS.filter((r) => r !== ROWS[1]).map((row) => {
    const f = (side: Side, k: "daemon" | "wallet") => {
      const xs = side.cpu.get(row)?.[k] ?? [];
      return xs.length ? median(xs).toFixed(0) : "—";
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
  if (trace) {
    printTrace(ts, real, rounds);
    process.stdout.write(`\ntsmonerod's own per-call log (handler and encode times): ${TIMING_FILE}\n`);
  }
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
