/**
 * The order in which wallet2 lists the payments of one transaction. process_new_transaction collects
 * what each subaddress got in a `std::unordered_map<subaddress_index, uint64_t>` (inserted in output
 * order, hash = major << 32 | minor), walks it, and emplaces one payment_details per entry into the
 * `std::unordered_multimap` m_payments (or m_unconfirmed_payments), where libstdc++ puts a new element
 * before the ones of equal key (the payment id): so a tx's payments are listed in the reverse of the
 * unordered_map's iteration order. get_transfer_by_txid's `transfer` is the first of them.
 *
 * The iteration order is libstdc++'s (GCC 12, what Debian's monero 0.18.0.0 is built with): a
 * default-constructed map has 1 bucket and grows on its first insert to 13 buckets
 * (_Prime_rehash_policy: at least 11, load factor 1), then to 29 at the 14th element; a node goes to
 * the front of its bucket's group, or to the front of the whole list when its bucket was empty, and a
 * rehash re-inserts the nodes in list order by the same rule. test/wallet-payment-order.test.ts checks
 * this against a program compiled with g++.
 */
import { unorderedOrder } from "../../protocol/std-order.js";
import type { SubaddressIndex } from "../keys/subaddress.js";

/** The hash of a subaddress index on 64-bit platforms (std::hash<cryptonote::subaddress_index>). */
const hashOf = (i: SubaddressIndex): bigint => (BigInt(i.major) << 32n) | BigInt(i.minor);

/**
 * The order in which a libstdc++ `std::unordered_map<subaddress_index, …>` walks `keys` (distinct,
 * given in insertion order): positions into `keys` (protocol/std-order.ts models the map).
 */
export function unorderedMapOrder(keys: readonly SubaddressIndex[]): number[] {
  return unorderedOrder(keys.map(hashOf));
}

/** The order wallet2 lists a tx's payments in (m_payments): the reverse of the map's walk. Positions into `keys`. */
export function wallet2PaymentOrder(keys: readonly SubaddressIndex[]): number[] {
  return unorderedMapOrder(keys).reverse();
}
