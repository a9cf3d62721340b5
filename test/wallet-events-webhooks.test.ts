/**
 * Issue 20, push events end to end: a real tsmonerod regtest node, two tsmonero-wallet-rpc
 * processes (alice pays recv) and a local HTTP receiver subscribed to recv with add_webhook. Two
 * payments each reach the receiver as tx_pool → tx_confirmed (2 confirmations) → tx_unlocked, every
 * body signed with the subscription's HMAC; the second is paid while the receiver refuses (503), then
 * recv is killed with SIGKILL before delivery and again at random moments during later refreshes,
 * and restarted each time. In the end every event of the outbox for the subscription has arrived,
 * and an id that arrived twice carried the same body both times. A double spend of a pool payment
 * (a twin wallet's conflicting tx refused by the node) arrives as double_spend_seen between tx_pool
 * and tx_confirmed, through another kill -9. A reorg that takes a confirmed payment out and mines it
 * again, with recv killed during the refreshes that see it, gives exactly the expected events on
 * both sides.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { createServer, get, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import type { WalletEvent } from "../src/wallet/events/derive.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, walletRpc } from "./helpers/wallet-rpc.js";

const BIN = new URL("../../bin/tsmonero-wallet-rpc", import.meta.url).pathname;
const PORTS = { node: 19450, alice: 19451, recv: 19452, hook: 19453 } as const;
const SECRET = "a-receiver-secret-0123456789";

interface Received {
  readonly id: string;
  readonly body: string;
  readonly event: WalletEvent;
  readonly signatureOk: boolean;
  readonly path: string;
}

/** A Server-Sent Events client: the frames received so far (id, event, parsed data). */
function sse(url: string, lastEventId?: string): { frames: { id: string; kind: string; event: WalletEvent }[]; status: Promise<number>; close(): void } {
  const frames: { id: string; kind: string; event: WalletEvent }[] = [];
  let res: IncomingMessage | undefined;
  const status = new Promise<number>((resolve, reject) => {
    const req = get(url, { headers: lastEventId ? { "last-event-id": lastEventId } : {} }, (r) => {
      res = r;
      resolve(r.statusCode ?? 0);
      let buf = "";
      r.setEncoding("utf8");
      r.on("data", (d: string) => {
        buf += d;
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f = Object.fromEntries(block.split("\n").filter((l) => !l.startsWith(":")).map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]));
          if (f.data) frames.push({ id: f.id, kind: f.event, event: JSON.parse(f.data) as WalletEvent });
        }
      });
      r.on("error", () => undefined);
    });
    req.on("error", reject);
  });
  return { frames, status, close: () => res?.destroy() };
}

describe("webhooks from tsmonero-wallet-rpc, through SIGKILLs", () => {
  let daemon: Daemon;
  let node: NodeClient;
  let alice: Daemon;
  let recv: Daemon;
  let recvDir = "";
  let hook: Server;
  let accept = true;
  const got: Received[] = [];
  const dirs: string[] = [];
  const log: string[] = [];
  let aliceAddress = "";
  let recvAddress = "";

  const mine = (n: number) => nodeCall(node.url, "generateblocks", { amount_of_blocks: n, wallet_address: aliceAddress });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const has = (kind: string, txid: string) => got.some((g) => g.path === "/" && g.event.kind === kind && g.event.txid === txid);
  async function until(what: string, f: () => boolean, ms = 60_000): Promise<void> {
    const end = Date.now() + ms;
    while (!f()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; received: ${got.map((g) => `${g.event.kind}:${g.event.txid?.slice(0, 8) ?? ""}`).join(", ")}\n${recv.output.join("").slice(-3000)}`);
      await sleep(100);
    }
  }
  async function startRecv(): Promise<void> {
    recv = startWallet(BIN, daemon.url, PORTS.recv, recvDir);
    await waitWallet(recv);
  }
  async function killRecv(): Promise<void> {
    const gone = new Promise((r) => recv.proc.once("exit", r));
    recv.proc.kill("SIGKILL");
    await gone;
  }
  async function reopenRecv(): Promise<void> {
    await startRecv();
    await walletCall(recv.url, "open_wallet", { filename: "recv", password: "pw" });
    await walletCall(recv.url, "auto_refresh", { enable: false });
  }
  /** A refresh of recv killed with SIGKILL after a random delay up to `ms`, then recv reopened. */
  async function refreshThroughKill(ms: number): Promise<void> {
    const r = walletRpc(recv.url, "refresh").catch(() => undefined); // killed under way, or not
    await sleep(Math.floor(Math.random() * ms));
    await killRecv();
    await r;
    await reopenRecv();
  }

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-events-node-"));
    const aliceDir = mkdtempSync(join(tmpdir(), "tsmonero-events-alice-"));
    recvDir = mkdtempSync(join(tmpdir(), "tsmonero-events-recv-"));
    dirs.push(nodeDir, aliceDir, recvDir);
    hook = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (!accept) {
          log.push(`refused ${String(req.headers["x-tsmonero-event-id"])}`);
          res.writeHead(503).end();
          return;
        }
        const want = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
        const event = JSON.parse(body) as WalletEvent;
        got.push({ id: String(req.headers["x-tsmonero-event-id"]), body, event, signatureOk: req.headers["x-tsmonero-signature"] === want, path: req.url ?? "" });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hook.listen(PORTS.hook, "127.0.0.1", r));
    daemon = startRegtestNode("tsmonerod", [PORTS.node, PORTS.node + 9], nodeDir);
    node = new NodeClient({ url: daemon.url, timeoutMs: 120_000 });
    await waitReady(daemon, node);
    alice = startWallet(BIN, daemon.url, PORTS.alice, aliceDir);
    await startRecv();
    await waitWallet(alice);
    await walletCall(alice.url, "restore_deterministic_wallet", { filename: "alice", password: "", seed: WALLET_SEEDS.alice });
    await walletCall(recv.url, "create_wallet", { filename: "recv", password: "pw", language: "English" });
    for (const u of [alice.url, recv.url]) await walletCall(u, "auto_refresh", { enable: false });
    aliceAddress = String((await walletCall(alice.url, "get_address")).address);
    recvAddress = String((await walletCall(recv.url, "get_address")).address);
    await mine(80);
    await walletCall(alice.url, "refresh");
  });

  after(async () => {
    await stopProcesses([alice, recv].filter(Boolean));
    await stopDaemon(daemon);
    await new Promise((r) => hook.close(r));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("add_webhook checks its params; list_webhooks and remove_webhook manage the subscriptions", async () => {
    const bad = await walletRpc(recv.url, "add_webhook", { url: "ftp://x", secret: SECRET });
    assert.match(bad.error?.message ?? "", /^add_webhook: url must be http/);
    const short = await walletRpc(recv.url, "add_webhook", { url: `http://127.0.0.1:${PORTS.hook}/`, secret: "short" });
    assert.match(short.error?.message ?? "", /secret must be at least 16 characters/);
    const other = String((await walletCall(recv.url, "add_webhook", { url: `http://127.0.0.1:${PORTS.hook}/other`, secret: SECRET, account_index: 1 })).id);
    const id = String((await walletCall(recv.url, "add_webhook", { url: `http://127.0.0.1:${PORTS.hook}/`, secret: SECRET, confirmations: 2 })).id);
    const listed = (await walletCall(recv.url, "list_webhooks")).webhooks as { id: string; confirmations: number }[];
    assert.deepEqual(listed.map((w) => [w.id, w.confirmations]).sort(), [[other, 1], [id, 2]].sort());
    assert.deepEqual(await walletCall(recv.url, "remove_webhook", { id: other }), {});
    assert.match((await walletRpc(recv.url, "remove_webhook", { id: other })).error?.message ?? "", /no webhook/);
    assert.equal(((await walletCall(recv.url, "list_webhooks")).webhooks as unknown[]).length, 1);
  });

  it("a payment arrives as tx_pool, tx_confirmed at 2 confirmations and tx_unlocked, each signed", async () => {
    const tx1 = String((await walletCall(alice.url, "transfer", { destinations: [{ address: recvAddress, amount: 1_000_000_000_000 }] })).tx_hash);
    await walletCall(recv.url, "refresh");
    await until("tx_pool", () => has("tx_pool", tx1));
    await mine(1);
    await walletCall(recv.url, "refresh");
    await sleep(500);
    assert.equal(has("tx_confirmed", tx1), false, "1 confirmation is below the subscription's 2");
    await mine(1);
    await walletCall(recv.url, "refresh");
    await until("tx_confirmed", () => has("tx_confirmed", tx1));
    await mine(8);
    await walletCall(recv.url, "refresh");
    await until("tx_unlocked", () => has("tx_unlocked", tx1));
    const mine1 = got.filter((g) => g.event.txid === tx1);
    assert.deepEqual(mine1.map((g) => g.event.kind), ["tx_pool", "tx_confirmed", "tx_unlocked"]);
    assert.equal(mine1[1].event.confirmations, 2);
    assert.equal(mine1[0].event.amount, "1000000000000");
    assert.ok(got.every((g) => g.signatureOk && g.id === g.event.id));
    assert.ok(got.some((g) => g.event.kind === "wallet_synced"));
  });

  it("kill -9 before delivery and at random moments during refreshes: every event arrives, repeats only by id", async () => {
    accept = false;
    const tx2 = String((await walletCall(alice.url, "transfer", { destinations: [{ address: recvAddress, amount: 2_000_000_000_000 }] })).tx_hash);
    await walletCall(recv.url, "refresh"); // tx_pool of tx2 is in the outbox; the receiver refuses it
    await until("a refused delivery", () => log.length > 0);
    await killRecv();
    accept = true;
    await reopenRecv();
    await until("tx_pool of tx2 after the restart", () => has("tx_pool", tx2));
    for (let i = 0; i < 4; i++) {
      await mine(3);
      await refreshThroughKill(400);
    }
    await walletCall(recv.url, "refresh");
    await until("tx_confirmed and tx_unlocked of tx2", () => has("tx_confirmed", tx2) && has("tx_unlocked", tx2));
    await sleep(1500); // anything re-sent late would land now

    assert.ok(got.every((g) => g.signatureOk), "every body verifies under the secret");
    const byId = new Map<string, string>();
    for (const g of got) {
      assert.equal(g.id, g.event.id);
      const seen = byId.get(g.id);
      if (seen !== undefined) assert.equal(g.body, seen, "a repeat carries the same event");
      byId.set(g.id, g.body);
    }
    const txKinds = (txid: string) => [...new Set(got.filter((g) => g.event.txid === txid).map((g) => g.event.kind))];
    assert.deepEqual(txKinds(tx2), ["tx_pool", "tx_confirmed", "tx_unlocked"]);
    // none missing: every event of the outbox that this subscription takes has arrived
    const outbox = readFileSync(join(recvDir, ".recv.events"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { t: string; event?: WalletEvent });
    const wanted = outbox.flatMap((l) => (l.event && !(l.event.kind === "tx_confirmed" && l.event.confirmations !== 2) ? [l.event] : []));
    const missing = wanted.filter((e) => !byId.has(e.id) && e.kind !== "wallet_synced");
    assert.deepEqual(missing, []);
    // wallet_synced: those after the subscription arrived; none arrived that the outbox does not hold
    const outIds = new Set(wanted.map((e) => e.id));
    assert.ok([...byId.keys()].every((id) => outIds.has(id)));
    assert.ok(wanted.filter((e) => e.kind === "wallet_synced").slice(-5).every((e) => byId.has(e.id)));
  });

  it("the SSE stream at /events replays the outbox after Last-Event-ID and pushes new events live", async () => {
    const first = got[0].id;
    const replay = sse(`${recv.url}/events`, first);
    assert.equal(await replay.status, 200);
    const outbox = readFileSync(join(recvDir, ".recv.events"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { t: string; event?: WalletEvent })
      .flatMap((l) => (l.event ? [l.event] : []));
    const after = outbox.slice(outbox.findIndex((e) => e.id === first) + 1);
    await until("the replay", () => replay.frames.length >= after.length);
    assert.deepEqual(replay.frames.map((f) => f.id), after.map((e) => e.id));
    assert.ok(replay.frames.every((f) => f.kind === f.event.kind && f.id === f.event.id));
    // live: a new block makes a wallet_synced, on the stream and to the webhook, under one id
    const live = sse(`${recv.url}/events`);
    assert.equal(await live.status, 200);
    await mine(1);
    await walletCall(recv.url, "refresh");
    await until("a live wallet_synced", () => live.frames.some((f) => f.kind === "wallet_synced"));
    const synced = live.frames.find((f) => f.kind === "wallet_synced");
    await until("the same event by webhook", () => got.some((g) => g.id === synced?.id));
    assert.equal(replay.frames.at(-1)?.id, synced?.id, "the replaying stream continues live");
    replay.close();
    live.close();
    // raw: the HTTP status of a POST to the event stream is the point
    const post = await fetch(`${recv.url}/events`, { method: "POST", body: "{}" });
    assert.equal(post.status, 405);
  });

  it("a reorg that takes a confirmed payment out is tx_reorged; mined again it is confirmed under a new id; the sender sees outgoing_sent / outgoing_confirmed", async () => {
    await walletCall(alice.url, "add_webhook", { url: `http://127.0.0.1:${PORTS.hook}/alice`, secret: SECRET });
    const at = (path: string, kind: string, txid: string) => got.filter((g) => g.path === path && g.event.kind === kind && g.event.txid === txid);
    await walletCall(alice.url, "refresh");
    const tx3 = String((await walletCall(alice.url, "transfer", { destinations: [{ address: recvAddress, amount: 3_000_000_000_000 }] })).tx_hash);
    await walletCall(alice.url, "refresh");
    await until("outgoing_sent", () => at("/alice", "outgoing_sent", tx3).length > 0);
    await walletCall(recv.url, "refresh");
    await mine(3);
    for (const u of [alice.url, recv.url]) await walletCall(u, "refresh");
    await until("tx_confirmed of tx3", () => has("tx_confirmed", tx3) && at("/alice", "outgoing_confirmed", tx3).length > 0);
    const minedAt = at("/", "tx_confirmed", tx3)[0].event.height ?? 0;
    // the node drops the 3 blocks (tx3 goes back to its pool) and mines 3 others: the wallet, as
    // wallet2, sees the reorg when the new chain is longer... or as long, at its first differing block
    await nodePath(node.url, "/pop_blocks", { nblocks: 3 });
    await mine(4);
    // recv is killed while its refresh walks the reorg (or before it starts, or after it ends)
    await refreshThroughKill(400);
    await walletCall(recv.url, "refresh");
    await until("tx_reorged of tx3", () => has("tx_reorged", tx3));
    const reorg = at("/", "tx_reorged", tx3)[0].event;
    assert.equal(reorg.from_height, minedAt);
    assert.ok(reorg.status === "moved" || reorg.status === "pool", String(reorg.status));
    if (reorg.status === "pool") {
      await mine(3);
      await refreshThroughKill(300);
      await walletCall(recv.url, "refresh");
    }
    await until("tx3 confirmed again", () => new Set(at("/", "tx_confirmed", tx3).map((g) => g.id)).size === 2);
    for (const u of [alice.url, recv.url]) await walletCall(u, "refresh");
    await until("alice's outgoing_confirmed again", () => new Set(at("/alice", "outgoing_confirmed", tx3).map((g) => g.id)).size === 2);
    await sleep(1500); // anything re-sent late would land now
    assert.ok(got.every((g) => g.signatureOk));
    // exactly the expected events, each id once (a repeat of an id is the same body: checked above)
    const kindsOf = (path: string, txid: string, dir: string) => {
      const byId = new Map(got.filter((g) => g.path === path && g.event.txid === txid && g.event.direction === dir).map((g) => [g.id, g.event.kind]));
      return [...byId.values()].sort();
    };
    const again = reorg.status === "pool" ? ["tx_pool"] : [];
    assert.deepEqual(kindsOf("/", tx3, "in"), ["tx_pool", "tx_confirmed", "tx_reorged", ...again, "tx_confirmed"].sort());
    const alices = at("/alice", "tx_reorged", tx3).find((g) => g.event.direction === "out")?.event;
    assert.ok(alices, "the sender sees the reorg of its tx");
    const sentAgain = alices.status === "pool" ? ["outgoing_sent"] : [];
    assert.deepEqual(kindsOf("/alice", tx3, "out"), ["outgoing_sent", "outgoing_confirmed", "tx_reorged", ...sentAgain, "outgoing_confirmed"].sort());
  });

  it("a double spend of a pool payment: tx_pool, double_spend_seen (recv killed with -9 in between), then tx_confirmed; the conflicting tx never shows", async () => {
    // a twin of alice (same seed, its own file) signs a sweep of one of her outputs back to herself
    // without relaying it; alice then sweeps the same output to recv (A, relayed). The twin's tx sent
    // to the node afterwards conflicts with A in the pool: the node refuses it and flags A
    // (tx_memory_pool::mark_double_spend), and recv's pool payment shows double_spend_seen
    await walletCall(alice.url, "refresh");
    const outs = ((await walletCall(alice.url, "incoming_transfers", { transfer_type: "available" })).transfers as { key_image: string; amount: number | bigint }[])
      .filter((o) => BigInt(o.amount) > 1_000_000_000_000n);
    assert.ok(outs.length > 0, "alice has an unlocked output");
    const ki = outs[0].key_image;
    await walletCall(alice.url, "close_wallet");
    await walletCall(alice.url, "restore_deterministic_wallet", { filename: "alice-twin", password: "", seed: WALLET_SEEDS.alice });
    await walletCall(alice.url, "auto_refresh", { enable: false });
    await walletCall(alice.url, "refresh");
    const twin = await walletCall(alice.url, "sweep_single", { key_image: ki, address: aliceAddress, do_not_relay: true, get_tx_hex: true });
    const conflict = String(twin.tx_hash);
    await walletCall(alice.url, "close_wallet");
    await walletCall(alice.url, "open_wallet", { filename: "alice", password: "" });
    await walletCall(alice.url, "auto_refresh", { enable: false });
    const a = String((await walletCall(alice.url, "sweep_single", { key_image: ki, address: recvAddress })).tx_hash);
    assert.notEqual(a, conflict);
    await walletCall(recv.url, "refresh");
    await until("tx_pool of the payment", () => has("tx_pool", a));
    await killRecv();
    const sent = await nodePath(node.url, "/send_raw_transaction", { tx_as_hex: String(twin.tx_blob) });
    assert.equal(sent.double_spend, true, `the node refuses the conflicting tx as a double spend: ${JSON.stringify(sent, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`);
    const flagged = await nodePath(node.url, "/get_transactions", { txs_hashes: [a] });
    assert.ok(flagged.txs, "the pool tx is answered");
    assert.deepEqual(flagged.txs.map((t) => [t.in_pool, t.double_spend_seen]), [[true, true]], "the pool tx is flagged");
    await reopenRecv();
    await walletCall(recv.url, "refresh");
    await until("double_spend_seen of the payment", () => has("double_spend_seen", a));
    await mine(2);
    await refreshThroughKill(300);
    await walletCall(recv.url, "refresh");
    await until("tx_confirmed of the payment", () => has("tx_confirmed", a));
    await sleep(1000);
    const kinds = got.filter((g) => g.path === "/" && g.event.txid === a);
    assert.deepEqual([...new Set(kinds.map((g) => g.event.kind))], ["tx_pool", "double_spend_seen", "tx_confirmed"]);
    const ds = kinds.find((g) => g.event.kind === "double_spend_seen")?.event;
    assert.equal(ds?.height, 0);
    assert.equal(ds?.direction, "in");
    assert.ok(!got.some((g) => g.event.txid === conflict), "the refused tx is no event");
    assert.ok(got.every((g) => g.signatureOk));
  });

  it("a wallet opened without an emitted state takes its ledger as the baseline: its history is not pushed again", async () => {
    await killRecv();
    unlinkSync(join(recvDir, ".recv.events-state"));
    const before = new Set(got.map((g) => g.id));
    await reopenRecv();
    await walletCall(recv.url, "refresh");
    await sleep(1500);
    const fresh = got.filter((g) => !before.has(g.id) && g.path === "/");
    assert.ok(fresh.every((g) => g.event.kind === "wallet_synced"), fresh.map((g) => g.event.kind).join(", "));
    assert.ok(readFileSync(join(recvDir, ".recv.events-state"), "utf8").length > 0);
  });
});
