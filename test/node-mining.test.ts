/**
 * node/mining: seed rules, block templates, nonce search, calc_pow and the built-in miner, on the
 * recorded regtest chain (test/fixtures/chain, from monerod) in a real LMDB ChainStore, with real
 * RandomX, and compared against a real monerod (Debian's `monero`) fed the same chain.
 * Ports 28900-28999.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { blockReward, checkBlock, checkHash, checkMinerReward, type NextBlockContext, nextBlockContext } from "../src/consensus/index.js";
import { defaultBackend } from "../src/crypto/index.js";
import { RandomX, randomxStatus } from "../src/crypto/randomx.js";
import { encodeAddress } from "../src/protocol/address.js";
import { type Block, blockHash, blockHashingBlob, parseBlock, serializeBlock } from "../src/protocol/block.js";
import { parseTxExtra } from "../src/protocol/extra.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../src/protocol/tx.js";
import { txHash } from "../src/protocol/tx-hash.js";
import { txWeight } from "../src/protocol/weight.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { ChainStore } from "../src/node/store/chain-store.js";
import { openNode } from "../src/node/chain/index.js";
import {
  altTemplateMedian,
  buildBlockTemplate,
  type BuiltTemplate,
  calcPow,
  DEFAULT_SEED_EPOCH,
  fillBlockTemplate,
  idReader,
  mainChainTemplateMedian,
  mineBlock,
  Miner,
  minerAddress,
  MiningError,
  MiningService,
  nonceOffset,
  PowHasher,
  powAlgorithm,
  seedEpochFromEnv,
  seedHeight,
  seedHeights,
  type TemplateCandidate,
  templateExtraNonce,
  templateSeeds,
} from "../src/node/mining/index.js";
import { MINING_RPC_CODES } from "../src/node/rpc/errors.js";
import { stringifyJson } from "../src/rpc/json.js";
import { fromHex, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";
import { startMonerod, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall, nodeRpc } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";

const be = defaultBackend();
const blocks = [...recordedBlocks()].sort((a, b) => a.height - b.height);
const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
/** The first recorded block with transactions (22 of them). */
const TX_HEIGHT = blocks.find((b) => b.tx_hashes.length > 0)?.height ?? 0;

const account = accountFromRecoveryKey(be.scReduce32(new Uint8Array(randomBytes(32))), be);
const ADDRESS = encodeAddress("regtest", "standard", account.spendPublicKey, account.viewPublicKey, null, be);
const SUBADDRESS = encodeAddress("regtest", "subaddress", account.spendPublicKey, account.viewPublicKey, null, be);
const TESTNET_ADDRESS = encodeAddress("testnet", "standard", account.spendPublicKey, account.viewPublicKey, null, be);
const INTEGRATED = encodeAddress("regtest", "integrated", account.spendPublicKey, account.viewPublicKey, new Uint8Array(8).fill(7), be);

const tmp = (): string => mkdtempSync(join(tmpdir(), "tsmonero-mining-"));
const NOW = BigInt(Math.floor(Date.now() / 1000));

function recordedTx(id: string): Transaction {
  const t = txById.get(id);
  if (!t) throw new Error(`tx ${id} not recorded`);
  return parseTransaction(fromHex(t.as_hex));
}

/** Applies a parsed block with its txs through consensus checkBlock into the store. */
function apply(store: ChainStore, block: Block, txs: Transaction[]): void {
  const ctx = nextBlockContext(store, { fixedDifficulty: 1n });
  const r = checkBlock(store, ctx, {
    block,
    txs,
    txIds: txs.map((t) => txHash(t, be)),
    txWeights: txs.map((t) => txWeight(t)),
    minerTxWeight: serializeTransaction(block.minerTx).length,
    now: NOW,
    backend: be,
  });
  if (!r.ok) throw new Error(`block ${ctx.height}: ${r.error.code} ${r.error.message}`);
  store.applyBlock(block, txs, r.accepted);
}

/** A store holding the recorded chain's blocks [0, height). */
function storeUpTo(height: number): { store: ChainStore; dir: string } {
  const dir = tmp();
  const store = ChainStore.open(dir, "regtest", { sync: "fast", backend: be });
  for (let h = 1; h < height; h++) {
    const b = blocks[h];
    apply(store, parseBlock(fromHex(b.blob)), b.tx_hashes.map(recordedTx));
  }
  return { store, dir };
}

/**
 * The recorded block's txs as pool candidates: by fee per weight, and among equal rates (same
 * receive second) the later arrival first, as monerod's std::set with its txCompare ends up ordering
 * them; `order` (tx ids) overrides.
 */
function candidatesOf(height: number, order?: readonly string[]): TemplateCandidate[] {
  const c = blocks[height].tx_hashes.map((id, arrival) => {
    const tx = recordedTx(id);
    const keyImages = tx.vin.flatMap((i) => (i.type === "key" ? [i.keyImage] : []));
    return { id: fromHex(id), weight: txWeight(tx), fee: tx.rct?.fee ?? 0n, keyImages, arrival };
  });
  if (order) c.sort((a, b) => order.indexOf(toHex(a.id)) - order.indexOf(toHex(b.id)));
  else c.sort((a, b) => Number(b.fee) / b.weight - Number(a.fee) / a.weight || b.arrival - a.arrival);
  return c.map(({ id, weight, fee, keyImages }) => ({ id, weight, fee, keyImages }));
}

const idAt = (store: ChainStore) => (h: number): Bytes => store.meta(h).hash;

function template(store: ChainStore, extraNonce: Bytes, candidates: TemplateCandidate[] = [], ctx?: NextBlockContext): BuiltTemplate {
  const c = ctx ?? nextBlockContext(store, { fixedDifficulty: 1n });
  return buildBlockTemplate({
    ctx: c,
    prevId: store.topHash(),
    candidates,
    miner: minerAddress(ADDRESS, "regtest", be),
    extraNonce,
    now: NOW,
    seeds: templateSeeds(c.height, idAt(store)),
    backend: be,
  });
}

/** What a template's block passes through consensus with the candidate txs. */
function check(store: ChainStore, t: BuiltTemplate, powHash?: Bytes): ReturnType<typeof checkBlock> {
  const txs = t.block.txHashes.map((id) => recordedTx(toHex(id)));
  return checkBlock(store, nextBlockContext(store, { fixedDifficulty: t.difficulty }), {
    block: parseBlock(t.blob),
    txs,
    txIds: txs.map((x) => txHash(x, be)),
    txWeights: txs.map((x) => txWeight(x)),
    minerTxWeight: serializeTransaction(t.block.minerTx).length,
    now: NOW,
    ...(powHash ? { powHash } : {}),
    backend: be,
  });
}

// ---------------------------------------------------------------- seeds

test("seed heights: rx_seedheight at the epoch edges, next seed within the lag", () => {
  assert.equal(seedHeight(0, DEFAULT_SEED_EPOCH), 0);
  assert.equal(seedHeight(2048 + 64, DEFAULT_SEED_EPOCH), 0);
  assert.equal(seedHeight(2048 + 65, DEFAULT_SEED_EPOCH), 2048);
  assert.equal(seedHeight(4096 + 64, DEFAULT_SEED_EPOCH), 2048);
  assert.equal(seedHeight(4096 + 65, DEFAULT_SEED_EPOCH), 4096);
  assert.deepEqual(seedHeights(4096 + 1, DEFAULT_SEED_EPOCH), { seedHeight: 2048, nextSeedHeight: 4096 });
  assert.deepEqual(seedHeights(4096, DEFAULT_SEED_EPOCH), { seedHeight: 2048, nextSeedHeight: 2048 });
  assert.throws(() => seedHeight(-1), RangeError);
  const e = { blocks: 8, lag: 4 };
  assert.equal(seedHeight(12, e), 0);
  assert.equal(seedHeight(13, e), 8);
  assert.equal(seedHeight(330, e), 320);
  const ids = (h: number): Bytes => new Uint8Array(32).fill(h & 0xff);
  const s = templateSeeds(330, ids, ids, e);
  assert.equal(s.seedHeight, 320);
  assert.deepEqual(s.seedHash, ids(320));
  assert.deepEqual(s.nextSeedHash, ids(328));
  assert.equal(templateSeeds(333, ids, ids, e).nextSeedHash.length, 0);
  assert.deepEqual(idReader({ meta: (h: number) => ({ hash: ids(h) }) })(5), ids(5));
  assert.deepEqual(idReader({ hashAt: (h: number) => ids(h + 1) })(5), ids(6));
});

test("seed epoch env: atoi, powers of two within 2..2048 / 1..64, else the defaults", () => {
  const ep = (blocks?: string, lag?: string) => seedEpochFromEnv({ SEEDHASH_EPOCH_BLOCKS: blocks, SEEDHASH_EPOCH_LAG: lag });
  assert.deepEqual(ep(), { blocks: 2048, lag: 64 });
  assert.deepEqual(ep("32", "8"), { blocks: 32, lag: 8 });
  assert.deepEqual(ep(" 16xyz", "+2"), { blocks: 16, lag: 2 });
  assert.deepEqual(ep("2", "1"), { blocks: 2, lag: 1 });
  assert.deepEqual(ep("1", "0"), { blocks: 2048, lag: 64 });
  assert.deepEqual(ep("4096", "128"), { blocks: 2048, lag: 64 });
  assert.deepEqual(ep("24", "-4"), { blocks: 2048, lag: 64 });
  assert.deepEqual(ep("abc", ""), { blocks: 2048, lag: 64 });
});

// ---------------------------------------------------------------- templates on the recorded chain

test("a template on the recorded chain equals monerod's block in content and passes checkBlock", async (t) => {
  const { store, dir } = storeUpTo(TX_HEIGHT);
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const rec = blocks[TX_HEIGHT];
  const cands = candidatesOf(TX_HEIGHT);
  const tpl = template(store, new Uint8Array(8), cands);
  // same txs as the block monerod mined from the same pool, same reward
  assert.equal(tpl.height, TX_HEIGHT);
  assert.deepEqual(new Set(tpl.txIds.map(toHex)), new Set(rec.tx_hashes));
  assert.deepEqual(tpl.txIds.map(toHex), cands.map((c) => toHex(c.id)));
  const recBlock = parseBlock(fromHex(rec.blob));
  assert.equal(tpl.block.majorVersion, recBlock.majorVersion);
  assert.equal(tpl.block.minorVersion, recBlock.minorVersion);
  assert.deepEqual(tpl.prevHash, fromHex(blocks[TX_HEIGHT - 1].hash));
  assert.equal(tpl.expectedReward, BigInt(rec.header.reward));
  const mt = tpl.block.minerTx;
  assert.equal(mt.version, 2);
  assert.equal(mt.unlockTime, BigInt(TX_HEIGHT + 60));
  assert.deepEqual(mt.vin, [{ type: "gen", height: BigInt(TX_HEIGHT) }]);
  assert.equal(mt.vout.length, 1);
  assert.equal(mt.vout[0].amount, BigInt(rec.header.reward));
  assert.equal(tpl.txsWeight + tpl.minerTxWeight, rec.header.block_weight - serializeTransaction(recBlock.minerTx).length + tpl.minerTxWeight);
  // the miner's wallet finds the output with its view key
  const extra = parseTxExtra(mt.extra);
  const pub = extra.fields.find((f) => f.type === "pubkey");
  assert.ok(pub && pub.type === "pubkey");
  const der = be.generateKeyDerivation(pub.key, account.viewSecretKey);
  assert.ok(der);
  const target = mt.vout[0].target;
  assert.equal(target.type, "tagged_key");
  if (target.type === "tagged_key") {
    assert.deepEqual(target.key, be.derivePublicKey(der, 0, account.spendPublicKey));
    assert.equal(target.viewTag, be.deriveViewTag(der, 0));
  }
  // reserved bytes: zeros right after the nonce tag and its length byte
  assert.equal(tpl.blob[tpl.reservedOffset - 2], 0x02);
  assert.equal(tpl.blob[tpl.reservedOffset - 1], 8);
  const filled = Uint8Array.from(tpl.blob);
  filled.set([1, 2, 3, 4, 5, 6, 7, 8], tpl.reservedOffset);
  const nonceField = parseTxExtra(parseBlock(filled).minerTx.extra).fields.find((f) => f.type === "nonce");
  assert.ok(nonceField && nonceField.type === "nonce");
  assert.deepEqual([...nonceField.nonce], [1, 2, 3, 4, 5, 6, 7, 8]);
  // blob and hashing blob agree, the nonce sits after versions, timestamp and prev_id
  assert.deepEqual(serializeBlock(tpl.block), tpl.blob);
  assert.deepEqual(blockHashingBlob(tpl.block, be), tpl.hashingBlob);
  assert.equal(tpl.nonceOffset, 1 + 1 + 5 + 32);
  // consensus accepts it, with exactly reward + fees
  const r = check(store, tpl);
  assert.ok(r.ok, r.ok ? "" : `${r.error.code} ${r.error.message}`);
  if (r.ok) {
    assert.equal(r.accepted.reward, BigInt(rec.header.reward));
    assert.equal(r.accepted.fees, tpl.fees);
    assert.equal(r.accepted.weight, tpl.txsWeight + tpl.minerTxWeight);
  }
  // no reserve: no nonce field, reserved_offset 0; an empty pool: coinbase only
  const bare = template(store, new Uint8Array(0));
  assert.equal(bare.reservedOffset, 0);
  assert.equal(bare.block.minerTx.extra.length, 33);
  assert.equal(bare.txIds.length, 0);
  assert.ok(check(store, bare).ok);
});

test("fill_block_template: weight budget, key images used once, coinbase never decreases", () => {
  const ki = (n: number): Bytes => new Uint8Array(32).fill(n);
  const id = (n: number): Bytes => new Uint8Array(32).fill(100 + n);
  const gen = 17_000_000_000_000_000n;
  const median = 300_000;
  const f = fillBlockTemplate(
    [
      { id: id(1), weight: 2000, fee: 50_000_000n, keyImages: [ki(1)] },
      { id: id(2), weight: 2000, fee: 40_000_000n, keyImages: [ki(1)] }, // double spend of tx 1
      { id: id(3), weight: 2 * median, fee: 10n ** 12n, keyImages: [ki(3)] }, // over the 2 × median budget
      { id: id(4), weight: 1500, fee: 30_000_000n, keyImages: [ki(4), ki(5)] },
    ],
    median,
    gen,
    16,
  );
  assert.deepEqual(f.chosen.map((c) => c.id[0]), [101, 104]);
  assert.equal(f.txsWeight, 3500);
  assert.equal(f.fees, 80_000_000n);
  // past the median the penalty outweighs a small fee: the tx is skipped
  const heavy = fillBlockTemplate([{ id: id(5), weight: median + 100_000, fee: 1000n, keyImages: [ki(6)] }], median, gen, 16);
  assert.equal(heavy.chosen.length, 0);
  // monerod's size_t budget wraps for a median under 300 bytes (prev_block on a coinbase-only parent): no limit
  const wrapped = fillBlockTemplate([{ id: id(6), weight: 250_000, fee: 10n ** 10n, keyImages: [ki(7)] }], 100, gen, 16);
  assert.equal(wrapped.chosen.length, 1);
  assert.equal(fillBlockTemplate([{ id: id(6), weight: 250_000, fee: 10n ** 10n, keyImages: [ki(7)] }], 1000, gen, 16).chosen.length, 0);
  assert.equal(altTemplateMedian(1000, true), 1000);
  assert.equal(altTemplateMedian(1000, false), 950);
});

test("coinbase weight settles in the penalty zone: the amount is the reward for the final weight (padding when it shrinks)", async (t) => {
  const { store, dir } = storeUpTo(70);
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ctx = nextBlockContext(store, { fixedDifficulty: 1n });
  const median = mainChainTemplateMedian(ctx);
  assert.equal(median, 300_000);
  let padded = 0;
  const make = (weight: number, fee: bigint): BuiltTemplate =>
    buildBlockTemplate({
      ctx,
      prevId: store.topHash(),
      candidates: [{ id: new Uint8Array(32).fill(9), weight, fee, keyImages: [new Uint8Array(32).fill(1)] }],
      miner: minerAddress(ADDRESS, "regtest", be),
      extraNonce: new Uint8Array(0),
      now: NOW,
      seeds: templateSeeds(ctx.height, idAt(store)),
      backend: be,
    });
  const cases: [number, bigint][] = [];
  for (let w = median - 200; w < median + 2000; w += 37) cases.push([w, 10n ** 11n]);
  // fees that put reward + fees just above 2^49 for the txs alone and below it with the coinbase:
  // the amount's varint loses a byte, so the coinbase must be padded back to the weight it was paid for
  const w = median + 100_000;
  for (let k = 80; k < 120; k++) cases.push([w, (1n << 49n) - (blockReward(median, w + k, ctx.alreadyGeneratedCoins, ctx.hfVersion) ?? 0n)]);
  for (const [weight, fee] of cases) {
    const tpl = make(weight, fee);
    if (tpl.txIds.length === 0) continue;
    const total = tpl.txsWeight + tpl.minerTxWeight;
    assert.equal(tpl.minerTxWeight, serializeTransaction(tpl.block.minerTx).length);
    const base = blockReward(median, total, ctx.alreadyGeneratedCoins, ctx.hfVersion);
    assert.equal(tpl.block.minerTx.vout[0].amount, (base ?? -1n) + tpl.fees, `weight ${weight}`);
    // exactly what consensus's checkMinerReward demands from HF 13
    const r = checkMinerReward(tpl.block.minerTx, total, tpl.fees, ctx.penaltyMedian, ctx.alreadyGeneratedCoins, ctx.hfVersion);
    assert.ok(r.ok, `weight ${weight}`);
    if (tpl.block.minerTx.extra.length > 33) {
      padded++;
      assert.ok(tpl.block.minerTx.extra.subarray(33).every((b) => b === 0), "padding is zeros");
      assert.ok(parseTxExtra(tpl.block.minerTx.extra).fields.some((f) => f.type === "padding"));
    }
  }
  assert.ok(padded > 0, "some templates needed padding");
});

test("request checks: addresses, reserve sizes, extra nonces", () => {
  assert.deepEqual(minerAddress(INTEGRATED, "regtest", be).spendPublicKey, account.spendPublicKey);
  // the domain error's kind, and the code the node's RPC edge answers it with
  const code = (f: () => unknown): number => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof MiningError, String(e));
      assert.ok(e.message.length > 10);
      assert.ok(!("code" in e), "a domain error carries no RPC code");
      return MINING_RPC_CODES[e.kind];
    }
    assert.fail("did not throw");
  };
  assert.equal(code(() => minerAddress(SUBADDRESS, "regtest", be)), -12);
  assert.equal(code(() => minerAddress(TESTNET_ADDRESS, "regtest", be)), -4);
  assert.equal(code(() => minerAddress("", "regtest", be)), -4);
  assert.equal(code(() => templateExtraNonce(256)), -3);
  assert.equal(code(() => templateExtraNonce(-1)), -3);
  assert.equal(code(() => templateExtraNonce(2, new Uint8Array(3))), -1);
  assert.equal(code(() => templateExtraNonce(0, new Uint8Array(256))), -3);
  assert.deepEqual(templateExtraNonce(3), new Uint8Array(3));
  assert.deepEqual(templateExtraNonce(0, Uint8Array.of(9)), Uint8Array.of(9));
  assert.equal(powAlgorithm(16), "RandomX");
  assert.equal(powAlgorithm(1), "Cryptonight");
  assert.equal(powAlgorithm(9), "CNv2 (Cryptonight variant 2)");
});

// ---------------------------------------------------------------- PoW and the miner

const rxOk = randomxStatus().available;

test("mineBlock: real RandomX nonce search at difficulty 16 passes consensus; difficulty 1 hashes nothing", { skip: rxOk ? false : "librandomx not available" }, async (t) => {
  const { store, dir } = storeUpTo(40);
  const rx = new RandomX();
  const hasher = new PowHasher(() => rx);
  t.after(async () => {
    await hasher.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ctx = { ...nextBlockContext(store, { fixedDifficulty: 16n }) };
  const tpl = template(store, new Uint8Array(0), [], ctx);
  assert.equal(tpl.difficulty, 16n);
  const pow = (hb: Bytes): Promise<Bytes> => hasher.hash(tpl.block.majorVersion, tpl.height, hb, tpl.seedHash);
  const found = await mineBlock(tpl, 16n, pow, 1000);
  assert.ok(found && found.powHash);
  assert.ok(found.hashes >= 1);
  assert.ok(checkHash(found.powHash, 16n));
  const block = parseBlock(found.blob);
  assert.equal(block.nonce, found.nonce);
  assert.deepEqual(blockHashingBlob(block, be), found.hashingBlob);
  // the hash is RandomX keyed by the genesis id (seed height 0) of the blob with the nonce
  assert.deepEqual(await rx.hash(store.meta(0).hash, found.hashingBlob), found.powHash);
  const r = check(store, { ...tpl, blob: found.blob, block }, found.powHash);
  assert.ok(r.ok, r.ok ? "" : r.error.code);
  // a nonce that fails difficulty 2^40 is refused by consensus
  const bad = check(store, { ...tpl, blob: found.blob, block, difficulty: 1n << 40n }, found.powHash);
  assert.ok(!bad.ok || checkHash(found.powHash, 1n << 40n));
  // 3 hashes in flight find the same (lowest) nonce as the sequential search
  const par = await mineBlock(tpl, 16n, pow, 1000, { concurrency: 3 });
  assert.equal(par?.nonce, found.nonce);
  assert.deepEqual(par?.blob, found.blob);
  // difficulty 1: every hash meets it, nothing is hashed
  const trivial = await mineBlock(tpl, 1n, () => Promise.reject(new Error("must not hash")), 77);
  assert.equal(trivial?.nonce, 77);
  assert.equal(trivial?.hashes, 0);
  assert.equal(nonceOffset(trivial?.blob ?? new Uint8Array(0)), tpl.nonceOffset);
  // maxHashes bounds the search
  assert.equal(await mineBlock(tpl, 1n << 60n, pow, 0, { maxHashes: 3 }), undefined);
});

test("hashTrivialPow: at fixed difficulty 1 a node hashes each block it generates and verifies (as monerod), else none; prehashPow hashes a span ahead once", { skip: rxOk ? false : "librandomx not available" }, async (t) => {
  const clock = 1_700_000_000;
  const open = async (hashTrivialPow: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), "tsmonero-trivial-pow-"));
    const node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, offline: true, syncMode: "fast", now: () => clock, verifyThreads: 1, hashTrivialPow });
    t.after(async () => {
      await node.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return node;
  };
  const plain = await open(false);
  const hashing = await open(true);
  const mined = await hashing.generateBlocks(3, ADDRESS);
  // each generated block: one nonce hashed by the search, whose hash the node's verification reuses
  assert.equal(hashing.powHashCount, 3);
  await plain.generateBlocks(3, ADDRESS);
  assert.equal(plain.powHashCount, 0);
  // the same blocks received by a hashing node are hashed once each on verification
  const receiver = await open(true);
  for (const id of mined.blocks) {
    const blob = hashing.store.blockBlob(hashing.store.heightOf(id) ?? -1);
    assert.ok(blob);
    assert.equal((await receiver.submitBlock(blob)).status, "added");
  }
  assert.equal(receiver.powHashCount, 3);
  // a sync span hashed ahead (prehashPow, several at once): each block is hashed once, not again when applied
  const spanNode = await open(true);
  const blobs = mined.blocks.map((id) => hashing.store.blockBlob(hashing.store.heightOf(id) ?? -1) ?? new Uint8Array(0));
  spanNode.prehashPow(1, blobs);
  // the three hashes are computed before any block is submitted...
  for (const deadline = Date.now() + 60_000; spanNode.powHashCount < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
  assert.equal(spanNode.powHashCount, 3);
  // ...and applying the blocks computes none
  for (const b of blobs) assert.equal((await spanNode.submitBlock(b)).status, "added");
  assert.equal(spanNode.powHashCount, 3);
  assert.equal(spanNode.store.height(), 4);
});

test("Miner: 2 hash loops mine real-RandomX blocks into the store; status, stop, refusals", { skip: rxOk ? false : "librandomx not available" }, async (t) => {
  const { store, dir } = storeUpTo(30);
  const hasher = new PowHasher();
  const errors: unknown[] = [];
  const miner = new Miner(
    {
      checkAddress: (a) => void minerAddress(a, "regtest", be),
      template: async (a) => {
        const c = nextBlockContext(store, { fixedDifficulty: 4n });
        return buildBlockTemplate({
          ctx: c,
          prevId: store.topHash(),
          candidates: [],
          miner: minerAddress(a, "regtest", be),
          extraNonce: new Uint8Array(0),
          now: NOW,
          seeds: templateSeeds(c.height, idAt(store)),
          backend: be,
        });
      },
      powHash: (hb, tpl) => hasher.hash(tpl.block.majorVersion, tpl.height, hb, tpl.seedHash),
      submit: async (blob) => {
        const block = parseBlock(blob);
        if (toHex(block.prevId) !== toHex(store.topHash())) return false;
        const ctx = nextBlockContext(store, { fixedDifficulty: 4n });
        const pow = await hasher.hash(block.majorVersion, ctx.height, blockHashingBlob(block, be), store.meta(0).hash);
        const r = checkBlock(store, ctx, { block, txs: [], txIds: [], txWeights: [], minerTxWeight: serializeTransaction(block.minerTx).length, now: NOW, powHash: pow, backend: be });
        if (!r.ok) throw new Error(r.error.code);
        store.applyBlock(block, [], r.accepted);
        return true;
      },
    },
    { onError: (e) => errors.push(e), maxThreads: 8 },
  );
  t.after(async () => {
    await miner.stop();
    await hasher.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.throws(() => miner.start(SUBADDRESS, 1), (e: unknown) => e instanceof MiningError && e.kind === "subaddress");
  assert.throws(() => miner.start(ADDRESS, 9), /too many threads/);
  assert.equal(miner.status().active, false);
  const before = store.height();
  await miner.start(ADDRESS, 2, { background: true, ignoreBattery: true });
  assert.throws(() => miner.start(ADDRESS, 1), /Already mining/);
  const deadline = Date.now() + 30_000;
  while (store.height() < before + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const st = miner.status();
  const rep = miner.report(16, 4n);
  await miner.stop();
  assert.deepEqual(errors, []);
  assert.ok(store.height() >= before + 3, `mined ${store.height() - before} blocks`);
  assert.ok(miner.blocksFound >= 3);
  assert.deepEqual({ ...st, speed: 0 }, { active: true, address: ADDRESS, threads: 2, speed: 0, background: true });
  assert.ok(st.speed > 0, "hash rate measured");
  assert.equal(rep.powAlgorithm, "RandomX");
  assert.equal(rep.blockTarget, 120);
  assert.equal(rep.threadsCount, 2);
  assert.ok(rep.blockReward > 0n);
  assert.equal(rep.isBackgroundMiningEnabled, true);
  assert.equal(rep.bgIdleThreshold, 90);
  assert.equal(rep.bgTarget, 40);
  assert.equal(rep.bgIgnoreBattery, true);
  // every mined block is in the store and pays the miner
  for (let h = before; h < store.height(); h++) {
    const b = store.block(h);
    assert.ok(b);
    assert.equal(b.minerTx.vin[0].type === "gen" && b.minerTx.vin[0].height, BigInt(h));
  }
  const after = miner.report(16, 4n);
  assert.deepEqual([after.active, after.speed, after.threadsCount, after.address, after.isBackgroundMiningEnabled], [false, 0, 0, "", false]);
});

// ---------------------------------------------------------------- against a real monerod

test("against monerod on the same chain: get_block_template fields, submit of our template, calc_pow, regtest seed env", { timeout: 120_000 }, async (t) => {
  if (needPackage("monero") !== undefined) return t.skip("monero package not installed");
  const d = startMonerod(28901, 28902);
  const { store, dir } = storeUpTo(TX_HEIGHT);
  const hasher = new PowHasher();
  t.after(async () => {
    await stopDaemon(d);
    await hasher.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const client = new NodeClient({ url: d.url, timeoutMs: 30_000 });
  await waitReady(d, client);
  for (let h = 1; h < TX_HEIGHT; h++) {
    const r = await nodeCall(d.url, "submit_block", [blocks[h].blob]);
    assert.equal(r.status, "OK", `submit_block ${h}`);
  }
  for (const id of blocks[TX_HEIGHT].tx_hashes) {
    // do_not_relay: monerod mines such txs at once (relay_method none); relayable ones stay "local"
    // (not minable) until its relay timer fluffs them, which would make the template racy
    const r = await client.sendRawTransaction(txById.get(id)?.as_hex ?? "", { doNotRelay: true });
    assert.equal(r.status, "OK", `send_raw_transaction ${id}`);
  }

  // the pool's order is node/pool's business: take monerod's (fee per weight, ties as its std::set
  // leaves them) and check that the fill picks the same txs in the same order
  const first = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 0 });
  const order = parseBlock(fromHex(first.blocktemplate_blob)).txHashes.map(toHex);
  assert.equal(order.length, blocks[TX_HEIGHT].tx_hashes.length, "monerod's template takes the whole pool");
  const cands = candidatesOf(TX_HEIGHT, order);
  for (let i = 1; i < cands.length; i++) {
    assert.ok(Number(cands[i - 1].fee) / cands[i - 1].weight >= Number(cands[i].fee) / cands[i].weight, "monerod orders by fee per weight");
  }
  for (const reserve of [0, 8, 127]) {
    const mr = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: reserve });
    const ours = template(store, templateExtraNonce(reserve), cands);
    const mBlock = parseBlock(fromHex(mr.blocktemplate_blob));
    assert.equal(mr.height, ours.height);
    assert.equal(BigInt(mr.difficulty), ours.difficulty);
    assert.equal(BigInt(mr.expected_reward), ours.expectedReward);
    assert.equal(mr.prev_hash, toHex(ours.prevHash));
    assert.equal(mr.reserved_offset, ours.reservedOffset);
    assert.equal(mr.seed_hash, toHex(ours.seedHash));
    assert.equal(mr.seed_height, ours.seedHeight);
    assert.equal(mr.next_seed_hash, ours.nextSeedHash.length ? toHex(ours.nextSeedHash) : "");
    assert.equal(mr.blocktemplate_blob.length / 2, ours.blob.length);
    assert.equal(mr.blockhashing_blob.length / 2, ours.hashingBlob.length);
    // same txs in the same order, same coinbase shape (only the random tx key differs)
    assert.deepEqual(mBlock.txHashes.map(toHex), ours.txIds.map(toHex));
    assert.equal(mBlock.majorVersion, ours.block.majorVersion);
    assert.equal(mBlock.minorVersion, ours.block.minorVersion);
    assert.ok(Math.abs(Number(mBlock.timestamp - ours.block.timestamp)) < 120);
    const a = mBlock.minerTx;
    const b = ours.block.minerTx;
    assert.deepEqual([a.version, a.unlockTime, a.vin, a.vout.length, a.vout[0].amount, a.vout[0].target.type, a.extra.length], [b.version, b.unlockTime, b.vin, b.vout.length, b.vout[0].amount, b.vout[0].target.type, b.extra.length]);
    assert.deepEqual(a.extra.subarray(33), b.extra.subarray(33));
    assert.equal(serializeTransaction(a).length, ours.minerTxWeight);
  }
  // a client's extra_nonce instead of reserved zeros
  const xn = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, extra_nonce: "deadbeef01" });
  const xo = template(store, templateExtraNonce(0, fromHex("deadbeef01")), cands);
  const xBlob = fromHex(xn.blocktemplate_blob);
  assert.equal(xn.reserved_offset, xo.reservedOffset);
  assert.equal(xBlob.length, xo.blob.length);
  assert.equal(toHex(xBlob.subarray(xo.reservedOffset, xo.reservedOffset + 5)), "deadbeef01");
  assert.equal(toHex(xo.blob.subarray(xo.reservedOffset, xo.reservedOffset + 5)), "deadbeef01");
  assert.equal((await nodeRpc(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 2, extra_nonce: "00" })).error?.code, -1);
  // an extra nonce of 128+ bytes: monerod 0.18.0.0 wrote its length as one byte, which sort_tx_extra
  // cannot read back, and fails; later releases write a varint, as we do (the reserved bytes follow it)
  const big = await nodeRpc(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 200 });
  assert.equal(big.error?.code, -5, stringifyJson(big));
  for (const size of [127, 128, 200, 255]) {
    const t = template(store, templateExtraNonce(size), cands);
    assert.deepEqual([...t.blob.subarray(t.reservedOffset, t.reservedOffset + size)], new Array<number>(size).fill(0), `reserve ${size}`);
    assert.equal(t.blob[t.reservedOffset - 1 - (size >= 128 ? 1 : 0)], size >= 128 ? (size & 0x7f) | 0x80 : size);
    assert.deepEqual(serializeBlock(parseBlock(t.blob)), t.blob, "the block parses and re-serializes");
  }
  // the error codes of bad requests
  assert.equal((await nodeRpc(d.url, "get_block_template", { wallet_address: SUBADDRESS, reserve_size: 1 })).error?.code, -12);
  assert.equal((await nodeRpc(d.url, "get_block_template", { wallet_address: TESTNET_ADDRESS, reserve_size: 1 })).error?.code, -4);
  assert.equal((await nodeRpc(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 256 })).error?.code, -3);

  // calc_pow: monerod's RandomX and CryptoNight hashes of our hashing blob
  const ours = template(store, new Uint8Array(4), cands);
  for (const [major, height] of [[16, TX_HEIGHT], [1, 5], [7, 5], [8, 5]] as const) {
    const m = await nodeCall(d.url, "calc_pow", { major_version: major, height, block_blob: toHex(ours.hashingBlob), seed_hash: toHex(ours.seedHash) });
    const mine = await calcPow(hasher, major, height, ours.hashingBlob, ours.seedHash);
    assert.equal(toHex(mine), m, `calc_pow major ${major}`);
  }

  // monerod takes our template (with its txs from its pool) as the next block
  const filled = Uint8Array.from(ours.blob);
  filled.set([0xde, 0xad, 0xbe, 0xef], ours.reservedOffset);
  const sub = await nodeRpc(d.url, "submit_block", [toHex(filled)]);
  assert.equal(sub.result?.status, "OK", stringifyJson(sub));
  const top = await client.getLastBlockHeader();
  assert.equal(top.block_header.hash, toHex(blockHash(parseBlock(filled), be)));
  assert.equal(BigInt(top.block_header.reward), BigInt(blocks[TX_HEIGHT].header.reward));
  assert.equal(Number(top.block_header.num_txes), blocks[TX_HEIGHT].tx_hashes.length);

  // a template on an older block (prev_block): monerod's from_block median and reward
  const parent = blocks[TX_HEIGHT - 2];
  const alt = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 1, prev_block: parent.hash });
  const ctx = nextBlockContext(storeView(store, TX_HEIGHT - 1), { fixedDifficulty: 1n });
  const altOurs = buildBlockTemplate({
    ctx,
    prevId: fromHex(parent.hash),
    candidates: [],
    miner: minerAddress(ADDRESS, "regtest", be),
    extraNonce: new Uint8Array(1),
    now: NOW,
    seeds: templateSeeds(ctx.height, idAt(store)),
    medianWeight: altTemplateMedian(parent.header.block_weight, true),
    alreadyGeneratedCoins: store.meta(TX_HEIGHT - 2).alreadyGeneratedCoins,
    backend: be,
  });
  assert.equal(alt.height, altOurs.height);
  assert.equal(BigInt(alt.expected_reward), altOurs.expectedReward);
  assert.equal(alt.reserved_offset, altOurs.reservedOffset);
  assert.equal(alt.blocktemplate_blob.length / 2, altOurs.blob.length);
  assert.equal(mainChainTemplateMedian(nextBlockContext(store, { fixedDifficulty: 1n })) >= 300_000, true);
});

/** The store as a chain of its first `height` blocks (a template on an older block). */
function storeView(store: ChainStore, height: number): ChainStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "height") return () => height;
      if (prop === "topHash") return () => target.meta(height - 1).hash;
      if (prop === "alreadyGeneratedCoins") return () => target.meta(height - 1).alreadyGeneratedCoins;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

test("regtest seed env: monerod started with SEEDHASH_EPOCH_BLOCKS=8 / LAG=4 reports the seeds our rules give", { timeout: 90_000 }, async (t) => {
  if (needPackage("monero") !== undefined) return t.skip("monero package not installed");
  const epoch = seedEpochFromEnv({ SEEDHASH_EPOCH_BLOCKS: "8", SEEDHASH_EPOCH_LAG: "4" });
  const prev = { b: process.env.SEEDHASH_EPOCH_BLOCKS, l: process.env.SEEDHASH_EPOCH_LAG };
  process.env.SEEDHASH_EPOCH_BLOCKS = "8";
  process.env.SEEDHASH_EPOCH_LAG = "4";
  const d = startMonerod(28903, 28904);
  if (prev.b === undefined) delete process.env.SEEDHASH_EPOCH_BLOCKS;
  else process.env.SEEDHASH_EPOCH_BLOCKS = prev.b;
  if (prev.l === undefined) delete process.env.SEEDHASH_EPOCH_LAG;
  else process.env.SEEDHASH_EPOCH_LAG = prev.l;
  t.after(() => stopDaemon(d));
  const client = new NodeClient({ url: d.url, timeoutMs: 30_000 });
  await waitReady(d, client);
  const ids = (h: number): Bytes => fromHex(blocks[h].hash);
  let sawNext = 0;
  for (let h = 1; h <= 20; h++) {
    const m = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 0 });
    const s = templateSeeds(h, ids, ids, epoch);
    assert.equal(m.seed_height, s.seedHeight, `seed height at ${h}`);
    assert.equal(m.seed_hash, toHex(s.seedHash), `seed hash at ${h}`);
    assert.equal(m.next_seed_hash, s.nextSeedHash.length ? toHex(s.nextSeedHash) : "", `next seed at ${h}`);
    if (s.nextSeedHash.length) sawNext++;
    assert.equal(parseBlock(fromHex(m.blocktemplate_blob)).majorVersion, 16, "regtest: HF 16 from height 1");
    const r = await nodeCall(d.url, "submit_block", [blocks[h].blob]);
    assert.equal(r.status, "OK");
  }
  assert.equal(sawNext, 8);
});

test("MiningService on the real node core vs monerod: generateblocks (reserve 1, prev_block chaining, height), prev_block templates, alt blocks count as found, the miner through submitBlock", { timeout: 120_000 }, async (t) => {
  if (needPackage("monero") !== undefined) return t.skip("monero package not installed");
  const d = startMonerod(28905, 28906);
  const dataDir = tmp();
  const node = await openNode({ dataDir, network: "regtest", fixedDifficulty: 1n, offline: true, syncMode: "fast", verifyThreads: 1 });
  const svc = new MiningService({
    network: node.network,
    store: node.store,
    fixedDifficulty: node.fixedDifficulty,
    viewAt: (id) => node.viewAt(id),
    candidates: () => node.pool.templateTxs(Number.MAX_SAFE_INTEGER),
    submitBlock: (b) => node.submitBlock(b),
    now: () => Math.floor(Date.now() / 1000),
    mainContext: () => node.mainContext(),
  });
  node.on("block", () => svc.onNewBlock());
  t.after(async () => {
    await svc.close();
    await node.close();
    await stopDaemon(d);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const client = new NodeClient({ url: d.url, timeoutMs: 30_000 });
  await waitReady(d, client);
  const N = 15;
  const m = await nodeCall(d.url, "generateblocks", { amount_of_blocks: N, wallet_address: ADDRESS, starting_nonce: 5 });
  const ours = await svc.generateBlocks(N, ADDRESS, { startingNonce: 5 });
  assert.equal(ours.blocks.length, N);
  assert.equal(ours.height, m.height, "height: the last generated block's");
  assert.equal(node.store.height(), N + 1);
  const theirs = (await nodeCall(d.url, "get_block_headers_range", { start_height: 1, end_height: N })).headers;
  assert.equal(theirs.length, N);
  for (let h = 1; h <= N; h++) {
    const mh = theirs[h - 1];
    const meta = node.store.meta(h);
    const b = node.store.block(h);
    assert.ok(b);
    assert.equal(toHex(meta.hash), toHex(ours.blocks[h - 1]));
    assert.equal(meta.reward, BigInt(mh.reward), `reward at ${h}`);
    assert.equal(meta.weight, mh.block_weight, `weight at ${h}`);
    assert.equal(b.nonce, mh.nonce, `nonce at ${h}`);
    assert.equal(b.majorVersion, mh.major_version);
    assert.equal(b.minorVersion, mh.minor_version);
    // reserve_size 1: the extra nonce is one zero byte after the tx pubkey
    assert.deepEqual([...b.minerTx.extra.subarray(33)], [2, 1, 0]);
  }
  // a template on an older block: monerod's from_block rules, on each side's own chain
  const mid = 10;
  const mPrev = theirs[mid - 1].hash;
  const mt = await nodeCall(d.url, "get_block_template", { wallet_address: ADDRESS, reserve_size: 3, prev_block: mPrev });
  const ot = await svc.blockTemplate(ADDRESS, 3, { prevId: node.store.meta(mid).hash });
  assert.equal(ot.height, mt.height);
  assert.equal(ot.expectedReward, BigInt(mt.expected_reward));
  assert.equal(ot.reservedOffset, mt.reserved_offset);
  assert.equal(ot.blob.length, mt.blocktemplate_blob.length / 2);
  assert.equal(toHex(ot.seedHash), toHex(node.store.meta(0).hash));
  // generating on an older block makes an alternative block, which monerod's handle_block_found
  // counts as found: OK, height = the alt block's
  const malt = await nodeCall(d.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS, prev_block: mPrev });
  const oalt = await svc.generateBlocks(1, ADDRESS, { prevId: node.store.meta(mid).hash });
  assert.equal(oalt.height, malt.height);
  assert.equal(oalt.height, mid + 1);
  assert.equal(node.altBlockCount(), 1);
  assert.equal(node.store.height(), N + 1);
  // an unknown prev_block, a subaddress
  await assert.rejects(svc.blockTemplate(ADDRESS, 0, { prevId: new Uint8Array(32).fill(3) }), (e: unknown) => e instanceof MiningError && e.kind === "internal");
  await assert.rejects(svc.blockTemplate(SUBADDRESS, 0), (e: unknown) => e instanceof MiningError && e.kind === "subaddress");
  // seeds and PoW through the service
  assert.deepEqual(svc.seedFor(N), { height: 0, hash: node.store.meta(0).hash });
  // the built-in miner mines through the node's submitBlock (real RandomX, difficulty 1)
  const before = node.store.height();
  await svc.startMining(ADDRESS, 1);
  const deadline = Date.now() + 30_000;
  while (node.store.height() < before + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const st = svc.miningStatus();
  await svc.stopMining();
  assert.ok(node.store.height() >= before + 2, "the miner's blocks reached the chain");
  assert.equal(st.active, true);
  assert.equal(st.powAlgorithm, "RandomX");
  assert.equal(st.difficulty, 1n);
  assert.equal(svc.minerStatus().active, false);
});

test("Miner: a PoW hasher that keeps failing stops the miner after maxConsecutiveFailures tries in a row (20 by default), every failure and the stop reported", async (t) => {
  const { store, dir } = storeUpTo(5);
  const hasher = new PowHasher();
  await hasher.close(); // a dead hasher: every hash is refused
  const errors: unknown[] = [];
  const miner = new Miner(
    {
      checkAddress: (a) => void minerAddress(a, "regtest", be),
      template: async (a) => {
        const c = nextBlockContext(store, { fixedDifficulty: 4n });
        return buildBlockTemplate({ ctx: c, prevId: store.topHash(), candidates: [], miner: minerAddress(a, "regtest", be), extraNonce: new Uint8Array(0), now: NOW, seeds: templateSeeds(c.height, idAt(store)), backend: be });
      },
      powHash: (hb, tpl) => hasher.hash(tpl.block.majorVersion, tpl.height, hb, tpl.seedHash),
      submit: async () => false,
    },
    { onError: (e) => errors.push(e), maxConsecutiveFailures: 5 },
  );
  t.after(async () => {
    await miner.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await miner.start(ADDRESS, 1);
  const deadline = Date.now() + 10_000;
  while (miner.status().active && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(miner.status().active, false, "mining_status no longer says active");
  const stop = errors.find((e) => e instanceof MiningError && /mining stopped: the PoW hash failed 5 times in a row \(last: PoW hasher is closed\)/.test(e.message));
  assert.ok(stop, "the stop is reported with its reason");
  assert.equal(errors.filter((e) => e instanceof Error && e.message === "PoW hasher is closed").length, 5);
});
