/**
 * Spending from one wallet over a node: plans with wallet2's rules (select.ts), draws rings
 * (decoys.ts), builds and proves (construct.ts), and commits (wallet2::commit_tx: send_raw_transaction,
 * then add_unconfirmed_tx and the key images marked spent). The caller runs every call here with the
 * ledger held still (OpenWallet.spend), so no refresh moves the transfers while a plan refers to them.
 */
import type { NodeApi } from "../../client/node-client.js";
import type { Bytes } from "../../crypto/backend.js";
import { type RandomSource, randomScalar, systemRandom } from "../../crypto/random.js";
import { commit } from "../../crypto/ringct/amounts.js";
import type { TransferDetails } from "../ledger/ledger.js";
import { constructTx, type ConstructedTx, type Destination, type DestinationKeys, type Source } from "./construct.js";
import { DistributionCache, pickRings, type Ring } from "./decoys.js";
import type { RctDistribution } from "./distribution.js";
import { SendError } from "./errors.js";
import { encryptedPaymentIdFromNonce, parseTxExtra, paymentIdFromNonce } from "../../protocol/extra.js";
import type { ColdContext } from "../cold/context.js";
import { BP_VERSION_PLUS, type PendingTxRecord, RANGE_PROOF_PADDED_BULLETPROOF, type TxConstructionData, type TxDestinationEntry, type TxSourceEntry } from "../cold/formats.js";
import { buildMultisigTx, finalizeMultisigTx } from "../multisig/tx-builder.js";
import { type MultisigOutput, type MultisigSigner, proposalRecord, proposeAttempts, signingAttempts } from "../multisig/txset.js";
import { MultisigError } from "../multisig/kex-msg.js";
import { serializeTransaction } from "../../protocol/tx.js";
import { txWeight } from "../../protocol/weight.js";
import { txHash } from "../../protocol/tx-hash.js";
import { encodeAddress } from "../../protocol/address.js";
import { RandomDraw } from "./random-draw.js";
import { adjustMixin, baseFeeFor, FEE_ESTIMATE_GRACE_BLOCKS, type FeeEstimate } from "./fee.js";
import { fractionalThreshold, type PlanContext, type PlannedTx, planSweep, planTransfer } from "./select.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

/** What a spend needs from the open wallet. */
export interface SpendContext extends ColdContext {
  /** A spend always has a node (get_outs, the fee estimate, send_raw_transaction). */
  readonly node: NodeApi;
  /** A multisig wallet's spends become multisig tx sets. */
  readonly multisig?: MultisigSpend;
}

/** What a multisig proposal needs of the wallet. */
export interface MultisigSpend {
  readonly signer: MultisigSigner;
  /** The output of transfer i with its full key image and the others' L/R pairs; null while only partial. */
  output(i: number): MultisigOutput | null;
  /** Whether transfer i's full key image is known (wallet2: !m_key_image_partial); only those are spent. */
  keyImageKnown(i: number): boolean;
}

/** wallet2::pending_tx, as far as the RPC answers and the ledger need it. */
export interface PendingTx {
  txid: string;
  blob: Bytes;
  txKey: Bytes;
  additionalTxKeys: Bytes[];
  fee: bigint;
  /** Sum of the destinations (change excluded): the `amount` of transfer's answer. */
  amount: bigint;
  amountsByDest: bigint[];
  weight: number;
  /** Key images in input order. */
  keyImages: string[];
  /** The ledger transfers spent, in input order. */
  selected: number[];
  /** The user's destinations (change and dummy excluded). */
  dests: { amount: bigint; address: string }[];
  /** Those destinations that are this wallet's own subaddresses. */
  selfDests: { major: number; minor: number; amount: bigint }[];
  change: bigint;
  account: number;
  subaddrIndices: number[];
  /** 64 hex chars (the 8-byte id decrypted, zeros after it), zeros when none. */
  paymentId: string;
  unlockTime: bigint;
  /**
   * A view-only wallet's tx: what the signing wallet needs to build it (wallet2's
   * tx_construction_data); `blob` is then the unsigned draft and `txid` its hash, not the final id.
   */
  construction?: TxConstructionData;
  /** A multisig wallet's tx: its pending_tx for the multisig set (txid is then ""). */
  multisig?: PendingTxRecord;
}

export interface SendOptions {
  priority: number;
  ringSize: number;
  unlockTime: bigint;
  /** Extra bytes from validate_transfer (the integrated address's payment id nonce). */
  extra: Bytes;
  rng?: RandomSource;
}

export interface UserDestination extends DestinationKeys {
  amount: bigint;
  address: string;
}

/**
 * Per node: one RingCT distribution cache (consecutive transfers fetch only the newest blocks) and
 * the keys already found in the prime-order subgroup (wallet2's valid_public_keys_cache).
 */
const perNode = new WeakMap<NodeApi, { cache: DistributionCache; validKeys: Set<string> }>();
function nodeState(node: NodeApi): { cache: DistributionCache; validKeys: Set<string> } {
  let c = perNode.get(node);
  if (!c) perNode.set(node, (c = { cache: new DistributionCache(), validKeys: new Set() }));
  if (c.validKeys.size > 1_000_000) c.validKeys.clear(); // bounded: a long-lived service must not grow it for ever
  return c;
}

async function feeEstimate(node: NodeApi): Promise<FeeEstimate> {
  const r = await node.getFeeEstimate(FEE_ESTIMATE_GRACE_BLOCKS);
  return { fee: r.fee, fees: r.fees, quantizationMask: r.quantization_mask };
}

/** Builds the transactions of one request; nothing is sent or recorded. */
export class Sender {
  private readonly rings = new Map<number, Ring>();
  private readonly rng: RandomSource;
  /** The distribution, refreshed once per request (started with the fee estimate). */
  private distribution: Promise<RctDistribution> | null = null;

  constructor(
    private readonly w: SpendContext,
    private readonly o: SendOptions,
  ) {
    this.rng = o.rng ?? systemRandom;
  }

  /** A view-only wallet plans and draws rings as any other, then hands the signing to the full wallet. */
  private get watchOnly(): boolean {
    return !this.w.keys.spendSecretKey;
  }

  private spendable(i: number): boolean {
    const t = this.w.ledger.state.transfers[i];
    // a multisig wallet's output with only a partial key image is not a candidate (create_transactions_2)
    if (this.w.multisig && !this.w.multisig.keyImageKnown(i)) return false;
    return !t.spent && !t.frozen && t.keyImage !== "" && t.globalIndex >= 0n && t.rct && this.w.ledger.isUnlocked(t.unlockTime, t.blockHeight, this.w.now);
  }

  private distributionOnce(): Promise<RctDistribution> {
    if (!this.distribution) {
      const p = nodeState(this.w.node).cache.refresh(this.w.node);
      p.catch(() => undefined); // awaited (and reported) where the rings are drawn
      this.distribution = p;
    }
    return this.distribution;
  }

  private async context(account: number): Promise<PlanContext> {
    this.distributionOnce(); // in parallel with the fee estimate
    const est = await feeEstimate(this.w.node);
    const baseFee = baseFeeFor(this.o.priority, est);
    const rows = this.w.ledger.subaddressBalances(account, this.w.now);
    return {
      transfers: this.w.ledger.state.transfers,
      spendable: (i) => this.spendable(i),
      mixin: adjustMixin(this.o.ringSize),
      baseFee,
      quantizationMask: est.quantizationMask,
      extraSize: this.o.extra.length,
      rng: this.rng,
      unlockedBalance: rows.reduce((s, r) => s + r.unlockedBalance, 0n),
      trial: (dsts, selected, fee) => this.trial(account, dsts, selected, fee),
    };
  }

  /** Rings for these transfers: drawn once per transfer for the whole request (wallet2 draws per attempt). */
  private async ringsFor(selected: readonly number[], mixin: number): Promise<Ring[]> {
    const missing = selected.filter((i) => !this.rings.has(i));
    if (missing.length > 0) {
      const t = this.w.ledger.state.transfers;
      const reals = missing.map((i) => ({
        globalIndex: t[i].globalIndex,
        key: unhex(t[i].publicKey),
        mask: this.commitmentOf(t[i]),
        blockHeight: t[i].blockHeight,
      }));
      const st = nodeState(this.w.node);
      const drawn = await pickRings(this.w.node, reals, mixin + 1, { rng: this.rng, cache: st.cache, distribution: this.distributionOnce(), validKeys: st.validKeys, backend: this.w.backend });
      missing.forEach((i, k) => this.rings.set(i, drawn[k]));
    }
    return selected.map((i) => this.rings.get(i) as Ring);
  }

  private commitmentOf(t: TransferDetails): Bytes {
    return commit(this.w.backend, t.amount, unhex(t.mask));
  }

  /** The change destination (subaddress {account, 0}) or a dummy 0-amount one, as transfer_selected_rct adds. */
  private changeOrDummy(account: number, dsts: readonly Destination[], change: bigint): { all: Destination[]; changeAddress: DestinationKeys | null } {
    if (change > 0n) {
      const k = this.w.deriver.publicKeys(account, 0);
      const ch: Destination = { spendPublicKey: k.spendPublicKey, viewPublicKey: k.viewPublicKey, isSubaddress: account !== 0, amount: change, original: "" };
      return { all: [...dsts, ch], changeAddress: ch };
    }
    if (dsts.length === 1) {
      const b = this.w.backend;
      const dummy: Destination = {
        spendPublicKey: b.scalarMultBase(randomScalar(b, this.rng)),
        viewPublicKey: b.scalarMultBase(randomScalar(b, this.rng)),
        isSubaddress: false,
        amount: 0n,
        original: "",
      };
      // wallet2 passes change_dts.addr (the dummy) as the change address too
      return { all: [...dsts, dummy], changeAddress: dummy };
    }
    // no change: wallet2 still names {account, 0} as the change address
    const k = this.w.deriver.publicKeys(account, 0);
    return { all: [...dsts], changeAddress: { spendPublicKey: k.spendPublicKey, viewPublicKey: k.viewPublicKey, isSubaddress: account !== 0 } };
  }

  private sources(selected: readonly number[], rings: readonly Ring[], withSecrets: boolean): Source[] {
    const t = this.w.ledger.state.transfers;
    return selected.map((i, k) => {
      const td = t[i];
      const ring = rings[k];
      const member = ring.members[ring.realIndex];
      if (member.globalIndex !== td.globalIndex || hex(member.key) !== td.publicKey) {
        throw new SendError("internal", "Daemon returned wrong response for an output: its key differs from the wallet's record");
      }
      return {
        amount: td.amount,
        ring: ring.members.map((m) => ({ globalIndex: m.globalIndex, key: m.key, mask: m.mask })),
        realIndex: ring.realIndex,
        secretKey: withSecrets ? this.secretKeyOf(td) : new Uint8Array(32),
        mask: unhex(td.mask),
        keyImage: unhex(td.keyImage),
        tag: i,
      };
    });
  }

  /** x = Hs(a·R ‖ i) + b (+ m for a subaddress): generate_key_image_helper. */
  private secretKeyOf(td: TransferDetails): Bytes {
    const b = this.w.backend;
    const spend = this.w.keys.spendSecretKey;
    if (!spend) throw new SendError("watch_only", "This wallet is watch-only and cannot sign transactions");
    if (!td.txPubKey) throw new SendError("internal", `the wallet's record of output ${td.txid}:${td.internalIndex} predates sending; rescan_blockchain once to spend it`);
    const derivation = b.generateKeyDerivation(unhex(td.txPubKey), this.w.keys.viewSecretKey);
    if (!derivation) throw new SendError("internal", `bad tx public key on output ${td.txid}:${td.internalIndex}`);
    let x = b.deriveSecretKey(derivation, td.internalIndex, spend);
    if (td.subaddress.major !== 0 || td.subaddress.minor !== 0) x = b.scAdd(x, this.w.deriver.secretKey(td.subaddress.major, td.subaddress.minor));
    if (hex(b.scalarMultBase(x)) !== td.publicKey) throw new SendError("internal", `derived secret key does not open output ${td.txid}:${td.internalIndex}`);
    return x;
  }

  private async trial(account: number, dsts: readonly Destination[], selected: readonly number[], fee: bigint): Promise<{ weight: number; change: bigint }> {
    const t = this.w.ledger.state.transfers;
    const found = selected.reduce((s, i) => s + t[i].amount, 0n);
    const needed = dsts.reduce((s, d) => s + d.amount, fee);
    if (found < needed) throw new SendError("not_enough_unlocked_money", "not enough unlocked money", { available: found, needed: needed - fee, fee });
    const rings = await this.ringsFor(selected, adjustMixin(this.o.ringSize));
    const change = found - needed;
    const { all, changeAddress } = this.changeOrDummy(account, dsts, change);
    const tx = constructTx(this.w.backend, {
      sources: this.sources(selected, rings, false),
      destinations: all,
      changeAddress,
      viewSecretKey: this.w.keys.viewSecretKey,
      extra: this.o.extra,
      unlockTime: this.o.unlockTime,
      fee,
      shapeOnly: true,
    }, this.rng);
    return { weight: tx.weight, change };
  }

  /** Builds the planned transactions for real (proofs and signatures). */
  private async build(account: number, plans: readonly PlannedTx[], userDests: (d: Destination) => string): Promise<PendingTx[]> {
    if (this.w.multisig) return this.buildMultisig(this.w.multisig, account, plans, userDests);
    const out: PendingTx[] = [];
    for (const p of plans) {
      const rings = await this.ringsFor(p.selected, adjustMixin(this.o.ringSize));
      const { all, changeAddress } = this.changeOrDummy(account, p.dsts, p.change);
      const tx: ConstructedTx = constructTx(this.w.backend, {
        sources: this.sources(p.selected, rings, !this.watchOnly),
        destinations: all,
        changeAddress,
        viewSecretKey: this.w.keys.viewSecretKey,
        extra: this.o.extra,
        unlockTime: this.o.unlockTime,
        fee: p.fee,
        shapeOnly: this.watchOnly,
      }, this.rng);
      const t = this.w.ledger.state.transfers;
      const construction = this.watchOnly ? this.constructionData(account, p, rings, all, changeAddress) : undefined;
      out.push({
        // a view-only wallet's draft has no signatures: its hash names the draft only
        txid: construction ? hex(this.w.backend.keccak256(tx.blob)) : hex(tx.txid),
        blob: tx.blob,
        txKey: tx.txKey,
        additionalTxKeys: tx.additionalTxKeys,
        fee: p.fee,
        amount: p.dsts.reduce((s, d) => s + d.amount, 0n),
        amountsByDest: p.dsts.map((d) => d.amount),
        weight: tx.weight,
        keyImages: tx.keyImages.map(hex),
        selected: tx.sources.map((s) => s.tag),
        dests: p.dsts.map((d) => ({ amount: d.amount, address: userDests(d) })),
        selfDests: selfDestinations(this.w, p.dsts),
        change: p.change,
        account,
        subaddrIndices: [...new Set(p.selected.map((i) => t[i].subaddress.minor))].sort((a, b) => a - b),
        paymentId: paymentIdOfExtra(this.o.extra),
        unlockTime: this.o.unlockTime,
        ...(construction ? { construction } : {}),
      });
    }
    return out;
  }

  /** transfer_selected_rct with m_multisig: per plan, the tx core and the proposer's signing attempts. */
  private async buildMultisig(ms: MultisigSpend, account: number, plans: readonly PlannedTx[], userDests: (d: Destination) => string): Promise<PendingTx[]> {
    // no candidate outputs (e.g. none with a full key image yet): no tx, as create_transactions_2 ("No transaction created")
    if (plans.length === 0) return [];
    const t = this.w.ledger.state.transfers;
    const first = t.length > 0 ? ms.output(0) : null;
    const ignoreSets = signingAttempts(ms.signer, first?.infos ?? []);
    const out: PendingTx[] = [];
    for (const p of plans) {
      const rings = await this.ringsFor(p.selected, adjustMixin(this.o.ringSize));
      const outputs = p.selected.map((i) => {
        const o = ms.output(i);
        if (!o) throw new MultisigError("Not enough multisig data was found to sign: import multisig data from more other participants");
        return o;
      });
      const cd = this.constructionData(account, p, rings, [], null);
      const sources: TxSourceEntry[] = cd.sources.map((s, k) => {
        const klrki = new Uint8Array(128);
        klrki.set(outputs[k].keyImage, 96);
        return { ...s, multisigKLRki: klrki };
      });
      const zero = new Uint8Array(32);
      const b = this.w.backend;
      let change: TxDestinationEntry = { original: "", amount: 0n, spendPublicKey: zero, viewPublicKey: zero, isSubaddress: false, isIntegrated: false };
      const entry = (d: Destination): TxDestinationEntry => ({ original: d.original, amount: d.amount, spendPublicKey: d.spendPublicKey, viewPublicKey: d.viewPublicKey, isSubaddress: d.isSubaddress, isIntegrated: false });
      const splitted = p.dsts.map(entry);
      if (p.change > 0n) {
        const k = this.w.deriver.publicKeys(account, 0);
        change = { ...change, amount: p.change, spendPublicKey: k.spendPublicKey, viewPublicKey: k.viewPublicKey, isSubaddress: account !== 0 };
        splitted.push(change);
      } else if (p.dsts.length === 1) {
        change = { ...change, spendPublicKey: b.scalarMultBase(randomScalar(b, this.rng)), viewPublicKey: b.scalarMultBase(randomScalar(b, this.rng)) };
        splitted.push(change);
      }
      const built0 = buildMultisigTx(
        b,
        ms.signer,
        { extra: this.o.extra, unlockTime: this.o.unlockTime, subaddrAccount: account, subaddrIndices: cd.subaddrIndices, sources, destinations: splitted, change },
        this.rng,
      );
      const order = built0.sources.map((s) => sources.findIndex((x) => Buffer.compare(x.multisigKLRki, s.multisigKLRki) === 0));
      const selectedSorted = order.map((k) => p.selected[k]);
      const sigs = proposeAttempts(ms.signer, built0, outputs, ignoreSets, this.rng);
      // transfer_selected_rct: a 1-of-N member is the only signer, so its first attempt finishes the tx
      const built = ms.signer.threshold <= 1 ? { ...built0, tx: finalizeMultisigTx(built0.tx, built0.sources, sigs[0].c0, sigs[0].s) } : built0;
      const record = proposalRecord(built, sigs, sources, selectedSorted, { ...cd, changeDts: change }, p.fee);
      const blob = serializeTransaction(built.tx);
      out.push({
        txid: "",
        blob,
        txKey: built.txKey,
        additionalTxKeys: built.additionalTxKeys,
        fee: p.fee,
        amount: p.dsts.reduce((s, d) => s + d.amount, 0n),
        amountsByDest: p.dsts.map((d) => d.amount),
        weight: txWeight(built.tx, blob.length),
        keyImages: built.tx.vin.map((v) => (v.type === "key" ? hex(v.keyImage) : "")),
        selected: selectedSorted,
        dests: p.dsts.map((d) => ({ amount: d.amount, address: userDests(d) })),
        selfDests: selfDestinations(this.w, p.dsts),
        change: p.change,
        account,
        subaddrIndices: cd.subaddrIndices,
        paymentId: paymentIdOfExtra(this.o.extra),
        unlockTime: this.o.unlockTime,
        multisig: record,
      });
    }
    return out;
  }

  /** transfer_selected_rct's tx_construction_data: sources with their rings, destinations with the change, the request's extra. */
  private constructionData(account: number, p: PlannedTx, rings: readonly Ring[], all: readonly Destination[], change: DestinationKeys | null): TxConstructionData {
    const t = this.w.ledger.state.transfers;
    const entry = (d: Destination): TxDestinationEntry => ({
      original: d.original,
      amount: d.amount,
      spendPublicKey: d.spendPublicKey,
      viewPublicKey: d.viewPublicKey,
      isSubaddress: d.isSubaddress,
      isIntegrated: false,
    });
    const zero = new Uint8Array(32);
    return {
      sources: p.selected.map((i, k) => {
        const td = t[i];
        if (!td.txPubKey) throw new SendError("internal", `the wallet's record of output ${td.txid}:${td.internalIndex} predates sending; rescan_blockchain once to spend it`);
        return {
          outputs: rings[k].members.map((m) => ({ globalIndex: m.globalIndex, key: m.key, commitment: m.mask })),
          realOutput: rings[k].realIndex,
          realOutTxKey: unhex(td.txPubKey),
          realOutAdditionalTxKeys: [],
          realOutputInTxIndex: td.internalIndex,
          amount: td.amount,
          rct: true,
          mask: unhex(td.mask),
          multisigKLRki: new Uint8Array(128),
        };
      }),
      changeDts: {
        original: "",
        amount: p.change,
        spendPublicKey: change?.spendPublicKey ?? zero,
        viewPublicKey: change?.viewPublicKey ?? zero,
        isSubaddress: change?.isSubaddress ?? false,
        isIntegrated: false,
      },
      splittedDsts: all.map(entry),
      selectedTransfers: [...p.selected],
      extra: this.o.extra,
      unlockTime: this.o.unlockTime,
      useRct: true,
      useViewTags: true,
      rangeProofType: RANGE_PROOF_PADDED_BULLETPROOF,
      bpVersion: BP_VERSION_PLUS,
      dests: p.dsts.map(entry),
      subaddrAccount: account,
      subaddrIndices: [...new Set(p.selected.map((i) => t[i].subaddress.minor))].sort((a, b) => a - b),
    };
  }

  /** create_transactions_2 (transfer, transfer_split). */
  async transfer(dests: readonly UserDestination[], account: number, minors: readonly number[], subtractFeeFrom: ReadonlySet<number> = new Set()): Promise<PendingTx[]> {
    const ctx = await this.context(account);
    const dsts: Destination[] = dests.map((d) => ({ spendPublicKey: d.spendPublicKey, viewPublicKey: d.viewPublicKey, isSubaddress: d.isSubaddress, amount: d.amount, original: d.address }));
    const rows = this.w.ledger.subaddressBalances(account, this.w.now);
    const balances = { balance: new Map(rows.map((r) => [r.minor, r.balance])), unlocked: new Map(rows.map((r) => [r.minor, r.unlockedBalance])) };
    const plans = await planTransfer(ctx, dsts, account, minors, balances, subtractFeeFrom);
    return this.build(account, plans, (d) => d.original);
  }

  /** create_transactions_all (sweep_all). */
  async sweepAll(dest: UserDestination, account: number, minors: readonly number[], below: bigint, outputs: number): Promise<PendingTx[]> {
    const ctx = await this.context(account);
    const t = this.w.ledger.state.transfers;
    if (ctx.unlockedBalance === 0n) throw new SendError("no_unlocked_balance", "No unlocked balance in the specified account");
    const threshold = fractionalThreshold(ctx);
    const wanted = new Set(minors);
    const per = new Map<number, number[]>();
    let found = false;
    for (let i = 0; i < t.length; i++) {
      const td = t[i];
      if (td.amount < threshold) continue;
      if (!this.spendable(i) || td.subaddress.major !== account || (wanted.size > 0 && !wanted.has(td.subaddress.minor))) continue;
      found = true;
      if (below === 0n || td.amount < below) per.set(td.subaddress.minor, [...(per.get(td.subaddress.minor) ?? []), i]);
    }
    if (!found) throw new SendError("no_unlocked_balance", "No unlocked balance in the specified subaddress(es)");
    if (per.size === 0) throw new SendError("no_unlocked_balance", "The smallest amount found is not below the specified threshold");
    let indices: number[];
    if (wanted.size === 0) {
      // one non-empty subaddress at random, index 0 last (std::map order)
      if (per.has(0) && per.size > 1) per.delete(0);
      const keys = [...per.keys()].sort((a, b) => a - b);
      indices = per.get(keys[new RandomDraw(this.rng).index(keys.length)]) as number[]; // crypto::rand_idx
    } else indices = [...per.keys()].sort((a, b) => a - b).flatMap((k) => per.get(k) as number[]);
    return this.sweep(ctx, account, indices, dest, outputs);
  }

  /** create_transactions_single (sweep_single). */
  async sweepSingle(keyImage: string, dest: UserDestination, outputs: number): Promise<PendingTx[]> {
    const i = this.w.ledger.transferIndexByKeyImage(keyImage);
    const indices = i !== undefined && this.spendable(i) ? [i] : [];
    if (indices.length === 0) return [];
    const account = this.w.ledger.state.transfers[indices[0]].subaddress.major;
    const ctx = await this.context(account);
    return this.sweep(ctx, account, indices, dest, outputs);
  }

  private async sweep(ctx: PlanContext, account: number, indices: readonly number[], dest: UserDestination, outputs: number): Promise<PendingTx[]> {
    const d = { spendPublicKey: dest.spendPublicKey, viewPublicKey: dest.viewPublicKey, isSubaddress: dest.isSubaddress, original: dest.address };
    const plans = await planSweep(ctx, indices, d, outputs);
    return this.build(account, plans, () => dest.address);
  }
}

/** A pending_tx read from a signed or multisig set, as commitTx records it. */
export function pendingOfRecord(ctx: ColdContext, r: PendingTxRecord): PendingTx {
  const blob = serializeTransaction(r.tx);
  const keyImages = r.tx.vin.flatMap((i) => (i.type === "key" ? [hex(i.keyImage)] : []));
  const byImage = keyImages.map((k) => ctx.ledger.transferIndexByKeyImage(k));
  const selected = byImage.every((i) => i !== undefined) ? (byImage as number[]) : r.selectedTransfers.filter((i) => i < ctx.ledger.state.transfers.length);
  const dests = r.dests.map((d) => ({
    amount: d.amount,
    address: d.original || encodeAddress(ctx.network, d.isSubaddress ? "subaddress" : "standard", d.spendPublicKey, d.viewPublicKey, null, ctx.backend),
  }));
  const cd = r.constructionData;
  return {
    txid: hex(txHash(r.tx, ctx.backend)),
    blob,
    txKey: r.txKey,
    additionalTxKeys: r.additionalTxKeys,
    fee: r.fee,
    amount: r.dests.reduce((s, d) => s + d.amount, 0n),
    amountsByDest: r.dests.map((d) => d.amount),
    weight: blob.length,
    keyImages,
    selected,
    dests,
    selfDests: selfDestinations(ctx, r.dests),
    change: r.changeDts.amount,
    account: cd.subaddrAccount,
    subaddrIndices: cd.subaddrIndices,
    paymentId: paymentIdOfExtra(cd.extra),
    unlockTime: r.tx.unlockTime,
  };
}

/** get_payment_id(ptx): the payment id a tx's extra carries in clear (the 8-byte id then zeros, or the long one; zeros when none). */
export function paymentIdOfExtra(extra: Bytes): string {
  for (const f of parseTxExtra(extra).fields) {
    if (f.type !== "nonce") continue;
    const enc = encryptedPaymentIdFromNonce(f.nonce);
    if (enc) return hex(enc) + "0".repeat(48);
    const long = paymentIdFromNonce(f.nonce);
    if (long) return hex(long);
  }
  return "0".repeat(64);
}

/** The destinations that are this wallet's own subaddresses (counted in its balance while the tx is pending). */
export function selfDestinations(w: Pick<ColdContext, "subaddressIndexOf">, dests: readonly { spendPublicKey: Bytes; amount: bigint }[]): PendingTx["selfDests"] {
  return dests.flatMap((d) => {
    const i = w.subaddressIndexOf(d.spendPublicKey);
    return i ? [{ major: i.major, minor: i.minor, amount: d.amount }] : [];
  });
}

/** wallet2::get_text_reason. */
export function rejectionReason(r: {
  low_mixin: boolean;
  double_spend: boolean;
  invalid_input: boolean;
  invalid_output: boolean;
  too_few_outputs: boolean;
  too_big: boolean;
  overspend: boolean;
  fee_too_low: boolean;
  sanity_check_failed: boolean;
  not_relayed: boolean;
  reason: string;
}): string {
  const parts: string[] = [];
  if (r.low_mixin) parts.push("bad ring size");
  if (r.double_spend) parts.push("double spend");
  if (r.invalid_input) parts.push("invalid input");
  if (r.invalid_output) parts.push("invalid output");
  if (r.too_few_outputs) parts.push("too few outputs");
  if (r.too_big) parts.push("too big");
  if (r.overspend) parts.push("overspend");
  if (r.fee_too_low) parts.push("fee too low");
  if (r.sanity_check_failed) parts.push("tx sanity check failed");
  if (r.not_relayed) parts.push("tx was not relayed");
  if (parts.length === 0 && r.reason) parts.push(r.reason);
  return parts.join(", ");
}

/**
 * commit_tx: sends the tx (do_not_relay false, sanity checks on) and, once the daemon took it,
 * records it as pending with its keys and marks its inputs spent.
 */
export async function commitTx(w: SpendContext, ptx: PendingTx): Promise<void> {
  const r = await w.node.sendRawTransaction(hex(ptx.blob), { doNotRelay: false, doSanityChecks: true });
  if (r.status !== "OK") {
    const reason = rejectionReason(r);
    throw new SendError("tx_rejected", `transaction was rejected by daemon, status = ${r.status}${reason ? ` (${reason})` : ""}`, { reason });
  }
  w.ledger.addPending({
    txid: ptx.txid,
    amountIn: ptx.selected.reduce((s, i) => s + w.ledger.state.transfers[i].amount, 0n),
    amountOut: ptx.dests.reduce((s, d) => s + d.amount, ptx.change),
    change: ptx.change,
    paymentId: ptx.paymentId,
    account: ptx.account,
    subaddrIndices: ptx.subaddrIndices,
    timestamp: w.now,
    unlockTime: ptx.unlockTime,
    failed: false,
    destinations: ptx.dests.map((d) => ({ ...d })),
    keyImages: ptx.keyImages,
    selfDests: ptx.selfDests,
  });
  w.ledger.setTxKeys(ptx.txid, { txKey: hex(ptx.txKey), additional: ptx.additionalTxKeys.map(hex) });
}

