/**
 * A logging TCP proxy for the real-wallet bench's --trace: it forwards bytes unchanged between a
 * client (the real monero-wallet-rpc) and a daemon, and records per connection the alternating
 * bursts of bytes — a client burst is a request, the server burst after it its answer. What it
 * measures works for TLS too (it never decrypts): per exchange, the time from the request's last
 * byte to the answer's last byte (the daemon's share, plus the proxy's own hop on both sides), the
 * bytes each way, and when a connection opens and closes. Plain HTTP requests are also named
 * (path, and the JSON-RPC method when the body is JSON); TLS exchanges stay unnamed ("tls").
 */
import { createServer, type Server, type Socket, connect } from "node:net";

export interface Exchange {
  conn: number;
  /** "POST /json_rpc get_info", "POST /get_blocks.bin", "tls", "tls handshake", … */
  name: string;
  /** ms since the proxy started: first and last byte of the request, first and last byte of the answer */
  reqStart: number;
  reqEnd: number;
  resStart: number;
  resEnd: number;
  reqBytes: number;
  resBytes: number;
  /** The request's bytes as sent (plain HTTP only, up to 4 MB): what --replay sends again */
  request?: Buffer;
}

export interface ConnEvent {
  conn: number;
  at: number;
  what: "open" | "client closed" | "server closed";
}

export class TraceProxy {
  readonly exchanges: Exchange[] = [];
  readonly events: ConnEvent[] = [];
  private readonly server: Server;
  private readonly t0 = performance.now();
  private next = 0;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly target: number) {
    this.server = createServer((c) => this.accept(c));
  }

  now(): number {
    return performance.now() - this.t0;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => resolve());
    });
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }

  /** What was recorded since `mark` (a `now()`), then forgotten by the caller's choice. */
  since(mark: number): { exchanges: Exchange[]; events: ConnEvent[] } {
    return { exchanges: this.exchanges.filter((e) => e.reqStart >= mark), events: this.events.filter((e) => e.at >= mark) };
  }

  private accept(client: Socket): void {
    const conn = ++this.next;
    const server = connect(this.target, "127.0.0.1");
    client.setNoDelay(true);
    server.setNoDelay(true);
    this.sockets.add(client);
    this.sockets.add(server);
    this.events.push({ conn, at: this.now(), what: "open" });
    let tls: boolean | undefined;
    let cur: Exchange | undefined;
    let reqText = "";
    let index = 0;
    const onClient = (d: Buffer): void => {
      const t = this.now();
      if (tls === undefined) tls = d[0] === 0x16;
      if (!cur || cur.resBytes > 0) {
        // a new request: the previous exchange (if any) is complete
        cur = { conn, name: "", reqStart: t, reqEnd: t, resStart: 0, resEnd: 0, reqBytes: 0, resBytes: 0 };
        reqText = "";
        index++;
        this.exchanges.push(cur);
      }
      cur.reqEnd = t;
      cur.reqBytes += d.length;
      // a TLS connection's first two exchanges are its handshake (TLS 1.3 may carry the first request in the second)
      if (tls) cur.name = index <= 2 ? `tls exchange ${index}` : "tls";
      else {
        if (reqText.length < 4096) {
          reqText += d.toString("latin1", 0, Math.min(d.length, 4096));
          cur.name = nameOf(reqText);
        }
        if (cur.reqBytes <= MAX_KEPT) cur.request = cur.request ? Buffer.concat([cur.request, d]) : Buffer.from(d);
      }
    };
    const onServer = (d: Buffer): void => {
      const t = this.now();
      if (!cur) return;
      if (cur.resBytes === 0) cur.resStart = t;
      cur.resEnd = t;
      cur.resBytes += d.length;
    };
    client.on("data", (d: Buffer) => {
      onClient(d);
      server.write(d);
    });
    server.on("data", (d: Buffer) => {
      onServer(d);
      client.write(d);
    });
    client.on("end", () => {
      this.events.push({ conn, at: this.now(), what: "client closed" });
      server.end();
    });
    server.on("end", () => {
      this.events.push({ conn, at: this.now(), what: "server closed" });
      client.end();
    });
    const gone = (): void => {
      this.sockets.delete(client);
      this.sockets.delete(server);
      client.destroy();
      server.destroy();
    };
    client.on("error", gone);
    server.on("error", gone);
    client.on("close", gone);
    server.on("close", gone);
  }
}

const MAX_KEPT = 4 << 20;

function nameOf(text: string): string {
  const line = text.slice(0, text.indexOf("\r\n") >>> 0);
  const [method, path] = line.split(" ");
  if (!path) return "?";
  const m = /"method"\s*:\s*"([^"]+)"/.exec(text);
  return m ? `${path} ${m[1]}` : `${method === "POST" ? "" : `${method} `}${path}`;
}

export interface CallRow {
  name: string;
  count: number;
  /** total ms from the request's last byte to the answer's last byte */
  totalMs: number;
  maxMs: number;
  resBytes: number;
}

/** Exchanges summed by name, in order of first appearance. */
export function byName(exchanges: readonly Exchange[]): CallRow[] {
  const rows = new Map<string, CallRow>();
  for (const e of exchanges) {
    let r = rows.get(e.name);
    if (!r) rows.set(e.name, (r = { name: e.name, count: 0, totalMs: 0, maxMs: 0, resBytes: 0 }));
    const ms = e.resBytes > 0 ? e.resEnd - e.reqEnd : 0;
    r.count++;
    r.totalMs += ms;
    r.maxMs = Math.max(r.maxMs, ms);
    r.resBytes += e.resBytes;
  }
  return [...rows.values()];
}
