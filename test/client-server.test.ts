/**
 * NodeClient against our own RpcServer (loopback, port 0): the failure types the wallet relies on,
 * per-call timeouts, bounded retries, digest auth under parallel load, .bin calls, exact u64.
 * Also curl's digest client against our server, when curl is installed.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import {
  NoDaemonConnectionError,
  NodeAuthError,
  NodeClient,
  NodeHttpError,
  NodeResponseError,
  NodeRpcError,
  NodeStatusError,
  walletRpcErrorOf,
} from "../src/client/node-client.js";
import { getOutsBinRequest, getOutsBinResponse } from "../src/protocol/rpc-bin.js";
import { CORE_RPC_ERROR } from "../src/rpc/error-codes.js";
import { MethodTable, RpcError } from "../src/rpc/methods.js";
import { bool, object, required, u32, u64 } from "../src/rpc/schema.js";
import { RpcServer, type RpcServerOptions } from "../src/rpc/server.js";

const U64_MAX = (1n << 64n) - 1n;
let calls = 0;

function methods(): MethodTable {
  return new MethodTable()
    .addJsonRpc({
      name: "get_block_count",
      params: object({}),
      handler: () => {
        calls++;
        return { count: U64_MAX, status: "OK", untrusted: false };
      },
    })
    .addJsonRpc({
      name: "get_block_header_by_height",
      params: object({ height: required(u64), fill_pow_hash: bool }),
      handler: (p) => {
        throw new RpcError(CORE_RPC_ERROR.TOO_BIG_HEIGHT, `Requested block height: ${p.height} greater than current top block height: 0`);
      },
    })
    .addJsonRpc({ name: "get_info", params: object({}), handler: () => ({ status: "BUSY", untrusted: false }) })
    .addJsonRpc({ name: "get_version", params: object({}), handler: () => ({ status: "OK", version: "three" }) })
    .addJsonRpc({
      name: "sleep",
      params: object({ ms: u32 }),
      handler: async (p, ctx) => {
        await new Promise((r) => {
          const t = setTimeout(r, p.ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            r(undefined);
          });
        });
        return { status: "OK" };
      },
    })
    .addJsonPath({ path: "/get_height", params: object({}), handler: () => ({ hash: "ab".repeat(32), height: U64_MAX, status: "OK", untrusted: false }) })
    .addJsonPath({ path: "/stop_daemon", restricted: true, params: object({}), handler: () => ({ status: "OK" }) })
    .addBinPath({
      path: "/get_outs.bin",
      request: getOutsBinRequest,
      response: getOutsBinResponse,
      handler: (req) => ({
        status: "OK",
        untrusted: false,
        credits: U64_MAX,
        top_hash: "",
        outs: req.outputs.map((o) => ({ key: new Uint8Array(32).fill(9), mask: new Uint8Array(32), unlocked: false, height: o.index, txid: new Uint8Array(32) })),
      }),
    });
}

async function serve(opts: Partial<RpcServerOptions> = {}, port = 0): Promise<{ server: RpcServer; url: string }> {
  const server = new RpcServer({ methods: methods(), log: () => undefined, ...opts });
  const a = await server.listen(port);
  return { server, url: `http://127.0.0.1:${a.port}` };
}

/** A port nothing listens on (bound, read, released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe("NodeClient ↔ RpcServer", () => {
  it("typed calls carry u64 exactly both ways, JSON and .bin", async () => {
    const { server, url } = await serve();
    const c = new NodeClient({ url });
    try {
      assert.equal((await c.getBlockCount()).count, U64_MAX);
      assert.equal((await c.getHeight()).height, U64_MAX);
      const outs = await c.getOutsBin([{ amount: 0n, index: U64_MAX }]);
      assert.equal(outs.outs[0].height, U64_MAX);
      assert.equal(outs.credits, U64_MAX);
    } finally {
      c.close();
      await server.close();
    }
  });

  it("maps each failure to its own error type", async () => {
    const { server, url } = await serve({ restricted: true });
    const c = new NodeClient({ url });
    try {
      await assert.rejects(c.getBlockHeaderByHeight(U64_MAX), (e: unknown) => e instanceof NodeRpcError && e.code === -2 && /18446744073709551615/.test(e.rpcMessage));
      await assert.rejects(c.getInfo(), (e: unknown) => {
        assert.ok(e instanceof NodeStatusError && e.status === "BUSY");
        assert.deepEqual(walletRpcErrorOf(e), { code: -3, message: "daemon is busy" });
        return true;
      });
      await assert.rejects(c.getVersion(), (e: unknown) => e instanceof NodeResponseError && /get_version\.version: expected an unsigned 32-bit integer, found the string "three"/.test(e.message));
      // raw: a path this test server does not serve (its HTTP 404) is the point
      await assert.rejects(c.json("/stop_daemon"), (e: unknown) => e instanceof NodeHttpError && e.status === 404);
      // raw: an unknown method (in no map) is the point
      await assert.rejects(c.jsonRpc("nope"), (e: unknown) => e instanceof NodeRpcError && e.code === -32601);
    } finally {
      c.close();
      await server.close();
    }
  });

  it("per-call timeout: a slow answer is NoDaemonConnectionError, and the server is freed", async () => {
    const { server, url } = await serve();
    const c = new NodeClient({ url, retries: 0 });
    try {
      const t0 = Date.now();
      // raw: "sleep" is this test server's own method (in no map)
      await assert.rejects(c.jsonRpc("sleep", { ms: 5000 }, { timeoutMs: 150 }), (e: unknown) => e instanceof NoDaemonConnectionError && /within 150 ms/.test(e.message));
      assert.ok(Date.now() - t0 < 1000);
      assert.equal((await c.getBlockCount()).status, "OK");
    } finally {
      c.close();
      await server.close();
    }
  });

  it("retries idempotent reads while the node comes up, a bounded number of times", async () => {
    const port = await freePort();
    const c = new NodeClient({ url: `http://127.0.0.1:${port}`, retries: 4, retryDelayMs: 50 });
    let started: Awaited<ReturnType<typeof serve>> | undefined;
    const later = setTimeout(() => {
      void serve({}, port).then((s) => (started = s));
    }, 120);
    try {
      assert.equal((await c.getHeight()).height, U64_MAX);
    } finally {
      clearTimeout(later);
      c.close();
      await started?.server.close();
    }
    const before = calls;
    const none = new NodeClient({ url: `http://127.0.0.1:${await freePort()}`, retries: 1, retryDelayMs: 10 });
    await assert.rejects(none.getBlockCount(), (e: unknown) => {
      assert.ok(e instanceof NoDaemonConnectionError);
      assert.deepEqual(walletRpcErrorOf(e), { code: -38, message: "no connection to daemon" });
      return true;
    });
    await assert.rejects(none.sendRawTransaction("00"), NoDaemonConnectionError);
    assert.equal(calls, before);
  });

  it("digest auth: 50 parallel calls on one login, wrong login refused", async () => {
    const { server, url } = await serve({ login: { username: "u", password: "p:w" } });
    const c = new NodeClient({ url, login: "u:p:w" });
    try {
      const rs = await Promise.all(Array.from({ length: 50 }, (_, k) => (k % 2 ? c.getBlockCount() : c.getHeight())));
      assert.equal(rs.length, 50);
      const outs = await c.getOutsBin([{ amount: 0n, index: 1n }]);
      assert.equal(outs.outs.length, 1);
      await assert.rejects(new NodeClient({ url, login: "u:x" }).getHeight(), NodeAuthError);
      await assert.rejects(new NodeClient({ url }).getHeight(), /requires a login/);
    } finally {
      c.close();
      await server.close();
    }
  });

  it("curl --digest (a foreign digest client) gets through; a wrong password does not", { skip: existsSync("/usr/bin/curl") ? undefined : "needs curl" }, async () => {
    const { server, url } = await serve({ login: { username: "user", password: "pass" } });
    const curl = (login: string): Promise<string> =>
      new Promise((resolve, reject) =>
        execFile("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--digest", "-u", login, "-d", '{"id":1,"method":"get_block_count"}', `${url}/json_rpc`], (err, out) =>
          err ? reject(err) : resolve(out),
        ),
      );
    try {
      assert.equal(await curl("user:pass"), "200");
      assert.equal(await curl("user:bad"), "401");
    } finally {
      await server.close();
    }
  });
});
