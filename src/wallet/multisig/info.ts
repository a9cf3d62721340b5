/**
 * Multisig infos in wallet2's format (wallet2::export_multisig / import_multisig v0.18.0.0):
 * "Monero multisig export\x01" + view-key encryption (cold/cipher.ts) of
 * spend public key ‖ view public key ‖ signer ‖ binary_archive vector<multisig_info>, one per
 * output of the wallet, each {signer, LR pairs (L = k·G, R = k·Hp(P) for fresh nonces k), partial key
 * images (one per multisig key: key·Hp(P))}. Importing the other signers' infos gives each output its
 * full key image: this signer's partial image plus the others' partial images not already in it.
 */
import { FormatError, Reader } from "../../codec/reader.js";
import { Writer } from "../../codec/writer.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { randomScalar } from "../../crypto/random.js";
import { decryptWithViewKey, encryptWithViewKey } from "../cold/cipher.js";
import { ColdError } from "../cold/errors.js";
import { eqBytes, isGoodPubkey, MultisigError } from "./kex-msg.js";
import { bytesToHex as hex } from "../../base/bytes.js";

export const MULTISIG_EXPORT_MAGIC = "Monero multisig export\x01";
/** multisig::signing::kAlphaComponents. */
export const ALPHA_COMPONENTS = 2;

/** One output's multisig_info. */
export interface MultisigInfo {
  readonly signer: Bytes;
  readonly lr: readonly { readonly L: Bytes; readonly R: Bytes }[];
  readonly partialKeyImages: readonly Bytes[];
}

/** tools::combinations_count(k, n): n choose k. */
export function combinations(k: number, n: number): number {
  if (k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/** What export needs of the wallet. */
export interface ExportContext {
  readonly backend: CryptoBackend;
  readonly spendPublicKey: Bytes;
  readonly viewPublicKey: Bytes;
  readonly viewSecretKey: Bytes;
  /** k_base: the signer key is its public key. */
  readonly basePrivkey: Bytes;
  readonly multisigKeys: readonly Bytes[];
  readonly threshold: number;
  readonly total: number;
}

/**
 * export_multisig: the info blob for `outputKeys` (every output's one-time key, in transfer order)
 * and, per output, the fresh nonces (hex) this wallet must keep for signing (they replace earlier ones).
 */
export async function exportMultisigInfo(c: ExportContext, outputKeys: readonly Bytes[]): Promise<{ blob: Bytes; nonces: string[][] }> {
  const b = c.backend;
  const signer = b.scalarMultBase(c.basePrivkey);
  const nlr = combinations(c.total - c.threshold, c.total - 1) * ALPHA_COMPONENTS;
  const w = new Writer(64 + outputKeys.length * (96 + nlr * 64));
  w.bytes(c.spendPublicKey).bytes(c.viewPublicKey).bytes(signer);
  w.varint(outputKeys.length);
  const nonces: string[][] = [];
  for (const P of outputKeys) {
    const hp = b.hashToEc(P);
    w.bytes(signer);
    w.varint(nlr);
    const ks: string[] = [];
    for (let i = 0; i < nlr; i++) {
      const k = randomScalar(b);
      ks.push(hex(k));
      const R = b.scalarMult(k, hp);
      if (!R) throw new MultisigError("Failed to make a multisig nonce");
      w.bytes(b.scalarMultBase(k)).bytes(R);
    }
    nonces.push(ks);
    w.varint(c.multisigKeys.length);
    for (const m of c.multisigKeys) w.bytes(b.generateKeyImage(P, m));
  }
  const cipher = await encryptWithViewKey(b, c.viewSecretKey, w.finish());
  const magic = new TextEncoder().encode(MULTISIG_EXPORT_MAGIC);
  const out = new Uint8Array(magic.length + cipher.length);
  out.set(magic);
  out.set(cipher, magic.length);
  return { blob: out, nonces };
}

/** One imported blob: its signer and its per-output infos. */
export interface ImportedInfo {
  readonly signer: Bytes;
  readonly infos: MultisigInfo[];
}

/**
 * Opens one info blob (import_multisig's per-blob part): magic, authentication with the group's view
 * key, the group's address, then the infos with every point in the prime subgroup.
 */
export async function parseMultisigInfo(b: CryptoBackend, c: { spendPublicKey: Bytes; viewPublicKey: Bytes; viewSecretKey: Bytes }, blob: Bytes, what: string): Promise<ImportedInfo> {
  const magic = new TextEncoder().encode(MULTISIG_EXPORT_MAGIC);
  if (blob.length < magic.length || !eqBytes(blob.subarray(0, magic.length), magic)) throw new MultisigError(`Bad multisig info file magic in ${what}: pass what export_multisig_info answered, whole`);
  let data: Bytes;
  try {
    data = await decryptWithViewKey(b, c.viewSecretKey, blob.subarray(magic.length), what);
  } catch (e) {
    if (e instanceof ColdError) throw new MultisigError(`${e.message}; it comes from another group, or was cut or altered`);
    throw e;
  }
  if (data.length < 96) throw new MultisigError(`Bad data size in ${what}`);
  if (!eqBytes(data.subarray(0, 32), c.spendPublicKey) || !eqBytes(data.subarray(32, 64), c.viewPublicKey))
    throw new MultisigError(`Multisig info is for a different account (${what})`);
  const signer = data.slice(64, 96);
  const infos: MultisigInfo[] = [];
  try {
    const r = new Reader(data.subarray(96));
    const n = r.count("multisig infos", 34);
    for (let i = 0; i < n; i++) {
      const s = r.key("signer");
      const nlr = r.count("LR pairs", 64);
      const lr: { L: Bytes; R: Bytes }[] = [];
      for (let j = 0; j < nlr; j++) lr.push({ L: r.key("L"), R: r.key("R") });
      const nki = r.count("partial key images", 32);
      const pkis: Bytes[] = [];
      for (let j = 0; j < nki; j++) pkis.push(r.key("partial key image"));
      infos.push({ signer: s, lr, partialKeyImages: pkis });
    }
    r.expectEnd("multisig info");
  } catch (e) {
    if (e instanceof FormatError) throw new MultisigError(`Failed to load output data from ${what}: ${e.message}`);
    throw e;
  }
  for (const e of infos) {
    for (const p of e.lr) if (!isGoodPubkey(b, p.L) || !isGoodPubkey(b, p.R)) throw new MultisigError(`Multisig value is not in the main subgroup (${what})`);
    for (const k of e.partialKeyImages) if (!isGoodPubkey(b, k)) throw new MultisigError(`Multisig partial key image is not in the main subgroup (${what})`);
  }
  return { signer, infos };
}

/**
 * generate_multisig_composite_key_image: this wallet's partial image (`ownPartial`, from its share)
 * plus every other signer's partial image not among this wallet's own (`ownKeys`·Hp(P)).
 */
export function compositeKeyImage(b: CryptoBackend, outputKey: Bytes, ownPartial: Bytes, ownKeys: readonly Bytes[], others: readonly MultisigInfo[]): Bytes {
  const used = new Set(ownKeys.map((k) => hex(b.generateKeyImage(outputKey, k))));
  let ki = ownPartial;
  for (const info of others)
    for (const pki of info.partialKeyImages) {
      const h = hex(pki);
      if (used.has(h)) continue;
      used.add(h);
      const sum = b.pointAdd(ki, pki);
      if (!sum) throw new MultisigError("A partial key image is not a curve point");
      ki = sum;
    }
  return ki;
}

