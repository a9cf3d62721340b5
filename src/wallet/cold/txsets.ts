/**
 * Cold signing in wallet2's formats (v0.18): the view-only wallet's unsigned set
 * (dump_tx_to_str: "Monero unsigned tx set" + version 5 + the set encrypted with the view key),
 * describe_transfer's reading of it, the full wallet's signing (wallet2::sign_tx: outputs imported,
 * each tx built from its construction data with a fresh tx key, key images handed back) into a
 * signed set ("Monero signed tx set" + 5), and the view-only wallet's reading of that set before it
 * submits (parse_tx_from_str: key images and the change's key images imported).
 */
import type { Bytes } from "../../crypto/backend.js";
import { type RandomSource, systemRandom } from "../../crypto/random.js";
import { encodeAddress } from "../../protocol/address.js";
import { encryptedPaymentIdFromNonce, parseTxExtra, paymentIdFromNonce } from "../../protocol/extra.js";
import type { Transaction } from "../../protocol/tx.js";
import { constructTx, type Destination, type Source } from "../send/construct.js";
import { decryptWithViewKey, encryptWithViewKey } from "./cipher.js";
import { type ColdContext, openOutput } from "./context.js";
import { ColdError } from "./errors.js";
import {
  decodeSignedTxSet,
  decodeUnsignedTxSet,
  encodeSignedTxSet,
  encodeUnsignedTxSet,
  type PendingTxRecord,
  type SignedTxSet,
  type TxConstructionData,
  type TxDestinationEntry,
  type UnsignedTxSet,
} from "./formats.js";
import { importOutputs, outputsToExport } from "./outputs.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export const UNSIGNED_TX_PREFIX = Buffer.from("Monero unsigned tx set", "latin1");
export const SIGNED_TX_PREFIX = Buffer.from("Monero signed tx set", "latin1");
const SET_VERSION = 5;

const IDENTITY = Uint8Array.from(Buffer.from("01" + "00".repeat(31), "hex"));

/** wallet2::dump_tx_to_str: the view-only wallet's transactions to sign, with its outputs since the last import. */
export async function exportUnsignedSet(ctx: ColdContext, txes: readonly TxConstructionData[], rng: RandomSource = systemRandom): Promise<Bytes> {
  const body = encodeUnsignedTxSet({ txes: [...txes], transfers: outputsToExport(ctx, false) });
  const enc = await encryptWithViewKey(ctx.backend, ctx.keys.viewSecretKey, body, rng);
  return new Uint8Array(Buffer.concat([UNSIGNED_TX_PREFIX, Buffer.from([SET_VERSION]), enc]));
}

async function openSet(ctx: ColdContext, data: Bytes, prefix: Buffer, what: string): Promise<Bytes> {
  if (data.length <= prefix.length || Buffer.compare(Buffer.from(data.subarray(0, prefix.length)), prefix) !== 0)
    throw new ColdError("bad_data", `Bad magic from ${what}: this is not a ${what} (or it was cut at the start)`);
  const version = data[prefix.length];
  if (version === 3 || version === 4)
    throw new ColdError("bad_data", `the ${what} is in the deprecated format ${version} (boost serialization, wallets before 0.17.1): re-create it with a current wallet`);
  if (version !== SET_VERSION) throw new ColdError("bad_data", `Unsupported version ${version} in ${what} (5 is read)`);
  return decryptWithViewKey(ctx.backend, ctx.keys.viewSecretKey, data.subarray(prefix.length + 1), `the ${what}`);
}

/** wallet2::parse_unsigned_tx_from_str. */
export async function readUnsignedSet(ctx: ColdContext, data: Bytes): Promise<UnsignedTxSet> {
  return decodeUnsignedTxSet(await openSet(ctx, data, UNSIGNED_TX_PREFIX, "unsigned tx set"));
}

/** describe_transfer's entry for one transaction. */
export interface TransferDescription {
  amountIn: bigint;
  amountOut: bigint;
  ringSize: number;
  unlockTime: bigint;
  recipients: { address: string; amount: bigint }[];
  paymentId: string;
  changeAmount: bigint;
  changeAddress: string;
  fee: bigint;
  dummyOutputs: number;
  extra: string;
}

export interface TransferSummary {
  amountIn: bigint;
  amountOut: bigint;
  recipients: { address: string; amount: bigint }[];
  changeAmount: bigint;
  changeAddress: string;
  fee: bigint;
}

const addrKey = (d: { spendPublicKey: Bytes; viewPublicKey: Bytes }) => hex(d.spendPublicKey) + hex(d.viewPublicKey);

/** wallet_rpc_server::on_describe_transfer over an unsigned set's transactions. */
export function describeTransfers(ctx: ColdContext, txes: readonly TxConstructionData[]): { desc: TransferDescription[]; summary: TransferSummary } {
  const net = ctx.network;
  const addr = (sub: boolean, d: { spendPublicKey: Bytes; viewPublicKey: Bytes }) => encodeAddress(net, sub ? "subaddress" : "standard", d.spendPublicKey, d.viewPublicKey, null, ctx.backend);
  const all = new Map<string, { address: string; amount: bigint }>();
  const summary: TransferSummary = { amountIn: 0n, amountOut: 0n, recipients: [], changeAmount: 0n, changeAddress: "", fee: 0n };
  const desc: TransferDescription[] = [];
  let firstChange: TxConstructionData | null = null;
  for (const cd of txes) {
    const d: TransferDescription = { amountIn: 0n, amountOut: 0n, ringSize: 0xffffffff, unlockTime: 0n, recipients: [], paymentId: "", changeAmount: 0n, changeAddress: "", fee: 0n, dummyOutputs: 0, extra: "" };
    let pid8: Bytes | null = null;
    for (const f of parseTxExtra(cd.extra).fields) {
      if (f.type !== "nonce") continue;
      const enc = encryptedPaymentIdFromNonce(f.nonce);
      if (enc) {
        if (enc.some((x) => x !== 0)) {
          d.paymentId = hex(enc);
          pid8 = enc;
        }
      } else {
        const long = paymentIdFromNonce(f.nonce);
        if (long) d.paymentId = hex(long);
      }
      break;
    }
    for (const s of cd.sources) {
      d.amountIn += s.amount;
      d.ringSize = Math.min(d.ringSize, s.outputs.length);
    }
    const dests = new Map<string, { address: string; amount: bigint }>();
    for (const e of cd.splittedDsts) {
      let address = addr(e.isSubaddress, e);
      if (pid8 && !e.isSubaddress && address !== e.original) address = encodeAddress(net, "integrated", e.spendPublicKey, e.viewPublicKey, pid8, ctx.backend);
      const k = addrKey(e);
      const x = dests.get(k);
      if (x) x.amount += e.amount;
      else dests.set(k, { address, amount: e.amount });
      d.amountOut += e.amount;
    }
    if (cd.changeDts.amount > 0n) {
      const k = addrKey(cd.changeDts);
      const x = dests.get(k);
      if (!x) throw new ColdError("bad_data", "Claimed change does not go to a paid address");
      if (x.amount < cd.changeDts.amount) throw new ColdError("bad_data", "Claimed change is larger than payment to the change address");
      firstChange ??= cd;
      if (addrKey(firstChange.changeDts) !== k) throw new ColdError("bad_data", "Change goes to more than one address");
      d.changeAmount += cd.changeDts.amount;
      x.amount -= cd.changeDts.amount;
      if (x.amount === 0n) dests.delete(k);
    }
    for (const [k, v] of dests) {
      if (v.amount > 0n) {
        d.recipients.push({ ...v });
        const y = all.get(k);
        if (y) y.amount += v.amount;
        else all.set(k, { ...v });
      } else d.dummyOutputs++;
    }
    if (d.changeAmount > 0n) {
      d.changeAddress = addr(txes[0].subaddrAccount > 0, txes[0].changeDts);
      summary.changeAddress = d.changeAddress;
    }
    d.fee = d.amountIn - d.amountOut;
    d.unlockTime = cd.unlockTime;
    d.extra = hex(cd.extra);
    if (d.ringSize === 0xffffffff) d.ringSize = 0;
    summary.amountIn += d.amountIn;
    summary.amountOut += d.amountOut;
    summary.changeAmount += d.changeAmount;
    summary.fee += d.fee;
    desc.push(d);
  }
  summary.recipients = [...all.values()];
  return { desc, summary };
}

/** One transaction the full wallet signed. */
export interface SignedTx {
  txid: string;
  tx: Transaction;
  blob: Bytes;
  txKey: Bytes;
  additionalTxKeys: Bytes[];
}

const toDestination = (e: TxDestinationEntry): Destination => ({
  spendPublicKey: e.spendPublicKey,
  viewPublicKey: e.viewPublicKey,
  isSubaddress: e.isSubaddress,
  amount: e.amount,
  original: e.original,
});

/**
 * wallet2::sign_tx (unsigned set): imports the set's outputs, builds each transaction from its
 * construction data with a fresh tx key, and returns the signed set (with this wallet's key images
 * and the key images of the outputs these txs pay back to it) and the txs with their keys.
 */
export async function signUnsignedSet(ctx: ColdContext, set: UnsignedTxSet, rng: RandomSource = systemRandom): Promise<{ data: Bytes; txs: SignedTx[] }> {
  if (!ctx.keys.spendSecretKey) throw new ColdError("watch_only", "command not supported by watch-only wallet: sign with the full wallet that has the spend key");
  if (set.transfers.outputs.length > 0) importOutputs(ctx, set.transfers);
  const b = ctx.backend;
  const signed: SignedTxSet = { ptx: [], keyImages: [], txKeyImages: [] };
  const txs: SignedTx[] = [];
  for (let n = 0; n < set.txes.length; n++) {
    const cd = set.txes[n];
    if (cd.sources.length === 0) throw new ColdError("bad_data", `Empty sources in transaction ${n}`);
    const sources: Source[] = cd.sources.map((s, k) => {
      const real = s.outputs[s.realOutput];
      const opened = openOutput(ctx, real.key, s.realOutTxKey, s.realOutAdditionalTxKeys, s.realOutputInTxIndex);
      if (!opened?.secretKey || !opened.keyImage)
        throw new ColdError("wrong_wallet", `input ${k} of transaction ${n} spends output ${hex(real.key)}, which this wallet cannot open: the set was made by a view-only wallet of another account`);
      return {
        amount: s.amount,
        ring: s.outputs.map((m) => ({ globalIndex: m.globalIndex, key: m.key, mask: m.commitment })),
        realIndex: s.realOutput,
        secretKey: opened.secretKey,
        mask: s.mask,
        tag: cd.selectedTransfers[k] ?? k,
        keyImage: opened.keyImage,
      };
    });
    const sumIn = cd.sources.reduce((s, x) => s + x.amount, 0n);
    const sumOut = cd.splittedDsts.reduce((s, x) => s + x.amount, 0n);
    if (sumOut > sumIn) throw new ColdError("bad_data", `transaction ${n} pays ${sumOut} from inputs of ${sumIn}`);
    let built;
    try {
      built = constructTx(
        b,
        {
          sources,
          destinations: cd.splittedDsts.map(toDestination),
          changeAddress: { spendPublicKey: cd.changeDts.spendPublicKey, viewPublicKey: cd.changeDts.viewPublicKey, isSubaddress: cd.changeDts.isSubaddress },
          viewSecretKey: ctx.keys.viewSecretKey,
          extra: cd.extra,
          unlockTime: cd.unlockTime,
          fee: sumIn - sumOut,
        },
        rng,
      );
    } catch (e) {
      throw new ColdError("sign_failed", `transaction ${n} could not be built: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const txid = hex(built.txid);
    ctx.ledger.setTxKeys(txid, { txKey: hex(built.txKey), additional: built.additionalTxKeys.map(hex) });
    const record: PendingTxRecord = {
      tx: built.tx,
      dust: 0n,
      fee: sumIn - sumOut,
      dustAddedToFee: false,
      changeDts: cd.changeDts,
      selectedTransfers: cd.selectedTransfers,
      keyImages: built.keyImages.map((k) => `<${hex(k)}> `).join(""),
      txKey: IDENTITY, // the tx key stays with the signer (wallet2 hands the view wallet the identity)
      additionalTxKeys: [],
      dests: cd.dests,
      constructionData: cd,
      multisigTxKeyEntropy: new Uint8Array(32),
    };
    signed.ptx.push(record);
    txs.push({ txid, tx: built.tx, blob: built.blob, txKey: built.txKey, additionalTxKeys: built.additionalTxKeys });
    // outputs back to this wallet: their key images, for the view wallet to see them spent later
    const fields = parseTxExtra(built.tx.extra).fields;
    const txPub = fields.find((f) => f.type === "pubkey");
    const adds = fields.find((f) => f.type === "additional_pubkeys");
    if (txPub && txPub.type === "pubkey") {
      built.tx.vout.forEach((o, i) => {
        const key = (o.target as { key?: Bytes }).key;
        if (!key) return;
        const op = openOutput(ctx, key, txPub.key, adds && adds.type === "additional_pubkeys" ? adds.keys : [], i);
        if (op?.keyImage) signed.txKeyImages.push({ pubkey: key, keyImage: op.keyImage });
      });
    }
  }
  signed.keyImages = ctx.ledger.state.transfers.map((t) => (t.keyImage ? Uint8Array.from(Buffer.from(t.keyImage, "hex")) : new Uint8Array(32)));
  const enc = await encryptWithViewKey(b, ctx.keys.viewSecretKey, encodeSignedTxSet(signed), rng);
  return { data: new Uint8Array(Buffer.concat([SIGNED_TX_PREFIX, Buffer.from([SET_VERSION]), enc])), txs };
}

/**
 * wallet2::parse_tx_from_str and its imports: the signing wallet's key images (by transfer index)
 * and the key images of the change outputs. The transactions, to commit.
 */
export async function readSignedSet(ctx: ColdContext, data: Bytes): Promise<PendingTxRecord[]> {
  const set = decodeSignedTxSet(await openSet(ctx, data, SIGNED_TX_PREFIX, "signed tx set"));
  const t = ctx.ledger.state.transfers;
  if (set.keyImages.length > t.length)
    throw new ColdError("out_of_range", `More key images returned that we know outputs for (${set.keyImages.length} against ${t.length}): refresh this wallet, then submit again`);
  set.keyImages.forEach((ki, i) => {
    if (ki.every((x) => x === 0)) return;
    ctx.ledger.setKeyImage(i, hex(ki), false);
  });
  ctx.ledger.addColdKeyImages(set.txKeyImages.map((e) => ({ pubkey: hex(e.pubkey), keyImage: hex(e.keyImage) })));
  return set.ptx;
}
