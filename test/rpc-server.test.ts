/**
 * The shared RPC server over real HTTP on loopback (port 0): epee's JSON-RPC envelope answers,
 * exact u64, malformed input, plain and .bin paths, body limits, digest auth, restricted mode,
 * connection limits, slow clients and many parallel requests.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { decodeEpee, encodeEpee, object as epeeObject, text, u64 as epeeU64 } from "../src/codec/epee-map.js";
import { getOutputDistributionBinRequest } from "../src/client/messages.js";
import { getOutsBinRequest, getOutsBinResponse } from "../src/protocol/rpc-bin.js";
import { DigestClient } from "../src/rpc/digest.js";
import { CORE_RPC_ERROR, WALLET_RPC_ERROR } from "../src/rpc/error-codes.js";
import { type JsonWritable, parseJson, stringifyJson, stringifyJsonParts } from "../src/rpc/json.js";
import { MethodTable, RpcError, WALLET_RESTRICTED } from "../src/rpc/methods.js";
import { object, required, str, u32, u64, withDefault } from "../src/rpc/schema.js";
import { RpcServer, type RpcServerOptions } from "../src/rpc/server.js";

const U64_MAX = (1n << 64n) - 1n;
const logged: string[] = [];

function table(errors?: ConstructorParameters<typeof MethodTable>[0]): MethodTable {
  return new MethodTable(errors)
    .addJsonRpc({
      name: "get_block_count",
      aliases: ["getblockcount"],
      params: object({}, { arrayIsEmpty: true }),
      handler: () => ({ count: 1, status: "OK", untrusted: false }),
    })
    .addJsonRpc({
      name: "echo",
      params: object({ amount: required(u64), note: str, n: withDefault(u32, 7) }),
      handler: (p) => ({ amount: p.amount, doubled: p.amount * 2n, note: p.note, n: p.n, status: "OK" }),
    })
    .addJsonRpc({
      name: "too_big",
      params: object({ height: u64 }),
      handler: (p) => {
        throw new RpcError(CORE_RPC_ERROR.TOO_BIG_HEIGHT, `Requested block height: ${p.height} greater than current top block height: 0`);
      },
    })
    .addJsonRpc({
      name: "crash",
      params: object({}),
      handler: () => {
        throw new Error("secret internal detail /home/x/key");
      },
    })
    .addJsonRpc({
      name: "sleep",
      params: object({ ms: u32 }),
      handler: async (p) => {
        await new Promise((r) => setTimeout(r, p.ms));
        return { status: "OK" };
      },
    })
    .addJsonRpc({
      name: "long_list",
      params: object({ n: u32 }),
      // entries with non-ASCII notes, so parts cut in the middle of the text carry multi-byte characters
      handler: (p) => ({ entries: Array.from({ length: p.n }, (_, k) => ({ amount: BigInt(k) * 1_000_000_007n, note: k % 7 === 0 ? `é😀 ${k}` : `n/${k}` })), status: "OK" }),
    })
    .addJsonRpc({ name: "generateblocks", restricted: true, params: object({}), handler: () => ({ status: "OK" }) })
    .addJsonPath({
      path: "/get_height",
      aliases: ["/getheight"],
      params: object({}),
      handler: () => ({ hash: "00".repeat(32), height: U64_MAX, status: "OK", untrusted: false }),
    })
    .addJsonPath({ path: "/stop_daemon", restricted: true, params: object({}), handler: () => ({ status: "OK" }) })
    .addJsonPath({ path: "/typed", params: object({ height: required(u64) }), handler: (p) => ({ height: p.height, status: "OK" }) })
    .addBinPath({
      path: "/get_outs.bin",
      request: getOutsBinRequest,
      response: getOutsBinResponse,
      handler: (req) => ({
        status: "OK",
        untrusted: false,
        credits: 0n,
        top_hash: "",
        outs: req.outputs.map((o) => ({ key: new Uint8Array(32).fill(1), mask: new Uint8Array(32), unlocked: true, height: o.index, txid: new Uint8Array(32) })),
      }),
    });
}

async function start(opts: Partial<RpcServerOptions> = {}): Promise<{ server: RpcServer; port: number }> {
  const server = new RpcServer({ methods: table(), log: (m) => logged.push(m), ...opts });
  const { port } = await server.listen(0);
  return { server, port };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: string[];
  body: Buffer;
  text: string;
}

function http(port: number, path: string, body: string | Uint8Array = "", o: { method?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: o.method ?? "POST", agent: false, headers: { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), ...o.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const b = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: res.rawHeaders, body: b, text: b.toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * One raw JSON-RPC exchange: the body as written (malformed envelopes, ids, params of this test's own
 * table) and the whole envelope answered, HTTP status and content type checked; the server under
 * test serves no service map a typed client could use.
 */
const rpc = async (port: number, body: string): Promise<Record<string, unknown>> => {
  const a = await http(port, "/json_rpc", body);
  assert.equal(a.status, 200);
  assert.match(String(a.headers["content-type"]), /application\/json/);
  return parseJson(a.text) as Record<string, unknown>;
};

describe("rpc/server: JSON-RPC envelope (as epee answers)", () => {
  let s: { server: RpcServer; port: number };
  before(async () => {
    s = await start();
  });
  after(() => s.server.close());

  it("echoes the id whatever its type, 0 when absent or null", async () => {
    for (const [id, want] of [['"0"', "0"], ["7", 7], ["[1,2]", [1, 2]], ['{"a":1}', { a: 1 }], ["18446744073709551615", U64_MAX]] as const) {
      const r = await rpc(s.port, `{"jsonrpc":"2.0","id":${id},"method":"get_block_count"}`);
      assert.deepEqual(r, { id: want, jsonrpc: "2.0", result: { count: 1, status: "OK", untrusted: false } });
    }
    assert.equal((await rpc(s.port, `{"jsonrpc":"2.0","method":"getblockcount"}`)).id, 0);
    assert.equal((await rpc(s.port, `{"id":null,"method":"get_block_count"}`)).id, 0);
  });

  it("writes JSON as epee does: sorted keys, CRLF, 2-space indent, inline arrays, escaped '/'", async () => {
    const a = await http(s.port, "/json_rpc", `{"jsonrpc":"2.0","id":"0","method":"get_block_count"}`);
    assert.equal(a.text, '{\r\n  "id": "0",\r\n  "jsonrpc": "2.0",\r\n  "result": {\r\n    "count": 1,\r\n    "status": "OK",\r\n    "untrusted": false\r\n  }\r\n}');
    const e = await http(s.port, "/json_rpc", `{"id":[3,{"b":1,"a":"x/y"}],"method":"nope"}`);
    assert.equal(e.text, '{\r\n  "error": {\r\n    "code": -32601,\r\n    "message": "Method not found"\r\n  },\r\n  "id": [3,{\r\n    "a": "x\\/y",\r\n    "b": 1\r\n  }],\r\n  "jsonrpc": "2.0"\r\n}');
  });

  it("u64: 2^64-1 goes in and comes out exactly, as a bare number", async () => {
    const a = await http(s.port, "/json_rpc", `{"id":1,"method":"echo","params":{"amount":18446744073709551615}}`);
    assert.match(a.text, /"amount": 18446744073709551615,\r\n/);
    const r = parseJson(a.text) as { result: { amount: bigint; doubled: bigint } };
    assert.equal(r.result.amount, U64_MAX);
    assert.equal(r.result.doubled, U64_MAX * 2n);
  });

  it("writes a long answer in parts: the bytes of the whole text, its UTF-8 length as Content-Length", async () => {
    for (const n of [3, 5000]) {
      const a = await http(s.port, "/json_rpc", `{"id":1,"method":"long_list","params":{"n":${n}}}`);
      const want = stringifyJson({ id: 1, jsonrpc: "2.0", result: { entries: Array.from({ length: n }, (_, k) => ({ amount: BigInt(k) * 1_000_000_007n, note: k % 7 === 0 ? `é😀 ${k}` : `n/${k}` })), status: "OK" } }, { style: "epee" });
      assert.equal(a.text, want);
      assert.equal(Number(a.headers["content-length"]), Buffer.byteLength(want));
      // the long one really is written in parts
      if (n > 1000) assert.ok(stringifyJsonParts(parseJson(a.text) as JsonWritable, { style: "epee" }).length > 3);
    }
  });

  it("malformed JSON and batches answer -32700 Parse error with id 0", async () => {
    for (const body of ["{bad", "[1", `[{"id":1,"method":"get_block_count"}]`, `"str"`, "\u0000"]) {
      const r = await rpc(s.port, body);
      assert.equal(r.id, 0, body);
      assert.equal((r.error as { code: number }).code, -32700, body);
      assert.match((r.error as { message: string }).message, /^Parse error/, body);
    }
  });

  it("no method: -32600 Invalid Request (id 0, as epee); unknown: -32601 with the id", async () => {
    assert.deepEqual(await rpc(s.port, `{"id":5}`), { error: { code: -32600, message: "Invalid Request" }, id: 0, jsonrpc: "2.0" });
    assert.deepEqual(await rpc(s.port, `{"id":5,"method":12}`), { error: { code: -32600, message: "Invalid Request" }, id: 0, jsonrpc: "2.0" });
    assert.deepEqual(await rpc(s.port, `{"id":5,"method":"nope"}`), { error: { code: -32601, message: "Method not found" }, id: 5, jsonrpc: "2.0" });
  });

  it("wrong params: -32602 saying which field and what to send", async () => {
    const cases: [string, RegExp][] = [
      [`{}`, /^Invalid params: params\.amount: missing; send an unsigned 64-bit integer$/],
      [`{"amount":-1}`, /params\.amount: -1 is out of range/],
      [`{"amount":18446744073709551616}`, /out of range for an unsigned 64-bit integer/],
      [`{"amount":"ten"}`, /params\.amount: expected an unsigned 64-bit integer, found the string "ten"/],
      [`{"amount":1,"n":true}`, /params\.n: expected an unsigned 32-bit integer, found the boolean true/],
      [`7`, /params: expected an object, found the number 7/],
    ];
    for (const [params, re] of cases) {
      const r = await rpc(s.port, `{"id":"x","method":"echo","params":${params}}`);
      assert.equal(r.id, "x");
      const err = r.error as { code: number; message: string };
      assert.equal(err.code, -32602, params);
      assert.match(err.message, re, params);
    }
    // absent params: defaults, as epee; "params": [] for an object method is read as {}, as monerod does
    assert.equal(((await rpc(s.port, `{"id":1,"method":"get_block_count","params":[]}`)).result as { count: number }).count, 1);
    assert.deepEqual((await rpc(s.port, `{"id":1,"method":"echo","params":{"amount":"12"}}`)).result, { amount: 12, doubled: 24, note: "", n: 7, status: "OK" });
  });

  it("handler errors: RpcError passes code and message; anything else is -32603 without details", async () => {
    assert.deepEqual(await rpc(s.port, `{"id":1,"method":"too_big","params":{"height":9}}`), {
      error: { code: -2, message: "Requested block height: 9 greater than current top block height: 0" },
      id: 1,
      jsonrpc: "2.0",
    });
    const a = await http(s.port, "/json_rpc", `{"id":1,"method":"crash"}`);
    assert.deepEqual(parseJson(a.text), { error: { code: -32603, message: "Internal error" }, id: 1, jsonrpc: "2.0" });
    assert.doesNotMatch(a.text, /secret|home|at /);
    assert.ok(logged.some((l) => l.includes("secret internal detail")), "the details go to the log");
  });

  it("GET /json_rpc with a body works, as on monerod", async () => {
    const a = await http(s.port, "/json_rpc", `{"id":1,"method":"get_block_count"}`, { method: "GET" });
    assert.equal((parseJson(a.text) as { result: { count: number } }).result.count, 1);
  });
});

describe("rpc/server: plain and .bin paths", () => {
  let s: { server: RpcServer; port: number };
  before(async () => {
    s = await start({ maxBodyBytes: 4096 });
  });
  after(() => s.server.close());

  it("answers plain JSON paths and their aliases by GET and POST", async () => {
    for (const [path, method] of [["/get_height", "GET"], ["/getheight", "POST"], ["/get_height?x=1", "POST"]]) {
      const a = await http(s.port, path, "", { method });
      assert.equal(a.status, 200);
      assert.match(a.text, /"height": 18446744073709551615,/);
    }
  });

  it("a plain path's body that does not load is 400 with the reason; unknown paths 404", async () => {
    const bad = await http(s.port, "/get_height", "{bad");
    assert.equal(bad.status, 400);
    assert.match(bad.text, /expected a string key/);
    const wrong = await http(s.port, "/typed", `{"height":"abc"}`);
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /height: expected an unsigned 64-bit integer/);
    assert.equal((await http(s.port, "/typed", `{"height":18446744073709551615}`)).status, 200);
    assert.equal((await http(s.port, "/nothing", "")).status, 404);
    assert.equal((await http(s.port, "/", "")).status, 404);
  });

  it(".bin paths: epee in, epee out, application/octet-stream", async () => {
    const req = encodeEpee(getOutsBinRequest, { client: "", outputs: [{ amount: 0n, index: U64_MAX }], get_txid: true });
    const a = await http(s.port, "/get_outs.bin", req, { headers: { "Content-Type": "application/octet-stream" } });
    assert.equal(a.status, 200);
    assert.equal(a.headers["content-type"], "application/octet-stream");
    const res = decodeEpee(getOutsBinResponse, a.body);
    assert.equal(res.status, "OK");
    assert.equal(res.outs[0].height, U64_MAX);
    const bad = await http(s.port, "/get_outs.bin", Uint8Array.of(1, 2, 3));
    assert.equal(bad.status, 400);
  });

  it("a body over the limit is refused with 413, and the server keeps serving", async () => {
    const big = `{"id":1,"method":"echo","params":{"note":"${"x".repeat(5000)}","amount":1}}`;
    const a = await http(s.port, "/json_rpc", big);
    assert.equal(a.status, 413);
    assert.match(a.text, /larger than the limit of 4096 bytes/);
    assert.equal((await rpc(s.port, `{"id":1,"method":"get_block_count"}`)).id, 1);
  });

  it("a chunked body (no Content-Length) is counted as it arrives", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: s.port, path: "/json_rpc", method: "POST", agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      for (let k = 0; k < 10; k++) req.write("x".repeat(1000));
      req.end();
    });
    assert.equal(status, 413);
  });
});

describe("rpc/server: restricted mode", () => {
  let s: { server: RpcServer; port: number };
  before(async () => {
    s = await start({ restricted: true });
  });
  after(() => s.server.close());

  it("hides restricted methods and paths with monerod's answers", async () => {
    assert.deepEqual(await rpc(s.port, `{"id":1,"method":"generateblocks"}`), { error: { code: -32601, message: "Method not found" }, id: 1, jsonrpc: "2.0" });
    assert.equal((await http(s.port, "/stop_daemon", "")).status, 404);
    assert.equal(((await rpc(s.port, `{"id":1,"method":"get_block_count"}`)).result as { count: number }).count, 1);
    assert.equal((await http(s.port, "/get_height", "")).status, 200);
  });
});

describe("rpc/server: restricted mode, wallet style", () => {
  it("answers restricted methods with the wallet's DENIED error after their params load", async () => {
    const methods = new MethodTable({ restricted: WALLET_RESTRICTED }).addJsonRpc({
      name: "query_key",
      restricted: true,
      params: object({ key_type: required(str) }),
      handler: () => ({ key: "secret" }),
    });
    const server = new RpcServer({ methods, restricted: true, log: () => undefined });
    const { port } = await server.listen(0);
    try {
      assert.deepEqual(await rpc(port, `{"id":1,"method":"query_key","params":{"key_type":"mnemonic"}}`), {
        error: { code: -7, message: "Command unavailable in restricted mode." },
        id: 1,
        jsonrpc: "2.0",
      });
      assert.equal(((await rpc(port, `{"id":1,"method":"query_key","params":{}}`)).error as { code: number }).code, -32602);
    } finally {
      await server.close();
    }
  });
});

describe("rpc/server: digest auth (epee http_auth)", () => {
  let s: { server: RpcServer; port: number };
  before(async () => {
    s = await start({ login: { username: "user", password: "pass" } });
  });
  after(() => s.server.close());

  const challenge = async (): Promise<string[]> => {
    const a = await http(s.port, "/json_rpc", `{"id":1,"method":"get_block_count"}`);
    assert.equal(a.status, 401);
    const ch: string[] = [];
    for (let k = 0; k < a.raw.length; k += 2) if (a.raw[k].toLowerCase() === "www-authenticate") ch.push(a.raw[k + 1]);
    return ch;
  };

  it("401 carries epee's two challenges (MD5, MD5-sess)", async () => {
    const ch = await challenge();
    assert.equal(ch.length, 2);
    assert.match(ch[0], /^Digest qop="auth",algorithm=MD5,realm="monero-rpc",nonce="[A-Za-z0-9+/]{22}==",stale=false$/);
    assert.match(ch[1], /algorithm=MD5-sess/);
  });

  it("the right login passes (MD5 and MD5-sess); a wrong one, a replayed nc or another uri do not", async () => {
    const body = `{"id":1,"method":"get_block_count"}`;
    const good = new DigestClient({ username: "user", password: "pass" });
    assert.ok(good.onChallenge(await challenge()));
    const h1 = good.header("POST", "/json_rpc") as string;
    assert.equal((await http(s.port, "/json_rpc", body, { headers: { Authorization: h1 } })).status, 200);
    assert.equal((await http(s.port, "/json_rpc", body, { headers: { Authorization: good.header("POST", "/json_rpc") as string } })).status, 200);
    // the same nc again: right password, so the answer is a fresh challenge marked stale
    const replay = await http(s.port, "/json_rpc", body, { headers: { Authorization: h1 } });
    assert.equal(replay.status, 401);
    assert.match(String(replay.headers["www-authenticate"]), /stale=true/);
    // the header was made for another uri
    assert.equal((await http(s.port, "/json_rpc", body, { headers: { Authorization: good.header("POST", "/get_height") as string } })).status, 401);

    const sess = new DigestClient({ username: "user", password: "pass" });
    assert.ok(sess.onChallenge((await challenge()).slice(1)));
    assert.equal((await http(s.port, "/get_height", "", { headers: { Authorization: sess.header("POST", "/get_height") as string } })).status, 200);

    const bad = new DigestClient({ username: "user", password: "wrong" });
    bad.onChallenge(await challenge());
    const b = await http(s.port, "/json_rpc", body, { headers: { Authorization: bad.header("POST", "/json_rpc") as string } });
    assert.equal(b.status, 401);
    assert.match(String(b.headers["www-authenticate"]), /stale=false/);
    assert.equal((await http(s.port, "/json_rpc", body, { headers: { Authorization: "Basic dXNlcjpwYXNz" } })).status, 401);
  });
});

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1", () => resolve(sock));
    sock.on("error", reject);
  });
}
const closed = (sock: Socket, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (sock.destroyed) return resolve(true);
    const t = setTimeout(() => resolve(false), ms);
    sock.once("close", () => {
      clearTimeout(t);
      resolve(true);
    });
    sock.resume();
  });

describe("rpc/server: connections", () => {
  it("closes connections over the per-IP limit at once and accepts again when one goes", async () => {
    const s = await start({ maxConnectionsPerIp: 2 });
    try {
      const a = await openSocket(s.port);
      const b = await openSocket(s.port);
      const c = await openSocket(s.port);
      assert.equal(await closed(c, 2000), true, "third connection closed");
      assert.equal(await closed(a, 100), false, "first still open");
      a.destroy();
      await new Promise((r) => setTimeout(r, 50));
      const d = await openSocket(s.port);
      assert.equal(await closed(d, 150), false, "room again after one closed");
      b.destroy();
      d.destroy();
    } finally {
      await s.server.close();
    }
  });

  it("holds the total connection limit too", async () => {
    const s = await start({ maxConnections: 3, maxConnectionsPerIp: 100 });
    try {
      const socks = [await openSocket(s.port), await openSocket(s.port), await openSocket(s.port)];
      const extra = await openSocket(s.port);
      assert.equal(await closed(extra, 2000), true, "fourth connection closed");
      assert.equal(s.server.connections, 3);
      for (const x of socks) x.destroy();
      await new Promise((r) => setTimeout(r, 50));
      assert.equal((await rpc(s.port, `{"id":9,"method":"get_block_count"}`)).id, 9);
    } finally {
      await s.server.close();
    }
  });

  it("drops a slow client that never finishes its request", async () => {
    const s = await start({ requestTimeoutMs: 300, idleTimeoutMs: 300 });
    try {
      const sock = await openSocket(s.port);
      sock.write("POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
      const t0 = Date.now();
      assert.equal(await closed(sock, 3000), true);
      assert.ok(Date.now() - t0 < 3000);
      assert.equal((await rpc(s.port, `{"id":1,"method":"get_block_count"}`)).id, 1);
      // but a handler slower than those timeouts still gets its answer out
      assert.equal((await rpc(s.port, `{"id":2,"method":"sleep","params":{"ms":900}}`)).id, 2);
    } finally {
      await s.server.close();
    }
  });

  it("answers 300 parallel requests, each with its own id", async () => {
    const s = await start({ maxConnections: 400, maxConnectionsPerIp: 400 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, k) => rpc(s.port, `{"id":${k},"method":"echo","params":{"amount":${U64_MAX - BigInt(k)}}}`)),
      );
      answers.forEach((r, k) => {
        assert.equal(r.id, k);
        assert.equal((r.result as { amount: bigint }).amount, U64_MAX - BigInt(k));
      });
    } finally {
      await s.server.close();
    }
  });

  it("a slow handler does not hold up others", async () => {
    const s = await start();
    try {
      const slow = rpc(s.port, `{"id":1,"method":"sleep","params":{"ms":400}}`);
      const t0 = Date.now();
      await rpc(s.port, `{"id":2,"method":"get_block_count"}`);
      assert.ok(Date.now() - t0 < 300);
      assert.equal((await slow).id, 1);
    } finally {
      await s.server.close();
    }
  });
});

describe("rpc/server: each service words validation failures its own way", () => {
  it("a wallet-style policy maps invalid params to its own code", async () => {
    const methods = table({
      errors: {
        invalidParams: (e) => ({ code: WALLET_RPC_ERROR.UNKNOWN_ERROR, message: `Invalid params: ${e.message}` }),
        internal: () => ({ code: WALLET_RPC_ERROR.UNKNOWN_ERROR, message: "Internal error" }),
      },
    });
    const server = new RpcServer({ methods, log: () => undefined });
    const { port } = await server.listen(0);
    try {
      const r = await rpc(port, `{"id":1,"method":"echo","params":{"amount":-5}}`);
      assert.equal((r.error as { code: number }).code, -1);
      assert.match((r.error as { message: string }).message, /params\.amount: -5 is out of range/);
    } finally {
      await server.close();
    }
  });

  it("refuses a name declared twice", () => {
    assert.throws(() => table().addJsonRpc({ name: "getblockcount", params: object({}), handler: () => null }), /declared twice/);
  });
});

/** Writes `raw` on a fresh socket and collects everything the server sends until it closes or `ms` pass. */
async function rawExchange(port: number, raw: string | Buffer | (string | Buffer)[], ms = 1500): Promise<{ text: string; closed: boolean }> {
  const sock = await openSocket(port);
  const chunks: Buffer[] = [];
  sock.on("data", (c: Buffer) => chunks.push(c));
  for (const part of Array.isArray(raw) ? raw : [raw]) {
    sock.write(part);
    await new Promise((r) => setTimeout(r, 20));
  }
  const wasClosed = await closed(sock, ms);
  sock.destroy();
  return { text: Buffer.concat(chunks).toString("latin1"), closed: wasClosed };
}

const countAnswers = (text: string): number => text.split("HTTP/1.1 200 Ok\r\n").length - 1;

describe("rpc/server: the HTTP/1.1 layer (rpc/http.ts)", () => {
  let s: { server: RpcServer; port: number };
  before(async () => {
    s = await start();
  });
  after(() => s.server.close());
  const body = `{"jsonrpc":"2.0","id":7,"method":"get_block_count"}`;
  const post = (extra = "", b = body): string => `POST /json_rpc HTTP/1.1\r\nHost: x\r\nContent-Length: ${Buffer.byteLength(b)}\r\n${extra}\r\n${b}`;

  it("answers with epee's status line and headers", async () => {
    const r = await rawExchange(s.port, post("Connection: close\r\n"));
    assert.match(r.text, /^HTTP\/1\.1 200 Ok\r\nServer: Epee-based\r\nContent-Length: \d+\r\nContent-Type: application\/json\r\nLast-Modified: \w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n\{/);
    assert.equal(r.closed, true, "Connection: close is honoured");
  });

  it("pipelined requests are answered in order on one connection, which stays open", async () => {
    const three = [1, 2, 3].map((k) => post("", `{"jsonrpc":"2.0","id":${k},"method":"get_block_count"}`)).join("");
    const r = await rawExchange(s.port, three, 400);
    assert.equal(countAnswers(r.text), 3);
    const ids = [...r.text.matchAll(/"id": (\d+)/g)].map((m) => Number(m[1]));
    assert.deepEqual(ids, [1, 2, 3]);
    assert.equal(r.closed, false, "HTTP/1.1 keeps the connection");
  });

  it("a request split in many small writes is put back together", async () => {
    const whole = post();
    const parts: string[] = [];
    for (let k = 0; k < whole.length; k += 7) parts.push(whole.slice(k, k + 7));
    const r = await rawExchange(s.port, parts, 300);
    assert.equal(countAnswers(r.text), 1);
    assert.match(r.text, /"id": 7/);
  });

  it("HTTP/1.0 closes after the answer unless keep-alive is asked", async () => {
    const r10 = await rawExchange(s.port, `POST /json_rpc HTTP/1.0\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    assert.equal(countAnswers(r10.text), 1);
    assert.equal(r10.closed, true);
    const ka = await rawExchange(s.port, `POST /json_rpc HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 300);
    assert.equal(countAnswers(ka.text), 1);
    assert.equal(ka.closed, false);
  });

  it("Expect: 100-continue gets 100 Continue before the body is sent", async () => {
    const sock = await openSocket(s.port);
    const chunks: Buffer[] = [];
    sock.on("data", (c: Buffer) => chunks.push(c));
    sock.write(`POST /json_rpc HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(Buffer.concat(chunks).toString("latin1"), "HTTP/1.1 100 Continue\r\n\r\n");
    sock.write(body);
    await new Promise((r) => setTimeout(r, 150));
    assert.match(Buffer.concat(chunks).toString("latin1"), /100 Continue\r\n\r\nHTTP\/1\.1 200 Ok[\s\S]*"id": 7/);
    sock.destroy();
  });

  it("a chunked body with a trailer is decoded", async () => {
    const c1 = body.slice(0, 10);
    const c2 = body.slice(10);
    const raw = `POST /json_rpc HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${c1.length.toString(16)}\r\n${c1}\r\n${c2.length.toString(16)};ext=1\r\n${c2}\r\n0\r\nX-Trailer: y\r\n\r\n`;
    const r = await rawExchange(s.port, raw, 300);
    assert.equal(countAnswers(r.text), 1);
    assert.match(r.text, /"count": \d+/);
  });

  it("OPTIONS (a CORS preflight) is answered '200 OK' with no body and no type, as epee does (checked on monerod 0.18)", async () => {
    const r = await rawExchange(s.port, "OPTIONS /json_rpc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(r.text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 0\r\n/);
    assert.doesNotMatch(r.text, /Content-Type/);
  });

  it("HEAD gets the headers without a body", async () => {
    const r = await rawExchange(s.port, "HEAD /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const [head, rest] = r.text.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200 Ok/);
    assert.match(head, /Content-Length: [1-9]\d*/);
    assert.equal(rest, "");
  });

  it("malformed requests: 400 and close; a huge head: 431; bad chunk sizes and lengths: 400", async () => {
    for (const raw of ["GARBAGE\r\n\r\n", "POST /json_rpc HTTP/2.0\r\n\r\n", "POST /json_rpc HTTP/1.1\r\nNoColonHere\r\n\r\n", "POST /json_rpc HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", "POST /json_rpc HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\nabcd", "POST /json_rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]) {
      const r = await rawExchange(s.port, raw);
      assert.match(r.text, /^HTTP\/1\.1 400 Bad request\r\n/, JSON.stringify(raw));
      assert.equal(r.closed, true, JSON.stringify(raw));
    }
    const big = await rawExchange(s.port, `GET /get_height HTTP/1.1\r\nX-Big: ${"a".repeat(20000)}\r\n\r\n`);
    assert.match(big.text, /^HTTP\/1\.1 431 /);
    assert.equal(big.closed, true);
    // and the server still serves
    assert.equal((await rpc(s.port, body)).id, 7);
  });

  it("a client that closes while its handler runs does not break the server", async () => {
    const sock = await openSocket(s.port);
    const b = `{"jsonrpc":"2.0","id":1,"method":"sleep","params":{"ms":200}}`;
    sock.write(`POST /json_rpc HTTP/1.1\r\nContent-Length: ${b.length}\r\n\r\n${b}`);
    await new Promise((r) => setTimeout(r, 30));
    sock.destroy();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await rpc(s.port, body)).id, 7);
  });
});

describe("idle timeouts as epee's", () => {
  it("loopback and private peers are local (30 min idle), others remote (5 min)", async () => {
    const { isLocalAddress } = await import("../src/rpc/http.js");
    for (const a of ["127.0.0.1", "::ffff:127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "fd00::1", "fe80::1"]) assert.equal(isLocalAddress(a), true, a);
    for (const a of ["8.8.8.8", "172.32.0.1", "172.15.0.1", "192.169.0.1", "::ffff:1.2.3.4", "2001:db8::1", ""]) assert.equal(isLocalAddress(a), false, a);
  });
});

describe("kept answers (BinPath.reuse)", () => {
  it("an answer given after a wait is kept while the stamp stays; one given under another stamp is not", async () => {
    let stamp = "a";
    let runs = 0;
    // the stamp to move to while the handler waits (undefined: it stays)
    let moveTo: string | undefined;
    const answer = epeeObject<{ status: string; top_hash: string; from: bigint }>({ status: text, top_hash: text, from: epeeU64 });
    const t = new MethodTable().addBinPath({
      path: "/get_output_distribution.bin",
      request: getOutputDistributionBinRequest,
      response: answer,
      reuse: { stamp: () => stamp, keep: () => true, ignore: new Set(["client"]) },
      handler: async (req) => {
        runs++;
        await new Promise((r) => setTimeout(r, 5));
        if (moveTo !== undefined) stamp = moveTo;
        return { status: "OK", top_hash: stamp, from: req.from_height };
      },
    });
    const server = new RpcServer({ methods: t, log: (m) => logged.push(m) });
    const { port } = await server.listen(0);
    try {
      const ask = async (client: string): Promise<string> => {
        const req = { client, amounts: [0n], from_height: 7n, to_height: 0n, cumulative: false, binary: true, compress: true };
        const a = await http(port, "/get_output_distribution.bin", encodeEpee(getOutputDistributionBinRequest, req));
        assert.equal(a.status, 200);
        const r = decodeEpee(answer, a.body);
        assert.equal(r.from, 7n);
        return r.top_hash;
      };
      assert.equal(await ask("one"), "a");
      assert.equal(await ask("two"), "a");
      assert.equal(runs, 1, "the second request (another signature, same meaning) gets the kept answer");
      // the stamp moves while the handler waits: the answer goes to its client, but is not kept
      stamp = "b";
      moveTo = "c";
      assert.equal(await ask("three"), "c");
      moveTo = undefined;
      assert.equal(await ask("four"), "c");
      assert.equal(runs, 3, "asked again under the new stamp, the handler runs again");
      assert.equal(await ask("five"), "c");
      assert.equal(runs, 3);
    } finally {
      await server.close();
    }
  });
});
