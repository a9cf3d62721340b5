import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decodeAddress } from "../src/protocol/address.js";
import { PaymentIdError, parseLongPaymentId, parsePaymentId, parseShortPaymentId } from "../src/protocol/payment-id.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { type KeyWallet, makeIntegratedAddress, splitIntegratedAddress } from "../src/wallet/keys/rpc.js";
import { WalletError } from "../src/wallet/errors.js";
import { WALLET_FAILURE_CODES } from "../src/wallet/rpc/errors.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));
const integ = load("integrated.json");
const sub = load("subaddresses.json");

interface Exchange {
  params: Record<string, string>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}
function answer(f: () => Record<string, unknown>): Pick<Exchange, "result" | "error"> {
  try {
    return { result: f() };
  } catch (e) {
    if (e instanceof WalletError) return { error: { code: WALLET_FAILURE_CODES[e.kind], message: e.message } };
    throw e;
  }
}

// integrated.json was recorded on the wallet restored from the English seed (the subaddress fixture's).
const wallet: KeyWallet = {
  network: "mainnet",
  keys: accountFromRecoveryKey(Uint8Array.from(Buffer.from(sub.spend_key, "hex"))),
  seedLanguage: "English",
};
const noRandom = () => {
  throw new Error("no random payment id expected");
};

test("make_integrated_address: every recorded answer, errors included", () => {
  for (const x of integ.make_integrated_address as Exchange[]) {
    const ours = answer(() => makeIntegratedAddress(wallet, x.params, noRandom));
    assert.deepEqual(ours, x.result ? { result: x.result } : { error: x.error }, JSON.stringify(x.params));
  }
});

test("make_integrated_address with no payment id draws 8 random bytes", () => {
  const rec = integ.random_payment_id.result;
  const pid = Uint8Array.from(Buffer.from(rec.payment_id, "hex"));
  assert.deepEqual(makeIntegratedAddress(wallet, {}, () => pid), rec);
});

test("split_integrated_address: every recorded answer, errors included; testnet and stagenet too", () => {
  for (const x of integ.split_integrated_address as Exchange[]) {
    const ours = answer(() => splitIntegratedAddress("mainnet", { integrated_address: x.params.integrated_address }));
    assert.deepEqual(ours, x.result ? { result: x.result } : { error: x.error }, x.params.integrated_address);
  }
  const t = integ.testnet;
  const testWallet: KeyWallet = { ...wallet, network: "testnet" };
  assert.deepEqual(makeIntegratedAddress(testWallet, t.make_integrated_address.params, noRandom), t.make_integrated_address.result);
  assert.deepEqual(splitIntegratedAddress("stagenet", t.split_integrated_address.params), t.split_integrated_address.result);
  assert.equal(t.split_integrated_address.result.standard_address, t.stagenet_wallet_address);
});

test("payment ids: 16 or 64 hex digits, either case; anything else refused with the reason", () => {
  assert.deepEqual(parseShortPaymentId("0123456789ABCDEF"), Uint8Array.from(Buffer.from("0123456789abcdef", "hex")));
  assert.equal(parseLongPaymentId("ab".repeat(32)).length, 32);
  assert.equal(parsePaymentId("ab".repeat(32)).kind, "long");
  assert.equal(parsePaymentId("ab".repeat(8)).kind, "short");
  const cases: [string, RegExp][] = [
    ["0123", /16 hex digits \(8 bytes\), not 4/],
    ["0123456789abcdeg", /character "g" at position 15/],
    ["0123456789abcdef00", /not 18/],
    [" 0123456789abcdef", /character " " at position 0/],
    ["0x23456789abcdef", /character "x" at position 1/],
    ["012", /odd number/],
  ];
  for (const [text, re] of cases) assert.throws(() => parseShortPaymentId(text), (e: unknown) => e instanceof PaymentIdError && re.test(e.message), text);
  assert.throws(() => parsePaymentId("ab".repeat(12)), /16 or 64 hex digits, not 24/);
  // a zero payment id is a valid integrated address
  const a = decodeAddress(integ.split_integrated_address.at(-6).params.integrated_address, "mainnet");
  assert.equal(a.kind, "integrated");
});
