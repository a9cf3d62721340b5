/**
 * os/log.ts: mlog's log-level strings and easylogging's category matching, and the log file's
 * rotation as --max-log-file-size / --max-log-files ask (real files in a temp dir).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { LOG_LEVEL_CATEGORIES } from "../src/node/rpc/state.js";
import { applyLogSpec, LogCategories, Logger, LogSpecError, RotatingLogFile } from "../src/os/log.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("categories: the last matching pattern wins, * and ? match, levels up to the one named", () => {
  const c = new LogCategories("*:WARNING,net:FATAL,net.p2p:DEBUG,global:INFO,perf.*:TRACE");
  assert.equal(c.allows("global", "INFO"), true);
  assert.equal(c.allows("global", "DEBUG"), false);
  assert.equal(c.allows("net", "ERROR"), false);
  assert.equal(c.allows("net.p2p", "DEBUG"), true);
  assert.equal(c.allows("blockchain", "WARNING"), true);
  assert.equal(c.allows("blockchain", "INFO"), false);
  assert.equal(c.allows("perf.db", "TRACE"), true);
  assert.equal(new LogCategories("").allows("global", "FATAL"), false, "an empty set writes nothing");
  assert.throws(() => new LogCategories("global:LOUD"), LogSpecError);
});

test("--log-level as mlog_set_log reads it: presets, preset plus more, +add, -remove, a list", () => {
  assert.equal(applyLogSpec("2", "x", LOG_LEVEL_CATEGORIES), "*:DEBUG");
  assert.equal(applyLogSpec("0,net:INFO", "x", LOG_LEVEL_CATEGORIES), `${LOG_LEVEL_CATEGORIES[0]},net:INFO`);
  assert.equal(applyLogSpec("+rpc:DEBUG", "*:WARNING", LOG_LEVEL_CATEGORIES), "*:WARNING,rpc:DEBUG");
  assert.equal(applyLogSpec("-rpc:DEBUG", "*:WARNING,rpc:DEBUG", LOG_LEVEL_CATEGORIES), "*:WARNING,");
  assert.equal(applyLogSpec("*:INFO,net:TRACE", "x", LOG_LEVEL_CATEGORIES), "*:INFO,net:TRACE");
  assert.throws(() => applyLogSpec("7", "x", LOG_LEVEL_CATEGORIES), /not 0-4/);
});

test("the log file rotates past its size and keeps at most max-log-files files of its name", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-logs-"));
  dirs.push(dir);
  const path = join(dir, "node.log");
  const f = new RotatingLogFile(path, 200, 3);
  for (let i = 0; i < 40; i++) f.write(`line ${String(i).padStart(3, "0")} ${"x".repeat(40)}\n`);
  f.close();
  const files = readdirSync(dir).sort();
  assert.ok(files.length <= 3, `kept ${files.join(", ")}`);
  assert.ok(files.every((n) => /^node\.log(-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d(\.\d+)?)?$/.test(n)), files.join(", "));
  // the newest lines survive, none is cut in the middle
  const all = files.map((n) => readFileSync(join(dir, n), "utf8")).join("");
  assert.match(all, /line 039 x{40}\n/);
  assert.doesNotMatch(all, /line 000 /, "the oldest rotated files were removed");
  // 0 keeps every rotated file
  const keepAll = new RotatingLogFile(join(dir, "all.log"), 100, 0);
  for (let i = 0; i < 10; i++) keepAll.write(`${"y".repeat(60)}\n`);
  keepAll.close();
  assert.ok(readdirSync(dir).filter((n) => n.startsWith("all.log")).length >= 5);
});

test("a Logger writes what its categories allow, and follows a change of categories", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-logs-"));
  dirs.push(dir);
  const file = join(dir, "l.log");
  const log = new Logger({ file, console: false, categories: "*:WARNING,global:INFO" });
  log.write("global", "INFO", "shown");
  log.write("global", "DEBUG", "hidden");
  log.write("net", "INFO", "hidden too");
  log.setCategories("*:DEBUG");
  log.write("net", "DEBUG", "now shown");
  log.close();
  const text = readFileSync(file, "utf8");
  assert.match(text, /\tINFO\tshown\n/);
  assert.match(text, /\tDEBUG\tnow shown\n/);
  assert.doesNotMatch(text, /hidden/);
});
