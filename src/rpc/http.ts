/**
 * A small HTTP/1.1 server on node:net for the RPC services: what the epee-based servers of monerod
 * and monero-wallet-rpc speak (contrib/epee/include/net/http_protocol_handler.inl), without the
 * generality of node:http. An RPC answer here is one parse of a short head, one handler call and
 * one socket write, which takes a fraction of node:http's per-request cost (IncomingMessage and
 * ServerResponse streams, header objects, per-request timers).
 *
 * What it speaks:
 * - HTTP/1.0 and 1.1 requests, keep-alive (1.1 by default, 1.0 with `Connection: keep-alive`),
 *   `Connection: close`, pipelining (answers in order; the next request is parsed once the current
 *   answer is written);
 * - bodies by Content-Length or `Transfer-Encoding: chunked` (trailers ignored), `Expect:
 *   100-continue`;
 * - answers as epee writes them: `HTTP/1.1 200 Ok`, `Server: Epee-based`, Content-Length,
 *   Content-Type, Last-Modified, `Accept-Ranges: bytes`, then extra headers; HEAD gets no body.
 *
 * What it refuses (then closes the connection, as node:http does): a head over `maxHeaderBytes`
 * (431), a malformed request line or header, a bad Content-Length or chunk size (400), a body over
 * `maxBodyBytes` (413, answered before the body is read when the length is declared), a request
 * not received within `requestTimeoutMs` (408). Idle keep-alive connections close after
 * `idleTimeoutMs`; over `maxConnections` in all or `maxConnectionsPerIp` from one address a new
 * connection is closed at once.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";

export interface HttpRequest {
  /** Upper-case method as sent (GET, POST, …). */
  readonly method: string;
  /** Request target as sent (path and query). */
  readonly url: string;
  /** Header values by lower-case name; repeated headers joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
  readonly remoteAddress: string;
  /** Aborted when the client goes away before its answer is written, or the server closes. */
  readonly signal: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  /** Content-Type. */
  type: string;
  body: Uint8Array | string;
  headers?: Record<string, string | string[]>;
  /** Close the connection after this answer. */
  close?: boolean;
}

export type HttpHandler = (req: HttpRequest) => Promise<HttpAnswer> | HttpAnswer;

export interface HttpServerOptions {
  /** Largest body accepted, bytes. */
  maxBodyBytes: number;
  /** Largest request head (request line + headers), bytes. Default 16 KiB, node:http's. */
  maxHeaderBytes?: number;
  /** Time allowed to receive a whole request (head + body), ms, from its first byte. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this, ms. */
  idleTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  /** The body of a 413 answer. */
  tooLargeText: (limit: number) => string;
  /** Where handler failures are reported (they answer 500). */
  log: (msg: string) => void;
  /**
   * Takes each accepted socket before HTTP is spoken on it and hands `ready` the socket to speak
   * it on (e.g. a TLS socket: src/rpc/tls.ts), or closes it. Absent: plain HTTP.
   */
  accept?: (socket: Socket, ready: (s: Socket) => void) => void;
}

/** Reason phrases as epee writes them (http_server_handlers_map2.h, http_auth.cpp). */
const REASONS: Record<number, string> = {
  100: "Continue",
  200: "Ok",
  400: "Bad request",
  401: "Unauthorized",
  404: "Not found",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
};

const CRLFCRLF = Buffer.from("\r\n\r\n", "latin1");
const CONTINUE = Buffer.from("HTTP/1.1 100 Continue\r\n\r\n", "latin1");
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KNOWN_HEADERS = new Set(["host", "content-type", "content-length", "connection", "accept", "user-agent", "authorization", "accept-encoding", "expect", "transfer-encoding"]);
const METHOD = /^[A-Z]+$/;
/** Bodies up to this size are copied into the head's buffer: one write, one syscall. */
const COPY_LIMIT = 64 * 1024;

let dateSecond = -1;
let dateText = "";
/** Last-Modified's value (epee writes the current time), rendered once a second. */
function httpDate(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(s * 1000).toUTCString();
  }
  return dateText;
}

/** A request's abort signal, made only when a handler asks for it (most never do). */
class Lifetime {
  private ac: AbortController | undefined;
  private gone = false;

  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.gone) this.ac.abort();
    }
    return this.ac.signal;
  }

  end(): void {
    if (this.gone) return;
    this.gone = true;
    this.ac?.abort();
  }
}

/** A request head that did not parse: answered with `status`, then the connection closes. */
class HeadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Head {
  method: string;
  url: string;
  minor: number;
  headers: Map<string, string>;
  keepAlive: boolean;
  /** Body length when given by Content-Length; undefined for chunked. */
  length: number | undefined;
  chunked: boolean;
  expectContinue: boolean;
}

/** "METHOD SP target SP HTTP/1.x": method, target, minor version; undefined when malformed. */
function requestLine(line: string): { method: string; url: string; minor: number } | undefined {
  const sp1 = line.indexOf(" ");
  const sp2 = line.lastIndexOf(" ");
  if (sp1 <= 0 || sp2 <= sp1 + 1 || sp2 !== line.length - 9 || !line.startsWith("HTTP/1.", sp2 + 1)) return undefined;
  const minorCode = line.charCodeAt(line.length - 1);
  if (minorCode !== 0x30 && minorCode !== 0x31) return undefined;
  const method = line.slice(0, sp1);
  const url = line.slice(sp1 + 1, sp2);
  if (!METHOD.test(method) || url.includes(" ")) return undefined;
  return { method, url, minor: minorCode - 0x30 };
}

function parseHead(text: string): Head {
  let eol = text.indexOf("\r\n");
  if (eol < 0) eol = text.length;
  const m = requestLine(text.slice(0, eol));
  if (!m) throw new HeadError(400, "malformed request line");
  const headers = new Map<string, string>();
  let pos = eol + 2;
  while (pos < text.length) {
    let end = text.indexOf("\r\n", pos);
    if (end < 0) end = text.length;
    const colon = text.indexOf(":", pos);
    if (colon <= pos || colon > end) throw new HeadError(400, "malformed header line");
    const name = text.slice(pos, colon).toLowerCase();
    if (!KNOWN_HEADERS.has(name) && !TOKEN.test(name)) throw new HeadError(400, "malformed header name");
    const value = text.slice(colon + 1, end).trim();
    const prev = headers.get(name);
    headers.set(name, prev === undefined ? value : `${prev}, ${value}`);
    pos = end + 2;
  }
  const minor = m.minor;
  const connection = (headers.get("connection") ?? "").toLowerCase();
  const keepAlive = minor === 1 ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  const te = headers.get("transfer-encoding");
  let chunked = false;
  let length: number | undefined = 0;
  if (te !== undefined) {
    const codings = te.toLowerCase().split(",").map((s) => s.trim());
    if (codings[codings.length - 1] !== "chunked") throw new HeadError(400, "unsupported Transfer-Encoding");
    chunked = true;
    length = undefined;
  } else {
    const cl = headers.get("content-length");
    if (cl !== undefined) {
      // repeated identical values are allowed (RFC 9110 §8.6); anything else is not a length
      const parts = cl.split(",").map((s) => s.trim());
      if (!parts.every((p) => /^\d{1,15}$/.test(p) && p === parts[0])) throw new HeadError(400, "bad Content-Length");
      length = Number(parts[0]);
    }
  }
  const expectContinue = (headers.get("expect") ?? "").toLowerCase() === "100-continue";
  return { method: m.method, url: m.url, minor, headers, keepAlive, length, chunked, expectContinue };
}

/**
 * Decodes a chunked body from `buf` at `pos`: the body and where the request ends, "more" when
 * the buffer does not hold all of it yet. Throws HeadError on a malformed chunk or a body over `max`.
 */
function readChunked(buf: Buffer, pos: number, max: number): { body: Buffer; end: number } | "more" {
  const parts: Buffer[] = [];
  let size = 0;
  for (;;) {
    const eol = buf.indexOf("\r\n", pos, "latin1");
    if (eol < 0) {
      if (buf.length - pos > 1024) throw new HeadError(400, "malformed chunk size");
      return "more";
    }
    const sizeText = buf.toString("latin1", pos, eol).split(";")[0].trim();
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new HeadError(400, "malformed chunk size");
    const n = parseInt(sizeText, 16);
    if (size + n > max) throw new HeadError(413, "body too large");
    if (n === 0) {
      // trailers up to an empty line
      let p = eol + 2;
      for (;;) {
        const e = buf.indexOf("\r\n", p, "latin1");
        if (e < 0) return "more";
        if (e === p) return { body: parts.length === 1 ? parts[0] : Buffer.concat(parts), end: e + 2 };
        p = e + 2;
      }
    }
    const start = eol + 2;
    if (buf.length < start + n + 2) {
      // the received part counts against the limit already
      if (size + (buf.length - start) > max) throw new HeadError(413, "body too large");
      return "more";
    }
    if (buf[start + n] !== 0x0d || buf[start + n + 1] !== 0x0a) throw new HeadError(400, "malformed chunk");
    parts.push(buf.subarray(start, start + n));
    size += n;
    pos = start + n + 2;
  }
}

/** One client connection: bytes in, requests parsed one at a time, answers out in order. */
class Connection {
  private buf: Buffer = Buffer.alloc(0);
  /** A handler is running (or its answer is being written): parsing waits. */
  private busy = false;
  private closed = false;
  private head: Head | undefined;
  private headEnd = 0;
  private continued = false;
  private timer: NodeJS.Timeout | undefined;
  private timerKind: "idle" | "request" | undefined;
  private life: Lifetime | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly server: HttpServer,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (d: Buffer) => this.onData(d));
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.onClose());
    socket.on("end", () => this.onEnd());
    this.arm("idle");
  }

  private arm(kind: "idle" | "request" | undefined): void {
    if (this.timerKind === kind) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerKind = kind;
    if (kind === undefined || this.closed) return;
    const o = this.server.options;
    this.timer = setTimeout(
      () => {
        if (kind === "request") this.fail(408, "request not received in time");
        else this.destroy();
      },
      kind === "idle" ? o.idleTimeoutMs : o.requestTimeoutMs,
    );
    this.timer.unref();
  }

  private onData(d: Buffer): void {
    if (this.closed) return;
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    if (this.busy) {
      // pipelined bytes wait; a client flooding us while we answer is paused
      if (this.buf.length > this.server.options.maxBodyBytes + 65536) this.socket.pause();
      return;
    }
    this.parse();
  }

  private onEnd(): void {
    // the client half-closed: answer what is in progress, then close
    if (!this.busy) this.destroy();
  }

  private onClose(): void {
    this.closed = true;
    this.arm(undefined);
    this.life?.end();
  }

  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.arm(undefined);
    this.life?.end();
    this.socket.destroy();
  }

  /** Answers an unparseable or refused request, then closes. */
  private fail(status: number, why: string): void {
    if (this.closed) return;
    this.busy = true;
    const body = status === 413 ? this.server.options.tooLargeText(this.server.options.maxBodyBytes) : `${why}\n`;
    this.write({ status, type: "text/plain", body, close: true }, false);
  }

  private parse(): void {
    while (!this.closed && !this.busy) {
      if (this.buf.length === 0) {
        this.arm("idle");
        return;
      }
      this.arm("request");
      const o = this.server.options;
      if (!this.head) {
        const end = this.buf.indexOf(CRLFCRLF);
        if (end < 0) {
          if (this.buf.length > (o.maxHeaderBytes ?? 16384)) this.fail(431, "request head too large");
          return;
        }
        if (end > (o.maxHeaderBytes ?? 16384)) return this.fail(431, "request head too large");
        try {
          this.head = parseHead(this.buf.toString("latin1", 0, end));
        } catch (e) {
          return this.fail(e instanceof HeadError ? e.status : 400, e instanceof Error ? e.message : "bad request");
        }
        this.headEnd = end + 4;
        this.continued = false;
        if (this.head.length !== undefined && this.head.length > o.maxBodyBytes) return this.fail(413, "body too large");
      }
      const head = this.head;
      let body: Buffer;
      let end: number;
      if (head.chunked) {
        let r: ReturnType<typeof readChunked>;
        try {
          r = readChunked(this.buf, this.headEnd, o.maxBodyBytes);
        } catch (e) {
          return this.fail(e instanceof HeadError ? e.status : 400, e instanceof Error ? e.message : "bad request");
        }
        if (r === "more") return this.askContinue(head);
        body = r.body;
        end = r.end;
      } else {
        end = this.headEnd + (head.length ?? 0);
        if (this.buf.length < end) return this.askContinue(head);
        body = this.buf.subarray(this.headEnd, end);
      }
      this.buf = end === this.buf.length ? Buffer.alloc(0) : this.buf.subarray(end);
      this.head = undefined;
      this.dispatch(head, body);
    }
  }

  private askContinue(head: Head): void {
    if (head.expectContinue && !this.continued) {
      this.continued = true;
      this.socket.write(CONTINUE);
    }
  }

  private dispatch(head: Head, body: Buffer): void {
    this.busy = true;
    this.arm(undefined);
    const life = new Lifetime();
    this.life = life;
    const req: HttpRequest = {
      method: head.method,
      url: head.url,
      headers: head.headers,
      body,
      remoteAddress: this.socket.remoteAddress ?? "",
      get signal() {
        return life.signal;
      },
    };
    let answer: Promise<HttpAnswer> | HttpAnswer;
    try {
      answer = this.server.handler(req);
    } catch (e) {
      answer = Promise.reject(e);
    }
    const done = (a: HttpAnswer): void => {
      this.life = undefined;
      if (this.closed) return;
      this.write(head.keepAlive ? a : { ...a, close: true }, head.method === "HEAD");
    };
    if (answer instanceof Promise) {
      answer.then(done, (e: unknown) => {
        this.server.options.log(`rpc: ${e instanceof Error ? e.message : String(e)}`);
        done({ status: 500, type: "text/plain", body: "", close: true });
      });
    } else done(answer);
  }

  private write(a: HttpAnswer, headOnly: boolean): void {
    const text = typeof a.body === "string";
    const length = text ? Buffer.byteLength(a.body as string, "utf8") : a.body.length;
    // epee closes the connection after every 500
    const close = a.close === true || a.status === 500;
    let head = `HTTP/1.1 ${a.status} ${REASONS[a.status] ?? "Unknown"}\r\nServer: Epee-based\r\nContent-Length: ${length}\r\nContent-Type: ${a.type}\r\nLast-Modified: ${httpDate()}\r\nAccept-Ranges: bytes\r\n`;
    if (close) head += "Connection: close\r\n";
    if (a.headers) {
      for (const [k, v] of Object.entries(a.headers)) {
        for (const one of Array.isArray(v) ? v : [v]) head += `${k}: ${one}\r\n`;
      }
    }
    head += "\r\n";
    const s = this.socket;
    if (headOnly || length === 0) s.write(head, "latin1");
    else if (text) s.write(head + (a.body as string), "utf8");
    else if (length <= COPY_LIMIT) {
      const out = Buffer.allocUnsafe(head.length + length);
      out.write(head, 0, "latin1");
      out.set(a.body as Uint8Array, head.length);
      s.write(out);
    } else {
      s.cork();
      s.write(head, "latin1");
      s.write(a.body as Uint8Array);
      s.uncork();
    }
    if (close) {
      this.closed = true;
      this.arm(undefined);
      s.end();
      // a client that never reads must not keep the socket forever
      setTimeout(() => s.destroy(), 5000).unref();
      return;
    }
    this.busy = false;
    if (s.readableEnded) {
      // the client half-closed while we answered: flush, then close
      this.closed = true;
      s.end();
      return;
    }
    if (s.isPaused()) s.resume();
    this.parse();
  }
}

export class HttpServer {
  private readonly net: Server;
  private readonly perIp = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly conns = new Set<Connection>();

  constructor(
    readonly options: HttpServerOptions,
    readonly handler: HttpHandler,
  ) {
    this.net = createServer({ noDelay: true }, (s) => this.onConnection(s));
  }

  private onConnection(s: Socket): void {
    const ip = s.remoteAddress ?? "?";
    const mine = this.perIp.get(ip) ?? 0;
    if (this.sockets.size >= this.options.maxConnections || mine >= this.options.maxConnectionsPerIp) {
      s.destroy();
      return;
    }
    this.sockets.add(s);
    this.perIp.set(ip, mine + 1);
    let c: Connection | undefined;
    const start = (t: Socket): void => {
      if (s.destroyed) return;
      c = new Connection(t, this);
      this.conns.add(c);
    };
    s.once("close", () => {
      if (c) this.conns.delete(c);
      this.sockets.delete(s);
      const left = (this.perIp.get(ip) ?? 1) - 1;
      if (left <= 0) this.perIp.delete(ip);
      else this.perIp.set(ip, left);
    });
    if (this.options.accept) this.options.accept(s, start);
    else start(s);
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.net.once("error", reject);
      this.net.listen(port, host, () => {
        this.net.off("error", reject);
        resolve(this.net.address() as AddressInfo);
      });
    });
  }

  /** Stops listening and closes every connection (running handlers see their signal aborted). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.net.close(() => resolve());
      for (const c of this.conns) c.destroy();
      // sockets still in a TLS handshake have no Connection yet
      for (const s of this.sockets) s.destroy();
    });
  }

  get connections(): number {
    return this.sockets.size;
  }
}
