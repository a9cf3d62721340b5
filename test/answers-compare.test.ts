/**
 * Issue 13's answers that differed, each called on the real binary and on ours side by side
 * (ports 29650-29659): tsmonerod next to monerod --regtest, tsmonero-wallet-rpc next to
 * monero-wallet-rpc (Debian package `monero`).
 * - /set_bootstrap_daemon with addresses that do not resolve or do not parse: monerod only parses
 *   them (epee parse_url), answers OK and shows host:port in get_info's bootstrap_daemon_address.
 * - /start_save_graph, /stop_save_graph: gone from monerod 0.18, as path and as JSON-RPC method.
 * - open_wallet with a wrong password, a missing file, a corrupt keys file, a corrupt cache, an empty
 *   keys file, no name, a path: monero-wallet-rpc's code and message, and the wallet open before a
 *   failed open stays open.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import type { WalletMethod } from "../src/wallet/rpc/api.js";
import { type Daemon, startMonerod, startProcess, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodePath } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";
import { walletCall, type WalletParams, walletRpc } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const TSMONEROD = fileURLToPath(new URL("../../bin/tsmonerod", import.meta.url));
const TSWALLET = fileURLToPath(new URL("../../bin/tsmonero-wallet-rpc", import.meta.url));
const PORTS = { monerod: 29650, monerodP2p: 29651, tsmonerod: 29652, tsmonerodP2p: 29653, realWallet: 29654, oursWallet: 29655 };

type Json = Record<string, unknown>;

/**
 * A raw POST: its HTTP status and body. For what the typed clients cannot say: the HTTP status of an
 * answer, methods and paths that do not exist (any more), params neither node takes.
 */
async function post(url: string, body: unknown): Promise<{ status: number; json: Json | undefined }> {
  const r = await fetch(url, { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" }, signal: AbortSignal.timeout(60_000) });
  const text = await r.text();
  return { status: r.status, json: text === "" ? undefined : (JSON.parse(text) as Json) };
}

/** A raw JSON-RPC call of any method name (here: the ones gone from 0.18), its whole answer. */
async function jsonRpc(url: string, method: string, params: unknown = {}): Promise<Json> {
  const r = await post(`${url}/json_rpc`, { jsonrpc: "2.0", id: "0", method, params });
  assert.ok(r.json, `${method} on ${url}: HTTP ${r.status} without a body`);
  return r.json;
}

function startTsmonerod(): Daemon {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-answers-"));
  const args = [
    TSMONEROD, "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(PORTS.tsmonerod),
    "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(PORTS.tsmonerodP2p), "--no-zmq", "--non-interactive", "--log-level", "0",
  ];
  return startProcess(process.execPath, args, dir, `http://127.0.0.1:${PORTS.tsmonerod}`);
}

function startWallet(real: boolean, port: number): Daemon {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-answers-wallet-${real ? "real" : "ours"}-`));
  const flags = [
    "--wallet-dir", dir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${PORTS.monerod}`, "--rpc-bind-ip", "127.0.0.1",
    "--rpc-bind-port", String(port), "--log-file", join(dir, "wallet.log"), "--non-interactive",
  ];
  return real ? startProcess("/usr/bin/monero-wallet-rpc", flags, dir, `http://127.0.0.1:${port}`) : startProcess(process.execPath, [TSWALLET, ...flags], dir, `http://127.0.0.1:${port}`);
}

async function waitWallet(w: Daemon): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    if (w.proc.exitCode !== null) throw new Error(`${w.proc.spawnfile} exited ${w.proc.exitCode}: ${w.output.join("").slice(-2000)}`);
    try {
      await walletRpc(w.url, "get_version");
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe("answers that differed from monerod / monero-wallet-rpc (issue 13), side by side", { skip }, () => {
  let monerod: Daemon | undefined;
  let ours: Daemon | undefined;
  let realWallet: Daemon | undefined;
  let oursWallet: Daemon | undefined;

  before(async () => {
    monerod = startMonerod(PORTS.monerod, PORTS.monerodP2p);
    ours = startTsmonerod();
    await Promise.all([waitReady(monerod, new NodeClient({ url: monerod.url })), waitReady(ours, new NodeClient({ url: ours.url }))]);
    realWallet = startWallet(true, PORTS.realWallet);
    oursWallet = startWallet(false, PORTS.oursWallet);
    await Promise.all([waitWallet(realWallet), waitWallet(oursWallet)]);
  });

  after(async () => {
    await Promise.all([stopDaemon(realWallet), stopDaemon(oursWallet)]);
    await Promise.all([stopDaemon(monerod), stopDaemon(ours)]);
  });

  it("/set_bootstrap_daemon with unresolvable or unparsable addresses: the same status and get_info bootstrap_daemon_address", async () => {
    const addresses = ["no.such.host.invalid:18081", "no.such.host.invalid", "bad address", "host:abc", "http://x.invalid:1", "[::1]:18081", "256.1.1.1:5", "auto", ""];
    for (const address of addresses) {
      // raw: the HTTP status is compared with the body, for addresses neither node can use
      const [a, b] = await Promise.all([post(`${monerod?.url}/set_bootstrap_daemon`, { address }), post(`${ours?.url}/set_bootstrap_daemon`, { address })]);
      assert.deepEqual({ http: b.status, ...b.json }, { http: a.status, ...a.json }, `set_bootstrap_daemon ${JSON.stringify(address)}: ours vs monerod`);
      const [ia, ib] = await Promise.all([nodePath(monerod?.url ?? "", "/get_info"), nodePath(ours?.url ?? "", "/get_info")]);
      assert.equal(ib.bootstrap_daemon_address, ia.bootstrap_daemon_address, `get_info's bootstrap_daemon_address after ${JSON.stringify(address)}`);
    }
  });

  it("/start_save_graph and /stop_save_graph: the same HTTP status, body and JSON-RPC error", async () => {
    // raw: methods and paths gone from monerod 0.18 (in no map), their HTTP status and error compared
    for (const name of ["start_save_graph", "stop_save_graph"]) {
      const [a, b] = await Promise.all([post(`${monerod?.url}/${name}`, {}), post(`${ours?.url}/${name}`, {})]);
      assert.deepEqual([b.status, b.json], [a.status, a.json], `/${name}`);
      const [ja, jb] = await Promise.all([jsonRpc(monerod?.url ?? "", name), jsonRpc(ours?.url ?? "", name)]);
      assert.deepEqual(jb, ja, `json_rpc ${name}`);
    }
  });

  it("open_wallet's errors (wrong password, missing, corrupt keys, corrupt cache, empty keys, no name, a path): the same code and message", async () => {
    const both = async <M extends WalletMethod>(method: M, params: WalletParams<M>) =>
      Promise.all([walletRpc(realWallet?.url ?? "", method, params), walletRpc(oursWallet?.url ?? "", method, params)]);
    // each makes its own w1 (the file formats differ); the broken copies are made the same way on both
    for (const w of [realWallet, oursWallet]) {
      const url = w?.url ?? "";
      const dir = w?.dir ?? "";
      await walletCall(url, "create_wallet", { filename: "w1", password: "pw", language: "English" });
      await walletCall(url, "close_wallet");
      copyFileSync(join(dir, "w1"), join(dir, "badkeys"));
      writeFileSync(join(dir, "badkeys.keys"), Buffer.alloc(100, 7));
      copyFileSync(join(dir, "w1.keys"), join(dir, "badcache.keys"));
      writeFileSync(join(dir, "badcache"), Buffer.alloc(100, 7));
      writeFileSync(join(dir, "emptykeys.keys"), "");
      copyFileSync(join(dir, "w1.keys"), join(dir, "keysonly.keys"));
    }
    const cases: [string, WalletParams<"open_wallet">][] = [
      ["wrong password", { filename: "w1", password: "wrong" }],
      ["missing file", { filename: "nosuchwallet", password: "" }],
      ["corrupt keys file", { filename: "badkeys", password: "pw" }],
      ["corrupt cache", { filename: "badcache", password: "pw" }],
      ["empty keys file", { filename: "emptykeys", password: "pw" }],
      ["no name", { filename: "", password: "" }],
      ["a path", { filename: "../w1", password: "pw" }],
      ["keys file without cache (opens)", { filename: "keysonly", password: "pw" }],
      ["a failed open while a wallet is open", { filename: "w1", password: "wrong" }],
    ];
    for (const [what, params] of cases) {
      const [a, b] = await both("open_wallet", params);
      assert.deepEqual(b.error, a.error, `open_wallet, ${what}: ours ${JSON.stringify(b)} vs monero-wallet-rpc ${JSON.stringify(a)}`);
      assert.equal("result" in b, "result" in a, `open_wallet, ${what}: success on one side only`);
    }
    // the wallet opened before the last failed open (keysonly) is still the open one on both
    const [a, b] = await both("get_address", {});
    assert.ok(a.result && b.result, `get_address after a failed open: monero-wallet-rpc ${JSON.stringify(a)}, ours ${JSON.stringify(b)}`);
  });
});
