/**
 * Dandelion++ (src/node/p2p/dandelion.ts) against monerod 0.18's rules (levin_notify.cpp,
 * dandelionpp.cpp): epochs that fluff 20 % of the time, up to two stems among outgoing peers as
 * high as the chain, one stem per source, replaced stems, fluff queues flushed per connection
 * after Poisson delays (5 s in, 2.5 s out, in quarter seconds), sorted; with a fake clock, timers
 * and random source. The pool's side (stem embargo, hidden from public view, fluffed, kept across
 * a restart) on a real pool.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { isBroadcast } from "../src/node/core.js";
import { openNode } from "../src/node/chain/index.js";
import { Dandelion, type DandelionPeer, DANDELIONPP_EMBARGO_AVERAGE, embargoSeconds, poisson } from "../src/node/p2p/dandelion.js";
import { defaultBackend } from "../src/crypto/index.js";
import { buildSpend, mineTo, newKeys, ownedCoinbase } from "./helpers/node-spend.js";
import { seededRandom } from "./helpers/random.js";
import { relayDelay } from "../src/node/pool/tx-pool.js";
import { decodeEpee } from "../src/codec/epee-map.js";
import { newTransactions, newTransactionsBody } from "../src/node/p2p/messages.js";


interface Sent {
  to: string;
  txs: string[];
  fluff: boolean;
  at: number;
}

function harness(opts: { peers: { id: string; inbound: boolean; height: bigint }[]; random: () => number; height?: bigint }) {
  let clock = 1_000_000;
  const timers: { at: number; f: () => void; live: boolean }[] = [];
  const sent: Sent[] = [];
  const logs: string[] = [];
  const closed = new Set<string>();
  let peers = opts.peers;
  const d = new Dandelion({
    peers: () =>
      peers.map(
        (p): DandelionPeer => ({
          ...p,
          send: (txs, fluff) => {
            if (closed.has(p.id)) return false;
            sent.push({ to: p.id, txs: txs.map((t) => Buffer.from(t).toString("hex")), fluff, at: clock });
            return true;
          },
        }),
      ),
    chainHeight: () => opts.height ?? 100n,
    log: (m) => logs.push(m),
    random: opts.random,
    now: () => clock,
    setTimer: (f, ms) => {
      const t = { at: clock + ms, f, live: true };
      timers.push(t);
      return { cancel: () => (t.live = false) };
    },
  });
  /** Moves the clock to `to`, firing due timers in order. */
  const advance = (to: number): void => {
    for (;;) {
      const due = timers.filter((t) => t.live && t.at <= to).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      clock = due.at;
      due.f();
    }
    clock = to;
  };
  return {
    d,
    sent,
    logs,
    advance,
    now: () => clock,
    close: (id: string) => {
      closed.add(id);
      peers = peers.filter((p) => p.id !== id);
      d.dropPeer(id);
    },
    setPeers: (p: typeof peers) => (peers = p),
  };
}

const tx = (n: number): Uint8Array => Uint8Array.of(n, n, n);

test("poisson and the embargo: the means monerod uses (39 s embargo, 20 quarter seconds in, 10 out)", () => {
  const r = seededRandom(7);
  for (const mean of [10, 20, DANDELIONPP_EMBARGO_AVERAGE]) {
    const xs = Array.from({ length: 4000 }, () => poisson(mean, r));
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.ok(Math.abs(m - mean) < mean * 0.05, `mean ${m} for ${mean}`);
    assert.ok(xs.every((x) => Number.isInteger(x) && x >= 0));
  }
  const e = Array.from({ length: 2000 }, () => embargoSeconds(r));
  assert.ok(Math.abs(e.reduce((a, b) => a + b, 0) / e.length - 39) < 2);
});

test("a stem epoch: up to two stems among outgoing peers as high as the chain, one stem per source, the least used first", () => {
  const peers = [
    { id: "in1", inbound: true, height: 100n },
    { id: "in2", inbound: true, height: 100n },
    { id: "low", inbound: false, height: 99n },
    { id: "o1", inbound: false, height: 100n },
    { id: "o2", inbound: false, height: 101n },
    { id: "o3", inbound: false, height: 100n },
  ];
  // random() = 0.5 → 50 ≥ 20: a stem epoch
  let n = 0;
  const r = seededRandom(3);
  const h = harness({ peers, random: () => (n++ === 0 ? 0.5 : r()) });
  const stems = h.d.currentStems();
  assert.equal(h.d.fluffing, false);
  assert.equal(stems.length, 2);
  for (const s of stems) assert.ok(["o1", "o2", "o3"].includes(s), `${s} is an outgoing peer as high as the chain`);
  // our own txs: always the same stem; two sources get the two different stems (least used)
  assert.equal(h.d.stem([tx(1)]), true);
  assert.equal(h.d.stem([tx(2)]), true);
  const ours = h.sent.filter((s) => s.txs[0] === "010101" || s.txs[0] === "020202");
  assert.equal(ours.length, 2);
  assert.equal(ours[0].to, ours[1].to);
  assert.ok(ours.every((s) => !s.fluff), "sent along the stem: dandelionpp_fluff false");
  assert.equal(h.d.stem([tx(3)], "in1"), true);
  const other = h.sent.at(-1)!;
  assert.notEqual(other.to, ours[0].to, "a second source gets the other stem");
  assert.equal(h.d.stem([tx(4)], "in1"), true);
  assert.equal(h.sent.at(-1)!.to, other.to, "and keeps it");
});

test("a stem that disconnects is replaced; with no outgoing peer the stem fails and the caller fluffs", () => {
  let n = 0;
  const r = seededRandom(11);
  const h = harness({
    peers: [
      { id: "o1", inbound: false, height: 100n },
      { id: "o2", inbound: false, height: 100n },
      { id: "o3", inbound: false, height: 100n },
      { id: "in", inbound: true, height: 100n },
    ],
    random: () => (n++ === 0 ? 0.9 : r()),
  });
  assert.equal(h.d.stem([tx(1)]), true);
  const first = h.sent.at(-1)!.to;
  h.close(first);
  assert.equal(h.d.stem([tx(2)]), true);
  const second = h.sent.at(-1)!.to;
  assert.notEqual(second, first);
  assert.ok(second.startsWith("o"));
  for (const id of ["o1", "o2", "o3"]) if (id !== first) h.close(id);
  assert.equal(h.d.stem([tx(3)]), false, "no outgoing connection: no stem");
  assert.ok(h.logs.some((l) => l.includes("Unable to send transaction(s) via Dandelion++ stem")));
});

test("a fluff epoch (20 %) sends nothing along a stem", () => {
  let n = 0;
  const h = harness({ peers: [{ id: "o1", inbound: false, height: 100n }], random: () => (n++ === 0 ? 0.19 : 0.5) });
  assert.equal(h.d.stem([tx(1)]), false);
  assert.equal(h.d.fluffing, true);
  assert.equal(h.sent.length, 0);
});

test("a new epoch after 10 min and up to 30 s: a new draw and new stems", () => {
  const draws = [0.5, 0.0, 0.0, 0.1];
  let n = 0;
  const h = harness({
    peers: [
      { id: "o1", inbound: false, height: 100n },
      { id: "o2", inbound: false, height: 100n },
    ],
    random: () => draws[n++] ?? 0,
  });
  assert.equal(h.d.stem([tx(1)]), true);
  h.advance(h.now() + 10 * 60_000 - 1);
  assert.equal(h.d.fluffing, false, "still the first epoch");
  h.d.currentStems();
  h.advance(h.now() + 1);
  h.d.currentStems();
  assert.equal(h.d.fluffing, true, "the second epoch drew 0.1 × 100 < 20: fluff");
});

test("fluff: every peer but the source, after its own Poisson delay (in 5 s, out 2.5 s on average), sorted, one message each", () => {
  const r = seededRandom(5);
  const peers = [
    { id: "src", inbound: true, height: 100n },
    { id: "in", inbound: true, height: 100n },
    { id: "out", inbound: false, height: 100n },
  ];
  const h = harness({ peers, random: r });
  const t0 = h.now();
  h.d.fluff([tx(9), tx(3)], "src");
  h.d.fluff([tx(5)], "src");
  assert.equal(h.sent.length, 0, "nothing before the delays");
  h.advance(t0 + 60_000);
  assert.equal(h.sent.length, 2);
  assert.ok(!h.sent.some((s) => s.to === "src"), "not back to the source");
  for (const s of h.sent) {
    assert.equal(s.fluff, true);
    assert.deepEqual(s.txs, ["030303", "050505", "090909"], "all queued txs in one message, sorted");
    assert.equal((s.at - t0) % 250, 0, "quarter seconds");
  }
  // the averages, over many rounds
  const delays = { in: [] as number[], out: [] as number[] };
  for (let i = 0; i < 600; i++) {
    const start = h.now();
    const before = h.sent.length;
    h.d.fluff([tx(i % 250)], "src");
    h.advance(start + 60_000);
    for (const s of h.sent.slice(before)) delays[s.to as "in" | "out"].push(s.at - start);
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(Math.abs(avg(delays.in) - 5000) < 300, `incoming ${avg(delays.in)} ms`);
  assert.ok(Math.abs(avg(delays.out) - 2500) < 200, `outgoing ${avg(delays.out)} ms`);
});

test("--pad-transactions: tx notifications padded with spaces to a multiple of 1024 bytes, the txs unchanged", () => {
  const rnd = seededRandom(7);
  for (const sizes of [[1], [1500], [2000, 3000], [1021], [1022], [1023], [1024], [4000, 1, 70000]]) {
    const txs = sizes.map((n) => Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256)));
    for (const fluff of [true, false]) {
      const plain = newTransactionsBody(txs, fluff);
      const padded = newTransactionsBody(txs, fluff, true);
      // monerod's trim may leave the body one byte short of the boundary (the size varint shrank)
      assert.ok([0, 1023].includes(padded.length % 1024), `${sizes}: ${padded.length} bytes`);
      assert.ok(padded.length >= plain.length);
      const d = decodeEpee(newTransactions, padded);
      assert.deepEqual(d.txs.map((t) => Buffer.from(t).toString("hex")), txs.map((t) => Buffer.from(t).toString("hex")));
      assert.equal(d.dandelionpp_fluff, fluff);
      assert.ok(d._.every((b) => b === 0x20), "spaces, as monerod's std::string(padding, ' ')");
      assert.equal(decodeEpee(newTransactions, plain)._.length, 0, "unpadded: an empty _");
    }
  }
});

test("get_relay_delay: 5 min, 5 min more for each 5 min in the pool at the last relay, at most 4 h", () => {
  assert.equal(relayDelay(1000, 1000), 300);
  assert.equal(relayDelay(1299, 1000), 300);
  assert.equal(relayDelay(1300, 1000), 600);
  assert.equal(relayDelay(1000 + 3 * 3600, 1000), 3 * 3600 + 300);
  assert.equal(relayDelay(1000 + 10 * 3600, 1000), 4 * 3600);
});

test("the pool: a stem tx is hidden and embargoed, fluffed it is public again, a restart keeps the embargo, relay_tx makes a do_not_relay tx local", async () => {
  const be = defaultBackend();
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-dandelion-"));
  let clock = 1_700_000_000;
  const open = () => openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1, offline: true });
  try {
    let node = await open();
    const me = newKeys(be);
    for (let h = 1; h < 80; h++) {
      clock += 120;
      await mineTo(node, me, 1, be, BigInt(clock));
    }
    const a = buildSpend(node.store, ownedCoinbase(node.store, 1, me, be), me, be, { now: BigInt(clock) });
    const b = buildSpend(node.store, ownedCoinbase(node.store, 2, me, be), me, be, { now: BigInt(clock) });
    // b arrives along a stem: embargoed from the start; a is ours, stemmed after it was added
    const ra = await node.submitTransaction(a);
    const rb = await node.submitTransaction(b, { stemEmbargo: clock + 40 });
    assert.ok(ra.ok && rb.ok);
    await node.stemTransactions([ra.id!], clock + 30);
    for (const id of [ra.id!, rb.id!]) {
      const e = node.pool.get(id)!;
      assert.equal(isBroadcast(e), false, "a stem tx is not public");
      assert.equal(e.lastRelayedTime, 0, "monerod reports last_relayed_time 0 for a stem tx");
      assert.equal(e.relayed, true);
    }
    assert.equal(node.pool.changesSince(0n, { includeSensitive: false, maxTxCount: 100 }).added.length, 0, "not in the public pool info");
    assert.equal(node.pool.changesSince(0n, { includeSensitive: true, maxTxCount: 100 }).added.length, 2);
    assert.deepEqual(node.pool.embargoEnded(clock + 29), []);
    assert.deepEqual(node.pool.embargoEnded(clock + 30).map((e) => Buffer.from(e.id).toString("hex")), [Buffer.from(ra.id!).toString("hex")]);
    // a restart keeps both embargoes
    await node.close();
    node = await open();
    assert.equal(node.pool.get(rb.id!)!.stemEmbargo, clock + 40);
    assert.equal(node.pool.get(ra.id!)!.stemEmbargo, clock + 30);
    // fluffed (by us at the embargo's end, or by a peer): public, relayed now, and announced as
    // public once (the "pool-broadcast" event ZMQ's txpool_add follows)
    clock += 31;
    const announced: string[] = [];
    node.on("pool-broadcast", (es) => announced.push(...es.map((x) => Buffer.from(x.id).toString("hex"))));
    await node.relayTransactions([ra.id!]);
    await node.relayTransactions([ra.id!]);
    assert.deepEqual(announced, [Buffer.from(ra.id!).toString("hex")], "public once, not again");
    const e = node.pool.get(ra.id!)!;
    assert.equal(isBroadcast(e), true);
    assert.equal(e.stemEmbargo, undefined);
    assert.equal(e.lastRelayedTime, clock);
    assert.equal(node.pool.changesSince(0n, { includeSensitive: false, maxTxCount: 100 }).added.length, 1, "public from then on");
    // a tx from our RPC while P2P runs (relay_method::local) waits, not public, until P2P stems or fluffs it
    const c = buildSpend(node.store, ownedCoinbase(node.store, 3, me, be), me, be, { now: BigInt(clock) });
    const rc = await node.submitTransaction(c, { local: true });
    assert.ok(rc.ok);
    assert.equal(isBroadcast(node.pool.get(rc.id!)!), false, "local: not public yet");
    await node.stemTransactions([rc.id!], clock + 50);
    assert.equal(node.pool.get(rc.id!)!.local, undefined, "stemmed: no longer local, embargoed");
    assert.equal(node.pool.get(rc.id!)!.stemEmbargo, clock + 50);
    // relay_tx with P2P running (relay_method::local): a do_not_relay tx becomes local for P2P to
    // stem or fluff; one already public or in a stem keeps its state; an unknown id is missing
    const d = buildSpend(node.store, ownedCoinbase(node.store, 4, me, be), me, be, { now: BigInt(clock) });
    const rd = await node.submitTransaction(d, { doNotRelay: true });
    assert.ok(rd.ok);
    const unknown = new Uint8Array(32).fill(7);
    const r = await node.relayLocalTransactions([rd.id!, ra.id!, rc.id!, unknown]);
    const hexes = (xs: Uint8Array[]) => xs.map((x) => Buffer.from(x).toString("hex"));
    assert.deepEqual(hexes(r.local), hexes([rd.id!]));
    assert.deepEqual(hexes(r.others), hexes([ra.id!, rc.id!]));
    assert.deepEqual(hexes(r.missing), hexes([unknown]));
    const ed = node.pool.get(rd.id!)!;
    assert.equal(ed.doNotRelay, false);
    assert.equal(ed.local, true, "local: P2P decides");
    assert.equal(isBroadcast(ed), false, "not public until P2P fluffs it");
    await node.stemTransactions([rd.id!], clock + 60);
    assert.equal(node.pool.get(rd.id!)!.stemEmbargo, clock + 60, "then stemmed like any local tx");
    // relayed again (relay_txpool_transactions): the public ones, once their relay delay has passed
    const ids = (es: { id: Uint8Array }[]) => es.map((x) => Buffer.from(x.id).toString("hex"));
    const pub = node.pool.get(ra.id!)!;
    assert.deepEqual(ids(node.pool.relayable(clock + 300)), [], "5 min after its relay: not yet");
    assert.deepEqual(ids(node.pool.relayable(pub.lastRelayedTime + relayDelay(pub.lastRelayedTime, pub.receiveTime) + 1)), ids([pub]), "only the public one; stem txs wait for their embargo");
    // relayed again 400 s after its fluff, 431 s in the pool: the next delay is 10 min
    clock += 400;
    await node.relayTransactions([ra.id!]);
    assert.equal(node.pool.get(ra.id!)!.lastRelayedTime, clock);
    assert.deepEqual(ids(node.pool.relayable(clock + 600)), []);
    assert.deepEqual(ids(node.pool.relayable(clock + 601)), ids([pub]));
    assert.deepEqual(ids(node.pool.relayable(pub.receiveTime + 86400 / 2 + 1)).includes(ids([pub])[0]), false, "older than half its lifetime: never again");
    await node.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
