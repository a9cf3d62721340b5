/**
 * The bootstrap daemon (issue 13): tsmonerod with --bootstrap-daemon-address forwards monerod's
 * list of calls to a real monerod while it is more than 10 blocks behind it, marked untrusted, and
 * answers itself for good once it caught up (core_rpc_server::use_bootstrap_daemon_if_necessary).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { NodeClient } from "../src/client/index.js";
import { type Daemon as Node, startDaemon } from "../src/node/daemon.js";
import { type Daemon, startMonerod, stopDaemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";

const skip = needPackage("monero");
const ADDRESS = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";
let monerod: Daemon | undefined;
let ours: Node | undefined;
let dir = "";

before(async () => {
  if (skip) return;
  monerod = startMonerod(await freePort(), await freePort());
  await waitReady(monerod, new NodeClient({ url: monerod.url }));
  await nodeCall(monerod.url, "generateblocks", { amount_of_blocks: 30, wallet_address: ADDRESS });
  dir = mkdtempSync(join(tmpdir(), "tsmonero-bootstrap-"));
  ours = await startDaemon({
    network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: await freePort(), logFile: "", logToConsole: false,
    syncMode: "fast", verifyThreads: 1, bootstrapDaemon: { address: monerod.url.replace("http://", ""), checkIntervalMs: 300 },
  });
});

after(async () => {
  await ours?.stop();
  if (monerod) await stopDaemon(monerod);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("behind the bootstrap daemon: its answers, untrusted; caught up: our own, for good", { skip }, async () => {
  assert.ok(ours && monerod);
  const port = monerod.url.split(":").pop();
  const info = await nodePath(ours.rpcUrl, "/get_info");
  assert.equal(info.height, 31, "the bootstrap daemon's height");
  assert.equal(info.untrusted, true);
  assert.equal(info.height_without_bootstrap, 1);
  assert.equal(info.was_bootstrap_ever_used, true);
  assert.equal(info.bootstrap_daemon_address, `127.0.0.1:${port}`);
  // monerod does not forward get_block_count: our own count
  assert.equal((await nodeCall(ours.rpcUrl, "get_block_count")).count, 1);
  const header = await nodeCall(ours.rpcUrl, "get_last_block_header");
  assert.equal(header.block_header.height, 30);
  assert.equal(header.untrusted, true);
  // a .bin call through the typed client: the bootstrap daemon's blocks
  const c = new NodeClient({ url: ours.rpcUrl });
  const g = (await nodeCall(monerod.url, "get_block_header_by_height", { height: 0 })).block_header;
  const genesis = Buffer.from(String(g.hash), "hex");
  const blocks = await c.getBlocksBin({ block_ids: [genesis], prune: true });
  assert.equal(blocks.current_height, 31n);
  assert.equal(blocks.untrusted, true);

  // we catch up: our own answers from the next check on, and never the bootstrap's again
  await ours.core.generateBlocks(40, ADDRESS);
  await new Promise((r) => setTimeout(r, 400));
  const mine = await nodePath(ours.rpcUrl, "/get_info");
  assert.deepEqual([mine.height, mine.untrusted, mine.was_bootstrap_ever_used], [41, false, true]);
  await nodeCall(monerod.url, "generateblocks", { amount_of_blocks: 20, wallet_address: ADDRESS });
  await new Promise((r) => setTimeout(r, 400));
  const still = await nodePath(ours.rpcUrl, "/get_info");
  assert.deepEqual([still.height, still.untrusted], [41, false], "not switching back");
});

test("/set_bootstrap_daemon: a proxy is refused with the reason; an empty address turns forwarding off", { skip }, async () => {
  assert.ok(ours);
  const url = ours.rpcUrl;
  const post = (body: { address: string; proxy?: string }) => nodePath(url, "/set_bootstrap_daemon", body);
  const proxied = await post({ address: "127.0.0.1:1", proxy: "127.0.0.1:9050" });
  assert.match(String(proxied.status), /^Failed to set bootstrap daemon to address = 127\.0\.0\.1:1: SOCKS proxies are not supported/);
  assert.equal((await post({ address: "" })).status, "OK");
  const info = await nodePath(ours.rpcUrl, "/get_info");
  assert.equal(info.bootstrap_daemon_address, "");
});
