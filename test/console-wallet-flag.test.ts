/**
 * tsmonero-wallet-rpc --web-console-port: the console next to a wallet RPC (the wallet part, no
 * explorer without a node URL), its pass-through to the wallet's /json_rpc, and the refusal with a
 * login the console could not give.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "node:test";

const BIN = new URL("../../bin/tsmonero-wallet-rpc", import.meta.url).pathname;

it("serves the console with the wallet RPC behind it; refused (exit 1, with the reason) when the RPC needs a login", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-console-wallet-"));
  const p = spawn(process.execPath, [BIN, "--wallet-dir", dir, "--offline", "--rpc-bind-port", "29895", "--disable-rpc-login", "--web-console-port", "29896"], { stdio: ["ignore", "pipe", "pipe"] });
  const out: string[] = [];
  p.stdout.on("data", (b: Buffer) => out.push(b.toString()));
  p.stderr.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise((r) => p.once("exit", r));
  try {
    const deadline = Date.now() + 30_000;
    while (!out.join("").includes("Web console on")) {
      assert.ok(Date.now() < deadline && p.exitCode === null, `no console: ${out.join("")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // raw: the console's own config file, and its /wallet/json_rpc pass-through, which wants the
    // console's X-Tsmonero-Console header (no typed client sends it) and answers an HTTP status without it
    const cfg = (await (await fetch("http://127.0.0.1:29896/console.json")).json()) as Record<string, unknown>;
    assert.deepEqual([cfg.node, cfg.wallet, cfg.served], [false, true, "wallet"]);
    const v = await fetch("http://127.0.0.1:29896/wallet/json_rpc", {
      method: "POST",
      headers: { "X-Tsmonero-Console": "1", "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "get_version" }),
    });
    assert.equal(typeof ((await v.json()) as { result: { version: number } }).result.version, "number");
    // without the console's header the pass-through refuses
    const bare = await fetch("http://127.0.0.1:29896/wallet/json_rpc", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "get_version" }) });
    assert.notEqual(bare.status, 200);
  } finally {
    p.kill("SIGTERM");
    await exited;
  }
  const r = spawnSync(process.execPath, [BIN, "--wallet-dir", dir, "--offline", "--rpc-bind-port", "29897", "--web-console-port", "29898"], { encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.match(r.stdout + r.stderr, /--web-console-port needs --disable-rpc-login/);
  rmSync(dir, { recursive: true, force: true });
});
