/**
 * Issue 20, first acceptance item, at test scale: many wallets (TSMONERO_HUB_SCALE_WALLETS, default
 * 100; `npm run bench -- hub` does 1,000) open in one hub over a real tsmonerod regtest node, on a
 * fixed pool of scan threads. Each wallet is paid a different amount by transfers of 15
 * destinations each (plus change: the 16 outputs a tx may have), all wallets refresh together, and
 * every balance is checked; for a sample of wallets a real monero-wallet-rpc 0.18.0.0 restored from
 * the same keys reports the same balance and unlocked balance.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { WalletHub } from "../src/wallet/hub/hub.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/service.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { big, hubCall, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall } from "./helpers/wallet-rpc.js";

const PORTS = { node: 19710, rpc: 19711, real: 19712 } as const;
const FAST_KDF = { log2N: 10, r: 8, p: 1 };
const N = Math.max(1, Number(process.env.TSMONERO_HUB_SCALE_WALLETS ?? 100));
/** Destinations per transfer: 15 and the change make the 16 outputs a tx may have. */
const PER_TX = 15;
const amountOf = (i: number): bigint => 1_000_000_000n * BigInt(i + 1);

/** This process's thread count (/proc/self/status). */
const threadCount = (): number => Number(/^Threads:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);

describe(`${N} wallets in one hub: shared scan threads, every balance right`, { timeout: 600_000 }, () => {
  let daemon: Daemon;
  let node: NodeClient;
  let hub: WalletHub;
  let service: WalletService;
  let server: WalletRpc;
  let real: Daemon;
  const dirs: string[] = [];
  const names = Array.from({ length: N }, (_, i) => `w${String(i).padStart(4, "0")}`);
  const addresses: string[] = [];
  const root = `http://127.0.0.1:${PORTS.rpc}`;
  /** Wallet NAME's endpoint, /wallets/NAME/json_rpc: a wallet url for walletCall. */
  const url = (name: string) => `${root}/wallets/${name}`;

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-hubscale-node-"));
    const walletDir = mkdtempSync(join(tmpdir(), "tsmonero-hubscale-wallets-"));
    const realDir = mkdtempSync(join(tmpdir(), "tsmonero-hubscale-real-"));
    dirs.push(nodeDir, walletDir, realDir);
    daemon = startRegtestNode("tsmonerod", [PORTS.node, PORTS.node + 1], nodeDir);
    node = new NodeClient({ url: daemon.url, timeoutMs: 120_000 });
    await waitReady(daemon, node);
    const log = () => undefined;
    service = new WalletService({ network: "regtest", walletDir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
    hub = new WalletHub({ network: "regtest", walletDir, node, kdf: FAST_KDF, autoRefreshPeriod: 0, log });
    // every wallet refreshes at once: more connections than the default 100
    server = await startWalletRpc({ service, port: PORTS.rpc, hub, log, maxConnections: 4 * N + 100, maxConnectionsPerIp: 4 * N + 100 });
    real = startWallet("/usr/bin/monero-wallet-rpc", daemon.url, PORTS.real, realDir);
    await waitWallet(real);
  });

  after(async () => {
    await server?.close();
    await hub?.stop();
    await service?.stop();
    await stopProcesses(real ? [real] : []);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it(`opens ${N} wallets on ${Math.min(availableParallelism(), 8)} scan threads, not one thread per wallet`, async () => {
    const threads0 = threadCount();
    const mem0 = process.memoryUsage();
    const t0 = performance.now();
    // 8 create_wallet calls at a time (their file writes overlap the scan threads' work)
    let next = 0;
    const creator = async () => {
      for (let i = next++; i < N; i = next++) addresses[i] = (await hubCall(root, "create_wallet", { filename: names[i], password: "pw" })).address;
    };
    await Promise.all(Array.from({ length: 8 }, creator));
    const createdMs = performance.now() - t0;
    // each wallet's scanner (its subaddress table) is built on the scan threads and its copy adopted here
    await hub.scanPool.idle();
    for (const [i, n] of names.entries()) assert.deepEqual((await walletCall(url(n), "get_address_index", { address: addresses[i] })).index, { major: 0, minor: 0 });
    const openMs = performance.now() - t0;
    const mem1 = process.memoryUsage();
    const threads1 = threadCount();
    const perWallet = (k: keyof NodeJS.MemoryUsage) => (mem1[k] - mem0[k]) / N / 1024;
    console.log(
      `# ${N} wallets opened in ${(openMs / 1000).toFixed(1)} s (created in ${(createdMs / 1000).toFixed(1)} s, then the scan threads' tables); threads ${threads0} → ${threads1}; per wallet: RSS +${perWallet("rss").toFixed(0)} KiB, ` +
        `main-thread heap +${perWallet("heapUsed").toFixed(0)} KiB, array buffers +${perWallet("arrayBuffers").toFixed(0)} KiB`,
    );
    assert.equal(hub.scanPool.stats.wallets, N);
    assert.ok(hub.scanPool.threadCount <= Math.max(1, Math.min(availableParallelism(), 8)));
    assert.ok(threads1 - threads0 <= hub.scanPool.threadCount + 4, `threads grew by ${threads1 - threads0} for ${N} wallets`);
    assert.ok(perWallet("rss") < 4096, `RSS per open wallet ${perWallet("rss").toFixed(0)} KiB`);
  });

  it("pays every wallet on the chain; all refresh together; each balance is its payment; a sample matches a real monero-wallet-rpc", async () => {
    const funder = await walletCall(root, "create_wallet", { filename: "funder", password: "", language: "English" }).then(() => walletCall(root, "get_address"));
    const funderAddress = funder.address;
    const txs = Math.ceil(N / PER_TX);
    // coinbase outputs unlock after 60 blocks: one spendable coinbase per transfer, and enough unlocked outputs for rings of 16
    await nodeCall(daemon.url, "generateblocks", { amount_of_blocks: 60 + txs + 30, wallet_address: funderAddress });
    await walletCall(root, "refresh");
    for (let k = 0; k < N; k += PER_TX) {
      const destinations = names.slice(k, k + PER_TX).map((_, j) => ({ address: addresses[k + j], amount: amountOf(k + j) }));
      await walletCall(root, "transfer", { destinations });
    }
    // mined, then 10 blocks for the outputs to unlock
    await nodeCall(daemon.url, "generateblocks", { amount_of_blocks: 11, wallet_address: funderAddress });
    const scan0 = hub.scanStats;
    const node0 = { ...hub.stats };
    const t0 = performance.now();
    await Promise.all(names.map((n) => walletCall(url(n), "refresh")));
    const ms = performance.now() - t0;
    const scan = hub.scanStats;
    const walletBlocks = scan.walletBlocks - scan0.walletBlocks;
    const parsed = scan.blocksParsed - scan0.blocksParsed;
    const requests = (hub.stats?.requests ?? 0) - (node0.requests ?? 0);
    const fetches = (hub.stats?.fetches ?? 0) - (node0.fetches ?? 0);
    console.log(
      `# ${N} wallets refreshed together in ${(ms / 1000).toFixed(1)} s: get_blocks.bin ${requests} asked, ${fetches} sent; ` +
        `blocks: ${walletBlocks} scanned by wallets, ${parsed} parsed; ${scan.batches - scan0.batches} messages to ${hub.scanPool.threadCount} threads`,
    );
    assert.ok(walletBlocks >= N, "every wallet scanned the new blocks");
    assert.ok(parsed * 10 <= walletBlocks, `blocks parsed once per thread and group, not per wallet (${parsed} of ${walletBlocks})`);
    assert.ok(fetches * 10 <= requests, `one fetch serves many wallets (${fetches} of ${requests})`);

    for (const [i, n] of names.entries()) {
      const b = await walletCall(url(n), "get_balance");
      assert.equal(big(b.balance), amountOf(i), `${n}: balance`);
      assert.equal(big(b.unlocked_balance), amountOf(i), `${n}: unlocked balance`);
    }

    const sample = [...new Set([0, Math.floor(N / 2), N - 1])];
    for (const i of sample) {
      const n = names[i];
      const viewkey = String((await walletCall(url(n), "query_key", { key_type: "view_key" })).key);
      const spendkey = String((await walletCall(url(n), "query_key", { key_type: "spend_key" })).key);
      await walletCall(real.url, "generate_from_keys", { filename: `real-${n}`, address: addresses[i], viewkey, spendkey, password: "" });
      await walletCall(real.url, "refresh");
      const theirs = await walletCall(real.url, "get_balance");
      const ours = await walletCall(url(n), "get_balance");
      assert.equal(big(ours.balance), big(theirs.balance), `${n}: balance as monero-wallet-rpc`);
      assert.equal(big(ours.unlocked_balance), big(theirs.unlocked_balance), `${n}: unlocked balance as monero-wallet-rpc`);
      await walletCall(real.url, "close_wallet");
    }
  });
});
