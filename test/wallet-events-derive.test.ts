/**
 * Issue 20, push events: the pure deriver over scripted ledger views — pool, confirmations at
 * several thresholds, unlock, outgoing sent/confirmed/failed, a reorg that moves a tx and one that
 * drops it, wallet_synced — and ids that repeat exactly when the same occurrence is derived again
 * (as after a restart from the same emitted state).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deriveEvents, type EmittedState, emptyEmittedState, type IncomingView, type LedgerView, type OutgoingView } from "../src/wallet/events/derive.js";

const TX = "aa".repeat(32);
const TX2 = "bb".repeat(32);
const OUT = "cc".repeat(32);
const inc = (height: number, unlocked = false, txid = TX, blockHash = `b${height}`): IncomingView => ({ txid, account: 0, minor: 1, amount: 5n, height, blockHash, unlocked, doubleSpendSeen: false });
const out = (height: number, failed = false): OutgoingView => ({ txid: OUT, account: 1, subaddrIndices: [0], amount: 7n, height, blockHash: `b${height}`, failed });
// every scripted chain has its own top block (a reorg back to a height has another hash there)
let chain = 0;
const view = (height: number, incoming: IncomingView[], outgoing: OutgoingView[] = [], synced = true): LedgerView => ({ height, topHash: `h${height}-${synced ? ++chain : chain}`, synced, incoming, outgoing });

function run(steps: LedgerView[], levels = [1, 3]): { kinds: string[][]; ids: string[][]; state: EmittedState } {
  let state = emptyEmittedState();
  const kinds: string[][] = [];
  const ids: string[][] = [];
  for (const v of steps) {
    const r = deriveEvents("w", state, v, levels);
    state = r.state;
    kinds.push(r.events.map((e) => `${e.kind}${e.confirmations ? `@${e.confirmations}` : ""}${e.status ? `:${e.status}` : ""}`));
    ids.push(r.events.map((e) => e.id));
  }
  return { kinds, ids, state };
}

describe("event deriver", () => {
  it("pool → confirmed at 1 and 3 → unlocked, outgoing sent → confirmed, synced per height", () => {
    const r = run([
      view(100, [inc(0)], [out(0)]),
      view(101, [inc(100)], [out(100)]),
      view(101, [inc(100)], [out(100)], false),
      view(103, [inc(100)], [out(100)]),
      view(110, [inc(100, true)], [out(100)]),
    ]);
    assert.deepEqual(r.kinds, [
      ["tx_pool", "outgoing_sent", "wallet_synced"],
      ["tx_confirmed@1", "outgoing_confirmed@1", "wallet_synced"],
      [],
      ["tx_confirmed@3", "outgoing_confirmed@3", "wallet_synced"],
      ["tx_unlocked", "wallet_synced"],
    ]);
    assert.equal(new Set(r.ids.flat()).size, r.ids.flat().length, "every occurrence has its own id");
  });

  it("a tx past several thresholds at once gets each; deriving again from the same state gives the same ids", () => {
    const s0 = emptyEmittedState();
    const v = view(120, [inc(100, true)]);
    const a = deriveEvents("w", s0, v, [1, 3, 10]);
    assert.deepEqual(a.events.map((e) => [e.kind, e.confirmations]), [["tx_confirmed", 1], ["tx_confirmed", 3], ["tx_confirmed", 10], ["tx_unlocked", undefined], ["wallet_synced", undefined]]);
    const b = deriveEvents("w", s0, v, [1, 3, 10]);
    assert.deepEqual(b.events.map((e) => e.id), a.events.map((e) => e.id));
    assert.deepEqual(deriveEvents("w", a.state, v, [1, 3, 10]).events, []);
    assert.notDeepEqual(deriveEvents("other", s0, v, [1]).events[0].id, a.events[0].id, "ids differ between wallets");
  });

  it("says whether the state changed, and leaves the previous state as it was", () => {
    const v = view(120, [inc(100, true), inc(119, false, TX2)], [out(110)]);
    const a = deriveEvents("w", emptyEmittedState(), v, [1, 3]);
    assert.equal(a.changed, true);
    const before = structuredClone(a.state);
    // the same view again (an idle refresh): nothing to emit, nothing changed, the marks kept as they were
    const b = deriveEvents("w", a.state, { ...v, synced: false }, [1, 3]);
    assert.deepEqual(b.events, []);
    assert.equal(b.changed, false);
    assert.equal(b.state.incoming[`${TX}:0:1`], a.state.incoming[`${TX}:0:1`], "an unchanged mark is the same object");
    // one more block: TX2 reaches 3 confirmations; the new state changes, the old one does not
    const c = deriveEvents("w", b.state, view(122, [inc(100, true), inc(119, false, TX2)], [out(110)]), [1, 3]);
    assert.deepEqual(c.events.map((e) => `${e.kind}@${e.confirmations ?? ""}`), ["tx_confirmed@3", "wallet_synced@"]);
    assert.equal(c.changed, true);
    assert.deepEqual(a.state, before, "deriving from a state does not modify it");
    assert.deepEqual(b.state, before);
    assert.deepEqual(c.state.incoming[`${TX2}:0:1`].levels, [1, 3]);
  });

  it("reorgs: a tx moved to another height, one back to the pool, one dropped, an outgoing failed; later events get new ids", () => {
    const r = run([
      view(105, [inc(100), inc(101, false, TX2)], [out(0)]),
      view(104, [inc(102), inc(0, false, TX2)], [out(0, true)]), // TX moved 100 → 102, TX2 back to the pool
      view(105, [inc(102)], [out(0, true)]), // TX2 dropped
      view(105, [inc(100)], [out(0, true)]), // TX back at 100: confirmed again, under a new id
    ]);
    assert.deepEqual(r.kinds, [
      ["tx_confirmed@1", "tx_confirmed@3", "tx_confirmed@1", "tx_confirmed@3", "outgoing_sent", "wallet_synced"],
      ["tx_reorged:moved", "tx_confirmed@1", "tx_reorged:pool", "tx_pool", "outgoing_failed", "wallet_synced"],
      ["tx_confirmed@3", "tx_reorged:dropped", "wallet_synced"], // TX at 102 reaches 3 confirmations
      ["tx_reorged:moved", "tx_confirmed@1", "tx_confirmed@3", "wallet_synced"],
    ]);
    const first = r.ids[0][0];
    const again = r.ids[3][1];
    assert.notEqual(again, first, "the same tx confirmed at the same height after a reorg is a new occurrence");
    assert.equal(new Set(r.ids.flat()).size, r.ids.flat().length);
  });

  it("a tx re-mined at the same height in another block is a reorg (status moved), confirmed again under new ids", () => {
    const r = run([view(105, [inc(100)]), view(105, [inc(100, false, TX, "other")]), view(105, [inc(100, false, TX, "other")])]);
    assert.deepEqual(r.kinds, [
      ["tx_confirmed@1", "tx_confirmed@3", "wallet_synced"],
      ["tx_reorged:moved", "tx_confirmed@1", "tx_confirmed@3", "wallet_synced"],
      ["wallet_synced"],
    ]);
    assert.equal(new Set(r.ids.flat()).size, r.ids.flat().length);
  });
});
