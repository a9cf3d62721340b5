/**
 * Decoy selection for one transaction, as wallet2::get_outs does it at v0.18 for RingCT outputs:
 *
 * 1. the RingCT output distribution (a `DistributionCache`, refreshed incrementally);
 * 2. per real output, (ring size · 1.5 + 1) + 50 candidate indices (the 50 make up for coinbase
 *    outputs that are still locked): the real one, then distinct gamma picks among the outputs of
 *    blocks at least 10 below the tip, sorted, so the node cannot tell the real one;
 * 3. one /get_outs.bin for all candidates (chunks of 1000), the real output's key and commitment
 *    checked against the answer ("Daemon response did not include the requested real output");
 * 4. per real output, candidates in random order, keeping unlocked ones that are not the real
 *    one, not a duplicate and whose key and commitment are in the prime-order subgroup, until
 *    the ring is full; the ring sorted by global index;
 * 5. wallet2's tx_sanity_check over all rings (enough distinct indices, a recent enough median
 *    once the chain has 10,000 outputs), up to three draws.
 *
 * Not done (wallet2 does): pre-RingCT outputs (the histogram and triangular picks), the ring
 * database (reusing the ring an output was once spent with on another chain) and the blackball
 * list; the pre/post-fork segregation is off in v0.18 on every network, so it is left out.
 */
import type { NodeApi } from "../../client/node-client.js";
import type { CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { type RandomSource, systemRandom } from "../../crypto/random.js";
import type { GetOutputsOut, OutKey } from "../../protocol/rpc-bin.js";
import { inMainSubgroup } from "../../crypto/ringct/scalar.js";
import { nodeFailure, WalletError } from "../errors.js";
import { DistributionCache, type RctDistribution } from "./distribution.js";
import { DEFAULT_TX_SPENDABLE_AGE, GammaPicker, GammaPickerError, MINED_MONEY_UNLOCK_WINDOW } from "./gamma-picker.js";
import { RandomDraw } from "./random-draw.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export { DistributionCache } from "./distribution.js";

/** monero-wallet-rpc's messages for the failures of decoy selection, verbatim. */
export const DecoyMessages = {
  /** error::not_enough_outs_to_mix, as wallet_rpc_server::handle_rpc_exception words it (code −19). */
  notEnoughOuts: "not enough outputs to use Please use sweep_dust.",
  /** error::get_output_distribution (code −4). */
  distribution: "failed to get output distribution",
  /** error::get_outs_error (code −4). */
  getOuts: "failed to get random outs",
  realMissing: "Daemon response did not include the requested real output",
  sanity: "Transaction sanity check failed",
} as const;

export interface RingMember {
  globalIndex: bigint;
  key: Uint8Array;
  /** The output's commitment on chain. */
  mask: Uint8Array;
}

export interface Ring {
  /** Ascending global index. */
  members: RingMember[];
  /** Position of the real output in `members`. */
  realIndex: number;
}

export interface RealOutput {
  /** Global index among RingCT (amount 0) outputs. */
  globalIndex: bigint;
  key: Uint8Array;
  /** Its on-chain commitment (zeroCommit(amount) for a coinbase output). */
  mask: Uint8Array;
  /** Height of the block holding it (used in error explanations). */
  blockHeight: number;
}

export interface PickRingsOptions {
  /** Randomness for every draw (default: the OS CSPRNG). */
  rng?: RandomSource;
  /** Keep one per wallet and node so consecutive transfers only fetch the newest blocks. */
  cache?: DistributionCache;
  /** For the subgroup checks of decoy keys and commitments. */
  backend?: CryptoBackend;
  /** The distribution already refreshed for this request (one refresh per transfer, not per input). */
  distribution?: Promise<RctDistribution> | RctDistribution;
  /** Keys already found in the prime-order subgroup (wallet2's valid_public_keys_cache); shared across calls when given. */
  validKeys?: Set<string>;
}

/** Gamma draws allowed per real output before giving up (a chain on which almost every draw misses). */
const MAX_PICKS_PER_OUTPUT = 2_000_000;
/** Draws in a row that found no new candidate after which the candidates are taken as all there are. */
const MAX_DRAWS_WITHOUT_NEW = 100_000;
const GET_OUTS_CHUNK = 1000;

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

function generic(message: string, why: string): WalletError {
  return new WalletError("transfer-failed", message, new Error(why));
}

/** wallet2's candidate count per RingCT input: base_requested_outputs_count + unlock window allowance. */
export function requestedOutputsCount(ringSize: number): number {
  return Math.floor(ringSize * 1.5 + 1) + MINED_MONEY_UNLOCK_WINDOW - DEFAULT_TX_SPENDABLE_AGE;
}

/**
 * wallet2::get_outs for one transaction: one ring per real output, each of `ringSize` members,
 * sorted by global index, the real output at `realIndex`.
 *
 * Throws WalletError with monero-wallet-rpc's message: "not-enough-outs" (−19) when the chain has
 * too few usable outputs for the ring size, "transfer-failed" (−4) for a distribution or get_outs
 * failure, a node that answers a wrong key or commitment for the real output, or three rings
 * failing the sanity check; "no-daemon" / "daemon-busy" (−38 / −3) when the node is unreachable /
 * busy during get_outs. `cause` says exactly why.
 */
export async function pickRings(node: NodeApi, reals: readonly RealOutput[], ringSize: number, opts: PickRingsOptions = {}): Promise<Ring[]> {
  if (!Number.isSafeInteger(ringSize) || ringSize < 1) throw new RangeError(`ring size must be a positive integer, got ${ringSize}`);
  if (reals.length === 0) return [];
  if (ringSize === 1) return reals.map((r) => ({ members: [{ globalIndex: r.globalIndex, key: r.key, mask: r.mask }], realIndex: 0 }));
  for (const r of reals) {
    if (r.globalIndex < 0n || r.globalIndex > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`real output index out of range: ${r.globalIndex}`);
    if (r.key.length !== 32 || r.mask.length !== 32) throw new RangeError(`real output ${r.globalIndex}: key and commitment must be 32 bytes`);
  }
  const draw = new RandomDraw(opts.rng ?? systemRandom);
  const cache = opts.cache ?? new DistributionCache();
  const be = opts.backend ?? defaultBackend();
  const validKeys = opts.validKeys ?? new Set<string>();

  let offsets: readonly number[];
  try {
    offsets = (await (opts.distribution ?? cache.refresh(node))).offsets;
  } catch (e) {
    // wallet2::get_rct_distribution swallows every failure into this one error
    throw generic(DecoyMessages.distribution, `the node did not give the RingCT output distribution: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (offsets.length <= DEFAULT_TX_SPENDABLE_AGE)
    throw generic(
      DecoyMessages.distribution,
      `Not enough rct outputs: the chain has ${offsets.length} blocks of RingCT outputs and decoys come only from blocks at least ${DEFAULT_TX_SPENDABLE_AGE} deep; mine or wait for more blocks`,
    );
  const total = offsets[offsets.length - 1];
  const maxReal = reals.reduce((m, r) => (r.globalIndex > m ? r.globalIndex : m), 0n);
  if (BigInt(total) <= maxReal)
    throw generic(DecoyMessages.distribution, `Daemon reports suspicious number of rct outputs: ${total}, but output ${maxReal} is being spent; is the node synced?`);

  // wallet2::get_outs(…, bool rct, …): up to three draws until the rings pass tx_sanity_check
  for (let attempt = 0; attempt < 3; attempt++) {
    const rings = await drawRings(node, reals, ringSize, offsets, draw, be, validKeys);
    if (saneRings(rings, total)) return rings;
  }
  throw generic(DecoyMessages.sanity, "three draws of rings gave too few distinct members or too old a median member; the node's distribution may be wrong");
}

async function drawRings(
  node: NodeApi,
  reals: readonly RealOutput[],
  ringSize: number,
  offsets: readonly number[],
  draw: RandomDraw,
  be: CryptoBackend,
  validKeys: Set<string>,
): Promise<Ring[]> {
  let picker: GammaPicker;
  try {
    picker = new GammaPicker(offsets, draw);
  } catch (e) {
    if (e instanceof GammaPickerError) throw generic(e.message, `no RingCT output is old enough to be a decoy yet: ${e.message}`);
    throw e;
  }
  // the first output of the first block still locked by the 10-block rule
  const numOuts = offsets[offsets.length - DEFAULT_TX_SPENDABLE_AGE];
  const requested = requestedOutputsCount(ringSize);

  const req: GetOutputsOut[] = [];
  for (const real of reals) {
    const idx = candidates(Number(real.globalIndex), numOuts, requested, picker);
    idx.sort((a, b) => a - b);
    for (const i of idx) req.push({ amount: 0n, index: BigInt(i) });
  }

  const outs: OutKey[] = [];
  for (let off = 0; off < req.length; off += GET_OUTS_CHUNK) {
    const chunk = req.slice(off, off + GET_OUTS_CHUNK);
    let res: { outs: OutKey[] };
    try {
      res = await node.getOutsBin(chunk, false);
    } catch (e) {
      const node = nodeFailure(e);
      if (node) throw node;
      throw generic(DecoyMessages.getOuts, `/get_outs.bin failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (res.outs.length !== chunk.length)
      throw generic(
        `daemon returned wrong response for get_outs.bin, wrong amounts count = ${res.outs.length}, expected ${chunk.length}`,
        "the node answered a different number of outputs than asked for",
      );
    for (const o of res.outs) outs.push(o);
  }

  const rings: Ring[] = [];
  const scanty: string[] = [];
  reals.forEach((real, k) => {
    const base = k * requested;
    let found = false;
    for (let n = 0; n < requested; n++) {
      const o = outs[base + n];
      if (req[base + n].index === real.globalIndex && same(o.key, real.key) && same(o.mask, real.mask) && o.unlocked) found = true;
    }
    if (!found)
      throw generic(
        DecoyMessages.realMissing,
        `output ${real.globalIndex} (block ${real.blockHeight}) is not among the node's unlocked outputs with the key and commitment the wallet holds: ` +
          `it may still be locked, or the node is on another chain or lying`,
      );
    const members: RingMember[] = [{ globalIndex: real.globalIndex, key: real.key, mask: real.mask }];
    const order = draw.shuffle(Array.from({ length: requested }, (_, n) => n));
    for (let o = 0; o < requested && members.length < ringSize; o++) {
      const i = base + order[o];
      addDecoy(members, req[i].index, outs[i], real.globalIndex, be, validKeys);
    }
    if (members.length < ringSize) {
      scanty.push(`output ${real.globalIndex}: ${members.length} usable of ${ringSize}`);
      return;
    }
    members.sort((a, b) => (a.globalIndex < b.globalIndex ? -1 : a.globalIndex > b.globalIndex ? 1 : 0));
    rings.push({ members, realIndex: members.findIndex((m) => m.globalIndex === real.globalIndex) });
  });
  if (scanty.length > 0)
    throw new WalletError(
      "not-enough-outs",
      DecoyMessages.notEnoughOuts,
      new Error(
        `not enough unlocked outputs on the chain for ring size ${ringSize} (${scanty.join("; ")}); ` +
          `${numOuts} RingCT outputs are spendable now: wait for more blocks or use a smaller ring size where the network allows it`,
      ),
    );
  return rings;
}

/** The indices to ask the node about for one real output (the real one among them). */
function candidates(real: number, numOuts: number, requested: number, picker: GammaPicker): number[] {
  const idx: number[] = [];
  if (numOuts <= requested) {
    // just enough outputs on the chain: all of them, padded with the last (caught after get_outs)
    for (let i = 0; i < numOuts; i++) idx.push(i);
    for (let i = numOuts; i < requested; i++) idx.push(numOuts - 1);
    return idx;
  }
  const seen = new Set<number>([real]);
  idx.push(real);
  // wallet2 would loop for ever when fewer distinct outputs can be picked than it wants: stop there
  let pickableSeen = real < picker.numRctOutputs ? 1 : 0;
  let tries = 0;
  // the picker may never reach some of its outputs (the newest block's, when the chain is short):
  // as many draws as a whole search would need without a new candidate means there are no more
  let sinceNew = 0;
  while (idx.length < requested && pickableSeen < picker.numRctOutputs && sinceNew < MAX_DRAWS_WITHOUT_NEW) {
    if (++tries > MAX_PICKS_PER_OUTPUT)
      throw generic(DecoyMessages.getOuts, `${MAX_PICKS_PER_OUTPUT} gamma draws found only ${idx.length - 1} decoy candidates; the output distribution looks wrong`);
    sinceNew++;
    const i = picker.pick();
    if (i === null || i >= numOuts || seen.has(i)) continue;
    sinceNew = 0;
    seen.add(i);
    idx.push(i);
    if (i < picker.numRctOutputs) pickableSeen++;
  }
  // wallet2 stuffs with output 0 to keep the counts; such a ring comes out short (−19)
  while (idx.length < requested) idx.push(0);
  return idx;
}

// wallet2::tx_add_fake_output
function addDecoy(members: RingMember[], index: bigint, o: OutKey, real: bigint, be: CryptoBackend, validKeys: Set<string>): void {
  if (!o.unlocked || index === real) return;
  if (members.some((m) => m.globalIndex === index && same(m.key, o.key) && same(m.mask, o.mask))) return;
  const k = hex(o.key);
  if (!validKeys.has(k)) {
    if (!inMainSubgroup(be, o.key)) return;
    validKeys.add(k);
  }
  const c = hex(o.mask);
  if (!validKeys.has(c)) {
    if (!inMainSubgroup(be, o.mask)) return;
    validKeys.add(c);
  }
  members.push({ globalIndex: index, key: Uint8Array.from(o.key), mask: Uint8Array.from(o.mask) });
}

/** cryptonote::tx_sanity_check over the rings' RingCT indices. */
export function saneRings(rings: readonly Ring[], rctOutsAvailable: number): boolean {
  let n = 0;
  const unique = new Set<bigint>();
  for (const r of rings)
    for (const m of r.members) {
      unique.add(m.globalIndex);
      n++;
    }
  if (n <= 10 || rctOutsAvailable < 10000) return true;
  if (unique.size < Math.floor((n * 8) / 10)) return false;
  const sorted = [...unique].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const h = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2n;
  return median >= BigInt(Math.floor((rctOutsAvailable * 6) / 10));
}
