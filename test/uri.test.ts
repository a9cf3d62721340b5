import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseAmount, printMoney, urlEscape, urlUnescape } from "../src/protocol/uri.js";
import { makeUriRpc, parseUriRpc } from "../src/wallet/keys/rpc.js";
import { WalletError } from "../src/wallet/errors.js";
import { WALLET_FAILURE_CODES } from "../src/wallet/rpc/errors.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const uri = JSON.parse(readFileSync(new URL("uri.json", fixtures), "utf8")) as {
  make_uri: Exchange[];
  parse_uri: Exchange[];
};
interface Exchange {
  params: Record<string, string | number>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The recorder keeps u64 values above 2^53 as decimal strings; plain numbers otherwise. */
const jsonU64 = (v: bigint): number | string => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());

function answer(f: () => Record<string, unknown>): Pick<Exchange, "result" | "error"> {
  try {
    return { result: f() };
  } catch (e) {
    if (e instanceof WalletError) return { error: { code: WALLET_FAILURE_CODES[e.kind], message: e.message } };
    throw e;
  }
}

test("make_uri: every recorded answer, errors included", () => {
  assert.ok(uri.make_uri.length >= 15);
  for (const x of uri.make_uri) {
    const p = x.params;
    const ours = answer(() =>
      makeUriRpc("mainnet", {
        address: String(p.address),
        payment_id: p.payment_id === undefined ? undefined : String(p.payment_id),
        amount: p.amount === undefined ? undefined : BigInt(p.amount),
        tx_description: p.tx_description === undefined ? undefined : String(p.tx_description),
        recipient_name: p.recipient_name === undefined ? undefined : String(p.recipient_name),
      }),
    );
    assert.deepEqual(ours, x.result ? { result: x.result } : { error: x.error }, JSON.stringify(p));
  }
});

test("parse_uri: every recorded answer, errors included", () => {
  assert.ok(uri.parse_uri.length >= 40);
  for (const x of uri.parse_uri) {
    const ours = answer(() => {
      const r = parseUriRpc("mainnet", { uri: String(x.params.uri) });
      return { ...r, uri: { ...r.uri, amount: jsonU64(r.uri.amount) } };
    });
    const expected = x.result ? { result: x.result } : { error: x.error };
    assert.deepEqual(ours, expected, String(x.params.uri));
  }
});

test("amounts: print_money and parse_amount as Monero formats and reads them", () => {
  assert.equal(printMoney(0n), "0.000000000000");
  assert.equal(printMoney(1n), "0.000000000001");
  assert.equal(printMoney((1n << 64n) - 1n), "18446744.073709551615");
  assert.equal(parseAmount("18446744.073709551615"), (1n << 64n) - 1n);
  assert.equal(parseAmount("18446744.073709551616"), null);
  assert.equal(parseAmount(" 1.5\t"), 1500000000000n);
  assert.equal(parseAmount("0.0000000000010000"), 1n);
  for (const bad of ["", ".", "-1", "1e3", "1.2.3", "0.0000000000001", "+1", "0x10"]) assert.equal(parseAmount(bad), null, bad);
});

test("URL escaping: epee's unsafe set, upper-case hex, lenient unescaping", () => {
  assert.equal(urlEscape("a b&c=d/e?é"), "a%20b%26c=d/e?%C3%A9");
  assert.equal(urlUnescape("%e6%97%a5%2x%4"), "日%2x%4");
  assert.equal(urlUnescape(urlEscape("\"<>%\\^[]`+$,@:;!#& {}|~")), "\"<>%\\^[]`+$,@:;!#& {}|~");
});
