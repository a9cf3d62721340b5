/**
 * `npm run bench -- real-wallet`: the real monero-wallet-rpc (Debian package `monero`) with default
 * flags — no --daemon-ssl*, so it tries TLS first (autodetect) — on tsmonerod and on monerod, each
 * daemon alone on the same replayed chain (issue 13's acceptance row: at least as fast on tsmonerod).
 *
 * The chain: test/fixtures/chain (333 blocks, 154 txs made by real wallets) replayed into
 * `--regtest --offline --fixed-difficulty 1` (ports 29370-29372), then --extra-blocks mined to bob.
 * Rows, ms per call, median of --repeats after one uncounted call where noted:
 *   restore + refresh   restore_deterministic_wallet (alice, restore_height 0) + refresh (no warm-up: the first contact is part of it);
 *                       the refresh alone on its own row (the restore is the wallet's own work, mostly its
 *                       RSA client certificate for TLS autodetect, seconds that vary from wallet to wallet)
 *   refresh             refresh with no new block (what every later refresh costs)
 *   refresh, 1 new block one generateblocks, then refresh
 *   transfer            1 destination, do_not_relay (built, signed, not relayed)
 *   sweep_all           50 inputs (the rest frozen), do_not_relay
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { recordedBlocks, WALLET_SEEDS } from "../test/helpers/chain.js";
import { formatRatio, median } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { agents, launch, type Proc, replayRecordedChain, rpc, stop, waitAnswer } from "./wallet.js";

const DAEMON_RPC = 29370;
const DAEMON_P2P = 29371;
const WALLET_PORT = 29372;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
const CAROL = "42C1Dp59SFVM1VzBdzc7xJFkEmNGvKLSVMFU3cuhvvAJFwtQjUCMkV1XisaXJPUfKU6drNCSHx59kNn4iCNcqTGXMzNbksS";
type Daemon = "monerod" | "tsmonerod";

const FLAGS: readonly FlagSpec[] = [
  { name: "extra-blocks", takesValue: true, help: "Blocks mined to bob after the recorded chain (≥ 120: the sweep needs 50 unlocked outputs)", defaultValue: "300" },
  { name: "repeats", takesValue: true, help: "Timed calls per row (median)", defaultValue: "5" },
  { name: "quick", takesValue: false, help: "120 extra blocks, 3 timed calls per row" },
];

const ROWS = ["restore + refresh (alice from 0)", "  of which the refresh (the whole chain)", "refresh, no new block", "refresh after 1 new block", "transfer, 1 destination (do_not_relay)", "sweep_all of 50 inputs (do_not_relay)"] as const;
type Row = (typeof ROWS)[number];

interface Figures {
  height: number;
  ms: Partial<Record<Row, number[]>>;
  error?: string;
}

function startDaemon(which: Daemon): Proc {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-bench-rw-${which}-`));
  const flags = [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(DAEMON_RPC), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(DAEMON_P2P),
    "--no-zmq", "--non-interactive", "--log-level", "0",
  ];
  return which === "monerod"
    ? launch("monerod", "/usr/bin/monerod", flags, dir)
    : launch("tsmonerod", process.execPath, [join(ROOT, "bin", "tsmonerod"), ...flags], dir);
}

/** The real wallet with default flags: only where its files go, where the daemon is, and its own port. */
function startRealWallet(): Proc {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-rw-wallet-"));
  return launch("monero-wallet-rpc", "/usr/bin/monero-wallet-rpc", [
    "--wallet-dir", dir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${DAEMON_RPC}`, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(WALLET_PORT), "--log-file", join(dir, "wallet.log"), "--non-interactive",
  ], dir);
}

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function measure(which: Daemon, extra: number, repeats: number): Promise<Figures> {
  const f: Figures = { height: 0, ms: {} };
  let daemon: Proc | undefined;
  let wallet: Proc | undefined;
  const w = (method: string, params: unknown = {}) => rpc(WALLET_PORT, method, params);
  try {
    daemon = startDaemon(which);
    await waitAnswer(daemon, DAEMON_RPC, "get_info");
    progress(`real-wallet: ${which}: replaying test/fixtures/chain and mining ${extra} blocks`);
    f.height = await replayRecordedChain(DAEMON_RPC, extra);
    wallet = startRealWallet();
    await waitAnswer(wallet, WALLET_PORT, "get_version");
    const add = (row: Row, ms: number) => (f.ms[row] ??= []).push(ms);
    for (let i = 0; i < repeats; i++) {
      progress(`real-wallet: ${which}: restore + refresh ${i + 1}/${repeats}`);
      if (i > 0) await w("close_wallet");
      // the restore itself is mostly the wallet's own work (keys, subaddress tables, and a fresh RSA
      // client certificate for its TLS-autodetect connection, whose generation time varies by seconds
      // from one wallet to the next); the refresh is where the daemon serves the chain
      const t0 = performance.now();
      await w("restore_deterministic_wallet", { filename: `alice-${i}`, seed: WALLET_SEEDS.alice, password: "", restore_height: 0, language: "English" });
      const t1 = performance.now();
      await w("refresh");
      add(ROWS[0], performance.now() - t0);
      add(ROWS[1], performance.now() - t1);
      await w("auto_refresh", { enable: false });
    }
    const h = Number((await w("get_height")).height);
    if (h !== f.height) throw new Error(`alice's height ${h} after refresh, daemon ${f.height}`);
    for (let i = 0; i < repeats; i++) add(ROWS[2], await timed(() => w("refresh")));
    for (let i = 0; i < repeats; i++) {
      await rpc(DAEMON_RPC, "generateblocks", { amount_of_blocks: 1, wallet_address: BOB });
      add(ROWS[3], await timed(() => w("refresh")));
    }
    await w("close_wallet");
    await w("restore_deterministic_wallet", { filename: "bob", seed: WALLET_SEEDS.bob, password: "", restore_height: recordedBlocks().length, language: "English" });
    await w("auto_refresh", { enable: false });
    await w("refresh");
    const transfer = { destinations: [{ address: CAROL, amount: 1_000_000_000 }], do_not_relay: true };
    progress(`real-wallet: ${which}: transfer`);
    await w("transfer", transfer);
    for (let i = 0; i < repeats; i++) add(ROWS[4], await timed(() => w("transfer", transfer)));
    const inc = (await w("incoming_transfers", { transfer_type: "available" })) as { transfers?: { key_image: string; unlocked: boolean }[] };
    const unlocked = (inc.transfers ?? []).filter((t) => t.unlocked);
    if (unlocked.length < 50) throw new Error(`bob has ${unlocked.length} unlocked outputs, the sweep row needs 50: give --extra-blocks ≥ 120`);
    for (const t of unlocked.slice(50)) await w("freeze", { key_image: t.key_image });
    progress(`real-wallet: ${which}: sweep_all`);
    await w("sweep_all", { address: CAROL, do_not_relay: true });
    for (let i = 0; i < repeats; i++) add(ROWS[5], await timed(() => w("sweep_all", { address: CAROL, do_not_relay: true })));
  } catch (e) {
    f.error = e instanceof Error ? e.message : String(e);
    progress(`real-wallet: ${which}: ${f.error}`);
  } finally {
    await stop(wallet);
    await stop(daemon);
  }
  return f;
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const extra = Number(flagString(args, "extra-blocks") ?? (quick ? "120" : "300"));
  const repeats = Number(flagString(args, "repeats") ?? (quick ? "3" : "5"));
  for (const bin of ["/usr/bin/monerod", "/usr/bin/monero-wallet-rpc"]) {
    if (!existsSync(bin)) throw new Error(`bench real-wallet needs Debian package monero (apt-get install -y monero); missing ${bin}`);
  }
  let ts: Figures;
  let real: Figures;
  try {
    ts = await measure("tsmonerod", extra, repeats);
    real = await measure("monerod", extra, repeats);
  } finally {
    for (const a of agents.values()) a.destroy();
  }
  const rows = ROWS.map((row) => {
    const a = ts.ms[row]?.length ? median(ts.ms[row]) : undefined;
    const b = real.ms[row]?.length ? median(real.ms[row]) : undefined;
    const r = a !== undefined && b !== undefined ? a / b : undefined;
    return [row, a === undefined ? "—" : a.toFixed(0), b === undefined ? "—" : b.toFixed(0), r === undefined ? "—" : formatRatio(r), r === undefined ? "—" : r <= 1 ? "met" : "NOT met"];
  });
  process.stdout.write(`## real-wallet — a real monero-wallet-rpc (default flags) on tsmonerod vs on monerod\n\n${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(
      [{ header: `ms, median of ${repeats}` }, { header: "on tsmonerod", align: "right" }, { header: "on monerod", align: "right" }, { header: "time ratio", align: "right" }, { header: "≤ 1× (goal)" }],
      rows,
    )}\n`,
  );
  process.stdout.write(`\nChain: test/fixtures/chain (333 blocks) + ${extra} blocks mined to bob (${ts.height || real.height} blocks). One daemon at a time, same ports, same wallet flags.\n`);
  if (ts.error) process.stdout.write(`\non tsmonerod failed: ${ts.error}\n`);
  if (real.error) process.stdout.write(`\non monerod failed: ${real.error}\n`);
}

export const suite: BenchSuite = {
  name: "real-wallet",
  summary: "a real monero-wallet-rpc with default flags on tsmonerod vs on monerod: restore+refresh, refresh, transfer, sweep_all",
  flags: FLAGS,
  run,
};
