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
import { isJsonObject, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../src/rpc/json.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/index.js";
import { OpenWallet } from "../src/wallet/service/wallet.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, startMonerod, stopDaemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";

const skip = needPackage("monero");
const RPC_PORT = 29220;
const P2P_PORT = 29221;
const WALLET_PORT = 29222;
const FAST_KDF = { log2N: 10, r: 8, p: 1 };
// carol's primary address: blocks mined in the tests pay no wallet under test but carol
const MINER = "42C1Dp59SFVM1VzBdzc7xJFkEmNGvKLSVMFU3cuhvvAJFwtQjUCMkV1XisaXJPUfKU6drNCSHx59kNn4iCNcqTGXMzNbksS";

type Answer = { result?: Record<string, JsonValue>; error?: { code: number; message: string } };

async function call(url: string, method: string, params: JsonWritable = {}): Promise<Record<string, JsonValue>> {
  const r = await fetch(`${url}/json_rpc`, { method: "POST", body: stringifyJson({ jsonrpc: "2.0", id: 1, method, params }) });
  const v = parseJson(await r.text()) as unknown as Answer;
  assert.ok(isJsonObject(v as unknown as JsonValue));
  if (v.error) throw new Error(`${method}: ${v.error.code} ${v.error.message}`);
  assert.ok(v.result);
  return v.result;
}

/** Everything the acceptance compares, with the pool's timestamps (the refresh's clock) left out. */
async function answers(url: string): Promise<Record<string, unknown>> {
  const transfers = await call(url, "get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true });
  for (const e of (transfers.pool as Record<string, JsonValue>[] | undefined) ?? []) delete e.timestamp;
  return {
    height: await call(url, "get_height"),
    balance: await call(url, "get_balance", { all_accounts: true }),
    balance0: await call(url, "get_balance", { account_index: 0 }),
    strict: await call(url, "get_balance", { all_accounts: true, strict: true }),
    accounts: await call(url, "get_accounts"),
    transfers,
    incoming: await call(url, "incoming_transfers", { transfer_type: "all" }),
    available: await call(url, "incoming_transfers", { transfer_type: "available" }),
    bulk: await call(url, "get_bulk_payments", { payment_ids: [] }),
    address: await call(url, "get_address"),
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
    for (const b of recordedBlocks().slice(1)) {
      for (const h of b.tx_hashes) {
        const r = await node.sendRawTransaction(txById.get(h)?.as_hex ?? "", { doNotRelay: false });
        assert.equal(r.status, "OK", `send_raw_transaction ${h}`);
      }
      const r = await node.jsonRpc("submit_block", [b.blob]);
      assert.ok(r && typeof r === "object" && !Array.isArray(r) && r.status === "OK", `submit_block ${b.height}`);
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
    await call(url, "restore_deterministic_wallet", { filename: "alice", password: "pw", seed: WALLET_SEEDS.alice, language: "English" });
    const r = await call(url, "refresh");
    assert.equal(r.blocks_fetched, height - 1, "wallet2 holds genesis from the start: it does not count it");
    assert.equal(r.received_money, true);
    assert.equal((await call(url, "get_height")).height, height);
    const bal = await call(url, "get_balance", { all_accounts: true });
    assert.ok(typeof bal.balance === "number" || typeof bal.balance === "bigint");
    assert.ok(BigInt(bal.balance as number) > 0n, "alice has money");
    // the cache on disk already holds the refresh
    const copy = await OpenWallet.open({ dir, name: "alice", network: "mainnet", password: "pw" });
    assert.equal(copy.ledger.height, height);
    await copy.close();
    // one touch per tx that paid alice
    const txids = new Set(((await call(url, "get_transfers", { in: true, all_accounts: true })).in as Record<string, JsonValue>[]).map((e) => e.txid));
    for (let i = 0; i < 50 && readdirSync(notifyDir).length < txids.size; i++) await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(new Set(readdirSync(notifyDir)), txids);
  });

  it("answers get_balance while rescan_blockchain runs", async () => {
    const before = await call(url, "get_balance", { all_accounts: true });
    let done = false;
    const rescan = call(url, "rescan_blockchain").finally(() => {
      done = true;
    });
    let during = 0;
    while (!done) {
      await call(url, "get_balance", { all_accounts: true });
      if (!done) during++;
    }
    await rescan;
    assert.ok(during >= 2, `get_balance answered ${during} times during the rescan`);
    assert.deepEqual(await call(url, "get_balance", { all_accounts: true }), before);
  });

  it("a frozen output stays frozen across close/open and leaves the balance", async () => {
    const list = (await call(url, "incoming_transfers", { transfer_type: "available" })).transfers as Record<string, JsonValue>[];
    const t = list.find((x) => x.unlocked === true);
    assert.ok(t, "an unlocked output");
    const before = BigInt((await call(url, "get_balance")).balance as number);
    await call(url, "freeze", { key_image: t.key_image });
    assert.equal((await call(url, "frozen", { key_image: t.key_image })).frozen, true);
    assert.equal(BigInt((await call(url, "get_balance")).balance as number), before - BigInt(t.amount as number));
    await call(url, "close_wallet");
    await call(url, "open_wallet", { filename: "alice", password: "pw" });
    assert.equal((await call(url, "frozen", { key_image: t.key_image })).frozen, true);
    const again = ((await call(url, "incoming_transfers", { transfer_type: "available" })).transfers as Record<string, JsonValue>[]).find((x) => x.key_image === t.key_image);
    assert.equal(again?.frozen, true);
    await call(url, "thaw", { key_image: t.key_image });
    assert.equal(BigInt((await call(url, "get_balance")).balance as number), before);
  });

  it("refreshes in the background (auto_refresh) without a refresh call", async () => {
    await call(url, "auto_refresh", { enable: true, period: 1 });
    await node.jsonRpc("generateblocks", { amount_of_blocks: 2n, wallet_address: MINER });
    let h = 0;
    for (let i = 0; i < 100 && h < height + 2; i++) {
      h = Number((await call(url, "get_height")).height);
      if (h < height + 2) await new Promise((res) => setTimeout(res, 100));
    }
    await call(url, "auto_refresh", { enable: false });
    assert.equal(h, height + 2);
  });

  it("scan_tx finds a payment below the restore height", async () => {
    await call(url, "restore_deterministic_wallet", { filename: "carol", password: "", seed: WALLET_SEEDS.carol, language: "English" });
    await call(url, "refresh");
    const ins = ((await call(url, "get_transfers", { in: true, all_accounts: true })).in as Record<string, JsonValue>[]).filter((e) => e.type === "in");
    assert.ok(ins.length > 0);
    const first = ins[0];
    await call(url, "restore_deterministic_wallet", { filename: "carol-late", password: "", seed: WALLET_SEEDS.carol, restore_height: Number(first.height) + 1 });
    await call(url, "refresh");
    const late = async () => ((await call(url, "get_transfers", { in: true, all_accounts: true })).in as Record<string, JsonValue>[] | undefined) ?? [];
    assert.ok(!(await late()).some((e) => e.txid === first.txid));
    await call(url, "scan_tx", { txids: [first.txid] });
    const found = (await late()).filter((e) => e.txid === first.txid);
    assert.deepEqual(
      found.map((e) => [e.amount, e.height, e.subaddr_index]),
      ins.filter((e) => e.txid === first.txid).map((e) => [e.amount, e.height, e.subaddr_index]),
    );
  });

  it("set_daemon: an unreachable node answers -38 on refresh; the real one again works", async () => {
    await call(url, "set_daemon", { address: "127.0.0.1:1" });
    await assert.rejects(call(url, "refresh"), /^Error: refresh: -38 no connection to daemon/);
    await call(url, "set_daemon", { address: `127.0.0.1:${RPC_PORT}`, trusted: true });
    assert.equal((await call(url, "refresh")).blocks_fetched, 0);
    // seed_offset restores another account
    const plain = (await call(url, "get_address")).address;
    const r = await call(url, "restore_deterministic_wallet", { filename: "carol-offset", password: "", seed: WALLET_SEEDS.carol, seed_offset: "pass phrase" });
    assert.notEqual(r.address, plain);
    assert.equal((await call(url, "get_address")).address, r.address);
  });

  it("after pop_blocks 5 and 7 other blocks, the wallet answers what a fresh restore answers", async () => {
    await call(url, "open_wallet", { filename: "alice", password: "pw" });
    await call(url, "refresh");
    const top = Number((await node.getHeight()).height);
    const popped = await node.json("/pop_blocks", { nblocks: 5n });
    assert.ok(isJsonObject(popped) && popped.status === "OK");
    await node.jsonRpc("generateblocks", { amount_of_blocks: 7n, wallet_address: MINER });
    assert.equal(Number((await node.getHeight()).height), top + 2);
    const r = await call(url, "refresh");
    assert.equal(r.blocks_fetched, 6, "wallet2 does not count the first block after the split");
    const reorged = await answers(url);
    await call(url, "restore_deterministic_wallet", { filename: "alice-fresh", password: "", seed: WALLET_SEEDS.alice });
    await call(url, "refresh");
    const fresh = await answers(url);
    assert.deepEqual(reorged, fresh);
    assert.ok(existsSync(join(dir, "alice-fresh.keys")) && existsSync(join(dir, "alice-fresh")), "NAME.keys and NAME");
  });

  it("mined txs sent back to the pool (pop_blocks without new blocks) show as pool entries of 0, as wallet2 shows them", async () => {
    // the node's chain gets shorter with nothing new: the wallet keeps its blocks (wallet2 does too)
    const popped = await node.json("/pop_blocks", { nblocks: 40n });
    assert.ok(isJsonObject(popped) && popped.status === "OK");
    const poolIds = new Set((await node.getTransactionPoolHashes()).tx_hashes);
    assert.ok(poolIds.size > 0);
    assert.deepEqual(await call(url, "refresh"), { blocks_fetched: 0, received_money: false });
    const t = await call(url, "get_transfers", { in: true, pool: true, all_accounts: true });
    const pool = (t.pool as Record<string, JsonValue>[] | undefined) ?? [];
    const mined = new Set(((t.in as Record<string, JsonValue>[] | undefined) ?? []).map((e) => e.txid));
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
