/**
 * A text writer that reproduces Monero's `json_archive<true>` with indentation
 * (src/serialization/json_archive.h), the archive behind monerod's `as_json` and a block's `json`.
 * Its output is not always pretty (`"key": value, ` separators, a newline before a closing bracket
 * only when the most recently opened array had a known non-zero size), and callers must drive it in
 * the same order as Monero's serializers to get the same text. Integers are printed exactly from
 * bigint or number, never through floating point.
 */
export class JsonArchive {
  private out: string[] = [];
  private depth = 0;
  private objectBegin = false;
  private innerArraySize = 0;

  constructor(private readonly indent = true) {}

  private makeIndent(): void {
    if (this.indent) this.out.push(`\n${"  ".repeat(this.depth)}`);
  }

  tag(name: string): void {
    if (!this.objectBegin) this.out.push(", ");
    this.makeIndent();
    this.out.push(`"${name}": `);
    this.objectBegin = false;
  }

  beginObject(): void {
    this.out.push("{");
    this.depth++;
    this.objectBegin = true;
  }

  endObject(): void {
    this.depth--;
    this.makeIndent();
    this.out.push("}");
  }

  /** `size` is the container size Monero passes (0 for its hand-rolled arrays). */
  beginArray(size = 0): void {
    this.innerArraySize = size;
    this.depth++;
    this.out.push("[ ");
  }

  delimitArray(): void {
    this.out.push(", ");
  }

  endArray(): void {
    this.depth--;
    if (this.innerArraySize > 0) this.makeIndent();
    this.out.push("]");
  }

  /** serialize_int / serialize_varint: decimal. */
  int(v: number | bigint): void {
    this.out.push(typeof v === "bigint" ? v.toString(10) : String(Math.trunc(v)));
  }

  beginString(delimiter = '"'): void {
    this.out.push(delimiter);
  }

  endString(delimiter = '"'): void {
    this.out.push(delimiter);
  }

  /** serialize_blob: lowercase hex between delimiters. */
  blob(b: Uint8Array, delimiter = '"'): void {
    this.out.push(delimiter, Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex"), delimiter);
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
    return this.out.join("");
  }
}
