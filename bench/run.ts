/**
 * Bench dispatcher: `node dist/bench/run.js <suite…> [flags]` (or `npm run bench -- <suite…>`).
 *
 * Suites are modules under bench/ exporting `suite: BenchSuite` (bench/lib/suite.ts). To add one,
 * add a line to SUITES. Suite names come first; flags after them go to the suites that declare them.
 */
import { type FlagSpec, helpText, parseArgs, UsageError } from "../src/cli/args.js";
import type { BenchSuite } from "./lib/suite.js";

/** Known suites, loaded lazily so one suite's imports cannot break another. One line per suite. */
const SUITES: Record<string, () => Promise<BenchSuite>> = {
  chain: async () => (await import("./chain.js")).suite,
  codec: async () => (await import("./codec.js")).suite,
  crypto: async () => (await import("./crypto.js")).suite,
  hub: async () => (await import("./hub.js")).suite,
  keys: async () => (await import("./keys.js")).suite,
  node: async () => (await import("./node.js")).suite,
  "p2p-sync": async () => (await import("./p2p-sync.js")).suite,
  pruning: async () => (await import("./pruning.js")).suite,
  "real-wallet": async () => (await import("./real-wallet.js")).suite,
  ringct: async () => (await import("./ringct.js")).suite,
  scale: async () => (await import("./scale.js")).suite,
  transfers: async () => (await import("./transfers.js")).suite,
  wallet: async () => (await import("./wallet.js")).suite,
};

function usage(suites: readonly BenchSuite[]): string {
  const flags = new Map<string, FlagSpec>();
  for (const s of suites) for (const f of s.flags) flags.set(f.name, f);
  const list = suites.map((s) => `  ${s.name.padEnd(10)} ${s.summary}`).join("\n");
  const text = helpText("node dist/bench/run.js <suite…>", `Suites:\n${list}`, [...flags.values()]);
  return flags.size ? text : text.replace(/\nOptions:\n$/, "");
}

async function main(argv: readonly string[]): Promise<number> {
  const known = Object.keys(SUITES);
  const firstFlag = argv.findIndex((a) => a.startsWith("-"));
  const names = firstFlag === -1 ? [...argv] : argv.slice(0, firstFlag);
  const rest = firstFlag === -1 ? [] : argv.slice(firstFlag);
  const unknown = names.filter((n) => !Object.hasOwn(SUITES, n));
  if (unknown.length) {
    process.stderr.write(`bench: unknown suite${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => `'${n}'`).join(", ")}; known suites: ${known.join(", ")}\n`);
    return 2;
  }
  const wantHelp = rest.includes("--help") || rest.includes("-h");
  if (names.length === 0 || wantHelp) {
    const all = await Promise.all((names.length ? names : known).map((n) => SUITES[n]()));
    process[wantHelp ? "stdout" : "stderr"].write(usage(all));
    if (!wantHelp) process.stderr.write(`\nbench: name at least one suite (known: ${known.join(", ")})\n`);
    return wantHelp ? 0 : 2;
  }
  const suites = await Promise.all(names.map((n) => SUITES[n]()));
  const specs = new Map<string, FlagSpec>();
  for (const s of suites) for (const f of s.flags) specs.set(f.name, f);
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(rest, [...specs.values()]);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`bench: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  for (const s of suites) await s.run(args);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
