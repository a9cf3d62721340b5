/**
 * How a bench starts one of our launchers (bin/tsmonerod, …) the way a user's command line does,
 * with the node flags of its shebang line (`#!/usr/bin/env -S node --max-semi-space-size=8`):
 * a bench that runs `node bin/tsmonerod` instead measures a daemon no user runs. Extra node flags
 * (a CPU profile) go after the launcher's own.
 */
import { readFileSync } from "node:fs";

/** The node flags of a launcher's `#!/usr/bin/env [-S] node …` line; none for any other first line. */
export function launcherNodeFlags(bin: string): string[] {
  const first = readFileSync(bin, "utf8").split("\n", 1)[0];
  const m = /^#!\S*env(?:\s+-S)?\s+node(?:\s+(.*))?$/.exec(first.trim());
  return m?.[1] ? m[1].split(/\s+/).filter(Boolean) : [];
}

/** The command (this node, its arguments) that runs `bin` with its shebang's node flags, `nodeFlags`, then `args`. */
export function launcherCommand(bin: string, args: readonly string[], nodeFlags: readonly string[] = []): [string, string[]] {
  return [process.execPath, [...launcherNodeFlags(bin), ...nodeFlags, bin, ...args]];
}
