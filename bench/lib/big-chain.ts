/**
 * A large regtest chain as a reusable artifact outside the repo (issue 19): coinbase blocks and
 * realistic RingCT transactions (CLSAG + BP+, ring 16, 1–16 inputs, 2–16 outputs, view tags, one
 * additional tx key per output as wallet2 writes for subaddress destinations), built on an in-process
 * node that verifies every block as it is added, at --fixed-difficulty 1. A block's txs are proved at
 * once on worker threads (prove-worker.ts), one per core: Bulletproofs+ proving is most of the cost.
 *
 * With --chain-coinbase-outputs N > 1 every coinbase pays N outputs under one tx key, as P2Pool's
 * coinbases pay their miners on mainnet (hundreds of outputs each): the owner's first, the others to
 * a fixed set of foreign standard addresses. That is how a chain reaches a million outputs without
 * a million outputs' Bulletproofs+ (the tx outputs of a 100,000-block chain took hours to prove).
 *
 * One owner account (fixed keys, written to meta.json) mines every coinbase and funds every tx. Each
 * tx pays its change and about a quarter of its other outputs to the owner's subaddresses
 * (accounts 0–4, minors 1–99, inside monero-wallet-rpc's default lookahead) and the rest to random
 * foreign subaddresses, so a wallet restored from the owner's keys finds a share of the outputs, as
 * a real wallet does, and spends them later.
 *
 * The directory:
 *   chain.bin    the blocks in height order from 1: [u32 LE block length][block blob][u32 tx count]
 *                ([u32 LE length][tx blob])* — what a daemon needs to replay them (send_raw_transaction
 *                of each tx, then submit_block)
 *   meta.json    counts, the top, the owner's keys and the timestamps plan
 *   build/       the builder's node and its owned outputs (to resume; not needed to read the chain)
 *
 * Building is resumable: it checkpoints every 200 blocks and a later run with a higher --blocks
 * continues from the last checkpoint. Timestamps are planned at creation (120 s apart, ending at
 * about the creation time plus the planned blocks), so any prefix of the chain loads into a daemon.
 */
import { appendFileSync, closeSync, existsSync, ftruncateSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { checkFee, isUnlocked, nextBlockContext, requiredFee, txSanityCheck } from "../../src/consensus/index.js";
import type { CryptoBackend } from "../../src/crypto/backend.js";
import { defaultBackend } from "../../src/crypto/index.js";
import { randomScalar } from "../../src/crypto/random.js";
import { commitmentMask, encryptAmount } from "../../src/crypto/ringct/amounts.js";
import { keyImageOf, type RctInputSecret } from "../../src/crypto/ringct/prove.js";
import type { RctSigLike } from "../../src/crypto/ringct/verify.js";
import { openNode } from "../../src/node/chain/index.js";
import type { ChainStore } from "../../src/node/store/chain-store.js";
import { encodeAddress } from "../../src/protocol/address.js";
import { serializeBlock } from "../../src/protocol/block.js";
import { extraTxPubKey, parseTxExtra, serializeTxExtra } from "../../src/protocol/extra.js";
import type { RctSignatures } from "../../src/protocol/rct.js";
import { absoluteToRelativeOffsets, type Bytes, serializeTransaction, type Transaction } from "../../src/protocol/tx.js";
import { txHash } from "../../src/protocol/tx-hash.js";
import { txWeight } from "../../src/protocol/weight.js";
import { SubaddressDeriver } from "../../src/wallet/keys/subaddress.js";
import { blockOn } from "../../test/helpers/node-spend.js";
import { seededRandom } from "../../test/helpers/random.js";
import type { ProveAnswer, ProveRequest } from "./prove-worker.js";

export interface ChainMeta {
  format: 1;
  network: "regtest";
  /** Blocks after genesis held in chain.bin (heights 1..blocks). */
  blocks: number;
  /** Outputs in the chain (coinbase and tx outputs, genesis excluded). */
  outputs: number;
  txs: number;
  /** Inputs of all txs. */
  inputs: number;
  /** Outputs paid to the owner (what a wallet restored from its keys finds). */
  ownedOutputs: number;
  topHash: string;
  /** Bytes of chain.bin that hold the blocks above. */
  bytes: number;
  /** coinbaseOutputs: outputs of each coinbase (absent: 1, a solo miner's). */
  plan: { blocks: number; outputs: number; firstTimestamp: number; coinbaseOutputs?: number };
  owner: { address: string; spendSecretKey: string; viewSecretKey: string; spendPublicKey: string; viewPublicKey: string };
}

interface OwnedJson {
  gi: string;
  key: string;
  amount: string;
  mask: string;
  secret: string;
  height: number;
  coinbase: boolean;
}

interface Owned {
  gi: bigint;
  key: Bytes;
  amount: bigint;
  mask: Bytes;
  secret: Bytes;
  height: number;
  coinbase: boolean;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const unhex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, "hex"));
const ONE = (() => {
  const b = new Uint8Array(32);
  b[0] = 1;
  return b;
})();

/** The owner's fixed keys: spend secret = reduce32(0x42…), view secret = reduce32(0x24…). */
function ownerKeys(be: CryptoBackend): { spendSecret: Bytes; viewSecret: Bytes; spendPublicKey: Bytes; viewPublicKey: Bytes } {
  const spendSecret = be.scReduce32(new Uint8Array(32).fill(0x42));
  const viewSecret = be.scReduce32(new Uint8Array(32).fill(0x24));
  return { spendSecret, viewSecret, spendPublicKey: be.scalarMultBase(spendSecret), viewPublicKey: be.scalarMultBase(viewSecret) };
}

/**
 * Tx shapes and amount splits, drawn from a seeded generator (the tests' mulberry32): a run's shapes
 * follow its seed. Keys, masks and ring members use the system's randomness.
 */
class Shapes {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** Inputs per tx: 1 (50 %), 2 (25 %), 3–4 (15 %), 5–16 (10 %). */
  inputs(): number {
    const p = this.next();
    return p < 0.5 ? 1 : p < 0.75 ? 2 : p < 0.9 ? this.int(3, 4) : this.int(5, 16);
  }
  /** Outputs per tx: 2 (50 %), 3–4 (20 %), 5–8 (15 %), 9–16 (15 %). */
  outputs(): number {
    const p = this.next();
    return p < 0.5 ? 2 : p < 0.7 ? this.int(3, 4) : p < 0.85 ? this.int(5, 8) : this.int(9, 16);
  }
}

/** Worker threads proving txs (bench/lib/prove-worker.ts), one per core: the least busy takes the next. */
class Prover {
  private readonly workers: { w: Worker; busy: number }[] = [];
  private readonly waiting = new Map<number, { resolve: (r: RctSigLike) => void; reject: (e: Error) => void }>();
  private nextId = 0;

  constructor(threads: number) {
    for (let i = 0; i < threads; i++) {
      const w = new Worker(new URL("./prove-worker.js", import.meta.url));
      const slot = { w, busy: 0 };
      w.on("message", (a: ProveAnswer) => {
        slot.busy--;
        const p = this.waiting.get(a.id);
        this.waiting.delete(a.id);
        if ("error" in a) p?.reject(new Error(`prover: ${a.error}`));
        else p?.resolve(a.rct);
      });
      w.on("error", (e) => {
        for (const p of this.waiting.values()) p.reject(e);
        this.waiting.clear();
      });
      this.workers.push(slot);
    }
  }

  prove(req: Omit<ProveRequest, "id">): Promise<RctSigLike> {
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    slot.busy++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      slot.w.postMessage({ id, ...req } satisfies ProveRequest);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.w.terminate()));
  }
}

export function readMeta(dir: string): ChainMeta {
  return JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as ChainMeta;
}

export interface ChainRecord {
  height: number;
  block: Uint8Array;
  txs: Uint8Array[];
}

/** The artifact's blocks from height 1, up to `upTo` (default all). */
export function* readChain(dir: string, upTo = Number.POSITIVE_INFINITY): Generator<ChainRecord> {
  const meta = readMeta(dir);
  const fd = openSync(join(dir, "chain.bin"), "r");
  try {
    const end = meta.bytes;
    let pos = 0;
    const u32 = Buffer.alloc(4);
    const read = (n: number): Buffer => {
      const b = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const r = readSync(fd, b, got, n - got, pos + got);
        if (r === 0) throw new Error(`chain.bin ends at ${pos + got} of ${end}`);
        got += r;
      }
      pos += n;
      return b;
    };
    const len = (): number => {
      read(4).copy(u32);
      return u32.readUInt32LE(0);
    };
    for (let height = 1; pos < end && height <= upTo; height++) {
      const block = read(len());
      const n = len();
      const txs: Uint8Array[] = [];
      for (let i = 0; i < n; i++) txs.push(read(len()));
      yield { height, block, txs };
    }
  } finally {
    closeSync(fd);
  }
}

/** `n` foreign standard addresses' public keys (P2Pool's payees), the same on every run. */
function foreignPayees(be: CryptoBackend, n: number): { spendPublicKey: Bytes; viewPublicKey: Bytes }[] {
  const next = seededRandom(0x9e3779b9);
  const rng = { fill: (b: Uint8Array): void => { for (let i = 0; i < b.length; i++) b[i] = Math.floor(next() * 256); } };
  return Array.from({ length: n }, () => ({ spendPublicKey: be.scalarMultBase(randomScalar(be, rng)), viewPublicKey: be.scalarMultBase(randomScalar(be, rng)) }));
}

/**
 * The template's coinbase re-made to pay `n` outputs under one fresh tx key, as a P2Pool coinbase:
 * output 0 (half the reward and the remainder) to the owner, the others to foreign payees in turn.
 * The sum, the unlock time and the input are the template's; the block weight grows by ~40 bytes
 * per output, far below the 300 kB median, so the reward is the same.
 */
function splitCoinbase(tx: Transaction, owner: { spendPublicKey: Bytes; viewPublicKey: Bytes }, payees: readonly { spendPublicKey: Bytes; viewPublicKey: Bytes }[], height: number, n: number, be: CryptoBackend): Transaction {
  const total = tx.vout.reduce((a, o) => a + o.amount, 0n);
  const share = total / 2n / BigInt(n - 1);
  const r = randomScalar(be);
  const vout: Transaction["vout"] = [];
  for (let i = 0; i < n; i++) {
    const to = i === 0 ? owner : payees[(height * 7 + i) % payees.length];
    const d = be.generateKeyDerivation(to.viewPublicKey, r);
    const key = d && be.derivePublicKey(d, i, to.spendPublicKey);
    if (!d || !key) throw new Error("splitCoinbase: a payee's key is not a point");
    vout.push({ amount: i === 0 ? total - share * BigInt(n - 1) : share, target: { type: "tagged_key", key, viewTag: be.deriveViewTag(d, i) } });
  }
  return { ...tx, vout, extra: Uint8Array.of(0x01, ...be.scalarMultBase(r)) };
}

export interface BuildOptions {
  dir: string;
  /** Build up to this height. */
  blocks: number;
  /** The plan's blocks (first run only; default `blocks`): its timestamps end there, about now. */
  planBlocks?: number;
  /** Outputs planned at the plan's last block (coinbases count `coinbaseOutputs` each; first run only): sets the tx outputs per block. */
  outputs: number;
  /** Outputs of each coinbase, P2Pool-style (first run only; default 1). */
  coinbaseOutputs?: number;
  progress?: (line: string) => void;
}

/**
 * Builds (or continues) the chain in `dir` up to `blocks`. The first run fixes the plan (blocks,
 * outputs, timestamps); a later run may ask for more blocks only as far as the plan's timestamps
 * stay in the past.
 */
export async function buildChain(opts: BuildOptions): Promise<ChainMeta> {
  const be = defaultBackend();
  const say = opts.progress ?? (() => {});
  mkdirSync(join(opts.dir, "build"), { recursive: true });
  const owner = ownerKeys(be);
  const deriver = new SubaddressDeriver({ viewSecretKey: owner.viewSecret, spendPublicKey: owner.spendPublicKey, viewPublicKey: owner.viewPublicKey }, be);
  const metaPath = join(opts.dir, "meta.json");
  let meta: ChainMeta;
  if (existsSync(metaPath)) {
    meta = readMeta(opts.dir);
  } else {
    meta = {
      format: 1,
      network: "regtest",
      blocks: 0,
      outputs: 0,
      txs: 0,
      inputs: 0,
      ownedOutputs: 0,
      topHash: "",
      bytes: 0,
      plan: {
        blocks: opts.planBlocks ?? opts.blocks,
        outputs: opts.outputs,
        firstTimestamp: Math.floor(Date.now() / 1000) - (opts.planBlocks ?? opts.blocks) * 120,
        ...((opts.coinbaseOutputs ?? 1) > 1 ? { coinbaseOutputs: opts.coinbaseOutputs } : {}),
      },
      owner: {
        address: encodeAddress("regtest", "standard", owner.spendPublicKey, owner.viewPublicKey, null, be),
        spendSecretKey: hex(owner.spendSecret),
        viewSecretKey: hex(owner.viewSecret),
        spendPublicKey: hex(owner.spendPublicKey),
        viewPublicKey: hex(owner.viewPublicKey),
      },
    };
  }
  const timeAt = (h: number): number => meta.plan.firstTimestamp + h * 120;
  if (timeAt(opts.blocks) > Date.now() / 1000 + 3600) {
    throw new Error(`the plan's timestamps reach ${opts.blocks} blocks only in the future (planned ${meta.plan.blocks}): start a new directory`);
  }
  let clock = timeAt(Math.max(1, meta.blocks));
  const node = await openNode({ dataDir: join(opts.dir, "build", "node"), network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 2, offline: true });
  const ownedPath = join(opts.dir, "build", "owned.json");
  let owned: Owned[] = existsSync(ownedPath)
    ? (JSON.parse(readFileSync(ownedPath, "utf8")) as OwnedJson[]).map((o) => ({ gi: BigInt(o.gi), key: unhex(o.key), amount: BigInt(o.amount), mask: unhex(o.mask), secret: unhex(o.secret), height: o.height, coinbase: o.coinbase }))
    : [];
  const chainPath = join(opts.dir, "chain.bin");
  const fd = openSync(chainPath, existsSync(chainPath) ? "r+" : "w+");
  const prover = new Prover(availableParallelism());
  try {
    // back to the last checkpoint: the node and chain.bin may hold blocks written after it
    ftruncateSync(fd, meta.bytes);
    if (node.store.height() - 1 > meta.blocks) await node.popBlocks(node.store.height() - 1 - meta.blocks);
    if (node.store.height() - 1 !== meta.blocks) throw new Error(`build/node holds ${node.store.height() - 1} blocks, meta.json ${meta.blocks}: remove the directory`);
    let pos = meta.bytes;
    const append = (chunks: Uint8Array[]): void => {
      for (const c of chunks) {
        writeSync(fd, c, 0, c.length, pos);
        pos += c.length;
      }
    };
    const u32 = (n: number): Uint8Array => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n, 0);
      return b;
    };
    const checkpoint = (): void => {
      fsyncSync(fd);
      const json: OwnedJson[] = owned.map((o) => ({ gi: String(o.gi), key: hex(o.key), amount: String(o.amount), mask: hex(o.mask), secret: hex(o.secret), height: o.height, coinbase: o.coinbase }));
      writeFileSync(`${ownedPath}.tmp`, JSON.stringify(json));
      renameSync(`${ownedPath}.tmp`, ownedPath);
      meta.bytes = pos;
      meta.topHash = hex(node.store.topHash());
      writeFileSync(`${metaPath}.tmp`, `${JSON.stringify(meta, null, 2)}\n`);
      renameSync(`${metaPath}.tmp`, metaPath);
    };

    const shapes = new Shapes(1 + meta.blocks);
    const weights = new Map<string, number>();
    // tx outputs per block after the first firstTxBlock blocks (coinbases only, until enough are unlocked for rings), as planned
    const cbOutputs = meta.plan.coinbaseOutputs ?? 1;
    // with many outputs per coinbase, the last 60 blocks' (locked) outputs are a large share of a
    // short chain and rings could not pass tx_sanity_check (median member in the newest 40 %): the
    // txs start once they are under 6 %
    const firstTxBlock = cbOutputs > 1 ? 1000 : 100;
    const txOutputsPerBlock = Math.max(0, (meta.plan.outputs - meta.plan.blocks * cbOutputs) / Math.max(1, meta.plan.blocks - firstTxBlock));
    const payees = cbOutputs > 1 ? foreignPayees(be, 64) : [];
    let outputDebt = 0;
    const started = Date.now();
    const startHeight = meta.blocks;
    // the in-process node's submitBlock time per window, coinbase-only blocks apart (their cost is
    // what grows with height: weights, medians, difficulty, the store's writes), in apply.tsv
    const applyPath = join(opts.dir, "apply.tsv");
    if (!existsSync(applyPath)) writeFileSync(applyPath, "height\tcoinbase_only_blocks\tms_per_coinbase_only_block\tblocks_with_txs\tms_per_block_with_txs\ttxs\n");
    const apply = { cbN: 0, cbMs: 0, txN: 0, txMs: 0, txs: 0 };

    while (meta.blocks < opts.blocks) {
      const height = meta.blocks + 1; // the block being built
      clock = timeAt(height);
      const txs: { blob: Uint8Array; id: Bytes; mine: { index: number; o: Omit<Owned, "gi" | "height"> }[] }[] = [];
      // what a block could not pay (too few spendable outputs of the owner) carries over a few blocks only
      if (height > firstTxBlock) outputDebt = Math.min(outputDebt + txOutputsPerBlock, 4 * txOutputsPerBlock + 16);
      // unlocked, and not dust (a wallet leaves those): at regtest's fee (~3.5·10⁵ per byte at a 17 XMR reward) 10¹¹ pays a 16-input tx many times
      const spendable = owned.filter((o) => o.amount >= 100_000_000_000n && (o.coinbase ? o.height + 60 <= height - 1 : o.height + 10 <= height - 1));
      const spentNow = new Set<Owned>();
      const fresh = [...spendable];
      // the block's txs are prepared here and proved at once on the prover's threads
      const pending: Promise<Awaited<ReturnType<typeof buildTx>>>[] = [];
      let blockWeight = 0;
      while (outputDebt >= 1 && fresh.length > 0 && blockWeight < 200_000) {
        const m = Math.min(16, Math.max(2, shapes.outputs()));
        const k = Math.min(shapes.inputs(), fresh.length);
        const ins: Owned[] = [];
        for (let i = 0; i < k; i++) ins.push(...fresh.splice(shapes.int(0, fresh.length - 1), 1));
        for (const o of ins) spentNow.add(o);
        pending.push(buildTx(node.store, be, prover, ins, m, shapes, deriver, owner, weights, BigInt(clock)));
        // a shape's weight is known after its first tx; before, about what it will be
        blockWeight += weights.get(`${k}/${m}`) ?? 1500 + 1400 * k + 150 * m;
        meta.inputs += k;
        outputDebt -= m;
      }
      txs.push(...(await Promise.all(pending)));
      const template = blockOn(node, node.store.topHash(), txs.map((t) => t.blob), owner, BigInt(clock), be);
      const block = cbOutputs > 1 ? { ...template, minerTx: splitCoinbase(template.minerTx, owner, payees, height, cbOutputs, be) } : template;
      const blob = serializeBlock(block);
      const a0 = performance.now();
      const r = await node.submitBlock(blob, { txBlobs: txs.map((t) => t.blob) });
      const applyMs = performance.now() - a0;
      if (r.status !== "added") throw new Error(`block ${height}: ${r.message ?? r.status}`);
      if (txs.length === 0) {
        apply.cbN++;
        apply.cbMs += applyMs;
      } else {
        apply.txN++;
        apply.txMs += applyMs;
        apply.txs += txs.length;
      }
      // spent inputs leave the owned set; new outputs join it with their global indices
      owned = owned.filter((o) => !spentNow.has(o));
      const cb = block.minerTx;
      const cbLoc = node.store.txLocation(txHash(cb, be));
      const txPub = extraTxPubKey(parseTxExtra(cb.extra).fields);
      const d = txPub && be.generateKeyDerivation(txPub, owner.viewSecret);
      if (!cbLoc || !d) throw new Error(`coinbase of ${height} not indexed or without a tx key`);
      owned.push({ gi: cbLoc.outputIndices[0], key: (cb.vout[0].target as { key: Bytes }).key, amount: cb.vout[0].amount, mask: ONE, secret: be.deriveSecretKey(d, 0, owner.spendSecret), height, coinbase: true });
      meta.outputs += cb.vout.length;
      meta.ownedOutputs += 1;
      for (const t of txs) {
        const loc = node.store.txLocation(t.id);
        if (!loc) throw new Error(`tx of block ${height} not indexed`);
        for (const { index, o } of t.mine) owned.push({ ...o, gi: loc.outputIndices[index], height });
        meta.outputs += loc.outputIndices.length;
        meta.ownedOutputs += t.mine.length;
      }
      meta.txs += txs.length;
      append([u32(blob.length), blob, u32(txs.length), ...txs.flatMap((t) => [u32(t.blob.length), t.blob])]);
      meta.blocks = height;
      if (height % 200 === 0 || height === opts.blocks) {
        checkpoint();
        const rate = (height - startHeight) / ((Date.now() - started) / 1000);
        const per = (ms: number, n: number): string => (n > 0 ? (ms / n).toFixed(2) : "-");
        appendFileSync(applyPath, `${height}\t${apply.cbN}\t${per(apply.cbMs, apply.cbN)}\t${apply.txN}\t${per(apply.txMs, apply.txN)}\t${apply.txs}\n`);
        say(
          `built ${height} / ${opts.blocks} blocks, ${meta.outputs} outputs, ${meta.txs} txs (${rate.toFixed(1)} blocks/s, ${owned.length} owned unspent; ` +
            `submitBlock ${per(apply.cbMs, apply.cbN)} ms per coinbase-only block, ${per(apply.txMs, apply.txN)} ms per block with txs)`,
        );
        Object.assign(apply, { cbN: 0, cbMs: 0, txN: 0, txMs: 0, txs: 0 });
      }
    }
    checkpoint();
    return meta;
  } finally {
    closeSync(fd);
    await prover.close();
    await node.close();
  }
}

/**
 * Random ring members: unlocked outputs at least 10 blocks deep, distinct, not the real one, drawn
 * towards the recent end as wallets' gamma picker draws them (count·(1 − u³) from the start: half
 * of them in the newest eighth), so rings pass the node's tx_sanity_check on send_raw_transaction.
 */
function decoys(store: ChainStore, real: bigint, n: number, now: bigint, taken: Set<bigint>): bigint[] {
  const hf = store.hardForkVersion(store.height());
  const count = store.outputCount(0n);
  const out = new Set<bigint>();
  for (let tries = 0; out.size < n; tries++) {
    if (tries > 100_000) throw new Error(`only ${out.size} decoys found for ${n}`);
    const i = BigInt(Math.min(Number(count) - 1, Math.floor(Number(count) * (1 - Math.random() ** 3))));
    if (i === real || out.has(i) || taken.has(i)) continue;
    const o = store.output(0n, i);
    if (!o || o.height + 10 > store.height() || !isUnlocked(o.unlockTime, store, hf, now)) continue;
    out.add(i);
  }
  return [...out];
}

/** One signed type-6 tx spending `ins` to `m` outputs (change first, then owner and foreign). */
async function buildTx(
  store: ChainStore,
  be: CryptoBackend,
  prover: Prover,
  ins: Owned[],
  m: number,
  shapes: Shapes,
  deriver: SubaddressDeriver,
  owner: { spendSecret: Bytes },
  weights: Map<string, number>,
  now: bigint,
): Promise<{ blob: Uint8Array; id: Bytes; weight: number; mine: { index: number; o: Omit<Owned, "gi" | "height"> }[] }> {
  const taken = new Set(ins.map((o) => o.gi));
  // rings drawn again until the tx passes tx_sanity_check (median ring member in the newest 40 %):
  // a daemon refuses it from send_raw_transaction otherwise, though not inside a block
  let rings: bigint[][] = [];
  for (let tries = 0; ; tries++) {
    rings = ins.map((o) => [...decoys(store, o.gi, 15, now, taken), o.gi].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const vin = rings.map((r) => ({ type: "key" as const, amount: 0n, keyOffsets: absoluteToRelativeOffsets(r), keyImage: new Uint8Array(32) }));
    if (txSanityCheck({ vin } as unknown as Transaction, store.outputCount(0n)) === undefined) break;
    if (tries === 100) throw new Error("no rings passing tx_sanity_check in 100 draws");
  }
  const inputs = ins.map((o, k) => {
    const indices = rings[k];
    const ring = indices.map((i) => {
      const s = store.output(0n, i);
      if (!s) throw new Error(`no output ${i}`);
      return { dest: s.key, mask: s.commitment };
    });
    const secret: RctInputSecret = { ring, realIndex: indices.indexOf(o.gi), secretKey: o.secret, mask: o.mask, amount: o.amount };
    return { secret, indices };
  });
  // wallet2 sorts inputs by key image, descending (check_tx_inputs_keyimages_sorted)
  const withKi = inputs.map((input) => ({ input, ki: keyImageOf(be, input.secret) })).sort((a, b) => Buffer.compare(b.ki, a.ki));
  const sumIn = ins.reduce((s, o) => s + o.amount, 0n);
  const ctx = nextBlockContext(store, { fixedDifficulty: 1n });
  const feeCtx = { version: ctx.hfVersion, effectiveMedian: ctx.limits.effectiveMedian, longTermEffectiveMedian: ctx.limits.longTermEffectiveMedian, alreadyGeneratedCoins: ctx.alreadyGeneratedCoins };
  const shape = `${ins.length}/${m}`;
  let fee = requiredFee(weights.get(shape) ?? 1500 + 700 * ins.length + 100 * m, feeCtx);
  // destinations: index 0 is the change (owner), then a quarter to the owner, the rest foreign
  const dests = Array.from({ length: m }, (_, i) => {
    const mine = i === 0 || shapes.next() < 0.25;
    if (mine) {
      const major = shapes.int(0, 4);
      const minor = shapes.int(1, 99);
      const pub = deriver.publicKeys(major, minor);
      return { mine: true, major, minor, D: pub.spendPublicKey, C: pub.viewPublicKey };
    }
    const D = be.scalarMultBase(randomScalar(be));
    const C = be.scalarMultBase(randomScalar(be));
    return { mine: false, major: 0, minor: 0, D, C };
  });
  const rs = dests.map(() => randomScalar(be));
  const derivations = dests.map((d, i) => {
    const x = be.generateKeyDerivation(d.C, rs[i]);
    if (!x) throw new Error("bad destination view key");
    return x;
  });
  const extra = serializeTxExtra([
    { type: "pubkey", key: be.scalarMultBase(randomScalar(be)) },
    {
      type: "additional_pubkeys",
      keys: dests.map((d, i) => {
        const R = be.scalarMult(rs[i], d.D);
        if (!R) throw new Error("bad destination spend key");
        return R;
      }),
    },
  ]);
  const build = async (fee: bigint): Promise<{ tx: Transaction; amounts: bigint[] }> => {
    if (sumIn <= fee + BigInt(m)) throw new Error(`inputs ${sumIn} too small for the fee ${fee}`);
    // random split of sumIn − fee into m positive parts
    // half of sumIn − fee in equal parts, the other half split at random: no part below 1/(2m)
    const total = sumIn - fee;
    const base = total / 2n / BigInt(m);
    const rest = total - base * BigInt(m);
    const cuts = Array.from({ length: m - 1 }, () => BigInt(Math.floor(shapes.next() * 2 ** 52))).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const amounts: bigint[] = [];
    let prev = 0n;
    for (const c of [...cuts, 2n ** 52n]) {
      const at = (rest * c) / 2n ** 52n;
      amounts.push(base + at - prev);
      prev = at;
    }
    const prefix: Transaction = {
      version: 2,
      unlockTime: 0n,
      vin: withKi.map(({ input, ki }) => ({ type: "key" as const, amount: 0n, keyOffsets: absoluteToRelativeOffsets(input.indices), keyImage: ki })),
      vout: dests.map((d, i) => {
        const key = be.derivePublicKey(derivations[i], i, d.D);
        if (!key) throw new Error("bad spend key");
        return { amount: 0n, target: { type: "tagged_key" as const, key, viewTag: be.deriveViewTag(derivations[i], i) } };
      }),
      extra,
      signatures: [],
      pruned: false,
    };
    const outputs = amounts.map((amount, i) => {
      const shared = be.derivationToScalar(derivations[i], i);
      return { amount, mask: commitmentMask(be, shared), encryptedAmount: encryptAmount(be, shared, amount) };
    });
    const rct = await prover.prove({ prefix, inputs: withKi.map((x) => x.input.secret), outputs, fee });
    return { tx: { ...prefix, rct: rct as RctSignatures }, amounts };
  };
  let built = await build(fee);
  let w = txWeight(built.tx);
  weights.set(shape, w);
  if (!(checkFee(w, fee, feeCtx) && fee === requiredFee(w, feeCtx))) {
    fee = requiredFee(w, feeCtx);
    built = await build(fee);
    w = txWeight(built.tx);
  }
  const blob = serializeTransaction(built.tx);
  const mine: { index: number; o: Omit<Owned, "gi" | "height"> }[] = [];
  for (const [i, d] of dests.entries()) {
    if (!d.mine) continue;
    const m = deriver.secretKey(d.major, d.minor);
    const x = be.scAdd(be.deriveSecretKey(derivations[i], i, owner.spendSecret), m);
    const shared = be.derivationToScalar(derivations[i], i);
    mine.push({ index: i, o: { key: (built.tx.vout[i].target as { key: Bytes }).key, amount: built.amounts[i], mask: commitmentMask(be, shared), secret: x, coinbase: false } });
  }
  return { blob, id: txHash(built.tx, be), weight: w, mine };
}
