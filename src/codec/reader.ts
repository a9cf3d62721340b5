/**
 * A bounds-checked byte reader for Monero's binary formats. Every read names what it reads; a read
 * past the end, a malformed varint or an impossible count throws a `FormatError` carrying that name
 * and the offset. It never reads past `end`, never lets a typed array throw a RangeError, and never
 * allocates from an untrusted length before checking it against the bytes that remain.
 */
import { decodeVarint, VarintError } from "./varint.js";

/**
 * What is being read, for error messages only: a string, or a `Where` that builds its text only
 * when an error needs it (a parser reading thousands of fields then builds no path strings).
 */
export type Label = string | Where;

/** A label made lazily: `${base}${a}${index}${b}` (the index left out when negative). */
export class Where {
  constructor(
    readonly base: Label,
    readonly a: string,
    readonly index = -1,
    readonly b = "",
  ) {}

  toString(): string {
    return `${String(this.base)}${this.a}${this.index >= 0 ? this.index : ""}${this.b}`;
  }
}

/** Why bytes could not be parsed: `what` was being read at byte `offset`. */
export class FormatError extends Error {
  override readonly name = "FormatError";
  /** What was being read (e.g. "tx.vin[2].key_offsets"). */
  readonly what: string;
  constructor(
    what: Label,
    /** Byte offset in the input where the problem was found. */
    readonly offset: number,
    /** The problem, without the location. */
    readonly problem: string,
  ) {
    super(`${String(what)} at offset ${offset}: ${problem}`);
    this.what = String(what);
  }
}

export class Reader {
  /** Current offset in `buf`. */
  pos: number;
  readonly end: number;
  /**
   * Read a varint at the very end as 0 instead of failing, as Monero's binary_archive does
   * (tools::read_varint returns without error on empty input). Off by default: only monerod's
   * RPC sanity check (tx_sanity_check's parse) needs it; consensus parsing is strict.
   */
  eofVarintsAreZero = false;

  constructor(
    readonly buf: Uint8Array,
    offset = 0,
    end = buf.length,
  ) {
    if (offset < 0 || end > buf.length || offset > end) throw new RangeError("Reader: bad offset/end");
    this.pos = offset;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  fail(what: Label, problem: string, offset = this.pos): never {
    throw new FormatError(what, offset, problem);
  }

  private need(n: number, what: Label): void {
    if (n > this.end - this.pos)
      this.fail(what, `needs ${n} byte${n === 1 ? "" : "s"}, ${this.end - this.pos} left`);
  }

  u8(what: Label): number {
    if (this.pos >= this.end) this.fail(what, "needs 1 byte, 0 left");
    return this.buf[this.pos++];
  }

  u16le(what: Label): number {
    this.need(2, what);
    const b = this.buf;
    const p = this.pos;
    this.pos += 2;
    return b[p] | (b[p + 1] << 8);
  }

  u32le(what: Label): number {
    this.need(4, what);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16)) + b[p + 3] * 0x1000000;
  }

  u64le(what: Label): bigint {
    this.need(8, what);
    const lo = this.u32le(what);
    const hi = this.u32le(what);
    // below 2^53 one BigInt from an exact double; above, the two halves (three allocations)
    if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /**
   * A copy of the next n bytes, also when the input is a Node Buffer, whose own `slice` is a view:
   * a view would keep the whole input alive (a get_blocks.bin answer of hundreds of KB behind every
   * 32-byte key a wallet keeps) and be copied whole by each worker message that carries it.
   */
  bytes(n: number, what: Label): Uint8Array {
    this.need(n, what);
    const out = Uint8Array.prototype.slice.call(this.buf, this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** A view (no copy) of the next n bytes. */
  view(n: number, what: Label): Uint8Array {
    this.need(n, what);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(n: number, what: Label): void {
    this.need(n, what);
    this.pos += n;
  }

  /** 32 bytes (a key, hash, key image, scalar). */
  key(what: Label): Uint8Array {
    return this.bytes(32, what);
  }

  /** Monero varint as u64 (src/common/varint.h). */
  varint(what: Label): bigint {
    const b = this.buf;
    const p = this.pos;
    if (p >= this.end && this.eofVarintsAreZero) return 0n;
    // fast path: up to 4 bytes without bigint
    if (p < this.end && b[p] < 0x80) {
      this.pos = p + 1;
      return BigInt(b[p]);
    }
    return BigInt(this.varintSlow(what));
  }

  /** Monero varint that must fit `max` (≤ 2^53 − 1); returns a number. */
  varintNumber(what: Label, max: number = Number.MAX_SAFE_INTEGER): number {
    const b = this.buf;
    const p = this.pos;
    if (p >= this.end && this.eofVarintsAreZero) return 0;
    if (p < this.end && b[p] < 0x80) {
      this.pos = p + 1;
      if (b[p] > max) this.fail(what, `value ${b[p]} exceeds ${max}`, p);
      return b[p];
    }
    const v = this.varintSlow(what);
    if (typeof v === "bigint" || v > max) this.fail(what, `value ${v} exceeds ${max}`, p);
    return v;
  }

  /** Decodes a varint of any length; returns a number when it is below 2^53, else a bigint. */
  private varintSlow(what: Label): number | bigint {
    const b = this.buf;
    const start = this.pos;
    let value = 0;
    let mul = 1;
    // numbers are exact up to 7 groups of 7 bits (2^49)
    for (let i = start; i < this.end && i < start + 7; i++) {
      const byte = b[i];
      value += (byte & 0x7f) * mul;
      if ((byte & 0x80) === 0) {
        if (byte === 0 && i > start) this.fail(what, "varint has a redundant trailing zero byte", start);
        this.pos = i + 1;
        return value;
      }
      mul *= 128;
    }
    try {
      const d = decodeVarint(b.subarray(0, this.end), start);
      this.pos = d.next;
      return d.value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(d.value) : d.value;
    } catch (e) {
      if (e instanceof VarintError) this.fail(what, e.message.replace(/ \(?at offset \d+\)?/, ""), start);
      throw e;
    }
  }

  /**
   * A varint element count, checked so that `count * minElementBytes` cannot exceed what is left
   * (Monero's "very basic sanity check" in serialization/container.h uses one byte per element).
   */
  count(what: Label, minElementBytes = 1): number {
    const at = this.pos;
    const n = this.varintNumber(what);
    if (n * minElementBytes > this.end - this.pos)
      this.fail(what, `count ${n} is larger than the ${this.end - this.pos} bytes left allow`, at);
    return n;
  }

  expectEnd(what: Label): void {
    if (this.pos !== this.end) this.fail(what, `${this.end - this.pos} unexpected trailing byte(s)`);
  }
}
