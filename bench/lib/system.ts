/** A one-line description of the machine a benchmark ran on. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";

/** The "model name" line of a /proc/cpuinfo text, or undefined. */
export function cpuModelFromCpuinfo(text: string): string | undefined {
  const m = /^model name\s*:\s*(.+)$/m.exec(text);
  return m ? m[1].trim() : undefined;
}

/** CPU model (from /proc/cpuinfo, else os.cpus()). */
export function cpuModel(): string {
  try {
    const m = cpuModelFromCpuinfo(readFileSync("/proc/cpuinfo", "utf8"));
    if (m) return m;
  } catch {
    // not Linux: fall through
  }
  return cpus()[0]?.model?.trim() || "unknown CPU";
}

/** e.g. "AMD EPYC (2 logical cores), Node v20.19.5, linux x64". */
export function machineLine(): string {
  const n = availableParallelism();
  return `${cpuModel()} (${n} logical core${n === 1 ? "" : "s"}), Node ${process.version}, ${process.platform} ${process.arch}`;
}

/** Resident set now (VmRSS) and at peak (VmHWM) of process `pid`, in MiB; zeros once it is gone. */
export function processRssMiB(pid: number | undefined): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const mib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
    return { now: mib("VmRSS"), peak: mib("VmHWM") };
  } catch {
    return { now: 0, peak: 0 };
  }
}

let clockTicks: number | undefined;
/** Clock ticks per second of /proc's CPU times (getconf CLK_TCK; 100 when it cannot say). */
function clkTck(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU time so far of process `pid`, all its threads (user + system, ms), and its major page faults, from /proc/PID/stat; undefined once it is gone. */
export function processStat(pid: number | undefined): { cpuMs: number; majorFaults: number } | undefined {
  if (pid === undefined) return undefined;
  let f: string;
  try {
    f = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // the fields after "(comm) " (comm may hold spaces and parentheses): majflt is [9], utime [11], stime [12] (proc(5): 12, 14, 15)
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return { cpuMs: ((Number(rest[11]) + Number(rest[12])) * 1000) / clkTck(), majorFaults: Number(rest[9]) };
}

