import { BYTE_HEX, bytesToHex } from "../base/bytes.js";

/** A newline and `depth` levels of indentation, made once per depth. */
const INDENTS: string[] = [];
const indentOf = (depth: number): string => (INDENTS[depth] ??= `\n${"  ".repeat(depth)}`);

/** `"name": ` per tag name (a few dozen names in all), made once. */
const TAGS = new Map<string, string>();
const tagOf = (name: string): string => {
  let t = TAGS.get(name);
  if (t === undefined) {
    t = `"${name}": `;
    TAGS.set(name, t);
  }
  return t;
};

/**
 * Lower-case hex of a blob: a short one (a key, a commitment) pair by pair from BYTE_HEX into the
 * archive's rope, flattened with the rest at the end, which costs less there than a Buffer per
 * blob; a long one (a tx extra, a signature) through bytesToHex.
 */
function blobHex(b: Uint8Array): string {
  if (b.length > 64) return bytesToHex(b);
  let s = "";
  for (let i = 0; i < b.length; i++) s += BYTE_HEX[b[i]];
  return s;
}

/**
 * A text writer that reproduces Monero's `json_archive<true>` with indentation
 * (src/serialization/json_archive.h), the archive behind monerod's `as_json` and a block's `json`.
 * Its output is not always pretty (`"key": value, ` separators, a newline before a closing bracket
 * only when the most recently opened array had a known non-zero size), and callers must drive it in
 * the same order as Monero's serializers to get the same text. Integers are printed exactly from
 * bigint or number, never through floating point.
 */
export class JsonArchive {
  // the text as one string: V8 joins the appended pieces as a rope, flattened once at the end (a
  // 100-output coinbase appends ~2,000 pieces)
  private out = "";
  private depth = 0;
  private objectBegin = false;
  private innerArraySize = 0;

  constructor(private readonly indent = true) {}

  private makeIndent(): void {
    if (this.indent) this.out += indentOf(this.depth);
  }

  tag(name: string): void {
    if (!this.objectBegin) this.out += ", ";
    this.makeIndent();
    this.out += tagOf(name);
    this.objectBegin = false;
  }

  beginObject(): void {
    this.out += "{";
    this.depth++;
    this.objectBegin = true;
  }

  endObject(): void {
    this.depth--;
    this.makeIndent();
    this.out += "}";
  }

  /** `size` is the container size Monero passes (0 for its hand-rolled arrays). */
  beginArray(size = 0): void {
    this.innerArraySize = size;
    this.depth++;
    this.out += "[ ";
  }

  delimitArray(): void {
    this.out += ", ";
  }

  endArray(): void {
    this.depth--;
    if (this.innerArraySize > 0) this.makeIndent();
    this.out += "]";
  }

  /** serialize_int / serialize_varint: decimal. */
  int(v: number | bigint): void {
    this.out += typeof v === "bigint" ? v.toString(10) : String(Math.trunc(v));
  }

  beginString(delimiter = '"'): void {
    this.out += delimiter;
  }

  endString(delimiter = '"'): void {
    this.out += delimiter;
  }

  /** serialize_blob: lowercase hex between delimiters. */
  blob(b: Uint8Array, delimiter = '"'): void {
    this.out += delimiter + blobHex(b) + delimiter;
  }

  /** serialize_blob of one byte (a view tag), without making a one-byte array. */
  byteBlob(v: number): void {
    this.out += `"${BYTE_HEX[v & 0xff]}"`;
  }

  /** Variants open an object and tag it with the alternative's name. */
  beginVariant(tag: string): void {
    this.beginObject();
    this.tag(tag);
  }

  endVariant(): void {
    this.endObject();
  }

  /** A container of blobs (std::vector<key> etc.). */
  blobArray(items: Uint8Array[]): void {
    this.beginArray(items.length);
    items.forEach((it, i) => {
      if (i > 0) this.delimitArray();
      this.blob(it);
    });
    this.endArray();
  }

  /** A Monero hand-rolled array of blobs (begin_array() with no size, delimit when more follow). */
  customBlobArray(items: Uint8Array[]): void {
    this.beginArray();
    items.forEach((it, i) => {
      this.blob(it);
      if (items.length - i > 1) this.delimitArray();
    });
    this.endArray();
  }

  toString(): string {
    return this.out;
  }
}
