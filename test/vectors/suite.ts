/**
 * The whole vector suite for one backend: crypto tests.txt plus the fast and tree hash files.
 */
import { join } from "node:path";
import type { CryptoBackend } from "../../src/crypto/backend.js";
import { MONERO_TESTDATA } from "../helpers/packages.js";
import { runCryptoVectors, type VectorResult } from "./crypto-vectors.js";
import { runHashVectors } from "./hash-vectors.js";

/** The vector files the suite reads. */
export const VECTOR_FILES = {
  crypto: join(MONERO_TESTDATA, "crypto", "tests.txt"),
  fast: join(MONERO_TESTDATA, "hash", "tests-fast.txt"),
  tree: join(MONERO_TESTDATA, "hash", "tests-tree.txt"),
};

/** Results per file for one backend. */
export function runVectorSuite(backend: CryptoBackend): { name: string; result: VectorResult }[] {
  return [
    { name: "crypto/tests.txt", result: runCryptoVectors(backend, VECTOR_FILES.crypto) },
    { name: "hash/tests-fast.txt", result: runHashVectors(backend, "fast", VECTOR_FILES.fast) },
    { name: "hash/tests-tree.txt", result: runHashVectors(backend, "tree", VECTOR_FILES.tree) },
  ];
}

/** Human summary lines; the last line per backend is "N passed, M failed". */
export function formatSuite(backend: string, runs: { name: string; result: VectorResult }[]): string[] {
  const out: string[] = [];
  let passed = 0;
  let failed = 0;
  for (const { name, result } of runs) {
    out.push(`[${backend}] ${name}: ${result.passed} passed, ${result.failed} failed`);
    for (const [kind, c] of [...result.byKind].sort()) {
      if (c.failed > 0 || runs.length > 0) out.push(`[${backend}]   ${kind.padEnd(26)} ${c.passed}/${c.passed + c.failed}`);
    }
    for (const f of result.failures) out.push(`[${backend}]   ${f}`);
    passed += result.passed;
    failed += result.failed;
  }
  out.push(`${backend}: ${passed} passed, ${failed} failed`);
  return out;
}
