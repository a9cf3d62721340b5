/**
 * Small typed schemas for RPC params and results: each turns a parsed JsonValue into a typed value
 * (u64 fields into `bigint`) or throws a SchemaError naming the field, what was expected and what was
 * found. They mirror how epee loads JSON into a request struct:
 * - an absent field takes its default (epee value-initialises every field);
 * - integers accept a JSON integer or a decimal string of one (epee converts "5" to 5);
 * - unknown fields are ignored.
 * A `describe()` text per schema feeds error messages and generated docs.
 */
import { isJsonObject, type JsonValue, type JsonWritable } from "./json.js";

export class SchemaError extends Error {
  override readonly name = "SchemaError";
  constructor(
    /** Dotted path to the field, e.g. `params.outputs[2].index`. */
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

export interface Schema<T> {
  /** Converts a JSON value (undefined = absent) to T. */
  parse(v: JsonValue | undefined, path: string): T;
  /** Converts T back to JSON (bigint stays bigint; the stringifier writes it as a number). */
  toJson(v: T): JsonWritable;
  describe(): string;
  /** JSON Schema of the accepted JSON (for generated docs, e.g. OpenRPC). */
  jsonSchema(): JsonSchema;
  /** True when an absent value is an error (see `required`). */
  readonly isRequired?: boolean;
}

/** The subset of JSON Schema the docs use. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  /** bigint beyond 2^53 (u64, i64 bounds), written as a bare JSON integer. */
  minimum?: number | bigint;
  maximum?: number | bigint;
  pattern?: string;
  items?: JsonSchema;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: JsonWritable;
  [extension: `x-${string}`]: JsonWritable;
}

function found(v: JsonValue | undefined): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v)}`;
  return `${typeof v === "bigint" ? "the number" : `the ${typeof v}`} ${String(v)}`;
}

const exact = (v: bigint): number | bigint => (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);

function integer(min: bigint, max: bigint, what: string): Schema<bigint> {
  return {
    parse(v, path) {
      if (v === undefined) return 0n;
      let x: bigint | undefined;
      if (typeof v === "bigint") x = v;
      else if (typeof v === "number" && Number.isInteger(v)) x = BigInt(v);
      else if (typeof v === "string" && /^-?[0-9]{1,20}$/.test(v)) x = BigInt(v);
      if (x === undefined) throw new SchemaError(path, `expected ${what}, found ${found(v)}`);
      if (x < min || x > max) throw new SchemaError(path, `${x} is out of range for ${what} (${min}..${max})`);
      return x;
    },
    toJson: (v) => v,
    describe: () => what,
    // bounds beyond 2^53 stay bigint (exact bare JSON integers, as the values themselves)
    jsonSchema: () => ({ type: "integer", description: what, minimum: exact(min), maximum: exact(max) }),
  };
}

const U64_MAX = (1n << 64n) - 1n;

/** Unsigned 64-bit integer as bigint (amounts, heights, difficulties, timestamps). */
export const u64: Schema<bigint> = integer(0n, U64_MAX, "an unsigned 64-bit integer");
/** Signed 64-bit integer as bigint. */
export const i64: Schema<bigint> = integer(-(1n << 63n), (1n << 63n) - 1n, "a signed 64-bit integer");

function smallInt(min: number, max: number, what: string): Schema<number> {
  const big = integer(BigInt(min), BigInt(max), what);
  return { parse: (v, path) => Number(big.parse(v, path)), toJson: (v) => v, describe: () => what, jsonSchema: () => ({ type: "integer", description: what, minimum: min, maximum: max }) };
}
export const u32: Schema<number> = smallInt(0, 0xffffffff, "an unsigned 32-bit integer");
export const i32: Schema<number> = smallInt(-0x80000000, 0x7fffffff, "a signed 32-bit integer");
export const u16: Schema<number> = smallInt(0, 0xffff, "an unsigned 16-bit integer");
export const u8: Schema<number> = smallInt(0, 0xff, "an unsigned 8-bit integer");

export const double: Schema<number> = {
  parse(v, path) {
    if (v === undefined) return 0;
    if (typeof v === "number") return v;
    if (typeof v === "bigint") return Number(v);
    throw new SchemaError(path, `expected a number, found ${found(v)}`);
  },
  toJson: (v) => v,
  describe: () => "a number",
  jsonSchema: () => ({ type: "number" }),
};

export const bool: Schema<boolean> = {
  parse(v, path) {
    if (v === undefined) return false;
    if (typeof v === "boolean") return v;
    // epee loads 0/1 and "true"/"false" into bool fields
    if (v === 0 || v === 1) return v === 1;
    if (v === "true" || v === "false") return v === "true";
    throw new SchemaError(path, `expected true or false, found ${found(v)}`);
  },
  toJson: (v) => v,
  describe: () => "a boolean",
  jsonSchema: () => ({ type: "boolean" }),
};

export const str: Schema<string> = {
  parse(v, path) {
    if (v === undefined) return "";
    if (typeof v === "string") return v;
    throw new SchemaError(path, `expected a string, found ${found(v)}`);
  },
  toJson: (v) => v,
  describe: () => "a string",
  jsonSchema: () => ({ type: "string" }),
};

/** A hex string of exactly `bytes` bytes (or any even length when omitted); empty when absent. */
export function hex(bytes?: number): Schema<string> {
  const what = bytes === undefined ? "a hex string" : `a hex string of ${bytes} bytes (${bytes * 2} hex digits)`;
  return {
    parse(v, path) {
      if (v === undefined) return "";
      if (typeof v !== "string") throw new SchemaError(path, `expected ${what}, found ${found(v)}`);
      const ok = /^([0-9a-fA-F]{2})*$/.test(v) && (bytes === undefined || v.length === bytes * 2);
      if (!ok) throw new SchemaError(path, `expected ${what}, found ${found(v)}`);
      return v;
    },
    toJson: (v) => v,
    describe: () => what,
    jsonSchema: () => ({ type: "string", description: what, pattern: bytes === undefined ? "^([0-9a-fA-F]{2})*$" : `^[0-9a-fA-F]{${bytes * 2}}$` }),
  };
}

export function array<T>(item: Schema<T>, opts: { maxItems?: number } = {}): Schema<T[]> {
  const maxItems = opts.maxItems ?? Infinity;
  return {
    parse(v, path) {
      if (v === undefined) return [];
      if (!Array.isArray(v)) throw new SchemaError(path, `expected an array of ${item.describe()}, found ${found(v)}`);
      if (v.length > maxItems) throw new SchemaError(path, `${v.length} items; at most ${maxItems} are accepted`);
      return v.map((x, k) => item.parse(x, `${path}[${k}]`));
    },
    toJson: (v) => v.map((x) => item.toJson(x)),
    describe: () => `an array of ${item.describe()}`,
    jsonSchema: () => (Number.isFinite(maxItems) ? { type: "array", items: item.jsonSchema(), maxItems } : { type: "array", items: item.jsonSchema() }),
  };
}

/** Absent → `dflt` (epee's KV_SERIALIZE_OPT with a default). */
export function withDefault<T>(s: Schema<T>, dflt: T): Schema<T> {
  return {
    parse: (v, path) => (v === undefined ? dflt : s.parse(v, path)),
    toJson: (v) => s.toJson(v),
    describe: () => `${s.describe()} (default ${String(dflt)})`,
    jsonSchema: () => ({ ...s.jsonSchema(), default: s.toJson(dflt) }),
  };
}

/** Absent → a SchemaError: the caller must send it. */
export function required<T>(s: Schema<T>): Schema<T> {
  return {
    parse(v, path) {
      if (v === undefined) throw new SchemaError(path, `missing; send ${s.describe()}`);
      return s.parse(v, path);
    },
    toJson: (v) => s.toJson(v),
    describe: () => s.describe(),
    jsonSchema: () => s.jsonSchema(),
    isRequired: true,
  };
}

/** Absent → undefined (the field is left out when written). */
export function optional<T>(s: Schema<T>): Schema<T | undefined> {
  return {
    parse: (v, path) => (v === undefined ? undefined : s.parse(v, path)),
    toJson: (v) => (v === undefined ? undefined : s.toJson(v)),
    describe: () => `${s.describe()} (optional)`,
    jsonSchema: () => s.jsonSchema(),
  };
}

/** Any JSON, passed through. */
export const anyJson: Schema<JsonValue | undefined> = {
  parse: (v) => v,
  toJson: (v) => v,
  describe: () => "any JSON value",
  jsonSchema: () => ({}),
};

export type Fields<T> = { [K in keyof T]-?: Schema<T[K]> };

export interface ObjectSchema<T> extends Schema<T> {
  readonly fields: Fields<T>;
}

/**
 * An object of named fields. Absent object → every field's default; unknown members ignored; a
 * member whose value is null counts as absent, as in epee.
 * `arrayIsEmpty`: accept an array where the object is expected and treat it as `{}` — what monerod
 * does with `"params": [..]` for methods whose params are an object. `nullIsAbsent`: a member whose
 * value is `null` takes its default, as if absent — epee's JSON reader skips nulls (monero-wallet-rpc
 * answers `{"min_height": null}` as if min_height were not sent; Monero's Python client sends such nulls).
 */
export function object<T extends object>(fields: Fields<T>, opts: { arrayIsEmpty?: boolean; nullIsAbsent?: boolean } = {}): ObjectSchema<T> {
  const keys = Object.keys(fields) as (keyof T & string)[];
  return {
    fields,
    parse(v, path) {
      let src: Record<string, JsonValue> = {};
      if (v !== undefined && v !== null) {
        if (isJsonObject(v)) src = v;
        else if (!(opts.arrayIsEmpty && Array.isArray(v)))
          throw new SchemaError(path, `expected an object, found ${found(v)}`);
      }
      const out = {} as T;
      for (const k of keys) {
        // epee's JSON loader skips a `null` member (portable_storage_from_json): it is absent, for every service
        const got = Object.prototype.hasOwnProperty.call(src, k) ? src[k] : undefined;
        const member = got === null ? undefined : got;
        out[k] = fields[k].parse(member, path ? `${path}.${k}` : k);
      }
      return out;
    },
    toJson(v) {
      const o: Record<string, JsonWritable> = {};
      for (const k of keys) o[k] = fields[k].toJson(v[k]);
      return o;
    },
    describe: () => `an object {${keys.join(", ")}}`,
    jsonSchema: () => {
      const properties: Record<string, JsonSchema> = {};
      for (const k of keys) properties[k] = fields[k].jsonSchema();
      const req = keys.filter((k) => fields[k].isRequired === true);
      return req.length > 0 ? { type: "object", properties, required: req } : { type: "object", properties };
    },
  };
}

export type Infer<S> = S extends Schema<infer T> ? T : never;
