/**
 * get_transfers' pagination extension at the ledger (Ledger.getTransfersPage): 100,000 confirmed
 * entries paged through while new blocks (entries at greater heights) keep arriving, and a block
 * removed by a reorg re-added: every entry seen exactly once, in the unpaged answer's order.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { decodeCursor, emptyLedgerState, encodeCursor, Ledger, type OutgoingTransfer, type PaymentDetails, type QueryEnv, type TransferCursor } from "../src/wallet/ledger/ledger.js";

const txid = (n: number) => createHash("sha256").update(`tx${n}`).digest("hex");
const env: QueryEnv = { now: 2_000_000_000n, address: (i) => `addr-${i.major}-${i.minor}` };

let serial = 0;
/** Entries of one block: `n` payments (some txs paying two subaddresses) and one outgoing tx every 7th block. */
function addBlock(l: Ledger, height: number, n: number): void {
  const st = l.state;
  for (let i = 0; i < n; i++) {
    const id = txid(serial++);
    const p: PaymentDetails = { txid: id, paymentId: "0".repeat(64), amount: 1000n + BigInt(i), amounts: [1000n], fee: 10n, blockHeight: height, unlockTime: 0n, timestamp: 1_600_000_000n + BigInt(height) * 120n, coinbase: false, subaddress: { major: 0, minor: i % 3 } };
    st.payments.push(p);
    if (i % 5 === 0) st.payments.push({ ...p, subaddress: { major: 0, minor: 7 }, amount: 5n }); // the same tx to a second subaddress
  }
  if (height % 7 === 0) {
    const o: OutgoingTransfer = { txid: txid(serial++), amountIn: 5000n, amountOut: 4990n, change: 0n, paymentId: "0".repeat(64), account: 0, subaddrIndices: [0], blockHeight: height, timestamp: 1_600_000_000n + BigInt(height) * 120n, unlockTime: 0n, destinations: [] };
    st.outgoing.push(o);
  }
  st.height = height + 1;
}

const keyOf = (e: { txid: string; type: string; subaddrIndex: { minor: number }; amount: bigint }) => `${e.type}:${e.txid}:${e.subaddrIndex.minor}:${e.amount}`;

test("get_transfers pages through 100,000 transfers with no gap or repeat while blocks arrive", () => {
  const l = new Ledger(emptyLedgerState(0), "mainnet");
  let h = 1;
  while (l.state.payments.length + l.state.outgoing.length < 100_000) addBlock(l, h++, 40);
  const q = { in: true, out: true, pending: true, pool: true };
  const seen: string[] = [];
  let cursor: TransferCursor | null = null;
  let pages = 0;
  for (;;) {
    const page = l.getTransfersPage(q, env, 997, cursor);
    pages++;
    if (cursor !== null) assert.equal(page.pending.length + page.pool.length, 0, "unconfirmed entries come with the first page only");
    for (const e of [...page.in, ...page.out]) seen.push(keyOf(e));
    // blocks keep arriving while the client pages
    if (pages % 10 === 0 && pages < 200) addBlock(l, h++, 25);
    if (page.next) {
      const text = encodeCursor(page.next);
      assert.deepEqual(decodeCursor(text), page.next, "the cursor survives its text form");
      cursor = decodeCursor(text);
    }
    if (!page.more && page.in.length + page.out.length === 0) break;
  }
  const all = l.getTransfers(q, env);
  const expected = [...all.in, ...all.out].map(keyOf);
  assert.ok(expected.length > 100_000, `${expected.length} entries`);
  assert.equal(new Set(seen).size, seen.length, "no entry is seen twice");
  assert.deepEqual(new Set(seen), new Set(expected), "every entry is seen");
  // and the pages are in chain order: in the unpaged answer's order within each list
  const inSeen = seen.filter((k) => !k.startsWith("out:"));
  assert.deepEqual(inSeen, all.in.map(keyOf));
});

test("a page's cursor stays valid across a reorg that removes and re-adds the last block", () => {
  const l = new Ledger(emptyLedgerState(0), "mainnet");
  for (let h = 1; h <= 20; h++) addBlock(l, h, 3);
  const first = l.getTransfersPage({ in: true, out: true }, env, 10, null);
  assert.equal(first.in.length + first.out.length, 10);
  assert.ok(first.more);
  // a reorg pops block 20 and a different block 20 (and 21) arrive
  l.rollback(20);
  addBlock(l, 20, 2);
  addBlock(l, 21, 2);
  const seen = [...first.in, ...first.out].map(keyOf);
  let c = first.next;
  for (;;) {
    const p = l.getTransfersPage({ in: true, out: true }, env, 10, c);
    seen.push(...[...p.in, ...p.out].map(keyOf));
    c = p.next;
    if (!p.more) break;
  }
  const all = l.getTransfers({ in: true, out: true }, env);
  assert.deepEqual(new Set(seen), new Set([...all.in, ...all.out].map(keyOf)));
  assert.equal(new Set(seen).size, seen.length);
});

test("cursor text that is not one is refused by decodeCursor", () => {
  assert.equal(decodeCursor("abc"), null);
  assert.equal(decodeCursor(`1.2.${"g".repeat(64)}.0.0`), null);
  assert.ok(decodeCursor(`1.2.${"a".repeat(64)}.1.3`));
});
