/**
 * Unit tests of the bench helpers (bench/lib): the performance_tests output parser and figure
 * derivation, filter building, statistics and formatting, tables. No timing assertions.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bigToBytesLE, bytesToBigLE, hashToScalarRef, L, moneroSignatureRef, randomKeyPair, randomScalar } from "../bench/lib/inputs.js";
import {
  combineFigures,
  escapeTestName,
  figureOf,
  filterFor,
  fastestFigure,
  type MoneroFigure,
  parsePerformanceTestsOutput,
  planInvocations,
} from "../bench/lib/monero-perf.js";
import { formatCount, formatMicros, formatRatio, mean, median, quantile, relativeSpread } from "../bench/lib/stats.js";
import { cpuModelFromCpuinfo } from "../bench/lib/system.js";
import { launcherCommand, launcherNodeFlags } from "../bench/lib/launcher.js";
import { markdownTable } from "../bench/lib/table.js";
import { planBatches, timeOp } from "../bench/lib/timing.js";
import { readExchanges } from "../bench/lib/wire.js";

// Recorded from /usr/lib/monero/tests/bin/performance_tests (monero-tests 0.18.0.0) on the dev box.
const VERBOSE_STATS = `Warm up: 638 ms
test_generate_key_derivation - OK:
  loop count:    1000
  elapsed:       142 ms
  min:       97273 ns
  max:       4146016 ns
  median:    97534 ns
  std dev:   381629 ns
  time per call: 142 µs/call
 (min 97 µs, 90th 124 µs, median 97 µs, std dev 381 µs)
Warm up: 324 ms
test_ge_frombytes_vartime - OK:
  loop count:    10000
  elapsed:       83 ms
  min:       7046 ns
  max:       4048882 ns
  median:    7066 ns
  std dev:   40484.2 ns
  time per call: 8 µs/call
 (min 7 µs, 90th 9 µs, median 7 µs, std dev 40 µs)
Warm up: 288 ms
test_crypto_ops<op_sc_add> - OK:
  loop count:    10000000
  elapsed:       550 ms
  min:       40 ns
  max:       74158 ns
  median:    40 ns
  std dev:   1.23457e+06 ns
  time per call: 0 µs/call
 (min 0 µs, 90th 0 µs, median 0 µs, std dev 0 µs)
Tests finished. Elapsed time: 4 sec
`;

const VERBOSE_NO_STATS = `Warm up: 290 ms
test_derive_view_tag - OK:
  loop count:    250000
  elapsed:       92 ms
  time per call: 0 µs/call
Warm up: 301 ms
test_sc_check - OK:
  loop count:    10000000
  elapsed:       0 ms
  time per call: 0 µs/call
`;

const SHORT = `test_generate_key_derivation (1000 calls) - OK: 97 µs/call (min 96 µs, 90th 97 µs, median 97 µs, std dev 3 µs)
test_sc_reduce32 (10000000 calls) - OK: 0 µs/call
test_multiexp<multiexp_pippenger, 4096, 9> (10 calls) - OK: 187 ms/call
test_signature<true> - FAILED
Tests finished. Elapsed time: 4 sec
`;

test("parses a verbose --stats block: calls, elapsed, per-call stats (incl. exponent notation)", () => {
  const m = parsePerformanceTestsOutput(VERBOSE_STATS);
  assert.deepEqual([...m.keys()], ["test_generate_key_derivation", "test_ge_frombytes_vartime", "test_crypto_ops<op_sc_add>"]);
  const gkd = m.get("test_generate_key_derivation");
  assert.deepEqual(gkd, {
    name: "test_generate_key_derivation",
    ok: true,
    calls: 1000,
    elapsedMs: 142,
    perCall: { value: 142, unit: "µs" },
    statsNs: { min: 97273, max: 4146016, median: 97534, stdDev: 381629 },
  });
  assert.equal(m.get("test_ge_frombytes_vartime")?.statsNs?.stdDev, 40484.2);
  assert.equal(m.get("test_crypto_ops<op_sc_add>")?.statsNs?.stdDev, 1.23457e6);
});

test("parses the default one-line format, ms units, template names with spaces, FAILED", () => {
  const m = parsePerformanceTestsOutput(SHORT);
  assert.deepEqual(m.get("test_generate_key_derivation"), {
    name: "test_generate_key_derivation",
    ok: true,
    calls: 1000,
    perCall: { value: 97, unit: "µs" },
  });
  assert.deepEqual(m.get("test_multiexp<multiexp_pippenger, 4096, 9>")?.perCall, { value: 187, unit: "ms" });
  assert.equal(m.get("test_signature<true>")?.ok, false);
  assert.equal(m.size, 4);
});

test("figures: median in ns when asked and present, else elapsed/calls, else the printed integer", () => {
  const v = parsePerformanceTestsOutput(VERBOSE_STATS);
  const gkd = v.get("test_generate_key_derivation");
  assert.ok(gkd);
  const med = figureOf(gkd, "median");
  assert.equal(med?.stat, "median");
  assert.equal(med?.us, 97.534);
  assert.equal(med?.belowResolution, false);
  const avg = figureOf(gkd, "mean");
  assert.equal(avg?.stat, "mean");
  assert.equal(avg?.us, 142);
  assert.equal(avg?.resolutionUs, 1);

  const ns = parsePerformanceTestsOutput(VERBOSE_NO_STATS);
  const vt = ns.get("test_derive_view_tag");
  assert.ok(vt);
  const f = figureOf(vt, "median"); // no stats printed: falls back to elapsed/calls
  assert.equal(f?.stat, "mean");
  assert.equal(f?.us, 0.368);
  assert.equal(f?.resolutionUs, 0.004);

  const zero = ns.get("test_sc_check");
  assert.ok(zero);
  const z = figureOf(zero, "mean");
  assert.equal(z?.belowResolution, true);
  assert.equal(z?.us, 0.0001); // an upper bound: 1 ms over 1e7 calls

  const s = parsePerformanceTestsOutput(SHORT);
  const red = s.get("test_sc_reduce32");
  assert.ok(red);
  const p = figureOf(red, "mean");
  assert.equal(p?.stat, "printed");
  assert.equal(p?.belowResolution, true);
  const big = s.get("test_multiexp<multiexp_pippenger, 4096, 9>");
  assert.ok(big);
  assert.equal(figureOf(big, "median")?.us, 187000);
  const failed = s.get("test_signature<true>");
  assert.ok(failed);
  assert.equal(figureOf(failed, "median"), undefined);
});

/** Port of Monero's tools::glob_to_regex (src/common/util.cpp), which --filter goes through. */
function globToRegex(val: string): string {
  let out = "";
  let esc = false;
  for (const c of val) {
    if (c === "*") {
      out += esc ? "*" : ".*";
      esc = false;
    } else if (c === "?") {
      out += esc ? "?" : ".";
      esc = false;
    } else if (c === "\\") {
      out += "\\";
      esc = !esc;
    } else {
      out += c;
      esc = false;
    }
  }
  return out;
}

test("filters match exactly the named tests after the binary's glob-to-regex step", () => {
  const names = ["test_crypto_ops<op_sc_add>", "test_multiexp<multiexp_pippenger, 256, 6>", "test_cn_fast_hash<32>"];
  const re = new RegExp(`^(?:${globToRegex(filterFor(names))})$`);
  for (const n of names) assert.ok(re.test(n), n);
  for (const n of ["test_crypto_ops<op_sc_addKeys>", "test_multiexp<multiexp_pippenger, 2560, 6>", "test_cn_fast_hash<16384>", "test_crypto_ops<op_sc_sub>"])
    assert.ok(!re.test(n), n);
  assert.equal(escapeTestName("a.b*c?(d)"), "a\\.b\\*c\\?\\(d\\)");
  const star = new RegExp(`^(?:${globToRegex(filterFor(["x*y"]))})$`);
  assert.ok(star.test("x*y") && !star.test("xzzy"));
});

test("requests are grouped into one invocation per (statistic, loop multiplier, repeats)", () => {
  const inv = planInvocations([
    { test: "a", stat: "median" },
    { test: "b", stat: "mean", repeats: 3 },
    { test: "c", stat: "median", loopMultiplier: 1 },
    { test: "d", stat: "mean", loopMultiplier: 25, repeats: 3 },
    { test: "e", stat: "mean", repeats: 3 },
    { test: "a", stat: "median" },
  ]);
  assert.equal(inv.length, 3);
  assert.deepEqual(inv[0], {
    tests: ["a", "c"],
    args: ["--filter", "(a|c)", "--verbose", "--stats", "--loop-multiplier", "1"],
    repeats: 1,
  });
  assert.deepEqual(inv[1], { tests: ["b", "e"], args: ["--filter", "(b|e)", "--verbose", "--loop-multiplier", "1"], repeats: 3 });
  assert.deepEqual(inv[2].args, ["--filter", "(d)", "--verbose", "--loop-multiplier", "25"]);
});

test("repeated runs: the figure is the fastest run's, with every run kept", () => {
  const run = (us: number): MoneroFigure => ({ test: "t", us, stat: "mean", calls: 1e7, resolutionUs: 1e-4, belowResolution: false });
  const m = fastestFigure([run(0.069), run(0.0325), run(0.033)]);
  assert.equal(m?.us, 0.0325);
  assert.deepEqual(m?.runsUs, [0.069, 0.0325, 0.033]);
  assert.equal(fastestFigure([run(5)])?.runsUs, undefined);
  assert.equal(fastestFigure([]), undefined);
});

test("combined figures add coefficients and resolutions; a missing term gives undefined", () => {
  const fig = (test: string, us: number, resolutionUs: number, below = false): [string, MoneroFigure] => [
    test,
    { test, us, stat: "median", calls: 1000, resolutionUs, belowResolution: below },
  ];
  const figures = new Map([fig("gki", 104.6, 0.001), fig("smk", 96.6, 0.001), fig("fb", 7.0, 0.001), fig("tb", 6.7, 0.002)]);
  const c = combineFigures(
    [
      { test: "gki", coef: 1 },
      { test: "smk", coef: -1 },
      { test: "fb", coef: 1 },
      { test: "tb", coef: 1 },
    ],
    figures,
  );
  assert.ok(c);
  assert.ok(Math.abs(c.us - 21.7) < 1e-9);
  assert.ok(Math.abs(c.resolutionUs - 0.005) < 1e-12);
  assert.equal(c.belowResolution, false);
  assert.equal(combineFigures([{ test: "nope", coef: 1 }], figures), undefined);
});

test("median, quantiles, mean, relative spread", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(quantile([10, 20, 30, 40, 50], 0.25), 20);
  assert.equal(quantile([1, 2], 0.5), 1.5);
  assert.equal(mean([1, 2, 3, 6]), 3);
  assert.equal(relativeSpread([5, 5, 5]), 0);
  assert.equal(relativeSpread([8, 9, 10, 11, 12]), 0.2);
  assert.throws(() => median([]), RangeError);
  assert.throws(() => quantile([1], 2), RangeError);
});

test("number formatting: about three significant digits, no exponent for realistic values", () => {
  assert.equal(formatMicros(8213.4), "8213");
  assert.equal(formatMicros(97.534), "97.5");
  assert.equal(formatMicros(7.066), "7.07");
  assert.equal(formatMicros(0.36042), "0.360");
  assert.equal(formatMicros(0.040712), "0.0407");
  assert.equal(formatMicros(0.0071), "0.0071");
  assert.equal(formatRatio(0.934), "0.93");
  assert.equal(formatRatio(1.2), "1.20");
  assert.equal(formatRatio(14.27), "14.3");
  assert.equal(formatRatio(312.4), "312");
  assert.equal(formatCount(1000), "1000");
  assert.equal(formatCount(10000000), "1e7");
  assert.equal(formatCount(250000), "2.5e5");
});

test("markdown table: padded columns, right alignment rule, pipes escaped", () => {
  const t = markdownTable(
    [{ header: "name" }, { header: "µs", align: "right" }],
    [
      ["a|b", "1.5"],
      ["long name", "10"],
    ],
  );
  assert.equal(
    t,
    ["| name      |  µs |", "|:----------|----:|", "| a\\|b      | 1.5 |", "| long name |  10 |"].join("\n"),
  );
});

test("batch planning fills the batch target and respects the budget and minimum batches", () => {
  const o = { warmupMs: 10, batchMs: 20, batches: 9, minBatches: 5, budgetMs: 1000 };
  assert.deepEqual(planBatches(1000, o), { n: 20000, k: 9 }); // 1 µs/op
  assert.deepEqual(planBatches(100e6, o), { n: 1, k: 9 }); // 100 ms/op: 10 fit, capped at 9
  assert.deepEqual(planBatches(500e6, o), { n: 1, k: 5 }); // 500 ms/op: 2 fit, but at least 5
});

test("timeOp reports an op that throws instead of crashing", () => {
  const r = timeOp(
    () => {
      throw new Error("ts backend: scMul not implemented yet");
    },
    { warmupMs: 1, batchMs: 1, batches: 1, minBatches: 1, budgetMs: 1 },
  );
  assert.deepEqual(r, { ok: false, error: "ts backend: scMul not implemented yet" });
  const ok = timeOp((i) => i + 1, { warmupMs: 1, batchMs: 1, batches: 3, minBatches: 3, budgetMs: 10 });
  assert.ok(ok.ok && ok.timing.batchUs.length === 3);
});

test("cpu model comes from the model name line", () => {
  assert.equal(cpuModelFromCpuinfo("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n"), "AMD EPYC 7B13");
  assert.equal(cpuModelFromCpuinfo("processor\t: 0\n"), undefined);
});

test("the reference signature satisfies Monero's check: H(m ‖ P ‖ r·G + c·P) = c", () => {
  const { sec, pub } = randomKeyPair();
  const msg = randomScalar();
  const sig = moneroSignatureRef(msg, pub, sec, randomScalar());
  const c = bytesToBigLE(sig.subarray(0, 32));
  const r = bytesToBigLE(sig.subarray(32));
  assert.ok(c < L && r < L);
  const P = ed25519.Point.fromBytes(pub);
  const R = ed25519.Point.BASE.multiplyUnsafe(r).add(P.multiplyUnsafe(c));
  const buf = new Uint8Array(96);
  buf.set(msg, 0);
  buf.set(pub, 32);
  buf.set(R.toBytes(), 64);
  assert.deepEqual(hashToScalarRef(buf), bigToBytesLE(c));
});

test("the dispatcher rejects an unknown suite and lists the known ones", () => {
  const runJs = fileURLToPath(new URL("../bench/run.js", import.meta.url));
  const r = spawnSync(process.execPath, [runJs, "nope"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown suite 'nope'; known suites: .*crypto/);
});

test("readExchanges: tcpdump's segments as request/answer exchanges per server port (two-segment requests, ACKs left out)", () => {
  const text = [
    "1796611716.576372 IP 127.0.0.1.59704 > 127.0.0.1.19600: tcp 157",
    "1796611716.576407 IP 127.0.0.1.59704 > 127.0.0.1.19600: tcp 250",
    "1796611716.576420 IP 127.0.0.1.19600 > 127.0.0.1.59704: tcp 0",
    "1796611716.576865 IP 127.0.0.1.19600 > 127.0.0.1.59704: tcp 262",
    "1796611716.577102 IP 127.0.0.1.59704 > 127.0.0.1.19600: tcp 929",
    "1796611716.577300 IP 127.0.0.1.41000 > 127.0.0.1.19610: tcp 100",
    "1796611716.577417 IP 127.0.0.1.19600 > 127.0.0.1.59704: tcp 297",
    "1796611716.577418 IP 127.0.0.1.19600 > 127.0.0.1.59704: tcp 3",
    "1796611716.577500 IP 127.0.0.1.19610 > 127.0.0.1.41000: tcp 200",
    "1796611716.577600 IP 127.0.0.1.5555 > 127.0.0.1.6666: tcp 10",
    "not a segment line",
  ].join("\n");
  const ex = readExchanges(text, [19600, 19610]);
  const a = ex.get(19600) ?? [];
  assert.equal(a.length, 2);
  assert.deepEqual([a[0].requestBytes, a[0].requestSegments, a[0].answerBytes], [407, 2, 262]);
  assert.ok(Math.abs(a[0].answerAt - a[0].requestAt - 0.458) < 1e-3, "from the request's last segment");
  assert.deepEqual([a[1].requestBytes, a[1].requestSegments, a[1].answerBytes], [929, 1, 300]);
  const b = ex.get(19610) ?? [];
  assert.deepEqual(b.map((x) => [x.requestBytes, x.answerBytes]), [[100, 200]]);
});

test("benches start our launchers with their shebang's node flags, as a user's command line does", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const root = fileURLToPath(new URL("../../", import.meta.url));
  // bin/tsmonerod's young generation setting (its shebang) is part of what a user runs
  const daemon = join(root, "bin", "tsmonerod");
  assert.deepEqual(launcherNodeFlags(daemon), ["--max-semi-space-size=8"]);
  assert.deepEqual(launcherCommand(daemon, ["--regtest"], ["--cpu-prof"]), [process.execPath, ["--max-semi-space-size=8", "--cpu-prof", daemon, "--regtest"]]);
  assert.deepEqual(launcherNodeFlags(join(root, "bin", "tsmonero-wallet-rpc")), []);
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-launcher-"));
  try {
    const file = (first: string): string => {
      const f = join(dir, `l${Math.random().toString(36).slice(2)}`);
      writeFileSync(f, `${first}\nconsole.log(1);\n`);
      return f;
    };
    assert.deepEqual(launcherNodeFlags(file("#!/usr/bin/env -S node --a=1  --b")), ["--a=1", "--b"]);
    assert.deepEqual(launcherNodeFlags(file("#!/usr/bin/env node")), []);
    assert.deepEqual(launcherNodeFlags(file("#!/bin/sh")), []);
    assert.deepEqual(launcherNodeFlags(file("// no shebang")), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
