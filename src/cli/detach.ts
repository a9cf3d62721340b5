/**
 * --detach and --pidfile (daemonizer's posix::fork, in Node's terms): the launcher runs itself
 * again in a new session with no terminal, waits until that copy is serving (it says so over an
 * IPC channel) and exits 0; a copy that fails to start hands its message back, and the launcher
 * prints it and exits 1. The detached copy writes --pidfile once started and removes it when it
 * stops cleanly; a pid file naming a live process is an error, a stale one is replaced.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { UsageError } from "./args.js";

const ENV = "TSMONERO_DETACHED";

/** True in the detached copy. */
export function isDetachedChild(): boolean {
  return process.env[ENV] === "1" && typeof process.send === "function";
}

/** In the detached copy: tells the launcher the service is up (or why it is not), then drops the channel. */
let reported = false;
export function reportStart(result: { ok: boolean; message: string }): void {
  if (!isDetachedChild() || reported || !process.connected) return;
  reported = true;
  process.send?.(result, () => process.disconnect?.());
}

/** The launcher's side: starts the detached copy and resolves with the exit code for this process. */
export function detach(command: string, timeoutMs = 600_000): Promise<number> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      detached: true,
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      env: { ...process.env, [ENV]: "1" },
    });
    let settled = false;
    const finish = (code: number, msg: string, toErr: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      (toErr ? process.stderr : process.stdout).write(`${command}: ${msg}\n`);
      child.removeAllListeners();
      if (child.connected) child.disconnect();
      child.unref();
      done(code);
    };
    const timer = setTimeout(() => finish(1, `the detached process (pid ${child.pid}) did not report a start within ${timeoutMs / 1000} s; it is left running`, true), timeoutMs);
    child.on("message", (m: unknown) => {
      const r = m as { ok?: boolean; message?: string };
      if (r.ok === true) finish(0, `detached, pid ${child.pid}: ${r.message ?? "started"}`, false);
      else finish(1, r.message ?? "the detached process failed to start", true);
    });
    child.on("error", (e) => finish(1, `cannot start the detached process: ${e.message}`, true));
    child.on("exit", (code, sig) => finish(code === 0 ? 1 : (code ?? 1), `the detached process exited (${sig ?? `code ${code}`}) before it was serving; see its log file`, true));
  });
}

/** Writes the pid file (a live pid already in it is an error) and returns its remover. */
export function writePidFile(path: string): () => void {
  let old: number | undefined;
  try {
    old = Number(readFileSync(path, "utf8").trim());
  } catch {
    // none yet
  }
  if (old !== undefined && Number.isInteger(old) && old > 0 && old !== process.pid) {
    let alive: boolean;
    try {
      process.kill(old, 0);
      alive = true;
    } catch (e) {
      alive = (e as NodeJS.ErrnoException).code === "EPERM";
    }
    if (alive) throw new UsageError(`PID file ${path} already exists and the PID therein (${old}) is running; stop that process or choose another --pidfile`);
  }
  try {
    writeFileSync(path, `${process.pid}\n`);
  } catch (e) {
    throw new UsageError(`cannot write --pidfile ${path}: ${(e as Error).message}`);
  }
  return () => {
    try {
      if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  };
}
