/**
 * WalletSync against a real monerod (Debian package `monero`): the recorded regtest chain
 * (test/fixtures/chain) is replayed into a fresh regtest node (each block's txs through
 * /send_raw_transaction, then submit_block, as scripts/record-consensus-fixtures.mjs does), the three
 * recorded wallets refresh through NodeClient, and their ledgers are compared with scanning the
 * fixture blocks directly. Then monerod pops 5 blocks and mines 7 others: the refreshed ledgers
 * must equal fresh wallets refreshed from scratch.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type NodeApi, NoDaemonConnectionError, NodeClient } from "../src/client/node-client.js";
import { defaultBackend } from "../src/crypto/index.js";
import { encodeAddress } from "../src/protocol/address.js";
import { parseBlock } from "../src/protocol/block.js";
import { wordsToBytes } from "../src/protocol/mnemonic/index.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { accountFromRecoveryKey, type AccountKeys } from "../src/wallet/keys/account.js";
import { emptyLedgerState, Ledger, type PaymentDetails } from "../src/wallet/ledger/ledger.js";
import { ScanWorker, type WalletScanner } from "../src/wallet/scan/pool.js";
import { OutputIndexer, type ScanBlockInput, Scanner } from "../src/wallet/scan/scan.js";
import { ReorgDepthError, shortChainHistory, WalletSync } from "../src/wallet/sync/index.js";
import { fromHex, recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";
import { type Daemon, startMonerod, startProcess, stopDaemon, waitReady } from "./helpers/monerod.js";
import { freePort } from "./helpers/ports.js";

const TSMONEROD = fileURLToPath(new URL("../../bin/tsmonerod", import.meta.url));

const skip = needPackage("monero");
const be = defaultBackend();
const RPC_PORT = 28763;
const P2P_PORT = 28764;
// an address of no recorded wallet (the one test/client-interop.test.ts mines to)
const ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const SEEDS = WALLET_SEEDS;
type Name = keyof typeof SEEDS;
const NAMES: Name[] = ["alice", "bob", "carol"];
const NOW = () => BigInt(Math.floor(Date.now() / 1000));
// the pool's entries carry the refresh's clock: one fixed clock lets two refreshes compare equal
const CLOCK = NOW();

const account = (n: Name): AccountKeys => accountFromRecoveryKey(wordsToBytes(SEEDS[n]).bytes, be);

/** The fixture's blocks as scanner input (full blobs, output indices counted from the chain). */
function fixtureInputs(): ScanBlockInput[] {
  const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  const indexer = new OutputIndexer();
  return recordedBlocks().map((b) => {
    const block = parseBlock(fromHex(b.blob));
    const txBlobs = b.tx_hashes.map((h) => fromHex(txById.get(h)?.as_hex ?? ""));
    const outputIndices = [indexer.next(block.minerTx), ...txBlobs.map((blob) => indexer.next(parseTransaction(blob)))];
    return { height: b.height, blockBlob: fromHex(b.blob), txBlobs, outputIndices };
  });
}

/** A wallet: ledger + scanner + sync; `worker` scans in a ScanWorker. */
function wallet(n: Name, node: NodeClient, worker: boolean): { ledger: Ledger; sync: WalletSync; close: () => Promise<void> } {
  const keys = account(n);
  const ledger = new Ledger(emptyLedgerState(0), "testnet");
  const w = worker ? new ScanWorker(keys) : null;
  const sync = new WalletSync({ node, ledger, scanner: w ?? new Scanner(keys, be), now: () => CLOCK });
  return { ledger, sync, close: async () => w?.close() };
}

describe("WalletSync against monerod", { skip }, () => {
  let d: Daemon | undefined;
  let node: NodeClient;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    d = startMonerod(RPC_PORT, P2P_PORT);
    node = new NodeClient({ url: d.url, timeoutMs: 30_000 });
    await waitReady(d, node);
    const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
    for (const b of recordedBlocks().slice(1)) {
      for (const h of b.tx_hashes) {
        const r = await node.sendRawTransaction(txById.get(h)?.as_hex ?? "", { doNotRelay: false });
        assert.equal(r.status, "OK", `send_raw_transaction ${h} at ${b.height}: ${r.reason}`);
      }
      const r = await nodeCall(node.url, "submit_block", [b.blob]);
      assert.equal(r.status, "OK", `submit_block ${b.height}`);
    }
  });

  after(async () => {
    for (const c of closers) await c();
    node?.close();
    await stopDaemon(d);
  });

  it("short chain history: 10 recent ids, then exponentially sparser, then genesis", () => {
    const tail = Array.from({ length: 100 }, (_, i) => `h${i}`);
    const ids = shortChainHistory(0, tail, "G");
    assert.deepEqual(ids, ["h99", "h98", "h97", "h96", "h95", "h94", "h93", "h92", "h91", "h90", "h89", "h87", "h83", "h75", "h59", "h27", "h0"]);
    assert.deepEqual(shortChainHistory(500, tail.slice(0, 3), "G"), ["h2", "h1", "h0", "G"]);
    assert.deepEqual(shortChainHistory(7, [], "G"), ["G"]);
  });

  const synced = {} as Record<Name, { ledger: Ledger; sync: WalletSync }>;

  it("refresh over the replayed chain gives the ledger that scanning the fixture gives", async () => {
    const blocks = recordedBlocks();
    assert.equal(Number((await node.getHeight()).height), blocks.length);
    const inputs = fixtureInputs();
    for (const n of NAMES) {
      const w = wallet(n, node, n === "carol");
      closers.push(w.close);
      synced[n] = w;
      // reads during the refresh: a timer keeps reading the ledger while the refresh runs
      let readsDuring = 0;
      const timer = setInterval(() => {
        if (w.sync.refreshing) {
          w.ledger.balanceAll(w.ledger.state.subaddressCounts.length, NOW());
          readsDuring++;
        }
      }, 1);
      const p = w.sync.refresh();
      assert.equal(w.sync.refresh(), p, "a second refresh joins the running one");
      const r = await p;
      clearInterval(timer);
      assert.equal(r.blocks_fetched, blocks.length, n);
      assert.equal(r.received_money, true, n);
      assert.ok(readsDuring > 0, `${n}: the ledger was read while the refresh ran`);
      assert.equal(w.ledger.height, blocks.length);
      assert.equal(w.ledger.blockHash(blocks.length - 1), blocks[blocks.length - 1].hash);

      const scanner = new Scanner(account(n), be);
      const direct = new Ledger(emptyLedgerState(0), "testnet");
      for (const b of inputs) direct.applyBlock(scanner.scanBlock(b));
      assert.ok(direct.state.transfers.length > 0, `${n} has transfers`);
      assert.deepEqual(w.ledger.state.transfers, direct.state.transfers, `${n}: transfers`);
      assert.deepEqual(w.ledger.state.payments, direct.state.payments, `${n}: payments`);
      assert.deepEqual(w.ledger.state.outgoing, direct.state.outgoing, `${n}: outgoing`);
      assert.deepEqual(w.ledger.state.pool, [], `${n}: the replayed pool is empty`);
      const accounts = direct.state.subaddressCounts.length;
      const now = NOW();
      assert.deepEqual(w.ledger.balanceAll(accounts, now), direct.balanceAll(accounts, now), `${n}: balance`);

      const again = await w.sync.refresh();
      assert.deepEqual(again, { blocks_fetched: 0, received_money: false }, `${n}: nothing new`);
    }
  });

  it("a wallet restored at a height fetches from there and equals scanning from there", async () => {
    const blocks = recordedBlocks();
    const restore = 200;
    const inputs = fixtureInputs();
    for (const n of NAMES) {
      const ledger = new Ledger(emptyLedgerState(0), "testnet");
      const sync = new WalletSync({ node, ledger, scanner: new Scanner(account(n), be), restoreHeight: restore, now: () => CLOCK });
      const r = await sync.refresh();
      assert.equal(r.blocks_fetched, blocks.length - restore, n);
      assert.equal(ledger.state.hashTailStart, restore);
      const scanner = new Scanner(account(n), be);
      const direct = new Ledger(emptyLedgerState(restore), "testnet");
      for (const b of inputs.slice(restore)) direct.applyBlock(scanner.scanBlock(b));
      assert.deepEqual(ledger.state, direct.state, `${n}: restored at ${restore}`);
    }
    // a restore height at the node's top fetches nothing
    const top = new Ledger(emptyLedgerState(0), "testnet");
    const atTop = new WalletSync({ node, ledger: top, scanner: new Scanner(account("alice"), be), restoreHeight: blocks.length, now: () => CLOCK });
    assert.deepEqual(await atTop.refresh(), { blocks_fetched: 0, received_money: false });
    assert.equal(top.height, blocks.length);
  });

  it("after pop_blocks 5 and 7 other blocks, the refreshed ledger equals a fresh wallet's", async () => {
    const height = recordedBlocks().length;
    const paidBefore = Object.fromEntries(NAMES.map((n) => [n, synced[n].ledger.state.payments.map((p) => ({ ...p }))])) as Record<Name, PaymentDetails[]>;
    const popped = await nodePath(node.url, "/pop_blocks", { nblocks: 5n });
    assert.equal(popped.status, "OK");
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 7n, wallet_address: ADDRESS });
    assert.equal(Number((await node.getHeight()).height), height + 2);
    const newHash = (await node.getBlockHeaderByHeight(height - 5)).block_header.hash;
    assert.notEqual(newHash, recordedBlocks()[height - 5].hash, "the node's block at the fork differs");

    const poolIds = new Set((await node.getTransactionPoolHashes()).tx_hashes);
    let poolEntries = 0;
    for (const n of NAMES) {
      const w = synced[n];
      const before = w.ledger.state.transfers.length;
      const r = await w.sync.refresh();
      assert.equal(r.blocks_fetched, 7, `${n}: the 7 new blocks`);
      assert.equal(w.ledger.height, height + 2);
      assert.equal(w.ledger.blockHash(height - 5), newHash);
      const fresh = wallet(n, node, false);
      closers.push(fresh.close);
      const rf = await fresh.sync.refresh();
      assert.equal(rf.blocks_fetched, height + 2);
      assert.ok(before > 0);
      assert.deepEqual(w.ledger.state, fresh.ledger.state, `${n}: reorged ledger equals a fresh refresh`);
      // what the pool gave: txs of the popped blocks that monerod kept in its pool, with the amounts
      // the wallet had received from them when they were mined
      for (const p of w.ledger.state.pool) {
        assert.ok(poolIds.has(p.txid), `${n}: pool entry ${p.txid} is in the node's pool`);
        const mined = paidBefore[n].filter((q) => q.txid === p.txid && q.subaddress.major === p.subaddress.major && q.subaddress.minor === p.subaddress.minor);
        assert.equal(p.amount, mined.reduce((a, q) => a + q.amount, 0n), `${n}: pool amount of ${p.txid}`);
      }
      poolEntries += w.ledger.state.pool.length;
    }
    assert.ok(poolEntries > 0, "some popped tx paid a wallet and waits in the pool");
  });

  it("the pool is read as ids, and only txs not seen before are fetched", async () => {
    const ids = (await node.getTransactionPoolHashes()).tx_hashes;
    assert.ok(ids.length > 0, "the pool still holds popped txs");
    const asked: string[][] = [];
    // the real client, with getTransactions recording what it is asked for
    const counting: NodeApi = Object.assign(Object.create(node) as NodeClient, {
      getTransactions: (hashes: string[], o?: Parameters<NodeClient["getTransactions"]>[1]) => {
        asked.push(hashes);
        return node.getTransactions(hashes, o);
      },
    });
    const ledger = new Ledger(structuredClone(synced.bob.ledger.state), "testnet");
    const sync = new WalletSync({ node: counting, ledger, scanner: new Scanner(account("bob"), be), now: () => CLOCK });
    await sync.refresh();
    assert.deepEqual(asked, [ids]);
    const pool = structuredClone(ledger.state.pool);
    await sync.refresh();
    assert.equal(asked.length, 1, "the second refresh fetched no tx");
    assert.deepEqual(ledger.state.pool, pool);
    assert.deepEqual(ledger.state, synced.bob.ledger.state);
  });

  it("a reorg deeper than maxReorgDepth throws ReorgDepthError and leaves the ledger as it was", async () => {
    const w = synced.alice;
    const height = w.ledger.height;
    const popped = await nodePath(node.url, "/pop_blocks", { nblocks: 4n });
    assert.equal(popped.status, "OK");
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 5n, wallet_address: ADDRESS });
    const before = structuredClone(w.ledger.state);
    const strict = new WalletSync({ node, ledger: w.ledger, scanner: new Scanner(account("alice"), be), maxReorgDepth: 3, now: () => CLOCK });
    await assert.rejects(strict.refresh(), (e: unknown) => e instanceof ReorgDepthError && e.depth === 4 && e.max === 3);
    assert.deepEqual(w.ledger.state, before);
    const r = await w.sync.refresh();
    assert.equal(r.blocks_fetched, 5);
    assert.equal(w.ledger.height, height + 1);
    assert.equal(w.ledger.blockHash(height - 4), (await node.getBlockHeaderByHeight(height - 4)).block_header.hash);
  });

  it("a node that is not there surfaces as NoDaemonConnectionError", async () => {
    const gone = new NodeClient({ url: "http://127.0.0.1:28799", timeoutMs: 2000, retries: 0 });
    const ledger = new Ledger(emptyLedgerState(0), "testnet");
    const sync = new WalletSync({ node: gone, ledger, scanner: new Scanner(account("alice"), be) });
    await assert.rejects(sync.refresh(), NoDaemonConnectionError);
    assert.equal(sync.refreshing, false);
    gone.close();
  });
});

/**
 * The prefetch of the next get_blocks.bin batch, on tsmonerod (it mines the 1,000+ blocks two
 * batches need in seconds; monerod hashes RandomX for each): a reorg of the first batch's top while
 * the prefetch is on its way is followed, and the ledger ends as a fresh wallet's.
 */
describe("WalletSync's prefetch across a reorg, on tsmonerod", () => {
  let d: Daemon | undefined;
  let node: NodeClient;
  const alice = account("alice");
  const aliceAddress = encodeAddress("regtest", "standard", alice.spendPublicKey, alice.viewPublicKey);

  before(async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), "tsmonero-sync-prefetch-"));
    const args = [TSMONEROD, "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port), "--p2p-bind-port", String(await freePort()), "--no-zmq", "--non-interactive"];
    d = startProcess(process.execPath, args, dir, `http://127.0.0.1:${port}`);
    node = new NodeClient({ url: d.url, timeoutMs: 60_000 });
    await waitReady(d, node);
  });

  after(async () => {
    node?.close();
    await stopDaemon(d);
  });

  it("the next batch is asked for while one is scanned; a reorg of that batch's top in between is followed", async () => {
    // more than one get_blocks.bin batch (1,000 blocks) past a wallet restored at 0, alice paid on the way
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 500n, wallet_address: ADDRESS });
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 50n, wallet_address: aliceAddress });
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 500n, wallet_address: ADDRESS });
    const top = Number((await node.getHeight()).height);
    const old999 = (await node.getBlockHeaderByHeight(999)).block_header.hash;
    const ledger = new Ledger(emptyLedgerState(0), "testnet");
    const requests: { ids: number; start: bigint; ledgerHeight: number }[] = [];
    // the real client; when the second request (the prefetch, sent before the first batch is scanned)
    // goes out, the node drops the first batch's last two blocks and mines a longer chain
    const reorging: NodeApi = Object.assign(Object.create(node) as NodeClient, {
      getBlocksBin: async (req: Parameters<NodeClient["getBlocksBin"]>[0], o?: Parameters<NodeClient["getBlocksBin"]>[1]) => {
        requests.push({ ids: req.block_ids.length, start: req.start_height ?? 0n, ledgerHeight: ledger.height });
        if (requests.length === 2) {
          const popped = await nodePath(node.url, "/pop_blocks", { nblocks: BigInt(top - 998) });
          assert.equal(popped.status, "OK");
          await nodeCall(node.url, "generateblocks", { amount_of_blocks: BigInt(top - 998 + 2), wallet_address: ADDRESS });
        }
        return node.getBlocksBin(req, o);
      },
    });
    const sync = new WalletSync({ node: reorging, ledger, scanner: new Scanner(account("alice"), be), now: () => CLOCK });
    await sync.refresh();
    assert.ok(requests.length >= 2, "a second request went out");
    assert.equal(requests[1].ledgerHeight, 0, "the second request went out before the first batch was applied");
    assert.equal(requests[1].ids >= 2, true, "the prefetch names the batch's last block, then the history");
    const newTop = Number((await node.getHeight()).height);
    assert.equal(newTop, top + 2);
    const new999 = (await node.getBlockHeaderByHeight(999)).block_header.hash;
    assert.notEqual(new999, old999, "block 999 was replaced");
    assert.equal(ledger.height, newTop);
    assert.equal(ledger.blockHash(999), new999);
    const fresh = new Ledger(emptyLedgerState(0), "testnet");
    await new WalletSync({ node, ledger: fresh, scanner: new Scanner(account("alice"), be), now: () => CLOCK }).refresh();
    assert.ok(fresh.state.transfers.length >= 50, "alice's coinbase outputs");
    assert.deepEqual(ledger.state, fresh.state, "the ledger equals a fresh refresh of the new chain");
  });

  it("the next chunk is scanned while the last one is applied, and the ledger is the one scanning in order gives", async () => {
    const chunk = 20;
    const ledger = new Ledger(emptyLedgerState(0), "testnet");
    const inner = new Scanner(account("alice"), be);
    // a real scanner behind the interface a worker gives: answers after a turn of the event loop
    const calls: { first: number; count: number; ledgerHeight: number }[] = [];
    const later = (): Promise<void> => new Promise((r) => setImmediate(r));
    const recording: WalletScanner = {
      scanBlocks: async (blocks) => {
        calls.push({ first: blocks[0].height, count: blocks.length, ledgerHeight: ledger.height });
        await later();
        return blocks.map((b) => inner.scanBlock(b));
      },
      scanPool: async (txs) => txs.map((t) => inner.scanPoolTx(t.blob, t.txid)),
      expand: async (major, minor) => inner.expand(major, minor),
      setLookahead: async (major, minor) => inner.setLookahead(major, minor),
      snapshot: async () => inner.lookahead.snapshot(),
      close: async () => undefined,
    };
    await new WalletSync({ node, ledger, scanner: recording, chunk, now: () => CLOCK }).refresh();
    const top = Number((await node.getHeight()).height);
    assert.equal(ledger.height, top);
    // a chunk is asked for before the chunk before it is applied (the ledger still below the chunk's
    // first block), except a get_blocks.bin batch's first; never more than one chunk ahead
    const tooFar = calls.filter((c) => c.ledgerHeight < c.first - chunk);
    assert.deepEqual(tooFar, [], "no chunk scanned more than one chunk ahead");
    const waited = calls.filter((c) => c.ledgerHeight >= c.first);
    assert.ok(calls.length >= 50 && waited.length <= 3, `only a batch's first chunk waited for the ledger (${waited.length} of ${calls.length})`);
    const fresh = new Ledger(emptyLedgerState(0), "testnet");
    await new WalletSync({ node, ledger: fresh, scanner: new Scanner(account("alice"), be), chunk: 1000, now: () => CLOCK }).refresh();
    assert.deepEqual(ledger.state, fresh.state);
  });
});
