/**
 * Progress of long work in the command-line tools (a wallet's refresh and rescan, the devnet's
 * initial mining): percent, blocks per second and time left. On a terminal it is one line on
 * stderr rewritten in place ("\r" and erase-to-end-of-line), drawn at most every `redrawMs` and only
 * once the work has taken `quietMs` (so a refresh of a few blocks does not flash a line); when the
 * output is not a terminal it is a plain log line every `intervalMs` (10 s), and a last line when
 * the work ends if one was logged, so logs and pipes are not flooded with redraws.
 */
import type { WalletProgress } from "../wallet/service/index.js";

/** Where a terminal line is drawn (process.stderr when it is a TTY). */
export interface ProgressTerminal {
  write(text: string): unknown;
  /** Terminal width; the line is cut to fit (no wrap, which would break the in-place redraw). */
  readonly columns?: number;
}

export interface ProgressOptions {
  /** What is being done, e.g. "refresh dev0" or "mining". */
  readonly label: string;
  /** What is counted (default "blocks"). */
  readonly unit?: string;
  /** The terminal to draw on, or null/absent when the output is not a terminal. */
  readonly terminal?: ProgressTerminal | null;
  /** Where the plain periodic lines go when there is no terminal. */
  readonly log: (line: string) => void;
  /** Milliseconds between plain lines (default 10 s). */
  readonly intervalMs?: number;
  /** Terminal: nothing is drawn before the work has taken this long (default 500 ms). */
  readonly quietMs?: number;
  /** Terminal: least time between two redraws (default 200 ms). */
  readonly redrawMs?: number;
  /** Clock in ms (tests pass their own). */
  readonly now?: () => number;
}

/** "4s", "1m05s", "2h03m". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

const int = (n: number): string => Math.round(n).toLocaleString("en-US");

/** A rate for humans: 3 significant digits below 100, whole numbers above. */
function rate(perSecond: number): string {
  if (perSecond >= 100) return int(perSecond);
  if (perSecond >= 10) return perSecond.toFixed(1);
  return perSecond.toFixed(2);
}

/** One state of the work: `position` of `target`, from `base` (where this run started), after `elapsedMs`. */
export interface ProgressState {
  readonly base: number;
  readonly position: number;
  readonly target: number;
  readonly elapsedMs: number;
}

/**
 * The progress text: "refresh dev0: 45.2% (4,521/10,000 blocks), 1,234 blocks/s, 4s left".
 * Percent and rate count from `base`; the time left is what remains at the rate so far.
 */
export function formatProgress(label: string, unit: string, s: ProgressState): string {
  const todo = s.target - s.base;
  const done = Math.min(Math.max(s.position - s.base, 0), Math.max(todo, 0));
  const pct = todo <= 0 ? 100 : (100 * done) / todo;
  const secs = s.elapsedMs / 1000;
  const perSec = secs > 0 ? done / secs : 0;
  const left = s.position >= s.target ? "done" : perSec > 0 ? `${formatDuration((s.target - s.position) / perSec)} left` : "time left unknown";
  return `${label}: ${pct.toFixed(1)}% (${int(s.position)}/${int(s.target)} ${unit}), ${perSec > 0 ? rate(perSec) : "0"} ${unit}/s, ${left}`;
}

/** The final line: "refresh dev0: 10,000 blocks in 8s (1,250 blocks/s), at 10,000". */
export function formatDone(label: string, unit: string, s: ProgressState): string {
  const done = Math.max(s.position - s.base, 0);
  const secs = s.elapsedMs / 1000;
  const perSec = secs > 0 ? ` (${rate(done / secs)} ${unit}/s)` : "";
  return `${label}: ${int(done)} ${unit} in ${formatDuration(secs)}${perSec}, at ${int(s.position)}`;
}

/** One piece of long work being reported. */
export class Progress {
  private readonly now: () => number;
  private readonly unit: string;
  private readonly started: number;
  private base: number | null = null;
  private position = 0;
  private target = 0;
  private lastLine: number;
  private lastDraw = 0;
  private drawn = false;
  private logged = false;
  private ended = false;

  constructor(private readonly o: ProgressOptions) {
    this.now = o.now ?? Date.now;
    this.unit = o.unit ?? "blocks";
    this.started = this.now();
    this.lastLine = this.started;
  }

  private state(): ProgressState {
    return { base: this.base ?? this.position, position: this.position, target: this.target, elapsedMs: this.now() - this.started };
  }

  /** The work is at `position` of `target` (the first call sets where this run started). */
  update(position: number, target: number): void {
    if (this.ended) return;
    this.base ??= position;
    this.position = position;
    this.target = Math.max(target, position);
    const t = this.now();
    const term = this.o.terminal;
    if (term) {
      if (t - this.started < (this.o.quietMs ?? 500) || t - this.lastDraw < (this.o.redrawMs ?? 200)) return;
      this.lastDraw = t;
      this.draw(term, formatProgress(this.o.label, this.unit, this.state()));
      return;
    }
    if (t - this.lastLine >= (this.o.intervalMs ?? 10_000)) {
      this.lastLine = t;
      this.logged = true;
      this.o.log(formatProgress(this.o.label, this.unit, this.state()));
    }
  }

  private draw(term: ProgressTerminal, text: string): void {
    const width = term.columns !== undefined && term.columns > 1 ? term.columns - 1 : undefined;
    term.write(`\r${width !== undefined ? text.slice(0, width) : text}\x1b[K`);
    this.drawn = true;
  }

  /**
   * The work ended. A terminal line that was drawn is replaced by the final line (and a newline);
   * without a terminal, the final line is logged when a periodic one was. `failed` names why it
   * stopped short; `position` is where the work ended, when it moved since the last update.
   */
  end(o: { failed?: string; position?: number } = {}): void {
    if (this.ended) return;
    this.ended = true;
    if (o.position !== undefined) {
      this.base ??= o.position;
      this.position = o.position;
      this.target = Math.max(this.target, o.position);
    }
    const failed = o.failed;
    if (!this.drawn && !this.logged) return;
    const text = failed !== undefined ? `${formatProgress(this.o.label, this.unit, this.state())}; stopped: ${failed}` : formatDone(this.o.label, this.unit, this.state());
    if (this.drawn && this.o.terminal) {
      this.draw(this.o.terminal, text);
      this.o.terminal.write("\n");
    } else this.o.log(text);
  }

  /** Whether anything was shown (a terminal line or a log line). */
  get shown(): boolean {
    return this.drawn || this.logged;
  }
}

/** process.stderr when it is a terminal, else null (plain log lines). */
export function stderrTerminal(): ProgressTerminal | null {
  const e = process.stderr;
  return e.isTTY ? { write: (s) => e.write(s), get columns() { return e.columns; } } : null;
}

/**
 * A wallet service's `progress` callback that shows each refresh and rescan as a `Progress`
 * ("refresh dev0: …", "rescan dev0: …"): one at a time, as the service runs them.
 */
/**
 * Milliseconds between the plain progress lines of non-terminal output: TSMONERO_PROGRESS_INTERVAL_MS
 * (at least 100) or the 10 s default. Operators who want denser or sparser logs set it; the
 * end-to-end progress test sets it so that a few-second refresh logs more than its last line.
 */
export function progressIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.TSMONERO_PROGRESS_INTERVAL_MS);
  return Number.isFinite(v) && v >= 100 ? Math.floor(v) : 10_000;
}

export function walletProgress(o: Omit<ProgressOptions, "label">): (p: WalletProgress) => void {
  let current: { key: string; progress: Progress } | null = null;
  return (p) => {
    const key = `${p.kind} ${p.wallet === "" ? "(in memory)" : p.wallet}`;
    if (current && current.key !== key) {
      current.progress.end();
      current = null;
    }
    if (p.end) {
      current?.progress.end({ position: p.height, ...(p.error !== undefined ? { failed: p.error } : {}) });
      current = null;
      return;
    }
    current ??= { key, progress: new Progress({ ...o, label: key }) };
    current.progress.update(p.height, p.target);
  };
}
