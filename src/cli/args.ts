/**
 * Command-line parsing in monerod's style: `--flag value` or `--flag=value` for options,
 * bare `--flag` for switches, and an error naming any unknown flag.
 */

/** One accepted flag. */
export interface FlagSpec {
  /** Name without the leading dashes, e.g. "rpc-bind-port". */
  readonly name: string;
  /** Whether the flag takes a value (the next word, or after "="). */
  readonly takesValue: boolean;
  /** One line for --help. */
  readonly help: string;
  /** Shown in --help as the default value. */
  readonly defaultValue?: string;
  /** May be given several times (values accumulate), like --add-peer. */
  readonly repeatable?: boolean;
}

/** A flag that takes a value. */
export function option(name: string, help: string, defaultValue?: string, repeatable = false): FlagSpec {
  return { name, takesValue: true, help, defaultValue, repeatable };
}

/** A switch (no value). */
export function flag(name: string, help: string): FlagSpec {
  return { name, takesValue: false, help };
}

/** Parsed flags: switches map to true, valued flags to their (last, or all if repeatable) value. */
export type ParsedArgs = Map<string, string | true | string[]>;

/** A command-line error with a message meant for the user. */
export class UsageError extends Error {}

/** Parses argv against the flag table. */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const out: ParsedArgs = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument '${arg}' (flags start with --; see --help)`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown flag --${name} (see --help for the accepted flags)`);
    if (!spec.takesValue) {
      if (eq !== -1) {
        const v = arg.slice(eq + 1);
        if (v !== "1" && v !== "true" && v !== "0" && v !== "false")
          throw new UsageError(`--${name} is a switch and takes no value (got '${v}')`);
        if (v === "1" || v === "true") out.set(name, true);
        continue;
      }
      out.set(name, true);
      continue;
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    if (spec.repeatable) {
      const prev = out.get(name);
      out.set(name, Array.isArray(prev) ? [...prev, value] : [value]);
    } else out.set(name, value);
  }
  return out;
}

/** The --help text for a command. */
export function helpText(command: string, summary: string, specs: readonly FlagSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length + (s.takesValue ? 6 : 0))) + 4;
  const lines = specs.map((s) => {
    const left = `  --${s.name}${s.takesValue ? " <arg>" : ""}`;
    const def = s.defaultValue !== undefined ? ` (default: ${s.defaultValue})` : "";
    return `${left.padEnd(width + 2)} ${s.help}${def}`;
  });
  return `Usage: ${command} [options]\n\n${summary}\n\nOptions:\n${lines.join("\n")}\n`;
}

/** Runs a command's main with monerod-like handling of --help and usage errors. */
export async function runCli(
  command: string,
  summary: string,
  specs: readonly FlagSpec[],
  main: (args: ParsedArgs) => Promise<number>,
): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(helpText(command, summary, specs));
    return;
  }
  try {
    const args = parseArgs(argv, specs);
    process.exitCode = await main(args);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${command}: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    throw e;
  }
}
