/**
 * The consensus rules over the 333-block regtest chain recorded from monerod
 * (test/fixtures/chain): every block passes, and our difficulty, cumulative difficulty, weight,
 * long-term weight and reward equal monerod's headers. Then each rule is broken once on a copy.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  type BlockCheckInput,
  type ChainOutput,
  type ChainView,
  checkBlock,
  checkFee,
  checkIncomingBlockSize,
  checkTxInputsAgainstChain,
  checkPoolTx,
  checkTxSemantics,
  feeEstimateLevels,
  isValidDecomposedAmount,
  feeQuantizationMask,
  nextBlockContext,
  type NextBlockContext,
  requiredFee,
  txFee,
  type TxRuleError,
  txError,
  txWeightLimit,
} from "../src/consensus/index.js";
import { defaultBackend } from "../src/crypto/index.js";
import { zeroCommit } from "../src/crypto/ringct/amounts.js";
import { type Block, parseBlock } from "../src/protocol/block.js";
import { HARD_FORKS, hardForkVersionAt } from "../src/protocol/genesis.js";
import { type Bytes, parseTransaction, serializeTransaction, type Transaction } from "../src/protocol/tx.js";
import { preMlsagHash, verifyRctNonSemantics, verifyRctSemantics } from "../src/crypto/ringct/verify.js";
import { txHash, txHashesFromBlob } from "../src/protocol/tx-hash.js";
import { txWeight } from "../src/protocol/weight.js";
import { fromHex, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";

const backend = defaultBackend();
const hex = (b: Bytes): string => toHex(b);

interface ChainBlock {
  block: Block;
  hash: Bytes;
  txs: Transaction[];
  txIds: Bytes[];
  txWeights: number[];
  minerTxWeight: number;
  header: {
    difficulty: number;
    cumulative_difficulty: number;
    block_weight: number;
    long_term_weight: number;
    reward: number;
    timestamp: number;
  };
}

/** The recorded chain, and a ChainView of its first `limit` blocks filled from what we computed. */
class RecordedChain {
  readonly blocks: ChainBlock[];
  readonly outputs: { amount: bigint; out: ChainOutput }[] = [];
  readonly spentAt = new Map<string, number>();
  readonly computed: { cumulativeDifficulty: bigint; weight: number; longTermWeight: number; coins: bigint }[] = [];

  constructor() {
    const txById = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
    this.blocks = recordedBlocks().map((rb) => {
      const block = parseBlock(fromHex(rb.blob));
      const txs = rb.tx_hashes.map((h) => {
        const t = txById.get(h);
        if (!t) throw new Error(`tx ${h} missing from the fixture`);
        return parseTransaction(fromHex(t.as_hex));
      });
      return {
        block,
        hash: fromHex(rb.hash),
        txs,
        txIds: txs.map((t) => txHash(t)),
        txWeights: txs.map((t) => txWeight(t)),
        minerTxWeight: serializeTransaction(block.minerTx).length,
        header: rb.header as unknown as ChainBlock["header"],
      };
    });
  }

  /** Record block `h`'s outputs and key images (after it was accepted with `acc`). */
  append(h: number, acc: { cumulativeDifficulty: bigint; weight: number; longTermWeight: number; alreadyGeneratedCoins: bigint }): void {
    const cb = this.blocks[h];
    const add = (tx: Transaction, coinbase: boolean): void => {
      tx.vout.forEach((o, i) => {
        if (o.target.type !== "key" && o.target.type !== "tagged_key") return;
        const rct = tx.version >= 2;
        // RingCT-era outputs (and v2 coinbase outputs) are indexed under amount 0
        const amount = rct ? 0n : o.amount;
        const commitment = coinbase || !rct ? zeroCommit(backend, o.amount) : (tx.rct?.outPk[i] ?? new Uint8Array(32));
        this.outputs.push({ amount, out: { key: o.target.key, commitment, unlockTime: tx.unlockTime, height: h } });
      });
      for (const i of tx.vin) if (i.type === "key") this.spentAt.set(hex(i.keyImage), h);
    };
    add(cb.block.minerTx, true);
    for (const t of cb.txs) add(t, false);
    this.computed[h] = { cumulativeDifficulty: acc.cumulativeDifficulty, weight: acc.weight, longTermWeight: acc.longTermWeight, coins: acc.alreadyGeneratedCoins };
  }

  view(limit: number): ChainView {
    const c = this.computed;
    const range = <T>(start: number, count: number, f: (h: number) => T): T[] => {
      if (start < 0 || start + count > limit) throw new RangeError(`range [${start}, ${start + count}) beyond height ${limit}`);
      return Array.from({ length: count }, (_, i) => f(start + i));
    };
    return {
      height: () => limit,
      topHash: () => this.blocks[limit - 1].hash,
      hardForkVersion: (h) => hardForkVersionAt(HARD_FORKS.regtest, h),
      timestamps: (s, n) => range(s, n, (h) => this.blocks[h].block.timestamp),
      cumulativeDifficulties: (s, n) => range(s, n, (h) => c[h].cumulativeDifficulty),
      blockWeights: (s, n) => range(s, n, (h) => c[h].weight),
      longTermBlockWeights: (s, n) => range(s, n, (h) => c[h].longTermWeight),
      alreadyGeneratedCoins: () => c[limit - 1].coins,
      isKeyImageSpent: (ki) => {
        const at = this.spentAt.get(hex(ki));
        return at !== undefined && at < limit;
      },
      output: (amount, index) => {
        let n = -1n;
        for (const o of this.outputs) {
          if (o.out.height >= limit) break;
          if (o.amount === amount && ++n === index) return o.out;
        }
        return undefined;
      },
    };
  }
}

/** The local time a block was received: monerod accepted each block within seconds of its timestamp. */
const receivedAt = (cb: ChainBlock): bigint => cb.block.timestamp + 1n;

let signaturesVerified = 0;

/**
 * What the node's block check will run per transaction: semantics, chain inputs, then the RingCT
 * signatures (crypto/ringct) over the ring members the ChainView returned.
 */
function txChecker(view: ChainView, ctx: NextBlockContext, now: bigint, verifySignatures = false): (tx: Transaction, i: number) => TxRuleError | undefined {
  return (tx) => {
    const sem = checkTxSemantics(tx, ctx.hfVersion, { keptByBlock: true });
    if (sem) return sem;
    const inputs = checkTxInputsAgainstChain(tx, view, ctx.hfVersion, now);
    if (!inputs.ok) return inputs.error;
    if (verifySignatures && tx.rct) {
      const blob = serializeTransaction(tx);
      const { layout, prefixHash } = txHashesFromBlob(blob, backend);
      const message = preMlsagHash(backend, prefixHash, blob.subarray(layout.prefixSize, layout.unprunableSize), tx.rct);
      const keyImages = tx.vin.map((i) => (i.type === "key" ? i.keyImage : new Uint8Array(32)));
      const mixRing = inputs.rings.map((r) => r.map((m) => ({ dest: m.key, mask: m.commitment })));
      if (!verifyRctNonSemantics(backend, { rct: tx.rct, message, keyImages, mixRing })) return txError("INVALID_SIGNATURES");
      signaturesVerified++;
    }
    return undefined;
  };
}

function inputFor(cb: ChainBlock, view: ChainView, ctx: NextBlockContext, patch: Partial<BlockCheckInput> = {}): BlockCheckInput {
  const now = receivedAt(cb);
  return {
    block: cb.block,
    txs: cb.txs,
    txIds: cb.txIds,
    txWeights: cb.txWeights,
    minerTxWeight: cb.minerTxWeight,
    now,
    checkTx: txChecker(view, ctx, now),
    ...patch,
  };
}

const chain = new RecordedChain();
const contexts: NextBlockContext[] = [];

test("every recorded block passes, and difficulty, weights and reward equal monerod's", () => {
  let withTxs = 0;
  for (let h = 0; h < chain.blocks.length; h++) {
    const cb = chain.blocks[h];
    const view = chain.view(h);
    const ctx = nextBlockContext(view, { fixedDifficulty: 1n });
    contexts[h] = ctx;
    const r = checkBlock(view, ctx, inputFor(cb, view, ctx, { checkTx: txChecker(view, ctx, receivedAt(cb), true) }));
    if (!r.ok) assert.fail(`height ${h}: ${r.error.code} ${r.error.message}`);
    const a = r.accepted;
    assert.equal(a.height, h);
    assert.equal(a.difficulty, BigInt(cb.header.difficulty), `difficulty at ${h}`);
    assert.equal(a.cumulativeDifficulty, BigInt(cb.header.cumulative_difficulty), `cumulative difficulty at ${h}`);
    assert.equal(a.weight, cb.header.block_weight, `block weight at ${h}`);
    assert.equal(a.longTermWeight, cb.header.long_term_weight, `long-term weight at ${h}`);
    assert.equal(a.reward, BigInt(cb.header.reward), `reward at ${h}`);
    assert.equal(a.baseReward + a.fees, a.reward, `exact coinbase at ${h}`);
    if (cb.txs.length > 0) withTxs++;
    chain.append(h, a);
  }
  assert.equal(contexts.length, 333);
  assert.ok(withTxs >= 10);
  assert.equal(signaturesVerified, 154);
});

test("every recorded transaction pays at least check_fee's minimum at the chain state it was mined on", () => {
  let n = 0;
  for (let h = 1; h < chain.blocks.length; h++) {
    const ctx = contexts[h];
    const cb = chain.blocks[h];
    cb.txs.forEach((tx, i) => {
      const fctx = {
        version: ctx.hfVersion,
        effectiveMedian: ctx.limits.effectiveMedian,
        longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian,
        alreadyGeneratedCoins: ctx.alreadyGeneratedCoins,
      };
      const fee = txFee(tx);
      assert.ok(checkFee(cb.txWeights[i], fee, fctx), `tx ${i} at ${h}: fee ${fee} < ${requiredFee(cb.txWeights[i], fctx)}`);
      n++;
    });
  }
  assert.equal(n, 154);
});

interface RecordedState {
  height: number;
  block_weight_median: number;
  block_weight_limit: number;
  fee_estimate_0: { fee: number; fees: number[]; quantization_mask: number };
  fee_estimate_10: { fee: number; fees: number[]; quantization_mask: number };
}

test("weight median/limit and get_fee_estimate (grace 0 and 10) equal monerod's at every height", () => {
  const file = new URL("../../test/fixtures/consensus/chain-state.json", import.meta.url);
  const states = (JSON.parse(readFileSync(file, "utf8")) as { states: RecordedState[] }).states;
  assert.equal(states.length, 333);
  for (const st of states) {
    const h = st.height;
    const view = chain.view(h);
    const ctx = contexts[h] ?? nextBlockContext(view, { fixedDifficulty: 1n });
    assert.equal(ctx.limits.effectiveMedian, st.block_weight_median, `median at ${h}`);
    assert.equal(ctx.limits.limit, st.block_weight_limit, `limit at ${h}`);
    const weights = view.blockWeights(Math.max(0, h - 100), Math.min(h, 100));
    const longTerm = view.longTermBlockWeights(0, h);
    for (const [grace, rec] of [[0, st.fee_estimate_0], [10, st.fee_estimate_10]] as const) {
      const fees = feeEstimateLevels(grace, weights, longTerm, ctx.limits.effectiveMedian, ctx.alreadyGeneratedCoins, ctx.hfVersion);
      assert.deepEqual(fees.map(Number), rec.fees, `fees at ${h}, grace ${grace}`);
      assert.equal(Number(fees[0]), rec.fee);
      assert.equal(Number(feeQuantizationMask()), rec.quantization_mask);
    }
  }
});

test("monerod's verdicts on its own block template and one-rule-broken variants match ours", () => {
  const file = new URL("../../test/fixtures/consensus/chain-state.json", import.meta.url);
  const verdicts = (JSON.parse(readFileSync(file, "utf8")) as { verdicts: { name: string; blob: string; now: number; status: string; accepted: boolean }[] })
    .verdicts;
  const expected: Record<string, string> = {
    "reward+1": "REWARD_TOO_HIGH",
    "reward-1": "REWARD_NOT_EXACT",
    "timestamp=median-1": "TIMESTAMP_TOO_OLD",
    "timestamp=now+7300": "TIMESTAMP_IN_FUTURE",
    "major=15": "BAD_MAJOR_VERSION",
    "minor=15": "BAD_VOTE",
    "minor=0": "BAD_VOTE",
    "gen-height+1": "MINER_TX_HEIGHT",
    "unlock+1": "MINER_TX_UNLOCK_TIME",
    "untagged-output": "MINER_TX_OUTPUT_TYPE",
    "prev-id": "PREV_ID_MISMATCH",
  };
  assert.equal(verdicts.length, 15);
  const h = chain.blocks.length;
  const view = chain.view(h);
  const ctx = nextBlockContext(view, { fixedDifficulty: 1n });
  for (const v of verdicts) {
    const block = parseBlock(fromHex(v.blob));
    const r = checkBlock(view, ctx, {
      block,
      txs: [],
      txIds: [],
      txWeights: [],
      minerTxWeight: serializeTransaction(block.minerTx).length,
      now: BigInt(v.now),
    });
    assert.equal(r.ok, v.accepted, `${v.name}: monerod ${v.accepted ? "accepted" : "rejected"} it`);
    if (!r.ok) assert.equal(r.error.code, expected[v.name], v.name);
    // monerod answers OK for a block it keeps as an orphan; our flag says so
    if (v.name === "prev-id" && !r.ok) assert.ok(v.status === "OK" && r.error.flag === "marked_as_orphaned");
  }
});

test("monerod's send_raw_transaction flags on one-rule-broken variants of a real tx equal our first error's flags", () => {
  const file = new URL("../../test/fixtures/consensus/chain-state.json", import.meta.url);
  const verdicts = (JSON.parse(readFileSync(file, "utf8")) as { tx_verdicts: { name: string; blob: string; response: Record<string, unknown> }[] }).tx_verdicts;
  assert.equal(verdicts.length, 15);
  const h = chain.blocks.length - 1; // the variants were sent before the last block's txs
  const view = chain.view(h);
  const ctx = contexts[h];
  const now = receivedAt(chain.blocks[h]);
  const fctx = { version: ctx.hfVersion, effectiveMedian: ctx.limits.effectiveMedian, longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian, alreadyGeneratedCoins: ctx.alreadyGeneratedCoins };
  const pctx = {
    hfVersion: ctx.hfVersion,
    blockWeightLimit: ctx.limits.limit,
    fee: fctx,
    verifyRctSemantics: (tx: Transaction) => tx.rct === undefined || verifyRctSemantics(backend, [tx.rct]),
  };
  // what the node's send_raw_transaction will run, in monerod's order
  const pipeline = (blob: Uint8Array): TxRuleError | undefined => {
    const tx = parseTransaction(blob);
    const pool = checkPoolTx(tx, blob.length, txWeight(tx), pctx);
    if (pool) return pool;
    const inputs = checkTxInputsAgainstChain(tx, view, ctx.hfVersion, now);
    if (!inputs.ok) return inputs.error;
    if (!tx.rct) return undefined;
    const { layout, prefixHash } = txHashesFromBlob(blob, backend);
    const message = preMlsagHash(backend, prefixHash, blob.subarray(layout.prefixSize, layout.unprunableSize), tx.rct);
    const keyImages = tx.vin.map((i) => (i.type === "key" ? i.keyImage : new Uint8Array(32)));
    const mixRing = inputs.rings.map((r) => r.map((m) => ({ dest: m.key, mask: m.commitment })));
    return verifyRctNonSemantics(backend, { rct: tx.rct, message, keyImages, mixRing }) ? undefined : txError("INVALID_SIGNATURES");
  };
  const FLAGS = ["double_spend", "fee_too_low", "invalid_input", "invalid_output", "low_mixin", "overspend", "too_big", "too_few_outputs", "tx_extra_too_big"];
  for (const v of verdicts) {
    if (v.response.sanity_check_failed === true) {
      // rct-type-5: monerod's RPC sanity check (tx_sanity_check, not consensus) answers first; we
      // reject it as well, already when parsing (a type-5 prunable part without Bulletproofs)
      assert.throws(() => pipeline(fromHex(v.blob)), /proofs cover fewer/);
      continue;
    }
    const ours = pipeline(fromHex(v.blob));
    if (v.name === "original") {
      assert.equal(ours, undefined, "the untampered tx passes");
      assert.equal(v.response.status, "OK");
      continue;
    }
    assert.ok(ours, `${v.name}: we reject it too`);
    assert.equal(v.response.status, "Failed", v.name);
    const theirs = FLAGS.filter((f) => v.response[f] === true).sort();
    assert.deepEqual([...ours.flags].sort(), theirs, `${v.name}: ours ${ours.code}`);
  }
});

// ---- each rule broken once on a copy --------------------------------------------------------

const H = chain.blocks.length - 1; // 332: six transactions
function tamper(
  mutate: (b: Block, txs: Transaction[], input: BlockCheckInput) => Partial<BlockCheckInput> | undefined | void,
  h = H,
): { code: string; txCode?: string; message: string } {
  const cb = chain.blocks[h];
  const block = structuredClone(cb.block);
  const txs = structuredClone(cb.txs);
  const view = chain.view(h);
  const ctx = nextBlockContext(view, { fixedDifficulty: 1n });
  const base = inputFor(cb, view, ctx, { block, txs, checkTx: txChecker(view, ctx, receivedAt(cb), true) });
  const patch = mutate(block, txs, base) ?? {};
  const r = checkBlock(view, ctx, { ...base, ...patch });
  assert.ok(!r.ok, "tampered block must fail");
  return { code: r.error.code, txCode: r.error.txError?.code, message: r.error.message };
}

test("untampered copy of the last block passes (the tamper harness itself is sound)", () => {
  const cb = chain.blocks[H];
  const view = chain.view(H);
  const ctx = nextBlockContext(view, { fixedDifficulty: 1n });
  const r = checkBlock(view, ctx, inputFor(cb, view, ctx, { block: structuredClone(cb.block), txs: structuredClone(cb.txs) }));
  assert.ok(r.ok);
});

test("block rules: each broken once gives its precise reason", () => {
  assert.equal(tamper((b) => void (b.minerTx.vout[0].amount += 1n)).code, "REWARD_TOO_HIGH");
  assert.equal(tamper((b) => void (b.minerTx.vout[0].amount -= 1n)).code, "REWARD_NOT_EXACT");
  assert.equal(tamper((b) => void (b.majorVersion = 15)).code, "BAD_MAJOR_VERSION");
  assert.equal(tamper((b) => void (b.minorVersion = 15)).code, "BAD_VOTE");
  assert.equal(tamper((b) => void (b.minorVersion = 0)).code, "BAD_VOTE");
  assert.equal(tamper((b) => void (b.prevId = new Uint8Array(32))).code, "PREV_ID_MISMATCH");
  // median of the last 60 timestamps, minus one second
  const ctx = contexts[H];
  const sorted = [...ctx.recentTimestamps].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const med = (sorted[29] + sorted[30]) / 2n;
  assert.equal(tamper((b) => void (b.timestamp = med - 1n)).code, "TIMESTAMP_TOO_OLD");
  {
    const cb = chain.blocks[H];
    const view = chain.view(H);
    const atMedian = { ...structuredClone(cb.block), timestamp: med };
    assert.ok(checkBlock(view, ctx, inputFor(cb, view, ctx, { block: atMedian })).ok, "a timestamp equal to the median is accepted");
  }
  assert.equal(tamper((b, _t, i) => ({ now: i.now - 7201n - (i.now - b.timestamp) })).code, "TIMESTAMP_IN_FUTURE");
  const gen = (b: Block): { type: "gen"; height: bigint } => b.minerTx.vin[0] as { type: "gen"; height: bigint };
  assert.equal(tamper((b) => void (gen(b).height += 1n)).code, "MINER_TX_HEIGHT");
  assert.equal(tamper((b) => void (b.minerTx.unlockTime += 1n)).code, "MINER_TX_UNLOCK_TIME");
  assert.equal(tamper((b) => void b.minerTx.vin.push({ type: "gen", height: 332n })).code, "MINER_TX_INPUTS");
  assert.equal(tamper((b) => void (b.minerTx.version = 1)).code, "MINER_TX_VERSION");
  assert.equal(
    tamper((b) => {
      const t = b.minerTx.vout[0].target;
      if (t.type === "tagged_key") b.minerTx.vout[0].target = { type: "key", key: t.key };
    }).code,
    "MINER_TX_OUTPUT_TYPE",
  );
  assert.equal(tamper((b) => void b.txHashes.push(b.txHashes[0])).code, "DUPLICATE_TX");
  assert.equal(tamper((_b, txs) => ({ txs: txs.slice(1) })).code, "MISSING_TX");
  // a block heavier than twice the effective median (300000): pretend its six txs weigh 100001 each
  assert.equal(tamper((_b, _t, i) => ({ txWeights: i.txWeights.map(() => 100001) })).code, "TOO_HEAVY");
  // heavier than the median: the penalty lowers the reward, so the recorded coinbase claims too much
  assert.equal(tamper((_b, _t, i) => ({ txWeights: i.txWeights.map(() => 70000) })).code, "REWARD_TOO_HIGH");
  // no tx in a block may weigh more than the pool limit (149400 at HF 16)
  const heavy = tamper((_b, _t, i) => ({ txWeights: [149401, ...i.txWeights.slice(1)] }));
  assert.equal(heavy.code, "BAD_TX");
  assert.equal(heavy.txCode, "TOO_BIG");
  assert.equal(checkIncomingBlockSize(600100, 600000), undefined);
  assert.equal(checkIncomingBlockSize(600101, 600000)?.code, "TOO_HEAVY");
  // PoW: a hash of all ones fails difficulty 2 but passes difficulty 1
  const ones = new Uint8Array(32).fill(0xff);
  const view = chain.view(H);
  const c2 = { ...nextBlockContext(view, { fixedDifficulty: 2n }) };
  const cb = chain.blocks[H];
  const r = checkBlock(view, c2, inputFor(cb, view, c2, { powHash: ones }));
  assert.ok(!r.ok && r.error.code === "BAD_POW" && r.error.flag === "bad_pow");
  const c1 = nextBlockContext(view, { fixedDifficulty: 1n });
  assert.ok(checkBlock(view, c1, inputFor(cb, view, c1, { powHash: ones })).ok);
});

test("transaction rules inside a block: each broken once gives its precise reason", () => {
  const viaBlock = (mutate: (tx: Transaction) => void): string | undefined =>
    tamper((_b, txs) => {
      mutate(txs[0]);
    }).txCode;
  const keyIn = (tx: Transaction, i = 0) => {
    const x = tx.vin[i];
    if (x.type !== "key") throw new Error("not a key input");
    return x;
  };
  // ring size 15
  assert.equal(
    viaBlock((tx) => {
      for (const i of tx.vin) if (i.type === "key") i.keyOffsets.pop();
    }),
    "BAD_RING_SIZE",
  );
  // ring size 17
  assert.equal(
    viaBlock((tx) => {
      for (const i of tx.vin) if (i.type === "key") i.keyOffsets.push(1n);
    }),
    "BAD_RING_SIZE",
  );
  // duplicate ring member
  assert.equal(viaBlock((tx) => void (keyIn(tx).keyOffsets[3] = 0n)), "DUPLICATE_RING_MEMBER");
  // one output: with the proof still sized for two, the RingCT shape fails first (as in monerod)
  const oneOutput = (tx: Transaction): void => {
    tx.vout.pop();
    tx.rct?.outPk.pop();
    tx.rct?.ecdhInfo.pop();
  };
  assert.equal(viaBlock(oneOutput), "RCT_SHAPE");
  assert.equal(
    viaBlock((tx) => {
      oneOutput(tx);
      const bp = tx.rct?.prunable?.bulletproofsPlus[0];
      bp?.L.pop();
      bp?.R.pop();
    }),
    "TOO_FEW_OUTPUTS",
  );
  // output without a view tag
  assert.equal(
    viaBlock((tx) => {
      const t = tx.vout[0].target;
      if (t.type === "tagged_key") tx.vout[0].target = { type: "key", key: t.key };
    }),
    "BAD_OUTPUT_TYPE",
  );
  // output key not on the curve (y = 2 has no x on ed25519)
  assert.equal(
    viaBlock((tx) => {
      const t = tx.vout[0].target;
      if (t.type === "tagged_key") t.key = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 2 : 0));
    }),
    "BAD_OUTPUT_KEY",
  );
  assert.equal(viaBlock((tx) => void (tx.vout[1].amount = 5n)), "NONZERO_OUTPUT_AMOUNT");
  assert.equal(viaBlock((tx) => void (tx.version = 3)), "BAD_VERSION");
  assert.equal(viaBlock((tx) => void (tx.rct && (tx.rct.type = 5))), "BAD_RCT_TYPE");
  assert.equal(viaBlock((tx) => void tx.rct?.outPk.pop()), "OUTPK_MISMATCH");
  // the identity point as a key image: on the curve but l·KI is identity, so pick a torsion point
  // instead: (0, −1) has order 2, l·P = P ≠ identity
  const torsion = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0xec : i === 31 ? 0x7f : 0xff));
  assert.equal(viaBlock((tx) => void (keyIn(tx).keyImage = torsion)), "KEY_IMAGE_DOMAIN");
  // key image already spent in the chain: reuse one spent in an earlier block
  const earlier = chain.blocks.slice(0, H).flatMap((c) => c.txs).map((t) => keyIn(t).keyImage);
  assert.equal(viaBlock((tx) => void (keyIn(tx).keyImage = earlier[0])), "KEY_IMAGE_SPENT");
  // a different (existing, unlocked) ring member: the rules pass, the CLSAG over the view's ring does not
  assert.equal(
    viaBlock((tx) => {
      const i = keyIn(tx);
      i.keyOffsets[0] -= 1n;
      i.keyOffsets[1] += 1n;
    }),
    "INVALID_SIGNATURES",
  );
  // ring member beyond the outputs that exist
  assert.equal(viaBlock((tx) => void (keyIn(tx).keyOffsets[15] += 1_000_000n)), "RING_MEMBER_MISSING");
});

test("tx semantics on their own: key image order, duplicates, mixed rings, fee check", () => {
  const multi = chain.blocks.flatMap((c) => c.txs).find((t) => t.vin.length >= 2);
  assert.ok(multi, "a recorded tx with two or more inputs");
  assert.equal(checkTxSemantics(multi, 16), undefined);
  const swapped = structuredClone(multi);
  [swapped.vin[0], swapped.vin[1]] = [swapped.vin[1], swapped.vin[0]];
  assert.equal(checkTxSemantics(swapped, 16)?.code, "UNSORTED_KEY_IMAGES");
  const dup = structuredClone(multi);
  const k0 = dup.vin[0];
  const k1 = dup.vin[1];
  if (k0.type === "key" && k1.type === "key") k1.keyImage = k0.keyImage;
  assert.equal(checkTxSemantics(dup, 16)?.code, "DUPLICATE_KEY_IMAGE");
  const mixed = structuredClone(multi);
  const m1 = mixed.vin[1];
  if (m1.type === "key") m1.keyOffsets.pop();
  const e = checkTxSemantics(mixed, 16);
  assert.equal(e?.code, "MIXED_RING_SIZES");
  assert.equal(e?.flag, "low_mixin");
  const noIn = structuredClone(multi);
  noIn.vin = [];
  assert.equal(checkTxSemantics(noIn, 16)?.code, "NO_INPUTS");
  // legacy inputs: a v1 tx spending "unmixable" pre-RingCT amounts may use a ring of 1 even at HF 16
  const legacy = structuredClone(multi);
  legacy.version = 1;
  delete legacy.rct;
  legacy.vin = legacy.vin.slice(0, 2).map((i, n) => (i.type === "key" ? { ...i, amount: 1000000000000n, keyOffsets: [BigInt(n + 1)] } : i));
  legacy.vout = legacy.vout.map((o) => ({ ...o, amount: 100000000000n }));
  assert.equal(checkTxSemantics(legacy, 16, { numOutputs: () => 3n }), undefined);
  assert.equal(checkTxSemantics(legacy, 16)?.code, "BAD_RING_SIZE", "mixable without the chain's output counts");
  assert.equal(checkTxSemantics(legacy, 16, { numOutputs: () => 16n })?.code, "BAD_RING_SIZE");
  legacy.vout[0].amount = 123n;
  assert.equal(checkTxSemantics(legacy, 16, { numOutputs: () => 3n })?.code, "BAD_OUTPUT_AMOUNT");
  assert.ok(isValidDecomposedAmount(10000000000000000000n) && isValidDecomposedAmount(7n) && isValidDecomposedAmount(900n));
  assert.ok(!isValidDecomposedAmount(0n) && !isValidDecomposedAmount(11n) && !isValidDecomposedAmount(20000000000000000000n));
  // a Bulletproof+ whose rounds do not match the output count
  const rounds = structuredClone(multi);
  rounds.rct?.prunable?.bulletproofsPlus[0].L.pop();
  assert.equal(checkTxSemantics(rounds, 16)?.code, "RCT_SHAPE");
  // pool-only size rule: weight ≥ limit − 600
  assert.equal(checkTxSemantics(multi, 16, { weight: 599401, weightLimit: 600000 })?.code, "TOO_BIG");
  assert.equal(checkTxSemantics(multi, 16, { weight: 599399, weightLimit: 600000 }), undefined);
  // version 1 at HF 16
  const v1 = structuredClone(multi);
  v1.version = 1;
  v1.vout.forEach((o) => (o.amount = 1n));
  assert.equal(checkTxSemantics(v1, 16)?.code, "MONEY_OVERFLOW"); // v1 needs inputs > outputs first
  // the fee: 2% below the minimum is still accepted, more is not
  const ctx = contexts[H];
  const fctx = { version: 16, effectiveMedian: ctx.limits.effectiveMedian, longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian, alreadyGeneratedCoins: ctx.alreadyGeneratedCoins };
  // the pool: every recorded tx passes at the state it was mined on; tampered fee, size, weight do not
  const pctx = { hfVersion: 16, blockWeightLimit: ctx.limits.limit, fee: fctx };
  const blob = serializeTransaction(multi).length;
  const w = txWeight(multi);
  assert.equal(checkPoolTx(multi, blob, w, pctx), undefined);
  assert.equal(txWeightLimit(16), 149400);
  const rich = structuredClone(multi);
  if (rich.rct) rich.rct.fee = 10n ** 12n;
  assert.equal(checkPoolTx(rich, blob, 149401, pctx)?.code, "TOO_BIG");
  assert.equal(checkPoolTx(multi, blob, 149401, pctx)?.code, "FEE_TOO_LOW", "the fee is checked before the weight");
  assert.equal(checkPoolTx(multi, 1000001, w, pctx)?.code, "TOO_BIG");
  const padded = structuredClone(multi);
  padded.extra = new Uint8Array(1061);
  assert.equal(checkPoolTx(padded, blob, w, pctx)?.flag, "tx_extra_too_big");
  padded.extra = new Uint8Array(1060);
  assert.equal(checkPoolTx(padded, blob, w, pctx), undefined);
  const cheap = structuredClone(multi);
  if (cheap.rct) cheap.rct.fee = requiredFee(w, fctx) / 2n;
  const low = checkPoolTx(cheap, blob, w, pctx);
  assert.equal(low?.code, "FEE_TOO_LOW");
  assert.equal(low?.flag, "fee_too_low");
  const need = requiredFee(3000, fctx);
  assert.ok(checkFee(3000, need - need / 50n, fctx));
  assert.ok(!checkFee(3000, need - need / 50n - 1n, fctx));
});
