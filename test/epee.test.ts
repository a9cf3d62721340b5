import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  EPEE_LEVIN_LIMITS,
  epeeKeyWithout,
  type EpeeSection,
  type EpeeValue,
  ev,
  parseEpee,
  serializeEpee,
  serializeOnce,
} from "../src/codec/epee.js";
import { FormatError } from "../src/codec/reader.js";

const FIX = new URL("../../test/fixtures/chain/", import.meta.url);
const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const HEADER = "011101010101020101";

test("every scalar type, hand-made, round-trips byte for byte", () => {
  const root: EpeeSection = new Map<string, EpeeValue>([
    ["a_i64", ev.i64(-2n)],
    ["b_i32", ev.i32(-3)],
    ["c_i16", ev.i16(-4)],
    ["d_i8", ev.i8(-5)],
    ["e_u64", ev.u64(0xfedcba9876543210n)],
    ["f_u32", ev.u32(0xdeadbeef)],
    ["g_u16", ev.u16(0xbeef)],
    ["h_u8", ev.u8(0xef)],
    ["i_dbl", ev.double(1.5)],
    ["j_str", ev.bytes(hex("00ff10"))],
    ["k_bool", ev.bool(true)],
    ["l_obj", ev.object(new Map([["x", ev.u8(1)]]))],
  ]);
  const bin = serializeEpee(root);
  const expected =
    HEADER +
    "30" + // 12 entries << 2
    "05615f693634" + "01" + "feffffffffffffff" +
    "05625f693332" + "02" + "fdffffff" +
    "05635f693136" + "03" + "fcff" +
    "04645f6938" + "04" + "fb" +
    "05655f753634" + "05" + "1032547698badcfe" +
    "05665f753332" + "06" + "efbeadde" +
    "05675f753136" + "07" + "efbe" +
    "04685f7538" + "08" + "ef" +
    "05695f64626c" + "09" + "000000000000f83f" +
    "056a5f737472" + "0a" + "0c" + "00ff10" +
    "066b5f626f6f6c" + "0b" + "01" +
    "056c5f6f626a" + "0c" + "04" + "0178" + "08" + "01";
  assert.equal(toHex(bin), expected);
  const back = parseEpee(bin);
  assert.deepEqual(back, root);
  assert.equal(toHex(serializeEpee(back)), expected);
});

test("arrays of every kind and the size marks 1/2/4 bytes", () => {
  const many = Array.from({ length: 70 }, (_, i) => ev.u16(i));
  const root: EpeeSection = new Map<string, EpeeValue>([
    ["u16s", ev.array("uint16", many)],
    ["strs", ev.array("string", [ev.bytes(hex("aa")), ev.bytes(new Uint8Array(0))])],
    ["objs", ev.array("object", [ev.object(new Map()), ev.object(new Map([["k", ev.bool(false)]]))])],
    ["big", ev.bytes(new Uint8Array(20000))],
  ]);
  const bin = serializeEpee(root);
  const back = parseEpee(bin);
  assert.deepEqual(back, root);
  // names are written in std::map (byte) order: big, objs, strs, u16s
  assert.deepEqual([...parseEpee(bin).keys()], ["big", "objs", "strs", "u16s"]);
  // u16s: 70 elements → a 2-byte size mark (70 << 2 | 1 = 0x0119)
  assert.ok(toHex(bin).includes(`0475313673${"87"}1901`));
  // 20000-byte string → 4-byte mark (20000 << 2 | 2)
  assert.ok(toHex(bin).includes(`03626967${"0a"}82380100`));
  // insertion order kept on request
  assert.deepEqual([...parseEpee(serializeEpee(root, { preserveOrder: true })).keys()], ["u16s", "strs", "objs", "big"]);
});

test("serializeOnce: a kept section's bytes are spliced in, the document is the same byte for byte", () => {
  const inner = (k: number): EpeeSection =>
    new Map<string, EpeeValue>([["zeta", ev.u64(BigInt(k))], ["alpha", ev.bytes(hex("0102"))], ["mid", ev.array("object", [ev.object(new Map([["b", ev.bool(true)], ["a", ev.u8(k)]]))])]]);
  const doc = (secs: EpeeSection[]): EpeeSection => new Map<string, EpeeValue>([["list", ev.array("object", secs.map((x) => ev.object(x)))], ["top", ev.u32(7)]]);
  const fresh = serializeEpee(doc([inner(1), inner(2), inner(3)]));
  const kept = [inner(1), inner(2), inner(3)].map((x) => serializeOnce(x));
  assert.equal(toHex(serializeEpee(doc(kept))), toHex(fresh));
  // twice in one document, and again
  assert.equal(toHex(serializeEpee(doc([kept[0], kept[0]]))), toHex(serializeEpee(doc([inner(1), inner(1)]))));
  // insertion order asked for: the kept bytes (Monero's order) are not used
  assert.equal(toHex(serializeEpee(doc(kept), { preserveOrder: true })), toHex(serializeEpee(doc([inner(1), inner(2), inner(3)]), { preserveOrder: true })));
});

test("the separate array marker (type 13) reads as an array", () => {
  // "a": type 13, then type uint8|array, 2 elements
  const bin = hex(HEADER + "04" + "0161" + "0d" + "88" + "08" + "0102");
  const sec = parseEpee(bin);
  assert.deepEqual(sec.get("a"), ev.array("uint8", [ev.u8(1), ev.u8(2)]));
  // Monero writes it back without the marker
  assert.equal(toHex(serializeEpee(sec)), HEADER + "04" + "0161" + "88" + "08" + "0102");
  assert.throws(() => parseEpee(hex(HEADER + "04" + "0161" + "0d" + "08" + "01")), /array without the array flag/);
});

function rejects(body: string, re: RegExp) {
  assert.throws(
    () => parseEpee(hex(HEADER + body)),
    (e: unknown) => e instanceof FormatError && re.test(e.message),
    `expected ${re} for ${body}`,
  );
}

test("malformed documents are rejected with a named reason", () => {
  assert.throws(() => parseEpee(hex("0111010101")), /shorter than the 9-byte header/);
  assert.throws(() => parseEpee(hex("011101010101020102" + "00")), /unknown format version 2/);
  assert.throws(() => parseEpee(hex("011101010101020201" + "00")), /signature mismatch/);
  assert.throws(() => parseEpee(hex(HEADER)), /no bytes after the header/);
  rejects("04" + "00", /section name is missing/);
  rejects("08" + "0161" + "0801" + "0161" + "0802", /duplicate key/);
  rejects("04" + "0161" + "0b02", /invalid bool value 2/);
  rejects("04" + "0161" + "0e", /unknown entry type code 14/);
  rejects("04" + "0161" + "8e00", /unknown array entry type code 14/);
  rejects("04" + "0161" + "0a08" + "aa", /goes past/);
  rejects("04" + "0161" + "8508" + "0000000000000000", /size sanity check/); // 2 u64 in 8 bytes
  rejects("04" + "0161" + "8a0c" + "0000", /size sanity check/); // 3 strings need 6 bytes
  rejects("04" + "0161" + "8d04" + "88", /arrays of arrays/);
  rejects("04" + "0161" + "05" + "0102", /needs 8 bytes/);
  rejects("08" + "0161" + "0801", /needs 1 byte/);
  // an empty array of arrays is accepted, as by Monero
  assert.deepEqual(parseEpee(hex(HEADER + "04" + "0161" + "8d00")).get("a"), ev.array("array", []));
});

test("recursion limit: nesting depth Monero accepts and the first it refuses", () => {
  // nested objects {"a": {"a": ... {"b": u8}}}
  const nested = (depth: number) => {
    let body = "04" + "0162" + "08" + "01";
    for (let i = 0; i < depth; i++) body = "04" + "0161" + "0c" + body;
    return hex(HEADER + body);
  };
  // each object level takes 3 reader frames; a u8 leaf 4 more below the section: 1 + 3k + 4 < 100
  assert.doesNotThrow(() => parseEpee(nested(31)));
  assert.throws(() => parseEpee(nested(32)), /recursion limit/);
});

test("object/field/string budgets (Levin limits)", () => {
  const objs = Array.from({ length: 8193 }, () => ev.object(new Map()));
  const bin = serializeEpee(new Map([["o", ev.array("object", objs)]]));
  assert.doesNotThrow(() => parseEpee(bin));
  assert.throws(() => parseEpee(bin, { limits: EPEE_LEVIN_LIMITS }), /too many objects/);
  const strs = Array.from({ length: 16385 }, () => ev.bytes(hex("00")));
  const bin2 = serializeEpee(new Map([["s", ev.array("string", strs)]]));
  assert.throws(() => parseEpee(bin2, { limits: EPEE_LEVIN_LIMITS }), /too many strings/);
  const fields = new Map<string, EpeeValue>();
  for (let i = 0; i < 16385; i++) fields.set(`f${i}`, ev.u8(0));
  assert.throws(() => parseEpee(serializeEpee(fields), { limits: EPEE_LEVIN_LIMITS }), /too many object fields/);
});

for (const name of ["get_blocks.bin", "get_blocks_pruned.bin", "get_outs.bin", "get_blocks.req.bin", "get_outs.req.bin"]) {
  test(`recorded monerod ${name} parses and re-serializes byte for byte`, () => {
    const bin = new Uint8Array(readFileSync(new URL(name, FIX)));
    const sec = parseEpee(bin);
    assert.ok(sec.size > 0);
    assert.equal(toHex(serializeEpee(sec)), toHex(bin));
  });
}

test("typed /get_blocks.bin responses (full and pruned) decode and re-encode byte for byte", async () => {
  const { decodeEpee, encodeEpee } = await import("../src/codec/epee-map.js");
  const { getBlocksBinResponse, getBlocksBinRequest } = await import("../src/protocol/rpc-bin.js");
  const { parseBlock } = await import("../src/protocol/block.js");
  const { parseTransaction } = await import("../src/protocol/tx.js");
  const { recordedBlocks, recordedTxs } = await import("./helpers/chain.js");
  const byHash = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  for (const [name, pruned] of [
    ["get_blocks.bin", false],
    ["get_blocks_pruned.bin", true],
  ] as const) {
    const bin = new Uint8Array(readFileSync(new URL(name, FIX)));
    const res = decodeEpee(getBlocksBinResponse, bin);
    assert.equal(res.status, "OK");
    assert.ok(res.blocks.length > 0);
    assert.equal(res.output_indices.length, res.blocks.length);
    assert.equal(toHex(encodeEpee(getBlocksBinResponse, res)), toHex(bin), name);
    const rb = recordedBlocks();
    let txCount = 0;
    for (const [i, e] of res.blocks.entries()) {
      assert.equal(e.pruned, pruned);
      const b = parseBlock(e.block);
      assert.equal(toHex(e.block), rb[Number(res.start_height) + i].blob);
      assert.equal(e.txs.length, b.txHashes.length);
      e.txs.forEach((t, j) => {
        const tx = parseTransaction(t.blob, { pruned });
        assert.ok(tx.vin.length > 0);
        const rec = byHash.get(toHex(b.txHashes[j]));
        // monerod's RPC leaves prunable_hash null even in pruned entries (core_rpc_server.cpp on_get_blocks)
        assert.equal(toHex(t.prunable_hash), "00".repeat(32));
        if (rec && pruned) assert.equal(toHex(t.blob), rec.pruned_as_hex);
        if (rec && !pruned) assert.equal(toHex(t.blob), rec.as_hex);
        txCount++;
      });
    }
    assert.ok(txCount > 0);
  }
  const req = decodeEpee(getBlocksBinRequest, new Uint8Array(readFileSync(new URL("get_blocks.req.bin", FIX))));
  assert.equal(req.block_ids.length, 1);
  assert.equal(req.prune, false);
});

test("blobs decoded from a Node Buffer (as an HTTP client receives an answer) own their bytes, not views of the answer", async () => {
  const { decodeEpee } = await import("../src/codec/epee-map.js");
  const { getBlocksBinResponse } = await import("../src/protocol/rpc-bin.js");
  const raw = readFileSync(new URL("get_blocks.bin", FIX));
  assert.ok(Buffer.isBuffer(raw));
  const res = decodeEpee(getBlocksBinResponse, raw);
  const blobs = res.blocks.flatMap((e) => [e.block, ...e.txs.map((t) => t.blob), ...e.txs.map((t) => t.prunable_hash)]);
  assert.ok(blobs.length > 100);
  for (const b of blobs) assert.equal(b.buffer.byteLength, b.byteLength, "a copy of its own");
  // and the answer's bytes may be reused without changing them
  const first = toHex(res.blocks[0].block);
  raw.fill(0);
  assert.equal(toHex(res.blocks[0].block), first);
});

test("typed /get_outs.bin response decodes and re-encodes byte for byte", async () => {
  const { decodeEpee, encodeEpee } = await import("../src/codec/epee-map.js");
  const { getOutsBinResponse, getOutsBinRequest } = await import("../src/protocol/rpc-bin.js");
  const bin = new Uint8Array(readFileSync(new URL("get_outs.bin", FIX)));
  const res = decodeEpee(getOutsBinResponse, bin);
  const req = decodeEpee(getOutsBinRequest, new Uint8Array(readFileSync(new URL("get_outs.req.bin", FIX))));
  assert.equal(res.outs.length, req.outputs.length);
  assert.equal(req.get_txid, true);
  assert.ok(res.outs.every((o) => o.key.length === 32 && o.txid.length === 32));
  assert.equal(toHex(encodeEpee(getOutsBinResponse, res)), toHex(bin));
  // wrong types are refused with the field named
  const { EpeeTypeError } = await import("../src/codec/epee-map.js");
  const bad = parseEpee(bin);
  bad.set("credits", ev.text("x"));
  assert.throws(() => getOutsBinResponse.fromSection(bad), (e: unknown) => e instanceof EpeeTypeError && /root\.credits/.test(e.message));
});

test("epeeKeyWithout: documents that differ only in a left-out string entry share a key; any other difference, or a shape it does not follow, does not", () => {
  const CLIENT = new Set(["client"]);
  const doc = (client: EpeeValue | undefined, start = 0n, extra?: [string, EpeeValue]): Uint8Array => {
    const m: EpeeSection = new Map<string, EpeeValue>([
      ["block_ids", ev.bytes(new Uint8Array(64).fill(7))],
      ["start_height", ev.u64(start)],
      ["prune", ev.bool(true)],
    ]);
    if (client) m.set("client", client);
    if (extra) m.set(extra[0], extra[1]);
    return serializeEpee(m);
  };
  const a = epeeKeyWithout(doc(ev.text("sig one")), CLIENT);
  assert.ok(a !== undefined);
  assert.equal(epeeKeyWithout(doc(ev.text("another, longer signature")), CLIENT), a);
  assert.notEqual(epeeKeyWithout(doc(ev.text("sig one"), 1n), CLIENT), a, "another start_height");
  assert.notEqual(epeeKeyWithout(doc(undefined), CLIENT), a, "no client entry: another entry count");
  // arrays of scalars and strings are followed; the key keeps them
  const arr = (n: number) => ev.array("uint64", [ev.u64(BigInt(n))]);
  assert.notEqual(epeeKeyWithout(doc(ev.text("x"), 0n, ["heights", arr(1)]), CLIENT), epeeKeyWithout(doc(ev.text("x"), 0n, ["heights", arr(2)]), CLIENT));
  assert.equal(epeeKeyWithout(doc(ev.text("x"), 0n, ["heights", arr(1)]), CLIENT), epeeKeyWithout(doc(ev.text("y"), 0n, ["heights", arr(1)]), CLIENT));
  // not followed: a nested object, a left-out name of another type, a truncated document, no header
  assert.equal(epeeKeyWithout(doc(ev.text("x"), 0n, ["o", ev.object(new Map([["k", ev.u8(1)]]))]), CLIENT), undefined);
  assert.equal(epeeKeyWithout(doc(ev.u64(5n)), CLIENT), undefined);
  const whole = doc(ev.text("sig"));
  for (const cut of [whole.length - 1, 12, 9, 3]) assert.equal(epeeKeyWithout(whole.subarray(0, cut), CLIENT), undefined, `cut at ${cut}`);
  // bytes after the root section stay in the key (the parser ignores them)
  const tail = Uint8Array.from([...whole, 1, 2]);
  assert.notEqual(epeeKeyWithout(tail, CLIENT), epeeKeyWithout(whole, CLIENT));
});

test("get_outs.bin's fast request reader gives what the typed decoder gives, for wallet2's request and ours; any other shape goes to the typed decoder", async () => {
  const { decodeEpee, encodeEpee } = await import("../src/codec/epee-map.js");
  const { fastGetOutsBinRequest, getOutsBinRequest } = await import("../src/protocol/rpc-bin.js");
  const real = new Uint8Array(readFileSync(new URL("get_outs.req.bin", FIX)));
  const fast = fastGetOutsBinRequest(real);
  assert.ok(fast, "a real wallet's request takes the fast path");
  assert.deepEqual(fast, decodeEpee(getOutsBinRequest, real));
  const outs = (k: number) => Array.from({ length: k }, (_, i) => ({ amount: i % 3 === 0 ? 0n : BigInt(i) * 10n ** 12n, index: (BigInt(i) * 7919n) ** 3n % (1n << 64n) }));
  for (const [k, get_txid, client] of [[1, true, ""], [1300, false, "a1b2"], [5, true, "x".repeat(300)]] as const) {
    const body = encodeEpee(getOutsBinRequest, { client, outputs: outs(k), get_txid });
    assert.deepEqual(fastGetOutsBinRequest(body), decodeEpee(getOutsBinRequest, body), `${k} outputs`);
  }
  // not this shape: another type, an extra or repeated field, a non-ASCII client, no outputs, cut short
  const section = (): EpeeSection => parseEpee(real);
  const variants: [string, EpeeSection][] = [];
  let s = section();
  s.set("extra", ev.u8(1));
  variants.push(["an extra root field", s]);
  s = section();
  const first = (s.get("outputs") as { items: { value: EpeeSection }[] }).items[0].value;
  first.set("amount", ev.u32(0));
  variants.push(["a u32 amount", s]);
  s = section();
  s.set("client", ev.bytes(Uint8Array.of(0xc3, 0xa9)));
  variants.push(["a non-ASCII client", s]);
  s = section();
  s.delete("outputs");
  variants.push(["no outputs", s]);
  for (const [what, v] of variants) assert.equal(fastGetOutsBinRequest(serializeEpee(v)), undefined, what);
  for (const cut of [real.length - 1, real.length - 9, 20, 10]) assert.equal(fastGetOutsBinRequest(real.subarray(0, cut)), undefined, `cut at ${cut}`);
});

test("get_blocks.bin's quick reader finds the split fields of a real wallet's request; any other shape goes to the typed decoder", async () => {
  const { decodeEpee } = await import("../src/codec/epee-map.js");
  const { getBlocksBinRequest, quickGetBlocksRequest } = await import("../src/protocol/rpc-bin.js");
  const real = new Uint8Array(readFileSync(new URL("get_blocks.req.bin", FIX)));
  const typed = decodeEpee(getBlocksBinRequest, real);
  const quick = quickGetBlocksRequest(real);
  assert.ok(quick, "a real wallet's request takes the quick path");
  assert.deepEqual(Buffer.from(quick.firstId), Buffer.from(typed.block_ids[0]));
  assert.deepEqual(Buffer.from(quick.lastId), Buffer.from(typed.block_ids[typed.block_ids.length - 1]));
  assert.equal(quick.startHeight, typed.start_height);
  assert.equal(quick.prune, typed.prune);
  assert.equal(quick.noMinerTx, typed.no_miner_tx);
  const variants: [string, EpeeSection][] = [];
  const add = (what: string, change: (s: EpeeSection) => void): void => {
    const s = parseEpee(real);
    change(s);
    variants.push([what, s]);
  };
  add("a field of the later releases", (s) => s.set("requested_info", ev.u8(1)));
  add("no ids", (s) => s.delete("block_ids"));
  add("a u32 start_height", (s) => s.set("start_height", ev.u32(0)));
  add("a non-ASCII client", (s) => s.set("client", { kind: "string", value: Uint8Array.of(0xc3, 0xa9) }));
  add("ids not a whole number of hashes", (s) => s.set("block_ids", { kind: "string", value: new Uint8Array(33) }));
  add("an empty id blob", (s) => s.set("block_ids", { kind: "string", value: new Uint8Array(0) }));
  add("an unknown field", (s) => s.set("block_ids2", ev.bool(true)));
  for (const [what, s] of variants) assert.equal(quickGetBlocksRequest(serializeEpee(s)), undefined, what);
  // the same request with a signature and no_miner_tx written, or without prune (its default): read
  const withAll = parseEpee(real);
  withAll.set("client", ev.text("a1b2c3"));
  withAll.set("no_miner_tx", ev.bool(true));
  assert.equal(quickGetBlocksRequest(serializeEpee(withAll))?.noMinerTx, true);
  const noPrune = parseEpee(real);
  noPrune.delete("prune");
  assert.equal(quickGetBlocksRequest(serializeEpee(noPrune))?.prune, false);
  // cut short or with bytes after it: not

  for (const cut of [real.length - 1, 20, 9]) assert.equal(quickGetBlocksRequest(real.subarray(0, cut)), undefined, `cut at ${cut}`);
  assert.equal(quickGetBlocksRequest(Uint8Array.from([...real, 0])), undefined, "a trailing byte");
});

test("get_blocks.bin's block entries and output indices written straight to bytes equal the codecs' serialization", async () => {
  const { blockCompleteEntry, blockOutputIndices, blockOutputIndicesBytes, prunedBlockEntryBytes } = await import("../src/protocol/rpc-bin.js");
  const { presetSection } = await import("../src/codec/epee.js");
  let seed = 7;
  const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const blob = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => rnd(256));
  // lengths and counts on both sides of epee's size-mark steps (63/64, 16383/16384)
  const lengths = [0, 1, 63, 64, 200, 16383, 16384, 70000];
  const serialized = (v: EpeeValue): string => {
    assert.equal(v.kind, "object");
    return toHex(serializeEpee(new Map([["x", v]])));
  };
  for (const blockLen of lengths) {
    for (const txCount of [0, 1, 2, 63, 64]) {
      const txs = Array.from({ length: txCount }, (_, i) => ({ blob: blob(lengths[(i + blockLen) % lengths.length] % 3000), prunable_hash: blob(32) }));
      const block = blob(blockLen);
      const want = blockCompleteEntry.encode({ pruned: true, block, block_weight: 0n, txs })!;
      const got = prunedBlockEntryBytes(block, txs);
      assert.equal(serialized({ kind: "object", value: presetSection(got) }), serialized(want), `block ${blockLen} bytes, ${txCount} txs`);
    }
  }
  for (const shape of [[[]], [[1n]], [[], [5n, 6n]], [Array.from({ length: 64 }, (_, i) => BigInt(i) * 0x1_0000_0001n), [], [2n ** 64n - 1n]], Array.from({ length: 70 }, (_, i) => (i % 3 === 0 ? [] : [BigInt(i)]))]) {
    const want = blockOutputIndices.encode({ indices: shape.map((indices) => ({ indices })) })!;
    assert.equal(serialized({ kind: "object", value: presetSection(blockOutputIndicesBytes(shape)) }), serialized(want), `indices ${JSON.stringify(shape.map((l) => l.length))}`);
  }
});
