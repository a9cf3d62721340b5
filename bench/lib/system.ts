/** A one-line description of the machine a benchmark ran on. */
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
