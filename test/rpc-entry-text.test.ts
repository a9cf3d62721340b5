import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Prerendered, stringifyJson } from "../src/rpc/json.js";
import type { RpcIncomingTransfer, RpcPayment, RpcTransferEntry } from "../src/wallet/ledger/rpc-shape.js";
import type { Plain } from "../src/wallet/rpc/common.js";
import { incomingTransferText, paymentText, renderedIncomingTransfer, renderedPayment, renderedTransferEntry, transferEntryText } from "../src/wallet/rpc/entry-text.js";

const ADDR = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";
const U64_MAX = (1n << 64n) - 1n;

/** Entries with every optional member present and absent, and strings epee escapes. */
function entries(): Plain<RpcTransferEntry>[] {
  const out: Plain<RpcTransferEntry>[] = [];
  const notes = ["", 'say "hi" / back\\slash', "line\r\nbreak\ttab\u0001", "é 😀 ü", "</script>"];
  for (let mask = 0; mask < 32; mask++) {
    const e: Plain<RpcTransferEntry> = {
      address: ADDR,
      amount: mask === 7 ? U64_MAX : BigInt(mask) * 1_000_000_007n,
      double_spend_seen: (mask & 1) === 1,
      fee: mask === 3 ? U64_MAX : 30_000_000n,
      height: BigInt(mask * 1000),
      locked: (mask & 2) === 2,
      note: notes[mask % notes.length],
      payment_id: mask % 3 === 0 ? "0000000000000000" : "ab".repeat(32),
      subaddr_index: { major: mask % 3, minor: 4294967295 - mask },
      subaddr_indices: Array.from({ length: mask % 4 }, (_, k) => ({ major: k, minor: mask + k })),
      timestamp: 1_700_000_000n + BigInt(mask),
      txid: mask.toString(16).padStart(64, "0"),
      type: ["in", "out", "pending", "failed", "pool", "block"][mask % 6],
      unlock_time: mask === 9 ? U64_MAX : 0n,
    };
    if (mask & 1) e.amounts = mask & 4 ? [] : [1n, U64_MAX, 5n];
    if (mask & 2) e.confirmations = BigInt(mask);
    if (mask & 4) e.destinations = Array.from({ length: 1 + (mask % 3) }, (_, k) => ({ amount: BigInt(k) * 7n, address: k === 1 ? 'odd"/address' : ADDR }));
    if (mask & 8) e.suggested_confirmations_threshold = 1n;
    if (mask & 16) e.change_amount = 123n;
    out.push(e);
  }
  return out;
}

describe("wallet rpc entry writers", () => {
  it("write a transfer entry as the generic epee writer does, at every level", () => {
    const list = entries();
    // each member the entry type has (optional ones too) is present in some entry and absent in another
    for (const k of ["amounts", "confirmations", "destinations", "suggested_confirmations_threshold", "change_amount"] as const) {
      assert.ok(list.some((e) => e[k] !== undefined) && list.some((e) => e[k] === undefined), k);
    }
    for (const e of list) {
      assert.equal(transferEntryText(e, 0), stringifyJson(e, { style: "epee" }));
      // as get_transfers answers them: in a list, two and three levels down
      const generic = stringifyJson({ id: 0, jsonrpc: "2.0", result: { in: [e, e] } }, { style: "epee" });
      const own = stringifyJson({ id: 0, jsonrpc: "2.0", result: { in: [renderedTransferEntry(e), renderedTransferEntry(e)] } }, { style: "epee" });
      assert.equal(own, generic);
      const deeper = stringifyJson({ a: { b: { c: [e] } } }, { style: "epee" });
      assert.equal(stringifyJson({ a: { b: { c: [renderedTransferEntry(e)] } } }, { style: "epee" }), deeper);
    }
  });

  it("write incoming_transfers' and get_payments' entries as the generic writer does", () => {
    for (let mask = 0; mask < 16; mask++) {
      const t: Plain<RpcIncomingTransfer> = {
        amount: mask === 5 ? U64_MAX : BigInt(mask) * 999n,
        block_height: BigInt(mask * 77),
        frozen: (mask & 1) === 1,
        global_index: mask === 6 ? U64_MAX : BigInt(mask),
        key_image: mask & 2 ? "" : "cd".repeat(32),
        pubkey: "ef".repeat(32),
        spent: (mask & 4) === 4,
        subaddr_index: { major: mask, minor: 4294967295 },
        tx_hash: mask.toString(16).padStart(64, "0"),
        unlocked: (mask & 8) === 8,
      };
      assert.equal(incomingTransferText(t, 0), stringifyJson(t, { style: "epee" }));
      assert.equal(stringifyJson({ result: { transfers: [renderedIncomingTransfer(t), renderedIncomingTransfer(t)] } }, { style: "epee" }), stringifyJson({ result: { transfers: [t, t] } }, { style: "epee" }));
      const x: Plain<RpcPayment> = {
        address: ADDR,
        amount: mask === 3 ? U64_MAX : BigInt(mask),
        block_height: BigInt(mask * 5),
        payment_id: mask & 1 ? "12".repeat(8) : "AB".repeat(32),
        subaddr_index: { major: 0, minor: mask },
        tx_hash: "01".repeat(32),
        unlock_time: mask === 9 ? U64_MAX : BigInt(mask),
      };
      if (mask & 2) x.locked = (mask & 4) === 4;
      assert.equal(paymentText(x, 0), stringifyJson(x, { style: "epee" }));
      assert.equal(stringifyJson({ result: { payments: [renderedPayment(x)] } }, { style: "epee" }), stringifyJson({ result: { payments: [x] } }, { style: "epee" }));
    }
  });

  it("write their value in the standard style", () => {
    for (const e of entries()) assert.equal(stringifyJson({ x: [renderedTransferEntry(e)] }), stringifyJson({ x: [e] }));
  });

  it("call an own writer with the level each time (its text is not kept), and keep a generic text per level", () => {
    let calls = 0;
    const p = new Prerendered({ a: 1n }, (v, level) => {
      calls++;
      return `<${String(v.a)}@${level}>`;
    });
    assert.equal(stringifyJson([p, p], { style: "epee" }), "[<1@0>,<1@0>]");
    assert.equal(stringifyJson({ k: p }, { style: "epee" }), '{\r\n  "k": <1@1>\r\n}');
    assert.equal(calls, 3);
    const g = new Prerendered({ a: 1n });
    assert.equal(stringifyJson([g, { k: g }], { style: "epee" }), '[{\r\n  "a": 1\r\n},{\r\n  "k": {\r\n    "a": 1\r\n  }\r\n}]');
    assert.equal(stringifyJson([g], { style: "epee" }), '[{\r\n  "a": 1\r\n}]');
  });
});
