/**
 * Issue 21's progress display, end to end: tsmonero-wallet-rpc refreshing a 10,000-block regtest
 * chain from tsmonerod. On a terminal (a pseudo-terminal from util-linux's `script`) the progress is
 * one line redrawn in place on stderr, ended by a summary line; when stderr is a pipe there is no
 * redraw at all, only the plain periodic lines (none for a refresh shorter than the 10 s interval;
 * several with TSMONERO_PROGRESS_INTERVAL_MS=500) and a last line once one was logged.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/index.js";
import { type Daemon, startProcess, waitReady } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { stopProcesses, waitWallet, walletCall } from "./helpers/wallet-rpc.js";

const PORTS = { node: 29901, w1: 29902, w2: 29903, w3: 29904 } as const;
const BLOCKS = 10_000;
const SEED = "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted";
const bin = (name: string): string => new URL(`../../bin/${name}`, import.meta.url).pathname;
const ERASE = "\x1b[K";
const hasScript = spawnSync("script", ["--version"]).status === 0;

/** Restores the seed as `name` from height 0, refreshes the whole chain and stops the wallet; ms taken by the refresh. */
async function restoreRefreshStop(url: string, name: string): Promise<number> {
  await walletCall(url, "restore_deterministic_wallet", { filename: name, password: "", seed: SEED, restore_height: 0 });
  const t0 = Date.now();
  const r = await walletCall(url, "refresh");
  const ms = Date.now() - t0;
  assert.ok(Number(r.blocks_fetched) >= BLOCKS, `the refresh fetched the chain (${String(r.blocks_fetched)} blocks)`);
  await walletCall(url, "stop_wallet");
  return ms;
}

const exited = (p: Daemon): Promise<unknown> => (p.proc.exitCode !== null ? Promise.resolve() : new Promise((r) => p.proc.once("exit", r)));
const PROGRESS = /refresh w\d: \d+\.\d% \([\d,]+\/10,001 blocks\)/;

describe("progress of a 10,000-block refresh (tsmonero-wallet-rpc on tsmonerod)", () => {
  let dir = "";
  let node: Daemon | undefined;
  const procs: Daemon[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-progress-"));
    node = startProcess(bin("tsmonerod"), ["--regtest", "--offline", "--fixed-difficulty", "1", "--db-sync-mode", "fastest", "--data-dir", join(dir, "node"), "--rpc-bind-port", String(PORTS.node), "--no-zmq"], dir, `http://127.0.0.1:${PORTS.node}`);
    procs.push(node);
    await waitReady(node, new NodeClient({ url: node.url }));
    const address = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm"; // SEED's
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: BLOCKS, wallet_address: address });
  });

  after(async () => {
    await stopProcesses(procs);
    rmSync(dir, { recursive: true, force: true });
  });

  const walletArgs = (port: number, sub: string): string[] => [
    "--wallet-dir", join(dir, sub), "--daemon-address", `127.0.0.1:${PORTS.node}`,
    "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port), "--disable-rpc-login",
  ];

  it("on a terminal: one line redrawn in place (percent, rate, time left), then the summary", { skip: hasScript ? false : "util-linux `script` is not installed" }, async () => {
    const out = join(dir, "pty.out");
    // script -q (no banner), -f (flush as written), -e (its exit code is the command's), -c command
    const cmd = [bin("tsmonero-wallet-rpc"), ...walletArgs(PORTS.w1, "w1")].join(" ");
    const proc = spawn("script", ["-qfec", cmd, out], { stdio: ["ignore", "ignore", "pipe"] });
    const w: Daemon = { proc, dir, url: `http://127.0.0.1:${PORTS.w1}`, output: [] };
    procs.push(w);
    await waitWallet(w);
    await restoreRefreshStop(w.url, "w1");
    await exited(w);
    const text = readFileSync(out, "utf8");
    const frames = text.split("\r").filter((f) => f.startsWith("refresh w1: "));
    const moving = frames.filter((f) => /^refresh w1: \d+\.\d% /.test(f));
    assert.ok(moving.length >= 2, `several redraws of the same line (got ${moving.length}): ${JSON.stringify(text.slice(0, 600))}`);
    for (const f of moving) {
      assert.ok(f.endsWith(ERASE), `each frame erases the rest of the line: ${JSON.stringify(f)}`);
      assert.match(f.slice(0, -ERASE.length), /^refresh w1: \d+\.\d% \([\d,]+\/10,001 blocks\), [\d,.]+ blocks\/s, (\S+ left|done)$/, "each frame: percent, count, rate, time left (done at 100%)");
    }
    const pct = moving.map((f) => Number(/^refresh w1: (\d+\.\d)%/.exec(f)?.[1]));
    assert.deepEqual([...pct].sort((a, b) => a - b), pct, "the percent only grows");
    const last = frames[frames.length - 1];
    assert.match(last.split(ERASE)[0], /^refresh w1: 10,001 blocks in \S+ \([\d,.]+ blocks\/s\), at 10,001$/, "the line ends with the summary");
    assert.equal(text.match(/refresh w1: \d+\.\d% [^\r]*\n/g), null, "no progress frame is ended by a newline: it is redrawn, not scrolled");
  });

  it("not a terminal: no redraw and no escape; nothing for a refresh under 10 s", async () => {
    const w = startProcess(bin("tsmonero-wallet-rpc"), walletArgs(PORTS.w2, "w2"), dir, `http://127.0.0.1:${PORTS.w2}`);
    procs.push(w);
    await waitWallet(w);
    const ms = await restoreRefreshStop(w.url, "w2");
    await exited(w);
    const text = w.output.join("");
    assert.ok(!text.includes("\r") && !text.includes("\x1b["), "no carriage return or escape sequence in piped output");
    if (ms < 9_000) assert.doesNotMatch(text, PROGRESS, `no progress line for a ${ms} ms refresh: ${text.slice(-400)}`);
    assert.ok(text.includes("Successfully saved") || text.includes("Stopped wallet RPC server"), "the wallet logged its stop");
  });

  it("not a terminal, lines every 500 ms: plain periodic lines, then the last line", async () => {
    const env = { ...process.env, TSMONERO_PROGRESS_INTERVAL_MS: "500" };
    const proc = spawn(bin("tsmonero-wallet-rpc"), walletArgs(PORTS.w3, "w3"), { stdio: ["ignore", "pipe", "pipe"], env });
    const output: string[] = [];
    proc.stdout.on("data", (b: Buffer) => output.push(b.toString()));
    proc.stderr.on("data", (b: Buffer) => output.push(b.toString()));
    const w3: Daemon = { proc, dir, url: `http://127.0.0.1:${PORTS.w3}`, output };
    procs.push(w3);
    await waitWallet(w3);
    const ms = await restoreRefreshStop(w3.url, "w3");
    await exited(w3);
    const text = output.join("");
    assert.ok(!text.includes("\r") && !text.includes("\x1b["), "no carriage return or escape sequence in piped output");
    const lines = text.split("\n").filter((l) => /refresh w3: /.test(l));
    const periodic = lines.filter((l) => /refresh w3: \d+\.\d% \([\d,]+\/10,001 blocks\), [\d,.]+ blocks\/s, (\S+ left|done)$/.test(l));
    // the first line is due 500 ms into the work, then one per 500 ms at most
    assert.ok(periodic.length <= Math.ceil(ms / 500) + 1, `at most one line per 500 ms (${periodic.length} lines in ${ms} ms)`);
    if (ms >= 1_500) assert.ok(periodic.length >= 1, `periodic lines during a ${ms} ms refresh: ${text.slice(-600)}`);
    if (periodic.length > 0) assert.match(lines[lines.length - 1], /refresh w3: 10,001 blocks in \S+ \([\d,.]+ blocks\/s\), at 10,001$/, "a last line once one was logged");
  });
});
