import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { JsonParseError, parseJson, Prerendered, stringifyJson, stringifyJsonParts, uint32ListText } from "../src/rpc/json.js";
import { array, bool, hex, object, required, SchemaError, str, u32, u64, withDefault } from "../src/rpc/schema.js";
import { seededRandom } from "./helpers/random.js";

const U64_MAX = (1n << 64n) - 1n;

describe("rpc/json parts", () => {
  it("cut a long epee text into parts of about 32 k characters whose concatenation is the text", () => {
    const v = { list: Array.from({ length: 20_000 }, (_, k) => ({ a: BigInt(k), s: k % 3 ? "x/y" : "é" })), p: new Prerendered({ big: "z".repeat(100_000) }) };
    const parts = stringifyJsonParts(v, { style: "epee" });
    assert.equal(parts.join(""), stringifyJson(v, { style: "epee" }));
    assert.ok(parts.length > 10, `${parts.length} parts`);
    // each part ends once it reached 32 k characters (the prerendered 100 k one is one piece)
    for (const p of parts.slice(0, -1)) assert.ok(p.length >= 32 * 1024 && p.length < 32 * 1024 + 101_000, String(p.length));
    assert.deepEqual(stringifyJsonParts({ a: 1 }, { style: "epee" }), [stringifyJson({ a: 1 }, { style: "epee" })]);
    assert.deepEqual(stringifyJsonParts({ a: 1 }), ['{"a":1}']);
  });
});

describe("rpc/json parse", () => {
  it("keeps integers beyond 2^53 exact as bigint, safe ones as number", () => {
    const v = parseJson(`{"a":18446744073709551615,"b":9007199254740991,"c":9007199254740992,"d":-9223372036854775808,"e":1.5,"f":1e3}`);
    assert.deepEqual(v, { a: U64_MAX, b: 9007199254740991, c: 9007199254740992n, d: -(1n << 63n), e: 1.5, f: 1000 });
  });

  it("round-trips 2^64-1 and nested values byte for byte", () => {
    const text = `{"amounts":[0,1,18446744073709551615],"x":{"y":[true,false,null,"s\\"\\u00e9"]},"z":-0.25}`;
    assert.equal(stringifyJson(parseJson(text)), text.replace("\\u00e9", "é"));
  });

  it("reads strings with every escape and surrogate pairs", () => {
    assert.equal(parseJson(`"\\b\\f\\n\\r\\t\\/\\\\\\"\\ud83d\\ude00"`), '\b\f\n\r\t/\\"😀');
  });

  it("rejects what RFC 8259 rejects, with positions", () => {
    const bad: [string, RegExp][] = [
      ["{bad", /expected a string key.*line 1 column 2/],
      ["[1,]", /unexpected ']'/],
      ["01", /after the JSON value/],
      ["1.", /digit expected after '.'/],
      ["-", /digit expected/],
      ['{"a" 1}', /expected ':'/],
      ['"a\tb"', /control character/],
      ["'x'", /unexpected/],
      ["[1] x", /after the JSON value/],
      ["NaN", /unexpected/],
      ['"\\x"', /bad escape/],
      ['"\\u12"', /bad \\u escape/],
      ["", /end of input/],
      ["{\n  \"a\": tru\n}", /line 2 column 8/],
    ];
    for (const [text, re] of bad) assert.throws(() => parseJson(text), (e: unknown) => e instanceof JsonParseError && re.test(e.message), text);
  });

  it("reads epee's non-standard strings only when asked (node answers), never by default", () => {
    const epee = '{"s":"a\\vb\u0001c"}';
    assert.throws(() => parseJson(epee), /bad escape|control character/);
    assert.deepEqual(parseJson(epee, { epeeTolerant: true }), { s: "a\u000bb\u0001c" });
  });

  it("limits depth and size", () => {
    assert.throws(() => parseJson("[".repeat(101) + "]".repeat(101)), /nesting deeper than 100/);
    assert.deepEqual(parseJson("[".repeat(100) + "]".repeat(100), { maxDepth: 100 }) !== undefined, true);
    assert.throws(() => parseJson(" ".repeat(20) + "1", { maxLength: 10 }), /longer than the limit/);
  });

  it("rejects invalid UTF-8 bytes and does not let __proto__ touch the prototype", () => {
    assert.throws(() => parseJson(Uint8Array.of(0x22, 0xff, 0x22)), /invalid UTF-8/);
    const v = parseJson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(v), ["__proto__"]);
  });
});

describe("rpc/json stringify", () => {
  it("writes bigint as a bare number, never quoted or in exponent form", () => {
    assert.equal(stringifyJson({ a: U64_MAX, b: 10n ** 30n, c: 1e21, d: -5n }), `{"a":18446744073709551615,"b":1000000000000000000000000000000,"c":1000000000000000000000,"d":-5}`);
  });

  it("indents like monerod when asked, leaves undefined members out", () => {
    assert.equal(stringifyJson({ id: 0, r: { c: 1n, e: [], u: undefined } }, { indent: 2 }), '{\n  "id": 0,\n  "r": {\n    "c": 1,\n    "e": []\n  }\n}');
  });

  it("refuses NaN, Infinity and cycles", () => {
    assert.throws(() => stringifyJson(NaN), RangeError);
    assert.throws(() => stringifyJson({ x: Infinity }), RangeError);
    const a: unknown[] = [];
    a.push(a);
    assert.throws(() => stringifyJson(a as never), /deeper/);
  });
});

describe("rpc/schema", () => {
  const s = object({
    height: required(u64),
    count: u32,
    hashes: array(hex(32)),
    flag: withDefault(bool, true),
    name: str,
  });

  it("converts integers to bigint and fills epee defaults", () => {
    assert.deepEqual(s.parse({ height: 18446744073709551615n }, "params"), { height: U64_MAX, count: 0, hashes: [], flag: true, name: "" });
    assert.equal(s.parse({ height: "42" }, "params").height, 42n, "decimal strings load like epee");
  });

  it("names the field, the expectation and what was found", () => {
    const cases: [unknown, RegExp][] = [
      [{}, /params\.height: missing; send an unsigned 64-bit integer/],
      [{ height: -1 }, /params\.height: -1 is out of range/],
      [{ height: 18446744073709551616n }, /out of range for an unsigned 64-bit integer/],
      [{ height: 1.5 }, /expected an unsigned 64-bit integer, found the number 1.5/],
      [{ height: 1, count: 4294967296 }, /params\.count: 4294967296 is out of range/],
      [{ height: 1, hashes: ["zz"] }, /params\.hashes\[0\]: expected a hex string of 32 bytes/],
      [{ height: 1, flag: "yes" }, /params\.flag: expected true or false, found the string "yes"/],
      [{ height: 1, name: 5 }, /params\.name: expected a string, found the number 5/],
      [[1], /params: expected an object, found an array/],
    ];
    for (const [v, re] of cases) assert.throws(() => s.parse(v as never, "params"), (e: unknown) => e instanceof SchemaError && re.test(e.message), re.source);
  });

  it("writes back bigint for the stringifier", () => {
    const v = s.parse({ height: 18446744073709551615n, hashes: ["00".repeat(32)] }, "p");
    assert.equal(stringifyJson(s.toJson(v)), `{"height":18446744073709551615,"count":0,"hashes":["${"00".repeat(32)}"],"flag":true,"name":""}`);
  });
});

describe("rpc/json epee style", () => {
  it("writes what epee writes: sorted keys, CRLF, inline arrays, objects in arrays at the parent's level", () => {
    const v = { status: "OK", distributions: [{ amount: 0n, distribution: [0n, 1n, 18446744073709551615n] }], a: {}, e: [] };
    assert.equal(
      stringifyJson(v, { style: "epee" }),
      '{\r\n  "a": {\r\n  },\r\n  "distributions": [{\r\n    "amount": 0,\r\n    "distribution": [0,1,18446744073709551615]\r\n  }],\r\n  "e": [],\r\n  "status": "OK"\r\n}',
    );
  });

  it("writes a long list of u64s (joined in one go) as it writes a short one, item by item", () => {
    const long = Array.from({ length: 40 }, (_, k) => (k === 39 ? 18446744073709551615n : BigInt(k * 1000)));
    const text = stringifyJson({ d: long }, { style: "epee" });
    assert.equal(text, `{\r\n  "d": [${long.map(String).join(",")}]\r\n}`);
    const back = (parseJson(text) as { d: (number | bigint)[] }).d;
    assert.deepEqual(back.map(String), long.map(String), "and reads back as the same numbers");
    // a list that is not all bigints takes the item-by-item path (strings quoted, numbers as numbers)
    const mixed = [...long.slice(0, 20), "x", 1.5];
    assert.equal(stringifyJson({ d: mixed }, { style: "epee" }), `{\r\n  "d": [${long.slice(0, 20).map(String).join(",")},"x",1.5]\r\n}`);
    // safe integers as JS numbers (get_output_distribution's counts) join the same way, beside bigints;
    // a number past 2^53 or a fraction goes item by item (1e21 is written in full, as scalar writes it)
    const counts = Array.from({ length: 30 }, (_, k) => (k % 2 === 0 ? k * 7 : BigInt(k * 7)));
    assert.equal(stringifyJson({ d: counts }, { style: "epee" }), `{\r\n  "d": [${counts.map(String).join(",")}]\r\n}`);
    const big = [...counts.slice(0, 20), 1e21, 2 ** 53];
    assert.equal(stringifyJson({ d: big }, { style: "epee" }), `{\r\n  "d": [${counts.slice(0, 20).map(String).join(",")},1000000000000000000000,9007199254740992]\r\n}`);
  });

  it("writes a list longer than a slice (get_transfers of a large wallet) as the same items one by one", () => {
    const item = (k: number) => ({ amount: BigInt(k) * 1000000000000n, subaddr_index: { major: k % 3, minor: k }, txid: k.toString(16).padStart(64, "0"), type: k % 2 ? "in" : "out" });
    const items = Array.from({ length: 1000 }, (_, k) => item(k));
    // each item as the writer renders it alone in the same place
    const prefix = '{\r\n  "in": [';
    const suffix = "]\r\n}";
    const alone = items.map((x) => {
      const t = stringifyJson({ in: [x] }, { style: "epee" });
      assert.ok(t.startsWith(prefix) && t.endsWith(suffix));
      return t.slice(prefix.length, -suffix.length);
    });
    assert.equal(stringifyJson({ in: items }, { style: "epee" }), prefix + alone.join(",") + suffix);
    for (const n of [255, 256, 257, 512, 513]) assert.equal(stringifyJson({ in: items.slice(0, n) }, { style: "epee" }), prefix + alone.slice(0, n).join(",") + suffix, `${n} items`);
  });

  it("escapes like epee ('/' too) but keeps the text valid JSON", () => {
    const s = 'a/b"c\\d\n\t\u000b\u0001é';
    const text = stringifyJson({ s }, { style: "epee" });
    assert.equal(text, '{\r\n  "s": "a\\/b\\"c\\\\d\\n\\t\\u000b\\u0001é"\r\n}');
    assert.deepEqual(parseJson(text), { s });
  });

  it("escapes every character as a character-by-character escape would, in short strings and long ones", () => {
    // the reference: each character on its own, as transform_to_escape_sequence walks the text
    const named: Record<string, string> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\", "/": "\\/" };
    const reference = (s: string): string =>
      `"${[...s].map((c) => named[c] ?? (c.charCodeAt(0) < 0x20 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c)).join("")}"`;
    const alphabet = ["\\", '"', "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u0001", "\u001f", " ", "a", "{", "é", "\\n", '\\"'];
    const rnd = seededRandom(11);
    const next = (n: number): number => Math.floor(rnd() * n);
    for (let k = 0; k < 300; k++) {
      const len = k % 3 === 0 ? 300 + next(700) : next(40);
      const s = Array.from({ length: len }, () => alphabet[next(alphabet.length)]).join("");
      assert.equal(stringifyJson(s, { style: "epee" }), reference(s), `string ${k}`);
    }
    // a block's JSON text, as get_block carries it
    const block = '{\n  "major_version": 16, \n  "prev_id": "ab", \n  "vout": [ {\n      "amount": 1\n    }\n  ]\n}';
    assert.equal(stringifyJson(block, { style: "epee" }), reference(block));
    // a lone surrogate stays as it is (JSON.stringify would write \ud800), as before
    assert.equal(stringifyJson('a"\ud800/', { style: "epee" }), '"a\\"\ud800\\/"');
  });
});

describe("rpc/methods OpenRPC", () => {
  it("documents each method once from its declaration, u64 bounds exact, restricted ones left out on request", async () => {
    const { MethodTable } = await import("../src/rpc/methods.js");
    const t = new MethodTable()
      .addJsonRpc({ name: "get_block_header_by_height", aliases: ["getblockheaderbyheight"], summary: "a header", params: object({ height: required(u64), fill_pow_hash: bool }), handler: () => null })
      .addJsonRpc({ name: "generateblocks", restricted: true, params: object({ amount_of_blocks: u64 }), handler: () => null })
      .addJsonPath({ path: "/get_height", aliases: ["/getheight"], params: object({}), handler: () => null });
    const doc = parseJson(stringifyJson(t.openRpc(false, { title: "node", version: "0.18" }))) as {
      openrpc: string;
      methods: { name: string; params: { name: string; required: boolean; schema: { maximum?: bigint | number } }[]; "x-aliases": string[] }[];
      "x-paths": { path: string }[];
    };
    assert.equal(doc.openrpc, "1.2.6");
    assert.deepEqual(doc.methods.map((m) => m.name), ["get_block_header_by_height", "generateblocks"]);
    assert.deepEqual(doc.methods[0]["x-aliases"], ["getblockheaderbyheight"]);
    assert.deepEqual(doc.methods[0].params.map((p) => [p.name, p.required]), [["height", true], ["fill_pow_hash", false]]);
    assert.equal(doc.methods[0].params[0].schema.maximum, 18446744073709551615n);
    assert.deepEqual(doc["x-paths"].map((p) => p.path), ["/get_height"]);
    const hidden = t.openRpc(true, { title: "node", version: "0.18" }) as { methods: { name: string }[] };
    assert.deepEqual(hidden.methods.map((m) => m.name), ["get_block_header_by_height"]);
  });
});

describe("rpc/json fast paths", () => {
  it("V8's parser is used only where its answer is ours: big integers, -0 and deep nesting still go through the full parser", () => {
    assert.deepEqual(parseJson('{"a":[1,2.5,"x\\u0041"],"b":null,"c":true}'), { a: [1, 2.5, "xA"], b: null, c: true });
    assert.equal(parseJson("18446744073709551615"), 18446744073709551615n);
    assert.equal(parseJson("123456789012345"), 123456789012345);
    assert.ok(Object.is(parseJson("-0"), 0), "-0 reads as 0");
    const deep = "[".repeat(101) + "]".repeat(101);
    assert.throws(() => parseJson(deep), /nesting deeper than 100/);
    assert.throws(() => parseJson('{"a":1,}'), JsonParseError, "errors are worded by the full parser");
    const proto = parseJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
    assert.deepEqual(Object.keys(proto), ["__proto__"]);
  });

  it("a Prerendered value writes what its value writes, at every level, in both styles", () => {
    const value = { z: 1n << 64n, a: ["x/y", { k: true }], m: "line\nbreak" };
    const pre = new Prerendered(value);
    for (const style of ["epee", "standard"] as const) {
      const plain = stringifyJson({ id: 1, result: value, nested: { deeper: value } }, { style });
      const viaPre = stringifyJson({ id: 1, result: pre, nested: { deeper: pre } }, { style });
      assert.equal(viaPre, plain, style);
      assert.equal(stringifyJson({ id: 1, result: pre, nested: { deeper: pre } }, { style }), plain, `${style}, from the kept text`);
    }
  });
});

describe("uint32ListText (long integer lists, get_output_distribution's counts)", () => {
  it("writes what join(',') writes, at every digit count and edge", () => {
    const edges = [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 65536, 999_999, 1_000_000, 99_999_999, 100_000_000, 999_999_999, 1_000_000_000, 4_294_967_295];
    assert.equal(uint32ListText(edges), edges.join(","));
    const rnd = seededRandom(7);
    const list = Array.from({ length: 5000 }, () => Math.floor(rnd() * 2 ** Math.floor(rnd() * 33)) % 2 ** 32);
    assert.equal(uint32ListText(list), list.join(","));
    assert.equal(uint32ListText([]), "");
  });
  it("leaves anything but integers in [0, 2^32) to the caller", () => {
    for (const bad of [2 ** 32, -1, 1.5, Number.NaN, Infinity, 10n, "1", null, true]) assert.equal(uint32ListText([1, 2, bad as never, 3]), undefined, String(bad));
  });
  it("an epee answer's long list of counts is the same text either way", () => {
    const counts = Array.from({ length: 20 }, (_, i) => i * 1_000_003);
    const mixed = [...counts, 2 ** 40]; // past 2^32: the join
    const text = stringifyJson({ d: counts, m: mixed }, { style: "epee" });
    assert.ok(text.includes(`"d": [${counts.join(",")}]`), text);
    assert.ok(text.includes(`"m": [${mixed.join(",")}]`), text);
  });
});
