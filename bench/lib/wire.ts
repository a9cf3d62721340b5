/**
 * What the daemons' answers cost as seen on the wire: a tcpdump capture on loopback during a bench,
 * read back as request/answer exchanges per TCP connection to each server port. An exchange's
 * turnaround is from the last segment of a request (client → server, with data) to the first
 * segment of its answer (server → client, with data): the server's whole share of a call —
 * waking up, reading, TLS, the handler, writing — without the client's, and with no proxy in the
 * way (bench/lib/trace-proxy.ts adds a hop). Works on TLS as well: it reads only sizes and times.
 *
 * Needs tcpdump and the right to capture (root, or CAP_NET_RAW); `startCapture` says why not otherwise.
 * Linux loopback only (`-i lo`).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WireExchange {
  /** Epoch ms of the request's last data segment. */
  requestAt: number;
  /** Epoch ms of the answer's first data segment. */
  answerAt: number;
  requestBytes: number;
  answerBytes: number;
  /** Data segments the request came in (epee's HTTP client writes a head and a body apart). */
  requestSegments: number;
}

export interface WireCapture {
  /** Stops the capture and reads it: exchanges per server port, in time order per connection. */
  stop(): Promise<Map<number, WireExchange[]>>;
}

/** tcpdump's line for a TCP segment with `-tt -n -q`: time, source, destination, payload bytes. */
const SEGMENT = /^(\d+\.\d+) IP6? (\S+)\.(\d+) > (\S+)\.(\d+): tcp (\d+)/;

/** Starts capturing the TCP traffic of `ports` on loopback; a reason instead when it cannot. */
export async function startCapture(ports: readonly number[]): Promise<WireCapture | string> {
  try {
    execFileSync("tcpdump", ["--version"], { stdio: "ignore" });
  } catch {
    return "no tcpdump (Debian package tcpdump)";
  }
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-wire-"));
  const file = join(dir, "capture.pcap");
  const filter = ports.map((p) => `tcp port ${p}`).join(" or ");
  // 96 bytes a packet: the headers are enough, the sizes come from the IP length
  const proc: ChildProcess = spawn("tcpdump", ["-i", "lo", "-s", "96", "-U", "-w", file, filter], { stdio: ["ignore", "ignore", "pipe"] });
  const ready = await new Promise<string | undefined>((resolve) => {
    let err = "";
    const done = (why: string | undefined): void => {
      proc.stderr?.removeAllListeners("data");
      resolve(why);
    };
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      if (err.includes("listening on")) done(undefined);
    });
    proc.once("exit", (code) => done(`tcpdump exited (${code}): ${err.trim().split("\n").pop() ?? ""}`));
    setTimeout(() => done(`tcpdump did not start in 5 s: ${err.trim()}`), 5000).unref();
  });
  if (ready !== undefined) {
    proc.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    return ready;
  }
  return {
    async stop() {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGINT");
      await exited;
      try {
        const text = execFileSync("tcpdump", ["-r", file, "-tt", "-n", "-q"], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
        return readExchanges(text, ports);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Exchanges per server port from tcpdump's `-tt -n -q` text (exported for its test). */
export function readExchanges(text: string, ports: readonly number[]): Map<number, WireExchange[]> {
  const servers = new Set(ports);
  // each connection's exchange in progress: answered once its answerAt is set
  const open = new Map<string, WireExchange>();
  const out = new Map<number, WireExchange[]>(ports.map((p) => [p, []]));
  for (const line of text.split("\n")) {
    const m = SEGMENT.exec(line);
    if (!m) continue;
    const bytes = Number(m[6]);
    if (bytes === 0) continue; // ACKs, SYNs, FINs
    const at = Number(m[1]) * 1000;
    const [src, srcPort, dst, dstPort] = [m[2], Number(m[3]), m[4], Number(m[5])];
    const toServer = servers.has(dstPort);
    if (!toServer && !servers.has(srcPort)) continue;
    const port = toServer ? dstPort : srcPort;
    const key = toServer ? `${src}:${srcPort}>${port}` : `${dst}:${dstPort}>${port}`;
    let cur = open.get(key);
    if (toServer) {
      if (!cur || cur.answerAt > 0) open.set(key, (cur = { requestAt: at, answerAt: 0, requestBytes: 0, answerBytes: 0, requestSegments: 0 }));
      cur.requestAt = at;
      cur.requestBytes += bytes;
      cur.requestSegments++;
    } else if (cur) {
      if (cur.answerAt === 0) {
        cur.answerAt = at;
        out.get(port)?.push(cur);
      }
      cur.answerBytes += bytes;
    }
  }
  return out;
}
