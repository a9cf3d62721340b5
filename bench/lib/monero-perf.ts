/**
 * Runs Monero's own `performance_tests` binary (Debian package monero-tests) and parses its output,
 * so a suite can print Monero's figure for the same primitive measured on the same machine in the
 * same run.
 *
 * What the binary prints (tests/performance_tests/performance_tests.h, v0.18):
 * - default:  `test_x (1000 calls) - OK: 97 µs/call` — time per call is elapsed_ms·1000/calls in
 *   integer µs (integer ms from 100 ms/call up), so anything under 1 µs prints 0;
 * - `--stats` appends ` (min 97 µs, 90th 124 µs, median 97 µs, std dev 381 µs)`, still integer;
 * - `--verbose` prints a block instead, with `loop count:` and `elapsed: N ms` (integer ms over the
 *   whole loop) and, with `--stats`, per-call `min/max/median/std dev` in ns from rdtsc.
 *
 * So a usable figure with ns resolution comes either from the per-call median (`--verbose --stats`;
 * each call then carries two rdtsc reads, ~10–20 ns, which matters only for sub-µs operations) or
 * from elapsed/calls without `--stats` (resolution 1 ms / calls; `--loop-multiplier` raises calls).
 * `runPerformanceTests` takes per-test requests saying which, groups them into as few invocations
 * as possible (one per distinct stat/multiplier/repeat triple) and derives each figure. Elapsed
 * time is a plain sum, so any other process on the (pinned) core inflates it: mean-read tests can
 * ask for repeated invocations, and the figure is then the fastest of them (load only ever adds).
 *
 * Notes: `--filter` is a glob turned into a regex that must match the whole name (`*` and `?` are
 * glob wildcards, everything else is regex syntax), so exact names are regex-escaped and joined
 * with `|`. Every test starts with a ~0.3–0.6 s busy-loop warm-up and the binary calibrates rdtsc
 * for 1 s at start-up; it pins itself to CPU 1 and writes `performance_tests.log` to its working
 * directory, so it is run in a temporary directory.
 */
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const DEFAULT_PERFORMANCE_TESTS = "/usr/lib/monero/tests/bin/performance_tests";
export const NOT_FOUND_MESSAGE = "performance_tests not found — install Debian package monero-tests";

/** Everything the binary printed about one test. Absent fields were not printed. */
export interface PerfTestLine {
  name: string;
  ok: boolean;
  /** Number of calls timed (loop_count × loop multiplier). */
  calls?: number;
  /** Wall time of the whole loop, integer ms (verbose only). */
  elapsedMs?: number;
  /** The printed (integer) time per call. */
  perCall?: { value: number; unit: "µs" | "ms" };
  /** Per-call statistics in ns (verbose with --stats). */
  statsNs?: { min?: number; max?: number; median?: number; stdDev?: number };
}

const UNIT = "(µs|us|ms)";
const NUM = "([0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)";
const RE_SHORT = new RegExp(`^(.+?) \\((\\d+) calls\\) - OK: (\\d+) ${UNIT}/call`);
const RE_BLOCK = /^(\S.*) - OK:\s*$/;
const RE_FAILED = /^(\S.*) - FAILED\s*$/;
const RE_LOOPS = /^\s+loop count:\s+(\d+)/;
const RE_ELAPSED = /^\s+elapsed:\s+(\d+) ms/;
const RE_STAT = new RegExp(`^\\s+(min|max|median|std dev):\\s+${NUM} ns`);
const RE_PER_CALL = new RegExp(`^\\s+time per call:\\s+(\\d+) ${UNIT}/call`);

function unitOf(u: string): "µs" | "ms" {
  return u === "ms" ? "ms" : "µs";
}

/** Parses performance_tests' stdout (any mix of the default and --verbose formats, with or without --stats). */
export function parsePerformanceTestsOutput(text: string): Map<string, PerfTestLine> {
  const out = new Map<string, PerfTestLine>();
  let cur: PerfTestLine | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, "");
    let m = RE_SHORT.exec(line);
    if (m) {
      cur = undefined;
      out.set(m[1], { name: m[1], ok: true, calls: Number(m[2]), perCall: { value: Number(m[3]), unit: unitOf(m[4]) } });
      continue;
    }
    m = RE_FAILED.exec(line);
    if (m) {
      cur = undefined;
      out.set(m[1], { name: m[1], ok: false });
      continue;
    }
    m = RE_BLOCK.exec(line);
    if (m) {
      cur = { name: m[1], ok: true };
      out.set(cur.name, cur);
      continue;
    }
    if (!cur) continue;
    const loops = RE_LOOPS.exec(line);
    if (loops) {
      cur.calls = Number(loops[1]);
      continue;
    }
    const elapsed = RE_ELAPSED.exec(line);
    if (elapsed) {
      cur.elapsedMs = Number(elapsed[1]);
      continue;
    }
    const perCall = RE_PER_CALL.exec(line);
    if (perCall) {
      cur.perCall = { value: Number(perCall[1]), unit: unitOf(perCall[2]) };
      continue;
    }
    const stat = RE_STAT.exec(line);
    if (stat) {
      cur.statsNs ??= {};
      const v = Number(stat[2]);
      if (stat[1] === "min") cur.statsNs.min = v;
      else if (stat[1] === "max") cur.statsNs.max = v;
      else if (stat[1] === "median") cur.statsNs.median = v;
      else cur.statsNs.stdDev = v;
    }
  }
  return out;
}

/** Which statistic to take: the per-call median (needs --stats) or the mean from elapsed/calls (run without --stats). */
export type MoneroStat = "median" | "mean";

/** One test's figure in µs per call, with how it was obtained and its resolution. */
export interface MoneroFigure {
  test: string;
  /** µs per call; when `belowResolution`, an upper bound (the resolution). */
  us: number;
  /** "median" per-call rdtsc median; "mean" elapsed/calls; "printed" the integer µs/ms figure. */
  stat: MoneroStat | "printed";
  calls: number;
  elapsedMs?: number;
  /** Smallest difference the figure can show, µs. */
  resolutionUs: number;
  /** The figure printed as 0: the true value is somewhere below `resolutionUs`. */
  belowResolution: boolean;
  /** With repeats: the µs figure of every run (the figure above is the fastest). */
  runsUs?: number[];
}

/**
 * Derives a figure from a parsed test, preferring `prefer` and falling back to the other source,
 * then to the printed integer. Undefined when the test failed or printed nothing usable.
 */
export function figureOf(line: PerfTestLine, prefer: MoneroStat): MoneroFigure | undefined {
  if (!line.ok) return undefined;
  const calls = line.calls ?? 0;
  const fromMedian = (): MoneroFigure | undefined => {
    const med = line.statsNs?.median;
    if (med === undefined) return undefined;
    return {
      test: line.name,
      us: med === 0 ? 0.001 : med / 1000,
      stat: "median",
      calls,
      elapsedMs: line.elapsedMs,
      resolutionUs: 0.001,
      belowResolution: med === 0,
    };
  };
  const fromMean = (): MoneroFigure | undefined => {
    if (line.elapsedMs === undefined || calls <= 0) return undefined;
    const res = 1000 / calls;
    return {
      test: line.name,
      us: line.elapsedMs === 0 ? res : (line.elapsedMs * 1000) / calls,
      stat: "mean",
      calls,
      elapsedMs: line.elapsedMs,
      resolutionUs: res,
      belowResolution: line.elapsedMs === 0,
    };
  };
  const fromPrinted = (): MoneroFigure | undefined => {
    if (!line.perCall) return undefined;
    const scale = line.perCall.unit === "ms" ? 1000 : 1;
    return {
      test: line.name,
      us: line.perCall.value === 0 ? scale : line.perCall.value * scale,
      stat: "printed",
      calls,
      resolutionUs: scale,
      belowResolution: line.perCall.value === 0,
    };
  };
  return prefer === "median" ? (fromMedian() ?? fromMean() ?? fromPrinted()) : (fromMean() ?? fromMedian() ?? fromPrinted());
}

/** One test to run and how to read it. */
export interface PerfTestRequest {
  /** Exact test name as printed, e.g. "test_crypto_ops<op_sc_add>" or "test_multiexp<multiexp_pippenger, 256, 6>". */
  test: string;
  stat: MoneroStat;
  /** --loop-multiplier for this test (default 1). Note the binary allocates a 16-byte timer per call. */
  loopMultiplier?: number;
  /** Run the invocation holding this test this many times and take the fastest run (default 1). */
  repeats?: number;
}

/** Escapes an exact test name for --filter (regex-escaped; the binary's glob step keeps escapes). */
export function escapeTestName(name: string): string {
  return name.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

/** A --filter value matching exactly these test names. */
export function filterFor(names: readonly string[]): string {
  return `(${names.map(escapeTestName).join("|")})`;
}

/** One invocation of the binary: which tests, with which flags. */
export interface PerfInvocation {
  tests: string[];
  args: string[];
  /** How many times to run it. */
  repeats: number;
}

/** Groups requests into invocations: one per distinct (stat, loop multiplier, repeats). */
export function planInvocations(reqs: readonly PerfTestRequest[]): PerfInvocation[] {
  const groups = new Map<string, { stats: boolean; mult: number; repeats: number; tests: string[] }>();
  for (const r of reqs) {
    const stats = r.stat === "median";
    const mult = Math.max(1, Math.floor(r.loopMultiplier ?? 1));
    const repeats = Math.max(1, Math.floor(r.repeats ?? 1));
    const key = `${stats}|${mult}|${repeats}`;
    const g = groups.get(key) ?? { stats, mult, repeats, tests: [] };
    groups.set(key, g);
    if (!g.tests.includes(r.test)) g.tests.push(r.test);
  }
  return [...groups.values()].map((g) => ({
    tests: g.tests,
    args: ["--filter", filterFor(g.tests), "--verbose", ...(g.stats ? ["--stats"] : []), "--loop-multiplier", String(g.mult)],
    repeats: g.repeats,
  }));
}

/**
 * The fastest of several runs of one test, with every run's figure kept. Elapsed time is a sum of
 * wall time that other processes can only lengthen, so the fastest run is the least disturbed one
 * (and the least flattering to anyone compared against Monero).
 */
export function fastestFigure(runs: readonly MoneroFigure[]): MoneroFigure | undefined {
  if (runs.length === 0) return undefined;
  if (runs.length === 1) return runs[0];
  const best = runs.reduce((a, b) => (b.us < a.us ? b : a));
  return { ...best, runsUs: runs.map((r) => r.us) };
}

/** Path of the binary: $TSMONERO_PERFORMANCE_TESTS, else the Debian location; undefined if not executable. */
export function findPerformanceTests(explicit?: string): string | undefined {
  const p = explicit ?? process.env.TSMONERO_PERFORMANCE_TESTS ?? DEFAULT_PERFORMANCE_TESTS;
  try {
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return undefined;
  }
}

/** The installed monero-tests package version (dpkg), if any. */
export function moneroTestsVersion(): string | undefined {
  try {
    const r = spawnSync("dpkg-query", ["-W", "monero-tests"], { encoding: "utf8", timeout: 5000 });
    const version = r.status === 0 ? r.stdout.trim().split("\t")[1] : undefined;
    return version || undefined;
  } catch {
    return undefined;
  }
}

function runOnce(
  binary: string,
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ stdout: string; stderr: string; code: number | null; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, timedOut });
    });
  });
}

export interface PerfRunOptions {
  /** Binary path (default: see findPerformanceTests). */
  binary?: string;
  /** Kill an invocation after this long (default 180 s). */
  timeoutMs?: number;
  /** Progress messages (e.g. to stderr). */
  log?: (msg: string) => void;
}

export type PerfRunResult =
  | {
      ok: true;
      binary: string;
      figures: Map<string, MoneroFigure>;
      /** Parsed output per test, one entry per run. */
      lines: Map<string, PerfTestLine[]>;
      /** Requested tests the binary did not report (unknown name, FAILED, or killed). */
      missing: string[];
      invocations: { args: string[]; ms: number; error?: string }[];
    }
  | { ok: false; reason: string };

/** Runs the requested tests (grouped into as few invocations as possible) and derives their figures. */
export async function runPerformanceTests(reqs: readonly PerfTestRequest[], opts: PerfRunOptions = {}): Promise<PerfRunResult> {
  const binary = findPerformanceTests(opts.binary);
  if (!binary) return { ok: false, reason: NOT_FOUND_MESSAGE };
  const lines = new Map<string, PerfTestLine[]>();
  const invocations: { args: string[]; ms: number; error?: string }[] = [];
  const cwd = mkdtempSync(join(tmpdir(), "tsmonero-perf-"));
  try {
    for (const inv of planInvocations(reqs)) {
      for (let rep = 0; rep < inv.repeats; rep++) {
        const shown = inv.args.map((a) => (/[\s()<>|,]/.test(a) ? `'${a}'` : a)).join(" ");
        opts.log?.(`performance_tests ${shown}${inv.repeats > 1 ? `  [run ${rep + 1}/${inv.repeats}]` : ""}`);
        const t0 = Date.now();
        let error: string | undefined;
        try {
          const r = await runOnce(binary, inv.args, cwd, opts.timeoutMs ?? 180_000);
          for (const [k, v] of parsePerformanceTestsOutput(r.stdout)) lines.set(k, [...(lines.get(k) ?? []), v]);
          if (r.timedOut) error = "timed out";
          else if (r.code !== 0) error = `exit code ${r.code}: ${r.stderr.trim().split("\n").slice(-1)[0] ?? ""}`;
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
        invocations.push({ args: inv.args, ms: Date.now() - t0, ...(error ? { error } : {}) });
      }
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
  const figures = new Map<string, MoneroFigure>();
  const missing: string[] = [];
  for (const r of reqs) {
    const runs = (lines.get(r.test) ?? []).map((l) => figureOf(l, r.stat)).filter((f): f is MoneroFigure => f !== undefined);
    const f = fastestFigure(runs);
    if (f) figures.set(r.test, f);
    else if (!missing.includes(r.test)) missing.push(r.test);
  }
  return { ok: true, binary, figures, lines, missing, invocations };
}

/** A linear combination of test figures, for primitives Monero only measures as parts or wholes. */
export interface Term {
  test: string;
  coef: number;
}

/** Σ coef·figure; resolution adds up. Undefined if any term is missing. */
export function combineFigures(
  terms: readonly Term[],
  figures: ReadonlyMap<string, MoneroFigure>,
): { us: number; resolutionUs: number; belowResolution: boolean } | undefined {
  let us = 0;
  let res = 0;
  let below = false;
  for (const t of terms) {
    const f = figures.get(t.test);
    if (!f) return undefined;
    us += t.coef * f.us;
    res += Math.abs(t.coef) * f.resolutionUs;
    below ||= f.belowResolution;
  }
  return { us, resolutionUs: res, belowResolution: below };
}
