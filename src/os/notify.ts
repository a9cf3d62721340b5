/**
 * A notification command as Monero's tools::Notify runs one (--block-notify, --reorg-notify,
 * --block-rate-notify, --tx-notify): the spec is split on spaces and tabs (no shell, no quoting:
 * quotes and backslashes stay as written), its first word must name an existing file, which is run
 * with the other words as arguments after each tag (`%s`, `%h`, …) is replaced, with an empty
 * environment and stdin closed, not waited for (tools::spawn with wait=false).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** A spec that cannot be run: empty, or its program is not a file. */
export class NotifySpecError extends Error {
  override name = "NotifySpecError";
}

export class Notify {
  readonly file: string;
  private readonly args: readonly string[];

  /** `onError` hears failures to start the program (it has no other way to be seen). */
  constructor(
    readonly spec: string,
    private readonly onError: (msg: string) => void = () => undefined,
  ) {
    const words = spec.split(/[ \t]+/).filter((w) => w !== "");
    if (words.length === 0) throw new NotifySpecError("the notify command is empty");
    this.file = words[0];
    this.args = words;
    if (!existsSync(this.file)) throw new NotifySpecError(`File not found: ${this.file} (the command's first word must be the program's path; it is run without a shell)`);
  }

  /** The arguments after the tags are replaced, in the order given (Notify::notify). */
  argv(subs: readonly (readonly [string, string])[]): string[] {
    return this.args.map((a) => subs.reduce((t, [tag, value]) => t.split(tag).join(value), a));
  }

  /** Starts the program; does not wait for it. */
  run(subs: readonly (readonly [string, string])[]): void {
    const [, ...rest] = this.argv(subs);
    try {
      const child = spawn(this.file, rest, { stdio: ["ignore", "inherit", "inherit"], env: {} });
      child.on("error", (e) => this.onError(`notify ${this.file}: ${e.message}`));
      child.unref();
    } catch (e) {
      this.onError(`notify ${this.file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
