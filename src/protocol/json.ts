/**
 * The JSON text monerod prints for transactions (`as_json` of /get_transactions) and blocks (`json` of
 * get_block): Monero's serializers driven through its json_archive (cryptonote_basic.h, rctTypes.h,
 * serialization/*.h). The field order, separators and the odd newlines all come from walking the
 * structures in exactly the order Monero's serializers do; see codec/json-archive.ts.
 */
import { JsonArchive } from "../codec/json-archive.js";
import type { Block } from "./block.js";
import { type Bytes, RCT_TYPE, type RctPrunable, type RctSignatures, rctCompactEcdh, rctIsBulletproof, rctIsClsag } from "./rct.js";
import type { Transaction, TxIn, TxOut } from "./tx.js";

function scriptJson(ar: JsonArchive, s: { keys: Bytes[]; script: Bytes }): void {
  ar.beginObject();
  ar.tag("keys");
  ar.blobArray(s.keys);
  ar.tag("script");
  byteArray(ar, s.script);
  ar.endObject();
}

/** std::vector<uint8_t>: an array of decimal bytes. */
function byteArray(ar: JsonArchive, b: Bytes): void {
  ar.beginArray(b.length);
  for (let i = 0; i < b.length; i++) {
    if (i > 0) ar.delimitArray();
    ar.int(b[i]);
  }
  ar.endArray();
}

function txinJson(ar: JsonArchive, input: TxIn): void {
  ar.beginVariant(input.type);
  switch (input.type) {
    case "gen":
      ar.beginObject();
      ar.tag("height");
      ar.int(input.height);
      ar.endObject();
      break;
    case "key":
      ar.beginObject();
      ar.tag("amount");
      ar.int(input.amount);
      ar.tag("key_offsets");
      ar.beginArray(input.keyOffsets.length);
      input.keyOffsets.forEach((o, i) => {
        if (i > 0) ar.delimitArray();
        ar.int(o);
      });
      ar.endArray();
      ar.tag("k_image");
      ar.blob(input.keyImage);
      ar.endObject();
      break;
    case "script":
      ar.beginObject();
      ar.tag("prev");
      ar.blob(input.prev);
      ar.tag("prevout");
      ar.int(input.prevout);
      ar.tag("sigset");
      byteArray(ar, input.sigset);
      ar.endObject();
      break;
    case "scripthash":
      ar.beginObject();
      ar.tag("prev");
      ar.blob(input.prev);
      ar.tag("prevout");
      ar.int(input.prevout);
      ar.tag("script");
      scriptJson(ar, input.script);
      ar.tag("sigset");
      byteArray(ar, input.sigset);
      ar.endObject();
      break;
  }
  ar.endVariant();
}

function txoutJson(ar: JsonArchive, out: TxOut): void {
  ar.beginObject();
  ar.tag("amount");
  ar.int(out.amount);
  ar.tag("target");
  const t = out.target;
  ar.beginVariant(t.type);
  switch (t.type) {
    case "key":
      ar.blob(t.key); // txout_to_key is a blob type
      break;
    case "tagged_key":
      ar.beginObject();
      ar.tag("key");
      ar.blob(t.key);
      ar.tag("view_tag");
      ar.byteBlob(t.viewTag);
      ar.endObject();
      break;
    case "script":
      scriptJson(ar, t);
      break;
    case "scripthash":
      ar.blob(t.hash);
      break;
  }
  ar.endVariant();
  ar.endObject();
}

function rctBaseJson(ar: JsonArchive, rct: RctSignatures): void {
  ar.tag("type");
  ar.int(rct.type);
  if (rct.type === RCT_TYPE.Null) return;
  ar.tag("txnFee");
  ar.int(rct.fee);
  if (rct.type === RCT_TYPE.Simple) {
    ar.tag("pseudoOuts");
    ar.customBlobArray(rct.pseudoOuts);
  }
  ar.tag("ecdhInfo");
  ar.beginArray();
  const compact = rctCompactEcdh(rct.type);
  rct.ecdhInfo.forEach((e, i) => {
    ar.beginObject();
    if (compact) {
      ar.tag("amount");
      ar.blob(e.amount);
    } else {
      ar.tag("mask");
      ar.blob(e.mask ?? new Uint8Array(32));
      ar.tag("amount");
      ar.blob(e.amount);
    }
    ar.endObject();
    if (rct.ecdhInfo.length - i > 1) ar.delimitArray();
  });
  ar.endArray();
  ar.tag("outPk");
  ar.customBlobArray(rct.outPk);
}

function keyFields(ar: JsonArchive, fields: [string, Bytes][]): void {
  for (const [name, v] of fields) {
    ar.tag(name);
    ar.blob(v);
  }
}

function rctPrunableJson(ar: JsonArchive, p: RctPrunable, type: number): void {
  if (type === RCT_TYPE.BulletproofPlus) {
    ar.tag("nbp");
    ar.int(p.bulletproofsPlus.length);
    ar.tag("bpp");
    ar.beginArray();
    p.bulletproofsPlus.forEach((bp, i) => {
      ar.beginObject();
      keyFields(ar, [
        ["A", bp.A],
        ["A1", bp.A1],
        ["B", bp.B],
        ["r1", bp.r1],
        ["s1", bp.s1],
        ["d1", bp.d1],
      ]);
      ar.tag("L");
      ar.blobArray(bp.L);
      ar.tag("R");
      ar.blobArray(bp.R);
      ar.endObject();
      if (p.bulletproofsPlus.length - i > 1) ar.delimitArray();
    });
    ar.endArray();
  } else if (rctIsBulletproof(type)) {
    ar.tag("nbp");
    ar.int(p.bulletproofs.length);
    ar.tag("bp");
    ar.beginArray();
    p.bulletproofs.forEach((bp, i) => {
      ar.beginObject();
      keyFields(ar, [
        ["A", bp.A],
        ["S", bp.S],
        ["T1", bp.T1],
        ["T2", bp.T2],
        ["taux", bp.taux],
        ["mu", bp.mu],
      ]);
      ar.tag("L");
      ar.blobArray(bp.L);
      ar.tag("R");
      ar.blobArray(bp.R);
      keyFields(ar, [
        ["a", bp.a],
        ["b", bp.b],
        ["t", bp.t],
      ]);
      ar.endObject();
      if (p.bulletproofs.length - i > 1) ar.delimitArray();
    });
    ar.endArray();
  } else {
    ar.tag("rangeSigs");
    ar.beginArray();
    p.rangeSigs.forEach((rs, i) => {
      ar.beginObject();
      ar.tag("asig");
      ar.blob(rs.asig);
      ar.tag("Ci");
      ar.blob(rs.Ci);
      ar.endObject();
      if (p.rangeSigs.length - i > 1) ar.delimitArray();
    });
    ar.endArray();
  }
  if (rctIsClsag(type)) {
    ar.tag("CLSAGs");
    ar.beginArray();
    p.CLSAGs.forEach((c, i) => {
      ar.beginObject();
      ar.tag("s");
      ar.customBlobArray(c.s);
      ar.tag("c1");
      ar.blob(c.c1);
      ar.tag("D");
      ar.blob(c.D);
      ar.endObject();
      if (p.CLSAGs.length - i > 1) ar.delimitArray();
    });
    ar.endArray();
  } else {
    ar.tag("MGs");
    ar.beginArray();
    p.MGs.forEach((mg, i) => {
      ar.beginObject();
      ar.tag("ss");
      ar.beginArray();
      mg.ss.forEach((row, j) => {
        ar.customBlobArray(row);
        if (mg.ss.length - j > 1) ar.delimitArray();
      });
      ar.endArray();
      ar.tag("cc");
      ar.blob(mg.cc);
      ar.endObject();
      if (p.MGs.length - i > 1) ar.delimitArray();
    });
    ar.endArray();
  }
  if (type >= RCT_TYPE.Bulletproof) {
    ar.tag("pseudoOuts");
    ar.customBlobArray(p.pseudoOuts);
  }
}

/** transaction::serialize through json_archive. */
export function writeTxJson(ar: JsonArchive, tx: Transaction): void {
  ar.beginObject();
  ar.tag("version");
  ar.int(tx.version);
  ar.tag("unlock_time");
  ar.int(tx.unlockTime);
  ar.tag("vin");
  ar.beginArray(tx.vin.length);
  tx.vin.forEach((input, i) => {
    if (i > 0) ar.delimitArray();
    txinJson(ar, input);
  });
  ar.endArray();
  ar.tag("vout");
  ar.beginArray(tx.vout.length);
  tx.vout.forEach((out, i) => {
    if (i > 0) ar.delimitArray();
    txoutJson(ar, out);
  });
  ar.endArray();
  ar.tag("extra");
  byteArray(ar, tx.extra);
  if (tx.version === 1) {
    // a pruned tx prints as monerod's pruned_transaction (serialize_base): no signatures at all
    if (tx.pruned) {
      ar.endObject();
      return;
    }
    ar.tag("signatures");
    ar.beginArray();
    // Monero writes nothing for a tx without signatures (allowed when no input needs any)
    if (!tx.pruned && tx.signatures.length > 0) {
      tx.vin.forEach((_input, i) => {
        const sigs = tx.signatures[i] ?? [];
        if (sigs.length > 0) {
          // std::vector<signature>: one string of concatenated signatures
          ar.beginString();
          for (const s of sigs) ar.blob(s, "");
          ar.endString();
        }
        if (tx.vin.length - i > 1) ar.delimitArray();
      });
    }
    ar.endArray();
  } else {
    ar.tag("rct_signatures");
    if (tx.vin.length > 0 && tx.rct) {
      ar.beginObject();
      rctBaseJson(ar, tx.rct);
      ar.endObject();
      if (!tx.pruned && tx.rct.type !== RCT_TYPE.Null && tx.rct.prunable) {
        ar.tag("rctsig_prunable");
        ar.beginObject();
        rctPrunableJson(ar, tx.rct.prunable, tx.rct.type);
        ar.endObject();
      }
    }
  }
  ar.endObject();
}

/**
 * monerod's `as_json` text of a transaction. A pruned transaction prints as monerod prints pruned ones
 * (core_rpc_server.cpp's pruned_transaction → transaction::serialize_base): prefix and RingCT base.
 */
export function txToJson(tx: Transaction): string {
  const ar = new JsonArchive(true);
  writeTxJson(ar, tx);
  return ar.toString();
}

/** monerod's `json` text of a block (get_block). */
export function blockToJson(b: Block): string {
  const ar = new JsonArchive(true);
  ar.beginObject();
  ar.tag("major_version");
  ar.int(b.majorVersion);
  ar.tag("minor_version");
  ar.int(b.minorVersion);
  ar.tag("timestamp");
  ar.int(b.timestamp);
  ar.tag("prev_id");
  ar.blob(b.prevId);
  ar.tag("nonce");
  ar.int(b.nonce);
  ar.tag("miner_tx");
  writeTxJson(ar, b.minerTx);
  ar.tag("tx_hashes");
  ar.blobArray(b.txHashes);
  ar.endObject();
  return ar.toString();
}
