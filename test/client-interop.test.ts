/**
 * NodeClient against a real monerod (Debian package `monero`): regtest, offline, difficulty 1,
 * a few blocks mined with generateblocks; a second monerod with --rpc-login for digest auth.
 * Every typed client call is checked against what the node itself reports elsewhere. The calls
 * that set the scene (generateblocks, the real wallet's) go through the typed clients (nodeClient,
 * walletClient), and those are checked against the real monerod with digest auth too.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  NoDaemonConnectionError,
  NodeAuthError,
  NodeClient,
  NodeHttpError,
  NodeRpcError,
  NodeStatusError,
} from "../src/client/node-client.js";
import type { TypedNodeClient } from "../src/client/typed-node-client.js";
import type { WalletClient } from "../src/client/wallet-client.js";
import { nodeClient, type NodePathApi, type NodeRpcApi } from "../src/node/rpc/api.js";
import { blockHashesFromBlob } from "../src/protocol/block.js";
import { type WalletApi, walletClient } from "../src/wallet/rpc/api.js";
import { isJsonObject } from "../src/rpc/json.js";
import { needPackage } from "./helpers/packages.js";
import { type Daemon, startMonerod, startProcess, stopDaemon, waitReady } from "./helpers/monerod.js";

const skip = needPackage("monero");
const ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const BLOCKS = 6; // mined on top of genesis
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const U64_MAX = (1n << 64n) - 1n;

describe("client interop with monerod", { skip, timeout: 90_000 }, () => {
  let plain: Daemon | undefined;
  let authed: Daemon | undefined;
  let c: NodeClient;
  let a: NodeClient;
  /** The typed client on the plain monerod. */
  let n: TypedNodeClient<NodeRpcApi, NodePathApi>;

  before(async () => {
    plain = startMonerod(28440, 28441);
    authed = startMonerod(28442, 28443, ["--rpc-login", "user:pass"]);
    c = new NodeClient({ url: plain.url, timeoutMs: 20_000 });
    a = new NodeClient({ url: authed.url, login: "user:pass", timeoutMs: 20_000 });
    n = nodeClient({ url: plain.url, timeoutMs: 20_000 });
    await Promise.all([waitReady(plain, c), waitReady(authed, a)]);
    const r = await n.call("generateblocks", { amount_of_blocks: BLOCKS, wallet_address: ADDRESS });
    assert.ok(isJsonObject(r) && r.status === "OK", `generateblocks: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`);
  });

  after(async () => {
    c?.close();
    a?.close();
    n?.close();
    await Promise.all([stopDaemon(plain), stopDaemon(authed)]);
  });

  it("get_info, /get_height, get_block_count agree", async () => {
    const info = await c.getInfo();
    assert.equal(info.status, "OK");
    assert.equal(info.nettype, "fakechain");
    assert.equal(info.height, BigInt(BLOCKS + 1));
    assert.equal(typeof info.difficulty, "bigint");
    assert.equal(info.cumulative_difficulty, BigInt(BLOCKS + 1));
    const h = await c.getHeight();
    assert.equal(h.height, info.height);
    assert.equal(h.hash, info.top_block_hash);
    assert.equal((await c.getBlockCount()).count, info.height);
  });

  it("block headers: last, by height, and the error for a height past the top", async () => {
    const last = await c.getLastBlockHeader();
    assert.equal(last.block_header.height, BigInt(BLOCKS));
    assert.equal(last.block_header.hash, (await c.getHeight()).hash);
    const h2 = await c.getBlockHeaderByHeight(2n);
    assert.equal(h2.block_header.height, 2n);
    assert.equal(h2.block_header.depth, BigInt(BLOCKS - 2));
    assert.equal(h2.block_header.major_version, 16);
    assert.ok(h2.block_header.reward > 0n);
    const h3 = await c.getBlockHeaderByHeight(3);
    assert.equal(h3.block_header.prev_hash, h2.block_header.hash);
    // u64 max goes to monerod exactly and comes back in its message
    await assert.rejects(c.getBlockHeaderByHeight(U64_MAX), (e: unknown) => {
      assert.ok(e instanceof NodeRpcError);
      assert.equal(e.code, -2);
      assert.match(e.rpcMessage, /18446744073709551615 greater than current top block height: 6/);
      return true;
    });
  });

  it("get_blocks.bin from genesis: every block, ids matching the headers, output indices", async () => {
    const genesis = Buffer.from((await c.getBlockHeaderByHeight(0)).block_header.hash, "hex");
    const r = await c.getBlocksBin({ block_ids: [genesis], prune: true });
    assert.equal(r.start_height, 0n);
    assert.equal(r.current_height, BigInt(BLOCKS + 1));
    assert.equal(r.blocks.length, BLOCKS + 1);
    assert.equal(r.output_indices.length, BLOCKS + 1);
    for (let k = 0; k < r.blocks.length; k++) {
      const ids = blockHashesFromBlob(r.blocks[k].block);
      const hdr = (await c.getBlockHeaderByHeight(k)).block_header;
      assert.equal(hex(ids.hash), hdr.hash, `block ${k}`);
      assert.equal(hex(ids.minerTxHash), hdr.miner_tx_hash);
      assert.equal(r.blocks[k].txs.length, 0);
    }
    // the miner tx's output got global index = height - 1 for amount 0 (genesis's output is pre-RingCT)
    assert.deepEqual(r.output_indices[3].indices[0].indices, [2n]);
    // from a start height (with genesis as the only known id)
    const later = await c.getBlocksBin({ block_ids: [genesis], start_height: 4n, prune: false });
    assert.equal(later.start_height, 4n);
    assert.equal(later.blocks.length, BLOCKS + 1 - 4);
    const unknown = new Uint8Array(32).fill(7);
    await assert.rejects(c.getBlocksBin({ block_ids: [unknown] }), (e: unknown) => e instanceof NodeStatusError || e instanceof NodeHttpError);
  });

  it("get_outs.bin: keys, unlock state, heights and txids of RingCT outputs", async () => {
    const r = await c.getOutsBin([{ amount: 0n, index: 0n }, { amount: 0n, index: 2n }]);
    assert.equal(r.outs.length, 2);
    for (const [k, o] of r.outs.entries()) {
      const height = k === 0 ? 1n : 3n;
      assert.equal(o.height, height);
      assert.equal(o.key.length, 32);
      assert.equal(o.unlocked, false, "coinbase locked for 60 blocks");
      assert.equal(hex(o.txid), (await c.getBlockHeaderByHeight(height)).block_header.miner_tx_hash);
    }
    await assert.rejects(c.getOutsBin([{ amount: 0n, index: 1000n }]), (e: unknown) => e instanceof NodeStatusError || e instanceof NodeHttpError);
  });

  it("get_transactions: found and missed, with JSON and output indices", async () => {
    const hdr = (await c.getBlockHeaderByHeight(4)).block_header;
    const missing = "11".repeat(32);
    const r = await c.getTransactions([hdr.miner_tx_hash, missing], { decodeAsJson: true });
    assert.deepEqual(r.missed_tx, [missing]);
    assert.equal(r.txs.length, 1);
    const t = r.txs[0];
    assert.equal(t.tx_hash, hdr.miner_tx_hash);
    assert.equal(t.block_height, 4n);
    assert.equal(t.in_pool, false);
    assert.deepEqual(t.output_indices, [3n]);
    assert.match(t.as_json, /"gen": \{\s*"height": 4/);
    assert.ok(t.as_hex.length > 0 || t.pruned_as_hex.length > 0);
    await assert.rejects(c.getTransactions(["zz"]), (e: unknown) => e instanceof NodeStatusError && /Failed/.test(e.status));
  });

  it("pool hashes (JSON and .bin), send_raw_transaction refusal, fee estimate, version", async () => {
    assert.deepEqual((await c.getTransactionPoolHashes()).tx_hashes, []);
    assert.deepEqual((await c.getTransactionPoolHashesBin()).tx_hashes, []);
    const sent = await c.sendRawTransaction("00");
    assert.equal(sent.status, "Failed");
    assert.equal(sent.sanity_check_failed, true);
    const fee = await c.getFeeEstimate();
    assert.ok(fee.fee > 0n);
    assert.equal(fee.fees.length, 4);
    assert.ok(fee.quantization_mask > 0n);
    const v = await c.getVersion();
    assert.equal(v.version >> 16, 3);
  });

  it("output distribution: JSON-RPC, .bin and .bin compressed give the same numbers", async () => {
    const j = await c.getOutputDistribution({ amounts: [0n], cumulative: true });
    const b = await c.getOutputDistributionBin({ amounts: [0n], cumulative: true });
    const z = await c.getOutputDistributionBin({ amounts: [0n], cumulative: true, compress: true });
    assert.equal(j.distributions.length, 1);
    assert.equal(j.distributions[0].distribution.length, BLOCKS + 1);
    assert.deepEqual(j.distributions[0].distribution.slice(0, 3), [0n, 1n, 2n]);
    assert.deepEqual(b.distributions, j.distributions);
    assert.deepEqual(z.distributions, j.distributions);
  });

  it("digest auth against monerod --rpc-login: right, wrong and missing login", async () => {
    assert.equal((await a.getInfo()).status, "OK");
    // 40 calls in parallel, more than the client's 8 sockets: monerod keeps one nonce and nc per
    // connection, and a reused connection must carry that connection's newest nonce
    const hs = await Promise.all(Array.from({ length: 40 }, () => a.getHeight()));
    for (const h of hs) assert.equal(h.height, 1n);
    const genesis = Buffer.from((await a.getBlockHeaderByHeight(0)).block_header.hash, "hex");
    // .bin through digest too; monerod sends no blocks when our newest known id is its top block
    const bin = await a.getBlocksBin({ block_ids: [genesis] });
    assert.equal(bin.current_height, 1n);
    assert.equal(bin.blocks.length, 0);
    const wrong = new NodeClient({ url: a.url, login: "user:nope" });
    await assert.rejects(wrong.getHeight(), NodeAuthError);
    const none = new NodeClient({ url: a.url });
    await assert.rejects(none.getInfo(), /requires a login/);
    wrong.close();
    none.close();
  });

  it("the typed node client against monerod --rpc-login: JSON-RPC methods and JSON paths, digest auth", async () => {
    const t = nodeClient({ url: a.url, login: "user:pass", timeoutMs: 20_000 });
    try {
      const info = await t.call("get_info");
      assert.equal(info.nettype, "fakechain");
      const hdr = await t.call("get_block_header_by_height", { height: 0 });
      assert.equal(hdr.block_header.height, 0);
      assert.equal(await t.call("on_get_block_hash", [0]), hdr.block_header.hash);
      const height = await t.path("/get_height");
      assert.equal(height.height, 1);
      assert.equal(height.hash, hdr.block_header.hash);
      const txs = await t.path("/get_transactions", { txs_hashes: [hdr.block_header.miner_tx_hash] });
      assert.equal(txs.txs?.[0].tx_hash, hdr.block_header.miner_tx_hash);
      await assert.rejects(t.call("get_block_header_by_height", { height: 5 }), (e: unknown) => e instanceof NodeRpcError && e.code === -2);
    } finally {
      t.close();
    }
    const none = nodeClient({ url: a.url });
    await assert.rejects(none.call("get_info"), NodeAuthError);
    none.close();
  });

  describe("with a transaction in the pool (made by monero-wallet-rpc, sent by us)", { skip: needPackage("monero") }, () => {
    let wallet: Daemon | undefined;
    let w: WalletClient<WalletApi>;
    let tx: { tx_blob: string; tx_hash: string };

    before(async () => {
      const dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-"));
      const args = ["--wallet-dir", dir, "--daemon-address", "127.0.0.1:28440", "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", "28444", "--disable-rpc-login", "--trusted-daemon", "--log-level", "0"];
      wallet = startProcess("/usr/bin/monero-wallet-rpc", args, dir, "http://127.0.0.1:28444");
      w = walletClient({ url: wallet.url, timeoutMs: 30_000 });
      await waitReady(wallet, w.transport, 30_000, () => w.call("get_version", undefined, { timeoutMs: 1000 }));
      await w.call("create_wallet", { filename: "w", language: "English" });
      const addr = await w.call("get_address", { account_index: 0 });
      // coinbase unlocks after 60 blocks, and a ring of 16 needs 16 unlocked outputs on the chain
      await n.call("generateblocks", { amount_of_blocks: 75, wallet_address: addr.address });
      await w.call("refresh", {});
      tx = await w.call("transfer", { destinations: [{ amount: 1_000_000_000n, address: addr.address }], do_not_relay: true, get_tx_hex: true });
    });

    after(async () => {
      w?.close();
      await stopDaemon(wallet);
    });

    it("send_raw_transaction accepts it; both pool-hash paths and get_transactions see it; a block takes it", async () => {
      const sent = await c.sendRawTransaction(tx.tx_blob);
      assert.equal(sent.status, "OK", sent.reason);
      assert.deepEqual((await c.getTransactionPoolHashes()).tx_hashes, [tx.tx_hash]);
      // monerod's .bin here is JSON with the ids as raw bytes in one string (NUL and control bytes unescaped)
      assert.deepEqual((await c.getTransactionPoolHashesBin()).tx_hashes.map(hex), [tx.tx_hash]);
      const inPool = await c.getTransactions([tx.tx_hash]);
      assert.equal(inPool.txs[0].in_pool, true);
      assert.equal(inPool.txs[0].as_hex, tx.tx_blob);
      const again = await c.sendRawTransaction(tx.tx_blob);
      assert.equal(again.status, "OK", "a tx already in the pool is accepted again");
      await n.call("generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS });
      assert.deepEqual((await c.getTransactionPoolHashes()).tx_hashes, []);
      const mined = await c.getTransactions([tx.tx_hash]);
      assert.equal(mined.txs[0].in_pool, false);
      assert.equal(mined.txs[0].block_height, (await c.getHeight()).height - 1n);
      const top = await c.getBlocksBin({ block_ids: [Buffer.from((await c.getBlockHeaderByHeight(0)).block_header.hash, "hex")], start_height: mined.txs[0].block_height, prune: true });
      assert.equal(top.blocks[0].txs.length, 1, "the tx rides in get_blocks.bin, pruned");
      assert.equal(top.blocks[0].pruned, true);
    });
  });

  it("no node: NoDaemonConnectionError after bounded retries", async () => {
    const gone = new NodeClient({ url: "http://127.0.0.1:28449", retries: 2, retryDelayMs: 20 });
    const t0 = Date.now();
    await assert.rejects(gone.getInfo(), (e: unknown) => e instanceof NoDaemonConnectionError && /ECONNREFUSED/.test(e.message));
    assert.ok(Date.now() - t0 < 2000);
  });
});
