/**
 * WalletService + the wallet RPC against a real monerod (Debian package `monero`) replaying the
 * recorded regtest chain (test/fixtures/chain): restore and refresh, reads answered while a rescan
 * runs, background refresh, store after refresh, tx-notify, frozen outputs across close/open, scan_tx,
 * and a reorg (pop_blocks 5 + 7 other blocks) after which the wallet answers what a fresh restore answers.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/index.js";
import { OpenWallet } from "../src/wallet/service/wallet.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, startMonerod, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";
import { CallError, walletCall } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const RPC_PORT = 29220;
const P2P_PORT = 29221;
const WALLET_PORT = 29222;
const FAST_KDF = { log2N: 10, r: 8, p: 1 };
// carol's primary address: blocks mined in the tests pay no wallet under test but carol
const MINER = "42C1Dp59SFVM1VzBdzc7xJFkEmNGvKLSVMFU3cuhvvAJFwtQjUCMkV1XisaXJPUfKU6drNCSHx59kNn4iCNcqTGXMzNbksS";

/** A list epee leaves out when empty, asserted present (the raw reads cast it and would have thrown). */
function present<T>(v: T | undefined, what: string): T {
  assert.ok(v !== undefined, `${what}: absent`);
  return v;
}

/** Everything the acceptance compares, with the pool's timestamps (the refresh's clock) left out. */
async function answers(url: string): Promise<Record<string, unknown>> {
  const transfers = await walletCall(url, "get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true });
  for (const e of transfers.pool ?? []) delete (e as { timestamp?: unknown }).timestamp;
  return {
    height: await walletCall(url, "get_height"),
    balance: await walletCall(url, "get_balance", { all_accounts: true }),
    balance0: await walletCall(url, "get_balance", { account_index: 0 }),
    strict: await walletCall(url, "get_balance", { all_accounts: true, strict: true }),
    accounts: await walletCall(url, "get_accounts"),
    transfers,
    incoming: await walletCall(url, "incoming_transfers", { transfer_type: "all" }),
    available: await walletCall(url, "incoming_transfers", { transfer_type: "available" }),
    bulk: await walletCall(url, "get_bulk_payments", { payment_ids: [] }),
    address: await walletCall(url, "get_address"),
  };
}

describe("WalletService against monerod", { skip }, () => {
  let d: Daemon | undefined;
  let node: NodeClient;
  let dir: string;
  let notifyDir: string;
  let svc: WalletService;
  let rpc: WalletRpc;
  let url: string;
  const height = recordedBlocks().length;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-service-"));
    notifyDir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-notify-"));
    d = startMonerod(RPC_PORT, P2P_PORT);
    node = new NodeClient({ url: d.url, timeoutMs: 30_000 });
    await waitReady(d, node);
    const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
    const nodeUrl = d.url;
    for (const b of recordedBlocks().slice(1)) {
      for (const h of b.tx_hashes) {
        const r = await node.sendRawTransaction(txById.get(h)?.as_hex ?? "", { doNotRelay: false });
        assert.equal(r.status, "OK", `send_raw_transaction ${h}`);
      }
      const r = await nodeCall(nodeUrl, "submit_block", [b.blob]);
      assert.equal(r.status, "OK", `submit_block ${b.height}`);
    }
    svc = new WalletService({
      network: "mainnet",
      walletDir: dir,
      node,
      trusted: true,
      kdf: FAST_KDF,
      autoRefreshPeriod: 0,
      txNotify: `/usr/bin/touch ${notifyDir}/%s`,
      log: () => undefined,
    });
    svc.start();
    rpc = await startWalletRpc({ service: svc, port: WALLET_PORT });
    url = rpc.url;
  });

  after(async () => {
    await svc?.stop();
    await rpc?.close();
    node?.close();
    await stopDaemon(d);
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (notifyDir) rmSync(notifyDir, { recursive: true, force: true });
  });

  it("restores alice, refreshes the whole chain, stores after the refresh and runs tx-notify per incoming tx", async () => {
    await walletCall(url, "restore_deterministic_wallet", { filename: "alice", password: "pw", seed: WALLET_SEEDS.alice, language: "English" });
    const r = await walletCall(url, "refresh");
    // the store runs right after the answer is written, in the same turn of the service's event
    // loop (this process's): by the time the answer is read here, the cache on disk holds the refresh
    const copy = await OpenWallet.open({ dir, name: "alice", network: "mainnet", password: "pw" });
    assert.equal(copy.ledger.height, height);
    await copy.close();
    assert.equal(r.blocks_fetched, height - 1, "wallet2 holds genesis from the start: it does not count it");
    assert.equal(r.received_money, true);
    assert.equal((await walletCall(url, "get_height")).height, height);
    const bal = await walletCall(url, "get_balance", { all_accounts: true });
    assert.ok(typeof bal.balance === "number" || typeof bal.balance === "bigint");
    assert.ok(BigInt(bal.balance as number) > 0n, "alice has money");
    // one touch per tx that paid alice
    const txids = new Set((present((await walletCall(url, "get_transfers", { in: true, all_accounts: true })).in, "in")).map((e) => e.txid));
    for (let i = 0; i < 50 && readdirSync(notifyDir).length < txids.size; i++) await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(new Set(readdirSync(notifyDir)), txids);
  });

  it("answers get_balance while rescan_blockchain runs", async () => {
    const before = await walletCall(url, "get_balance", { all_accounts: true });
    let done = false;
    const rescan = walletCall(url, "rescan_blockchain").finally(() => {
      done = true;
    });
    let during = 0;
    while (!done) {
      await walletCall(url, "get_balance", { all_accounts: true });
      if (!done) during++;
    }
    await rescan;
    assert.ok(during >= 2, `get_balance answered ${during} times during the rescan`);
    assert.deepEqual(await walletCall(url, "get_balance", { all_accounts: true }), before);
  });

  it("a frozen output stays frozen across close/open and leaves the balance", async () => {
    const list = present((await walletCall(url, "incoming_transfers", { transfer_type: "available" })).transfers, "transfers");
    const t = list.find((x) => x.unlocked === true);
    assert.ok(t, "an unlocked output");
    const before = BigInt((await walletCall(url, "get_balance")).balance as number);
    await walletCall(url, "freeze", { key_image: t.key_image });
    assert.equal((await walletCall(url, "frozen", { key_image: t.key_image })).frozen, true);
    assert.equal(BigInt((await walletCall(url, "get_balance")).balance as number), before - BigInt(t.amount as number));
    await walletCall(url, "close_wallet");
    await walletCall(url, "open_wallet", { filename: "alice", password: "pw" });
    assert.equal((await walletCall(url, "frozen", { key_image: t.key_image })).frozen, true);
    const again = present((await walletCall(url, "incoming_transfers", { transfer_type: "available" })).transfers, "transfers").find((x) => x.key_image === t.key_image);
    assert.equal(again?.frozen, true);
    await walletCall(url, "thaw", { key_image: t.key_image });
    assert.equal(BigInt((await walletCall(url, "get_balance")).balance as number), before);
  });

  it("refreshes in the background (auto_refresh) without a refresh call", async () => {
    await walletCall(url, "auto_refresh", { enable: true, period: 1 });
    await nodeCall(d?.url ?? "", "generateblocks", { amount_of_blocks: 2n, wallet_address: MINER });
    let h = 0;
    for (let i = 0; i < 100 && h < height + 2; i++) {
      h = Number((await walletCall(url, "get_height")).height);
      if (h < height + 2) await new Promise((res) => setTimeout(res, 100));
    }
    await walletCall(url, "auto_refresh", { enable: false });
    assert.equal(h, height + 2);
  });

  it("scan_tx finds a payment below the restore height", async () => {
    await walletCall(url, "restore_deterministic_wallet", { filename: "carol", password: "", seed: WALLET_SEEDS.carol, language: "English" });
    await walletCall(url, "refresh");
    const ins = present((await walletCall(url, "get_transfers", { in: true, all_accounts: true })).in, "in").filter((e) => e.type === "in");
    assert.ok(ins.length > 0);
    const first = ins[0];
    await walletCall(url, "restore_deterministic_wallet", { filename: "carol-late", password: "", seed: WALLET_SEEDS.carol, restore_height: Number(first.height) + 1 });
    await walletCall(url, "refresh");
    const late = async () => (await walletCall(url, "get_transfers", { in: true, all_accounts: true })).in ?? [];
    assert.ok(!(await late()).some((e) => e.txid === first.txid));
    await walletCall(url, "scan_tx", { txids: [first.txid] });
    const found = (await late()).filter((e) => e.txid === first.txid);
    assert.deepEqual(
      found.map((e) => [e.amount, e.height, e.subaddr_index]),
      ins.filter((e) => e.txid === first.txid).map((e) => [e.amount, e.height, e.subaddr_index]),
    );
  });

  it("set_daemon: an unreachable node answers -38 on refresh; the real one again works", async () => {
    await walletCall(url, "set_daemon", { address: "127.0.0.1:1" });
    await assert.rejects(walletCall(url, "refresh"), (e: unknown) => e instanceof CallError && e.code === -38 && / refresh: -38 no connection to daemon/.test(e.message));
    await walletCall(url, "set_daemon", { address: `127.0.0.1:${RPC_PORT}`, trusted: true });
    assert.equal((await walletCall(url, "refresh")).blocks_fetched, 0);
    // seed_offset restores another account
    const plain = (await walletCall(url, "get_address")).address;
    const r = await walletCall(url, "restore_deterministic_wallet", { filename: "carol-offset", password: "", seed: WALLET_SEEDS.carol, seed_offset: "pass phrase" });
    assert.notEqual(r.address, plain);
    assert.equal((await walletCall(url, "get_address")).address, r.address);
  });

  it("after pop_blocks 5 and 7 other blocks, the wallet answers what a fresh restore answers", async () => {
    await walletCall(url, "open_wallet", { filename: "alice", password: "pw" });
    await walletCall(url, "refresh");
    const top = Number((await node.getHeight()).height);
    const popped = await nodePath(d?.url ?? "", "/pop_blocks", { nblocks: 5n });
    assert.equal(popped.status, "OK");
    await nodeCall(d?.url ?? "", "generateblocks", { amount_of_blocks: 7n, wallet_address: MINER });
    assert.equal(Number((await node.getHeight()).height), top + 2);
    const r = await walletCall(url, "refresh");
    assert.equal(r.blocks_fetched, 6, "wallet2 does not count the first block after the split");
    const reorged = await answers(url);
    await walletCall(url, "restore_deterministic_wallet", { filename: "alice-fresh", password: "", seed: WALLET_SEEDS.alice });
    await walletCall(url, "refresh");
    const fresh = await answers(url);
    assert.deepEqual(reorged, fresh);
    assert.ok(existsSync(join(dir, "alice-fresh.keys")) && existsSync(join(dir, "alice-fresh")), "NAME.keys and NAME");
  });

  it("mined txs sent back to the pool (pop_blocks without new blocks) show as pool entries of 0, as wallet2 shows them", async () => {
    // the node's chain gets shorter with nothing new: the wallet keeps its blocks (wallet2 does too)
    const popped = await nodePath(d?.url ?? "", "/pop_blocks", { nblocks: 40n });
    assert.equal(popped.status, "OK");
    const poolIds = new Set((await node.getTransactionPoolHashes()).tx_hashes);
    assert.ok(poolIds.size > 0);
    assert.deepEqual(await walletCall(url, "refresh"), { blocks_fetched: 0, received_money: false });
    const t = await walletCall(url, "get_transfers", { in: true, pool: true, all_accounts: true });
    const pool = t.pool ?? [];
    const mined = new Set((t.in ?? []).map((e) => e.txid));
    assert.ok(pool.length > 0, "alice sees pool entries");
    assert.ok(pool.some((e) => mined.has(e.txid)), "some of them are txs the wallet holds as mined");
    for (const e of pool) {
      assert.ok(poolIds.has(e.txid as string), "a pool entry is in the node's pool");
      assert.equal(e.height, 0);
      assert.equal(e.locked, true);
      if (mined.has(e.txid)) assert.equal(e.amount, 0, "outputs the wallet already holds count 0 in the pool view");
    }
  });
});
