/**
 * export_outputs / import_outputs in wallet2's format (wallet2::export_outputs_to_str,
 * import_outputs_from_str, import_outputs(exported_transfer_details), v0.18): the magic
 * "Monero output export\004", then, encrypted with the view key, the account's spend and view
 * public keys and the binary-archived outputs. A view-only wallet exports what it received; the
 * full (offline) wallet imports them, computing each output's key image, and can then sign for them.
 */
import type { Bytes } from "../../crypto/backend.js";
import type { TransferDetails } from "../ledger/ledger.js";
import { decryptWithViewKey, encryptWithViewKey } from "./cipher.js";
import { type ColdContext, openOutput } from "./context.js";
import { ColdError } from "./errors.js";
import { decodeExportedOutputs, encodeExportedOutputs, type ExportedOutput, type ExportedOutputs } from "./formats.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

export const OUTPUT_EXPORT_MAGIC = Buffer.from("Monero output export\x04", "latin1");

const IDENTITY = "01" + "00".repeat(31);
const NULL_HASH = "00".repeat(32);

/**
 * Which transfers export_outputs sends: from the first whose key image is unknown or wanted (all:
 * from `start`), at most `count`. With `piecemeal` (the caller gave start or count, as later 0.18
 * releases allow) the export also says how many transfers the wallet has, so that the pieces can
 * be imported in any order (a 3-tuple that 0.18.0.0 wallets cannot read).
 */
export function outputsToExport(ctx: ColdContext, all: boolean, start = 0, count = 0xffffffff, piecemeal = false): ExportedOutputs {
  if (count === 0) throw new ColdError("out_of_range", "Nothing requested: count must be at least 1");
  if (!all && start > 0) throw new ColdError("out_of_range", "Incremental mode is incompatible with non-zero start: pass all=true with start, or start=0");
  const t = ctx.ledger.state.transfers;
  let offset = 0;
  if (!all) while (offset < t.length && t[offset].keyImage !== "" && !t[offset].keyImageRequest) offset++;
  else offset = Math.min(start, t.length);
  const outputs = t.slice(offset, offset + count).map((td) => exported(td));
  return piecemeal ? { offset, total: t.length, outputs } : { offset, outputs };
}

function exported(td: TransferDetails): ExportedOutput {
  if (!td.txPubKey) throw new ColdError("bad_data", `the wallet's record of output ${td.txid}:${td.internalIndex} predates exports; rescan_blockchain once, then export again`);
  return {
    pubkey: unhex(td.publicKey),
    internalIndex: td.internalIndex,
    globalIndex: td.globalIndex < 0n ? 0n : td.globalIndex,
    // the key that opens the output (main or additional): wallet2's importer derives through it first
    txPubKey: unhex(td.txPubKey),
    spent: td.spent,
    frozen: td.frozen,
    rct: td.rct,
    keyImageKnown: td.keyImage !== "",
    keyImageRequest: td.keyImageRequest === true,
    keyImagePartial: false,
    amount: td.amount,
    additionalTxKeys: [],
  };
}

/** The header and body of an export: the account's public keys, then the outputs. */
function header(ctx: ColdContext): Bytes {
  const h = new Uint8Array(64);
  h.set(ctx.keys.spendPublicKey, 0);
  h.set(ctx.keys.viewPublicKey, 32);
  return h;
}

/** wallet2::export_outputs_to_str. */
export async function exportOutputs(ctx: ColdContext, all: boolean, start?: number, count?: number): Promise<Bytes> {
  const piecemeal = (start !== undefined && start > 0) || (count !== undefined && count !== 0xffffffff);
  const body = encodeExportedOutputs(outputsToExport(ctx, all, start, count, piecemeal));
  const plain = new Uint8Array(64 + body.length);
  plain.set(header(ctx), 0);
  plain.set(body, 64);
  const enc = await encryptWithViewKey(ctx.backend, ctx.keys.viewSecretKey, plain);
  return new Uint8Array(Buffer.concat([OUTPUT_EXPORT_MAGIC, enc]));
}

/** Checks the magic, decrypts and checks the account of an outputs export; the outputs. */
export async function readOutputsExport(ctx: ColdContext, data: Bytes): Promise<ExportedOutputs> {
  if (data.length < OUTPUT_EXPORT_MAGIC.length || Buffer.compare(Buffer.from(data.subarray(0, OUTPUT_EXPORT_MAGIC.length)), OUTPUT_EXPORT_MAGIC) !== 0)
    throw new ColdError("bad_data", "Bad magic from outputs: this is not an export_outputs answer (or it was cut at the start)");
  const plain = await decryptWithViewKey(ctx.backend, ctx.keys.viewSecretKey, data.subarray(OUTPUT_EXPORT_MAGIC.length), "the outputs export");
  if (plain.length < 64) throw new ColdError("bad_data", "Bad data size for outputs");
  if (hex(plain.subarray(0, 32)) !== hex(ctx.keys.spendPublicKey) || hex(plain.subarray(32, 64)) !== hex(ctx.keys.viewPublicKey))
    throw new ColdError("wrong_wallet", "Outputs from are for a different account: import them into the wallet of the address that exported them");
  return decodeExportedOutputs(plain.subarray(64));
}

/**
 * wallet2::import_outputs (exported_transfer_details): transfers from `offset` are replaced by the
 * imported ones (a known output with the same key keeps its record and takes the flags), each new
 * one gets its key image, and the count of transfers is returned.
 */
export function importOutputs(ctx: ColdContext, e: ExportedOutputs): number {
  const t = ctx.ledger.state.transfers;
  if (!ctx.keys.spendSecretKey)
    throw new ColdError("watch_only", "Hot wallets cannot import outputs: this wallet is view-only; import them into the full (offline) wallet, which computes their key images");
  if (e.offset > t.length) throw new ColdError("out_of_range", `Imported outputs omit more outputs that we know of (they start at ${e.offset}, this wallet has ${t.length}). Try using export_outputs all.`);
  if (e.total !== undefined && e.offset + e.outputs.length > e.total) throw new ColdError("bad_data", "Offset is larger than total outputs");
  const originalSize = t.length;
  // 0.18.0.0's pair: the transfers end with the import; a later release's piece: they grow to cover
  // it, or shrink to the exporter's count
  const keepAfter = e.total === undefined ? [] : t.slice(e.offset + e.outputs.length, Math.max(e.offset + e.outputs.length, e.total));
  const next: TransferDetails[] = [];
  for (let i = 0; i < e.outputs.length; i++) {
    const o = e.outputs[i];
    const at = i + e.offset;
    const old = at < originalSize ? t[at] : undefined;
    if (old && old.keyImage !== "" && old.internalIndex === o.internalIndex && old.publicKey === hex(o.pubkey)) {
      next.push({ ...old, globalIndex: o.globalIndex, spent: o.spent, frozen: o.frozen, amount: o.amount, rct: o.rct, keyImageRequest: o.keyImageRequest || undefined });
      continue;
    }
    const opened = openOutput(ctx, o.pubkey, o.txPubKey, o.additionalTxKeys, o.internalIndex);
    if (!opened) throw new ColdError("wrong_wallet", `Failed to generate key image: output ${at} (key ${hex(o.pubkey)}) does not belong to this wallet's subaddresses`);
    if (!opened.keyImage) throw new ColdError("watch_only", "This wallet is view-only: import the outputs into the full wallet, which computes their key images");
    next.push({
      txid: NULL_HASH,
      blockHeight: 0,
      internalIndex: o.internalIndex,
      globalIndex: o.globalIndex,
      amount: o.amount,
      keyImage: hex(opened.keyImage),
      publicKey: hex(o.pubkey),
      mask: IDENTITY,
      rct: o.rct,
      txPubKey: hex(opened.txPubKey),
      subaddress: opened.subaddress,
      unlockTime: 0n,
      coinbase: false,
      spent: o.spent,
      spentHeight: 0,
      spentTxid: "",
      frozen: o.frozen,
      keyImageRequest: true,
    });
  }
  if (e.total === undefined) for (let i = 0; i < e.offset; i++) delete t[i].keyImageRequest;
  ctx.ledger.replaceTransfersFrom(e.offset, [...next, ...keepAfter]);
  return ctx.ledger.state.transfers.length;
}
