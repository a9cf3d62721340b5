/**
 * Log output for the services: a log file rotated by size with a bound on the rotated files kept
 * (as easylogging++ does it under Monero's mlog_configure: the full file is renamed
 * `<file>-YYYY-MM-DD-HH-MM-SS` (UTC) and the oldest files of that name beyond the bound are removed),
 * and category filters in easylogging's syntax (`*:WARNING,net:DEBUG`: category patterns with `*`
 * and `?`, levels FATAL < ERROR < WARNING < INFO < DEBUG < TRACE, the last matching pattern wins).
 */
import { closeSync, fstatSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync, existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export const LOG_LEVELS = ["FATAL", "ERROR", "WARNING", "INFO", "DEBUG", "TRACE"] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** Thrown for a category string that does not parse. */
export class LogSpecError extends Error {
  override name = "LogSpecError";
}

function wildcard(pattern: string): RegExp {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${re}$`);
}

/** A parsed category string: which levels of which categories are written. */
export class LogCategories {
  private readonly rules: { pattern: RegExp; max: number }[];
  private readonly cache = new Map<string, number>();

  constructor(readonly text: string) {
    this.rules = [];
    for (const part of text.split(",")) {
      const p = part.trim();
      if (p === "") continue;
      const colon = p.lastIndexOf(":");
      const cat = colon === -1 ? "*" : p.slice(0, colon);
      const lvl = (colon === -1 ? p : p.slice(colon + 1)).toUpperCase();
      const max = LOG_LEVELS.indexOf(lvl as LogLevelName);
      if (max === -1 || cat === "") throw new LogSpecError(`'${p}' is not <category>:<FATAL|ERROR|WARNING|INFO|DEBUG|TRACE>`);
      this.rules.push({ pattern: wildcard(cat), max });
    }
  }

  /** Whether a message of `level` in `category` is written (VRegistry::priority_allowed). */
  allows(category: string, level: LogLevelName): boolean {
    let max = this.cache.get(category);
    if (max === undefined) {
      max = -1;
      for (let i = this.rules.length - 1; i >= 0; i--) {
        if (this.rules[i].pattern.test(category)) {
          max = this.rules[i].max;
          break;
        }
      }
      this.cache.set(category, max);
    }
    return LOG_LEVELS.indexOf(level) <= max;
  }
}

/**
 * mlog_set_log: "0".."4" pick a preset, "N,cat:LEVEL…" a preset plus more, "+cat:LEVEL" adds to
 * `current`, "-cat:LEVEL" takes those out of it, anything else replaces it. Returns the new string.
 */
export function applyLogSpec(spec: string, current: string, presets: readonly string[]): string {
  const m = /^(\d+)(,.*)?$/.exec(spec);
  if (m) {
    const n = Number(m[1]);
    if (n > 4 || presets[n] === undefined) throw new LogSpecError(`log level ${m[1]} is not 0-4`);
    const text = presets[n] + (m[2] ?? "");
    new LogCategories(text);
    return text;
  }
  let text: string;
  if (spec.startsWith("+")) text = [current, spec.slice(1)].filter((s) => s !== "").join(",");
  else if (spec.startsWith("-")) {
    text = current;
    for (const s of spec.slice(1).split(",").filter((x) => x !== "")) {
      const at = text.indexOf(s);
      if (at !== -1) text = text.slice(0, at) + text.slice(at + s.length);
    }
  } else text = spec;
  new LogCategories(text);
  return text;
}

/** A log file that rotates past `maxSize` bytes, keeping at most `maxFiles` files of its name (0: no bound). */
export class RotatingLogFile {
  private fd: number | undefined;
  private size = 0;
  /** The last write failure, reported once. */
  failed: string | undefined;

  constructor(
    readonly path: string,
    readonly maxSize: number,
    readonly maxFiles: number,
  ) {}

  private open(): number {
    if (this.fd === undefined) {
      this.fd = openSync(this.path, "a", 0o644);
      this.size = fstatSync(this.fd).size;
    }
    return this.fd;
  }

  write(line: string): void {
    try {
      const bytes = Buffer.from(line, "utf8");
      const fd = this.open();
      writeSync(fd, bytes);
      this.size += bytes.length;
      if (this.maxSize > 0 && this.size >= this.maxSize) this.rotate();
      this.failed = undefined;
    } catch (e) {
      // a log file we cannot write must not stop the service
      this.failed = e instanceof Error ? e.message : String(e);
    }
  }

  /** Renames the file to <path>-<UTC time> and removes the oldest rotated files beyond maxFiles (mlog's pre-roll-out callback). */
  rotate(): void {
    this.close();
    const d = new Date();
    const p2 = (n: number) => String(n).padStart(2, "0");
    let to = `${this.path}-${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}-${p2(d.getUTCHours())}-${p2(d.getUTCMinutes())}-${p2(d.getUTCSeconds())}`;
    // two rotations in one second must not overwrite the first
    for (let i = 1; existsSync(to); i++) to = to.replace(/(\.\d+)?$/, `.${i}`);
    renameSync(this.path, to);
    if (this.maxFiles === 0) return;
    const dir = dirname(this.path);
    const base = basename(this.path);
    const found = readdirSync(dir)
      .filter((f) => f.startsWith(base))
      .map((f) => {
        const p = join(dir, f);
        let t = Date.now();
        try {
          t = statSync(p).mtimeMs;
        } catch {
          // gone meanwhile
        }
        return { p, t };
      })
      .sort((a, b) => a.t - b.t || (a.p < b.p ? -1 : 1));
    for (let i = 0; i + this.maxFiles <= found.length; i++) rmSync(found[i].p, { force: true });
  }

  close(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = undefined;
    }
  }
}

export interface LoggerOptions {
  /** Log file; absent or "": none. */
  file?: string;
  maxFileSize?: number;
  maxFiles?: number;
  /** Also write lines to stdout (default true). */
  console?: boolean;
  /** The category string in force. */
  categories: string;
}

/** Lines filtered by category and level, written to stdout and a rotating file. */
export class Logger {
  private cats: LogCategories;
  private readonly file: RotatingLogFile | undefined;
  private readonly toConsole: boolean;

  constructor(o: LoggerOptions) {
    this.cats = new LogCategories(o.categories);
    this.file = o.file ? new RotatingLogFile(o.file, o.maxFileSize ?? 104850000, o.maxFiles ?? 50) : undefined;
    this.toConsole = o.console !== false;
  }

  get categories(): string {
    return this.cats.text;
  }

  setCategories(text: string): void {
    this.cats = new LogCategories(text);
  }

  allows(category: string, level: LogLevelName): boolean {
    return this.cats.allows(category, level);
  }

  write(category: string, level: LogLevelName, msg: string): void {
    if (!this.cats.allows(category, level)) return;
    const line = `${new Date().toISOString().replace("T", " ").replace("Z", "")}\t${level === "WARNING" ? "WARN" : level}\t${msg}`;
    if (this.toConsole) console.log(line);
    this.file?.write(line + "\n");
  }

  close(): void {
    this.file?.close();
  }
}
