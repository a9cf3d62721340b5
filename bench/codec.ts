/**
 * `npm run bench -- codec`: throughput of the binary formats on the recorded regtest chain
 * (test/fixtures/chain): parsing, parsing + hashing (ids from the blob's bytes), serializing and the
 * as_json text, for blocks and transactions, plus epee parsing of a recorded /get_blocks.bin body.
 * Figures are MB/s of blob bytes, the median of repeated passes over the whole corpus.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { decodeEpee } from "../src/codec/epee-map.js";
import { parseEpee, serializeEpee } from "../src/codec/epee.js";
import { defaultBackend } from "../src/crypto/index.js";
import { blockHashesFromBlob, parseBlock, serializeBlock } from "../src/protocol/block.js";
import { txToJson } from "../src/protocol/json.js";
import { getBlocksBinResponse } from "../src/protocol/rpc-bin.js";
import { parseTransaction, serializeTransaction } from "../src/protocol/tx.js";
import { txHashesFromBlob } from "../src/protocol/tx-hash.js";
import { median } from "./lib/stats.js";
import { type BenchSuite, flagSet, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";

const FLAGS: readonly FlagSpec[] = [{ name: "quick", takesValue: false, help: "Short runs (noisier figures)" }];
const FIX = new URL("../../test/fixtures/chain/", import.meta.url);

function load<T>(name: string): T {
  return JSON.parse(gunzipSync(readFileSync(new URL(name, FIX))).toString("utf8")) as T;
}

/** Median time of one pass over `items` (ms), after a warm-up; passes fill `budgetMs`. */
function passMs<T>(items: readonly T[], op: (x: T) => unknown, budgetMs: number): number {
  let sink: unknown;
  const t0 = performance.now();
  while (performance.now() - t0 < budgetMs / 5) for (const x of items) sink = op(x);
  const times: number[] = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || times.length < 5) {
    const s = performance.now();
    for (const x of items) sink = op(x);
    times.push(performance.now() - s);
  }
  if (sink === Symbol.for("never")) process.stdout.write("");
  return median(times);
}

export interface CodecBenchRow {
  operation: string;
  items: number;
  mb: number;
  ms: number;
}

/** Runs the measurements and returns the rows (exported for other harnesses). */
export function measureCodec(budgetMs = 1000): CodecBenchRow[] {
  const blocks = load<{ blob: string }[]>("blocks.json.gz").map((b) => Uint8Array.from(Buffer.from(b.blob, "hex")));
  const txs = load<{ as_hex: string }[]>("txs.json.gz")
    .filter((t) => t.as_hex)
    .map((t) => Uint8Array.from(Buffer.from(t.as_hex, "hex")));
  const getBlocks = new Uint8Array(readFileSync(new URL("get_blocks.bin", FIX)));
  const parsedTxs = txs.map((b) => parseTransaction(b));
  const parsedBlocks = blocks.map((b) => parseBlock(b));
  const be = defaultBackend();
  const bytes = (xs: Uint8Array[]) => xs.reduce((a, b) => a + b.length, 0) / 1e6;
  const rows: CodecBenchRow[] = [];
  const add = (operation: string, items: number, mb: number, ms: number) => rows.push({ operation, items, mb, ms });

  progress("codec: transactions");
  add("tx parse", txs.length, bytes(txs), passMs(txs, (b) => parseTransaction(b), budgetMs));
  add("tx parse + id (prefix, base, prunable hashes)", txs.length, bytes(txs), passMs(txs, (b) => txHashesFromBlob(b, be), budgetMs));
  add("tx serialize", txs.length, bytes(txs), passMs(parsedTxs, (t) => serializeTransaction(t), budgetMs));
  add("tx as_json text", txs.length, bytes(txs), passMs(parsedTxs, (t) => txToJson(t), budgetMs));
  progress("codec: blocks");
  add("block parse", blocks.length, bytes(blocks), passMs(blocks, (b) => parseBlock(b), budgetMs));
  add("block parse + id (miner tx id, tree hash)", blocks.length, bytes(blocks), passMs(blocks, (b) => blockHashesFromBlob(b, be), budgetMs));
  add("block serialize", blocks.length, bytes(blocks), passMs(parsedBlocks, (b) => serializeBlock(b), budgetMs));
  progress("codec: epee");
  add("epee parse /get_blocks.bin", 1, getBlocks.length / 1e6, passMs([getBlocks], (b) => parseEpee(b), budgetMs));
  add("epee parse + typed /get_blocks.bin", 1, getBlocks.length / 1e6, passMs([getBlocks], (b) => decodeEpee(getBlocksBinResponse, b), budgetMs));
  const sec = parseEpee(getBlocks);
  add("epee serialize /get_blocks.bin", 1, getBlocks.length / 1e6, passMs([sec], (s) => serializeEpee(s), budgetMs));
  return rows;
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const rows = measureCodec(quick ? 200 : 1000);
  const be = defaultBackend();
  process.stdout.write(`## codec — binary formats on the recorded regtest chain (${be.name} keccak)\n\n${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable(
      [
        { header: "operation" },
        { header: "items", align: "right" },
        { header: "MB", align: "right" },
        { header: "ms/pass", align: "right" },
        { header: "MB/s", align: "right" },
        { header: "items/s", align: "right" },
      ],
      rows.map((r) => [
        r.operation,
        String(r.items),
        r.mb.toFixed(3),
        r.ms.toFixed(2),
        (r.mb / (r.ms / 1000)).toFixed(1),
        Math.round(r.items / (r.ms / 1000)).toLocaleString("en-US"),
      ]),
    )}\n`,
  );
}

export const suite: BenchSuite = {
  name: "codec",
  summary: "parse/hash/serialize MB/s for blocks, transactions and epee on the recorded chain",
  flags: FLAGS,
  run,
};
