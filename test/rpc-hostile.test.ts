/**
 * Hostile clients against the shared HTTP layer (rpc/http.ts) and RPC server (issue 14): pipelining
 * without reading, huge chunked bodies, endless trailers, exotic Transfer-Encodings, LF-only heads,
 * numbers a double cannot hold. Real servers on port 0, raw sockets.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { HttpServer, type HttpServerOptions } from "../src/rpc/http.js";
import { parseJson } from "../src/rpc/json.js";
import { MethodTable } from "../src/rpc/methods.js";
import { object, u32 } from "../src/rpc/schema.js";
import { RpcServer } from "../src/rpc/server.js";
import { startWalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/service.js";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => resolve(s));
    s.on("error", reject);
  });
}

/** Sends `data`, collects what comes back until the server closes or `waitMs` passes. */
async function exchange(port: number, data: string | Buffer, waitMs = 1500): Promise<{ text: string; closed: boolean; ms: number }> {
  const s = await openSocket(port);
  const t0 = Date.now();
  const chunks: Buffer[] = [];
  s.on("data", (c: Buffer) => chunks.push(c));
  const closed = new Promise<boolean>((r) => s.once("close", () => r(true)));
  s.write(data);
  const c = await Promise.race([closed, sleep(waitMs).then(() => false)]);
  s.destroy();
  return { text: Buffer.concat(chunks).toString("latin1"), closed: c, ms: Date.now() - t0 };
}

const PAD = "x".repeat(60_000);

function table(): MethodTable {
  return new MethodTable()
    .addJsonRpc({ name: "get_block_count", params: object({}, { arrayIsEmpty: true }), handler: () => ({ count: 1, status: "OK", untrusted: false }) })
    .addJsonRpc({ name: "big", params: object({ n: u32 }), handler: (p) => ({ n: p.n, pad: PAD, status: "OK" }) });
}

const rpcBody = (id: number | string, method = "get_block_count", params = "{}"): string => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;
const post = (b: string): string => `POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;

/** One GET's round trip on a fresh connection, ms. */
async function pingMs(port: number): Promise<number> {
  const t0 = performance.now();
  const r = await exchange(port, "GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n", 30_000);
  assert.match(r.text, /^HTTP\/1\.1 200 /);
  return performance.now() - t0;
}

describe("rpc/http: backpressure — a client pipelining without reading is held back", () => {
  let server: RpcServer;
  let port: number;
  before(async () => {
    server = new RpcServer({ methods: table(), log: () => undefined });
    port = (await server.listen(0)).port;
  });
  after(() => server.close());

  it("3,000 pipelined 60 KB answers (180 MB) are not queued: held bytes stay bounded, all answers come in order", async (t) => {
    const N = 3000;
    const reqs = Buffer.from(Array.from({ length: N }, (_, k) => post(rpcBody(k, "big", `{"n":${k}}`))).join(""));
    const rss0 = process.memoryUsage().rss;
    const s = await openSocket(port);
    s.pause(); // read nothing
    s.write(reqs);
    let maxHeld = 0;
    for (let k = 0; k < 15; k++) {
      await sleep(100);
      maxHeld = Math.max(maxHeld, server.heldBytes);
    }
    const grown = process.memoryUsage().rss - rss0;
    t.diagnostic(`held at most ${maxHeld} bytes, RSS +${(grown / 1048576).toFixed(1)} MiB`);
    // before the fix: the server parsed every request and queued ~180 MB of answers
    assert.ok(maxHeld < 4 * 1024 * 1024, `server held ${maxHeld} bytes for a client that does not read`);
    assert.ok(grown < 100 * 1024 * 1024, `RSS grew by ${(grown / 1048576).toFixed(0)} MiB`);
    // now read: every answer arrives, in order
    let seen = 0;
    let tail = "";
    let lastN = -1;
    let ordered = true;
    await new Promise<void>((resolve, reject) => {
      s.on("data", (c: Buffer) => {
        const text = tail + c.toString("latin1");
        const re = /"n": (\d+),/g;
        let m: RegExpExecArray | null;
        let lastEnd = 0;
        while ((m = re.exec(text))) {
          const n = Number(m[1]);
          if (n !== lastN + 1) ordered = false;
          lastN = n;
          seen++;
          lastEnd = re.lastIndex;
        }
        tail = text.slice(Math.max(lastEnd, text.length - 64));
        if (seen === N) resolve();
      });
      s.on("error", reject);
      s.resume();
    });
    s.destroy();
    assert.equal(seen, N);
    assert.ok(ordered, "answers in request order");
  });

  it("a client that reads nothing while its answers wait is dropped after the idle timeout", async () => {
    const srv = new RpcServer({ methods: table(), idleTimeoutMs: 400, log: () => undefined });
    const p = (await srv.listen(0)).port;
    try {
      const s = await openSocket(p);
      s.pause();
      s.on("error", () => undefined);
      s.write(Array.from({ length: 200 }, (_, k) => post(rpcBody(k, "big", `{"n":${k}}`))).join(""));
      await sleep(100);
      assert.equal(srv.connections, 1);
      const t0 = Date.now();
      while (srv.connections > 0 && Date.now() - t0 < 3000) await sleep(50);
      assert.equal(srv.connections, 0, "the stalled connection is closed");
      s.destroy();
    } finally {
      await srv.close();
    }
  });
});

describe("rpc/http: chunked bodies in linear time, bounded trailers, Transfer-Encoding, LF heads", () => {
  let server: HttpServer;
  let port: number;
  const options: HttpServerOptions = {
    maxBodyBytes: 64 * 1024 * 1024,
    requestTimeoutMs: 30_000,
    idleTimeoutMs: 30_000,
    maxConnections: 100,
    maxConnectionsPerIp: 100,
    tooLargeText: (l) => `over ${l}\n`,
    log: () => undefined,
  };
  before(async () => {
    server = new HttpServer(options, (req) => ({ status: 200, type: "text/plain", body: `${req.method} ${req.url} ${req.body.length}` }));
    port = (await server.listen(0, "127.0.0.1")).port;
  });
  after(() => server.close());

  it("a 32 MiB chunked body in 16 KiB chunks is decoded in linear time while others are answered", async (t) => {
    const MiB = 1024 * 1024;
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    const s = await openSocket(port);
    const answer = new Promise<string>((resolve) => {
      const got: Buffer[] = [];
      s.on("data", (c: Buffer) => {
        got.push(c);
        const t = Buffer.concat(got).toString("latin1");
        if (/\r\n\r\nPOST \S+ \d+$/.test(t)) resolve(t);
      });
    });
    const t0 = performance.now();
    let worstPing = 0;
    let sending = true;
    const pinger = (async () => {
      while (sending) {
        worstPing = Math.max(worstPing, await pingMs(port));
        await sleep(20);
      }
    })();
    s.write("POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (let sent = 0; sent < 32 * MiB; sent += chunk.length) {
      if (!s.write(frame)) await new Promise((r) => s.once("drain", r));
    }
    s.write("0\r\n\r\n");
    const text = await answer;
    const ms = performance.now() - t0;
    sending = false;
    await pinger;
    s.destroy();
    assert.match(text, new RegExp(`POST /upload ${32 * MiB}$`));
    t.diagnostic(`32 MiB chunked in ${ms.toFixed(0)} ms, worst ping ${worstPing.toFixed(0)} ms`);
    // before the fix: every read re-parsed the body from its start (8/16/32 MiB: 0.65/2.9/9.3 s)
    assert.ok(ms < 6000, `32 MiB chunked took ${ms.toFixed(0)} ms`);
    assert.ok(worstPing < 1000, `another client waited ${worstPing.toFixed(0)} ms`);
  });

  it("endless trailer lines are cut off at the head limit with 431, not buffered", async () => {
    const s = await openSocket(port);
    const got: Buffer[] = [];
    s.on("data", (c: Buffer) => got.push(c));
    const closed = new Promise<boolean>((r) => s.once("close", () => r(true)));
    s.on("error", () => undefined);
    s.write("POST /t HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n");
    const line = `X-Trailer: ${"t".repeat(1000)}\r\n`;
    const t0 = Date.now();
    let c = false;
    let maxHeld = 0;
    while (!c && Date.now() - t0 < 4000) {
      if (!s.destroyed) s.write(line);
      maxHeld = Math.max(maxHeld, server.heldBytes);
      c = await Promise.race([closed, sleep(2).then(() => false)]);
    }
    assert.equal(c, true, "the connection is closed");
    assert.match(Buffer.concat(got).toString("latin1"), /^HTTP\/1\.1 431 [\s\S]*chunked trailers over 16384 bytes/);
    assert.ok(maxHeld < 64 * 1024, `held ${maxHeld} bytes of trailers`);
  });

  it("chunk data and trailers count against one body limit", async () => {
    const small = new HttpServer({ ...options, maxBodyBytes: 1000 }, () => ({ status: 200, type: "text/plain", body: "ok" }));
    const p = (await small.listen(0, "127.0.0.1")).port;
    try {
      const data = "a".repeat(900);
      const r = await exchange(p, `POST /t HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${(900).toString(16)}\r\n${data}\r\n0\r\nX-A: ${"b".repeat(200)}\r\n\r\n`);
      assert.match(r.text, /^HTTP\/1\.1 413 /);
      assert.equal(r.closed, true);
      const ok = await exchange(p, `POST /t HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${(900).toString(16)}\r\n${data}\r\n0\r\nX-A: b\r\n\r\n`, 300);
      assert.match(ok.text, /^HTTP\/1\.1 200 /);
    } finally {
      await small.close();
    }
  });

  it("Transfer-Encoding other than plain chunked is refused with 501 (gzip, chunked is not decoded as chunked)", async () => {
    for (const te of ["gzip, chunked", "deflate", "identity", "chunked, chunked"]) {
      const r = await exchange(port, `POST /t HTTP/1.1\r\nTransfer-Encoding: ${te}\r\n\r\n2\r\n{}\r\n0\r\n\r\n`);
      assert.match(r.text, /^HTTP\/1\.1 501 Not Implemented\r\n/, te);
      assert.match(r.text, /Content-Length or as plain chunked/, te);
      assert.equal(r.closed, true, te);
    }
  });

  it("LF-only heads are answered at once, as monerod does (epee accepts \\n line ends)", async () => {
    const r = await exchange(port, "GET /lf HTTP/1.1\nHost: x\n\nPOST /lf2 HTTP/1.1\nContent-Length: 3\n\nabcGET /crlf HTTP/1.1\r\n\r\n", 400);
    assert.equal(r.closed, false);
    assert.deepEqual([...r.text.matchAll(/\r\n\r\n(\w+ \S+ \d+)/g)].map((m) => m[1]), ["GET /lf 0", "POST /lf2 3", "GET /crlf 0"]);
    // a few line breaks before a request line are skipped (epee: up to 8); more are refused
    const ok = await exchange(port, "\r\n\r\nGET /after-crlf HTTP/1.1\r\n\r\n", 300);
    assert.match(ok.text, /GET \/after-crlf 0$/);
    const bad = await exchange(port, `${"\r\n".repeat(20)}GET / HTTP/1.1\r\n\r\n`);
    assert.match(bad.text, /^HTTP\/1\.1 400 /);
  });

  it("a request split byte by byte still parses (nothing is searched twice)", async () => {
    const s = await openSocket(port);
    const got: Buffer[] = [];
    s.on("data", (c: Buffer) => got.push(c));
    const raw = "POST /bytes HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n";
    for (const ch of raw) {
      s.write(ch);
      await sleep(1);
    }
    await sleep(100);
    s.destroy();
    assert.match(Buffer.concat(got).toString("latin1"), /POST \/bytes 5$/);
  });
});

describe("rpc/server: numbers a double cannot hold (1e400) answer as monerod and monero-wallet-rpc do", () => {
  let server: RpcServer;
  let port: number;
  const logged: string[] = [];
  before(async () => {
    server = new RpcServer({ methods: table(), log: (m) => logged.push(m) });
    port = (await server.listen(0)).port;
  });
  after(() => server.close());

  const ask = async (b: string): Promise<{ status: string; json: Record<string, unknown>; closed: boolean }> => {
    const r = await exchange(port, post(b), 300);
    const [head, body] = r.text.split("\r\n\r\n");
    return { status: head.split("\r\n")[0], json: parseJson(body) as Record<string, unknown>, closed: r.closed };
  };

  it('"id": 1e400, -1e400, 1e-400 and a param of 1e400: 200, -32700 Parse error, id 0; the connection stays', async () => {
    for (const b of [rpcBody("1e400"), rpcBody("-1e400"), rpcBody("1e-400"), rpcBody(0, "big", `{"n":1e400}`), rpcBody("0.5e-999")]) {
      const a = await ask(b);
      assert.equal(a.status, "HTTP/1.1 200 Ok", b);
      const err = a.json.error as { code: number; message: string };
      assert.equal(err.code, -32700, b);
      assert.match(err.message, /^Parse error: number .* out of the range of a double/, b);
      assert.equal(a.json.id, 0, b);
      assert.equal(a.closed, false, b);
    }
    assert.deepEqual(logged, [], "nothing in the log");
  });
});

describe("wallet RPC: request and idle timeouts like the node's, 1e400 as monero-wallet-rpc answers", () => {
  let dir: string;
  let svc: WalletService;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-hostile-"));
    svc = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: { log2N: 10, r: 8, p: 1 }, autoRefreshPeriod: 0 });
  });
  after(async () => {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("defaults to the node's 30 s request timeout (was one hour) and epee's idle timeouts; a configured timeout answers a stalled head 408", async () => {
    const def = await startWalletRpc({ service: svc, port: 0 });
    try {
      // idle: epee's 5 min for remote peers, 30 min on loopback (wallet2 keeps its node connection open)
      assert.deepEqual({ ...def.server.limits, maxBodyBytes: 0 }, { maxBodyBytes: 0, requestTimeoutMs: 30_000, idleTimeoutMs: 300_000, idleTimeoutLocalMs: 1_800_000 });
    } finally {
      await def.close();
    }
    const quick = await startWalletRpc({ service: svc, port: 0, requestTimeoutMs: 300, idleTimeoutMs: 300 });
    try {
      const r = await exchange(quick.address.port, "POST /json_rpc HTTP/1.1\r\nContent-Le", 3000);
      assert.match(r.text, /^HTTP\/1\.1 408 /);
      assert.equal(r.closed, true);
      assert.ok(r.ms < 2000, `closed after ${r.ms} ms`);
      const idle = await exchange(quick.address.port, "", 3000);
      assert.equal(idle.closed, true, "an idle connection is closed");
      const a = await exchange(quick.address.port, post(rpcBody("1e400", "get_version")), 300);
      assert.match(a.text, /"code": -32700,\r\n {4}"message": "Parse error: number 1e400 out of the range of a double[\s\S]*"id": 0,/);
    } finally {
      await quick.close();
    }
  });
});
