/**
 * Command-line and config-file parsing in monerod's style (boost::program_options as monerod and
 * monero-wallet-rpc use it): `--flag value` or `--flag=value` for options, bare `--flag` for
 * switches, an unambiguous prefix of a flag's name standing for it (`--vers` is `--version`, boost's
 * allow_guessing), a non-repeatable flag given twice is an error, and an error naming any unknown
 * flag. Config files are boost's ini format (parseConfigFile); the command line overrides them.
 *
 * Every flag of monerod / monero-wallet-rpc 0.18 is in the launchers' tables with a status: active
 * (it has its meaning here), inactive (accepted and logged as not active: P2P and ZMQ, whose issue
 * is another, and features still to come) or refused (recognised; it cannot have a meaning here,
 * and the message says why).
 */
import { readFileSync } from "node:fs";

/** What a recognised flag does here. */
export type FlagStatus =
  | { readonly kind: "active" }
  /** Accepted; `feature` is not active in this version (logged at start). */
  | { readonly kind: "inactive"; readonly feature: string }
  /** Recognised and refused: `reason` says why it cannot have its meaning here. */
  | { readonly kind: "refused"; readonly reason: string };

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
  /** monerod's "Options" group (--help, --detach, …): command line only, refused in a config file. */
  readonly commandLineOnly?: boolean;
  /** Default: active. */
  readonly status?: FlagStatus;
}

/** A flag that takes a value. */
export function option(name: string, help: string, defaultValue?: string, repeatable = false): FlagSpec {
  return { name, takesValue: true, help, defaultValue, repeatable };
}

/** A switch (no value). */
export function flag(name: string, help: string): FlagSpec {
  return { name, takesValue: false, help };
}

/** The same flag, accepted and logged as not active (`feature` names what is missing). */
export function inactive(spec: FlagSpec, feature: string): FlagSpec {
  return { ...spec, status: { kind: "inactive", feature } };
}

/** The same flag, recognised and refused with `reason`. */
export function refused(spec: FlagSpec, reason: string): FlagSpec {
  return { ...spec, status: { kind: "refused", reason } };
}

/** The same flag, only on the command line (not in a config file). */
export function commandLineOnly(spec: FlagSpec): FlagSpec {
  return { ...spec, commandLineOnly: true };
}

/** Parsed flags: switches map to true, valued flags to their value (all values if repeatable). */
export type ParsedArgs = Map<string, string | true | string[]>;

/** A command-line error with a message meant for the user. */
export class UsageError extends Error {}

/** The spec `name` stands for: the exact name, else the one flag it is a prefix of (boost's guessing). */
export function findSpec(name: string, specs: readonly FlagSpec[], guess = true): FlagSpec | undefined {
  const exact = specs.find((s) => s.name === name);
  if (exact || !guess || name === "") return exact;
  const matches = specs.filter((s) => s.name.startsWith(name));
  if (matches.length > 1)
    throw new UsageError(`--${name} is ambiguous: it could be ${matches.map((m) => `--${m.name}`).join(", ")}; write the flag in full`);
  return matches[0];
}

function store(out: ParsedArgs, spec: FlagSpec, value: string | true, where: string): void {
  if (spec.repeatable && typeof value === "string") {
    const prev = out.get(spec.name);
    out.set(spec.name, Array.isArray(prev) ? [...prev, value] : [value]);
    return;
  }
  if (out.has(spec.name)) throw new UsageError(`option '--${spec.name}' cannot be specified more than once${where}; give it once`);
  out.set(spec.name, value);
}

/** Parses argv against the flag table. */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const out: ParsedArgs = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new UsageError(`unexpected argument '${arg}' (flags start with --; see --help)`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const spec = findSpec(name, specs);
    if (!spec) throw new UsageError(`unknown flag --${name} (see --help for the accepted flags)`);
    if (!spec.takesValue) {
      if (eq !== -1) {
        const v = arg.slice(eq + 1);
        if (v !== "1" && v !== "true" && v !== "0" && v !== "false")
          throw new UsageError(`--${spec.name} is a switch and takes no value (got '${v}')`);
        if (v === "1" || v === "true") store(out, spec, true, "");
        continue;
      }
      store(out, spec, true, "");
      continue;
    }
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${spec.name} needs a value`);
      value = next;
      i++;
    }
    store(out, spec, value, "");
  }
  return out;
}

/** boost's bool values in a config file (validate for bool): empty, on/yes/1/true, off/no/0/false. */
function configBool(name: string, text: string): boolean {
  const v = text.toLowerCase();
  if (v === "" || v === "on" || v === "yes" || v === "1" || v === "true") return true;
  if (v === "off" || v === "no" || v === "0" || v === "false") return false;
  throw new UsageError(`the value '${text}' of '${name}' in the config file is not a switch value: write ${name}=1 or ${name}=0`);
}

/**
 * A config file as boost::program_options::parse_config_file reads it: one `name=value` per line,
 * names without dashes, `#` starting a comment anywhere, blanks around names and values ignored,
 * `[section]` prefixing the names after it with `section.`, switches as `name=1` (or true/yes/on;
 * 0/false/no/off leave them off). Flags of monerod's "Options" group (commandLineOnly) are refused
 * as monerod 0.18 refuses them (unrecognised there). Messages start with monerod's words. `file`
 * names the file in messages.
 */
export function parseConfigFile(text: string, specs: readonly FlagSpec[], file: string): ParsedArgs {
  const out: ParsedArgs = new Map();
  let prefix = "";
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const hash = lines[n].indexOf("#");
    const line = (hash === -1 ? lines[n] : lines[n].slice(0, hash)).trim();
    if (line === "") continue;
    if (line.startsWith("[") && line.endsWith("]")) {
      prefix = line.slice(1, -1).trim() + ".";
      continue;
    }
    const eq = line.indexOf("=");
    const name = prefix + (eq === -1 ? line : line.slice(0, eq)).trim();
    if (eq === -1 || name === prefix)
      throw new UsageError(`Error parsing config file ${file}: the options configuration file contains an invalid line '${line}' (line ${n + 1}; write name=value, switches as name=1)`);
    const value = line.slice(eq + 1).trim();
    const spec = findSpec(name, specs, false);
    if (!spec) throw new UsageError(`Error parsing config file ${file}: unrecognised option '${name}' (line ${n + 1}; see --help for the flags, written without dashes)`);
    // monerod 0.18 reads only its "Settings" from the file: the others are unrecognised there
    if (spec.commandLineOnly) throw new UsageError(`Error parsing config file ${file}: unrecognised option '${name}' (line ${n + 1}; it is allowed on the command line only, please use it as a command line flag)`);
    if (!spec.takesValue) {
      if (configBool(name, value)) store(out, spec, true, ` in config file ${file}`);
      continue;
    }
    store(out, spec, value, ` in config file ${file}`);
  }
  return out;
}

/** Reads a config file; a missing or unreadable one is a UsageError with monerod's words. */
export function readConfigFile(path: string, specs: readonly FlagSpec[]): ParsedArgs {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UsageError(`Can't find config file ${path}`);
    throw new UsageError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  return parseConfigFile(text, specs, path);
}

/** Command line over config file: a flag on the command line replaces the file's value(s) whole (boost's store). */
export function mergeArgs(commandLine: ParsedArgs, file: ParsedArgs): ParsedArgs {
  const out: ParsedArgs = new Map(commandLine);
  for (const [k, v] of file) if (!out.has(k)) out.set(k, v);
  return out;
}

/** Throws for the first refused flag given, with its reason. */
export function checkRefused(args: ParsedArgs, specs: readonly FlagSpec[]): void {
  for (const s of specs) {
    if (s.status?.kind === "refused" && args.has(s.name)) throw new UsageError(`--${s.name} is not supported: ${s.status.reason}`);
  }
}

/** One log line for each inactive flag given. */
export function inactiveNotes(args: ParsedArgs, specs: readonly FlagSpec[]): string[] {
  const notes: string[] = [];
  for (const s of specs) {
    if (s.status?.kind === "inactive" && args.has(s.name)) notes.push(`--${s.name} accepted; ${s.status.feature} is not active in this version`);
  }
  return notes;
}

/** A value flag's text (the last one if repeatable). */
export function argString(args: ParsedArgs, name: string): string | undefined {
  const x = args.get(name);
  return typeof x === "string" ? x : Array.isArray(x) ? x[x.length - 1] : undefined;
}

/** An integer flag in [min, max]; undefined when absent; a UsageError naming the flag otherwise. */
export function argInt(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const x = argString(args, name);
  if (x === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(x) || Number(x) < min || Number(x) > max) throw new UsageError(`--${name} needs an integer from ${min} to ${max} (got '${x}')`);
  return Number(x);
}

/** The --help text for a command. */
export function helpText(command: string, summary: string, specs: readonly FlagSpec[]): string {
  const width = Math.max(...specs.map((s) => s.name.length + (s.takesValue ? 6 : 0))) + 4;
  const lines = specs.map((s) => {
    const left = `  --${s.name}${s.takesValue ? " <arg>" : ""}`;
    const def = s.defaultValue !== undefined ? ` (default: ${s.defaultValue})` : "";
    const st = s.status?.kind === "inactive" ? ` [not active: ${s.status.feature}]` : s.status?.kind === "refused" ? ` [refused: ${s.status.reason}]` : "";
    return `${left.padEnd(width + 2)} ${s.help}${def}${st}`;
  });
  return `Usage: ${command} [options]\n\n${summary}\n\nOptions:\n${lines.join("\n")}\n`;
}

/** How a command reads its config file. */
export interface ConfigFileRule {
  /** Where the config file is when --config-file is not given (monerod: ~/.bitmonero[/net]/bitmonero.conf); a missing default is no error. */
  defaultPath?: (commandLine: ParsedArgs) => string | undefined;
}

/**
 * The flags of a command line and its config file: argv parsed, then `--config-file` (or the
 * default file) read and put under it. Refused flags are reported here, wherever they were given.
 */
export function resolveArgs(argv: readonly string[], specs: readonly FlagSpec[], rule: ConfigFileRule): ParsedArgs {
  const cli = parseArgs(argv, specs);
  // --version answers before any config file is read, as monerod does
  if (cli.has("version")) return cli;
  const given = argString(cli, "config-file");
  let file: ParsedArgs = new Map();
  if (given !== undefined) file = readConfigFile(given, specs);
  else {
    const def = rule.defaultPath?.(cli);
    if (def !== undefined) {
      try {
        file = readConfigFile(def, specs);
      } catch (e) {
        if (!(e instanceof UsageError && e.message.startsWith("Can't find config file"))) throw e;
      }
    }
  }
  const args = mergeArgs(cli, file);
  checkRefused(args, specs);
  return args;
}

/** Runs a command's main with monerod-like handling of --help and usage errors. */
export async function runCli(
  command: string,
  summary: string,
  specs: readonly FlagSpec[],
  main: (args: ParsedArgs) => Promise<number>,
  rule: ConfigFileRule = {},
): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(helpText(command, summary, specs));
    return;
  }
  try {
    const args = resolveArgs(argv, specs, rule);
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
