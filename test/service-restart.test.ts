/**
 * Restarts that always work (issue 14): tsmonerod and tsmonero-wallet-rpc are SIGKILLed and
 * started again on the same files. A stale login file, a lock left by the killed process, or a
 * lock naming a live process that does not hold it (a reused pid) is taken over with a log line; a
 * lock held by a live service is still refused. Real processes, free ports.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { acquirePidLock, createOwnedFile, LockHeldError } from "../src/os/lockfile.js";
import { nodeRpc } from "./helpers/node-rpc.js";
import { walletRpc } from "./helpers/wallet-rpc.js";

const NODE_BIN = fileURLToPath(new URL("../../bin/tsmonerod", import.meta.url));
const WALLET_BIN = fileURLToPath(new URL("../../bin/tsmonero-wallet-rpc", import.meta.url));
const procs: ChildProcess[] = [];
const dirs: string[] = [];
after(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-restart-"));
  dirs.push(d);
  return d;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Proc {
  p: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
}

/** Starts `bin` and waits until its output says `ready`; throws with the output if it exits first. */
async function start(bin: string, args: string[], cwd: string, ready: string): Promise<Proc> {
  const p = spawn(process.execPath, [bin, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  procs.push(p);
  const out: string[] = [];
  p.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  p.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<number | null>((r) => p.once("exit", (code) => r(code)));
  const deadline = Date.now() + 30_000;
  while (!out.join("").includes(ready)) {
    if (p.exitCode !== null) throw new Error(`${bin} exited ${p.exitCode}: ${out.join("")}`);
    if (Date.now() > deadline) throw new Error(`${bin} not ready: ${out.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { p, out, exited };
}

async function kill9(x: Proc): Promise<void> {
  x.p.kill("SIGKILL");
  await x.exited;
}

/** A live process that is not a tsmonero service (stands for a reused pid). */
function bystander(): ChildProcess {
  const p = spawn("sleep", ["60"], { stdio: "ignore" });
  procs.push(p);
  return p;
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

function findFile(dir: string, name: string): string | undefined {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.name === name) return p;
    if (e.isDirectory()) {
      const f = findFile(p, name);
      if (f) return f;
    }
  }
  return undefined;
}

describe("os/lockfile: what counts as held", () => {
  it("a pid lock of a dead pid or of a live process not holding it is taken over; this process's own is refused to others", () => {
    const d = tempDir();
    const path = join(d, "x.pid");
    const logged: string[] = [];
    writeFileSync(path, "999999999");
    const a = acquirePidLock(path, "x", (m) => logged.push(m));
    assert.match(logged[0], /taking over the stale lock .*x\.pid: its process 999999999 no longer runs/);
    a.release();
    assert.equal(existsSync(path), false);
    const b = bystander();
    writeFileSync(path, String(b.pid));
    const c = acquirePidLock(path, "x", (m) => logged.push(m));
    assert.match(logged[1], new RegExp(`process ${b.pid} runs but does not hold it`));
    c.release();
    b.kill("SIGKILL");
  });

  it("a file held open by a live process is refused with its pid", async () => {
    const d = tempDir();
    // a child holding a file open, as a running service holds its lock
    const holder = spawn(process.execPath, ["-e", `require("fs").openSync(${JSON.stringify(join(d, "held"))}, "w"); require("fs").writeFileSync(${JSON.stringify(join(d, "held.pid"))}, String(process.pid)); setTimeout(() => {}, 60000)`], { stdio: "ignore" });
    procs.push(holder);
    while (!existsSync(join(d, "held.pid")) || statSync(join(d, "held.pid")).size === 0) await new Promise((r) => setTimeout(r, 20));
    assert.throws(() => createOwnedFile(join(d, "held"), "x", () => undefined), (e: unknown) => e instanceof LockHeldError && e.pid === holder.pid);
    writeFileSync(join(d, "lock"), String(holder.pid));
    // the holder runs but holds "held", not "lock": stale
    const l = acquirePidLock(join(d, "lock"), "y", () => undefined);
    l.release();
    holder.kill("SIGKILL");
  });
});

describe("tsmonerod: restarts after SIGKILL", () => {
  it("comes up after kill -9, and after kill -9 with its pid file naming an unrelated live process", async () => {
    const data = tempDir();
    const port = await freePort();
    const p2p = await freePort();
    const args = ["--regtest", "--offline", "--fixed-difficulty", "1", "--keep-fakechain", "--data-dir", data, "--rpc-bind-port", String(port), "--p2p-bind-port", String(p2p), "--no-igd", "--no-zmq", "--non-interactive", "--log-file", ""];
    let n = await start(NODE_BIN, args, data, "RPC listening on");
    const lock = findFile(data, "tsmonerod.pid");
    assert.ok(lock, "the node holds a pid file");
    // a second node on the same chain is still refused while the first runs
    const port2 = String(await freePort());
    const other = spawn(process.execPath, [NODE_BIN, ...args.map((a) => (a === String(port) ? port2 : a))], { stdio: ["ignore", "pipe", "pipe"] });
    procs.push(other);
    const otherOut: string[] = [];
    other.stdout?.on("data", (b: Buffer) => otherOut.push(b.toString()));
    other.stderr?.on("data", (b: Buffer) => otherOut.push(b.toString()));
    const otherCode = await new Promise<number | null>((r) => other.once("exit", (c) => r(c)));
    assert.notEqual(otherCode, 0);
    assert.match(otherOut.join(""), /in use by another tsmonerod \(pid \d+\)/);

    await kill9(n);
    assert.equal(existsSync(lock), true, "SIGKILL leaves the pid file");
    n = await start(NODE_BIN, args, data, "RPC listening on");
    assert.match(n.out.join(""), /taking over the stale lock .*tsmonerod\.pid: its process \d+ no longer runs/);
    assert.equal((await nodeRpc(url(port), "get_block_count")).result?.status, "OK");
    await kill9(n);

    const b = bystander();
    writeFileSync(lock, String(b.pid));
    n = await start(NODE_BIN, args, data, "RPC listening on");
    // before: "in use by another tsmonerod (pid …)" and exit 1
    assert.match(n.out.join(""), new RegExp(`taking over the stale lock .*: process ${b.pid} runs but does not hold it`));
    assert.equal((await nodeRpc(url(port), "get_block_count")).result?.status, "OK");
    await kill9(n);
  });
});

describe("tsmonero-wallet-rpc: restarts after SIGKILL", () => {
  it("a stale monero-wallet-rpc.<port>.login is replaced, as monero-wallet-rpc does", async () => {
    const cwd = tempDir();
    const port = await freePort();
    const args = ["--wallet-dir", join(cwd, "w"), "--offline", "--rpc-bind-port", String(port)];
    let w = await start(WALLET_BIN, args, cwd, "Starting wallet RPC server");
    const login = join(cwd, `monero-wallet-rpc.${port}.login`);
    assert.equal(existsSync(login), true);
    await kill9(w);
    assert.equal(existsSync(login), true, "SIGKILL leaves the login file");
    // before: "Failed to create file monero-wallet-rpc.<port>.login. Check permissions or remove file", exit 1
    w = await start(WALLET_BIN, args, cwd, "Starting wallet RPC server");
    assert.match(w.out.join(""), /replacing the stale monero-wallet-rpc\.\d+\.login left by a process that no longer runs/);
    // raw: without the login, its HTTP status
    const res = await fetch(`http://127.0.0.1:${port}/json_rpc`, { method: "POST", body: "{}" });
    assert.equal(res.status, 401, "the new login is required");
    await kill9(w);
  });

  it("an open wallet's lock left by kill -9, or naming an unrelated live pid, is taken over", async () => {
    const cwd = tempDir();
    const port = await freePort();
    const args = ["--wallet-dir", join(cwd, "w"), "--offline", "--disable-rpc-login", "--rpc-bind-port", String(port)];
    let w = await start(WALLET_BIN, args, cwd, "Starting wallet RPC server");
    assert.equal((await walletRpc(url(port), "create_wallet", { filename: "alice", password: "", language: "English" })).error, undefined);
    const lock = join(cwd, "w", ".alice.lock");
    assert.equal(existsSync(lock), true);
    await kill9(w);
    const b = bystander();
    writeFileSync(lock, String(b.pid));
    w = await start(WALLET_BIN, args, cwd, "Starting wallet RPC server");
    // before: -1 "Failed to open wallet: wallet alice is open in another process (pid …)"
    assert.deepEqual((await walletRpc(url(port), "open_wallet", { filename: "alice", password: "" })).error, undefined);
    assert.match(w.out.join(""), new RegExp(`wallet alice: taking over the stale lock .*\\.alice\\.lock: process ${b.pid} runs but does not hold it`));
    await kill9(w);
    w = await start(WALLET_BIN, args, cwd, "Starting wallet RPC server");
    assert.deepEqual((await walletRpc(url(port), "open_wallet", { filename: "alice", password: "" })).error, undefined);
    assert.match(w.out.join(""), /taking over the stale lock .*: its process \d+ no longer runs/);
    await kill9(w);
  });
});
