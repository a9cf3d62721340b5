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
 *   answer is written); lines may end in CRLF or a bare LF and up to 8 CR/LF bytes may precede a
 *   request line, as epee reads them;
 * - bodies by Content-Length or `Transfer-Encoding: chunked` (trailers read and dropped),
 *   `Expect: 100-continue`;
 * - answers as epee writes them: `HTTP/1.1 200 Ok`, `Server: Epee-based`, Content-Length,
 *   Content-Type, Last-Modified, `Accept-Ranges: bytes`, then extra headers; HEAD gets no body.
 *
 * Parsing is incremental and linear: a head is searched from where the last search stopped, body
 * bytes (Content-Length or chunk data) are copied once into a buffer that doubles, and only a
 * partial head or line is kept between reads.
 *
 * Backpressure: while a handler runs, or while the answers written to a connection and not yet
 * taken by its socket exceed `maxQueuedAnswers` / `maxQueuedBytes`, the connection parses nothing;
 * past 64 KiB of input held meanwhile its socket is paused, so a client that pipelines without
 * reading is held back by TCP instead of growing our memory. A client that reads nothing for
 * `idleTimeoutMs` while answers wait is dropped.
 *
 * What it refuses (then closes the connection, as node:http does): a head over `maxHeaderBytes`
 * (431), chunked trailers over `maxHeaderBytes` (431), a malformed request line or header, a bad
 * Content-Length or chunk size (400), a Transfer-Encoding other than plain `chunked` (501), a body
 * over `maxBodyBytes` — chunk data and trailers counted together — (413, answered before the body
 * is read when the length is declared), a request not received within `requestTimeoutMs` of its
 * first byte (408). Idle keep-alive connections close after `idleTimeoutMs`; over
 * `maxConnections` in all or `maxConnectionsPerIp` from one address a new connection is closed at
 * once.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { quickAck } from "./quick-ack.js";

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
  /** Content-Type; "" writes none (epee's OPTIONS answer). */
  type: string;
  /** Bytes, text (written as UTF-8), or text in parts written one after the other (a long JSON answer). */
  body: Uint8Array | string | readonly string[];
  headers?: Record<string, string | string[]>;
  /** Reason phrase instead of epee's usual one for the status (epee answers OPTIONS "200 OK", others "200 Ok"). */
  reason?: string;
  /** Close the connection after this answer. */
  close?: boolean;
  /**
   * A streamed answer (Server-Sent Events): the head is written without Content-Length, `body` is
   * ignored, and `stream` gets the sink to write to until it ends it or the client goes away; the
   * connection then closes (no keep-alive after a stream).
   */
  stream?: (sink: StreamSink) => void;
}

/** Where a streamed answer writes. */
export interface StreamSink {
  /** Writes text; false once the connection is gone. A client that leaves more than 8 MiB unread is dropped. */
  write(text: string): boolean;
  /** Ends the answer and closes the connection. */
  end(): void;
  /** Called once when the connection closes (client gone, end(), server closed). */
  onClose(f: () => void): void;
}

/**
 * Answers after which a plain connection whose requests never came split (head, then body) stops
 * forcing the ACK: while the server reads fast, an epee client's head and body can arrive in one
 * read, so a split shows only on some requests; one that came split turns it back on for good.
 */
const QUICK_ACK_FIRST_ANSWERS = 8;

const STREAM_MAX_UNREAD = 8 * 1024 * 1024;

export type HttpHandler = (req: HttpRequest) => Promise<HttpAnswer> | HttpAnswer;

export interface HttpServerOptions {
  /** Largest body accepted, bytes. */
  maxBodyBytes: number;
  /** Largest request head (request line + headers), bytes. Default 16 KiB, node:http's. */
  maxHeaderBytes?: number;
  /** Time allowed to receive a whole request (head + body), ms, from its first byte. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections of remote peers are closed after this, ms; also how long a client that reads no answer is kept. */
  idleTimeoutMs: number;
  /**
   * Idle keep-alive connections of loopback and private-network peers are closed after this, ms
   * (epee: 30 min local, 5 min remote; wallet2 keeps its connection to the node open between
   * refreshes and fails a call on one the server closed). Default: idleTimeoutMs.
   */
  idleTimeoutLocalMs?: number;
  maxConnections: number;
  /** Open connections from one loopback or private-network address (epee's per-private-IP limit). */
  maxConnectionsPerIp: number;
  /** Open connections from one public address (epee's per-public-IP limit); default maxConnectionsPerIp. */
  maxConnectionsPerPublicIp?: number;
  /** A connection from an address this refuses is closed at once (monerod: banned hosts, through its P2P layer's filter). */
  allowConnection?: (ip: string) => boolean;
  /**
   * Answers written to a connection but not yet taken by its socket, by count and bytes: past
   * either bound the connection reads and parses nothing more until they are down to half.
   * Defaults 32 answers, 1 MiB (one bigger answer is always written whole).
   */
  maxQueuedAnswers?: number;
  maxQueuedBytes?: number;
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
  405: "Method Not Allowed",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
};

const EMPTY = Buffer.alloc(0);
const CONTINUE = Buffer.from("HTTP/1.1 100 Continue\r\n\r\n", "latin1");
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const KNOWN_HEADERS = new Set(["host", "content-type", "content-length", "connection", "accept", "user-agent", "authorization", "accept-encoding", "expect", "transfer-encoding"]);
const METHOD = /^[A-Z]+$/;
/** Bodies up to this size are copied into the head's buffer: one write, one syscall. */
const COPY_LIMIT = 64 * 1024;
/** Input kept for a connection whose parsing is held before its socket is paused. */
const INPUT_HIGH_WATER = 64 * 1024;
/** Defaults of the per-connection output bounds (HttpServerOptions.maxQueuedAnswers/Bytes). */
const DEFAULT_MAX_QUEUED_ANSWERS = 32;
const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024;

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

/** A request as handlers see it (a class: a getter in an object literal is slow to create per request). */
class IncomingRequest implements HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyMap<string, string>;

  constructor(
    head: Head,
    readonly body: Buffer,
    readonly remoteAddress: string,
    private readonly life: Lifetime,
  ) {
    this.method = head.method;
    this.url = head.url;
    this.headers = head.headers;
  }

  get signal(): AbortSignal {
    return this.life.signal;
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

/** One line of a head, without its CR: lines end in CRLF or, as epee also reads them, a bare LF. */
function lineEnd(text: string, from: number): { end: number; next: number } {
  const lf = text.indexOf("\n", from);
  if (lf < 0) return { end: text.length, next: text.length };
  return { end: lf > from && text.charCodeAt(lf - 1) === 0x0d ? lf - 1 : lf, next: lf + 1 };
}

/** Parses a request head (`text` without the empty line that ends it). */
function parseHead(text: string): Head {
  const first = lineEnd(text, 0);
  const m = requestLine(text.slice(0, first.end));
  if (!m) throw new HeadError(400, "malformed request line (expected METHOD /path HTTP/1.1)");
  const headers = new Map<string, string>();
  let pos = first.next;
  while (pos < text.length) {
    const { end, next } = lineEnd(text, pos);
    const colon = text.indexOf(":", pos);
    if (colon <= pos || colon > end) throw new HeadError(400, "malformed header line (expected Name: value)");
    const name = text.slice(pos, colon).toLowerCase();
    if (!KNOWN_HEADERS.has(name) && !TOKEN.test(name)) throw new HeadError(400, "malformed header name");
    const value = text.slice(colon + 1, end).trim();
    const prev = headers.get(name);
    headers.set(name, prev === undefined ? value : `${prev}, ${value}`);
    pos = next;
  }
  const minor = m.minor;
  const connection = (headers.get("connection") ?? "").toLowerCase();
  const keepAlive = minor === 1 ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  const te = headers.get("transfer-encoding");
  let chunked = false;
  let length: number | undefined = 0;
  if (te !== undefined) {
    // only plain chunked is decoded; gzip, deflate, … would need decompressing (RFC 9112 §6.1: 501)
    if (te.trim().toLowerCase() !== "chunked")
      throw new HeadError(501, `Transfer-Encoding "${te.slice(0, 64)}" is not supported: send the body with Content-Length or as plain chunked`);
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
 * Where a head ends in `buf`, searching from `from`: the index after its empty line (CRLF CRLF, or
 * LF LF as epee also accepts) and the head's own length, or -1 with where to search next time.
 */
function headEnd(buf: Buffer, from: number): { end: number; length: number } | { end: -1; next: number } {
  let i = buf.indexOf(0x0a, from);
  while (i >= 0) {
    if (i + 1 >= buf.length) return { end: -1, next: i };
    if (buf[i + 1] === 0x0a) return { end: i + 2, length: i > 0 && buf[i - 1] === 0x0d ? i - 1 : i };
    if (buf[i + 1] === 0x0d) {
      if (i + 2 >= buf.length) return { end: -1, next: i };
      if (buf[i + 2] === 0x0a) return { end: i + 3, length: i > 0 && buf[i - 1] === 0x0d ? i - 1 : i };
    }
    i = buf.indexOf(0x0a, i + 1);
  }
  return { end: -1, next: Math.max(from, buf.length - 1) };
}

/** A body being received: appended in pieces, copied once into a buffer that doubles (linear time). */
class BodySink {
  private buf: Buffer = EMPTY;
  length = 0;

  /** Appends `b`; the buffer never grows past `cap` (the declared length or the body limit). */
  append(b: Buffer, cap: number): void {
    if (b.length === 0) return;
    if (this.length + b.length > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.length + b.length, Math.min(cap, Math.max(this.buf.length * 2, 4096))));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    b.copy(this.buf, this.length);
    this.length += b.length;
  }

  take(): Buffer {
    const out = this.buf.subarray(0, this.length);
    this.buf = EMPTY;
    this.length = 0;
    return out;
  }
}

/**
 * Where the parser of a connection is: reading a head, a Content-Length body, or a chunked body
 * (a size line, chunk data, the CRLF after it, trailer lines).
 */
type Phase = "head" | "body" | "size" | "data" | "dataEnd" | "trailer";

/** Longest chunk-size line (with extensions). */
const MAX_CHUNK_LINE = 1024;
/** epee's HTTP_MAX_STARTING_NEWLINES: CR/LF bytes allowed before a request line. */
const MAX_STARTING_NEWLINES = 8;

/**
 * One client connection: bytes in, requests parsed one at a time, answers out in order.
 *
 * Input is parsed as it arrives and never re-read: only a partial head or line is kept between
 * reads, and body bytes are appended once. While a handler runs, or while the answers written but
 * not yet taken by the socket exceed the output bounds, the connection parses nothing; what
 * arrives meanwhile is kept up to `INPUT_HIGH_WATER` bytes, then the socket is paused (TCP pushes
 * back on the client). Parsing resumes when the handler answers and the socket has drained.
 */
/** epee's is_loopback() || is_local(): 127/8, ::1, 10/8, 172.16/12, 192.168/16, fc00::/7, fe80::/10. */
export function isLocalAddress(address: string): boolean {
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(a);
  if (m) {
    const [x, y] = [Number(m[1]), Number(m[2])];
    return x === 127 || x === 10 || (x === 172 && y >= 16 && y <= 31) || (x === 192 && y === 168);
  }
  const v6 = a.toLowerCase();
  return v6 === "::1" || /^f[cd][0-9a-f]{2}:/.test(v6) || /^fe[89ab][0-9a-f]:/.test(v6);
}

/** The per-IP connection bound for `ip`: epee's private limit for loopback and private networks, else the public one. */
export function connectionLimitFor(ip: string, perPrivateIp: number, perPublicIp: number): number {
  return isLocalAddress(ip) ? perPrivateIp : perPublicIp;
}

class Connection {
  /** Unparsed input: a partial head, or a partial line of a chunked body. */
  private buf: Buffer = EMPTY;
  /** Input received while parsing is held (handler running or output over its bounds). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** A handler is running: parsing waits. */
  private busy = false;
  /** Answers written but not yet taken by the socket are over their bounds: parsing waits. */
  private draining = false;
  /** Inside parse(): an answer written synchronously must not start a nested parse. */
  private parsing = false;
  private closed = false;
  private phase: Phase = "head";
  private head: Head | undefined;
  /** Where the next search for the head's end starts (nothing is searched twice). */
  private headScan = 0;
  private newlines = 0;
  private readonly sink = new BodySink();
  private chunkLeft = 0;
  private trailerBytes = 0;
  private continued = false;
  /** Answers handed to the socket and not yet flushed to the kernel: count and bytes. */
  private unsent = 0;
  private unsentBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerKind: "idle" | "request" | "drain" | undefined;
  private life: Lifetime | undefined;
  /** The peer is on loopback or a private network (epee's m_local). */
  private readonly local: boolean;
  /** The peer's address, read once (node:net asks the kernel on first use). */
  private readonly remote: string;
  /**
   * Plain TCP, not TLS: epee's TLS client turns Nagle off (ssl_options_t::configure), its plain
   * client does not, so only plain connections need an ACK forced after each answer.
   */
  private readonly plain: boolean;
  /**
   * A request's body has come after its head, not with it: the client writes them apart, as epee's
   * plain client does (Nagle on), so its next body waits for the ACK of its next head. Only then is
   * the ACK forced after each answer: a client that writes a request at once (curl, browsers, Node's
   * http) never waits for one, and the setsockopt would be a system call per answer for nothing.
   */
  private splitsRequests = false;
  /** Answers written so far (the first few always force the ACK: a split may not show at once). */
  private answers = 0;

  constructor(
    private readonly socket: Socket,
    private readonly server: HttpServer,
  ) {
    this.remote = socket.remoteAddress ?? "";
    this.local = isLocalAddress(this.remote);
    this.plain = (socket as Socket & { encrypted?: boolean }).encrypted !== true;
    socket.setNoDelay(true);
    // a new TCP connection starts out acknowledging at once; after a TLS handshake it may not, and
    // setting the option also sends an ACK already pending for what arrived first (quick-ack.ts)
    quickAck(socket);
    socket.on("data", (d: Buffer) => this.onData(d));
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.onClose());
    socket.on("end", () => this.onEnd());
    this.arm("idle");
  }

  /** Bytes this connection holds: unparsed input, a body being received, answers not yet sent. */
  get heldBytes(): number {
    return this.buf.length + this.pendingBytes + this.sink.length + this.unsentBytes;
  }

  private arm(kind: "idle" | "request" | "drain" | undefined): void {
    if (this.timerKind === kind) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerKind = kind;
    if (kind === undefined || this.closed) return;
    const o = this.server.options;
    this.timer = setTimeout(
      () => {
        if (kind === "request") this.fail(408, "request not received in time");
        else this.destroy(); // idle, or a client that does not read its answers
      },
      kind === "request" ? o.requestTimeoutMs : kind === "idle" && this.local ? (o.idleTimeoutLocalMs ?? o.idleTimeoutMs) : o.idleTimeoutMs,
    );
    this.timer.unref();
  }

  private onData(d: Buffer): void {
    if (this.closed) return;
    if (this.busy || this.draining) {
      // pipelined bytes wait; past the bound the socket stops reading until we catch up
      this.pending.push(d);
      this.pendingBytes += d.length;
      if (this.pendingBytes > INPUT_HIGH_WATER) this.socket.pause();
      return;
    }
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    this.parse();
  }

  private onEnd(): void {
    // the client half-closed: answer what is in progress, then close
    if (!this.busy && !this.draining) this.finishEnded();
  }

  /** The client sent its last byte: close once nothing complete is left to answer. */
  private finishEnded(): void {
    if (this.closed) return;
    this.closed = true;
    this.arm(undefined);
    this.life?.end();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 5000).unref();
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

  /** A streamed answer: the head, then whatever the stream writes, until either side closes. */
  private writeStream(a: HttpAnswer, stream: (sink: StreamSink) => void): void {
    const s = this.socket;
    const type = a.type === "" ? "" : `Content-Type: ${a.type}\r\n`;
    let head = `HTTP/1.1 ${a.status} ${a.reason ?? REASONS[a.status] ?? "Unknown"}\r\nServer: Epee-based\r\n${type}Cache-Control: no-cache\r\nConnection: close\r\n`;
    for (const [k, v] of Object.entries(a.headers ?? {})) for (const one of Array.isArray(v) ? v : [v]) head += `${k}: ${one}\r\n`;
    s.write(`${head}\r\n`, "latin1");
    // no timers while streaming: the stream lives until the client or the stream ends it; requests
    // pipelined behind it are never answered (busy stays true)
    this.arm(undefined);
    const closers: (() => void)[] = [];
    let gone = false;
    const close = (): void => {
      if (gone) return;
      gone = true;
      for (const f of closers) f();
    };
    s.once("close", close);
    stream({
      write: (text) => {
        if (gone || s.destroyed) return false;
        if (s.writableLength > STREAM_MAX_UNREAD) {
          this.server.options.log(`http: dropping a stream to ${s.remoteAddress ?? "?"}: more than ${STREAM_MAX_UNREAD} bytes unread`);
          this.destroy();
          return false;
        }
        s.write(text, "utf8");
        return true;
      },
      end: () => {
        this.closed = true;
        s.end();
        setTimeout(() => s.destroy(), 5000).unref();
      },
      onClose: (f) => {
        if (gone) f();
        else closers.push(f);
      },
    });
  }

  /** Answers an unparseable or refused request, then closes. */
  private fail(status: number, why: string): void {
    if (this.closed) return;
    this.busy = true;
    const body = status === 413 ? this.server.options.tooLargeText(this.server.options.maxBodyBytes) : `${why}\n`;
    this.write({ status, type: "text/plain", body, close: true }, false);
  }

  private parse(): void {
    if (this.parsing) return;
    this.parsing = true;
    try {
      this.parseLoop();
    } finally {
      this.parsing = false;
    }
  }

  private parseLoop(): void {
    const o = this.server.options;
    const maxHead = o.maxHeaderBytes ?? 16384;
    while (!this.closed && !this.busy && !this.draining) {
      if (this.buf.length === 0) {
        if (this.phase === "head") {
          if (this.socket.readableEnded) return this.finishEnded();
          this.arm("idle");
        } else this.askContinue();
        return;
      }
      this.arm("request");
      const buf = this.buf;
      switch (this.phase) {
        case "head": {
          if (this.headScan === 0 && (buf[0] === 0x0d || buf[0] === 0x0a)) {
            // epee skips a few line breaks before a request line (some clients end bodies with CRLF)
            let k = 0;
            while (k < buf.length && (buf[k] === 0x0d || buf[k] === 0x0a)) k++;
            this.newlines += k;
            if (this.newlines > MAX_STARTING_NEWLINES) return this.fail(400, "too many empty lines before the request line");
            this.buf = buf.subarray(k);
            continue;
          }
          const found = headEnd(buf, this.headScan);
          if (found.end < 0) {
            if (buf.length > maxHead) return this.fail(431, `request head over ${maxHead} bytes`);
            this.headScan = (found as { next: number }).next;
            return;
          }
          const { end, length } = found as { end: number; length: number };
          if (length > maxHead) return this.fail(431, `request head over ${maxHead} bytes`);
          let head: Head;
          try {
            head = parseHead(buf.toString("latin1", 0, length));
          } catch (e) {
            return this.fail(e instanceof HeadError ? e.status : 400, e instanceof Error ? e.message : "bad request");
          }
          this.buf = buf.subarray(end);
          this.headScan = 0;
          this.head = head;
          this.continued = false;
          if (head.chunked) {
            this.phase = "size";
            this.trailerBytes = 0;
            continue;
          }
          const n = head.length ?? 0;
          if (n > o.maxBodyBytes) return this.fail(413, "body too large");
          if (this.buf.length >= n) {
            // the whole body is here already: no copy
            const body = this.buf.subarray(0, n);
            this.buf = this.buf.subarray(n);
            this.dispatch(body);
            continue;
          }
          this.phase = "body";
          this.splitsRequests = true;
          continue;
        }
        case "body": {
          const need = (this.head?.length ?? 0) - this.sink.length;
          const take = Math.min(need, buf.length);
          this.sink.append(buf.subarray(0, take), this.head?.length ?? 0);
          this.buf = buf.subarray(take);
          if (take === need) this.dispatch(this.sink.take());
          else this.askContinue();
          continue;
        }
        case "size": {
          const eol = buf.indexOf(0x0a);
          if (eol < 0) {
            if (buf.length > MAX_CHUNK_LINE) return this.fail(400, "malformed chunk size (line too long)");
            return this.askContinue();
          }
          const line = buf.toString("latin1", 0, eol > 0 && buf[eol - 1] === 0x0d ? eol - 1 : eol);
          const sizeText = line.split(";")[0].trim();
          if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) return this.fail(400, "malformed chunk size");
          const n = parseInt(sizeText, 16);
          if (this.sink.length + n > o.maxBodyBytes) return this.fail(413, "body too large");
          this.buf = buf.subarray(eol + 1);
          if (n === 0) this.phase = "trailer";
          else {
            this.chunkLeft = n;
            this.phase = "data";
          }
          continue;
        }
        case "data": {
          const take = Math.min(this.chunkLeft, buf.length);
          this.sink.append(buf.subarray(0, take), o.maxBodyBytes);
          this.chunkLeft -= take;
          this.buf = buf.subarray(take);
          if (this.chunkLeft === 0) this.phase = "dataEnd";
          continue;
        }
        case "dataEnd": {
          // the CRLF (or LF) after a chunk's data
          if (buf[0] === 0x0a) this.buf = buf.subarray(1);
          else if (buf[0] === 0x0d && buf.length < 2) return;
          else if (buf[0] === 0x0d && buf[1] === 0x0a) this.buf = buf.subarray(2);
          else return this.fail(400, "malformed chunk (no CRLF after its data)");
          this.phase = "size";
          continue;
        }
        case "trailer": {
          // trailer lines up to an empty one; they count against the trailer and body limits
          const eol = buf.indexOf(0x0a);
          const lineBytes = eol < 0 ? buf.length : eol + 1;
          if (this.trailerBytes + lineBytes > maxHead) return this.fail(431, `chunked trailers over ${maxHead} bytes`);
          if (this.sink.length + this.trailerBytes + lineBytes > o.maxBodyBytes) return this.fail(413, "body too large");
          if (eol < 0) return;
          this.buf = buf.subarray(eol + 1);
          if (eol === 0 || (eol === 1 && buf[0] === 0x0d)) this.dispatch(this.sink.take());
          else this.trailerBytes += lineBytes;
          continue;
        }
      }
    }
  }

  private askContinue(): void {
    if (this.head?.expectContinue && !this.continued) {
      this.continued = true;
      this.socket.write(CONTINUE);
    }
  }

  private dispatch(body: Buffer): void {
    const head = this.head as Head;
    this.head = undefined;
    this.phase = "head";
    this.newlines = 0;
    this.busy = true;
    this.arm(undefined);
    const life = new Lifetime();
    this.life = life;
    const req = new IncomingRequest(head, body, this.remote, life);
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
    if (a.stream && !headOnly) return this.writeStream(a, a.stream);
    let parts: readonly string[] | undefined;
    let length = 0;
    if (Array.isArray(a.body)) {
      if (a.body.length === 1) a = { ...a, body: a.body[0] as string };
      else {
        parts = a.body as readonly string[];
        for (const p of parts) length += Buffer.byteLength(p, "utf8");
      }
    }
    const text = typeof a.body === "string";
    if (!parts) length = text ? Buffer.byteLength(a.body as string, "utf8") : (a.body as Uint8Array).length;
    // epee closes the connection after every 500
    const close = a.close === true || a.status === 500;
    const type = a.type === "" ? "" : `Content-Type: ${a.type}\r\n`;
    let head = `HTTP/1.1 ${a.status} ${a.reason ?? REASONS[a.status] ?? "Unknown"}\r\nServer: Epee-based\r\nContent-Length: ${length}\r\n${type}Last-Modified: ${httpDate()}\r\nAccept-Ranges: bytes\r\n`;
    if (close) head += "Connection: close\r\n";
    if (a.headers) {
      for (const [k, v] of Object.entries(a.headers)) {
        for (const one of Array.isArray(v) ? v : [v]) head += `${k}: ${one}\r\n`;
      }
    }
    head += "\r\n";
    const s = this.socket;
    const bytes = head.length + (headOnly ? 0 : length);
    this.unsent++;
    this.unsentBytes += bytes;
    const flushed = (): void => this.onFlushed(bytes);
    if (headOnly || length === 0) s.write(head, "latin1", flushed);
    else if (parts) {
      // one writev: the head and each part, encoded by the stream as they are
      s.cork();
      s.write(head, "latin1");
      for (let k = 0; k < parts.length - 1; k++) s.write(parts[k], "utf8");
      s.write(parts[parts.length - 1], "utf8", flushed);
      s.uncork();
    } else if (text) s.write(head + (a.body as string), "utf8", flushed);
    else if (length <= COPY_LIMIT) {
      const out = Buffer.allocUnsafe(head.length + length);
      out.write(head, 0, "latin1");
      out.set(a.body as Uint8Array, head.length);
      s.write(out, flushed);
    } else {
      s.cork();
      s.write(head, "latin1");
      s.write(a.body as Uint8Array, flushed);
      s.uncork();
    }
    // epee's plain-HTTP client sends the next request's head and body in two writes with Nagle on:
    // ACK the head at once (quick-ack.ts)
    if (this.plain && (this.splitsRequests || ++this.answers <= QUICK_ACK_FIRST_ANSWERS)) quickAck(s);
    if (close) {
      this.closed = true;
      this.arm(undefined);
      s.end();
      // a client that never reads must not keep the socket forever
      setTimeout(() => s.destroy(), 5000).unref();
      return;
    }
    this.busy = false;
    const o = this.server.options;
    if (this.unsent > (o.maxQueuedAnswers ?? DEFAULT_MAX_QUEUED_ANSWERS) || this.unsentBytes > (o.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES)) {
      // the client does not read as fast as it asks: stop parsing (and reading) until it catches up
      this.draining = true;
      s.pause();
      this.arm("drain");
      return;
    }
    this.resumeInput();
  }

  /** An answer reached the kernel: resume parsing once the queue is back under half its bounds. */
  private onFlushed(bytes: number): void {
    this.unsent--;
    this.unsentBytes -= bytes;
    if (!this.draining || this.closed) return;
    const o = this.server.options;
    if (this.unsent <= (o.maxQueuedAnswers ?? DEFAULT_MAX_QUEUED_ANSWERS) / 2 && this.unsentBytes <= (o.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES) / 2) {
      this.draining = false;
      this.arm(undefined);
      this.resumeInput();
    }
  }

  /** Parsing may go on: take what arrived meanwhile, read again, parse. */
  private resumeInput(): void {
    if (this.pending.length > 0) {
      this.buf = Buffer.concat([this.buf, ...this.pending]);
      this.pending = [];
      this.pendingBytes = 0;
    }
    if (this.socket.isPaused()) this.socket.resume();
    this.parse();
  }
}

export class HttpServer {
  /** One listening socket per address (IPv4, IPv6), all feeding the same connections and limits. */
  private readonly nets: Server[] = [];
  private readonly perIp = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly conns = new Set<Connection>();

  constructor(
    readonly options: HttpServerOptions,
    readonly handler: HttpHandler,
  ) {}

  private onConnection(s: Socket): void {
    const ip = s.remoteAddress ?? "?";
    const mine = this.perIp.get(ip) ?? 0;
    const perIp = connectionLimitFor(ip, this.options.maxConnectionsPerIp, this.options.maxConnectionsPerPublicIp ?? this.options.maxConnectionsPerIp);
    if (this.sockets.size >= this.options.maxConnections || mine >= perIp || (this.options.allowConnection && !this.options.allowConnection(ip))) {
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

  /** Listens on one more address; may be called once per address (e.g. 127.0.0.1 and ::1). */
  listen(port: number, host: string): Promise<AddressInfo> {
    const net = createServer({ noDelay: true }, (s) => this.onConnection(s));
    return new Promise((resolve, reject) => {
      net.once("error", reject);
      net.listen(port, host, () => {
        net.off("error", reject);
        this.nets.push(net);
        resolve(net.address() as AddressInfo);
      });
    });
  }

  /** Stops listening and closes every connection (running handlers see their signal aborted). */
  async close(): Promise<void> {
    const closing = this.nets.map((n) => new Promise<void>((resolve) => n.close(() => resolve())));
    for (const c of this.conns) c.destroy();
    // sockets still in a TLS handshake have no Connection yet
    for (const s of this.sockets) s.destroy();
    await Promise.all(closing);
  }

  get connections(): number {
    return this.sockets.size;
  }

  /** Bytes held for all connections: unparsed input, bodies being received, answers not yet sent. */
  get heldBytes(): number {
    let n = 0;
    for (const c of this.conns) n += c.heldBytes;
    return n;
  }
}
