/**
 * JSON that keeps 64-bit integers exact, for RPC bodies (monerod prints u64 amounts, heights and
 * difficulties as bare JSON numbers, and 2^64−1 must survive a round trip).
 *
 * Parse: strict RFC 8259. Integers (no fraction, no exponent) that are not safe JS integers become
 * `bigint`; everything else is a `number`. Nothing is lost, so a schema can later turn any integer
 * field into a `bigint` (see schema.ts `u64`) without this layer knowing field names.
 * Stringify: `bigint` prints as a raw JSON number (never quoted, never in exponent form).
 * Errors carry the byte offset, line and column; depth and size are bounded.
 */

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonParseError extends Error {
  override readonly name = "JsonParseError";
  constructor(
    readonly problem: string,
    /** Offset in UTF-16 code units into the text. */
    readonly position: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${problem} at line ${line} column ${column} (offset ${position})`);
  }
}

export interface JsonParseOptions {
  /** Deepest nesting of arrays/objects accepted. Default 100. */
  maxDepth?: number;
  /** Longest text accepted, in UTF-16 code units. Default 16 MiB. */
  maxLength?: number;
  /**
   * Accept what epee writes but RFC 8259 forbids, for reading a node's answers: raw control
   * characters inside strings (epee escapes only \b \f \n \r \t \v " \ /) and the "\v" escape.
   * Requests are always parsed strictly.
   */
  epeeTolerant?: boolean;
}

const DEFAULT_MAX_DEPTH = 100;
const DEFAULT_MAX_LENGTH = 16 * 1024 * 1024;

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
export { isObject as isJsonObject };

const NATIVE_MAX_LENGTH = 64 * 1024;
/** Texts JSON.parse reads exactly as parseJson does: no integer of 16+ digits, no "-0", no exponent of 3+ digits (which may be out of a double's range). */
const NEEDS_OWN_PARSER = /\d{16}|-0|[eE][+-]?\d{3}/;

/**
 * V8's JSON.parse where its answer is provably ours: every integer has under 16 digits (so is a
 * safe integer), no "-0", nesting within `maxDepth` (at most that many brackets). Anything it
 * rejects (or a BOM) goes to the full parser, which words the error. Undefined: not taken.
 */
function nativeParse(text: string, maxDepth: number): JsonValue | undefined {
  if (text.length > NATIVE_MAX_LENGTH || NEEDS_OWN_PARSER.test(text)) return undefined;
  let brackets = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if ((c === 0x5b || c === 0x7b) && ++brackets > maxDepth) return undefined;
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** Parses `text` (a string, or UTF-8 bytes which must be valid UTF-8). */
export function parseJson(input: string | Uint8Array, opts: JsonParseOptions = {}): JsonValue {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const tolerant = opts.epeeTolerant ?? false;
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    if (input.length > maxLength * 3) throw new JsonParseError(`body longer than ${maxLength}`, 0, 1, 1);
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      throw new JsonParseError("invalid UTF-8", 0, 1, 1);
    }
  }
  if (text.length > maxLength) throw new JsonParseError(`text longer than the limit of ${maxLength}`, 0, 1, 1);
  const quick = nativeParse(text, maxDepth);
  if (quick !== undefined) return quick;
  let i = 0;
  const n = text.length;

  const fail = (problem: string, at = i): never => {
    let line = 1;
    let col = 1;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    throw new JsonParseError(problem, at, line, col);
  };
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const describe = (at: number): string => (at >= n ? "end of input" : `'${text[at]}'`);

  const parseString = (): string => {
    // at the opening quote
    i++;
    let out = "";
    let start = i;
    for (;;) {
      if (i >= n) fail("unterminated string");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20 && !tolerant) fail("control character in string (escape it)");
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(start, i);
      i++;
      const e = text[i];
      switch (e) {
        case '"':
          out += '"';
          break;
        case "\\":
          out += "\\";
          break;
        case "/":
          out += "/";
          break;
        case "b":
          out += "\b";
          break;
        case "f":
          out += "\f";
          break;
        case "n":
          out += "\n";
          break;
        case "r":
          out += "\r";
          break;
        case "t":
          out += "\t";
          break;
        case "v":
          if (!tolerant) fail("bad escape '\\v'", i - 1);
          out += "\v";
          break;
        case "u": {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("bad \\u escape (needs 4 hex digits)", i - 1);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          fail(`bad escape '\\${e ?? ""}'`, i - 1);
      }
      i++;
      start = i;
    }
  };

  const parseNumber = (): number | bigint => {
    const start = i;
    if (text[i] === "-") i++;
    if (text[i] === "0") i++;
    else if (text[i] !== undefined && text[i] >= "1" && text[i] <= "9") while (text[i] >= "0" && text[i] <= "9") i++;
    else fail("bad number (digit expected)");
    let integral = true;
    if (text[i] === ".") {
      integral = false;
      i++;
      if (!(text[i] >= "0" && text[i] <= "9")) fail("bad number (digit expected after '.')");
      while (text[i] >= "0" && text[i] <= "9") i++;
    }
    if (text[i] === "e" || text[i] === "E") {
      integral = false;
      i++;
      if (text[i] === "+" || text[i] === "-") i++;
      if (!(text[i] >= "0" && text[i] <= "9")) fail("bad number (digit expected in exponent)");
      while (text[i] >= "0" && text[i] <= "9") i++;
    }
    const s = text.slice(start, i);
    if (integral) {
      const v = Number(s);
      if (Number.isSafeInteger(v)) return s === "-0" ? 0 : v;
      return BigInt(s);
    }
    const v = Number(s);
    // epee's strtod refuses what a double cannot hold (ERANGE): 1e400 and 1e-400 are parse errors
    if (!Number.isFinite(v) || (v === 0 && /[1-9]/.test(s.replace(/[eE].*$/, ""))))
      fail(`number ${s.length > 40 ? `${s.slice(0, 40)}…` : s} out of the range of a double`, start);
    return v;
  };

  const parseValue = (depth: number): JsonValue => {
    ws();
    if (i >= n) fail("unexpected end of input (value expected)");
    const c = text[i];
    if (c === "{") {
      if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`);
      i++;
      const obj: JsonObject = {};
      ws();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a string key, found ${describe(i)}`);
        const key = parseString();
        ws();
        if (text[i] !== ":") fail(`expected ':' after key, found ${describe(i)}`);
        i++;
        const v = parseValue(depth + 1);
        if (key === "__proto__") Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        else obj[key] = v;
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        fail(`expected ',' or '}' in object, found ${describe(i)}`);
      }
    }
    if (c === "[") {
      if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`);
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        fail(`expected ',' or ']' in array, found ${describe(i)}`);
      }
    }
    if (c === '"') return parseString();
    if (c === "-" || (c >= "0" && c <= "9")) return parseNumber();
    if (text.startsWith("true", i)) {
      i += 4;
      return true;
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return false;
    }
    if (text.startsWith("null", i)) {
      i += 4;
      return null;
    }
    return fail(`unexpected ${describe(i)}`);
  };

  if (text.charCodeAt(0) === 0xfeff) i = 1; // tolerate a UTF-8 BOM
  const v = parseValue(0);
  ws();
  if (i < n) fail(`unexpected ${describe(i)} after the JSON value`);
  return v;
}

export interface JsonStringifyOptions {
  /**
   * "standard" (default): RFC 8259 text, compact or indented by `indent`.
   * "epee": byte for byte what monerod/monero-wallet-rpc write (epee portable_storage_to_json.h):
   * keys in std::map order, CRLF line ends, 2 spaces per level, arrays inline as [a,b], and
   * '/' escaped as "\/" (control characters epee would write raw are \u-escaped instead, so the
   * text stays valid JSON).
   */
  style?: "standard" | "epee";
  /** Spaces per level for the standard style; 0 (default) for compact output. */
  indent?: number;
  /** Deepest nesting written. Default 1000. */
  maxDepth?: number;
}

/**
 * A value rendered once per layout and then written as text: for answers served many times
 * unchanged (a block's answer at a given tip). The value must not change after construction.
 * `T` is the value's type, so that a handler answering one still has a typed result (see
 * `Unrendered`).
 *
 * `render`, when given, writes the epee text itself (with epeeString, epeeInteger and epeePad):
 * for the entries of long lists answered often (get_transfers), one writer that knows its
 * fields' names and order costs a third of the generic walk, which lists and sorts each object's
 * keys and loads each member by name. It must write what the generic writer writes for `value`
 * (a test per writer compares them); the standard style always writes `value`. Its text is made
 * each time the value is written, not kept.
 */
export class Prerendered<T extends JsonWritable = JsonWritable> {
  // the first level rendered, inline (an entry is written at one level); others in a map
  private level = -1;
  private text = "";
  private others?: Map<number, string>;
  // kept as taking `never` so that Prerendered<T> stays covariant in T (a writer only reads its value)
  private readonly render?: (value: never, level: number) => string;

  constructor(
    readonly value: T,
    render?: (value: T, level: number) => string,
  ) {
    this.render = render;
  }

  /**
   * Renders the epee-style text for indentation `level` now rather than when the answer is
   * written: a handler building a long answer in time slices renders each part in its slice. A
   * wrong level costs nothing but the early work (the text is then made when written).
   */
  prerender(level: number): this {
    this.epeeAt(level, () => stringifyEpee(this.value, 1000, level));
    return this;
  }

  /** The epee-style text at indentation `level`: made by `render` each time, or by `generic` the first time. */
  epeeAt(level: number, generic: () => string): string {
    // an own writer's text is not kept: its entry is written once, and 100,000 kept texts (each a
    // rope of dozens of pieces) lived until the answer was written, old garbage for the collector
    if (this.render) return this.render(this.value as never, level);
    if (level === this.level) return this.text;
    const kept = this.others?.get(level);
    if (kept !== undefined) return kept;
    const t = generic();
    if (this.level < 0) {
      this.level = level;
      this.text = t;
    } else (this.others ??= new Map()).set(level, t);
    return t;
  }
}

/** What a value answers once written: a Prerendered value's own type, any other value's type. */
export type Unrendered<T> = T extends Prerendered<infer V> ? V : T;

/**
 * A value the stringifier accepts: JsonValue, plus `undefined` members (left out, as
 * JSON.stringify does) and Prerendered values.
 */
export type JsonWritable =
  | Prerendered
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | readonly JsonWritable[]
  | { readonly [key: string]: JsonWritable };

const EPEE_ESCAPES: Record<string, string> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\", "/": "\\/" };

/** Any UTF-16 surrogate: JSON.stringify would write a lone one as \uXXXX, where epee keeps the text's units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The quoted, escaped string when it needs escapes. A block's or a tx's JSON text (what get_block
 * and get_transactions carry inside their answers) has a quote every few characters and a newline
 * on every line: a regular expression calling back for each of thousands of matches took ~180 µs
 * for a 20 kB text, V8's JSON.stringify ~50. JSON.stringify escapes exactly epee's set (the quote,
 * the backslash, \b \f \n \r \t by name, other control characters as lowercase \u00XX) except
 * '/', added after (no escape sequence contains one); text with surrogates takes the per-character way.
 */
function quoteEpee(s: string): string {
  if (!SURROGATE.test(s)) {
    const q = JSON.stringify(s);
    return s.includes("/") ? q.replaceAll("/", "\\/") : q;
  }
  // eslint-disable-next-line no-control-regex
  return `"${s.replace(/[\u0000-\u001f"\\/]/g, (c) => EPEE_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`;
}

/**
 * A JSON string as epee writes it (transform_to_escape_sequence, except that other control
 * characters become \u00XX), quotes included. Nothing is kept between calls: a map of escaped texts
 * by text cost more than it saved (hashing and comparing a 20 kB text of the same length as those
 * kept took ~90 µs, more than escaping it anew); whole answers are kept by the caches that own them.
 */
export function epeeString(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f"\\/]/.test(s) ? quoteEpee(s) : `"${s}"`;
}

/** Keys in std::map<std::string> order (bytewise on UTF-8). */
function epeeKeyOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** Writes JSON with `bigint` as bare integers. Throws on non-finite numbers and cycles (depth). */
export function stringifyJson(value: JsonWritable, opts: JsonStringifyOptions = {}): string {
  if (opts.style === "epee") return stringifyEpee(value, opts.maxDepth ?? 1000);
  const indent = opts.indent ?? 0;
  const maxDepth = opts.maxDepth ?? 1000;
  const parts: string[] = [];
  const write = (v: JsonWritable, depth: number): void => {
    if (depth > maxDepth) throw new RangeError(`JSON nesting deeper than ${maxDepth} (a cycle?)`);
    if (v instanceof Prerendered) return write(v.value, depth);
    switch (typeof v) {
      case "bigint":
        parts.push(v.toString());
        return;
      case "number":
        if (!Number.isFinite(v)) throw new RangeError(`cannot write ${v} as JSON`);
        // integers beyond 1e21 would print in exponent form: print their exact decimal instead
        parts.push(Number.isInteger(v) && Math.abs(v) >= 1e21 ? BigInt(v).toString() : String(v));
        return;
      case "string":
        parts.push(JSON.stringify(v));
        return;
      case "boolean":
        parts.push(v ? "true" : "false");
        return;
      case "undefined":
        parts.push("null");
        return;
      case "object":
        break;
      default:
        throw new TypeError(`cannot write a ${typeof v} as JSON`);
    }
    if (v === null) {
      parts.push("null");
      return;
    }
    const nl = indent > 0 ? "\n" + " ".repeat(indent * (depth + 1)) : "";
    const close = indent > 0 ? "\n" + " ".repeat(indent * depth) : "";
    if (Array.isArray(v)) {
      const arr = v as readonly JsonWritable[];
      if (arr.length === 0) {
        parts.push("[]");
        return;
      }
      parts.push("[");
      arr.forEach((item, k) => {
        if (k > 0) parts.push(",");
        parts.push(nl);
        write(item, depth + 1);
      });
      parts.push(close, "]");
      return;
    }
    const obj = v as { readonly [key: string]: JsonWritable };
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined);
    if (keys.length === 0) {
      parts.push("{}");
      return;
    }
    parts.push("{");
    keys.forEach((k, idx) => {
      if (idx > 0) parts.push(",");
      parts.push(nl, JSON.stringify(k), indent > 0 ? ": " : ":");
      write(obj[k], depth + 1);
    });
    parts.push(close, "}");
  };
  write(value, 0);
  return parts.join("");
}

/**
 * Whether every item is a bigint or a safe integer (Array.prototype.join then writes each as its
 * decimal digits, as scalar does).
 */
function allIntegers(arr: readonly JsonWritable[]): boolean {
  if (arr.length < 16) return false;
  for (let k = 0; k < arr.length; k++) {
    const x = arr[k];
    if (typeof x !== "bigint" && !Number.isSafeInteger(x)) return false;
  }
  return true;
}

/** "00" to "99" as ASCII digit pairs (uint32ListText). */
const DIGIT_PAIRS = (() => {
  const t = new Uint8Array(200);
  for (let i = 0; i < 100; i++) {
    t[2 * i] = 48 + Math.floor(i / 10);
    t[2 * i + 1] = 48 + (i % 10);
  }
  return t;
})();

/**
 * `arr.join(",")` for a list of JS integers in [0, 2^32), written as ASCII digits into one buffer;
 * undefined when any element is something else (the caller joins it then). A whole chain's output
 * distribution is 100,000 such numbers per 100,000 blocks: V8's join made a string of each
 * (9.4 ms for 100,000 counts), this writes them in 1.9 ms.
 */
export function uint32ListText(arr: readonly JsonWritable[]): string | undefined {
  // a list of anything else (objects, strings) goes back before the buffer is made
  if (arr.length > 0 && typeof arr[0] !== "number") return undefined;
  const b = Buffer.allocUnsafe(arr.length * 11);
  let p = 0;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (typeof v !== "number" || !(v >= 0 && v < 0x1_0000_0000) || v !== Math.floor(v)) return undefined;
    let x = v;
    if (i > 0) b[p++] = 44; // ","
    const n = x < 10 ? 1 : x < 100 ? 2 : x < 1e3 ? 3 : x < 1e4 ? 4 : x < 1e5 ? 5 : x < 1e6 ? 6 : x < 1e7 ? 7 : x < 1e8 ? 8 : x < 1e9 ? 9 : 10;
    let q = p + n;
    p = q;
    // the digits from the last, two at a time
    while (x >= 100) {
      const y = Math.floor(x / 100);
      const r = (x - 100 * y) * 2;
      x = y;
      b[--q] = DIGIT_PAIRS[r + 1];
      b[--q] = DIGIT_PAIRS[r];
    }
    // the first one or two digits end at q
    if (x >= 10) {
      b[q - 1] = DIGIT_PAIRS[2 * x + 1];
      b[q - 2] = DIGIT_PAIRS[2 * x];
    } else b[q - 1] = 48 + x;
  }
  return b.toString("latin1", 0, p);
}

/** A u64 (or any integer) as epee writes it. */
export const epeeInteger = (v: bigint | number): string => (typeof v === "bigint" ? v.toString() : (scalar(v) as string));

function scalar(v: JsonWritable): string | undefined {
  switch (typeof v) {
    case "bigint":
      return v.toString();
    case "number":
      if (!Number.isFinite(v)) throw new RangeError(`cannot write ${v} as JSON`);
      return Number.isInteger(v) && Math.abs(v) >= 1e21 ? BigInt(v).toString() : String(v);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
      return "null";
    case "string":
      return epeeString(v);
    case "object":
      return v === null ? "null" : undefined;
    default:
      throw new TypeError(`cannot write a ${typeof v} as JSON`);
  }
}

// eslint-disable-next-line no-control-regex
const ASCII_KEY = /^[\u0000-\u007f]*$/;
const EPEE_PADS: string[] = [];
/** epee's indentation of `level`: two spaces a level. */
export const epeePad = (level: number): string => (EPEE_PADS[level] ??= "  ".repeat(level));

/** `"key": ` as epee writes it, for the (few, ASCII) member names answers use. */
const KEY_TEXT = new Map<string, string>();
function keyText(k: string): string {
  let t = KEY_TEXT.get(k);
  if (t === undefined) {
    t = epeeString(k) + ": ";
    // only names that sort bytewise as UTF-16 does are kept (and the map stays small)
    if (KEY_TEXT.size < 4096 && ASCII_KEY.test(k)) KEY_TEXT.set(k, t);
  }
  return t;
}

/** Whether `keys` is already in code-unit order (answers are mostly written sorted: no sort then). */
function inOrder(keys: readonly string[]): boolean {
  for (let k = 1; k < keys.length; k++) if (keys[k - 1] > keys[k]) return false;
  return true;
}

/**
 * The epee text is cut into parts of about this many characters, each flattened when cut: a long
 * answer is then written part by part, where one text of 200 kB or more was flattened into a new
 * large object (mapped pages) by each step that read it (its UTF-8 length, the write), and its
 * pieces lived until the write (old garbage for 100,000 entries).
 */
const PART_CHARS = 32 * 1024;

/** Collects the epee text in parts (stringifyEpee). */
class EpeeParts {
  readonly parts: string[] = [];
  private cur = "";

  add(text: string): void {
    this.cur += text;
    if (this.cur.length >= PART_CHARS) this.cut();
  }

  private cut(): void {
    // reading a character makes V8 flatten the rope at once, while its pieces are still young
    this.cur.charCodeAt(0);
    this.parts.push(this.cur);
    this.cur = "";
  }

  end(): string[] {
    if (this.cur !== "" || this.parts.length === 0) this.parts.push(this.cur);
    return this.parts;
  }
}

function stringifyEpee(value: JsonWritable, maxDepth: number, startLevel = 0): string {
  const parts = epeeParts(value, maxDepth, startLevel);
  return parts.length === 1 ? parts[0] : parts.join("");
}

function epeeParts(value: JsonWritable, maxDepth: number, startLevel: number): string[] {
  const out = new EpeeParts();
  // string concatenation (V8 ropes) makes far less garbage than an array of small parts
  const write = (v: JsonWritable, level: number, depth: number): void => {
    if (depth > maxDepth) throw new RangeError(`JSON nesting deeper than ${maxDepth} (a cycle?)`);
    if (v instanceof Prerendered) return out.add(v.epeeAt(level, () => stringifyEpee(v.value, maxDepth - depth, level)));
    const sc = scalar(v);
    if (sc !== undefined) return out.add(sc);
    if (Array.isArray(v)) {
      // arrays add no level: their objects are indented as their parent member is
      const arr = v as readonly JsonWritable[];
      // a list of u64s (get_output_distribution's thousands of counts): written as digits in one
      // pass when each is below 2^32 (uint32ListText checks as it writes), else joined natively
      if (arr.length >= 16) {
        const ints = uint32ListText(arr) ?? (allIntegers(arr) ? arr.join(",") : undefined);
        if (ints !== undefined) return out.add("[" + ints + "]");
      }
      out.add("[");
      for (let k = 0; k < arr.length; k++) {
        if (k > 0) out.add(",");
        write(arr[k], level, depth + 1);
      }
      return out.add("]");
    }
    const obj = v as { readonly [key: string]: JsonWritable };
    // one pass, no closures: big answers (get_transfers) have thousands of small objects
    const keys: string[] = [];
    let ascii = true;
    for (const k of Object.keys(obj)) {
      if (obj[k] === undefined) continue;
      keys.push(k);
      if (ascii && !KEY_TEXT.has(k) && !ASCII_KEY.test(k)) ascii = false;
    }
    if (!ascii) keys.sort(epeeKeyOrder);
    else if (!inOrder(keys)) keys.sort();
    const pad = epeePad(level + 1);
    out.add("{\r\n");
    for (let k = 0; k < keys.length; k++) {
      out.add(pad + keyText(keys[k]));
      write(obj[keys[k]], level + 1, depth + 1);
      out.add(k < keys.length - 1 ? ",\r\n" : "\r\n");
    }
    out.add(epeePad(level) + "}");
  };
  write(value, startLevel, 0);
  return out.end();
}

/**
 * The JSON text of `value` in parts to be written one after the other (their concatenation is
 * stringifyJson's text): a long epee-style answer comes in parts of about 32 k characters, so
 * that no step needs it as one string.
 */
export function stringifyJsonParts(value: JsonWritable, opts: JsonStringifyOptions = {}): string[] {
  return opts.style === "epee" ? epeeParts(value, opts.maxDepth ?? 1000, 0) : [stringifyJson(value, opts)];
}
