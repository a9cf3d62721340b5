/**
 * monerod's tx_sanity_check (cryptonote_core/tx_sanity_check.cpp): the heuristics send_raw_transaction
 * applies before the pool when do_sanity_checks is set (the default). Not consensus: a relayed tx
 * is never held to them. A tx spending RingCT outputs with more than 10 ring members in all, on a
 * chain with at least 10,000 mature RingCT outputs, must reference mostly distinct outputs (80%)
 * whose median global index lies in the newest 40% of them — what a wallet's gamma picker gives,
 * and what a wallet choosing old decoys does not.
 */
import type { Transaction } from "../protocol/tx.js";

/** Why a tx fails the sanity check; undefined when it passes. */
export type TxSanityFailure = "coinbase" | "few_unique_ring_members" | "old_ring_members";

/** epee::misc_utils::median of u64s: the middle one, or get_mid of the two middle ones. */
function medianU64(values: bigint[]): bigint {
  const v = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (v.length === 0) return 0n;
  const n = Math.floor(v.length / 2);
  if (v.length % 2 === 1) return v[n];
  const a = v[n - 1];
  const b = v[n];
  // get_mid: a/2 + b/2 + ((a%2) + (b%2))/2, without overflow
  return a / 2n + b / 2n + ((a % 2n) + (b % 2n)) / 2n;
}

/** tx_sanity_check(tx, rct_outs_available): `rctOutsAvailable` is get_num_mature_outputs(0). */
export function txSanityCheck(tx: Transaction, rctOutsAvailable: bigint): TxSanityFailure | undefined {
  // is_coinbase: one input, a gen one
  if (tx.vin.length === 1 && tx.vin[0].type === "gen") return "coinbase";
  const unique = new Set<bigint>();
  let n = 0;
  for (const input of tx.vin) {
    if (input.type !== "key" || input.amount !== 0n) continue;
    let abs = 0n;
    for (const off of input.keyOffsets) {
      abs += off;
      unique.add(abs);
    }
    n += input.keyOffsets.length;
  }
  if (n <= 10 || rctOutsAvailable < 10_000n) return undefined;
  if (unique.size < Math.floor((n * 8) / 10)) return "few_unique_ring_members";
  if (medianU64([...unique]) < (rctOutsAvailable * 6n) / 10n) return "old_ring_members";
  return undefined;
}
