// Scanning the recorded regtest chain (test/fixtures/chain, scripts/record-chain.mjs) with the three
// wallets restored from their seeds, and checking the ledger against facts the chain itself gives:
// who mined each block, who sent each transfer (its shape), output indices from monerod's
// /get_blocks.bin, and the shapes' destinations.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultBackend } from "../src/crypto/index.js";
import { wordsToBytes } from "../src/protocol/mnemonic/index.js";
import { decodeEpee } from "../src/codec/epee-map.js";
import { getBlocksBinResponse } from "../src/protocol/rpc-bin.js";
import { parseBlock } from "../src/protocol/block.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { accountFromRecoveryKey, type AccountKeys } from "../src/wallet/keys/account.js";
import { Ledger } from "../src/wallet/ledger/ledger.js";
import { OutputIndexer, type ScanBlockInput, type ScannedBlock, Scanner } from "../src/wallet/scan/scan.js";
import { ParallelScanWorker, ScanWorker } from "../src/wallet/scan/pool.js";
import { blockInputsFromResponse } from "../src/wallet/scan/input.js";
import { fromHex, readChainFile, recordedBlocks, recordedTxs, toHex, WALLET_SEEDS } from "./helpers/chain.js";

const be = defaultBackend();
const SEEDS = WALLET_SEEDS;
type Name = keyof typeof SEEDS;
const NAMES: Name[] = ["alice", "bob", "carol"];
const SENDER: Record<string, Name> = {
  "from-bob": "bob",
  sweep_all: "bob",
  "sweep_all-to-subaddress": "bob",
  "from-carol": "carol",
  "from-carol-account1": "carol",
  "sweep_all-subaddr": "carol",
};
const senderOf = (shape: string): Name => SENDER[shape] ?? "alice";

const blocks = recordedBlocks();
const txs = recordedTxs();
const txById = new Map(txs.map((t) => [t.tx_hash, t]));

function account(name: Name): AccountKeys {
  return accountFromRecoveryKey(wordsToBytes(SEEDS[name]).bytes, be);
}

/** Every block with its txs' full blobs and the output indices computed from the chain. */
function inputs(): ScanBlockInput[] {
  const indexer = new OutputIndexer();
  return blocks.map((b) => {
    const block = parseBlock(fromHex(b.blob));
    const txBlobs = b.tx_hashes.map((h) => {
      const t = txById.get(h);
      if (!t) throw new Error(`tx ${h} of block ${b.height} is missing from the fixture`);
      return fromHex(t.as_hex);
    });
    const outputIndices = [indexer.next(block.minerTx), ...txBlobs.map((blob) => indexer.next(parseTransaction(blob)))];
    return { height: b.height, blockBlob: fromHex(b.blob), txBlobs, outputIndices };
  });
}

let cache: { input: ScanBlockInput[]; scanned: Record<Name, ScannedBlock[]>; ledgers: Record<Name, Ledger> } | undefined;
function scanAll() {
  if (cache) return cache;
  const input = inputs();
  const scanned = {} as Record<Name, ScannedBlock[]>;
  const ledgers = {} as Record<Name, Ledger>;
  for (const n of NAMES) {
    const scanner = new Scanner(account(n), be);
    const ledger = new Ledger();
    scanned[n] = input.map((b) => scanner.scanBlock(b));
    for (const s of scanned[n]) ledger.applyBlock(s);
    ledgers[n] = ledger;
  }
  cache = { input, scanned, ledgers };
  return cache;
}

test("the fixture holds every non-coinbase tx of the chain", () => {
  const ids = blocks.flatMap((b) => b.tx_hashes);
  assert.equal(ids.length, 487 - 333);
  for (const id of ids) assert.ok(txById.get(id)?.as_hex, `tx ${id} has its full blob`);
});

test("output indices computed from the chain equal monerod's /get_blocks.bin output_indices", () => {
  const res = decodeEpee(getBlocksBinResponse, readChainFile("get_blocks.bin"));
  const { input } = scanAll();
  const start = Number(res.start_height);
  assert.ok(res.output_indices.length > 100, `get_blocks.bin covers ${res.output_indices.length} blocks`);
  res.output_indices.forEach((bi, k) => {
    const ours = input[start + k].outputIndices!;
    assert.deepEqual(
      ours.map((x) => x.map(String)),
      bi.indices.map((t) => t.indices.map(String)),
      `block ${start + k}`,
    );
  });
});

test("every block's coinbase output belongs to exactly one of the three wallets, with the plain amount", () => {
  const { scanned } = scanAll();
  for (let h = 1; h < blocks.length; h++) {
    const owners = NAMES.filter((n) => scanned[n][h].txs[0].received.length > 0);
    assert.equal(owners.length, 1, `block ${h} coinbase owners: ${owners.join(",")}`);
    const cb = scanned[owners[0]][h].txs[0];
    assert.equal(cb.received[0].amount, scanned[owners[0]][h].reward);
    assert.ok(cb.coinbase && cb.received[0].rct, "v2 coinbase is stored as RingCT");
  }
  // record-chain.mjs: blocks 1-100 to alice, 101-140 to bob, 141-160 to carol
  assert.equal(scanned.alice[1].txs[0].received.length, 1);
  assert.equal(scanned.bob[120].txs[0].received.length, 1);
  assert.equal(scanned.carol[150].txs[0].received.length, 1);
});

test("each transfer is recognised as outgoing by its sender only, and all its inputs are the sender's outputs", () => {
  const { scanned, ledgers } = scanAll();
  let n = 0;
  for (const b of blocks) {
    b.tx_hashes.forEach((id, i) => {
      const rec = txById.get(id)!;
      const sender = senderOf(rec.shape);
      for (const w of NAMES) {
        const out = ledgers[w].state.outgoing.find((o) => o.txid === id);
        if (w === sender) {
          assert.ok(out, `${sender} sent ${id} (${rec.shape})`);
          assert.equal(out.blockHeight, b.height);
          const stx = scanned[w][b.height].txs[i + 1];
          const spentHere = ledgers[w].state.transfers.filter((t) => t.spentTxid === id);
          assert.equal(spentHere.length, stx.inputs.length, `every input of ${id} is one of ${w}'s key images`);
          assert.equal(out.amountIn, spentHere.reduce((s, t) => s + t.amount, 0n));
          assert.equal(out.amountIn - out.amountOut, stx.rctFee);
        } else assert.equal(out, undefined, `${w} did not send ${id}`);
      }
      n++;
    });
  }
  assert.equal(n, 154);
});

test("every output of every transfer is found by exactly one wallet, except sweeps' dummy outputs", () => {
  const { scanned } = scanAll();
  let unowned = 0;
  for (const b of blocks) {
    b.tx_hashes.forEach((id, i) => {
      const tx = parseTransaction(fromHex(txById.get(id)!.as_hex));
      for (let o = 0; o < tx.vout.length; o++) {
        const owners = NAMES.filter((w) => scanned[w][b.height].txs[i + 1].received.some((r) => r.index === o));
        assert.ok(owners.length <= 1, `output ${o} of ${id} claimed twice`);
        if (owners.length === 0) unowned++;
      }
      for (const w of NAMES) assert.equal(scanned[w][b.height].txs[i + 1].rejected, 0);
    });
  }
  assert.ok(unowned <= 3, `${unowned} outputs owned by nobody (three sweeps may add a dummy output)`);
});

test("shapes land where they were sent: subaddresses, account 1, integrated payment ids, unlock times", () => {
  const { ledgers } = scanAll();
  const bob = ledgers.bob.state;
  const carol = ledgers.carol.state;
  const shape = (id: string) => txById.get(id)?.shape;
  // alice → bob.subs[round % 4] (minors 1..4) and carol.account1 (1, 0)
  for (const p of bob.payments.filter((x) => shape(x.txid) === "subaddress")) assert.equal(p.subaddress.major, 0);
  assert.ok(bob.payments.filter((x) => shape(x.txid) === "subaddress").every((p) => p.subaddress.minor >= 1 && p.subaddress.minor <= 4));
  const acct1 = carol.payments.filter((x) => shape(x.txid) === "subaddress-account1");
  assert.equal(acct1.length, 9);
  for (const p of acct1) assert.deepEqual(p.subaddress, { major: 1, minor: 0 });
  assert.equal(carol.subaddressCounts.length >= 2, true);
  // carol → bob.subs[3] is minor 4
  for (const p of bob.payments.filter((x) => shape(x.txid) === "from-carol")) assert.deepEqual(p.subaddress, { major: 0, minor: 4 });
  // integrated: one short payment id per receiver, the same in every round
  for (const w of [bob, carol]) {
    const ids = new Set(w.payments.filter((x) => shape(x.txid) === "integrated").map((p) => p.paymentId));
    assert.equal(ids.size, 1);
    const [pid] = ids;
    assert.match(pid, /^[0-9a-f]{16}0{48}$/);
    assert.notEqual(pid, "0".repeat(64));
  }
  // unlock-time: 400 + round × 10 on bob's transfers
  const locks = bob.payments.filter((x) => shape(x.txid) === "unlock-time").map((p) => p.unlockTime);
  assert.deepEqual(
    locks.map(String),
    Array.from({ length: 9 }, (_, r) => String(400 + r * 10)),
  );
});

test("balances add up: unspent outputs = received − spent, per wallet and per subaddress", () => {
  const { ledgers } = scanAll();
  const now = BigInt(Math.floor(Date.now() / 1000));
  for (const w of NAMES) {
    const l = ledgers[w];
    const received = l.state.transfers.reduce((s, t) => s + t.amount, 0n);
    const spent = l.state.transfers.filter((t) => t.spent).reduce((s, t) => s + t.amount, 0n);
    const accounts = l.state.subaddressCounts.length;
    const all = l.balanceAll(accounts, now);
    assert.equal(all.balance, received - spent, w);
    assert.ok(all.unlockedBalance <= all.balance);
    let perSub = 0n;
    for (let a = 0; a < accounts; a++) for (const r of l.subaddressBalances(a, now)) perSub += r.balance;
    assert.equal(perSub, all.balance);
    // incoming_transfers available/unavailable partition the outputs of account 0
    const av = l.incomingTransfers("available", 0, [], now);
    const un = l.incomingTransfers("unavailable", 0, [], now);
    assert.equal(av.length + un.length, l.incomingTransfers("all", 0, [], now).length);
    assert.ok(av.every((t) => !t.spent && t.keyImage.length === 64 && t.globalIndex >= 0n));
  }
  // bob's unlock-time outputs: 400 + r·10 > chain height 333, so locked, and blocks_to_unlock covers the last
  const bob = ledgers.bob;
  const b = bob.balance(0, now);
  assert.ok(b.blocksToUnlock >= 480n - 333n, `bob blocks_to_unlock ${b.blocksToUnlock}`);
});

test("a reorg rolls the ledger back to the fork and replays to the same state", () => {
  const { scanned } = scanAll();
  const scanner = new Scanner(account("alice"), be);
  const l = new Ledger();
  const input = scanAll().input;
  for (const b of input.slice(0, 300)) l.applyBlock(scanner.scanBlock(b));
  // wallet2's detach_blockchain keeps m_last_block_reward and the subaddress expansion; so do we
  const view = () => JSON.stringify({ ...l.state, lastBlockReward: 0n, subaddressCounts: [] }, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  const before = view();
  for (const b of input.slice(300)) l.applyBlock(scanner.scanBlock(b));
  // a different block 300 (another hash) at a known height: the ledger rolls back to 300
  const fake = { ...scanned.alice[300], hash: new Uint8Array(32).fill(7), txs: [] };
  assert.equal(l.applyBlock(fake), 300);
  assert.equal(l.height, 301);
  l.rollback(300);
  const after = view();
  assert.ok(after === before, "state after rollback(300) equals the state scanned up to 299");
  // the same block again is a no-op
  for (const b of input.slice(300)) l.applyBlock(scanner.scanBlock(b));
  assert.equal(l.applyBlock(scanned.alice[310]), null);
  assert.equal(l.height, 333);
});

test("a scan worker gives the same results as scanning on the main thread", async () => {
  const { input, scanned } = scanAll();
  const w = new ScanWorker(account("carol"));
  try {
    const got = await w.scanBlocks(input.slice(150, 260));
    assert.equal(got.length, 110);
    got.forEach((g, k) => {
      const want = scanned.carol[150 + k];
      assert.equal(toHex(g.hash), toHex(want.hash));
      assert.deepEqual(
        g.txs.map((t) => t.received.map((r) => `${r.index}:${r.amount}:${toHex(r.keyImage!)}`)),
        want.txs.map((t) => t.received.map((r) => `${r.index}:${r.amount}:${toHex(r.keyImage!)}`)),
      );
    });
  } finally {
    await w.close();
  }
});

test("Scanner.scanBlocks (a chunk's derivations and key images each in one backend call) equals scanBlock block by block", () => {
  const { input, scanned } = scanAll();
  for (const n of NAMES) {
    const scanner = new Scanner(account(n), be);
    const got: ScannedBlock[] = [];
    // chunks of uneven sizes, so that the kernel's eight-lane batches end at every remainder
    for (let at = 0, size = 1; at < input.length; at += size, size = (size % 23) + 3) got.push(...scanner.scanBlocks(input.slice(at, at + size)));
    assert.equal(got.length, input.length);
    assert.ok(got.some((b) => b.txs.some((t) => t.received.length > 0)), `${n} receives something`);
    assert.deepEqual(got, scanned[n], n);
  }
});

test("two scan threads give the in-order results, also when a batch's first half grows the subaddress table its second half needs", async () => {
  const { input } = scanAll();
  // a lookahead of 2 accounts × 2 subaddresses: bob's receipts of blocks 200–229 add keys his receipts of 230–259 are found with
  const sig = (b: ScannedBlock) => b.txs.map((t) => t.received.map((r) => `${r.index}:${r.subaddress.major}/${r.subaddress.minor}:${r.amount}:${toHex(r.keyImage!)}`).join(","));
  for (const name of ["bob", "carol"] as const) {
    const keys = { ...account(name), lookaheadMajor: 2, lookaheadMinor: 2 };
    const serial = new Scanner(keys, be);
    const want = input.map((b) => serial.scanBlock(b));
    // the test bites: a scanner that never saw blocks 200–229 misses outputs of blocks 230–259
    const blind = new Scanner(keys, be);
    const count = (bs: readonly ScannedBlock[]) => bs.reduce((n, b) => n + b.txs.reduce((m, t) => m + t.received.length, 0), 0);
    if (name === "bob") assert.ok(count(input.slice(230, 260).map((b) => blind.scanBlock(b))) < count(want.slice(230, 260)), "bob: blocks 230–259 need the table grown by 200–229");
    const w = new ParallelScanWorker(keys);
    try {
      const got: ScannedBlock[] = [];
      // batches of 100, 60 (split at 230: its first half grows the table), 3 (one worker), the rest
      for (const [from, to] of [[0, 100], [100, 200], [200, 260], [260, 263], [263, input.length]]) got.push(...(await w.scanBlocks(input.slice(from, to))));
      assert.equal(got.length, input.length);
      got.forEach((g, h) => assert.deepEqual(sig(g), sig(want[h]), `${name} block ${h}`));
      assert.ok(w.rescans >= 1, `${name}: a second half was scanned again (${w.rescans})`);
      // both workers end with the serial scanner's table
      assert.equal((await w.snapshot()).table.count, serial.lookahead.table.size);
    } finally {
      await w.close();
    }
  }
});

test("two scan threads asked for two batches at once scan them one after the other", async () => {
  const { input } = scanAll();
  const sig = (b: ScannedBlock) => b.txs.map((t) => t.received.map((r) => `${r.index}:${r.subaddress.major}/${r.subaddress.minor}:${r.amount}`).join(","));
  // bob with 2 × 2 lookahead: blocks 230–259 are found only with the table grown by 200–229's receipts
  const keys = { ...account("bob"), lookaheadMajor: 2, lookaheadMinor: 2 };
  const serial = new Scanner(keys, be);
  const want = input.slice(0, 260).map((b) => serial.scanBlock(b));
  const w = new ParallelScanWorker(keys);
  try {
    await w.scanBlocks(input.slice(0, 200));
    // the second batch asked for before the first one's answer (as a refresh leaves a chunk scanned ahead)
    const [a, b] = await Promise.all([w.scanBlocks(input.slice(200, 230)), w.scanBlocks(input.slice(230, 260))]);
    [...a, ...b].forEach((g, k) => assert.deepEqual(sig(g), sig(want[200 + k]), `block ${200 + k}`));
    assert.equal((await w.snapshot()).table.count, serial.lookahead.table.size);
  } finally {
    await w.close();
  }
});

test("pool transactions become pool payments and leave the pool when mined", () => {
  const { input } = scanAll();
  const scanner = new Scanner(account("bob"), be);
  const l = new Ledger();
  const last = blocks.map((b) => b.tx_hashes.length > 0).lastIndexOf(true);
  for (const b of input.slice(0, last)) l.applyBlock(scanner.scanBlock(b));
  const poolTxs = blocks[last].tx_hashes.map((h) => scanner.scanPoolTx(fromHex(txById.get(h)!.as_hex), fromHex(h)));
  l.setPool(poolTxs, 1n);
  const addr = () => "addr";
  const pool = l.getTransfers({ pool: true }, { now: 1n, address: addr }).pool;
  assert.ok(pool.length > 0, "bob receives in the last block with transfers");
  for (const e of pool) assert.ok(e.type === "pool" && e.height === 0 && e.locked && e.confirmations === 0n);
  const strict = l.balance(0, 1n, true).balance;
  const loose = l.balance(0, 1n, false).balance;
  assert.equal(loose - strict, pool.filter((e) => e.subaddrIndex.major === 0).reduce((s, e) => s + e.amount, 0n));
  l.applyBlock(scanner.scanBlock(input[last]));
  assert.equal(l.getTransfers({ pool: true }, { now: 1n, address: addr }).pool.length, 0);
  const inEntries = l.getTransfers({ in: true }, { now: 1n, address: addr }).in.filter((e) => e.height === last);
  assert.ok(inEntries.length > 0);
});

test("pruned /get_blocks.bin entries (monerod's own response, with its output indices) scan like full blobs", () => {
  const { scanned } = scanAll();
  const res = decodeEpee(getBlocksBinResponse, readChainFile("get_blocks_pruned.bin"));
  const start = Number(res.start_height);
  assert.ok(res.blocks.length > 50 && res.blocks.every((b) => b.pruned));
  for (const name of NAMES) {
    const scanner = new Scanner(account(name), be);
    let found = 0;
    blockInputsFromResponse(res).forEach((input, k) => {
      assert.equal(input.height, start + k);
      const got = scanner.scanBlock(input);
      const want = scanned[name][start + k];
      assert.equal(toHex(got.hash), toHex(want.hash));
      const sig = (b: ScannedBlock) =>
        b.txs.map((t) => [toHex(t.txid), t.inputs.length, ...t.received.map((r) => `${r.index}:${r.amount}:${r.globalIndex}:${toHex(r.keyImage!)}`)].join(" "));
      assert.deepEqual(sig(got), sig(want), `${name} block ${start + k}`);
      found += got.txs.reduce((s, t) => s + t.received.length, 0);
    });
    assert.ok(found > 0, `${name} receives in blocks ${start}..`);
  }
});

test("the event loop keeps running while a worker scans the whole chain", async () => {
  const { input } = scanAll();
  const w = new ScanWorker(account("alice"));
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = Date.now();
    const got = await w.scanBlocks(input);
    const elapsed = Date.now() - t0;
    clearInterval(timer);
    assert.equal(got.length, input.length);
    // a blocked loop would tick about once; a free one about elapsed/5 times
    assert.ok(ticks >= Math.min(5, Math.floor(elapsed / 20)), `${ticks} ticks in ${elapsed} ms`);
  } finally {
    await w.close();
  }
});

/** Alice's ledger up to the first block with a tx spending her outputs, that tx (scanned as a pool tx), and the block. */
function aliceBeforeFirstSpend() {
  const { input } = scanAll();
  const scanner = new Scanner(account("alice"), be);
  const l = new Ledger();
  for (let h = 0; h < input.length; h++) {
    const b = scanner.scanBlock(input[h]);
    const spend = b.txs.find((t) => t.inputs.some((i) => l.transferIndexByKeyImage(toHex(i.keyImage)) !== undefined));
    if (spend) {
      const txid = toHex(spend.txid);
      return { l, scanner, input, h, txid, pooled: scanner.scanPoolTx(fromHex(txById.get(txid)!.as_hex), fromHex(txid)) };
    }
    l.applyBlock(b);
  }
  throw new Error("alice spends nothing in the recorded chain");
}

test("a spend of the wallet's outputs seen in the pool, sent by another wallet: with --detect-pool-spends pending, outputs spent, change counted (master daded368); without, nothing until mined", () => {
  const { l, scanner, input, h, txid, pooled } = aliceBeforeFirstSpend();
  const addr = () => "addr";
  const now = 1_700_000_000n;
  const before = l.balance(0, now).balance;
  // without --detect-pool-spends, as every released monero-wallet-rpc: nothing until it is mined
  l.setPool([pooled], now, new Set(), { ids: new Set([txid]), refreshed: true });
  assert.equal(l.getTransfers({ pending: true }, { now, address: addr }).pending.length, 0);
  assert.equal(l.balance(0, now).balance, before);
  l.setPool([pooled], now, new Set(), { ids: new Set([txid]), refreshed: true, spends: true });
  const pending = l.getTransfers({ pending: true }, { now, address: addr }).pending;
  assert.equal(pending.length, 1);
  const e = pending[0];
  assert.equal(e.txid, txid);
  assert.equal(e.type, "pending");
  assert.deepEqual(e.destinations, []);
  assert.equal(e.timestamp, now);
  // balance: the spent outputs leave, the change (pending) stays
  assert.equal(l.balance(0, now).balance, before - e.amount - e.fee);
  assert.ok(e.changeAmount > 0n);
  // the same pool again adds nothing
  l.setPool([pooled], now + 10n, new Set(), { ids: new Set([txid]), refreshed: true, spends: true });
  assert.equal(l.getTransfers({ pending: true }, { now, address: addr }).pending.length, 1);
  assert.equal(l.getTransfers({ pool: true }, { now, address: addr }).pool.filter((p) => p.txid === txid).length, 0, "the change is no pool payment");
  // mined: the pending entry becomes an out entry with the same amounts
  l.applyBlock(scanner.scanBlock(input[h]));
  const after = l.getTransfers({ pending: true, out: true }, { now, address: addr });
  assert.equal(after.pending.length, 0);
  const out = after.out.find((o) => o.txid === txid);
  assert.ok(out);
  assert.equal(out.amount, e.amount);
  assert.equal(out.fee, e.fee);
  assert.equal(out.changeAmount, e.changeAmount);
});

test("a pending tx missing from the pool: not-in-pool, then failed at a refresh 500 s after it was sent, its outputs unspent (update_pool_state)", () => {
  const { l, txid, pooled } = aliceBeforeFirstSpend();
  const addr = () => "addr";
  const sent = 1_700_000_000n;
  const before = l.balance(0, sent).balance;
  l.setPool([pooled], sent, new Set(), { ids: new Set([txid]), refreshed: true, spends: true });
  const spentBalance = l.balance(0, sent).balance;
  assert.ok(spentBalance < before);
  const gone = (now: bigint, refreshed: boolean) => l.setPool([], now, new Set(), { ids: new Set(), refreshed });
  const state = (now: bigint) => {
    const t = l.getTransfers({ pending: true, failed: true }, { now, address: addr });
    return `${t.pending.length}/${t.failed.length}`;
  };
  gone(sent + 1n, true); // first miss: not in pool, still pending
  assert.equal(state(sent + 1n), "1/0");
  gone(sent + 600n, false); // a get_transfers look never fails it
  assert.equal(state(sent + 600n), "1/0");
  gone(sent + 500n, true); // a refresh, but not 500 s yet
  assert.equal(state(sent + 500n), "1/0");
  assert.equal(l.balance(0, sent + 500n).balance, spentBalance);
  gone(sent + 501n, true);
  assert.equal(state(sent + 501n), "0/1");
  assert.equal(l.balance(0, sent + 501n).balance, before, "the failed tx's inputs are unspent again, its change not counted");
});
