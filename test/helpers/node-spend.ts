/**
 * Real, fully signed spends for node tests: coinbase outputs mined to keys the test knows, spent by
 * type-6 transactions (CLSAG + BP+, ring of 16 chosen from the store's outputs) built with
 * crypto/ringct's prover. Two spends of the same output are both valid and share a key image.
 */
import { checkFee, isUnlocked, nextBlockContext, requiredFee } from "../../src/consensus/index.js";
import type { CryptoBackend } from "../../src/crypto/backend.js";
import { randomScalar } from "../../src/crypto/random.js";
import { commitmentMask, encryptAmount, zeroCommit } from "../../src/crypto/ringct/amounts.js";
import { keyImageOf, proveRctClsagBpp, type RctInputSecret } from "../../src/crypto/ringct/prove.js";
import type { RctSigLike } from "../../src/crypto/ringct/verify.js";
import type { Node } from "../../src/node/chain/index.js";
import { buildBlockTemplate, type MinerKeys, templateSeeds } from "../../src/node/mining/index.js";
import type { ChainStore } from "../../src/node/store/chain-store.js";
import { type Block, serializeBlock } from "../../src/protocol/block.js";
import { extraTxPubKey, parseTxExtra, serializeTxExtra } from "../../src/protocol/extra.js";
import type { RctSignatures } from "../../src/protocol/rct.js";
import { absoluteToRelativeOffsets, type Bytes, parseTransaction, serializeRctBase, serializeTransaction, type Transaction } from "../../src/protocol/tx.js";
import { txHash, txPrefixHash } from "../../src/protocol/tx-hash.js";
import { txWeight } from "../../src/protocol/weight.js";

export interface TestKeys {
  spendSecret: Bytes;
  viewSecret: Bytes;
  spendPublicKey: Bytes;
  viewPublicKey: Bytes;
}

export function newKeys(be: CryptoBackend): TestKeys {
  const spendSecret = randomScalar(be);
  const viewSecret = randomScalar(be);
  return { spendSecret, viewSecret, spendPublicKey: be.scalarMultBase(spendSecret), viewPublicKey: be.scalarMultBase(viewSecret) };
}

export interface Owned {
  globalIndex: bigint;
  key: Bytes;
  amount: bigint;
  mask: Bytes;
  secretKey: Bytes;
  height: number;
}

const ONE = (() => {
  const b = new Uint8Array(32);
  b[0] = 1;
  return b;
})();

/**
 * A block on `prevId` (the tip or any known block) with exactly `txBlobs` (no pool, no key-image
 * filtering: tests build invalid blocks too) and an exact coinbase for `miner`, built by
 * node/mining's buildBlockTemplate; mutate it before serializing.
 */
export function blockOn(node: Node, prevId: Bytes, txBlobs: readonly Bytes[], miner: MinerKeys, timestamp: bigint, be: CryptoBackend): Block {
  const view = node.viewAt(prevId);
  if (!view) throw new Error("blockOn: unknown parent");
  const ctx = nextBlockContext(view, { fixedDifficulty: node.fixedDifficulty ?? 1n });
  const candidates = txBlobs.map((b) => {
    const tx = parseTransaction(b);
    return { id: txHash(tx, be), weight: txWeight(tx, b.length), fee: tx.rct?.fee ?? 0n, keyImages: [] };
  });
  const idAt = (h: number): Bytes => (view.hashAt ? view.hashAt(h) : node.store.meta(h).hash);
  const t = buildBlockTemplate({ ctx, prevId, candidates, miner, extraNonce: new Uint8Array(0), now: timestamp, seeds: templateSeeds(ctx.height, idAt), backend: be });
  if (t.txIds.length !== txBlobs.length) throw new Error("blockOn: the template left txs out");
  return t.block;
}

/** Mines `n` coinbase-only blocks paying `keys` on the node's tip; returns their heights. */
export async function mineTo(node: Node, keys: TestKeys, n: number, be: CryptoBackend, timestamp: bigint): Promise<number[]> {
  const heights: number[] = [];
  for (let i = 0; i < n; i++) {
    const h = node.store.height();
    const r = await node.submitBlock(serializeBlock(blockOn(node, node.store.topHash(), [], keys, timestamp, be)));
    if (r.status !== "added") throw new Error(`mineTo: ${r.message ?? r.status}`);
    heights.push(h);
  }
  return heights;
}

/** The coinbase output of the main-chain block at `height`, if it pays `keys`. */
export function ownedCoinbase(store: ChainStore, height: number, keys: TestKeys, be: CryptoBackend): Owned {
  const block = store.block(height);
  if (!block) throw new Error(`no block ${height}`);
  const txPub = extraTxPubKey(parseTxExtra(block.minerTx.extra).fields);
  if (!txPub) throw new Error("coinbase without tx pubkey");
  const derivation = be.generateKeyDerivation(txPub, keys.viewSecret);
  if (!derivation) throw new Error("bad tx pubkey");
  const out = block.minerTx.vout[0];
  const key = out.target.type === "tagged_key" || out.target.type === "key" ? out.target.key : undefined;
  const secretKey = be.deriveSecretKey(derivation, 0, keys.spendSecret);
  if (!key || Buffer.compare(be.scalarMultBase(secretKey), key) !== 0) throw new Error(`coinbase of ${height} does not pay these keys`);
  const loc = store.txLocation(txHash(block.minerTx, be));
  if (!loc) throw new Error("coinbase not indexed");
  return { globalIndex: loc.outputIndices[0], key, amount: out.amount, mask: ONE, secretKey, height };
}

export interface SpendOptions {
  /** Ring size (default 16). */
  ringSize?: number;
  /** Fee (default: the minimum for the weight at the node's next block). */
  fee?: bigint;
  /** Decoy global indices to use instead of the automatic choice (must not include the real one). */
  decoys?: bigint[];
  /** Local time for the unlock rule when choosing decoys. */
  now: bigint;
}

/** Decoys: unlocked outputs at least 10 blocks deep, spread over the chain, deterministic. */
function chooseDecoys(store: ChainStore, real: bigint, n: number, now: bigint): bigint[] {
  const hf = store.hardForkVersion(store.height());
  const count = store.outputCount(0n);
  const out: bigint[] = [];
  const step = count / BigInt(n * 3) || 1n;
  for (let i = 0n; i < count && out.length < n; i += step) {
    if (i === real) continue;
    const o = store.output(0n, i);
    if (!o || o.height + 10 > store.height() || !isUnlocked(o.unlockTime, store, hf, now)) continue;
    out.push(i);
  }
  if (out.length < n) throw new Error(`only ${out.length} decoys available`);
  return out;
}

/** A signed type-6 tx spending `owned` to two outputs for `to`. */
export function buildSpend(store: ChainStore, owned: Owned, to: TestKeys, be: CryptoBackend, opts: SpendOptions): Uint8Array {
  const ringSize = opts.ringSize ?? 16;
  const decoys = opts.decoys ?? chooseDecoys(store, owned.globalIndex, ringSize - 1, opts.now);
  const indices = [...decoys, owned.globalIndex].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const realIndex = indices.indexOf(owned.globalIndex);
  const ring = indices.map((i) => {
    const o = store.output(0n, i);
    if (!o) throw new Error(`no output ${i}`);
    return { dest: o.key, mask: o.commitment };
  });
  const input: RctInputSecret = { ring, realIndex, secretKey: owned.secretKey, mask: owned.mask, amount: owned.amount };
  const keyImage = keyImageOf(be, input);
  const ctx = nextBlockContext(store, { fixedDifficulty: 1n });
  const feeCtx = { version: ctx.hfVersion, effectiveMedian: ctx.limits.effectiveMedian, longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian, alreadyGeneratedCoins: ctx.alreadyGeneratedCoins };
  const r = randomScalar(be);
  const derivation = be.generateKeyDerivation(to.viewPublicKey, r);
  if (!derivation) throw new Error("bad view key");
  const build = (fee: bigint): Transaction => {
    const half = (owned.amount - fee) / 2n;
    const amounts = [half, owned.amount - fee - half];
    const prefix: Transaction = {
      version: 2,
      unlockTime: 0n,
      vin: [{ type: "key", amount: 0n, keyOffsets: absoluteToRelativeOffsets(indices), keyImage }],
      vout: amounts.map((_, i) => {
        const key = be.derivePublicKey(derivation, i, to.spendPublicKey);
        if (!key) throw new Error("bad spend key");
        return { amount: 0n, target: { type: "tagged_key" as const, key, viewTag: be.deriveViewTag(derivation, i) } };
      }),
      extra: serializeTxExtra([{ type: "pubkey", key: be.scalarMultBase(r) }]),
      signatures: [],
      pruned: false,
    };
    const outputs = amounts.map((amount, i) => {
      const shared = be.derivationToScalar(derivation, i);
      return { amount, mask: commitmentMask(be, shared), encryptedAmount: encryptAmount(be, shared, amount) };
    });
    const { rct, keyImages } = proveRctClsagBpp(be, {
      prefixHash: txPrefixHash(prefix, be),
      inputs: [input],
      outputs,
      fee,
      serializeBase: (x: RctSigLike) => serializeRctBase({ ...prefix, rct: x as RctSignatures }),
    });
    if (Buffer.compare(keyImages[0], keyImage) !== 0) throw new Error("key image mismatch");
    return { ...prefix, rct: rct as RctSignatures };
  };
  if (opts.fee !== undefined) return serializeTransaction(build(opts.fee));
  let fee = requiredFee(2000, feeCtx);
  for (let i = 0; i < 4; i++) {
    const tx = build(fee);
    const w = txWeight(tx);
    if (checkFee(w, fee, feeCtx) && fee === requiredFee(w, feeCtx)) return serializeTransaction(tx);
    fee = requiredFee(w, feeCtx);
  }
  return serializeTransaction(build(fee));
}

/** zeroCommit re-exported for tests that check coinbase commitments. */
export { zeroCommit };
