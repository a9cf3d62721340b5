/**
 * The iteration order of a libstdc++ `std::unordered_map` (GCC 12, what Debian's monero 0.18.0.0 is
 * built with), for answers that monerod and wallet2 write by walking one: monerod's ZMQ
 * get_transactions (`txs`, keyed by tx id) and get_transaction_pool (`key_images`), wallet2's
 * payments of one tx (wallet/ledger/hash-order.ts).
 *
 * The model: a singly linked list of nodes and, per bucket, the node before the bucket's group. A
 * new node goes to the front of its bucket's group, or to the front of the whole list when its
 * bucket is empty (_M_insert_bucket_begin); a rehash re-inserts the nodes in list order by the same
 * rule (_M_rehash_aux). Bucket counts follow _Prime_rehash_policy with load factor 1: a small table
 * for counts under 14, else the first prime of libstdc++'s __prime_list not below the count (the
 * primes below were read off `bucket_count()` of a g++ 12 build); before an insert that would pass
 * the resize mark the table grows to at least twice its buckets. Keys must be distinct; their hash
 * is a size_t (Monero's hashes, key images and public keys hash to their first 8 bytes, little
 * endian).
 */

/** _Prime_rehash_policy::_M_next_bkt's table for small counts. */
const FAST_BKT = [2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13];
/** libstdc++'s __prime_list from 17 on, as far as any answer can reach. */
const PRIMES = [
  17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293,
  313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549,
  2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173, 16411, 17749, 19183,
  20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733, 107897, 116731,
  126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881, 520241, 562841,
  608903, 658753, 712697, 771049, 834181, 902483, 976369, 1056323, 1142821, 1236397, 1337629, 1447153, 1565659, 1693859, 1832561, 1982627, 2144977, 2320627, 2510653,
  2716249, 2938679, 3179303, 3439651, 3721303, 4026031, 4355707, 4712381, 5098259,
];

const BEFORE_BEGIN = -1;
const NONE = -2;

/** A libstdc++ unordered_map's node order, fed the keys' hashes as they are inserted. */
export class UnorderedOrder {
  private buckets = 1;
  private nextResize = 0;
  private head = NONE;
  private readonly next: number[] = [];
  private readonly hashes: bigint[] = [];
  /** Bucket → the node before its group (BEFORE_BEGIN for the list's head). */
  private before = new Map<bigint, number>();

  /** _M_next_bkt(n), setting the resize mark as it does. */
  private nextBkt(n: number): number {
    if (n < FAST_BKT.length) {
      if (n === 0) return 1;
      this.nextResize = FAST_BKT[n];
      return FAST_BKT[n];
    }
    const p = PRIMES.find((x) => x >= n);
    if (p === undefined) throw new RangeError(`unordered_map with ${n} buckets is beyond the modelled sizes`);
    this.nextResize = p;
    return p;
  }

  private link(k: number): void {
    const b = this.hashes[k] % BigInt(this.buckets);
    const prev = this.before.get(b);
    if (prev === undefined) {
      this.next[k] = this.head;
      if (this.head !== NONE) this.before.set(this.hashes[this.head] % BigInt(this.buckets), k);
      this.head = k;
      this.before.set(b, BEFORE_BEGIN);
    } else if (prev === BEFORE_BEGIN) {
      this.next[k] = this.head;
      this.head = k;
    } else {
      this.next[k] = this.next[prev];
      this.next[prev] = k;
    }
  }

  private rehash(count: number): void {
    const order = this.order();
    this.buckets = count;
    this.before = new Map();
    this.head = NONE;
    for (const k of order) this.link(k);
  }

  /** reserve(n) on the map as it is. */
  reserve(n: number): this {
    const want = this.nextBkt(Math.max(this.hashes.length + 1, n));
    if (want !== this.buckets) this.rehash(want);
    return this;
  }

  /** Inserts a key (not already there) with `hash`. */
  insert(hash: bigint): this {
    const n = this.hashes.length;
    // _M_need_rehash(buckets, n, 1)
    if (n + 1 > this.nextResize) {
      // nothing allocated yet (mark 0): at least 11 buckets
      const minBkts = Math.max(n + 1, this.nextResize ? 0 : 11);
      if (minBkts >= this.buckets) this.rehash(this.nextBkt(Math.max(minBkts + 1, this.buckets * 2)));
      else this.nextResize = this.buckets;
    }
    this.hashes.push(hash);
    this.next.push(NONE);
    this.link(n);
    return this;
  }

  /** Insertion positions in iteration order. */
  order(): number[] {
    const out: number[] = [];
    for (let k = this.head; k !== NONE; k = this.next[k]) out.push(k);
    return out;
  }
}

/** std::hash of a Monero hash, key image or key: its first 8 bytes as a little-endian size_t. */
export function hash32Key(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
}

/** The iteration order of a default-constructed map after inserting keys with `hashes` in order. */
export function unorderedOrder(hashes: readonly bigint[]): number[] {
  const m = new UnorderedOrder();
  for (const h of hashes) m.insert(h);
  return m.order();
}
