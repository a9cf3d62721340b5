/**
 * Subaddresses (src/device/device_default.cpp, src/wallet/wallet2.cpp):
 *   m = hash_to_scalar("SubAddr\0" ‖ a ‖ le32(major) ‖ le32(minor)),
 *   D = B + m·G (spend key), C = a·D (view key); index (0, 0) is the primary address (B, A).
 *
 * `SubaddressTable` maps spend public keys D to (major, minor) for output detection. It is an
 * open-addressing table over typed arrays holding only the first 8 bytes of each D (the keys are
 * uniformly distributed points, so those bytes are the hash), 17 bytes a slot; a prefix hit is
 * confirmed by deriving D for the candidate index again and comparing all 32 bytes, which costs one
 * scalar multiplication on a real hit and nothing on the (overwhelmingly common) misses.
 */
import type { Bytes, CryptoBackend } from "../../crypto/backend.js";
import { defaultBackend } from "../../crypto/index.js";
import { encodeAddress } from "../../protocol/address.js";
import type { Network } from "../../protocol/network.js";

export interface SubaddressIndex {
  readonly major: number;
  readonly minor: number;
}

/** The keys subaddress derivation needs: the view secret and the primary spend public key. */
export interface SubaddressKeys {
  readonly viewSecretKey: Bytes;
  readonly spendPublicKey: Bytes;
  /** Only used for index (0, 0). */
  readonly viewPublicKey: Bytes;
}

const HASH_KEY_SUBADDRESS = Uint8Array.from([0x53, 0x75, 0x62, 0x41, 0x64, 0x64, 0x72, 0x00]); // "SubAddr\0"
const U32_MAX = 0xffffffff;

function checkIndex(major: number, minor: number): void {
  if (!Number.isInteger(major) || major < 0 || major > U32_MAX || !Number.isInteger(minor) || minor < 0 || minor > U32_MAX) {
    throw new RangeError(`subaddress index (${major}, ${minor}) is not a pair of u32`);
  }
}

/**
 * Derives subaddress keys with reusable buffers: three backend calls per index (hash_to_scalar,
 * scalarMultBase, pointAdd), no allocation when an output buffer is given.
 */
export class SubaddressDeriver {
  private readonly data = new Uint8Array(48);
  private readonly view: DataView;
  private readonly m = new Uint8Array(32);
  private readonly mG = new Uint8Array(32);

  constructor(
    readonly keys: SubaddressKeys,
    readonly backend: CryptoBackend = defaultBackend(),
  ) {
    this.data.set(HASH_KEY_SUBADDRESS, 0);
    this.data.set(keys.viewSecretKey, 8);
    this.view = new DataView(this.data.buffer);
  }

  /** m for (major, minor) (get_subaddress_secret_key). */
  secretKey(major: number, minor: number, out: Bytes = new Uint8Array(32)): Bytes {
    checkIndex(major, minor);
    this.view.setUint32(40, major, true);
    this.view.setUint32(44, minor, true);
    return this.backend.hashToScalar(this.data, out);
  }

  /** D for (major, minor) (get_subaddress_spend_public_key). */
  spendPublicKey(major: number, minor: number, out: Bytes = new Uint8Array(32)): Bytes {
    if (major === 0 && minor === 0) {
      out.set(this.keys.spendPublicKey);
      return out;
    }
    this.secretKey(major, minor, this.m);
    this.backend.scalarMultBase(this.m, this.mG);
    const d = this.backend.pointAdd(this.keys.spendPublicKey, this.mG, out);
    if (!d) throw new Error("the account's spend public key is not a valid point");
    return d;
  }

  /** D for minors begin..end−1 of account `major`, concatenated (get_subaddress_spend_public_keys). */
  spendPublicKeys(major: number, begin: number, end: number): Bytes {
    if (begin > end) throw new RangeError("begin > end");
    if (end > begin) checkIndex(major, end - 1);
    // the backend's batch: one decompression of B, one inversion per chunk, two threads for many
    if (this.backend.subaddressSpendKeys && end - begin >= 16) {
      const batch = this.backend.subaddressSpendKeys(this.keys.spendPublicKey, this.keys.viewSecretKey, major, begin, end);
      if (!batch) throw new Error("the account's spend public key is not a valid point");
      return batch;
    }
    const out = new Uint8Array((end - begin) * 32);
    for (let i = begin; i < end; i++) this.spendPublicKey(major, i, out.subarray((i - begin) * 32, (i - begin + 1) * 32));
    return out;
  }

  /** (D, C) for (major, minor) (get_subaddress). */
  publicKeys(major: number, minor: number): { spendPublicKey: Bytes; viewPublicKey: Bytes } {
    if (major === 0 && minor === 0) return { spendPublicKey: this.keys.spendPublicKey, viewPublicKey: this.keys.viewPublicKey };
    const spendPublicKey = this.spendPublicKey(major, minor);
    const viewPublicKey = this.backend.scalarMult(this.keys.viewSecretKey, spendPublicKey);
    if (!viewPublicKey) throw new Error("derived subaddress spend key does not decompress");
    return { spendPublicKey, viewPublicKey };
  }

  /** The address string of (major, minor): a subaddress, or the standard address for (0, 0). */
  address(network: Network, major: number, minor: number): string {
    const k = this.publicKeys(major, minor);
    const kind = major === 0 && minor === 0 ? "standard" : "subaddress";
    return encodeAddress(network, kind, k.spendPublicKey, k.viewPublicKey, null, this.backend);
  }
}

/** A SubaddressTable's state: what `snapshot` gives and `adopt` takes. */
export interface SubaddressTableSnapshot {
  readonly cap: number;
  readonly count: number;
  readonly prefixLo: Uint32Array;
  readonly prefixHi: Uint32Array;
  readonly majors: Uint32Array;
  readonly minors: Uint32Array;
  readonly used: Uint8Array;
}

/** A SubaddressLookahead's state (see `SubaddressLookahead.snapshot`). */
export interface LookaheadSnapshot {
  readonly lookaheadMajor: number;
  readonly lookaheadMinor: number;
  readonly counts: readonly number[];
  readonly derived: readonly number[];
  readonly table: SubaddressTableSnapshot;
}

/** Open-addressing map from subaddress spend public keys to their index. */
export class SubaddressTable {
  private cap: number;
  private prefixLo: Uint32Array;
  private prefixHi: Uint32Array;
  private majors: Uint32Array;
  private minors: Uint32Array;
  private used: Uint8Array;
  private count = 0;
  private readonly deriver: SubaddressDeriver;
  private readonly scratch = new Uint8Array(32);
  /**
   * Full keys of slots a lookup already confirmed (a slot holds only an 8-byte prefix, so a hit
   * derives the key to compare: ~25 µs). A subaddress paid again is confirmed from here. Slots move
   * only when the table grows or adopts another's arrays; both clear it. Bounded by VERIFIED_MAX.
   */
  private readonly verified = new Map<number, Bytes>();
  private static readonly VERIFIED_MAX = 4096;

  constructor(keys: SubaddressKeys, backend: CryptoBackend = defaultBackend(), initialCapacity = 1024) {
    this.deriver = new SubaddressDeriver(keys, backend);
    this.cap = 1;
    while (this.cap < initialCapacity) this.cap *= 2;
    this.prefixLo = new Uint32Array(this.cap);
    this.prefixHi = new Uint32Array(this.cap);
    this.majors = new Uint32Array(this.cap);
    this.minors = new Uint32Array(this.cap);
    this.used = new Uint8Array(this.cap);
  }

  /** Number of distinct indexes held. */
  get size(): number {
    return this.count;
  }

  /** Bytes of typed-array storage (the table's memory, excluding small fixed objects). */
  get byteLength(): number {
    return this.cap * 17;
  }

  /** Inserts D → (major, minor); an index inserted again (same D) is a no-op. */
  set(spendPublicKey: Bytes, major: number, minor: number): void {
    if ((this.count + 1) * 4 > this.cap * 3) this.grow();
    this.place(spendPublicKey, major, minor);
  }

  private place(key: Bytes, major: number, minor: number): void {
    const lo = (key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24)) >>> 0;
    const hi = (key[4] | (key[5] << 8) | (key[6] << 16) | (key[7] << 24)) >>> 0;
    const mask = this.cap - 1;
    for (let s = lo & mask; ; s = (s + 1) & mask) {
      if (!this.used[s]) {
        this.used[s] = 1;
        this.prefixLo[s] = lo;
        this.prefixHi[s] = hi;
        this.majors[s] = major;
        this.minors[s] = minor;
        this.count++;
        return;
      }
      if (this.majors[s] === major && this.minors[s] === minor && this.prefixLo[s] === lo && this.prefixHi[s] === hi) return;
    }
  }

  private grow(): void {
    this.verified.clear();
    const old = { lo: this.prefixLo, hi: this.prefixHi, ma: this.majors, mi: this.minors, used: this.used, cap: this.cap };
    this.cap *= 2;
    this.prefixLo = new Uint32Array(this.cap);
    this.prefixHi = new Uint32Array(this.cap);
    this.majors = new Uint32Array(this.cap);
    this.minors = new Uint32Array(this.cap);
    this.used = new Uint8Array(this.cap);
    this.count = 0;
    const key = new Uint8Array(8);
    const dv = new DataView(key.buffer);
    for (let s = 0; s < old.cap; s++) {
      if (!old.used[s]) continue;
      dv.setUint32(0, old.lo[s], true);
      dv.setUint32(4, old.hi[s], true);
      this.place(key, old.ma[s], old.mi[s]);
    }
  }

  /** Derives and inserts minors begin..end−1 of account `major`. */
  addRange(major: number, begin: number, end: number): void {
    // in slices, so a million keys never hold 32 MB of encodings at once (512 KiB a slice)
    for (let from = begin; from < end; from += 16384) {
      const to = Math.min(end, from + 16384);
      const keys = this.deriver.spendPublicKeys(major, from, to);
      for (let i = from; i < to; i++) this.set(keys.subarray((i - from) * 32, (i - from + 1) * 32), major, i);
    }
  }

  /** The table's arrays, for another thread to adopt instead of deriving the keys again (structured-cloneable). */
  snapshot(): SubaddressTableSnapshot {
    return { cap: this.cap, count: this.count, prefixLo: this.prefixLo, prefixHi: this.prefixHi, majors: this.majors, minors: this.minors, used: this.used };
  }

  /** Replaces the contents with a snapshot of a table over the same keys (its arrays are kept, not copied). */
  adopt(s: SubaddressTableSnapshot): void {
    this.verified.clear();
    this.cap = s.cap;
    this.count = s.count;
    this.prefixLo = s.prefixLo;
    this.prefixHi = s.prefixHi;
    this.majors = s.majors;
    this.minors = s.minors;
    this.used = s.used;
  }

  /** The index whose spend public key is `spendPublicKey`, or null. */
  get(spendPublicKey: Bytes): SubaddressIndex | null {
    const k = spendPublicKey;
    const lo = (k[0] | (k[1] << 8) | (k[2] << 16) | (k[3] << 24)) >>> 0;
    const hi = (k[4] | (k[5] << 8) | (k[6] << 16) | (k[7] << 24)) >>> 0;
    const mask = this.cap - 1;
    for (let s = lo & mask; this.used[s]; s = (s + 1) & mask) {
      if (this.prefixLo[s] !== lo || this.prefixHi[s] !== hi) continue;
      const major = this.majors[s];
      const minor = this.minors[s];
      const known = this.verified.get(s);
      const full = known ?? this.deriver.spendPublicKey(major, minor, this.scratch);
      if (Buffer.compare(full, k) === 0) {
        if (!known) {
          if (this.verified.size >= SubaddressTable.VERIFIED_MAX) this.verified.clear();
          this.verified.set(s, full.slice());
        }
        return { major, minor };
      }
    }
    return null;
  }
}

/**
 * wallet2::set_subaddress_lookahead's checks (its messages). Sizes are u32 as there, but the
 * table lives in memory: more than 2^26 keys per account (67 M, ~2.3 GB) is refused as too large.
 */
export const MAX_LOOKAHEAD_MINOR = 1 << 26;
export const MAX_LOOKAHEAD_MAJOR = 1 << 16;
export function checkLookahead(major: number, minor: number): void {
  if (major === 0) throw new RangeError("Subaddress major lookahead may not be zero");
  if (!Number.isInteger(major) || major < 0 || major > MAX_LOOKAHEAD_MAJOR) throw new RangeError(`Subaddress major lookahead is too large (at most ${MAX_LOOKAHEAD_MAJOR} accounts)`);
  if (minor === 0) throw new RangeError("Subaddress minor lookahead may not be zero");
  if (!Number.isInteger(minor) || minor < 0 || minor > MAX_LOOKAHEAD_MINOR) throw new RangeError(`Subaddress minor lookahead is too large (at most ${MAX_LOOKAHEAD_MINOR} subaddresses)`);
  if (major * minor > MAX_LOOKAHEAD_MINOR) throw new RangeError(`Subaddress lookahead is too large: ${major} × ${minor} keys (at most ${MAX_LOOKAHEAD_MINOR} in all, ~2.3 GB)`);
}

/** min(a + b, 2^32 − 1) (wallet2's get_subaddress_clamped_sum). */
function clampedSum(a: number, b: number): number {
  return Math.min(a + b, U32_MAX);
}

/**
 * The wallet's subaddress bookkeeping as wallet2 does it: how many subaddresses each account has,
 * and a lookup table that also covers a lookahead (default 50 accounts × 200 subaddresses past the
 * last used), so outputs to subaddresses not yet created are still found.
 */
export class SubaddressLookahead {
  private readonly keyTable: SubaddressTable;
  /** Subaddress count of each account (wallet2's m_subaddress_labels sizes). */
  private readonly counts: number[] = [];
  /** Per account, the end of the minor range already in the table (wallet2 re-derives; we skip). */
  private readonly derived: number[] = [];
  /** Ranges [major, from, end) still to derive (deferred mode only). */
  private readonly queue: [number, number, number][] = [];

  /**
   * `deferred`: expansions only queue their ranges; `work(n)` derives n keys at a time (a caller
   * can spread the ~10 µs per key (native batch) over event-loop turns) and reading `table` derives the rest.
   */
  private major: number;
  private minor: number;

  constructor(
    keys: SubaddressKeys,
    lookaheadMajor = 50,
    lookaheadMinor = 200,
    backend: CryptoBackend = defaultBackend(),
    private readonly deferred = false,
  ) {
    checkLookahead(lookaheadMajor, lookaheadMinor);
    this.major = lookaheadMajor;
    this.minor = lookaheadMinor;
    this.keyTable = new SubaddressTable(keys, backend, 16384);
    this.expand(0, 0); // setup_new_blockchain adds the primary account
  }

  /** wallet2's m_subaddress_lookahead_major: accounts looked at past the last one used. */
  get lookaheadMajor(): number {
    return this.major;
  }
  /** wallet2's m_subaddress_lookahead_minor: subaddresses looked at past the last one used, in each account. */
  get lookaheadMinor(): number {
    return this.minor;
  }

  /**
   * wallet2::set_subaddress_lookahead (0.18.2+): new lookahead sizes; when either grew, every
   * account's range (and the accounts past the last) is extended to them. Smaller sizes derive
   * nothing and drop nothing: keys already in the table stay, as wallet2 keeps m_subaddresses.
   */
  setLookahead(major: number, minor: number): void {
    checkLookahead(major, minor);
    const grew = major > this.major || minor > this.minor;
    this.major = major;
    this.minor = minor;
    if (!grew) return;
    const majorEnd = clampedSum(Math.max(this.counts.length, 1) - 1, major);
    for (let m = 0; m < majorEnd; m++) this.derive(m, 0, clampedSum(Math.max(this.counts[m] ?? 0, 1) - 1, minor));
  }

  /** Everything this lookahead holds, for a lookahead over the same keys in another thread to `adopt`. */
  snapshot(): LookaheadSnapshot {
    this.work();
    return { lookaheadMajor: this.major, lookaheadMinor: this.minor, counts: [...this.counts], derived: [...this.derived], table: this.keyTable.snapshot() };
  }

  /** Takes over a snapshot of a lookahead over the same keys (instead of deriving its keys again). */
  adopt(s: LookaheadSnapshot): void {
    this.queue.length = 0;
    this.major = s.lookaheadMajor;
    this.minor = s.lookaheadMinor;
    this.counts.length = 0;
    this.counts.push(...s.counts);
    this.derived.length = 0;
    this.derived.push(...s.derived);
    this.keyTable.adopt(s.table);
  }

  /** The lookup table, complete (queued ranges are derived first). */
  get table(): SubaddressTable {
    this.work();
    return this.keyTable;
  }

  /** Derives up to `budget` queued keys; true when none is left. */
  work(budget = Infinity): boolean {
    let left = budget;
    while (this.queue.length > 0 && left > 0) {
      const q = this.queue[0];
      const n = Math.min(q[2] - q[1], left);
      this.keyTable.addRange(q[0], q[1], q[1] + n);
      q[1] += n;
      left -= n;
      if (q[1] >= q[2]) this.queue.shift();
    }
    return this.queue.length === 0;
  }

  get accountCount(): number {
    return this.counts.length;
  }

  subaddressCount(major: number): number {
    return this.counts[major] ?? 0;
  }

  /** wallet2::expand_subaddresses. */
  expand(major: number, minor: number): void {
    if (this.counts.length <= major) {
      const majorEnd = clampedSum(major, this.lookaheadMajor);
      for (let m = this.counts.length; m < majorEnd; m++) {
        this.derive(m, 0, clampedSum(m === major ? minor : 0, this.lookaheadMinor));
      }
      while (this.counts.length < major) this.counts.push(1);
      this.counts[major] = minor + 1;
    } else if (this.counts[major] <= minor) {
      this.derive(major, this.counts[major], clampedSum(minor, this.lookaheadMinor));
      this.counts[major] = minor + 1;
    }
  }

  private derive(major: number, begin: number, end: number): void {
    const from = Math.max(begin, this.derived[major] ?? 0);
    if (from < end) {
      if (this.deferred) this.queue.push([major, from, end]);
      else this.keyTable.addRange(major, from, end);
    }
    if (end > (this.derived[major] ?? 0) && begin <= (this.derived[major] ?? 0)) this.derived[major] = end;
  }

  /** create_account: a new account; returns its index. */
  addAccount(): number {
    const major = this.counts.length;
    this.expand(major, 0);
    return major;
  }

  /** create_address: a new subaddress of `major`; returns its minor index. */
  addSubaddress(major: number): number {
    if (major >= this.counts.length) throw new RangeError(`account index ${major} is out of bounds`);
    const minor = this.counts[major];
    this.expand(major, minor);
    return minor;
  }
}
