/**
 * epee portable storage, binary form (contrib/epee/include/storages/portable_storage_from_bin.h,
 * portable_storage_to_bin.h): the format of monerod's .bin RPC endpoints and of Levin payloads.
 *
 * A document is the 9-byte header (signatures 0x01011101, 0x01020101, version 1) and a root section.
 * A section is a size-marked count of entries; an entry is a name (1..255 bytes, u8 length), a type
 * byte and a value. Sizes use epee's own "varint": the low two bits of the first byte say whether the
 * value takes 1, 2, 4 or 8 bytes (little-endian), the rest holds value << 2.
 *
 * Parsing mirrors Monero's reader, limits included: the same type codes, the same sanity check of array
 * sizes against the bytes left, the object/field/string budgets (`EPEE_HTTP_LIMITS`,
 * `EPEE_LEVIN_LIMITS`), the recursion limit of 100 nested reader frames, duplicate names rejected,
 * bool bytes other than 0/1 rejected, arrays of arrays rejected (Monero cannot read them either).
 * Bytes after the root section are ignored, as Monero ignores them.
 *
 * Serializing writes what Monero's writer writes: the smallest size mark, and the names of every
 * section in `std::map` order (byte order), unless `preserveOrder` asks for insertion order.
 */
import { FormatError, type Label, Reader, Where } from "./reader.js";
import { Writer } from "./writer.js";

export type EpeeIntKind = "int64" | "int32" | "int16" | "int8" | "uint64" | "uint32" | "uint16" | "uint8";
export type EpeeScalarKind = EpeeIntKind | "double" | "string" | "bool" | "object";
/** What an array holds: a scalar kind, or "array" (an array of arrays, which Monero writes but cannot read). */
export type EpeeElementKind = EpeeScalarKind | "array";

export type EpeeValue =
  | { kind: "int64" | "uint64"; value: bigint }
  | { kind: "int32" | "int16" | "int8" | "uint32" | "uint16" | "uint8" | "double"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "string"; value: Uint8Array }
  | { kind: "object"; value: EpeeSection }
  | EpeeArray;

export interface EpeeArray {
  kind: "array";
  /** The kind of every item. */
  of: EpeeElementKind;
  items: EpeeValue[];
}

/** A section: names (byte strings, held as latin1 JS strings) to values, in the order read or inserted. */
export type EpeeSection = Map<string, EpeeValue>;

export interface EpeeLimits {
  objects: number;
  fields: number;
  strings: number;
}

/** Limits monerod applies to .bin HTTP bodies (storages/http_abstract_invoke.h). */
export const EPEE_HTTP_LIMITS: EpeeLimits = { objects: 65536 * 3, fields: 65536 * 3, strings: 65536 * 3 };
/** Limits monerod applies to Levin payloads (storages/levin_abstract_invoke2.h). */
export const EPEE_LEVIN_LIMITS: EpeeLimits = { objects: 8192, fields: 16384, strings: 16384 };
const NO_LIMITS: EpeeLimits = { objects: Infinity, fields: Infinity, strings: Infinity };

export const EPEE_SIGNATURE_A = 0x01011101;
export const EPEE_SIGNATURE_B = 0x01020101;
export const EPEE_FORMAT_VERSION = 1;
export const EPEE_HEADER = Uint8Array.of(0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01);

const TYPE_CODE: Record<EpeeElementKind, number> = {
  int64: 1,
  int32: 2,
  int16: 3,
  int8: 4,
  uint64: 5,
  uint32: 6,
  uint16: 7,
  uint8: 8,
  double: 9,
  string: 10,
  bool: 11,
  object: 12,
  array: 13,
};
const KIND_OF_CODE: (EpeeElementKind | undefined)[] = [
  undefined,
  "int64",
  "int32",
  "int16",
  "int8",
  "uint64",
  "uint32",
  "uint16",
  "uint8",
  "double",
  "string",
  "bool",
  "object",
  "array",
];
const FLAG_ARRAY = 0x80;
/** Max string length Monero accepts (MAX_STRING_LEN_POSSIBLE). */
const MAX_STRING_LEN = 2000000000;
/** EPEE_PORTABLE_STORAGE_RECURSION_LIMIT_INTERNAL. */
const RECURSION_LIMIT = 100;
/** ps_min_bytes<T>::strict: the least bytes one element of an array can take, per Monero's check. */
const MIN_BYTES: Record<EpeeElementKind, number> = {
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint64: 8,
  uint32: 4,
  uint16: 2,
  uint8: 1,
  double: 8,
  string: 2,
  bool: 1,
  object: 1,
  array: 1,
};
const POD_SIZE: Partial<Record<EpeeElementKind, number>> = {
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint64: 8,
  uint32: 4,
  uint16: 2,
  uint8: 1,
  double: 8,
  bool: 1,
};

export interface EpeeParseOptions {
  /** Object/field/string budgets; default none (like portable_storage::load_from_binary without limits). */
  limits?: EpeeLimits;
  /** Where this document starts in a larger message, for error offsets (default 0). */
  baseOffset?: number;
}

/**
 * Reader state that mirrors throwable_buffer_reader: `d` arguments are the number of reader frames
 * Monero would have on its stack at that point (each frame counts toward the limit of 100).
 */
class EpeeParser {
  private objects = 0;
  private fields = 0;
  private strings = 0;
  private readonly f64 = new DataView(new ArrayBuffer(8));
  private readonly names = new NameCache();

  constructor(
    readonly r: Reader,
    readonly limits: EpeeLimits,
  ) {}

  private frames(d: number, what: Label): void {
    if (d >= RECURSION_LIMIT) this.r.fail(what, `recursion limit (${RECURSION_LIMIT}) exceeded`);
  }

  /** read_varint at frame d (its innermost read is 3 frames deeper); `what` + `suffix` names it. */
  size(d: number, what: Label, suffix = ""): number {
    this.frames(d + 3, what);
    const r: Reader = this.r;
    const label = (): Label => (suffix ? new Where(what, suffix) : what);
    if (r.atEnd) r.fail(label(), "empty buffer where a size was expected");
    const mark = r.buf[r.pos] & 3;
    const n = 1 << mark;
    if (n > r.end - r.pos) r.fail(label(), `needs ${n} byte${n === 1 ? "" : "s"}, ${r.end - r.pos} left`);
    const b = r.buf;
    const p = r.pos;
    r.pos += n;
    switch (mark) {
      case 0:
        return b[p] >>> 2;
      case 1:
        return (b[p] | (b[p + 1] << 8)) >>> 2;
      case 2:
        return Math.floor(((b[p] | (b[p + 1] << 8) | (b[p + 2] << 16)) + b[p + 3] * 0x1000000) / 4);
      default: {
        const lo = (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16)) + b[p + 3] * 0x1000000;
        const hi = (b[p + 4] | (b[p + 5] << 8) | (b[p + 6] << 16)) + b[p + 7] * 0x1000000;
        const big = ((BigInt(hi) << 32n) | BigInt(lo)) >> 2n;
        // no count or length can be anywhere near this; keep it exact for the checks below
        return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
      }
    }
  }

  section(d: number, what: Label): EpeeSection {
    this.frames(d, what);
    const r: Reader = this.r;
    const at = r.pos;
    const count = this.size(d + 1, what, " entry count");
    if (count > this.limits.fields - this.fields) r.fail(what, "too many object fields", at);
    this.fields += count;
    const sec: EpeeSection = new Map();
    for (let i = 0; i < count; i++) {
      this.frames(d + 3, what);
      const nameAt = r.pos;
      if (r.pos >= r.end) r.fail(new Where(what, " entry ", i, " name length"), "needs 1 byte, 0 left");
      const len = r.buf[r.pos++];
      if (len === 0) r.fail(new Where(what, " entry ", i), "section name is missing", nameAt);
      if (len > r.end - r.pos) r.fail(new Where(what, " entry ", i, " name"), `needs ${len} byte${len === 1 ? "" : "s"}, ${r.end - r.pos} left`);
      const name = this.names.read(r.buf, r.pos, len);
      r.pos += len;
      if (sec.has(name)) r.fail(new Where(what, ".", -1, name), "duplicate key", nameAt);
      sec.set(name, this.entry(d + 1, new Where(what, ".", -1, name)));
    }
    return sec;
  }

  /** load_storage_entry at frame d. */
  private entry(d: number, what: Label): EpeeValue {
    this.frames(d + 2, what);
    const r: Reader = this.r;
    const at = r.pos;
    if (r.pos >= r.end) r.fail(new Where(what, " type"), "needs 1 byte, 0 left");
    const t = r.buf[r.pos++];
    if (t & FLAG_ARRAY) return this.array(d + 1, t, what);
    const kind = KIND_OF_CODE[t];
    if (kind === undefined) r.fail(what, `unknown entry type code ${t}`, at);
    if (kind === "array") {
      // read_se<array_entry>: a second type byte, which must carry the array flag
      this.frames(d + 3, what);
      const at2 = r.pos;
      const t2 = r.u8(new Where(what, " array type"));
      if (!(t2 & FLAG_ARRAY)) r.fail(what, "wrong type sequence: array without the array flag", at2);
      return this.array(d + 2, t2, what);
    }
    return this.scalar(d + 1, kind, what, false);
  }

  /** read_se<T> (single) at frame d, or read<T>() inside read_ae (element) at frame d. */
  private scalar(d: number, kind: EpeeScalarKind, what: Label, element: boolean): EpeeValue {
    const r: Reader = this.r;
    switch (kind) {
      case "string": {
        if (!element) {
          if (this.strings + 1 > this.limits.strings) r.fail(what, "too many strings");
          this.strings++;
          d++;
        }
        // read<std::string>() → read(std::string&) → read_varint
        this.frames(d + 5, what);
        const at = r.pos;
        const len = this.size(d + 2, what, " length");
        if (len >= MAX_STRING_LEN) r.fail(what, `string length ${len} is too big`, at);
        if (len > r.remaining) r.fail(what, `string length ${len} goes past the ${r.remaining} bytes left`, at);
        return { kind: "string", value: r.bytes(len, what) };
      }
      case "object": {
        if (!element) {
          if (this.objects >= this.limits.objects) r.fail(what, "too many objects");
          this.objects++;
        }
        // read_se<section> or read<section>() at d, then read(section&) at d + 1
        return { kind: "object", value: this.section(d + 1, what) };
      }
      default:
        this.frames(d + 2, what);
        return this.pod(kind, what);
    }
  }

  private pod(kind: EpeeScalarKind, what: Label): EpeeValue {
    const r: Reader = this.r;
    switch (kind) {
      case "uint64":
        return { kind, value: r.u64le(what) };
      case "int64":
        return { kind, value: BigInt.asIntN(64, r.u64le(what)) };
      case "uint32":
        return { kind, value: r.u32le(what) };
      case "int32":
        return { kind, value: r.u32le(what) | 0 };
      case "uint16":
        return { kind, value: r.u16le(what) };
      case "int16":
        return { kind, value: (r.u16le(what) << 16) >> 16 };
      case "uint8":
        return { kind, value: r.u8(what) };
      case "int8":
        return { kind, value: (r.u8(what) << 24) >> 24 };
      case "double": {
        const b = r.view(8, what);
        for (let i = 0; i < 8; i++) this.f64.setUint8(i, b[i]);
        return { kind, value: this.f64.getFloat64(0, true) };
      }
      case "bool": {
        const at = r.pos;
        const v = r.u8(what);
        if (v > 1) r.fail(what, `invalid bool value ${v}`, at);
        return { kind, value: v === 1 };
      }
      default:
        throw new Error(`unreachable: ${kind}`);
    }
  }

  /** load_storage_array_entry at frame d. */
  private array(d: number, typeByte: number, what: Label): EpeeArray {
    const r: Reader = this.r;
    const code = typeByte & ~FLAG_ARRAY;
    const of = KIND_OF_CODE[code];
    if (of === undefined) r.fail(what, `unknown array entry type code ${code}`, r.pos - 1);
    // read_ae<T> at d + 1
    const at = r.pos;
    const n = this.size(d + 2, what, " array size");
    if (n > Math.floor(r.remaining / MIN_BYTES[of])) r.fail(what, `array size ${n} fails the size sanity check`, at);
    if (of === "object") {
      if (n > this.limits.objects - this.objects) r.fail(what, "too many objects", at);
      this.objects += n;
    } else if (of === "string") {
      if (n > this.limits.strings - this.strings) r.fail(what, "too many strings", at);
      this.strings += n;
    }
    if (of === "array" && n > 0) r.fail(what, "arrays of arrays are not supported (Monero cannot read them)", at);
    const items: EpeeValue[] = new Array(n);
    // elements are read through read<T>() at frame d + 2
    for (let i = 0; i < n; i++) items[i] = this.scalar(d + 2, of as EpeeScalarKind, new Where(what, "[", i, "]"), true);
    return { kind: "array", of, items };
  }
}

/**
 * Section names as strings (latin1, one char per byte, as Monero compares them), each distinct
 * name decoded once per document: the same few names repeat in every object of an array.
 */
class NameCache {
  private readonly byHash = new Map<number, string[]>();

  read(b: Uint8Array, at: number, len: number): string {
    let h = len;
    for (let i = 0; i < len; i++) h = (Math.imul(h, 31) + b[at + i]) | 0;
    const bucket = this.byHash.get(h);
    if (bucket) {
      for (const s of bucket) {
        if (s.length !== len) continue;
        let same = true;
        for (let i = 0; i < len && same; i++) same = s.charCodeAt(i) === b[at + i];
        if (same) return s;
      }
    }
    let s = "";
    for (let i = 0; i < len; i++) s += String.fromCharCode(b[at + i]);
    if (bucket) bucket.push(s);
    else this.byHash.set(h, [s]);
    return s;
  }
}

/** Parses an epee binary document (header and root section). */
export function parseEpee(buf: Uint8Array, opts: EpeeParseOptions = {}): EpeeSection {
  const base = opts.baseOffset ?? 0;
  if (buf.length < EPEE_HEADER.length)
    throw new FormatError("epee header", base, `document of ${buf.length} bytes is shorter than the 9-byte header`);
  const r = new Reader(buf);
  const a = r.u32le("epee signature A");
  const b = r.u32le("epee signature B");
  if (a !== EPEE_SIGNATURE_A || b !== EPEE_SIGNATURE_B)
    throw new FormatError("epee header", base, "signature mismatch (not epee portable storage)");
  const ver = r.u8("epee format version");
  if (ver !== EPEE_FORMAT_VERSION) throw new FormatError("epee header", base + 8, `unknown format version ${ver}`);
  if (r.atEnd) throw new FormatError("epee root section", base + 9, "no bytes after the header");
  const p = new EpeeParser(r, opts.limits ?? NO_LIMITS);
  try {
    return p.section(1, "root");
  } catch (e) {
    if (e instanceof FormatError && base !== 0) throw new FormatError(e.what, e.offset + base, e.problem);
    throw e;
  }
}

// ---- writing ----

function packSize(w: Writer, n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what}: bad size ${n}`);
  const end = putEpeeSize(SIZE_SCRATCH, 0, n);
  for (let i = 0; i < end; i++) w.u8(SIZE_SCRATCH[i]);
}
const SIZE_SCRATCH = new Uint8Array(8);

/** epee's size mark of `n` (an array's or a section's count, a string's length), as the serializer writes it. */
export function epeeSize(n: number): Uint8Array {
  const out = new Uint8Array(epeeSizeLength(n));
  putEpeeSize(out, 0, n);
  return out;
}

export interface EpeeWriteOptions {
  /** Write entries in insertion order instead of Monero's std::map (byte) order. */
  preserveOrder?: boolean;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class EpeeSerializer {
  private readonly f64 = new DataView(new ArrayBuffer(8));
  constructor(
    readonly w: Writer,
    readonly opts: EpeeWriteOptions,
  ) {}

  section(sec: EpeeSection, what: string): void {
    if (!this.opts.preserveOrder) {
      const done = SERIALIZED.get(sec);
      if (done) {
        this.w.bytes(done);
        return;
      }
    }
    const names = [...sec.keys()];
    if (!this.opts.preserveOrder) names.sort(byteOrder);
    packSize(this.w, names.length, what);
    for (const name of names) {
      if (name.length === 0 || name.length > 255) throw new RangeError(`${what}: entry name must be 1..255 bytes`);
      this.w.u8(name.length);
      for (let i = 0; i < name.length; i++) {
        const c = name.charCodeAt(i);
        if (c > 255) throw new RangeError(`${what}: entry name ${JSON.stringify(name)} is not a byte string`);
        this.w.u8(c);
      }
      const v = sec.get(name)!;
      this.value(v, `${what}.${name}`);
    }
  }

  private value(v: EpeeValue, what: string): void {
    if (v.kind === "array") {
      this.array(v, what);
      return;
    }
    this.w.u8(TYPE_CODE[v.kind]);
    this.scalar(v, what);
  }

  private array(a: EpeeArray, what: string): void {
    this.w.u8(TYPE_CODE[a.of] | FLAG_ARRAY);
    packSize(this.w, a.items.length, what);
    for (const item of a.items) {
      if (item.kind !== a.of) throw new TypeError(`${what}: array of ${a.of} holds a ${item.kind}`);
      if (item.kind === "array") this.array(item, what);
      else this.scalar(item, what);
    }
  }

  private scalar(v: Exclude<EpeeValue, EpeeArray>, what: string): void {
    const w = this.w;
    switch (v.kind) {
      case "uint64":
        w.u64le(v.value);
        break;
      case "int64":
        w.u64le(BigInt.asUintN(64, v.value));
        break;
      case "uint32":
      case "int32":
        w.u32le(v.value >>> 0);
        break;
      case "uint16":
      case "int16":
        w.u16le(v.value & 0xffff);
        break;
      case "uint8":
      case "int8":
        w.u8(v.value & 0xff);
        break;
      case "double":
        this.f64.setFloat64(0, v.value, true);
        for (let i = 0; i < 8; i++) w.u8(this.f64.getUint8(i));
        break;
      case "bool":
        w.u8(v.value ? 1 : 0);
        break;
      case "string":
        packSize(w, v.value.length, what);
        w.bytes(v.value);
        break;
      case "object":
        this.section(v.value, what);
        break;
    }
  }
}

/** Sections serialized once by `serializeOnce`, with their bytes (in Monero's order). */
const SERIALIZED = new WeakMap<EpeeSection, Uint8Array>();

/**
 * Serializes `sec` now and keeps its bytes: every later serialization that meets this very section
 * object (in Monero's key order) copies them instead of walking it again. For sections a server
 * keeps and sends often (a block entry of get_blocks.bin); the section must not change afterwards.
 */
export function serializeOnce(sec: EpeeSection): EpeeSection {
  if (!SERIALIZED.has(sec)) {
    const w = new Writer(256);
    new EpeeSerializer(w, {}).section(sec, "section");
    SERIALIZED.set(sec, w.finish());
  }
  return sec;
}

/**
 * A section known only by its bytes (written by a shape's own writer, e.g. rpc-bin.ts's block
 * entries): serializing it copies them, as for `serializeOnce`. It has no entries to read, so it may
 * only be serialized in Monero's order.
 */
export function presetSection(bytes: Uint8Array): EpeeSection {
  const sec: EpeeSection = new Map();
  SERIALIZED.set(sec, bytes);
  return sec;
}

/** How many bytes epee's size mark of `n` takes (`epeeSize(n).length`). */
export function epeeSizeLength(n: number): number {
  return n <= 63 ? 1 : n <= 16383 ? 2 : n <= 1073741823 ? 4 : 8;
}

/** Writes epee's size mark of `n` at `at` in `out` (room checked by the caller); returns the offset after it. */
export function putEpeeSize(out: Uint8Array, at: number, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`bad epee size ${n}`);
  if (n <= 63) {
    out[at] = n << 2;
    return at + 1;
  }
  if (n <= 16383) {
    const v = (n << 2) | 1;
    out[at] = v & 0xff;
    out[at + 1] = v >>> 8;
    return at + 2;
  }
  if (n <= 1073741823) {
    const v = n * 4 + 2;
    for (let i = 0; i < 4; i++) out[at + i] = Math.floor(v / 2 ** (8 * i)) & 0xff;
    return at + 4;
  }
  let v = (BigInt(n) << 2n) | 3n;
  for (let i = 0; i < 8; i++, v >>= 8n) out[at + i] = Number(v & 0xffn);
  return at + 8;
}

/**
 * An entry's head as a section writes it: the name (its length byte, then its bytes) and the type
 * byte of a `kind` value, or of an array of them. For writers of fixed shapes (rpc-bin.ts).
 */
export function epeeEntryHead(name: string, kind: EpeeElementKind, array = false): Uint8Array {
  if (name.length === 0 || name.length > 255) throw new RangeError(`entry name must be 1..255 bytes (got ${JSON.stringify(name)})`);
  const out = new Uint8Array(name.length + 2);
  out[0] = name.length;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c > 255) throw new RangeError(`entry name ${JSON.stringify(name)} is not a byte string`);
    out[1 + i] = c;
  }
  out[name.length + 1] = TYPE_CODE[kind] | (array ? FLAG_ARRAY : 0);
  return out;
}

/** Serializes a root section as an epee binary document, as Monero's store_to_binary does. */
export function serializeEpee(root: EpeeSection, opts: EpeeWriteOptions = {}): Uint8Array {
  const w = new Writer(1024);
  w.bytes(EPEE_HEADER);
  new EpeeSerializer(w, opts).section(root, "root");
  return w.finish();
}

// ---- value helpers ----

export const ev = {
  u64: (value: bigint): EpeeValue => ({ kind: "uint64", value }),
  i64: (value: bigint): EpeeValue => ({ kind: "int64", value }),
  u32: (value: number): EpeeValue => ({ kind: "uint32", value }),
  i32: (value: number): EpeeValue => ({ kind: "int32", value }),
  u16: (value: number): EpeeValue => ({ kind: "uint16", value }),
  i16: (value: number): EpeeValue => ({ kind: "int16", value }),
  u8: (value: number): EpeeValue => ({ kind: "uint8", value }),
  i8: (value: number): EpeeValue => ({ kind: "int8", value }),
  double: (value: number): EpeeValue => ({ kind: "double", value }),
  bool: (value: boolean): EpeeValue => ({ kind: "bool", value }),
  bytes: (value: Uint8Array): EpeeValue => ({ kind: "string", value }),
  text: (value: string): EpeeValue => ({ kind: "string", value: new TextEncoder().encode(value) }),
  object: (value: EpeeSection): EpeeValue => ({ kind: "object", value }),
  array: (of: EpeeElementKind, items: EpeeValue[]): EpeeValue => ({ kind: "array", of, items }),
};

/** Integer bounds of each epee integer kind. */
export const EPEE_INT_RANGE: Record<EpeeIntKind, [bigint, bigint]> = {
  int64: [-(1n << 63n), (1n << 63n) - 1n],
  int32: [-(1n << 31n), (1n << 31n) - 1n],
  int16: [-(1n << 15n), (1n << 15n) - 1n],
  int8: [-128n, 127n],
  uint64: [0n, (1n << 64n) - 1n],
  uint32: [0n, (1n << 32n) - 1n],
  uint16: [0n, 65535n],
  uint8: [0n, 255n],
};

export function isIntKind(k: string): k is EpeeIntKind {
  return k in EPEE_INT_RANGE;
}

export { POD_SIZE as EPEE_POD_SIZE };

/** Whether `b` starts with the epee header (both signatures and format version 1). */
export function hasEpeeHeader(b: Uint8Array): boolean {
  if (b.length < EPEE_HEADER.length) return false;
  for (let k = 0; k < EPEE_HEADER.length; k++) if (b[k] !== EPEE_HEADER[k]) return false;
  return true;
}

/**
 * A position in an epee document for readers that walk its bytes without parsing it (they give up
 * on anything unexpected instead of naming it, as `parseEpee` does).
 */
export class EpeeCursor {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
  ) {}

  /** epee's size-marked varint at pos (advances past it); undefined past the end or above 2^53. */
  size(): number | undefined {
    const b = this.b;
    const p = this.pos;
    if (p >= b.length) return undefined;
    const width = 1 << (b[p] & 3);
    if (p + width > b.length) return undefined;
    let v = 0;
    for (let k = width - 1; k >= 0; k--) v = v * 256 + b[p + k];
    this.pos = p + width;
    v = Math.floor(v / 4);
    return Number.isSafeInteger(v) ? v : undefined;
  }

  /** A section entry's name at pos (its length byte, then its bytes as latin1; advances past it); undefined when empty or past the end. */
  name(): string | undefined {
    const b = this.b;
    const p = this.pos;
    if (p >= b.length) return undefined;
    const len = b[p];
    if (len === 0 || p + 1 + len > b.length) return undefined;
    this.pos = p + 1 + len;
    return (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)).toString("latin1", p + 1, p + 1 + len);
  }
}

/**
 * A document's bytes with the named root entries left out, as a latin1 string: two requests with
 * equal keys differ at most in those entries (say, monero-wallet-rpc's per-call RPC payment
 * signature `client`). Only string entries are left out. Undefined for anything this walk does not
 * follow (a nested object, an array of objects, a duplicate left-out name, a truncated document):
 * the caller then treats the document as unique.
 */
export function epeeKeyWithout(buf: Uint8Array, names: ReadonlySet<string>): string | undefined {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = b.length;
  if (n < EPEE_HEADER.length + 1 || !hasEpeeHeader(b)) return undefined;
  const c = new EpeeCursor(b, EPEE_HEADER.length);
  const count = c.size();
  if (count === undefined) return undefined;
  let out = b.toString("latin1", 0, c.pos);
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const start = c.pos;
    const name = c.name();
    if (name === undefined || c.pos >= n) return undefined;
    const type = b[c.pos++];
    const isArray = (type & FLAG_ARRAY) !== 0;
    const kind = KIND_OF_CODE[type & ~FLAG_ARRAY];
    const pod = kind === undefined ? undefined : POD_SIZE[kind];
    if (kind !== "string" && pod === undefined) return undefined;
    const items = isArray ? c.size() : 1;
    if (items === undefined) return undefined;
    for (let k = 0; k < items; k++) {
      if (pod === undefined) {
        const l = c.size();
        if (l === undefined || c.pos + l > n) return undefined;
        c.pos += l;
      } else {
        c.pos += pod;
        if (c.pos > n) return undefined;
      }
    }
    if (names.has(name)) {
      if (seen.has(name) || kind !== "string" || isArray) return undefined;
      seen.add(name);
      continue;
    }
    out += b.toString("latin1", start, c.pos);
  }
  // bytes after the root section (ignored by the parser) stay in the key
  return out + b.toString("latin1", c.pos);
}
