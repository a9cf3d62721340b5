/**
 * export_key_images / import_key_images as monero-wallet-rpc answers them (wallet2::export_key_images,
 * import_key_images(signed_key_images, offset, …), v0.18): each key image signed by its output's
 * one-time key with a one-member ring signature over the key image itself. The full wallet exports;
 * the view-only wallet imports, checks every signature, asks the daemon which are spent, and from
 * then on sees its own spends.
 */
import type { Bytes } from "../../crypto/backend.js";
import { generateRingSignature } from "../../crypto/keys.js";
import { inMainSubgroup } from "../../crypto/ringct/scalar.js";
import { type ColdContext, openOutput } from "./context.js";
import { ColdError } from "./errors.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

export interface SignedKeyImage {
  keyImage: Bytes;
  signature: Bytes;
}

/** wallet2::export_key_images(all): from the first requested one (all: from 0). */
export function exportKeyImages(ctx: ColdContext, all: boolean): { offset: number; signed: SignedKeyImage[] } {
  const b = ctx.backend;
  const t = ctx.ledger.state.transfers;
  let offset = 0;
  if (!all) while (offset < t.length && !t[offset].keyImageRequest) offset++;
  if (!ctx.keys.spendSecretKey && offset < t.length)
    throw new ColdError("watch_only", "This wallet is view-only and cannot sign key images: export them from the full wallet (after import_outputs there)");
  const signed: SignedKeyImage[] = [];
  for (let n = offset; n < t.length; n++) {
    const td = t[n];
    if (!td.txPubKey) throw new ColdError("bad_data", `the wallet's record of output ${td.txid}:${td.internalIndex} predates exports; rescan_blockchain once, then export again`);
    const pub = unhex(td.publicKey);
    const opened = openOutput(ctx, pub, unhex(td.txPubKey), [], td.internalIndex);
    if (!opened?.secretKey || !opened.keyImage) throw new ColdError("sign_failed", `Failed to generate key image for output ${n} (key ${td.publicKey})`);
    if (td.keyImage !== "" && td.keyImage !== hex(opened.keyImage)) throw new ColdError("sign_failed", `key_image generated not matched with cached key image at output ${n}`);
    signed.push({ keyImage: opened.keyImage, signature: generateRingSignature(b, opened.keyImage, opened.keyImage, pub, opened.secretKey, 0) });
  }
  return { offset, signed };
}

/** The checks of import_key_images: the key images not already known, in the subgroup, each signed by its output's key. */
function checkSignatures(ctx: ColdContext, signed: readonly SignedKeyImage[], offset: number): void {
  const b = ctx.backend;
  const t = ctx.ledger.state.transfers;
  const todo: number[] = [];
  for (let n = 0; n < signed.length; n++) if (t[n + offset].keyImage !== hex(signed[n].keyImage)) todo.push(n);
  const fail = (n: number, why: "domain" | "signature"): never => {
    const { keyImage, signature } = signed[n];
    const where = `${n + offset}/${signed.length}, key image ${hex(keyImage)}`;
    if (why === "domain") throw new ColdError("bad_data", `Key image out of validity domain: input ${where}`);
    throw new ColdError(
      "bad_signature",
      `Signature check failed ${where}, signature ${hex(signature)}, pubkey ${t[n + offset].publicKey}: the key images were not signed by this wallet's outputs at this offset`,
    );
  };
  if (b.checkKeyImageSignatures && todo.length > 0) {
    const kis = new Uint8Array(32 * todo.length);
    const pubs = new Uint8Array(32 * todo.length);
    const sigs = new Uint8Array(64 * todo.length);
    todo.forEach((n, j) => {
      kis.set(signed[n].keyImage, 32 * j);
      pubs.set(unhex(t[n + offset].publicKey), 32 * j);
      sigs.set(signed[n].signature, 64 * j);
    });
    const bad = b.checkKeyImageSignatures(kis, pubs, sigs);
    if (bad) fail(todo[bad.index], bad.why);
    return;
  }
  for (const n of todo) {
    const { keyImage, signature } = signed[n];
    if (!inMainSubgroup(b, keyImage)) fail(n, "domain");
    if (!b.checkRingSignature(keyImage, keyImage, unhex(t[n + offset].publicKey), signature)) fail(n, "signature");
  }
}

/** /is_key_image_spent for the imported key images: per image, 0 unspent, 1 spent in the chain, 2 in the pool. */
async function querySpent(ctx: ColdContext, signed: readonly SignedKeyImage[]): Promise<number[]> {
  if (!ctx.node) throw new ColdError("no_daemon", "no connection to daemon: import_key_images asks the daemon which key images are spent");
  let v: unknown;
  try {
    v = await ctx.node.json("/is_key_image_spent", { key_images: signed.map((s) => hex(s.keyImage)) });
  } catch (e) {
    throw new ColdError("daemon", `is_key_image_spent failed: ${e instanceof Error ? e.message : String(e)}; check the daemon connection (set_daemon)`, { cause: e });
  }
  const st = typeof v === "object" && v !== null ? (v as { status?: unknown; spent_status?: unknown }) : {};
  const list = Array.isArray(st.spent_status) ? st.spent_status : [];
  if (st.status !== "OK") throw new ColdError("daemon", `is_key_image_spent failed: the daemon answered ${typeof st.status === "string" ? st.status : "nothing usable"}`);
  if (list.length !== signed.length)
    throw new ColdError("daemon", `daemon returned wrong response for is_key_image_spent, wrong amounts count = ${list.length}, expected ${signed.length}`);
  return list.map(Number);
}

/** What import_key_images answers. */
export interface ImportKeyImagesResult {
  height: number;
  spent: bigint;
  unspent: bigint;
}

/**
 * wallet2::import_key_images: checks each signature against the output at offset + n (skipped where
 * the same key image is already known), records the key images, and with `checkSpent` asks the
 * daemon (is_key_image_spent) which are spent. The spent and unspent totals cover every transfer up
 * to the last imported one, frozen ones excepted.
 */
export async function importKeyImages(ctx: ColdContext, signed: readonly SignedKeyImage[], offset: number, checkSpent: boolean): Promise<ImportKeyImagesResult> {
  const t = ctx.ledger.state.transfers;
  if (offset > t.length) throw new ColdError("out_of_range", `Offset larger than known outputs (offset ${offset}, this wallet knows ${t.length}): export the key images again from the full wallet with all=true, or refresh this wallet first`);
  if (signed.length > t.length - offset)
    throw new ColdError("out_of_range", `The blockchain is out of date compared to the signed key images (${signed.length} from offset ${offset}, this wallet knows ${t.length} outputs): refresh this wallet, then import again`);
  if (signed.length === 0 && offset === 0) return { height: 0, spent: 0n, unspent: 0n };
  // the daemon's answer is asked for while the signatures are checked (wallet2 asks after); it is
  // used only when every check holds
  const spentStatus = checkSpent ? querySpent(ctx, signed) : null;
  if (spentStatus) {
    spentStatus.catch(() => undefined); // awaited below, after the checks
    await new Promise((r) => setImmediate(r)); // let the request leave before the checks take the thread
  }
  checkSignatures(ctx, signed, offset);
  const status = spentStatus ? await spentStatus : null;
  for (let n = 0; n < signed.length; n++) ctx.ledger.setKeyImage(n + offset, hex(signed[n].keyImage), false);
  if (status) {
    for (let n = 0; n < status.length; n++) {
      const td = t[n + offset];
      const spent = status[n] !== 0;
      if (spent && !td.spent) {
        td.spent = true;
        td.spentHeight = 0; // the spending tx is not known here (wallet2 finds it only among txs that paid change)
      } else if (!spent && td.spent && td.spentTxid === "") {
        td.spent = false;
      }
    }
  }
  let spent = 0n;
  let unspent = 0n;
  for (let i = 0; i < offset + signed.length; i++) {
    const td = t[i];
    if (td.frozen) continue;
    if (td.spent) spent += td.amount;
    else unspent += td.amount;
  }
  return { height: t[offset + signed.length - 1]?.blockHeight ?? 0, spent, unspent };
}
