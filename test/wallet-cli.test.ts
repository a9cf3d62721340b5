/**
 * bin/tsmonero-wallet-rpc as a process: monero-wallet-rpc's flag rules, the generated login written
 * to monero-wallet-rpc.<port>.login in the working directory (digest auth with it), --rpc-login,
 * SIGTERM and stop_wallet storing the open wallet and exiting, --wallet-file with --password or
 * --password-file opening a wallet at start, --offline.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { NodeRpcError } from "../src/client/node-client.js";
import { walletClient } from "../src/wallet/rpc/api.js";

const BIN = fileURLToPath(new URL("../../bin/tsmonero-wallet-rpc", import.meta.url));
const PORTS = { login: 29230, given: 29231, term: 29232, reopen: 29233, stop: 29234, pwfile: 29235 };

function run(args: string[], cwd: string): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", timeout: 20_000 });
}

interface Proc {
  p: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
}

async function start(args: string[], cwd: string, port: number, login?: string): Promise<Proc> {
  const p = spawn(process.execPath, [BIN, ...args, "--rpc-bind-port", String(port)], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  p.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  p.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<number | null>((r) => p.once("exit", (code) => r(code)));
  const c = walletClient({ url: `http://127.0.0.1:${port}`, login, retries: 0, timeoutMs: 2000 });
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (p.exitCode !== null) throw new Error(`exited ${p.exitCode}: ${out.join("")}`);
    try {
      await c.call("get_version");
      break;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`not ready: ${out.join("")}`, { cause: e });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  c.close();
  return { p, out, exited };
}

const client = (port: number, login?: string) => walletClient({ url: `http://127.0.0.1:${port}`, login, retries: 0, timeoutMs: 10_000 });

describe("bin/tsmonero-wallet-rpc", () => {
  const cwd = mkdtempSync(join(tmpdir(), "tsmonero-wallet-cli-"));
  const procs: ChildProcess[] = [];
  after(() => {
    for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
    rmSync(cwd, { recursive: true, force: true });
  });

  it("refuses flag combinations monero-wallet-rpc refuses, with its words", () => {
    const cases: [string[], RegExp][] = [
      [["--wallet-dir", "w"], /--rpc-bind-port' is required/],
      [["--rpc-bind-port", "1"], /Must specify --wallet-file or --generate-from-json or --wallet-dir/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--wallet-file", "f"], /--wallet-dir and --wallet-file are incompatible/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--password-file", "f"], /--password-file is not allowed in combination with --wallet-dir/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--testnet", "--stagenet"], /more than one of --testnet and --stagenet/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--rpc-login", "a:b", "--disable-rpc-login"], /Cannot specify --disable-rpc-login and --rpc-login/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--rpc-bind-ip", "0.0.0.0"], /--confirm-external-bind/],
      [["--rpc-bind-port", "x", "--wallet-dir", "w"], /--rpc-bind-port must be an integer/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--daemon-ssl", "sometimes"], /--daemon-ssl needs one of enabled\|disabled\|autodetect \(got 'sometimes'\)/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--daemon-ssl", "enabled"], /Enabling --daemon-ssl requires --daemon-ssl-allow-any-cert or --daemon-ssl-ca-certificates or --daemon-ssl-allowed-fingerprints/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--daemon-ssl-allowed-fingerprints", "ab:cd"], /SHA-256 fingerprint should be 32 bytes long \(got 2/],
      // monero-wallet-rpc's own server has no --rpc-ssl-allow-any-cert
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--rpc-ssl-allow-any-cert"], /unknown flag --rpc-ssl-allow-any-cert/],
      [["--rpc-bind-port", "1", "--wallet-dir", "w", "--rpc-ssl-certificate", "/nonexistent.crt", "--rpc-ssl-private-key", "/nonexistent.key"], /cannot read --rpc-ssl-private-key '\/nonexistent.key': ENOENT/],
    ];
    for (const [args, re] of cases) {
      const r = run(args, cwd);
      assert.equal(r.status, 2, `${args.join(" ")}: ${String(r.stderr)}`);
      assert.match(String(r.stderr), re, args.join(" "));
    }
    const v = run(["--version"], cwd);
    assert.equal(v.status, 0);
    assert.match(String(v.stdout), /^tsmonero-wallet-rpc /);
  });

  it("without login flags, writes monero-wallet-rpc.<port>.login in the working directory and requires it", async () => {
    const port = PORTS.login;
    const file = join(cwd, `monero-wallet-rpc.${port}.login`);
    const spawnArgs = ["--wallet-dir", join(cwd, "w1"), "--offline"];
    // the process is not reachable without the login: wait for the file instead
    const p = spawn(process.execPath, [BIN, ...spawnArgs, "--rpc-bind-port", String(port)], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    procs.push(p);
    const out: string[] = [];
    p.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
    for (let i = 0; i < 200 && !out.join("").includes("Starting wallet RPC server"); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(out.join(""), new RegExp(`RPC username/password is stored in file monero-wallet-rpc\\.${port}\\.login`));
    const text = readFileSync(file, "utf8");
    assert.match(text, /^monero:[A-Za-z0-9+/]{22}==$/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // raw: no login, the HTTP status
    const r = await fetch(`http://127.0.0.1:${port}/json_rpc`, { method: "POST", body: '{"jsonrpc":"2.0","id":0,"method":"get_version"}' });
    assert.equal(r.status, 401);
    const c = client(port, text);
    const v = await c.call("get_version");
    assert.equal(v.version, 65561);
    c.close();
    const exited = new Promise((res) => p.once("exit", res));
    p.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.equal(existsSync(file), false, "the login file is removed at exit");
  });

  it("--rpc-login user:pass: digest auth with those credentials", async () => {
    const port = PORTS.given;
    const s = await start(["--wallet-dir", join(cwd, "w2"), "--offline", "--rpc-login", "alice:s3cret"], cwd, port, "alice:s3cret");
    procs.push(s.p);
    const bad = client(port, "alice:wrong");
    await assert.rejects(bad.call("get_version"));
    bad.close();
    assert.equal(existsSync(join(cwd, `monero-wallet-rpc.${port}.login`)), false);
    s.p.kill("SIGTERM");
    assert.equal(await s.exited, 0);
  });

  it("SIGTERM stores the open wallet and exits within seconds; --wallet-file + --password opens it at start", async () => {
    const dir = join(cwd, "w3");
    const s = await start(["--wallet-dir", dir, "--offline", "--disable-rpc-login"], cwd, PORTS.term);
    procs.push(s.p);
    const c = client(PORTS.term);
    await c.call("create_wallet", { filename: "w", password: "pw", language: "English" });
    await c.call("set_attribute", { key: "k", value: "kept" });
    await c.call("label_account", { account_index: 0, label: "renamed" });
    const { address } = await c.call("get_address");
    c.close();
    const t0 = Date.now();
    s.p.kill("SIGTERM");
    assert.equal(await s.exited, 0);
    assert.ok(Date.now() - t0 < 5000, `exited in ${Date.now() - t0} ms`);
    assert.match(s.out.join(""), /Successfully saved/);

    const r = await start(["--wallet-file", join(dir, "w"), "--password", "pw", "--offline", "--disable-rpc-login"], cwd, PORTS.reopen);
    procs.push(r.p);
    const c2 = client(PORTS.reopen);
    assert.deepEqual(await c2.call("get_attribute", { key: "k" }), { value: "kept" });
    const a = await c2.call("get_address");
    assert.equal(a.address, address);
    assert.ok(a.addresses, "get_address: addresses");
    assert.equal(a.addresses[0].label, "renamed");
    // create_wallet needs --wallet-dir
    await assert.rejects(c2.call("create_wallet", { filename: "x", language: "English" }), (e: unknown) => e instanceof NodeRpcError && e.code === -23 && /No wallet dir configured/.test(e.rpcMessage));
    // stop_wallet: stores and exits
    await c2.call("set_attribute", { key: "k", value: "stored by stop_wallet" });
    const t1 = Date.now();
    assert.deepEqual(await c2.call("stop_wallet"), {});
    c2.close();
    assert.equal(await r.exited, 0);
    assert.ok(Date.now() - t1 < 5000);

    // --password-file (and a wrong password: the process refuses to start)
    writeFileSync(join(cwd, "pw.txt"), "pw\n");
    const q = await start(["--wallet-file", join(dir, "w"), "--password-file", join(cwd, "pw.txt"), "--offline", "--disable-rpc-login"], cwd, PORTS.pwfile);
    procs.push(q.p);
    const c3 = client(PORTS.pwfile);
    assert.deepEqual(await c3.call("get_attribute", { key: "k" }), { value: "stored by stop_wallet" });
    c3.close();
    q.p.kill("SIGTERM");
    assert.equal(await q.exited, 0);
    const wrong = run(["--wallet-file", join(dir, "w"), "--password", "nope", "--offline", "--disable-rpc-login", "--rpc-bind-port", String(PORTS.stop)], cwd);
    assert.equal(wrong.status, 1);
    assert.match(String(wrong.stdout), /Wallet initialization failed: .*password/);
  });
});
