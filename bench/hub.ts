/**
 * `npm run bench -- hub`: many wallets in one WalletHub (issue 20) against as many separate wallet
 * services, on one tsmonerod regtest chain (ports 19750-19759), in the same run.
 *
 * Setup: --wallets wallets (default 1,000) are created at height 1 (their files, as create_wallet writes them);
 * a funder pays every one of them a different amount (transfers of 15 destinations + change), the
 * chain is mined 11 blocks past the last transfer. Then, for N = 1, 10, 100, 1,000:
 *   hub       a fresh WalletHub opens the first N wallets (from copies of the kept files), waits for its
 *             scan threads to be idle, and refreshes all N together (WalletService.refresh each: the
 *             blocks, the pool, the store): the CPU time of this process (all its threads) and of
 *             tsmonerod during that refresh, and the wall time. Every balance is checked.
 *   separate  N WalletServices, each with its own node client and its own scan worker thread (what N
 *             tsmonero-wallet-rpc processes do, without the N processes' runtimes: counted for them),
 *             same wallets, same refresh, measured the same way, for N ≤ --separate-max (default 10);
 *             above that the row says "extrapolated": N × the per-service CPU measured at the largest
 *             measured N.
 *   real      when /usr/bin/monero-wallet-rpc is installed: the first wallet restored from its keys in
 *             a real monero-wallet-rpc on the same tsmonerod, and its CPU (/proc, all threads) for one
 *             refresh of the same chain (median of 7 restores): the "one service" most integrators run
 *             today, one process per wallet; a second ratio column.
 * Memory per open wallet: the RSS growth of this process with the hub's N wallets open (and idle),
 * divided by N, next to the same for N separate services.
 * Each side prints what it did: get_blocks.bin requests and fetches, blocks parsed, scan threads.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { type NodeApi, NodeClient } from "../src/client/node-client.js";
import { WalletHub } from "../src/wallet/hub/hub.js";
import { startWalletRpc } from "../src/wallet/rpc/index.js";
import { defaultBackend } from "../src/crypto/index.js";
import { randomScalar } from "../src/crypto/random.js";
import { createWallet } from "../src/wallet/keys/rpc.js";
import { WalletService } from "../src/wallet/service/service.js";
import { OpenWallet } from "../src/wallet/service/wallet.js";
import { type Daemon, stopDaemon, waitReady } from "../test/helpers/monerod.js";
import { call, startRegtestNode, startWallet, stopProcesses, waitWallet } from "../test/helpers/wallet-rpc.js";
import { existsSync } from "node:fs";
import { bytesToHex } from "../src/base/bytes.js";
import type { AccountKeys } from "../src/wallet/keys/account.js";
import { formatRatio } from "./lib/stats.js";
import { type BenchSuite, flagString, progress } from "./lib/suite.js";
import { machineLine, processStat } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";

const PORTS = { node: 19750, funder: 19752, real: 19754 } as const;
const REAL_WALLET_RPC = "/usr/bin/monero-wallet-rpc";
const REAL_REPEATS = 7;
const FAST_KDF = { log2N: 10, r: 8, p: 1 };
const PER_TX = 15;
const amountOf = (i: number): bigint => 1_000_000_000n * BigInt(i + 1);
const name = (i: number) => `w${String(i).padStart(4, "0")}`;
const log = () => undefined;

const FLAGS: readonly FlagSpec[] = [
  { name: "wallets", takesValue: true, help: "Wallets created and paid (the largest N)", defaultValue: "1000" },
  { name: "separate-max", takesValue: true, help: "Largest N measured with separate services (above: extrapolated)", defaultValue: "10" },
];

/** CPU seconds (user + system) of a process, from /proc/PID/stat. */
function procCpu(pid: number): number {
  const s = processStat(pid);
  if (!s) throw new Error(`process ${pid}: /proc/${pid}/stat cannot be read`);
  return s.cpuMs / 1000;
}
const selfCpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const rssKiB = (): number => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Waits until this process uses under 5 % of a core over 500 ms (background table building is over). */
async function quiesce(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const c0 = selfCpu();
    await new Promise((r) => setTimeout(r, 500));
    if (selfCpu() - c0 < 0.025) return;
  }
}

/**
 * µs per key derivation in the many-wallet kernel (generateKeyDerivations: one tx key's table, then
 * one walk per view key), as a scan thread calls it: `n` view keys per call, median of 5 timings.
 */
function derivationMicros(n: number): number {
  const be = defaultBackend();
  const keys = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) keys.set(randomScalar(be), 32 * i);
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const pub = be.scalarMultBase(randomScalar(be));
    const t0 = performance.now();
    for (let k = 0; k < 10; k++) be.generateKeyDerivations(pub, keys);
    times.push(((performance.now() - t0) * 1000) / (10 * n));
  }
  return times.sort((a, b) => a - b)[2];
}

/** A NodeApi counting get_blocks.bin calls (the separate services' fetches). */
function counting(node: NodeApi, counter: { n: number }): NodeApi {
  return new Proxy(node, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv) as unknown;
      if (prop === "getBlocksBin" && typeof v === "function")
        return (...a: unknown[]) => {
          counter.n++;
          return (v as (...x: unknown[]) => unknown).apply(target, a);
        };
      return typeof v === "function" ? (v as (...x: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function balanceOf(svc: WalletService): bigint {
  const rep = svc.wallet().ledger.balanceReport([0], BigInt(Math.floor(Date.now() / 1000)));
  let b = 0n;
  for (const r of rep.get(0)?.rows ?? []) b += r.unlockedBalance;
  return b;
}

interface Measured {
  n: number;
  cpu: number;
  nodeCpu: number;
  wall: number;
  rssPerWallet: number;
  work: string;
  /** The longest the main thread's event loop was held during the refresh (ms; monitorEventLoopDelay, 5 ms resolution). */
  stallMs: number;
  /** Key derivations the refresh made (hub only). */
  derivations?: number;
}

async function runHub(template: string, nodeUrl: string, daemon: Daemon, n: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-hub-"));
  cpSync(template, dir, { recursive: true });
  gc();
  const rss0 = rssKiB();
  const node = new NodeClient({ url: nodeUrl, timeoutMs: 600_000 });
  const hub = new WalletHub({ network: "regtest", walletDir: dir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
  try {
    const ws = [];
    for (let i = 0; i < n; i++) ws.push(await hub.open(name(i), { password: "", login: null }));
    await hub.scanPool.idle();
    await quiesce();
    gc();
    const rssPerWallet = (rssKiB() - rss0) / n;
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const [c0, nc0, t0] = [selfCpu(), procCpu(daemon.proc.pid ?? 0), performance.now()];
    await Promise.all(ws.map((w) => w.service.refresh()));
    const [c1, nc1, t1] = [selfCpu(), procCpu(daemon.proc.pid ?? 0), performance.now()];
    loop.disable();
    ws.forEach((w, i) => {
      if (balanceOf(w.service) !== amountOf(i)) throw new Error(`hub ${w.name}: balance ${balanceOf(w.service)}, expected ${amountOf(i)}`);
    });
    const s = hub.stats;
    const sc = hub.scanStats;
    const work = `get_blocks.bin ${s?.requests} asked / ${s?.fetches} sent; ${sc.walletBlocks} wallet-blocks scanned, ${sc.blocksParsed} blocks parsed; ${sc.derivations} key derivations; ${sc.batches} messages to ${hub.scanPool.threadCount} scan threads`;
    return { n, cpu: c1 - c0, nodeCpu: nc1 - nc0, wall: (t1 - t0) / 1000, rssPerWallet, work, derivations: sc.derivations, stallMs: loop.max / 1e6 };
  } finally {
    await hub.stop();
    node.close(); // its keep-alive sockets would count against tsmonerod's 100 connections per IP in the next runs
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runSeparate(template: string, nodeUrl: string, daemon: Daemon, n: number): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-sep-"));
  cpSync(template, dir, { recursive: true });
  gc();
  const rss0 = rssKiB();
  const fetches = { n: 0 };
  const services: WalletService[] = [];
  const clients: NodeClient[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const client = new NodeClient({ url: nodeUrl, timeoutMs: 600_000 });
      clients.push(client);
      const node = counting(client, fetches);
      const svc = new WalletService({ network: "regtest", walletDir: dir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
      services.push(svc);
      await svc.openWallet({ filename: name(i), password: "", autosave_current: false });
    }
    await quiesce();
    gc();
    const rssPerWallet = (rssKiB() - rss0) / n;
    fetches.n = 0;
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const [c0, nc0, t0] = [selfCpu(), procCpu(daemon.proc.pid ?? 0), performance.now()];
    await Promise.all(services.map((s) => s.refresh()));
    const [c1, nc1, t1] = [selfCpu(), procCpu(daemon.proc.pid ?? 0), performance.now()];
    loop.disable();
    services.forEach((s, i) => {
      if (balanceOf(s) !== amountOf(i)) throw new Error(`separate ${name(i)}: balance ${balanceOf(s)}, expected ${amountOf(i)}`);
    });
    const blocks = services.reduce((a, s) => a + s.wallet().ledger.height, 0);
    const work = `get_blocks.bin ${fetches.n} sent (one stream per service); every service parses every block (~${blocks} wallet-heights); ${n} scan threads`;
    return { n, cpu: c1 - c0, nodeCpu: nc1 - nc0, wall: (t1 - t0) / 1000, rssPerWallet, work, stallMs: loop.max / 1e6 };
  } finally {
    await Promise.all(services.map((s) => s.stop()));
    for (const c of clients) c.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One real monero-wallet-rpc's cost for the same wallet and chain: what an integrator runs today per wallet. */
interface RealMeasured {
  cpu: number;
  nodeCpu: number;
  wall: number;
  /** The process's RSS with the wallet open after the refresh, KiB. */
  rss: number;
  /** Refreshes measured (the figures are their medians). */
  runs: number;
}

/**
 * Wallet 0 restored from its keys (generate_from_keys at the wallets' creation height) in a real
 * monero-wallet-rpc on the same tsmonerod, auto refresh off, then one `refresh`: that process's CPU
 * (all its threads, /proc) and tsmonerod's during the refresh. The balance is checked like the others.
 */
async function runReal(keys: AccountKeys, address: string, restoreHeight: bigint, nodeUrl: string, daemon: Daemon): Promise<RealMeasured> {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-hub-real-"));
  const wallet = startWallet(REAL_WALLET_RPC, nodeUrl, PORTS.real, dir);
  try {
    await waitWallet(wallet);
    await call(wallet.url, "auto_refresh", { enable: false });
    const pid = wallet.proc.pid ?? 0;
    // /proc counts 10 ms ticks and one refresh takes tens of ms: the wallet is restored REAL_REPEATS
    // times (generate_from_keys under a new name, which closes the one before), each one refreshed
    // once, the same work every time; the row is their median. (rescan_blockchain is not the same
    // work: it costs wallet2 several times a first refresh.)
    const runs: { cpu: number; nodeCpu: number; wall: number }[] = [];
    for (let r = 0; r < REAL_REPEATS; r++) {
      await call(wallet.url, "generate_from_keys", {
        filename: `real${r}`,
        password: "",
        address,
        viewkey: bytesToHex(keys.viewSecretKey),
        spendkey: bytesToHex(keys.spendSecretKey ?? new Uint8Array(32)),
        restore_height: Number(restoreHeight),
        autosave_current: false,
      });
      const [c0, nc0, t0] = [procCpu(pid), procCpu(daemon.proc.pid ?? 0), performance.now()];
      await call(wallet.url, "refresh");
      const [c1, nc1, t1] = [procCpu(pid), procCpu(daemon.proc.pid ?? 0), performance.now()];
      runs.push({ cpu: c1 - c0, nodeCpu: nc1 - nc0, wall: (t1 - t0) / 1000 });
      const b = await call(wallet.url, "get_balance");
      if (BigInt(String(b.unlocked_balance)) !== amountOf(0)) throw new Error(`monero-wallet-rpc: balance ${String(b.unlocked_balance)}, expected ${amountOf(0)}`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const rss = Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return { cpu: median(runs.map((x) => x.cpu)), nodeCpu: median(runs.map((x) => x.nodeCpu)), wall: median(runs.map((x) => x.wall)), rss, runs: runs.length };
  } finally {
    await stopProcesses([wallet]);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(args: ParsedArgs): Promise<void> {
  const total = Math.max(1, Number(flagString(args, "wallets") ?? "1000"));
  const sepMax = Math.max(1, Number(flagString(args, "separate-max") ?? "10"));
  const sizes = [1, 10, 100, 1000].filter((n) => n <= total);
  if (!sizes.includes(total)) sizes.push(total);
  const dirs: string[] = [];
  const mk = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p));
    dirs.push(d);
    return d;
  };
  const daemon = startRegtestNode("tsmonerod", [PORTS.node, PORTS.node + 1], mk("tsmonero-bench-hub-node-"));
  const node = new NodeClient({ url: daemon.url, timeoutMs: 600_000 });
  try {
    await waitReady(daemon, node);
    // the wallets, created in a hub at the chain's start; their files are the template of every run
    const template = mk("tsmonero-bench-hub-wallets-");
    // (files only, as create_wallet writes them: no scanner is built for them here)
    progress(`hub: creating ${total} wallets`);
    const addresses: string[] = [];
    let firstKeys: AccountKeys | undefined;
    const be = defaultBackend();
    const restoreHeight = BigInt((await node.getHeight()).height);
    for (let i = 0; i < total; i++) {
      const kw = createWallet({ language: "English" }, "regtest", randomScalar(be), be);
      const w = await OpenWallet.create({ dir: template, name: name(i), network: "regtest", password: "", keys: kw.keys, seedLanguage: kw.seedLanguage, restoreHeight, kdf: FAST_KDF, log });
      addresses.push(w.address({ major: 0, minor: 0 }));
      firstKeys ??= kw.keys;
      await w.close();
    }
    // the funder pays every wallet
    const funderDir = mk("tsmonero-bench-hub-funder-");
    const funder = new WalletService({ network: "regtest", walletDir: funderDir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
    const server = await startWalletRpc({ service: funder, port: PORTS.funder, log });
    const furl = `http://127.0.0.1:${PORTS.funder}`;
    try {
      await call(furl, "create_wallet", { filename: "funder", password: "", language: "English" });
      const funderAddress = String((await call(furl, "get_address")).address);
      const txs = Math.ceil(total / PER_TX);
      // coinbase outputs unlock after 60 blocks: up to three spendable coinbases per transfer (the
      // input selection likes two inputs), and enough unlocked outputs for rings of 16
      progress(`hub: mining ${60 + 3 * txs + 30} blocks to the funder, then ${txs} transfers`);
      await node.jsonRpc("generateblocks", { amount_of_blocks: 60 + 3 * txs + 30, wallet_address: funderAddress });
      await call(furl, "refresh");
      for (let k = 0; k < total; k += PER_TX) {
        const destinations = addresses.slice(k, k + PER_TX).map((address, j) => ({ address, amount: amountOf(k + j) }));
        await call(furl, "transfer", { destinations });
      }
      await node.jsonRpc("generateblocks", { amount_of_blocks: 11, wallet_address: funderAddress });
    } finally {
      await server.close();
      await funder.stop();
    }
    const height = Number((await node.getHeight()).height);
    const hubRows: Measured[] = [];
    const sepRows: Measured[] = [];
    for (const n of sizes) {
      progress(`hub: N = ${n} in one hub`);
      const said = (m: Measured) => `  CPU ${m.cpu.toFixed(2)} s, node CPU ${m.nodeCpu.toFixed(2)} s, wall ${m.wall.toFixed(1)} s, RSS/wallet ${m.rssPerWallet.toFixed(0)} KiB, longest loop stall ${m.stallMs.toFixed(0)} ms; ${m.work}`;
      hubRows.push(await runHub(template, daemon.url, daemon, n));
      progress(said(hubRows[hubRows.length - 1]));
      if (n <= sepMax) {
        progress(`hub: N = ${n} separate services`);
        sepRows.push(await runSeparate(template, daemon.url, daemon, n));
        progress(said(sepRows[sepRows.length - 1]));
      }
    }
    let real: RealMeasured | undefined;
    if (existsSync(REAL_WALLET_RPC) && firstKeys) {
      progress("hub: one real monero-wallet-rpc, the first wallet restored from its keys");
      real = await runReal(firstKeys, addresses[0], restoreHeight, daemon.url, daemon);
      progress(`  median of ${real.runs} refreshes: CPU ${real.cpu.toFixed(3)} s, node CPU ${real.nodeCpu.toFixed(2)} s, wall ${real.wall.toFixed(1)} s, RSS ${(real.rss / 1024).toFixed(0)} MiB`);
    }
    const perService = sepRows[sepRows.length - 1];
    const perServiceCpu = perService.cpu / perService.n;
    const perServiceNode = perService.nodeCpu / perService.n;
    const one = sepRows[0];
    process.stdout.write(`\n## hub: N wallets in one WalletHub vs N separate wallet services\n\n${machineLine()}\n`);
    process.stdout.write(
      `Chain: tsmonerod regtest, ${height} blocks; ${Math.ceil(total / PER_TX)} transfers paying ${total} wallets (15 each); every wallet refreshes from its creation height (~1) to the top.\n` +
        `Cost = CPU seconds of this process (all threads) during the refresh of all N wallets; tsmonerod's CPU apart. Hub: one WalletHub, ${Math.min(availableParallelism(), 8)} shared scan threads; separate: one scan worker thread per service.\n\n`,
    );
    const rows = hubRows.map((h) => {
      const s = sepRows.find((x) => x.n === h.n);
      const sepCpu = s ? s.cpu : h.n * perServiceCpu;
      const sepNode = s ? s.nodeCpu : h.n * perServiceNode;
      return [
        String(h.n),
        h.cpu.toFixed(2),
        h.nodeCpu.toFixed(2),
        h.wall.toFixed(1),
        s ? sepCpu.toFixed(2) : `${sepCpu.toFixed(1)} (extrapolated: ${h.n} × ${perServiceCpu.toFixed(3)} measured at N = ${perService.n})`,
        s ? sepNode.toFixed(2) : `${sepNode.toFixed(1)} (extrapolated)`,
        s ? s.wall.toFixed(1) : "",
        formatRatio(sepCpu / h.cpu),
        formatRatio(h.cpu / one.cpu),
        real ? formatRatio(h.cpu / real.cpu) : "—",
        `${h.rssPerWallet.toFixed(0)}${s ? ` / ${s.rssPerWallet.toFixed(0)}` : ""}`,
        `${h.stallMs.toFixed(0)}${s ? ` / ${s.stallMs.toFixed(0)}` : ""}`,
      ];
    });
    process.stdout.write(
      `${markdownTable(
        [
          { header: "N", align: "right" },
          { header: "hub CPU s", align: "right" },
          { header: "hub: node CPU s", align: "right" },
          { header: "hub wall s", align: "right" },
          { header: "separate CPU s", align: "right" },
          { header: "separate: node CPU s", align: "right" },
          { header: "separate wall s", align: "right" },
          { header: "separate/hub CPU", align: "right" },
          { header: "hub CPU / one service's", align: "right" },
          { header: "hub CPU / one monero-wallet-rpc's", align: "right" },
          { header: "RSS KiB per open wallet (hub / separate)", align: "right" },
          { header: "longest event-loop stall ms (hub / separate)", align: "right" },
        ],
        rows,
      )}\n\n`,
    );
    const last = hubRows[hubRows.length - 1];
    process.stdout.write(
      `Goal (issue 20): ${total} wallets in one hub at under 20× the cost of one service: ${formatRatio(last.cpu / one.cpu)}× one tsmonero wallet service (same runtime, its scan thread), ` +
        (real ? `${formatRatio(last.cpu / real.cpu)}× one monero-wallet-rpc (a process of its own; median of ${real.runs} refreshes of the whole chain: CPU ${real.cpu.toFixed(3)} s, tsmonerod's ${real.nodeCpu.toFixed(2)} s, wall ${real.wall.toFixed(1)} s, RSS ${(real.rss / 1024).toFixed(0)} MiB with the wallet open; its refresh pulls and parses the same blocks).\n` : "monero-wallet-rpc not installed: no row for it.\n"),
    );
    // the part no sharing removes: each wallet derives its own key for every tx public key
    const micros = derivationMicros(Math.max(1, Math.ceil(last.n / 2)));
    const floor = ((last.derivations ?? 0) * micros) / 1e6;
    process.stdout.write(
      `Floor at N = ${last.n}: ${last.derivations} key derivations (every wallet × every tx public key) at ${micros.toFixed(1)} µs each in the kernel (measured now, ${Math.ceil(last.n / 2)} view keys per call) = ${floor.toFixed(2)} s of CPU, ${formatRatio(floor / one.cpu)}× one service's whole refresh, before any other work.\n\nWork done:\n`,
    );
    for (const h of hubRows) process.stdout.write(`- hub, N = ${h.n}: ${h.work}\n`);
    for (const s of sepRows) process.stdout.write(`- separate, N = ${s.n}: ${s.work}\n`);
    process.stdout.write("Separate services here share this process's runtime; N real tsmonero-wallet-rpc processes would each add a Node runtime's memory and start-up.\n");
  } finally {
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: "hub",
  summary: "N wallets in one hub vs N separate services: scan cost of one refresh and memory per open wallet",
  flags: FLAGS,
  run,
};
