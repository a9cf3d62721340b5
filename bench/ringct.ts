/**
 * `npm run bench -- ringct`: CLSAG (ring 16) sign and verify, Bulletproofs+ prove and verify for 1,
 * 2 and 16 outputs, and batch verification of 10 two-output proofs, on the chosen backend (C
 * kernel by default), next to Monero's performance_tests figures from the same run.
 *
 * Monero's tests and how they map (tests/performance_tests, v0.18):
 * - test_sig_clsag<16, 2, 2> verifies two ring-16 CLSAGs and a 4-term balance: half is one verify (≈).
 * - test_bulletproof_plus<verify, N>: prove/verify of one proof with N amounts. N = 15 is Monero's
 *   largest; it pads to 16 like our 16-output proof, with one V fewer (≈).
 * - test_aggregated_bulletproof_plus<true, 2, 1, 1, 0, P>: batch verify of P two-output proofs,
 *   run for P = 4 and 64; our batch of 10 is compared with the linear interpolation (≈).
 * Monero has no CLSAG signing test (its test signs in init()), so that row has no Monero figure.
 */
import { availableParallelism, loadavg } from "node:os";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import type { Bytes, CryptoBackend } from "../src/crypto/index.js";
import { getBackend } from "../src/crypto/index.js";
import { randomScalar } from "../src/crypto/random.js";
import { commit } from "../src/crypto/ringct/amounts.js";
import { type BulletproofPlusProof, bulletproofPlusProve, bulletproofPlusVerify } from "../src/crypto/ringct/bulletproof-plus.js";
import { clsagSign, clsagVerify } from "../src/crypto/ringct/clsag.js";
import { setProverThreads } from "../src/crypto/native/index.js";
import { generators } from "../src/crypto/ringct/generators.js";
import { type PerfRunResult, type PerfTestRequest, runPerformanceTests } from "./lib/monero-perf.js";
import { formatMicros, formatRatio } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { DEFAULT_TIMING, QUICK_TIMING, timeOp } from "./lib/timing.js";

const FLAGS: readonly FlagSpec[] = [
  { name: "backend", takesValue: true, help: "ringct: native or ts", defaultValue: "native" },
  { name: "no-monero", takesValue: false, help: "ringct: do not run Monero's performance_tests" },
  { name: "performance-tests", takesValue: true, help: "ringct: path of Monero's performance_tests binary", defaultValue: "/usr/lib/monero/tests/bin/performance_tests" },
  { name: "quick", takesValue: false, help: "ringct: short timing runs (noisy; for smoke tests)" },
];

const T_CLSAG = "test_sig_clsag<16, 2, 2>";
const bpp = (verify: boolean, n: number) => `test_bulletproof_plus<${verify}, ${n}>`;
const agg = (p: number) => `test_aggregated_bulletproof_plus<true, 2, 1, 1, 0, ${p}>`;

interface Row {
  name: string;
  kind: "verify" | "prove";
  /** Monero µs from the figures (undefined: no comparable test). */
  monero?: (f: (t: string) => number | undefined) => number | undefined;
  approx?: boolean;
  tests: string[];
  op: (b: CryptoBackend) => (i: number) => unknown;
}

function proofs(b: CryptoBackend, m: number, count: number): BulletproofPlusProof[] {
  const out: BulletproofPlusProof[] = [];
  for (let k = 0; k < count; k++) {
    const amounts = Array.from({ length: m }, (_, i) => 749327532984n + BigInt(i + k));
    out.push(bulletproofPlusProve(b, amounts, amounts.map(() => randomScalar(b))));
  }
  return out;
}

function clsagMaterial(b: CryptoBackend) {
  const n = 16;
  const P: Bytes[] = [];
  const C: Bytes[] = [];
  for (let i = 0; i < n; i++) {
    P.push(b.scalarMultBase(randomScalar(b)));
    C.push(commit(b, 1000n + BigInt(i), randomScalar(b)));
  }
  const l = 7;
  const p = randomScalar(b);
  P[l] = b.scalarMultBase(p);
  const mask = randomScalar(b);
  C[l] = commit(b, 5000n, mask);
  const a = randomScalar(b);
  const cOffset = commit(b, 5000n, a);
  const msg = randomScalar(b);
  const z = b.scSub(mask, a);
  const signed = clsagSign(b, msg, P, C, p, z, cOffset, l);
  if (!clsagVerify(b, msg, signed.signature, P, C, signed.keyImage, cOffset)) throw new Error("CLSAG does not verify");
  return { P, C, p, z, l, cOffset, msg, signed };
}

const ROWS: Row[] = [
  {
    name: "CLSAG sign, ring 16",
    kind: "prove",
    tests: [],
    op: (b) => {
      const m = clsagMaterial(b);
      return () => clsagSign(b, m.msg, m.P, m.C, m.p, m.z, m.cOffset, m.l);
    },
  },
  {
    name: "CLSAG verify, ring 16",
    kind: "verify",
    tests: [T_CLSAG],
    approx: true,
    monero: (f) => {
      const v = f(T_CLSAG);
      return v === undefined ? undefined : v / 2;
    },
    op: (b) => {
      const m = clsagMaterial(b);
      return () => {
        if (!clsagVerify(b, m.msg, m.signed.signature, m.P, m.C, m.signed.keyImage, m.cOffset)) throw new Error("wrong result");
        return true;
      };
    },
  },
  ...[1, 2, 16].flatMap((n): Row[] => {
    const mt = n === 16 ? 15 : n;
    return [
      ...([1, 2] as const).map(
        (threads): Row => ({
          // the kernel's prover splits each round over 2 threads by default; Monero's uses one
          name: `BP+ prove, ${n} output${n > 1 ? "s" : ""}, ${threads} thread${threads > 1 ? "s" : ""}`,
          kind: "prove",
          tests: [bpp(false, mt)],
          approx: n === 16,
          monero: (f) => f(bpp(false, mt)),
          op: (b) => {
            const gam = Array.from({ length: n }, () => randomScalar(b));
            const amounts = Array.from({ length: n }, () => 749327532984n);
            return () => {
              setProverThreads(threads);
              return bulletproofPlusProve(b, amounts, gam);
            };
          },
        }),
      ),
      {
        name: `BP+ verify, ${n} output${n > 1 ? "s" : ""}`,
        kind: "verify",
        tests: [bpp(true, mt)],
        approx: n === 16,
        monero: (f) => f(bpp(true, mt)),
        op: (b) => {
          const ps = proofs(b, n, 1);
          return () => {
            if (!bulletproofPlusVerify(b, ps)) throw new Error("wrong result");
            return true;
          };
        },
      },
    ];
  }),
  {
    name: "BP+ batch verify, 10 × 2 outputs",
    kind: "verify",
    tests: [agg(4), agg(64)],
    approx: true,
    monero: (f) => {
      const a = f(agg(4));
      const c = f(agg(64));
      return a === undefined || c === undefined ? undefined : a + ((c - a) * (10 - 4)) / (64 - 4);
    },
    op: (b) => {
      const ps = proofs(b, 2, 10);
      return () => {
        if (!bulletproofPlusVerify(b, ps)) throw new Error("wrong result");
        return true;
      };
    },
  },
];

const GOAL = { verify: 1.2, prove: 1.5 } as const;

async function run(args: ParsedArgs): Promise<void> {
  const name = flagString(args, "backend") ?? "native";
  if (name !== "native" && name !== "ts") throw new Error(`--backend must be native or ts, got '${name}'`);
  const b = getBackend(name);
  const timing = flagSet(args, "quick") ? QUICK_TIMING : { ...DEFAULT_TIMING, budgetMs: 3000 };
  const t0 = Date.now();
  const loadStart = loadavg()[0];

  let monero: PerfRunResult | { ok: false; reason: string } = { ok: false, reason: "skipped (--no-monero)" };
  if (!flagSet(args, "no-monero")) {
    const reqs: PerfTestRequest[] = [];
    for (const r of ROWS) for (const t of r.tests) if (!reqs.some((q) => q.test === t)) reqs.push({ test: t, stat: "median" });
    monero = await runPerformanceTests(reqs, { binary: flagString(args, "performance-tests"), log: progress, timeoutMs: 600_000 });
  }
  const figure = (t: string): number | undefined => (monero.ok ? monero.figures.get(t)?.us : undefined);

  progress("ringct bench: generators");
  generators(b, "bulletproof_plus", 64 * 16);
  const table: string[][] = [];
  let met = 0;
  let measured = 0;
  for (const row of ROWS) {
    progress(`ringct bench: ${row.name}`);
    const t = timeOp(row.op(b), timing);
    const ours = t.ok ? t.timing.usPerOp : undefined;
    const theirs = row.monero?.(figure);
    const ratio = ours !== undefined && theirs !== undefined && theirs > 0 ? ours / theirs : undefined;
    const goal = GOAL[row.kind];
    if (ratio !== undefined) {
      measured++;
      if (ratio <= goal) met++;
    }
    table.push([
      row.name,
      ours === undefined ? `n/a (${t.ok ? "" : t.error})` : formatMicros(ours),
      theirs === undefined ? (row.tests.length ? "not run" : "—") : `${row.approx ? "≈" : ""}${formatMicros(theirs)}`,
      row.tests.join(" + ") || "(none)",
      ratio === undefined ? "—" : formatRatio(ratio),
      `≤ ${goal} ${ratio === undefined ? "—" : ratio <= goal ? "✓" : "✗"}`,
    ]);
  }
  const loadEnd = loadavg()[0];
  const out: string[] = [];
  out.push(`## ringct — CLSAG and Bulletproofs+ (${b.name} backend) vs Monero's performance_tests`);
  out.push("");
  out.push(machineLine());
  out.push(`Load average ${loadStart.toFixed(2)} → ${loadEnd.toFixed(2)} on ${availableParallelism()} CPUs.`);
  out.push("");
  out.push(
    markdownTable(
      [
        { header: "operation" },
        { header: `${b.name} µs/op`, align: "right" },
        { header: "Monero µs/op", align: "right" },
        { header: "Monero test" },
        { header: "ratio", align: "right" },
        { header: "goal" },
      ],
      table,
    ),
  );
  out.push("");
  out.push(`- Goal rows met: ${met}/${measured}.`);
  out.push(
    "- ≈: CLSAG verify is half of test_sig_clsag<16, 2, 2> (two verifies + a 4-point balance sum); the 16-output rows compare with Monero's 15-output test (same padded size 16); the batch of 10 interpolates Monero's batches of 4 and 64 linearly.",
  );
  out.push(
    "- Verification runs the protocol in TypeScript over the backend's calls (scalars, hash_to_ec, multi-scalar multiplications); the Bulletproof generators are decoded once per process (preparePoints), every proof point is decompressed per call. With the native backend, BP+ proving and CLSAG signing run whole in the C kernel (native/crypto/bpplus.c, clsag.c); the prover's '2 threads' rows split each round's L/R multiexps and G/H folds over two threads (the default on a machine with 2+ cores), its '1 thread' rows do all on one core as Monero's does. Monero's figures are per-call medians (`--verbose --stats`). Monero has no CLSAG signing test (test_sig_clsag signs in init), hence no figure for that row.",
  );
  if (!monero.ok) out.push(`- Monero: ${monero.reason}`);
  else for (const t of monero.missing) out.push(`- Monero test not reported: ${t}`);
  out.push("");
  out.push(`Total bench time ${((Date.now() - t0) / 1000).toFixed(1)} s.`);
  process.stdout.write(`${out.join("\n")}\n`);
}

export const suite: BenchSuite = {
  name: "ringct",
  summary: "CLSAG and Bulletproofs+ prove/verify vs Monero's performance_tests",
  flags: FLAGS,
  run,
};
