import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { defaultBackend, getBackend } from "../src/crypto/index.js";
import { decodeAddress } from "../src/protocol/address.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { SubaddressDeriver, SubaddressLookahead, SubaddressTable } from "../src/wallet/keys/subaddress.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const sub = JSON.parse(readFileSync(new URL("subaddresses.json", fixtures), "utf8"));

type Answer = { method: string; params: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };
const keys = accountFromRecoveryKey(Uint8Array.from(Buffer.from(sub.spend_key, "hex")));

test("the fixture wallet's keys are the ones recorded", () => {
  assert.equal(Buffer.from(keys.viewSecretKey).toString("hex"), sub.view_key);
});

test("get_address lists of 7 accounts (up to 321 subaddresses) derive identically", () => {
  const d = new SubaddressDeriver(keys);
  let n = 0;
  for (const g of sub.get_address as Answer[]) {
    if (!g.result) continue;
    const major = Number(g.params.account_index);
    for (const a of g.result.addresses as { address: string; address_index: number }[]) {
      assert.equal(d.address("mainnet", major, a.address_index), a.address, `(${major}, ${a.address_index})`);
      n++;
    }
    assert.equal(d.address("mainnet", major, 0), g.result.address);
  }
  for (const r of [...sub.far.accounts, sub.far.minor] as Answer[]) {
    for (const a of (r.result?.addresses ?? []) as { address: string; address_index: number }[]) {
      assert.equal(d.address("mainnet", Number(r.params.account_index), a.address_index), a.address);
      n++;
    }
  }
  assert.ok(n > 400, `${n} addresses compared`);
});

test("create_account / create_address sequences give the recorded indexes and addresses", () => {
  const book = new SubaddressLookahead(keys);
  const d = new SubaddressDeriver(keys);
  for (const c of sub.creates as Answer[]) {
    if (c.method === "create_account") {
      const major = book.addAccount();
      assert.equal(major, c.result?.account_index);
      assert.equal(d.address("mainnet", major, 0), c.result?.address);
    } else if (c.result) {
      const major = Number(c.params.account_index);
      const indices: number[] = [];
      for (let i = 0; i < Number(c.params.count ?? 1); i++) indices.push(book.addSubaddress(major));
      assert.deepEqual(indices, c.result.address_indices);
      assert.deepEqual(indices.map((i) => d.address("mainnet", major, i)), c.result.addresses);
    }
  }
  assert.equal(book.accountCount, 7);
  assert.equal(book.subaddressCount(0), 321);
});

test("get_address_index: the lookahead table finds exactly what monero-wallet-rpc finds", () => {
  // The first 6 probes ran on the wallet after the creates above; the rest on a freshly restored
  // wallet (one account, one address), whose table is the lookahead alone: 50 accounts × 200.
  const used = new SubaddressLookahead(keys);
  for (const c of sub.creates as Answer[]) {
    if (c.method === "create_account") used.addAccount();
    else if (c.result) for (let i = 0; i < Number(c.params.count ?? 1); i++) used.addSubaddress(Number(c.params.account_index));
  }
  const fresh = new SubaddressLookahead(keys);
  assert.equal(fresh.table.size, 50 * 200);
  let found = 0;
  for (const [k, q] of (sub.get_address_index as Answer[]).entries()) {
    const book = k < 6 ? used : fresh;
    const text = String(q.params.address);
    let ours: Record<string, unknown>;
    let a: ReturnType<typeof decodeAddress> | undefined;
    try {
      a = decodeAddress(text, "mainnet");
    } catch {
      a = undefined;
    }
    if (!a) ours = { error: { code: -2, message: "Invalid address" } };
    else {
      const idx = book.table.get(a.spendPublicKey);
      ours = idx ? { result: { index: idx } } : { error: { code: -2, message: "Address doesn't belong to the wallet" } };
      if (idx) found++;
    }
    assert.deepEqual(ours, q.result ? { result: q.result } : { error: q.error }, text);
  }
  assert.ok(found >= 2);
});

test("deferred lookahead: work() derives in slices, the table reads complete, and it answers as the eager one", () => {
  const eager = new SubaddressLookahead(keys, 3, 40);
  const lazy = new SubaddressLookahead(keys, 3, 40, defaultBackend(), true);
  let slices = 1;
  while (!lazy.work(25)) slices++;
  assert.equal(slices, 5); // 3 × 40 keys in slices of 25: the 5th slice empties the queue
  const read = new SubaddressLookahead(keys, 3, 40, defaultBackend(), true);
  read.expand(1, 60); // queued, not derived
  assert.equal(read.table.size, 40 + 100 + 40 + 40); // accounts 0-3, account 1 to 60 + 40; reading derives the queue
  eager.expand(1, 60);
  lazy.expand(1, 60);
  const d = new SubaddressDeriver(keys);
  for (const [major, minor] of [[0, 0], [0, 39], [1, 99], [2, 39], [3, 39], [1, 100]] as const) {
    const k = d.spendPublicKey(major, minor);
    assert.deepEqual(lazy.table.get(k), eager.table.get(k), `${major}/${minor}`);
  }
  assert.ok(lazy.table.get(d.spendPublicKey(3, 39)));
  assert.equal(lazy.table.get(d.spendPublicKey(1, 100)), null); // past the lookahead
});

test("table: 20,000 entries, every key found, misses and 8-byte-prefix impostors rejected, compact", () => {
  const b = defaultBackend();
  const table = new SubaddressTable(keys, b, 16);
  for (let major = 0; major < 4; major++) table.addRange(major, 0, 5000);
  assert.equal(table.size, 20000);
  assert.ok(table.byteLength / table.size < 60, `${table.byteLength / table.size} bytes per entry`);
  const d = new SubaddressDeriver(keys, b);
  for (const [major, minor] of [
    [0, 0],
    [0, 1],
    [3, 4999],
    [2, 1234],
  ]) {
    assert.deepEqual(table.get(d.spendPublicKey(major, minor)), { major, minor });
  }
  assert.equal(table.get(d.spendPublicKey(4, 0)), null);
  assert.equal(table.get(d.spendPublicKey(0, 5000)), null);
  const impostor = d.spendPublicKey(1, 77);
  impostor[31] ^= 1; // same first 8 bytes, different key
  assert.equal(table.get(impostor), null);
});

test("subaddress (0, 0) is the primary address; secret key matches hash_to_scalar(\"SubAddr\\0\" ‖ a ‖ major ‖ minor)", () => {
  const b = defaultBackend();
  const d = new SubaddressDeriver(keys, b);
  assert.deepEqual(d.publicKeys(0, 0), { spendPublicKey: keys.spendPublicKey, viewPublicKey: keys.viewPublicKey });
  const data = Buffer.concat([Buffer.from("SubAddr\0"), keys.viewSecretKey, Buffer.from([1, 0, 0, 0, 2, 0, 0, 0])]);
  assert.deepEqual(d.secretKey(1, 2), b.hashToScalar(data));
  const m = d.secretKey(1, 2);
  assert.deepEqual(d.spendPublicKey(1, 2), b.pointAdd(keys.spendPublicKey, b.scalarMultBase(m)));
  assert.throws(() => d.secretKey(-1, 0), RangeError);
  assert.throws(() => d.secretKey(0, 2 ** 32), RangeError);
});

test("the backend's batch of subaddress keys equals key-by-key derivation: (0, 0), chunk and thread seams, other accounts", () => {
  const be = defaultBackend();
  const batch = be.subaddressSpendKeys?.bind(be);
  if (!batch) {
    assert.equal(be.name, "ts", "only the pure-TypeScript backend goes without the batch");
    return;
  }
  const one = new SubaddressDeriver(keys, getBackend("ts"));
  const check = (major: number, begin: number, end: number, sample: number[]): void => {
    const got = batch(keys.spendPublicKey, keys.viewSecretKey, major, begin, end);
    assert.ok(got);
    assert.equal(got.length, (end - begin) * 32);
    for (const i of sample) assert.deepEqual(got.subarray((i - begin) * 32, (i - begin + 1) * 32), one.spendPublicKey(major, i), `(${major}, ${i})`);
  };
  check(0, 0, 600, [0, 1, 255, 256, 257, 299, 300, 599]); // one thread; (0, 0) is B
  check(0, 0, 9000, [0, 1, 4499, 4500, 4501, 8999]); // two threads: the seam at 4500
  check(3, 4_294_967_000, 2 ** 32, [4_294_967_000, 4_294_967_295]); // the last u32 minors
  check(2 ** 32 - 1, 7, 40, [7, 39]);
  assert.deepEqual(batch(keys.spendPublicKey, keys.viewSecretKey, 1, 5, 5)?.length, 0);
  // a spend key that does not decompress, and indices outside u32
  const bad = Uint8Array.from(Buffer.from("0100000000000000000000000000000000000000000000000000000000000080", "hex"));
  assert.equal(batch(bad, keys.viewSecretKey, 0, 0, 100), null);
  assert.throws(() => batch(keys.spendPublicKey, keys.viewSecretKey, 0, 0, 2 ** 32 + 1), RangeError);
  // the table fed by the batch finds what the single derivation makes
  const t = new SubaddressTable(keys, be);
  t.addRange(5, 0, 70_000);
  assert.deepEqual(t.get(one.spendPublicKey(5, 69_999)), { major: 5, minor: 69_999 });
  assert.deepEqual(t.get(one.spendPublicKey(5, 65_536)), { major: 5, minor: 65_536 });
  assert.equal(t.get(one.spendPublicKey(6, 1)), null);
});
