/**
 * Files that say "this process owns that": pid locks (tsmonerod.pid, a wallet's .NAME.lock) and
 * the wallet RPC's login file. Their owner keeps each one open for its whole life, so that after a
 * SIGKILL, or when a dead owner's pid has been reused by another program, the next start can tell
 * a live owner from a stale file: on Linux a file is held when some process has it open
 * (/proc/<pid>/fd), which is what monero-wallet-rpc's flock() on its login file tells it too.
 * Without /proc, a pid lock is held while its pid runs, and a login file is never held.
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, unlinkSync, writeSync } from "node:fs";
import { resolve } from "node:path";

/** The file is held by a live process that has it open. */
export class LockHeldError extends Error {
  override name = "LockHeldError";
  constructor(
    message: string,
    readonly path: string,
    readonly pid: number | undefined,
  ) {
    super(message);
  }
}

export interface HeldFile {
  readonly path: string;
  /** Closes and removes the file (once). */
  release(): void;
}

const PROC = "/proc";

function hasProc(): boolean {
  try {
    readdirSync(`${PROC}/self/fd`);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether process `pid` has `file` (an absolute, resolved path) open: true, false, or undefined
 * when that cannot be seen (no /proc, or another user's process).
 */
function processHolds(pid: number, file: string): boolean | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`${PROC}/${pid}/fd`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? false : undefined;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`${PROC}/${pid}/fd/${fd}`) === file) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** Processes other than this one that have `file` open (Linux; empty without /proc). */
function holders(file: string): number[] {
  if (!hasProc()) return [];
  const out: number[] = [];
  for (const name of readdirSync(PROC)) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    if (processHolds(pid, file) === true) out.push(pid);
  }
  return out;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function holdOpen(path: string, fd: number): HeldFile {
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
      try {
        closeSync(fd);
      } catch {
        // closed
      }
    },
  };
}

/**
 * Takes `path` as a pid lock: created exclusively, this pid written, kept open until release().
 * An existing lock is taken over (with a line to `log` saying why) when its pid does not run, or
 * runs but does not hold the file open (a reused pid; a process of another program). Throws
 * LockHeldError when a live process holds it; `what` names the lock in messages ("the chain in …").
 */
export function acquirePidLock(path: string, what: string, log: (msg: string) => void): HeldFile {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      return holdOpen(path, fd);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8").trim();
    } catch {
      continue; // removed meanwhile
    }
    const pid = Number(text);
    let why: string;
    if (!/^\d+$/.test(text) || pid <= 0) why = `it holds no pid (${JSON.stringify(text.slice(0, 20))})`;
    else if (pid === process.pid) why = "it names this process";
    else if (!alive(pid)) why = `its process ${pid} no longer runs`;
    else {
      const holds = hasProc() ? processHolds(pid, realPath(path)) : undefined;
      if (holds !== false) throw new LockHeldError(`${what} is in use by process ${pid} (lock ${path})`, path, pid);
      why = `process ${pid} runs but does not hold it (its pid was reused)`;
    }
    log(`taking over the stale lock ${path}: ${why}`);
    try {
      unlinkSync(path);
    } catch {
      // removed meanwhile
    }
  }
  throw new LockHeldError(`cannot lock ${path}: it keeps being recreated`, path, undefined);
}

/**
 * Creates `path` (mode 0600) with `content` and keeps it open until release(), as monero-wallet-rpc
 * does with its login file. An existing file no live process holds open (left by a SIGKILL) is
 * replaced, with a line to `log`; one a live process holds throws LockHeldError.
 */
export function createOwnedFile(path: string, content: string, log: (msg: string) => void): HeldFile {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, content);
      return holdOpen(path, fd);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const by = holders(realPath(path));
    if (by.length > 0) throw new LockHeldError(`${path} is held by process ${by[0]}`, path, by[0]);
    log(`replacing the stale ${path} left by a process that no longer runs`);
    try {
      unlinkSync(path);
    } catch {
      // removed meanwhile
    }
  }
  throw new LockHeldError(`cannot create ${path}: it keeps being recreated`, path, undefined);
}
