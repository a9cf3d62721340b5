/**
 * What a bench suite module exports, for the dispatcher in bench/run.ts.
 *
 * A suite is `bench/<name>.ts` exporting `suite: BenchSuite`; registering it is one line in
 * run.ts's SUITES table. Flags are parsed by the dispatcher (monerod style, src/cli/args.ts)
 * against the flags of the suites being run, and each suite reads its own.
 */
import type { FlagSpec, ParsedArgs } from "../../src/cli/args.js";

export interface BenchSuite {
  /** Name used on the command line: `node dist/bench/run.js <name>`. */
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  /** Flags the suite accepts (shown by --help). */
  readonly flags: readonly FlagSpec[];
  /** Runs the suite, printing its report to stdout (progress to stderr). */
  run(args: ParsedArgs): Promise<void>;
}

/** A string flag's value, if given. */
export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.get(name);
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v[v.length - 1];
  return undefined;
}

/** Whether a switch was given. */
export function flagSet(args: ParsedArgs, name: string): boolean {
  return args.get(name) === true;
}

/** Progress output: stderr, so stdout stays a clean report that can be pasted. */
export function progress(msg: string): void {
  process.stderr.write(`${msg}\n`);
}
