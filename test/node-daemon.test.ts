/**
 * The `tsmonerod` command as a real child process (bin/tsmonerod → dist): monerod's flags and their
 * errors, flags of later features logged as not yet active, SIGTERM and /stop_daemon shutting down
 * within seconds with the database closed, reopening the same chain (--keep-fakechain) and regtest's
 * fresh chain without it, --restricted-rpc, --log-file.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { stringifyJson } from "../src/rpc/json.js";
import { nodeCall, nodePath, nodeRpc } from "./helpers/node-rpc.js";

const BIN = fileURLToPath(new URL("../../bin/tsmonerod", import.meta.url));
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const dirs: string[] = [];
const procs: ChildProcess[] = [];

after(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-daemon-"));
  dirs.push(d);
  return d;
}

function run(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface Started {
  proc: ChildProcess;
  out: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function start(args: string[], port: number): Promise<Started> {
  // the ZMQ RPC would bind monerod's 18082 in every test: off unless the test sets ZMQ flags
  const zmq = args.some((a) => a.startsWith("--zmq") || a === "--no-zmq") ? [] : ["--no-zmq"];
  const proc = spawn(process.execPath, [BIN, ...args, ...zmq, "--rpc-bind-port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
  procs.push(proc);
  const out: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.once("exit", (code, signal) => r({ code, signal })));
  const deadline = Date.now() + 30_000;
  while (!out.join("").includes("RPC listening on")) {
    if (proc.exitCode !== null) throw new Error(`tsmonerod exited ${proc.exitCode}: ${out.join("")}`);
    if (Date.now() > deadline) throw new Error(`tsmonerod did not start: ${out.join("")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, out, exited };
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: not within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
}

test("--help lists monerod's flags with their defaults; --version", () => {
  const h = run(["--help"]);
  assert.equal(h.code, 0);
  for (const f of ["--regtest", "--testnet", "--stagenet", "--offline", "--fixed-difficulty", "--data-dir", "--rpc-bind-ip", "--rpc-bind-port", "--restricted-rpc",
    "--rpc-restricted-bind-port", "--rpc-login", "--p2p-bind-ip", "--p2p-bind-port", "--zmq-rpc-bind-port", "--zmq-pub", "--no-zmq", "--non-interactive",
    "--log-level", "--log-file", "--disable-dns-checkpoints", "--check-updates", "--rpc-ssl", "--add-exclusive-node", "--add-peer", "--add-priority-node",
    "--no-igd", "--rpc-max-connections", "--rpc-max-connections-per-private-ip", "--rpc-max-connections-per-public-ip", "--confirm-external-bind",
    "--db-sync-mode", "--max-txpool-weight", "--keep-fakechain", "--rpc-payment-address", "--rpc-payment-difficulty", "--rpc-payment-credits"])
    assert.ok(h.out.includes(f), `--help lists ${f}`);
  assert.match(h.out, /18081, 28081 if 'testnet', 38081 if 'stagenet'/);
  assert.match(h.out, /~\/\.bitmonero/);
  const v = run(["--version"]);
  assert.equal(v.code, 0);
  assert.match(v.out, /^tsmonerod \d+\.\d+\.\d+/);
});

test("an unknown flag or a bad value is an error naming the flag", () => {
  const cases: [string[], RegExp][] = [
    [["--regtets"], /unknown flag --regtets/],
    [["--rpc-bind-port", "http"], /--rpc-bind-port needs an integer from 0 to 65535 \(got 'http'\)/],
    [["--rpc-bind-port", "70000"], /--rpc-bind-port needs an integer/],
    [["--log-level", "7"], /--log-level 7: log level 7 is not 0-4/],
    [["--fixed-difficulty", "-1"], /--fixed-difficulty needs a non-negative integer/],
    [["--rpc-bind-ip", "localhost:1"], /Invalid IP address given for --rpc-bind-ip: 'localhost:1'/],
    [["--rpc-bind-ip", "0.0.0.0"], /Override with --confirm-external-bind/],
    [["--testnet", "--stagenet"], /Can.t specify more than one of --testnet and --stagenet/],
    [["--db-sync-mode", "turbo"], /--db-sync-mode needs safe\|fast\|fastest/],
    [["--rpc-ssl", "maybe"], /--rpc-ssl needs one of enabled\|disabled\|autodetect/],
    [["--rpc-ssl-allowed-fingerprints", "zz"], /--rpc-ssl-allowed-fingerprints: 'zz' is not hexadecimal/],
    [["--rpc-ssl-certificate", "/nonexistent.crt"], /--rpc-ssl-private-key and --rpc-ssl-certificate must be given together/],
    [["--rpc-login", "nocolon"], /write --rpc-login username:password/],
    [["--data-dir"], /--data-dir needs a value/],
    [["regtest"], /unexpected argument 'regtest'/],
  ];
  for (const [args, msg] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(" ")} exits 2 (${r.err})`);
    assert.match(r.err, msg, args.join(" "));
  }
});

test("SIGTERM stops within seconds with the database closed; the chain reopens with --keep-fakechain; regtest starts fresh without it", async () => {
  const dir = tmp();
  const logFile = join(dir, "d.log");
  const args = ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--keep-fakechain", "--non-interactive",
    "--p2p-bind-port", "29031", "--no-igd", "--zmq-pub", "tcp://127.0.0.1:29032", "--zmq-rpc-bind-port", "29034", "--log-level", "1", "--log-file", logFile];
  let d = await start(args, 29030);
  const all = d.out.join("");
  assert.match(all, /RPC listening on http:\/\/127\.0\.0\.1:29030/);
  const g = await nodeRpc(url(29030), "generateblocks", { amount_of_blocks: 5, wallet_address: ALICE });
  assert.equal(g.result?.status, "OK", stringifyJson(g));
  const top = (await nodeCall(url(29030), "get_last_block_header")).block_header;
  assert.equal(top.height, 5);
  const t0 = Date.now();
  d.proc.kill("SIGTERM");
  const ex = await within(d.exited, 8000, "SIGTERM shutdown");
  assert.equal(ex.code, 0, d.out.join(""));
  assert.ok(Date.now() - t0 < 8000);
  const log = readFileSync(logFile, "utf8");
  assert.match(log, /stopping \(SIGTERM\)/);
  assert.match(log, /stopped, database closed/);
  for (const f of ["--no-igd"]) assert.match(log, new RegExp(`${f} accepted; .* is not active in this version`), f);
  assert.match(log, /ZMQ now listening at tcp:\/\/127\.0\.0\.1:29032/);
  assert.ok(existsSync(join(dir, "fake", "lmdb")), "regtest data under <data-dir>/fake/lmdb as monerod");

  d = await start(args, 29030);
  const again = (await nodeCall(url(29030), "get_last_block_header")).block_header;
  assert.deepEqual(again, top, "same chain after reopening");
  d.proc.kill("SIGINT");
  assert.equal((await within(d.exited, 8000, "SIGINT shutdown")).code, 0);
  d = await start(args, 29030);

  // one daemon per chain: a second one on the same data dir refuses to start
  const second = run([...args, "--rpc-bind-port", "29033"]);
  assert.equal(second.code, 1, second.err);
  assert.match(second.err, /is in use by another tsmonerod \(pid \d+\); stop it or choose another --data-dir/);
  // a lock left by a SIGKILLed daemon is taken over; the chain is intact
  d.proc.kill("SIGKILL");
  await d.exited;
  d = await start(args, 29030);
  assert.deepEqual((await nodeCall(url(29030), "get_last_block_header")).block_header, top, "same chain after SIGKILL");
  d.proc.kill("SIGTERM");
  assert.equal((await within(d.exited, 8000, "SIGTERM shutdown")).code, 0);

  d = await start(args.filter((a) => a !== "--keep-fakechain"), 29030);
  assert.equal((await nodeCall(url(29030), "get_block_count")).count, 1, "without --keep-fakechain a regtest chain starts fresh, as monerod's");
  // /stop_daemon
  assert.deepEqual(await nodePath(url(29030), "/stop_daemon", {}), { status: "OK", untrusted: false });
  assert.equal((await within(d.exited, 8000, "/stop_daemon shutdown")).code, 0);
});

test("--restricted-rpc hides the restricted methods; --rpc-restricted-bind-port serves a second, restricted server", async () => {
  const dir = tmp();
  const d = await start(["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--restricted-rpc", "--log-file", ""], 29035);
  assert.equal((await nodeRpc(url(29035), "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE })).error?.code, -32601);
  assert.equal((await nodeCall(url(29035), "get_info")).restricted, true);
  d.proc.kill("SIGTERM");
  assert.equal((await within(d.exited, 8000, "shutdown")).code, 0);
  const d2 = await start(["--regtest", "--offline", "--data-dir", tmp(), "--rpc-restricted-bind-port", "29037", "--log-file", ""], 29036);
  // a second daemon on a port in use: a clear message, exit 1, no stack trace
  const busy = run(["--regtest", "--offline", "--data-dir", tmp(), "--rpc-bind-port", "29036", "--log-file", ""]);
  assert.equal(busy.code, 1, busy.err);
  assert.match(busy.err, /cannot serve RPC on 127\.0\.0\.1:29036 \(EADDRINUSE\)/);
  assert.doesNotMatch(busy.err, /\n\s+at /, "no stack trace");
  assert.match(d2.out.join(""), /restricted RPC on http:\/\/127\.0\.0\.1:29037/);
  assert.equal((await nodeRpc(url(29037), "get_bans")).error?.code, -32601);
  assert.equal((await nodeCall(url(29036), "get_bans")).status, "OK");
  d2.proc.kill("SIGTERM");
  assert.equal((await within(d2.exited, 8000, "shutdown")).code, 0);
});

test("--web-console-port serves the explorer console next to the node RPC; with --rpc-login it is refused with the reason", async () => {
  const dir = tmp();
  const d = await start(["--regtest", "--offline", "--data-dir", dir, "--non-interactive", "--web-console-port", "29892"], 29891);
  try {
    while (!d.out.join("").includes("web console on")) await new Promise((r) => setTimeout(r, 50));
    const cfg = (await (await fetch("http://127.0.0.1:29892/console.json")).json()) as Record<string, unknown>;
    assert.deepEqual([cfg.node, cfg.wallet, cfg.served], [true, false, "node"]);
    const page = await fetch("http://127.0.0.1:29892/");
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    // raw: the console's own proxy path (its X-Tsmonero-Console header), not a node RPC url
    const count = await fetch("http://127.0.0.1:29892/node/json_rpc", {
      method: "POST",
      headers: { "X-Tsmonero-Console": "1", "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "get_block_count" }),
    });
    assert.equal(((await count.json()) as { result: { count: number } }).result.count, 1);
  } finally {
    d.proc.kill("SIGTERM");
    await d.exited;
  }
  const r = spawnSync(process.execPath, [BIN, "--regtest", "--offline", "--data-dir", tmp(), "--rpc-bind-port", "29893", "--rpc-login", "u:p", "--web-console-port", "29894"], { encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--web-console-port cannot be used with --rpc-login/);
});
