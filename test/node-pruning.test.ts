/**
 * Pruning (issue 13): monerod's stripes and seeds (common/pruning.cpp), a pruned store, the
 * prune_blockchain RPC and --prune-blockchain's per-block pruning, and a real monero-wallet-rpc
 * served by a pruned tsmonerod. The recorded regtest chain (real txs in blocks 1–333) gets 5,600
 * blocks on top, so its txs leave the 5,500-block tip window; pruned with stripe 2, blocks 0–4095
 * (stripe 1) lose their RingCT prunable data.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { open } from "lmdb";
import { type Daemon, startDaemon } from "../src/node/daemon.js";
import { blockStripe, keepsPrunable, makePruningSeed, PRUNING_TIP_BLOCKS, pruningLogStripes, seedStripe } from "../src/protocol/pruning.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { big, startWallet, stopProcesses, waitWallet, walletCall, type WalletResult } from "./helpers/wallet-rpc.js";
import type { Daemon as Proc } from "./helpers/monerod.js";

describe("pruning seeds and stripes (common/pruning.cpp)", () => {
  it("make_pruning_seed, its parts, a block's stripe and has_unpruned_block", () => {
    assert.equal(makePruningSeed(1), 384);
    assert.equal(makePruningSeed(8), 391);
    assert.deepEqual([pruningLogStripes(389), seedStripe(389), seedStripe(0)], [3, 6, 0]);
    assert.throws(() => makePruningSeed(0), /stripe out of range/);
    assert.throws(() => makePruningSeed(9), /stripe out of range/);
    // inside the tip window no block has a stripe; below it, 4,096-block stripes cycle 1..8
    assert.equal(blockStripe(100, 100 + PRUNING_TIP_BLOCKS), 0);
    assert.equal(blockStripe(100, 101 + PRUNING_TIP_BLOCKS), 1);
    assert.equal(blockStripe(4096, 20_000), 2);
    assert.equal(blockStripe(7 * 4096, 50_000), 8);
    assert.equal(blockStripe(8 * 4096, 50_000), 1);
    assert.equal(keepsPrunable(5000, 20_000, makePruningSeed(2)), true);
    assert.equal(keepsPrunable(5000, 20_000, makePruningSeed(3)), false);
    assert.equal(keepsPrunable(19_000, 20_000, makePruningSeed(3)), true, "the tip is always kept");
    assert.equal(keepsPrunable(5000, 20_000, 0), true, "seed 0 keeps everything");
  });
});

const skip = needPackage("monero");

/** Size of a compact copy of an LMDB environment (its live pages only: what the data takes). */
async function compactSize(lmdbDir: string, into: string): Promise<number> {
  const env = open({ path: lmdbDir, readOnly: true, maxDbs: 32 });
  mkdirSync(into, { recursive: true });
  // mdb_env_copy2 of a directory environment: `into` is a directory, the copy its data.mdb
  await env.backup(into, true);
  await env.close();
  return statSync(join(into, "data.mdb")).size;
}

describe("a pruned tsmonerod (the recorded chain + 5,600 blocks, stripe 2)", { skip }, () => {
  let dir = "";
  let full: Daemon | undefined;
  let pruned: Daemon | undefined;
  const wallets: Proc[] = [];
  const ids: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-pruning-"));
    const opts = (sub: string, port: number) => ({
      network: "regtest" as const, dataDir: join(dir, sub), fixedDifficulty: 1n, offline: true, rpcBindPort: port,
      logFile: "", logToConsole: false, syncMode: "fast" as const, verifyThreads: 1, keepFakechain: true,
    });
    const first = await startDaemon(opts("full", await freePort()));
    const txs = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
    for (const b of recordedBlocks().slice(1)) {
      for (const h of b.tx_hashes) {
        ids.push(h);
        const r = await first.core.submitTransaction(Buffer.from(txs.get(h)?.as_hex ?? "", "hex"));
        assert.equal(r.ok, true, `tx ${h}`);
      }
      const r = await first.core.submitBlock(Buffer.from(b.blob, "hex"));
      assert.equal(r.status, "added", `block ${b.height}`);
    }
    // the new blocks pay a wallet that is not alice's or bob's
    await first.core.generateBlocks(5600, "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm");
    await first.stop();
    cpSync(join(dir, "full"), join(dir, "pruned"), { recursive: true });
    full = await startDaemon(opts("full", await freePort()));
    pruned = await startDaemon(opts("pruned", await freePort()));
  });

  after(async () => {
    await stopProcesses(wallets);
    await full?.stop();
    await pruned?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("prune_blockchain: check on an unpruned chain, then prune with stripe 2; check again", async () => {
    assert.ok(pruned && full);
    const before = await nodeCall(pruned.rpcUrl, "prune_blockchain", { check: true });
    assert.deepEqual([before.pruned, before.pruning_seed], [false, 0]);
    const r = await pruned.core.pruneBlockchain(2);
    assert.equal(r.seed, makePruningSeed(2));
    assert.ok(r.txs >= ids.length, `every recorded tx is RingCT and below the tip: ${r.txs} pruned`);
    const after = await nodeCall(pruned.rpcUrl, "prune_blockchain", { check: true });
    assert.deepEqual([after.pruned, after.pruning_seed], [true, 385]);
    // pruning again keeps the seed (prune_worker's update mode); nothing is left to prune
    const again = await nodeCall(pruned.rpcUrl, "prune_blockchain", { check: false });
    assert.deepEqual([again.pruned, again.pruning_seed], [true, 385]);
    await assert.rejects(pruned.core.pruneBlockchain(3), /already pruned with different seed/);
  });

  it("get_transactions: the same pruned blob and prunable hash; the prunable part is gone", async () => {
    assert.ok(pruned && full);
    const q = { txs_hashes: ids.slice(0, 40), decode_as_json: true };
    const txs = async (url: string, body: typeof q & { prune?: boolean }) => {
      const r = await nodePath(url, "/get_transactions", body);
      assert.ok(r.txs, `${url}: no txs`);
      return r.txs;
    };
    const a = await txs(full.rpcUrl, q);
    const b = await txs(pruned.rpcUrl, q);
    assert.equal(b.length, 40);
    for (let i = 0; i < a.length; i++) {
      assert.notEqual(a[i].as_hex, "", "the full node answers the whole blob");
      assert.equal(b[i].as_hex, "", "a pruned tx has no whole blob");
      assert.equal(b[i].prunable_as_hex, "");
      assert.equal(b[i].prunable_hash, a[i].prunable_hash);
      assert.ok(String(a[i].as_hex).startsWith(String(b[i].pruned_as_hex)), "the pruned part is the blob's head");
      assert.deepEqual(b[i].output_indices, a[i].output_indices);
      assert.ok(!String(b[i].as_json).includes("\"CLSAGs\""), "the JSON is the pruned form");
    }
    // the full node's pruned answer is the pruned node's answer
    const ap = await txs(full.rpcUrl, { ...q, prune: true });
    const bp = await txs(pruned.rpcUrl, { ...q, prune: true });
    assert.deepEqual(bp, ap);
  });

  it("a real monero-wallet-rpc restored on each reports the same balances and transfers", async () => {
    assert.ok(pruned && full);
    const answers: { balances: WalletResult<"get_balance">[]; transfers: WalletResult<"get_transfers">[] }[] = [];
    for (const node of [full, pruned]) {
      const wdir = join(dir, `wallets-${answers.length}`);
      mkdirSync(wdir, { recursive: true });
      const w = startWallet("/usr/bin/monero-wallet-rpc", node.rpcUrl, await freePort(), wdir);
      wallets.push(w);
      await waitWallet(w);
      const got: (typeof answers)[number] = { balances: [], transfers: [] };
      for (const [name, seed] of [["alice", WALLET_SEEDS.alice], ["bob", WALLET_SEEDS.bob]] as const) {
        await walletCall(w.url, "restore_deterministic_wallet", { filename: name, password: "", seed, restore_height: 0 });
        await walletCall(w.url, "refresh");
        got.balances.push(await walletCall(w.url, "get_balance", { all_accounts: true }));
        got.transfers.push(await walletCall(w.url, "get_transfers", { in: true, out: true, all_accounts: true }));
        await walletCall(w.url, "close_wallet");
      }
      answers.push(got);
    }
    assert.ok(big(answers[0].balances[0].balance) > 0n, "alice has funds");
    assert.deepEqual(answers[1], answers[0]);
  });

  it("the pruned database holds less: compact copies of both", async () => {
    assert.ok(pruned && full);
    await full.stop();
    await pruned.stop();
    const lmdb = (sub: string) => {
      const base = join(dir, sub);
      const found = readdirSync(base, { recursive: true }).map(String).find((f) => f.endsWith("data.mdb"));
      assert.ok(found, `no data.mdb under ${base}`);
      return join(base, found, "..");
    };
    const a = await compactSize(lmdb("full"), join(dir, "copy-full"));
    const b = await compactSize(lmdb("pruned"), join(dir, "copy-pruned"));
    assert.ok(b < a, `pruned ${b} bytes < unpruned ${a} bytes`);
    console.log(`# compact sizes: unpruned ${a} bytes, pruned ${b} bytes (${(100 * (1 - b / a)).toFixed(1)}% saved)`);
    full = undefined;
    pruned = undefined;
  });
});
