/**
 * The progress display of the command-line tools (src/cli/progress.ts): the text (percent, rate,
 * time left), the terminal line (quiet at first, redrawn in place at most every 200 ms, ended by a
 * final line and a newline) and the plain lines when the output is not a terminal (every 10 s,
 * nothing for short work), on a clock the test moves.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDone, formatDuration, formatProgress, Progress, walletProgress } from "../src/cli/progress.js";

class Clock {
  t = 1_000_000;
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

const ERASE = "\x1b[K";

class Term {
  text = "";
  columns: number | undefined = undefined;
  write(s: string): void {
    this.text += s;
  }
  /** What the terminal shows: each "\r" returns to the line start, "\x1b[K" erases the rest. */
  screen(): string[] {
    const lines: string[] = [];
    for (const raw of this.text.split("\n")) {
      let line = "";
      for (const part of raw.split("\r")) line = (part.endsWith(ERASE) ? part.slice(0, -ERASE.length) : part) || line;
      lines.push(line);
    }
    return lines;
  }
}

describe("progress text", () => {
  it("durations", () => {
    assert.equal(formatDuration(0), "0s");
    assert.equal(formatDuration(4.4), "4s");
    assert.equal(formatDuration(65), "1m05s");
    assert.equal(formatDuration(7380), "2h03m");
    assert.equal(formatDuration(Infinity), "?");
  });

  it("percent of this run's work, rate and time left", () => {
    // a refresh from height 1,000 to 11,000, at 6,000 after 5 s: 50%, 1,000 blocks/s, 5 s left
    assert.equal(
      formatProgress("refresh dev0", "blocks", { base: 1000, position: 6000, target: 11000, elapsedMs: 5000 }),
      "refresh dev0: 50.0% (6,000/11,000 blocks), 1,000 blocks/s, 5s left",
    );
    assert.equal(formatProgress("mining", "blocks", { base: 1, position: 1, target: 101, elapsedMs: 0 }), "mining: 0.0% (1/101 blocks), 0 blocks/s, time left unknown");
    assert.equal(formatProgress("mining", "blocks", { base: 1, position: 101, target: 101, elapsedMs: 2000 }), "mining: 100.0% (101/101 blocks), 50.0 blocks/s, done");
    assert.equal(formatDone("rescan w", "blocks", { base: 0, position: 10000, target: 10000, elapsedMs: 8000 }), "rescan w: 10,000 blocks in 8s (1,250 blocks/s), at 10,000");
  });
});

describe("Progress on a terminal", () => {
  it("is quiet for short work", () => {
    const clock = new Clock();
    const term = new Term();
    const logged: string[] = [];
    const p = new Progress({ label: "refresh w", terminal: term, log: (l) => logged.push(l), now: clock.now });
    for (let h = 0; h <= 40; h += 20) {
      p.update(h, 40);
      clock.advance(100);
    }
    p.end();
    assert.equal(term.text, "", "a refresh under 500 ms draws nothing");
    assert.deepEqual(logged, []);
    assert.equal(p.shown, false);
  });

  it("redraws one line in place, at most every 200 ms, and ends it with the final line", () => {
    const clock = new Clock();
    const term = new Term();
    const logged: string[] = [];
    const p = new Progress({ label: "refresh w", terminal: term, log: (l) => logged.push(l), now: clock.now });
    // 10,000 blocks in chunks of 20, 10 ms per chunk: 5 s
    let updates = 0;
    p.update(0, 10_000);
    for (let h = 20; h <= 10_000; h += 20) {
      clock.advance(10);
      p.update(h, 10_000);
      updates++;
    }
    const redraws = term.text.split("\r").length - 1;
    assert.ok(redraws >= 20 && redraws <= 23, `${redraws} redraws of ${updates} updates over 5 s (one per 200 ms after the first 500 ms)`);
    assert.ok(!term.text.includes("\n"), "no newline while it runs");
    assert.match(term.screen()[0], /^refresh w: 9\d\.\d% \(\d,\d{3}\/10,000 blocks\), 2,000 blocks\/s, 0s left$/);
    p.end();
    assert.deepEqual(term.screen(), ["refresh w: 10,000 blocks in 5s (2,000 blocks/s), at 10,000", ""]);
    assert.deepEqual(logged, [], "nothing goes to the log on a terminal");
    p.update(5, 10);
    assert.deepEqual(term.screen(), ["refresh w: 10,000 blocks in 5s (2,000 blocks/s), at 10,000", ""], "nothing after the end");
  });

  it("cuts the line to the terminal's width", () => {
    const clock = new Clock();
    const term = new Term();
    term.columns = 30;
    const p = new Progress({ label: "rescan a-wallet-with-a-long-name", terminal: term, log: () => undefined, now: clock.now });
    p.update(0, 100);
    clock.advance(1000);
    p.update(50, 100);
    assert.equal(term.screen()[0].length, 29);
  });

  it("says where it stopped when the work failed", () => {
    const clock = new Clock();
    const term = new Term();
    const p = new Progress({ label: "refresh w", terminal: term, log: () => undefined, now: clock.now });
    p.update(0, 100);
    clock.advance(1000);
    p.update(50, 100);
    p.end({ failed: "no connection to daemon" });
    assert.match(term.screen()[0], /^refresh w: 50\.0% .*; stopped: no connection to daemon$/);
  });
});

describe("Progress without a terminal", () => {
  it("logs a plain line every 10 s and a final one, never a redraw", () => {
    const clock = new Clock();
    const logged: string[] = [];
    const p = new Progress({ label: "rescan w", terminal: null, log: (l) => logged.push(l), now: clock.now });
    // 10,000 blocks at 400 blocks/s: 25 s
    p.update(0, 10_000);
    for (let h = 20; h <= 10_000; h += 20) {
      clock.advance(50);
      p.update(h, 10_000);
    }
    p.end();
    assert.equal(logged.length, 3, logged.join("\n"));
    assert.match(logged[0], /^rescan w: 40\.0% \(4,000\/10,000 blocks\), 400 blocks\/s, 15s left$/);
    assert.match(logged[1], /^rescan w: 80\.0% \(8,000\/10,000 blocks\), 400 blocks\/s, 5s left$/);
    assert.match(logged[2], /^rescan w: 10,000 blocks in 25s \(400 blocks\/s\), at 10,000$/);
    assert.ok(logged.every((l) => !l.includes("\r") && !l.includes(ERASE)));
  });

  it("logs nothing for work shorter than the interval", () => {
    const clock = new Clock();
    const logged: string[] = [];
    const p = new Progress({ label: "refresh w", log: (l) => logged.push(l), now: clock.now });
    p.update(0, 100);
    clock.advance(9_000);
    p.update(100, 100);
    p.end();
    assert.deepEqual(logged, []);
  });
});

describe("walletProgress", () => {
  it("one Progress per refresh or rescan, ended by the wallet's end report", () => {
    const clock = new Clock();
    const logged: string[] = [];
    const report = walletProgress({ log: (l) => logged.push(l), now: clock.now, intervalMs: 1000 });
    report({ wallet: "dev0", kind: "refresh", height: 0, target: 3000, end: false });
    clock.advance(1500);
    report({ wallet: "dev0", kind: "refresh", height: 1500, target: 3000, end: false });
    clock.advance(1500);
    report({ wallet: "dev0", kind: "refresh", height: 3000, target: 3000, end: true });
    report({ wallet: "dev0", kind: "rescan", height: 0, target: 3000, end: false });
    clock.advance(1500);
    report({ wallet: "dev0", kind: "rescan", height: 1000, target: 3000, end: false });
    report({ wallet: "dev0", kind: "rescan", height: 1000, target: 1000, end: true, error: "wallet closed" });
    assert.deepEqual(logged, [
      "refresh dev0: 50.0% (1,500/3,000 blocks), 1,000 blocks/s, 2s left",
      "refresh dev0: 3,000 blocks in 3s (1,000 blocks/s), at 3,000",
      "rescan dev0: 33.3% (1,000/3,000 blocks), 667 blocks/s, 3s left",
      "rescan dev0: 33.3% (1,000/3,000 blocks), 667 blocks/s, 3s left; stopped: wallet closed",
    ]);
  });
});
