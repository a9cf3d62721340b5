/**
 * One Levin connection over a node:net socket (epee's levin_protocol_handler_async): frames in and
 * out, invokes (a request that waits for the response of the same command, in order, with a
 * timeout), notifications, and the packet limits (256 KiB before the handshake, 100 MB after).
 * Messages are handled one at a time in arrival order, so a peer's blocks apply in the order sent.
 * A malformed or oversized frame closes the connection and reports why (`misbehaved`).
 */
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { FormatError } from "../../codec/reader.js";
import {
  LEVIN_DEFAULT_MAX_PACKET_SIZE,
  LEVIN_HEADER_SIZE,
  LEVIN_INITIAL_MAX_PACKET_SIZE,
  LEVIN_PACKET_BEGIN,
  LEVIN_PACKET_END,
  LEVIN_PACKET_REQUEST,
  LEVIN_PACKET_RESPONSE,
  LEVIN_PROTOCOL_VER_1,
  parseLevinHeader,
  serializeLevinMessage,
} from "../../codec/levin.js";

/** What a request handler answers: a response (for invokes) or nothing (notifications). */
export interface LevinReply {
  returnCode: number;
  body: Uint8Array;
}

export type RequestHandler = (command: number, body: Uint8Array, expectsResponse: boolean) => Promise<LevinReply | undefined>;

/** The peer broke the protocol; the connection is closed. */
export class LevinProtocolError extends Error {
  override readonly name = "LevinProtocolError";
}

interface Pending {
  resolve: (r: LevinReply) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class LevinConnection extends EventEmitter {
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, Pending[]>();
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  maxPacketSize = LEVIN_INITIAL_MAX_PACKET_SIZE;
  bytesIn = 0;
  bytesOut = 0;
  /** ms timestamps. */
  readonly startedAt = Date.now();
  lastRecv = Date.now();
  lastSend = Date.now();
  /** Fragments of a LEVIN_PACKET_BEGIN..END message being reassembled. */
  private fragments: Buffer[] | undefined;

  constructor(
    readonly socket: Socket,
    readonly inbound: boolean,
    private readonly handler: RequestHandler,
  ) {
    super();
    socket.setNoDelay(true);
    socket.on("data", (d: Buffer) => this.onData(d));
    socket.on("error", (e) => this.close(e.message));
    socket.on("close", () => this.close("socket closed"));
  }

  get remoteHost(): string {
    const a = this.socket.remoteAddress ?? "";
    return a.startsWith("::ffff:") ? a.slice(7) : a;
  }
  get remotePort(): number {
    return this.socket.remotePort ?? 0;
  }
  get localPort(): number {
    return this.socket.localPort ?? 0;
  }
  get isClosed(): boolean {
    return this.closed;
  }

  /** Raises the packet limit once the handshake is done. */
  handshakeDone(): void {
    this.maxPacketSize = LEVIN_DEFAULT_MAX_PACKET_SIZE;
  }

  private write(b: Uint8Array): void {
    if (this.closed) return;
    this.bytesOut += b.length;
    this.lastSend = Date.now();
    this.socket.write(b);
  }

  /** A request that expects a response (levin invoke). Rejects on timeout, close, or a negative return code. */
  invoke(command: number, body: Uint8Array, timeoutMs: number): Promise<LevinReply> {
    if (this.closed) return Promise.reject(new Error("connection closed"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const list = this.pending.get(command);
        const i = list?.findIndex((p) => p.timer === timer) ?? -1;
        if (list && i >= 0) list.splice(i, 1);
        reject(new Error(`no response to command ${command} within ${timeoutMs} ms`));
      }, timeoutMs);
      const list = this.pending.get(command) ?? [];
      list.push({ resolve, reject, timer });
      this.pending.set(command, list);
      this.write(serializeLevinMessage({ haveToReturnData: true, command, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: LEVIN_PROTOCOL_VER_1 }, body));
    });
  }

  notify(command: number, body: Uint8Array): void {
    this.write(serializeLevinMessage({ haveToReturnData: false, command, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: LEVIN_PROTOCOL_VER_1 }, body));
  }

  private respond(command: number, r: LevinReply): void {
    this.write(serializeLevinMessage({ haveToReturnData: false, command, returnCode: r.returnCode, flags: LEVIN_PACKET_RESPONSE, protocolVersion: LEVIN_PROTOCOL_VER_1 }, r.body));
  }

  private onData(d: Buffer): void {
    if (this.closed) return;
    this.bytesIn += d.length;
    this.lastRecv = Date.now();
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    try {
      for (;;) {
        if (this.buf.length < LEVIN_HEADER_SIZE) break;
        const h = parseLevinHeader(this.buf, this.maxPacketSize);
        const end = LEVIN_HEADER_SIZE + h.cb;
        if (this.buf.length < end) break;
        const body = this.buf.subarray(LEVIN_HEADER_SIZE, end);
        this.buf = this.buf.subarray(end);
        // levin fragments (noise): BEGIN starts, END finishes; the joined bytes are one whole message
        if (h.flags & (LEVIN_PACKET_BEGIN | LEVIN_PACKET_END) && !(h.flags & (LEVIN_PACKET_REQUEST | LEVIN_PACKET_RESPONSE))) {
          if (h.flags & LEVIN_PACKET_BEGIN) this.fragments = [];
          if (!this.fragments) throw new LevinProtocolError("levin fragment without a beginning");
          this.fragments.push(Buffer.from(body));
          const total = this.fragments.reduce((n, f) => n + f.length, 0);
          if (total > this.maxPacketSize) throw new LevinProtocolError(`fragmented message over ${this.maxPacketSize} bytes`);
          if (h.flags & LEVIN_PACKET_END) {
            const whole = Buffer.concat(this.fragments);
            this.fragments = undefined;
            this.buf = this.buf.length === 0 ? whole : Buffer.concat([whole, this.buf]);
          }
          continue;
        }
        if (h.flags & LEVIN_PACKET_RESPONSE) {
          const p = this.pending.get(h.command)?.shift();
          if (!p) continue; // a late answer to an invoke that timed out
          clearTimeout(p.timer);
          if (h.returnCode < 0) p.reject(new Error(`peer answered command ${h.command} with error ${h.returnCode}`));
          else p.resolve({ returnCode: h.returnCode, body: new Uint8Array(body) });
          continue;
        }
        const copy = new Uint8Array(body);
        const expects = h.haveToReturnData;
        this.queue = this.queue.then(async () => {
          if (this.closed) return;
          try {
            const r = await this.handler(h.command, copy, expects);
            if (expects) this.respond(h.command, r ?? { returnCode: -6, body: new Uint8Array(0) });
          } catch (e) {
            this.misbehave(e instanceof Error ? e.message : String(e));
          }
        });
      }
    } catch (e) {
      this.misbehave(e instanceof FormatError || e instanceof LevinProtocolError ? e.message : String(e));
    }
  }

  /** Closes the connection because the peer broke the protocol (reported as `misbehaved`). */
  misbehave(reason: string): void {
    if (this.closed) return;
    this.emit("misbehaved", reason);
    this.close(reason);
  }

  close(reason = "closed"): void {
    if (this.closed) return;
    this.closed = true;
    for (const list of this.pending.values())
      for (const p of list) {
        clearTimeout(p.timer);
        p.reject(new Error(`connection closed: ${reason}`));
      }
    this.pending.clear();
    this.socket.destroy();
    this.emit("close", reason);
  }
}
