import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { defaultBackend } from "../src/crypto/index.js";
import type { Network } from "../src/protocol/network.js";
import {
  accountFromRecoveryKey,
  checkAccountKeys,
  isDeterministic,
  primaryAddress,
  viewSecretFromSpend,
} from "../src/wallet/keys/account.js";
import {
  createWallet,
  generateFromKeys,
  type KeyWallet,
  queryKey,
  restoreDeterministicWallet,
} from "../src/wallet/keys/rpc.js";
import { WalletError } from "../src/wallet/errors.js";
import { WALLET_FAILURE_CODES } from "../src/wallet/rpc/errors.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string } };
interface Entry {
  label: string;
  net: Network;
  mnemonic?: Answer;
  spend_key?: Answer;
  view_key?: Answer;
  get_address?: Answer;
}
const restores = load("restores.json").restores as (Entry & { restore_deterministic_wallet: Answer & { params: { seed: string; seed_offset?: string; language?: string } } })[];
const fromKeys = load("from-keys.json").cases as (Entry & { generate_from_keys: Answer & { params: Record<string, string> } })[];
const created = load("create-wallets.json") as {
  wallets: (Entry & { language: string; create_wallet: Answer })[];
  errors: (Answer & { params: { language: string } })[];
};

/** Our answer to an RPC call, shaped as the fixture stores it. */
function answer(f: () => Record<string, unknown>): Answer {
  try {
    return { result: f() };
  } catch (e) {
    if (e instanceof WalletError) return { error: { code: WALLET_FAILURE_CODES[e.kind], message: e.message } };
    throw e;
  }
}

/** query_key ×3 and get_address's primary address compared with the recorded wallet. */
function compareKeys(w: KeyWallet, e: Entry, what: string): void {
  for (const k of ["mnemonic", "spend_key", "view_key"] as const) {
    const rec = e[k];
    assert.ok(rec, `${what}: ${k} recorded`);
    assert.deepEqual(answer(() => queryKey(w, k)), rec.result ? { result: rec.result } : { error: rec.error }, `${what}: query_key ${k}`);
  }
  assert.equal(primaryAddress(w.keys, w.network), e.get_address?.result?.address, `${what}: primary address`);
}

test("view secret is sc_reduce32(keccak(spend secret)); public keys are secret·G", () => {
  const b = defaultBackend();
  const e = restores.find((r) => r.label === "seed English");
  assert.ok(e?.spend_key?.result && e.view_key?.result);
  const spend = Uint8Array.from(Buffer.from(String(e.spend_key.result.key), "hex"));
  assert.equal(Buffer.from(viewSecretFromSpend(spend, b)).toString("hex"), e.view_key.result.key);
  const acct = accountFromRecoveryKey(spend, b);
  assert.equal(isDeterministic(acct, b), true);
  assert.deepEqual(checkAccountKeys(acct, b), []);
});

for (const e of restores) {
  test(`restore_deterministic_wallet: ${e.label} (${e.net})`, () => {
    const rec = e.restore_deterministic_wallet;
    let wallet: KeyWallet | undefined;
    const ours = answer(() => {
      const r = restoreDeterministicWallet(rec.params, e.net);
      wallet = r.wallet;
      return r.result;
    });
    assert.deepEqual(ours, rec.result ? { result: rec.result } : { error: rec.error });
    if (wallet) compareKeys(wallet, e, e.label);
  });
}

test("create_wallet in every language: the recorded seed restores the same keys and address", () => {
  for (const w of created.wallets) {
    const seed = String(w.mnemonic?.result?.key);
    const r = restoreDeterministicWallet({ seed }, "mainnet");
    assert.equal(r.result.address, w.get_address?.result?.address, w.language);
    assert.equal(r.wallet.seedLanguage, w.language);
    compareKeys(r.wallet, w, `create_wallet ${w.language}`);
    const again = createWallet({ language: w.language }, "mainnet", r.wallet.keys.spendSecretKey ?? new Uint8Array(32));
    assert.equal(queryKey(again, "mnemonic").key, seed);
  }
  for (const e of created.errors) {
    assert.deepEqual(
      answer(() => {
        createWallet({ language: e.params.language }, "mainnet", new Uint8Array(32));
        return {};
      }),
      e.result ? { result: e.result } : { error: e.error },
      e.params.language,
    );
  }
});

for (const e of fromKeys) {
  test(`generate_from_keys: ${e.label} (${e.net})`, () => {
    const rec = e.generate_from_keys;
    let wallet: KeyWallet | undefined;
    const ours = answer(() => {
      const r = generateFromKeys(rec.params, e.net);
      wallet = r.wallet;
      return r.result;
    });
    assert.deepEqual(ours, rec.result ? { result: rec.result } : { error: rec.error });
    if (wallet) compareKeys(wallet, e, e.label);
  });
}

test("query_key with an unknown key type", () => {
  const r = restoreDeterministicWallet({ seed: Array(25).fill("abbey").join(" ") }, "mainnet");
  assert.throws(() => queryKey(r.wallet, "secret"), /key_type secret not found/);
});
