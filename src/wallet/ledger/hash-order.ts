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
import type { SubaddressIndex } from "../keys/subaddress.js";

/** _Prime_rehash_policy::_M_next_bkt's table for small counts. */
const FAST_BKT = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13];
/** The start of libstdc++'s __prime_list past its 6th entry (a tx has at most 16 outputs: 29 buckets is the most reached). */
const PRIMES = [17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97];

/** The hash of a subaddress index on 64-bit platforms (std::hash<cryptonote::subaddress_index>). */
const hashOf = (i: SubaddressIndex): bigint => (BigInt(i.major) << 32n) | BigInt(i.minor);

/**
 * The order in which a libstdc++ `std::unordered_map<subaddress_index, …>` walks `keys` (distinct,
 * given in insertion order): positions into `keys`.
 */
export function unorderedMapOrder(keys: readonly SubaddressIndex[]): number[] {
  const hashes = keys.map(hashOf);
  let buckets = 1;
  let nextResize = 0;
  let list: number[] = [];
  const nextBkt = (n: number): number => {
    if (n < FAST_BKT.length) {
      nextResize = FAST_BKT[n];
      return FAST_BKT[n];
    }
    const p = PRIMES.find((x) => x >= n) ?? n;
    nextResize = p;
    return p;
  };
  /** Puts node k into `into`: at the front of its bucket's group, or at the front when the bucket is empty. */
  const place = (into: number[], k: number, count: number): void => {
    const b = hashes[k] % BigInt(count);
    const at = into.findIndex((x) => hashes[x] % BigInt(count) === b);
    into.splice(at < 0 ? 0 : at, 0, k);
  };
  for (let k = 0; k < keys.length; k++) {
    // _M_need_rehash(buckets, size, 1)
    const n = list.length;
    if (n + 1 > nextResize) {
      const minBkts = Math.max(n + 1, nextResize ? 0 : 11);
      if (minBkts >= buckets) {
        buckets = nextBkt(Math.max(minBkts + 1, buckets * 2));
        const rehashed: number[] = [];
        for (const x of list) place(rehashed, x, buckets);
        list = rehashed;
      } else nextResize = buckets;
    }
    place(list, k, buckets);
  }
  return list;
}

/** The order wallet2 lists a tx's payments in (m_payments): the reverse of the map's walk. Positions into `keys`. */
export function wallet2PaymentOrder(keys: readonly SubaddressIndex[]): number[] {
  return unorderedMapOrder(keys).reverse();
}
