/**
 * The RPC warm-up after start (src/node/rpc/warmup.ts) on a real tsmonerod in this process: it
 * reads through the daemon's own RPC server (TLS and digest login as configured), leaves no answer
 * in the caches, is skipped on a short chain, stops with the daemon, and the launcher's default
 * and TSMONERO_RPC_WARMUP are read as documented.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseArgs, UsageError } from "../src/cli/args.js";
import { nodeConfig, RPC_WARMUP_DEFAULT } from "../src/cli/node-config.js";
import { NODE_FLAGS } from "../src/cli/node-flags.js";
import { NodeClient } from "../src/client/node-client.js";
import { sslOptionsFromFlags } from "../src/rpc/tls.js";
import { type DaemonOptions, startDaemon } from "../src/node/daemon.js";
import { freePort } from "./helpers/ports.js";

const MINER = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const login = "warm:up";

interface CacheStats {
  rpc_warmup: string;
  caches: { name: string; hits: number; misses: number }[];
}

describe("RPC warm-up after start", () => {
  let dir: string;
  let port: number;
  const base = (): DaemonOptions => ({ network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, keepFakechain: true, rpcBindPort: port, rpcLogin: login, logToConsole: false });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-warmup-"));
    port = await freePort();
    const d = await startDaemon(base());
    const c = new NodeClient({ url: d.rpcUrl, login });
    await c.jsonRpc("generateblocks", { amount_of_blocks: 6n, wallet_address: MINER });
    c.close();
    await d.stop();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads through the daemon's own port with its login, over TLS and plain HTTP alike (autodetect), then empties the caches it filled", async () => {
    const d = await startDaemon({ ...base(), rpcWarmup: { rounds: 12, minHeight: 0 } });
    try {
      const r = await d.warmup;
      assert.ok(r, "a warm-up ran");
      assert.equal(r.stopped, undefined, `the warm-up ended early: ${r.stopped}`);
      // the rounds alternate: the request path is optimized for both kinds of client
      assert.ok(r.tlsRequests > 0 && r.tlsRequests < r.requests, `${r.tlsRequests} of ${r.requests} requests over TLS`);
      // a round: header, block, tx, /get_outs, get_outs.bin, the near-top header, get_blocks.bin, get_info (+4 every 4th)
      assert.ok(r.requests >= 1 + 12 * 8, `${r.requests} requests`);
      const c = new NodeClient({ url: d.rpcUrl, login });
      try {
        const stats = async (): Promise<{ headers: { hits: number; misses: number }; answers: { hits: number; misses: number } }> => {
          const s = (await c.jsonRpc("get_cache_stats")) as unknown as CacheStats;
          assert.equal(s.rpc_warmup, "done");
          const headers = s.caches.find((x) => x.name === "block headers");
          const answers = s.caches.find((x) => x.name === "whole answers");
          assert.ok(headers && answers, `counted caches: ${s.caches.map((x) => x.name).join(", ")}`);
          return { headers, answers };
        };
        const s0 = await stats();
        // the warm-up counted its own lookups
        assert.ok(s0.headers.hits + s0.headers.misses >= 12, `warm-up header lookups: ${JSON.stringify(s0)}`);
        // whichever heights the warm-up read (12 rounds of 2 header reads over 7 heights), none is kept:
        // neither the whole answer nor the header under it
        for (let h = 0; h <= 6; h++) await c.getBlockHeaderByHeight(h);
        const s1 = await stats();
        assert.deepEqual([s1.answers.hits - s0.answers.hits, s1.answers.misses - s0.answers.misses], [0, 7], "no answer the warm-up made is kept");
        assert.deepEqual([s1.headers.hits - s0.headers.hits, s1.headers.misses - s0.headers.misses], [0, 7], "no header the warm-up read is kept");
        // asked again: the answer and the header under it are kept from this second request on
        // (READ_ADMISSION), so the third request finds the answer, and a read that skips the whole
        // answers (fill_pow_hash) finds the header
        await c.getBlockHeaderByHeight(3);
        const s2 = await stats();
        assert.deepEqual([s2.headers.hits - s1.headers.hits, s2.answers.hits - s1.answers.hits], [0, 0], "a second read is computed again, and kept");
        await c.getBlockHeaderByHeight(3);
        await c.getBlockHeaderByHeight(3, true);
        const s3 = await stats();
        assert.deepEqual([s3.headers.hits - s2.headers.hits, s3.answers.hits - s2.answers.hits], [1, 1], "the caches work again after the warm-up");
      } finally {
        c.close();
      }
    } finally {
      await d.stop();
    }
  });

  for (const support of ["enabled", "disabled"] as const) {
    it(`speaks only what the server speaks: --rpc-ssl ${support}`, async () => {
      const rpcSsl = sslOptionsFromFlags({ prefix: "rpc-ssl", support });
      const d = await startDaemon({ ...base(), rpcSsl, rpcWarmup: { rounds: 6, minHeight: 0 } });
      try {
        const r = await d.warmup;
        assert.ok(r, "a warm-up ran");
        // a plain client would fail the handshake of a TLS-only server, and end the warm-up early
        assert.equal(r.stopped, undefined, `the warm-up ended early: ${r.stopped}`);
        assert.equal(r.tlsRequests, support === "enabled" ? r.requests : 0, `${r.tlsRequests} of ${r.requests} requests over TLS`);
      } finally {
        await d.stop();
      }
    });
  }

  it("is skipped on a chain shorter than minHeight", async () => {
    const d = await startDaemon({ ...base(), rpcWarmup: { rounds: 12, minHeight: 1000 } });
    try {
      assert.equal(await d.warmup, undefined);
      const c = new NodeClient({ url: d.rpcUrl, login });
      assert.equal(((await c.jsonRpc("get_cache_stats")) as unknown as CacheStats).rpc_warmup, "off");
      c.close();
    } finally {
      await d.stop();
    }
  });

  it("does not run with a bootstrap daemon (its reads would be forwarded there)", async () => {
    const d = await startDaemon({ ...base(), bootstrapDaemon: { address: "127.0.0.1:1" }, rpcWarmup: { rounds: 12, minHeight: 0 } });
    try {
      assert.equal(await d.warmup, undefined);
    } finally {
      await d.stop();
    }
  });

  it("stops with the daemon", async () => {
    const d = await startDaemon({ ...base(), rpcWarmup: { rounds: 1_000_000, minHeight: 0 } });
    await new Promise((r) => setTimeout(r, 500));
    const t0 = performance.now();
    await d.stop();
    assert.ok(performance.now() - t0 < 5000, "stop did not wait for the warm-up's rounds");
    const r = await d.warmup;
    assert.ok(r);
    assert.equal(r.stopped, "the daemon is stopping");
    // far from its million rounds (how many it made before the stop depends on this machine's speed)
    assert.ok(r.requests < 1_000_000, `${r.requests} requests`);
  });
});

describe("the launcher's warm-up setting", () => {
  const args = parseArgs(["--regtest", "--offline"], NODE_FLAGS);
  it("is on by default for chains of 1,000 blocks", () => {
    assert.deepEqual(nodeConfig(args, {}).daemon.rpcWarmup, RPC_WARMUP_DEFAULT);
    assert.deepEqual(RPC_WARMUP_DEFAULT, { rounds: 1000, minHeight: 1000 });
  });
  it("takes its rounds from TSMONERO_RPC_WARMUP, 0 turning it off, and refuses anything else", () => {
    assert.equal(nodeConfig(args, { TSMONERO_RPC_WARMUP: "0" }).daemon.rpcWarmup?.rounds, 0);
    assert.equal(nodeConfig(args, { TSMONERO_RPC_WARMUP: "25" }).daemon.rpcWarmup?.rounds, 25);
    for (const bad of ["-1", "ten", "1e3", "1234567"])
      assert.throws(() => nodeConfig(args, { TSMONERO_RPC_WARMUP: bad }), (e: unknown) => e instanceof UsageError && /TSMONERO_RPC_WARMUP/.test(e.message));
  });
});
