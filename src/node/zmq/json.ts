/**
 * Blocks and transactions as monerod's ZMQ interface writes them (src/serialization/json_object.cpp,
 * `cryptonote::json::toJsonValue`): keys in that file's order, hashes and keys as lowercase hex,
 * u64 amounts and heights as bare numbers (bigint here, so they stay exact), byte vectors as hex.
 * This is not the `as_json` of /get_transactions (protocol/json.ts): another serializer, other names.
 */
import { defaultBackend } from "../../crypto/index.js";
import { INV_EIGHT } from "../../crypto/ringct/scalar.js";
import type { Block } from "../../protocol/block.js";
import { type Bytes, RCT_TYPE, type RctSignatures } from "../../protocol/rct.js";
import type { Transaction, TxIn, TxOut } from "../../protocol/tx.js";
import type { JsonWritable } from "../../rpc/json.js";
import { bytesToHex as hex } from "../../base/bytes.js";

type Obj = { [key: string]: JsonWritable };

const ZERO_KEY = "0".repeat(64);

/** An rct::key whose first `b.length` bytes are `b` (the compact ecdhInfo amount of types 4–6). */
function paddedKey(b: Bytes): string {
  return hex(b).padEnd(64, "0");
}

/** toJsonValue(txin_v): one key naming the variant. */
function inputJson(i: TxIn): Obj {
  switch (i.type) {
    case "gen":
      return { gen: { height: i.height } };
    case "key":
      return { to_key: { amount: i.amount, key_offsets: i.keyOffsets, key_image: hex(i.keyImage) } };
    case "script":
      return { to_script: { prev: hex(i.prev), prevout: i.prevout, sigset: hex(i.sigset) } };
    case "scripthash":
      return { to_scripthash: { prev: hex(i.prev), prevout: i.prevout, script: { keys: i.script.keys.map(hex), script: hex(i.script.script) }, sigset: hex(i.sigset) } };
  }
}

/** toJsonValue(tx_out): amount, then one key naming the target variant. */
function outputJson(o: TxOut): Obj {
  const t = o.target;
  switch (t.type) {
    case "key":
      return { amount: o.amount, to_key: { key: hex(t.key) } };
    case "tagged_key":
      return { amount: o.amount, to_tagged_key: { key: hex(t.key), view_tag: t.viewTag.toString(16).padStart(2, "0") } };
    case "script":
      return { amount: o.amount, to_script: { keys: t.keys.map(hex), script: hex(t.script) } };
    case "scripthash":
      return { amount: o.amount, to_scripthash: { hash: hex(t.hash) } };
  }
}

/**
 * The proofs' V as monerod holds them once a pool tx is verified (Blockchain::expand_transaction_2):
 * each output commitment times 1/8, handed to the proofs in order, as many as each proof covers
 * (2^(|L| − 6) for a (plus) bulletproof).
 */
function proofCommitments(rct: RctSignatures, proofs: readonly { L: Bytes[] }[]): string[][] {
  const v = rct.outPk.map((c) => {
    const p = defaultBackend().scalarMult(INV_EIGHT, c);
    return p ? hex(p) : ZERO_KEY;
  });
  if (proofs.length === 1) return [v];
  let at = 0;
  return proofs.map((p) => {
    const n = 2 ** Math.max(0, p.L.length - 6);
    const part = v.slice(at, at + n);
    at += n;
    return part;
  });
}

/** toJsonValue(rctSig) as monerod 0.18.3+ writes it (0.18.0.0 left `clsags` out of `prunable`). */
function rctJson(rct: RctSignatures): Obj {
  const out: Obj = { type: rct.type };
  if (rct.type !== RCT_TYPE.Null) {
    out.encrypted = rct.ecdhInfo.map((e) => (e.mask ? { mask: hex(e.mask), amount: hex(e.amount) } : { mask: ZERO_KEY, amount: paddedKey(e.amount) }));
    out.commitments = rct.outPk.map(hex);
    out.fee = rct.fee;
  }
  const p = rct.prunable;
  const pseudoOuts = rct.pseudoOuts.length > 0 ? rct.pseudoOuts : (p?.pseudoOuts ?? []);
  if (p && (p.bulletproofs.length > 0 || p.bulletproofsPlus.length > 0 || p.rangeSigs.length > 0 || p.MGs.length > 0 || pseudoOuts.length > 0)) {
    const bpV = proofCommitments(rct, p.bulletproofs);
    const bppV = proofCommitments(rct, p.bulletproofsPlus);
    out.prunable = {
      range_proofs: p.rangeSigs.map((r) => {
        const keys = (b: Bytes, from: number, n: number): string[] => Array.from({ length: n }, (_, i) => hex(b.subarray(from + 32 * i, from + 32 * (i + 1))));
        return { asig: { s0: keys(r.asig, 0, 64), s1: keys(r.asig, 2048, 64), ee: hex(r.asig.subarray(4096, 4128)) }, Ci: keys(r.Ci, 0, 64) };
      }),
      bulletproofs: p.bulletproofs.map((b, i) => ({
        V: bpV[i] ?? [],
        A: hex(b.A),
        S: hex(b.S),
        T1: hex(b.T1),
        T2: hex(b.T2),
        taux: hex(b.taux),
        mu: hex(b.mu),
        L: b.L.map(hex),
        R: b.R.map(hex),
        a: hex(b.a),
        b: hex(b.b),
        t: hex(b.t),
      })),
      bulletproofs_plus: p.bulletproofsPlus.map((b, i) => ({
        V: bppV[i] ?? [],
        A: hex(b.A),
        A1: hex(b.A1),
        B: hex(b.B),
        r1: hex(b.r1),
        s1: hex(b.s1),
        d1: hex(b.d1),
        L: b.L.map(hex),
        R: b.R.map(hex),
      })),
      mlsags: p.MGs.map((m) => ({ ss: m.ss.map((row) => row.map(hex)), cc: hex(m.cc) })),
      clsags: p.CLSAGs.map((c) => ({ s: c.s.map(hex), c1: hex(c.c1), D: hex(c.D) })),
      pseudo_outs: pseudoOuts.map(hex),
    };
  }
  return out;
}

/** toJsonValue(transaction). */
export function txJson(tx: Transaction): Obj {
  const out: Obj = {
    version: tx.version,
    unlock_time: tx.unlockTime,
    inputs: tx.vin.map(inputJson),
    outputs: tx.vout.map(outputJson),
    extra: hex(tx.extra),
  };
  if (!tx.pruned) out.signatures = tx.signatures.map((ring) => ring.map(hex));
  // a v1 tx has no rct_signatures on the wire; monerod's default rctSig is type 0
  out.ringct = tx.rct ? rctJson(tx.rct) : { type: RCT_TYPE.Null };
  return out;
}

/** toJsonValue(block). */
export function blockJson(b: Block): Obj {
  return {
    major_version: b.majorVersion,
    minor_version: b.minorVersion,
    timestamp: b.timestamp,
    prev_id: hex(b.prevId),
    nonce: b.nonce,
    miner_tx: txJson(b.minerTx),
    tx_hashes: b.txHashes.map(hex),
  };
}
