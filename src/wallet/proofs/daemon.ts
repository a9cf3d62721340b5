/**
 * What the proofs ask of the daemon, as wallet2 asks it: transactions by id (/gettransactions with
 * prune, read by wallet2::get_pruned_tx), ring members (/get_outs.bin), key image spent status
 * (/is_key_image_spent), the chain height (confirmations) and the connection check of
 * check_reserve_proof. Node failures become ProofErrors with wallet2's words.
 */
import type { NodeApi } from "../../client/node-client.js";
import type { TxEntry } from "../../client/messages.js";
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { FormatError } from "../../codec/reader.js";
import { parseTransaction, type Transaction } from "../../protocol/tx.js";
import { txHash } from "../../protocol/tx-hash.js";
import { ProofError } from "./errors.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";

const hexRe = /^([0-9a-fA-F]{2})*$/;
const why = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** A transaction as the daemon gave it, with the id wallet2 computes for it. */
export interface FetchedTx {
  tx: Transaction;
  /** Lower-case hex. */
  hash: string;
  inPool: boolean;
  blockHeight: bigint;
}

/** The node, or a ProofError saying there is none (`words`: wallet2's message for a failed call). */
export function needNode(node: NodeApi | null, words: string): NodeApi {
  if (!node) throw new ProofError("daemon", `${words}: this wallet service has no daemon; set one with set_daemon or --daemon-address`);
  return node;
}

/**
 * wallet2::get_pruned_tx: a whole tx (as_hex, or pruned + prunable) is parsed and hashed, and must
 * hash to the id the entry claims; a pruned one is hashed with the prunable hash the daemon gives
 * (v2), or taken at its word (v1). Null when the entry cannot be read.
 */
export function prunedTx(b: CryptoBackend, e: TxEntry): { tx: Transaction; hash: string } | null {
  try {
    const whole = e.as_hex !== "" ? e.as_hex : e.pruned_as_hex !== "" && e.prunable_as_hex !== "" ? e.pruned_as_hex + e.prunable_as_hex : "";
    if (whole !== "") {
      if (!hexRe.test(whole)) return null;
      const tx = parseTransaction(unhex(whole));
      const hash = hex(txHash(tx, b));
      if (e.tx_hash !== "" && e.tx_hash.toLowerCase() !== hash) return null;
      return { tx, hash };
    }
    if (e.pruned_as_hex !== "" && e.prunable_hash !== "") {
      if (!hexRe.test(e.pruned_as_hex) || e.prunable_hash.length !== 64 || !hexRe.test(e.prunable_hash)) return null;
      const tx = parseTransaction(unhex(e.pruned_as_hex), { pruned: true });
      if (tx.version > 1) return { tx, hash: hex(txHash(tx, b, unhex(e.prunable_hash))) };
      if (e.tx_hash.length !== 64 || !hexRe.test(e.tx_hash)) return null;
      return { tx, hash: e.tx_hash.toLowerCase() };
    }
    return null;
  } catch (err) {
    if (err instanceof FormatError || err instanceof RangeError) return null;
    throw err;
  }
}

/** What wallet2 says when /gettransactions fails, gives a wrong count, or an entry does not read. */
export interface FetchWords {
  /** The call failed (no connection, error status). */
  readonly fail: string;
  /** The daemon answered `got` entries. */
  readonly count: (got: number) => string;
  /** An entry does not parse. */
  readonly parse: string;
}

/** /gettransactions of `txids` (pruned), the entries in the request's order; none asked, none fetched. */
export async function fetchTxEntries(node: NodeApi, txids: readonly string[], words: FetchWords): Promise<TxEntry[]> {
  if (txids.length === 0) return [];
  let entries: TxEntry[];
  try {
    entries = (await node.getTransactions([...txids], { prune: true })).txs;
  } catch (e) {
    throw new ProofError("daemon", `${words.fail}: ${why(e)}; check that the daemon is running and reachable (set_daemon)`, { cause: e });
  }
  if (entries.length !== txids.length) {
    const what = txids.length === 1 ? "this transaction" : "every transaction of the proof";
    throw new ProofError("internal", `${words.count(entries.length)}: the daemon does not know ${what}; check the txid and that the daemon is synced`);
  }
  return entries;
}

/** An entry read with get_pruned_tx, or a ProofError with `parseWords`. */
export function readTx(b: CryptoBackend, e: TxEntry, parseWords: string): FetchedTx {
  const p = prunedTx(b, e);
  if (!p) throw new ProofError("internal", `${parseWords}: the daemon's answer for ${e.tx_hash || "the transaction"} does not parse or does not hash to its id`);
  return { ...p, inPool: e.in_pool, blockHeight: e.block_height };
}

/** One transaction by id, read, and checked to be the one asked for (get_tx_proof, check_tx_proof). */
export async function fetchTx(node: NodeApi, b: CryptoBackend, txid: string, words: FetchWords, checkHash: boolean): Promise<FetchedTx> {
  const [e] = await fetchTxEntries(node, [txid], words);
  const t = readTx(b, e, words.parse);
  if (checkHash && t.hash !== txid.toLowerCase()) throw new ProofError("internal", "Failed to get the right transaction from daemon: its answer hashes to another txid; check the daemon");
  return t;
}

/** /get_outs.bin of (amount, global index) pairs; the output keys in the order asked. */
export async function fetchOutputKeys(node: NodeApi, amount: bigint, indices: readonly bigint[]): Promise<Bytes[]> {
  let outs: { key: Bytes }[];
  try {
    outs = (await node.getOutsBin(indices.map((index) => ({ amount, index })), false)).outs;
  } catch (e) {
    throw new ProofError("daemon", `failed to get outs: ${why(e)}; the ring members could not be read from the daemon (is it synced?)`, { cause: e });
  }
  if (outs.length !== indices.length)
    throw new ProofError("internal", `daemon returned wrong response for get_outs.bin, wrong amounts count = ${outs.length}, expected ${indices.length}`);
  return outs.map((o) => o.key);
}

/** /is_key_image_spent: per key image, 0 unspent, 1 spent in the chain, 2 spent in the pool. */
export async function keyImagesSpent(node: NodeApi, keyImages: readonly string[]): Promise<number[]> {
  const words = "Failed to get key image spent status from daemon";
  let v: unknown;
  try {
    v = await node.json("/is_key_image_spent", { key_images: [...keyImages] });
  } catch (e) {
    throw new ProofError("daemon", `${words}: ${why(e)}`, { cause: e });
  }
  const st = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as { status?: unknown; spent_status?: unknown }) : {};
  const list = Array.isArray(st.spent_status) ? st.spent_status : [];
  if (st.status !== "OK" || list.length !== keyImages.length) throw new ProofError("daemon", `${words}: the daemon answered ${typeof st.status === "string" ? st.status : "nothing usable"}`);
  return list.map((x) => Number(x));
}

/** The daemon's chain height (wallet2::get_daemon_blockchain_height), or null when it cannot say. */
export async function chainHeight(node: NodeApi): Promise<bigint | null> {
  try {
    return BigInt((await node.getHeight()).height);
  } catch {
    return null;
  }
}

/** wallet2::check_connection as check_reserve_proof uses it ("Failed to connect to daemon: …"). */
export async function checkConnection(node: NodeApi | null): Promise<NodeApi> {
  const n = needNode(node, "Failed to connect to daemon");
  try {
    await n.getVersion();
  } catch (e) {
    throw new ProofError("daemon", `Failed to connect to daemon: ${why(e)}; check that the daemon is running and reachable (set_daemon)`, { cause: e });
  }
  return n;
}
