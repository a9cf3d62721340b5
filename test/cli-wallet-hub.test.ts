/**
 * tsmonero-wallet-rpc --wallet-hub (issue 20): the launcher serves named wallets of --wallet-dir
 * next to the drop-in /json_rpc; without --wallet-dir the flag is refused with the reason.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startProcess } from "./helpers/monerod.js";
import { freePort } from "./helpers/ports.js";
import { hubCall, stopProcesses, waitWallet, walletCall, walletRpc } from "./helpers/wallet-rpc.js";

const BIN = new URL("../../bin/tsmonero-wallet-rpc", import.meta.url).pathname;

test("--wallet-hub: create and use named wallets over /wallets/…; the drop-in wallet stays separate", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-cli-hub-"));
  const port = await freePort();
  const w = startProcess(BIN, ["--wallet-dir", dir, "--wallet-hub", "--offline", "--disable-rpc-login", "--rpc-bind-port", String(port)], dir, `http://127.0.0.1:${port}`);
  try {
    await waitWallet(w);
    const created = await hubCall(w.url, "create_wallet", { filename: "shop", password: "pw", language: "English" });
    assert.equal(created.name, "shop");
    const addr = await walletCall(`${w.url}/wallets/shop`, "get_address");
    assert.match(String(addr.address), /^4/);
    assert.equal(addr.address, created.address, "the wallet's own route answers for it");
    assert.deepEqual((await hubCall(w.url, "list_wallets")).wallets.map((x) => x.name), ["shop"]);
    // the drop-in endpoint has no wallet open: monero-wallet-rpc's −13
    const r = await walletRpc(w.url, "get_address");
    assert.equal(r.error?.code, -13);
  } finally {
    await stopProcesses([w]);
    rmSync(dir, { recursive: true, force: true });
  }
  const refused = spawnSync(BIN, ["--wallet-hub", "--offline", "--disable-rpc-login", "--rpc-bind-port", String(port)], { encoding: "utf8", timeout: 30_000 });
  assert.notEqual(refused.status, 0);
  assert.match(refused.stdout + refused.stderr, /--wallet-dir/, "says the hub needs a wallet directory");
});
