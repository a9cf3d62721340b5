/**
 * Sends recorded HTTP requests again, byte for byte, to a daemon over one keep-alive connection and
 * times each answer: the real-wallet bench's --replay, which puts the same requests (recorded from
 * the real wallet by the trace proxy) to tsmonerod and to monerod, so a per-call row compares the
 * same work with nothing of the wallet's own time in it.
 */
import { connect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";

/** One keep-alive connection; `send` writes a whole request and resolves at its answer's last byte. */
export class ReplayConnection {
  private readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  /** The daemon (or we) closed it: open another (epee closes a keep-alive connection idle for a while). */
  closed = false;
  private waiting?: { resolve: (a: { status: number; bytes: number }) => void; reject: (e: Error) => void };

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on("data", (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.check();
    });
    const fail = (e: Error) => {
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(e);
    };
    socket.on("error", fail);
    socket.on("close", () => {
      this.closed = true;
      fail(new Error("replay: the daemon closed the connection"));
    });
  }

  /** `tls`: over TLS as a wallet with --daemon-ssl autodetect talks to either daemon (any certificate accepted). */
  static open(port: number, tls = false): Promise<ReplayConnection> {
    return new Promise((resolve, reject) => {
      const s = tls
        ? tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false }, () => resolve(new ReplayConnection(s)))
        : connect(port, "127.0.0.1", () => resolve(new ReplayConnection(s)));
      s.once("error", reject);
    });
  }

  /** The request's Host header is left as recorded: neither daemon checks it. */
  send(request: Buffer): Promise<{ status: number; bytes: number }> {
    if (this.waiting) return Promise.reject(new Error("replay: one request at a time"));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private check(): void {
    const end = this.buf.indexOf("\r\n\r\n");
    if (end < 0 || !this.waiting) return;
    const head = this.buf.toString("latin1", 0, end);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    const len = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!len) {
      this.waiting.reject(new Error(`replay: an answer without Content-Length: ${head.slice(0, 200)}`));
      this.waiting = undefined;
      return;
    }
    const total = end + 4 + Number(len[1]);
    if (this.buf.length < total) return;
    this.buf = this.buf.subarray(total);
    const w = this.waiting;
    this.waiting = undefined;
    w.resolve({ status, bytes: total });
  }
}
