/**
 * A transfer on a short regtest chain (the devnet's first minutes): at height 86 the gamma picker
 * cannot reach one of the 76 outputs older than 10 blocks, and the decoy search used to draw until
 * its limit and answer "failed to get random outs" to every transfer. Now the search stops when no
 * new candidate comes, and the rings are drawn from what there is.
 */
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, startProcess, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeRpc } from "./helpers/node-rpc.js";
import { freePort } from "./helpers/ports.js";
import { walletRpc } from "./helpers/wallet-rpc.js";

const BIN = new URL("../../bin/", import.meta.url).pathname;
let daemon: Daemon;
let wallet: Daemon;
let dir = "";

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsmonero-short-chain-"));
  const [p0, p1] = [await freePort(), await freePort()];
  daemon = startProcess(join(BIN, "tsmonerod"), ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-port", String(p0)], dir, `http://127.0.0.1:${p0}`);
  await waitReady(daemon, new NodeClient({ url: daemon.url }));
  wallet = startProcess(join(BIN, "tsmonero-wallet-rpc"), ["--wallet-dir", dir, "--daemon-address", `127.0.0.1:${p0}`, "--rpc-bind-port", String(p1), "--disable-rpc-login"], dir, `http://127.0.0.1:${p1}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await walletRpc(wallet.url, "get_version");
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});

after(async () => {
  if (wallet?.proc.exitCode === null) {
    const gone = new Promise((r) => (wallet.proc as ChildProcess).once("exit", r));
    wallet.proc.kill("SIGTERM");
    await gone;
  }
  await stopDaemon(daemon);
  rmSync(dir, { recursive: true, force: true });
});

it("transfers succeed at height 86 of a fresh regtest chain (76 outputs old enough for rings of 16)", async () => {
  await walletRpc(wallet.url, "restore_deterministic_wallet", { filename: "alice", password: "", seed: WALLET_SEEDS.alice });
  const address = String((await walletRpc(wallet.url, "get_address")).result?.address);
  await nodeRpc(daemon.url, "generateblocks", { amount_of_blocks: 85, wallet_address: address });
  await walletRpc(wallet.url, "refresh");
  for (let i = 0; i < 3; i++) {
    const r = await walletRpc(wallet.url, "transfer", { destinations: [{ address, amount: 1_000_000_000 }], ring_size: 16 });
    assert.equal(r.error, undefined, `transfer ${i}: ${r.error?.message}`);
    assert.match(String(r.result?.tx_hash), /^[0-9a-f]{64}$/);
  }
});
