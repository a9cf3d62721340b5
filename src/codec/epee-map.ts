/**
 * Typed objects ↔ epee sections, the way epee's KV_SERIALIZE maps work
 * (contrib/epee/include/serialization/keyvalue_serialization*.h):
 * - a missing field loads as its default (0, false, empty) — epee ignores absent fields;
 * - empty containers (arrays, POD-as-blob vectors) are not stored at all;
 * - KV_SERIALIZE_OPT fields are not stored when equal to their default (`opt`);
 * - integers load from any epee integer type whose value fits (epee converts), else fail;
 * - a field of the wrong type fails.
 * A codec is declared once per message; `encodeEpee`/`decodeEpee` go all the way to bytes.
 */
import {
  EPEE_INT_RANGE,
  type EpeeIntKind,
  type EpeeLimits,
  type EpeeSection,
  type EpeeValue,
  isIntKind,
  parseEpee,
  serializeEpee,
} from "./epee.js";
import { type Label, Where } from "./reader.js";

/** A typed value does not fit the epee value found (wrong type, out of range, wrong blob size). */
export class EpeeTypeError extends Error {
  override readonly name = "EpeeTypeError";
  readonly what: string;
  constructor(
    what: Label,
    readonly problem: string,
  ) {
    super(`${String(what)}: ${problem}`);
    this.what = String(what);
  }
}

export interface EpeeCodec<T> {
  /** The epee value, or undefined to leave the field out. */
  encode(v: T): EpeeValue | undefined;
  decode(v: EpeeValue, what: Label): T;
  /** The value of an absent field. */
  empty(): T;
}

function intOf(v: EpeeValue, what: Label): bigint {
  if (!isIntKind(v.kind)) throw new EpeeTypeError(what, `expected an integer, found ${v.kind}`);
  const x = (v as { value: number | bigint }).value;
  return typeof x === "bigint" ? x : BigInt(x);
}

function inRange(x: bigint, kind: EpeeIntKind, what: Label): void {
  const [lo, hi] = EPEE_INT_RANGE[kind];
  if (x < lo || x > hi) throw new EpeeTypeError(what, `${x} does not fit ${kind}`);
}

function bigIntCodec(kind: "uint64" | "int64"): EpeeCodec<bigint> {
  return {
    encode: (v) => ({ kind, value: v }),
    decode: (v, what) => {
      const x = intOf(v, what);
      inRange(x, kind, what);
      return x;
    },
    empty: () => 0n,
  };
}

function numberCodec(kind: "uint32" | "int32" | "uint16" | "int16" | "uint8" | "int8"): EpeeCodec<number> {
  return {
    encode: (v) => ({ kind, value: v }),
    decode: (v, what) => {
      const x = intOf(v, what);
      inRange(x, kind, what);
      return Number(x);
    },
    empty: () => 0,
  };
}

export const u64 = bigIntCodec("uint64");
export const i64 = bigIntCodec("int64");
export const u32 = numberCodec("uint32");
export const i32 = numberCodec("int32");
export const u16 = numberCodec("uint16");
export const u8 = numberCodec("uint8");

export const double: EpeeCodec<number> = {
  encode: (v) => ({ kind: "double", value: v }),
  decode: (v, what) => {
    if (v.kind === "double") return v.value;
    throw new EpeeTypeError(what, `expected a double, found ${v.kind}`);
  },
  empty: () => 0,
};

export const bool: EpeeCodec<boolean> = {
  encode: (v) => ({ kind: "bool", value: v }),
  decode: (v, what) => {
    if (v.kind === "bool") return v.value;
    // epee converts integers to bool
    if (isIntKind(v.kind)) return intOf(v, what) !== 0n;
    throw new EpeeTypeError(what, `expected a bool, found ${v.kind}`);
  },
  empty: () => false,
};

/** std::string / blobdata: raw bytes. */
export const bytes: EpeeCodec<Uint8Array> = {
  encode: (v) => ({ kind: "string", value: v }),
  decode: (v, what) => {
    if (v.kind !== "string") throw new EpeeTypeError(what, `expected a string, found ${v.kind}`);
    return v.value;
  },
  empty: () => new Uint8Array(0),
};

const utf8 = new TextDecoder();
/** std::string holding text (status, top_hash...). */
export const text: EpeeCodec<string> = {
  encode: (v) => ({ kind: "string", value: new TextEncoder().encode(v) }),
  decode: (v, what) => utf8.decode(bytes.decode(v, what)),
  empty: () => "",
};

/** KV_SERIALIZE_VAL_POD_AS_BLOB: a fixed-size POD (hash, key) stored as a string of exactly n bytes. */
export function podBlob(n: number): EpeeCodec<Uint8Array> {
  return {
    encode: (v) => {
      if (v.length !== n) throw new RangeError(`POD blob must be ${n} bytes`);
      return { kind: "string", value: v };
    },
    decode: (v, what) => {
      const b = bytes.decode(v, what);
      if (b.length !== n) throw new EpeeTypeError(what, `blob of ${b.length} bytes, expected ${n}`);
      return b;
    },
    empty: () => new Uint8Array(n),
  };
}

/** KV_SERIALIZE_CONTAINER_POD_AS_BLOB: n-byte PODs packed in one string; empty → not stored. */
export function podArray(n: number): EpeeCodec<Uint8Array[]> {
  return {
    encode: (v) => {
      if (v.length === 0) return undefined;
      const out = new Uint8Array(n * v.length);
      v.forEach((x, i) => {
        if (x.length !== n) throw new RangeError(`POD array element must be ${n} bytes`);
        out.set(x, n * i);
      });
      return { kind: "string", value: out };
    },
    decode: (v, what) => {
      const b = bytes.decode(v, what);
      if (b.length % n !== 0) throw new EpeeTypeError(what, `blob of ${b.length} bytes is not a multiple of ${n}`);
      const out: Uint8Array[] = [];
      for (let i = 0; i < b.length; i += n) out.push(b.slice(i, i + n));
      return out;
    },
    empty: () => [],
  };
}

/** A std::vector/list of values or objects, stored as an epee array; empty → not stored. */
export function array<T>(item: EpeeCodec<T>): EpeeCodec<T[]> {
  return {
    encode: (v) => {
      if (v.length === 0) return undefined;
      const items: EpeeValue[] = [];
      for (const x of v) {
        const e = item.encode(x);
        if (e === undefined) throw new RangeError("array item cannot be omitted");
        items.push(e);
      }
      const of = items[0].kind;
      return { kind: "array", of, items };
    },
    decode: (v, what) => {
      if (v.kind !== "array") throw new EpeeTypeError(what, `expected an array, found ${v.kind}`);
      return v.items.map((x, i) => item.decode(x, new Where(what, "[", i, "]")));
    },
    empty: () => [],
  };
}

/** KV_SERIALIZE_OPT(field, default): not stored when equal to the default; loads the default when absent. */
export function opt<T>(codec: EpeeCodec<T>, dflt: T): EpeeCodec<T> {
  return {
    encode: (v) => (v === dflt ? undefined : codec.encode(v)),
    decode: (v, what) => codec.decode(v, what),
    empty: () => dflt,
  };
}

/**
 * A field whose absence is itself information (a later release's request field a 0.18.0.0 client
 * never writes): undefined when absent, not stored when undefined.
 */
export function optional<T>(codec: EpeeCodec<T>): EpeeCodec<T | undefined> {
  return {
    encode: (v) => (v === undefined ? undefined : codec.encode(v)),
    decode: (v, what) => codec.decode(v, what),
    empty: () => undefined,
  };
}

export type EpeeFields<T> = { [K in keyof T]: EpeeCodec<T[K]> };

export interface EpeeObjectCodec<T> extends EpeeCodec<T> {
  toSection(v: T): EpeeSection;
  fromSection(s: EpeeSection, what?: Label): T;
}

/** A BEGIN_KV_SERIALIZE_MAP object; property names are the epee field names. */
export function object<T extends object>(fields: EpeeFields<T>): EpeeObjectCodec<T> {
  const names = Object.keys(fields) as (keyof T & string)[];
  const toSection = (v: T): EpeeSection => {
    const s: EpeeSection = new Map();
    for (const n of names) {
      const e = fields[n].encode(v[n]);
      if (e !== undefined) s.set(n, e);
    }
    return s;
  };
  const fromSection = (s: EpeeSection, what: Label = "root"): T => {
    const out = {} as T;
    for (const n of names) {
      const e = s.get(n);
      out[n] = e === undefined ? fields[n].empty() : fields[n].decode(e, new Where(what, ".", -1, n));
    }
    return out;
  };
  return {
    toSection,
    fromSection,
    encode: (v) => ({ kind: "object", value: toSection(v) }),
    decode: (v, what) => {
      if (v.kind !== "object") throw new EpeeTypeError(what, `expected an object, found ${v.kind}`);
      return fromSection(v.value, what);
    },
    empty: () => fromSection(new Map()),
  };
}

/** Bytes → typed object. */
export function decodeEpee<T>(codec: EpeeObjectCodec<T>, buf: Uint8Array, limits?: EpeeLimits): T {
  return codec.fromSection(parseEpee(buf, { limits }));
}

/** Typed object → bytes, as monerod would write it. */
export function encodeEpee<T>(codec: EpeeObjectCodec<T>, v: T): Uint8Array {
  return serializeEpee(codec.toSection(v));
}
