/**
 * Issue 20, push events: the outbox (append-only, a torn last line cut off on open, delivery marks
 * replayed) and a webhook sender against a local receiver that fails twice (retried with backoff,
 * in order, HMAC-signed, filtered by account and confirmations, marks kept across a reopen).
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { WalletEvent } from "../src/wallet/events/derive.js";
import { Outbox } from "../src/wallet/events/outbox.js";
import { signBody, WebhookSender, WebhookStore } from "../src/wallet/events/webhooks.js";

const PORT = 19454;
const ev = (id: string, extra: Partial<WalletEvent> = {}): WalletEvent => ({ id, kind: "tx_pool", wallet: "w", txid: id.repeat(64).slice(0, 64), account_index: 0, subaddress_indices: [1], amount: "5", height: 0, ...extra });

describe("event outbox and webhook sender", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-outbox-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("holds each id once, keeps delivery marks, and cuts a torn last line on open", () => {
    const path = join(dir, "a.events");
    const logs: string[] = [];
    const o = new Outbox(path, (m) => logs.push(m));
    assert.deepEqual(o.append([ev("1"), ev("2"), ev("1")]).map((s) => s.seq), [1, 2]);
    assert.deepEqual(o.append([ev("2"), ev("3")]).map((s) => s.event.id), ["3"]);
    o.markDelivered("h", "2");
    o.close();
    appendFileSync(path, '{"t":"event","event":{"id":"4","ki'); // kill -9 mid-write
    const r = new Outbox(path, (m) => logs.push(m));
    assert.equal(r.lastSeq, 3);
    assert.ok(r.isDelivered("h", "2") && !r.isDelivered("h", "1"));
    assert.match(logs.join("\n"), /cutting off a torn last line of 34 bytes/);
    assert.deepEqual(r.append([ev("4")]).map((s) => s.seq), [4]);
    r.close();
    assert.ok(readFileSync(path, "utf8").split("\n").slice(0, -1).every((l) => JSON.parse(l) !== null));
    assert.equal(new Outbox(path, () => undefined).seqOf("4"), 4);
  });

  it("posts in order with the HMAC header, retries with backoff, skips what the hook does not take", async () => {
    const got: { id: string; body: string; sig: string }[] = [];
    let failures = 2;
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        if (failures-- > 0) return void res.writeHead(500).end();
        got.push({ id: String(req.headers["x-tsmonero-event-id"]), body, sig: String(req.headers["x-tsmonero-signature"]) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(PORT, "127.0.0.1", r));
    try {
      const o = new Outbox(join(dir, "b.events"), () => undefined);
      o.append([ev("old")]);
      const store = new WebhookStore(join(dir, "b.webhooks"));
      const hook = store.add({ url: `http://127.0.0.1:${PORT}/`, secret: "0123456789abcdef", confirmations: 1, account_index: 0, subaddress_indices: [1], since: o.lastSeq });
      assert.deepEqual(new WebhookStore(join(dir, "b.webhooks")).all(), [hook], "kept on disk");
      const logs: string[] = [];
      const sender = new WebhookSender(hook, o, (m) => logs.push(m), { backoffMs: 50, maxBackoffMs: 200 });
      o.append([
        ev("a"),
        ev("x", { account_index: 1 }), // another account
        ev("y", { subaddress_indices: [2] }), // another subaddress
        ev("b", { kind: "tx_confirmed", confirmations: 1 }),
        ev("z", { kind: "tx_confirmed", confirmations: 3 }), // another threshold
        { id: "s", kind: "wallet_synced", wallet: "w", height: 9 }, // wallet-wide
      ]);
      sender.wake();
      const end = Date.now() + 10_000;
      while (got.length < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      await sender.stop();
      assert.deepEqual(got.map((g) => g.id), ["a", "b", "s"]);
      assert.ok(got.every((g) => g.sig === signBody("0123456789abcdef", g.body) && (JSON.parse(g.body) as WalletEvent).id === g.id));
      assert.equal(logs.length, 2);
      assert.match(logs[0], /answered HTTP 500; retrying \(attempt 2\)/);
      o.close();
      const again = new Outbox(join(dir, "b.events"), () => undefined);
      assert.deepEqual(["old", "a", "b", "s"].map((id) => again.isDelivered(hook.id, id)), [false, true, true, true]);
      again.close();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
