/**
 * Bad input: Monero's own fuzz corpora (Debian's monero-tests) and a bounded mutation fuzzer over the
 * recorded fixtures. Every input either parses (and then re-serializes to the same bytes) or is refused
 * with a FormatError naming the problem: never another exception, a hang or a huge allocation.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { EPEE_HTTP_LIMITS, EPEE_LEVIN_LIMITS, parseEpee, serializeEpee } from "../src/codec/epee.js";
import { parseLevinMessage, serializeLevinMessage } from "../src/codec/levin.js";
import { FormatError } from "../src/codec/reader.js";
import { parseBlock, parseBlockWithMinerTxHash, scanBlockHeader, serializeBlock } from "../src/protocol/block.js";
import { parseTxExtra, serializeTxExtra } from "../src/protocol/extra.js";
import { txToJson } from "../src/protocol/json.js";
import { parseTransaction, serializeTransaction } from "../src/protocol/tx.js";
import { fromHex, readChainFile, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";
import { MONERO_TESTDATA, needPackage } from "./helpers/packages.js";

const FUZZ_DIR = join(MONERO_TESTDATA, "fuzz");
const skip = needPackage("monero-tests", [join(FUZZ_DIR, "transaction")]);

type Outcome = "parsed" | "rejected";

/** Runs a parser on bad input: FormatError is a refusal; anything else fails the test. */
function attempt(what: string, input: Uint8Array, parse: (b: Uint8Array) => void): Outcome {
  const t0 = performance.now();
  try {
    parse(input);
    return "parsed";
  } catch (e) {
    if (e instanceof FormatError) {
      assert.ok(e.what.length > 0 && e.problem.length > 0);
      return "rejected";
    }
    throw new Error(`${what}: ${toHex(input.subarray(0, 64))}…: not a FormatError: ${(e as Error)?.stack ?? e}`, { cause: e });
  } finally {
    const ms = performance.now() - t0;
    assert.ok(ms < 2000, `${what}: took ${ms.toFixed(0)} ms`);
  }
}

// Each target: parse, and when it parses, the invariant that must hold.
const targets = {
  transaction: (b: Uint8Array) => {
    const tx = parseTransaction(b);
    assert.equal(toHex(serializeTransaction(tx)), toHex(b));
    txToJson(tx);
  },
  prunedTransaction: (b: Uint8Array) => {
    const tx = parseTransaction(b, { pruned: true });
    assert.equal(toHex(serializeTransaction(tx)), toHex(b));
  },
  block: (b: Uint8Array) => {
    // the header scan never throws, and reads a block only when the parse reads the same
    const scan = scanBlockHeader(b);
    const blk = parseBlock(b);
    assert.equal(toHex(serializeBlock(blk)), toHex(b));
    if (scan) {
      const { minerTxHash } = parseBlockWithMinerTxHash(b);
      assert.deepEqual([scan.majorVersion, scan.minorVersion, scan.timestamp, toHex(scan.prevId), scan.nonce, scan.txCount], [blk.majorVersion, blk.minorVersion, blk.timestamp, toHex(blk.prevId), blk.nonce, blk.txHashes.length]);
      assert.equal(toHex(scan.minerTxHash), toHex(minerTxHash));
      assert.equal(scan.minerReward, blk.minerTx.vout.reduce((a, o) => a + o.amount, 0n));
    }
  },
  "tx-extra": (b: Uint8Array) => {
    const p = parseTxExtra(b); // tolerant: never throws, reports the error
    assert.equal(toHex(serializeTxExtra(p.fields)), toHex(b.subarray(0, p.processed)));
    if (p.error) throw p.error;
  },
  "load-from-binary": (b: Uint8Array) => {
    const s = parseEpee(b, { limits: EPEE_HTTP_LIMITS });
    // Monero re-serializes canonically (minimal size marks, sorted names): a fixed point after one pass
    const again = serializeEpee(s);
    assert.deepEqual(parseEpee(again), new Map([...s].sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0))));
  },
  levin: (b: Uint8Array) => {
    const m = parseLevinMessage(b);
    // have_to_return_data is a C++ bool read raw: any non-zero byte is true, written back as 1
    const norm = Uint8Array.from(b);
    norm[16] = norm[16] ? 1 : 0;
    assert.equal(toHex(serializeLevinMessage(m.header, m.body)), toHex(norm));
    if (m.body.length > 0) parseEpee(m.body, { limits: EPEE_LEVIN_LIMITS });
  },
} as const;

test("Monero's fuzz corpora: transaction, block, tx-extra, load-from-binary, levin", { skip }, () => {
  const seen: string[] = [];
  for (const [dir, target] of [
    ["transaction", targets.transaction],
    ["block", targets.block],
    ["tx-extra", targets["tx-extra"]],
    ["load-from-binary", targets["load-from-binary"]],
    ["levin", targets.levin],
  ] as const) {
    const files = readdirSync(join(FUZZ_DIR, dir));
    assert.ok(files.length > 0, dir);
    for (const f of files) {
      const data = new Uint8Array(readFileSync(join(FUZZ_DIR, dir, f)));
      seen.push(`${dir}/${f}: ${attempt(`${dir}/${f}`, data, target)}`);
    }
  }
  // The corpora's seeds are well-formed samples: they parse
  for (const s of seen) assert.match(s, /parsed$/, s);
});

/** xorshift32: reproducible mutations (FUZZ_SEED picks another sequence). */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

const INTERESTING = [0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe, 0x02, 0x03, 0x04, 0x10, 0x40, 0x3f];

function mutate(src: Uint8Array, rand: (n: number) => number, pool: Uint8Array[]): Uint8Array {
  let b = Uint8Array.from(src);
  const n = 1 + rand(4);
  for (let k = 0; k < n; k++) {
    const i = b.length ? rand(b.length) : 0;
    switch (rand(8)) {
      case 0: // bit flip
        if (b.length) b[i] ^= 1 << rand(8);
        break;
      case 1: // interesting byte
        if (b.length) b[i] = INTERESTING[rand(INTERESTING.length)];
        break;
      case 2: // truncate
        b = b.subarray(0, i);
        break;
      case 3: {
        // insert random bytes
        const ins = Uint8Array.from({ length: 1 + rand(8) }, () => rand(256));
        b = Uint8Array.from([...b.subarray(0, i), ...ins, ...b.subarray(i)]);
        break;
      }
      case 4: // delete a run
        b = Uint8Array.from([...b.subarray(0, i), ...b.subarray(i + 1 + rand(16))]);
        break;
      case 5: // a huge varint (count/length) somewhere
        b = Uint8Array.from([...b.subarray(0, i), 0xff, 0xff, 0xff, 0xff, 0x0f, ...b.subarray(i + 1)]);
        break;
      case 6: {
        // splice from another sample
        const o = pool[rand(pool.length)];
        const j = o.length ? rand(o.length) : 0;
        b = Uint8Array.from([...b.subarray(0, i), ...o.subarray(j, j + 1 + rand(64))]);
        break;
      }
      default: // duplicate a run
        b = Uint8Array.from([...b.subarray(0, i + rand(32)), ...b.subarray(i)]);
    }
  }
  return b;
}

const BUDGET_MS = Number(process.env.FUZZ_MS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 20240601);

function fuzz(name: string, target: (b: Uint8Array) => void, samples: Uint8Array[]) {
  test(`bounded fuzz (${BUDGET_MS} ms): ${name}`, () => {
    const rand = rng(SEED ^ name.length * 7919);
    const deadline = performance.now() + BUDGET_MS;
    let runs = 0;
    const outcomes = { parsed: 0, rejected: 0 };
    while (performance.now() < deadline) {
      const input = mutate(samples[rand(samples.length)], rand, samples);
      outcomes[attempt(name, input, target)]++;
      runs++;
    }
    assert.ok(runs > 50, `only ${runs} runs`);
    assert.ok(outcomes.rejected > 0);
  });
}

const txs = recordedTxs().filter((t) => t.as_hex && t.as_hex.length < 20000);
const small = txs.slice(0, 40).map((t) => fromHex(t.as_hex));
fuzz("transaction", targets.transaction, small);
fuzz("pruned transaction", targets.prunedTransaction, txs.slice(0, 40).map((t) => fromHex(t.pruned_as_hex)));
fuzz("block", targets.block, recordedBlocks().filter((_, i) => i % 7 === 0).map((b) => fromHex(b.blob)));
fuzz(
  "tx extra",
  targets["tx-extra"],
  small.map((b) => parseTransaction(b).extra),
);
fuzz("epee", targets["load-from-binary"], [readChainFile("get_outs.bin"), readChainFile("get_outs.req.bin"), readChainFile("get_blocks.req.bin")]);
fuzz("levin", targets.levin, [
  serializeLevinMessage({ haveToReturnData: true, command: 1001, returnCode: 0, flags: 1, protocolVersion: 1 }, readChainFile("get_outs.req.bin")),
]);
