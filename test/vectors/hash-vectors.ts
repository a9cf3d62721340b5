/**
 * Replays Monero's hash vectors (tests/hash/tests-fast.txt for cn_fast_hash and tests-tree.txt for
 * tree_hash, shipped by Debian's monero-tests): each line is the expected hash then the input in hex
 * ("x" for empty), as tests/hash/main.cpp reads them.
 */
import { readFileSync } from "node:fs";
import type { CryptoBackend } from "../../src/crypto/backend.js";
import { treeHash } from "../../src/crypto/hash.js";
import type { VectorResult } from "./crypto-vectors.js";

export type HashKind = "fast" | "tree";

/** Runs one hash vector file of the given kind against `backend`. */
export function runHashVectors(backend: CryptoBackend, kind: HashKind, file: string): VectorResult {
  const res: VectorResult = { passed: 0, failed: 0, byKind: new Map(), failures: [] };
  const counts = { passed: 0, failed: 0 };
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, idx) => {
      const [expected, input] = raw.trim().split(/\s+/);
      if (!expected) return;
      let ok = false;
      try {
        const data = input === "x" || input === undefined ? new Uint8Array(0) : Uint8Array.from(Buffer.from(input, "hex"));
        const got = kind === "fast" ? backend.keccak256(data) : treeHash(backend, data);
        ok = Buffer.from(got).toString("hex") === expected;
      } catch (e) {
        if (res.failures.length < 20) res.failures.push(`${kind} line ${idx + 1}: threw ${(e as Error).message}`);
      }
      if (ok) counts.passed++;
      else {
        counts.failed++;
        if (res.failures.length < 20) res.failures.push(`${kind} line ${idx + 1}: mismatch`);
      }
    });
  res.passed = counts.passed;
  res.failed = counts.failed;
  res.byKind.set(`hash-${kind}`, counts);
  return res;
}
