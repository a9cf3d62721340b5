/**
 * A growable byte writer for Monero's binary formats: raw bytes, little-endian integers and Monero
 * varints, written exactly as Monero writes them.
 */

const U64_MAX = (1n << 64n) - 1n;

export class Writer {
  private buf: Uint8Array;
  private len = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
  }

  get length(): number {
    return this.len;
  }

  private ensure(n: number): void {
    const need = this.len + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const nb = new Uint8Array(cap);
    nb.set(this.buf.subarray(0, this.len));
    this.buf = nb;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  u16le(v: number): this {
    this.ensure(2);
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    return this;
  }

  u32le(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`u32 out of range: ${v}`);
    this.ensure(4);
    const b = this.buf;
    b[this.len++] = v & 0xff;
    b[this.len++] = (v >>> 8) & 0xff;
    b[this.len++] = (v >>> 16) & 0xff;
    b[this.len++] = (v >>> 24) & 0xff;
    return this;
  }

  u64le(v: bigint): this {
    if (v < 0n || v > U64_MAX) throw new RangeError(`u64 out of range: ${v}`);
    this.u32le(Number(v & 0xffffffffn));
    this.u32le(Number(v >> 32n));
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** Exactly n bytes (programming error if `b` has another length). */
  fixed(b: Uint8Array, n: number, what: string): this {
    if (b.length !== n) throw new RangeError(`${what}: expected ${n} bytes, got ${b.length}`);
    return this.bytes(b);
  }

  /** Monero varint (src/common/varint.h) of a u64 or a non-negative safe integer. */
  varint(v: bigint | number): this {
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`varint: ${v} is not a non-negative safe integer`);
      this.ensure(8);
      while (v >= 0x80) {
        this.buf[this.len++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      this.buf[this.len++] = v;
      return this;
    }
    if (v < 0n || v > U64_MAX) throw new RangeError(`varint: ${v} is outside u64`);
    if (v <= BigInt(Number.MAX_SAFE_INTEGER)) return this.varint(Number(v));
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
    return this;
  }

  /** The bytes written so far (a copy). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
