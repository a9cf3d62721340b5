// Scanner paths the recorded chains do not exercise: legacy (32-byte) ecdhInfo, a receipt deep in
// the subaddress range growing the lookahead, view tags that reject, encrypted payment ids, and
// commitments that do not match.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultBackend } from "../src/crypto/index.js";
import { randomScalar } from "../src/crypto/random.js";
import { commit, commitmentMask, encodeLegacyEcdh, encryptAmount } from "../src/crypto/ringct/amounts.js";
import { nonceWithEncryptedPaymentId, serializeTxExtra, type ExtraField } from "../src/protocol/extra.js";
import { RCT_TYPE } from "../src/protocol/rct.js";
import type { Transaction } from "../src/protocol/tx.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { SubaddressDeriver } from "../src/wallet/keys/subaddress.js";
import { decryptPaymentId, groupDerivations, parseScanTx, Scanner } from "../src/wallet/scan/scan.js";

const be = defaultBackend();
const acct = accountFromRecoveryKey(new Uint8Array(32).fill(3), be);
const deriver = new SubaddressDeriver(acct, be);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** A tx paying `amounts` to subaddress (major, minor) of acct, built as a sender would. */
function payTo(major: number, minor: number, amounts: bigint[], opts: { rctType: number; tagged: boolean; extra?: ExtraField[] }) {
  const { spendPublicKey: D } = deriver.publicKeys(major, minor);
  const r = randomScalar(be);
  const R = major === 0 && minor === 0 ? be.scalarMultBase(r) : be.scalarMult(r, D)!;
  const senderDerivation = be.generateKeyDerivation(major === 0 && minor === 0 ? acct.viewPublicKey : deriver.publicKeys(major, minor).viewPublicKey, r)!;
  const vout: Transaction["vout"] = [];
  const ecdhInfo: { mask?: Uint8Array; amount: Uint8Array }[] = [];
  const outPk: Uint8Array[] = [];
  amounts.forEach((amount, i) => {
    const P = be.derivePublicKey(senderDerivation, i, D)!;
    vout.push({ amount: 0n, target: opts.tagged ? { type: "tagged_key", key: P, viewTag: be.deriveViewTag(senderDerivation, i) } : { type: "key", key: P } });
    const s = be.derivationToScalar(senderDerivation, i);
    if (opts.rctType >= RCT_TYPE.Bulletproof2) {
      const mask = commitmentMask(be, s);
      ecdhInfo.push({ amount: encryptAmount(be, s, amount) });
      outPk.push(commit(be, amount, mask));
    } else {
      const mask = randomScalar(be);
      ecdhInfo.push(encodeLegacyEcdh(be, s, mask, amount));
      outPk.push(commit(be, amount, mask));
    }
  });
  const extra = serializeTxExtra([{ type: "pubkey", key: R }, ...(opts.extra ?? [])]);
  const tx: Transaction = {
    version: 2,
    unlockTime: 0n,
    vin: [{ type: "key", amount: 0n, keyOffsets: [1n], keyImage: new Uint8Array(32).fill(5) }],
    vout,
    extra,
    signatures: [],
    rct: { type: opts.rctType, fee: 1000n, pseudoOuts: [], ecdhInfo, outPk },
    pruned: true,
  };
  return { tx, R };
}

test("legacy ecdhInfo (RingCT types 1-3) decodes and checks against the commitment", () => {
  const scanner = new Scanner(acct, be);
  const { tx } = payTo(0, 0, [123456789n, 5n], { rctType: RCT_TYPE.Bulletproof, tagged: false });
  const got = scanner.scanTx(tx, new Uint8Array(32), false, 8, [10n, 11n]);
  assert.deepEqual(
    got.received.map((r) => [r.index, r.amount, r.globalIndex]),
    [
      [0, 123456789n, 10n],
      [1, 5n, 11n],
    ],
  );
  assert.equal(got.rctFee, 1000n);
  assert.equal(got.rejected, 0);
  // a key image opens: it is x·Hp(P) with x·G = P (checked inside), and differs per output
  assert.notEqual(hex(got.received[0].keyImage!), hex(got.received[1].keyImage!));
});

test("an amount that does not match its commitment is rejected, not credited", () => {
  const scanner = new Scanner(acct, be);
  const { tx } = payTo(0, 0, [1000n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
  tx.rct!.outPk[0] = commit(be, 999n, randomScalar(be));
  const got = scanner.scanTx(tx, new Uint8Array(32), false, 16, undefined);
  assert.equal(got.received.length, 0);
  assert.equal(got.rejected, 1);
});

test("a receipt at (0, 150) grows the lookahead: (0, 349) is then found, (0, 350) is not yet", () => {
  const scanner = new Scanner(acct, be);
  const miss = payTo(0, 250, [7n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true }).tx;
  assert.equal(scanner.scanTx(miss, new Uint8Array(32), false, 16, undefined).received.length, 0, "minor 250 is beyond 0..199");
  const hit = scanner.scanTx(payTo(0, 150, [8n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true }).tx, new Uint8Array(32), false, 16, undefined);
  assert.deepEqual(hit.received[0].subaddress, { major: 0, minor: 150 });
  assert.equal(scanner.lookahead.subaddressCount(0), 151);
  const beyond = payTo(0, 350, [9n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true }).tx;
  assert.equal(scanner.scanTx(beyond, new Uint8Array(32), false, 16, undefined).received.length, 0, "150 + 200 is the end");
  const deep = scanner.scanTx(payTo(0, 349, [9n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true }).tx, new Uint8Array(32), false, 16, undefined);
  assert.deepEqual(deep.received[0].subaddress, { major: 0, minor: 349 });
  // a new account deep in the major range
  const acct49 = scanner.scanTx(payTo(49, 3, [1n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true }).tx, new Uint8Array(32), false, 16, undefined);
  assert.deepEqual(acct49.received[0].subaddress, { major: 49, minor: 3 });
  assert.equal(scanner.lookahead.accountCount, 50);
});

test("a wrong view tag skips the output", () => {
  const scanner = new Scanner(acct, be);
  const { tx } = payTo(0, 0, [42n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
  const t = tx.vout[0].target;
  if (t.type !== "tagged_key") throw new Error("tagged");
  tx.vout[0].target = { ...t, viewTag: (t.viewTag + 1) & 0xff };
  assert.equal(scanner.scanTx(tx, new Uint8Array(32), false, 16, undefined).received.length, 0);
});

test("a second tx public key opens the outputs (wallet2's pk_index loop); an undecodable output key spoils only its output", () => {
  const scanner = new Scanner(acct, be);
  const { tx, R } = payTo(0, 5, [11n, 22n, 33n, 44n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
  const decoy = be.scalarMultBase(randomScalar(be));
  tx.extra = serializeTxExtra([{ type: "pubkey", key: decoy }, { type: "pubkey", key: R }]);
  // output 1: a key that does not decompress (its view tag still matches the derivation)
  const t1 = tx.vout[1].target;
  if (t1.type !== "tagged_key") throw new Error("tagged");
  const bad = new Uint8Array(32).fill(0xff);
  assert.equal(be.pointCheck(bad), false);
  tx.vout[1].target = { ...t1, key: bad };
  // output 3: untagged, as before view tags
  const t3 = tx.vout[3].target;
  if (t3.type !== "tagged_key") throw new Error("tagged");
  tx.vout[3].target = { type: "key", key: t3.key };
  const got = scanner.scanTx(tx, new Uint8Array(32), false, 16, undefined);
  assert.deepEqual(
    got.received.map((r) => [r.index, r.amount, r.subaddress.major, r.subaddress.minor, hex(r.txPubKey!)]),
    [
      [0, 11n, 0, 5, hex(R)],
      [2, 33n, 0, 5, hex(R)],
      [3, 44n, 0, 5, hex(R)],
    ],
  );
  assert.equal(got.rejected, 0);
});

test("an encrypted payment id decrypts with the tx key derivation (wallet2 keeps 8 bytes + 24 zeros)", () => {
  const scanner = new Scanner(acct, be);
  const pid = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
  const { tx, R } = payTo(0, 0, [1n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
  // encryption is the same XOR pad (keccak(derivation ‖ 0x8d)), so decrypting the plain id encrypts it
  const enc = decryptPaymentId(be, pid, R, acct.viewSecretKey)!.subarray(0, 8);
  assert.notEqual(hex(enc), hex(pid));
  tx.extra = serializeTxExtra([{ type: "pubkey", key: R }, { type: "nonce", nonce: nonceWithEncryptedPaymentId(enc) }]);
  const got = scanner.scanTx(tx, new Uint8Array(32), false, 16, undefined);
  assert.equal(hex(got.paymentId!), "0102030405060708" + "0".repeat(48));
});

/**
 * A tx as wallet2 builds one paying several subaddresses of several wallets: a main tx key r·G and
 * one additional key per output (r_i·D_i for a subaddress, r_i·G for a main address).
 */
function payMany(dests: { acct: typeof acct; major: number; minor: number; amount: bigint }[], tagged: boolean): Transaction {
  const vout: Transaction["vout"] = [];
  const ecdhInfo: { amount: Uint8Array }[] = [];
  const outPk: Uint8Array[] = [];
  const additional: Uint8Array[] = [];
  dests.forEach((d, i) => {
    const keys = new SubaddressDeriver(d.acct, be).publicKeys(d.major, d.minor);
    const sub = d.major !== 0 || d.minor !== 0;
    const r = randomScalar(be);
    additional.push(sub ? be.scalarMult(r, keys.spendPublicKey)! : be.scalarMultBase(r));
    const derivation = be.generateKeyDerivation(keys.viewPublicKey, r)!;
    const P = be.derivePublicKey(derivation, i, keys.spendPublicKey)!;
    vout.push({ amount: 0n, target: tagged ? { type: "tagged_key", key: P, viewTag: be.deriveViewTag(derivation, i) } : { type: "key", key: P } });
    const s = be.derivationToScalar(derivation, i);
    ecdhInfo.push({ amount: encryptAmount(be, s, d.amount) });
    outPk.push(commit(be, d.amount, commitmentMask(be, s)));
  });
  return {
    version: 2,
    unlockTime: 0n,
    vin: [{ type: "key", amount: 0n, keyOffsets: [1n], keyImage: new Uint8Array(32).fill(6) }],
    vout,
    extra: serializeTxExtra([{ type: "pubkey", key: be.scalarMultBase(randomScalar(be)) }, { type: "additional_pubkeys", keys: additional }]),
    signatures: [],
    rct: { type: RCT_TYPE.BulletproofPlus, fee: 1000n, pseudoOuts: [], ecdhInfo, outPk },
    pruned: true,
  };
}

test("the hub's group scan (main and additional tx keys): a wallet its view tags rule out finds nothing alone, the others find with the group's derivations what they find alone", () => {
  const accts = Array.from({ length: 10 }, (_, k) => accountFromRecoveryKey(new Uint8Array(32).fill(20 + k), be));
  const scanners = accts.map((a) => new Scanner({ ...a, lookaheadMajor: 3, lookaheadMinor: 10 }, be));
  const viewKeys = new Uint8Array(32 * accts.length);
  accts.forEach((a, k) => viewKeys.set(a.viewSecretKey, 32 * k));
  const dests = [
    { acct: accts[0], major: 1, minor: 2, amount: 10n },
    { acct: accts[1], major: 0, minor: 0, amount: 20n },
    { acct: accts[1], major: 2, minor: 7, amount: 30n },
    { acct: accts[0], major: 0, minor: 3, amount: 40n },
  ];
  for (const tagged of [true, false]) {
    const p = parseScanTx(payMany(dests, tagged), new Uint8Array(32).fill(9), false, undefined);
    const g = groupDerivations(p, viewKeys, be);
    assert.equal(g.derived, accts.length * (1 + dests.length), "every wallet × the main key and each additional key");
    const found = scanners.map((s, k) => {
      const alone = s.detect(p, 16);
      const any = alone.received.length > 0 || alone.rejected > 0 || alone.paymentId !== null;
      if (!g.candidates[k]) assert.equal(any, false, `wallet ${k} was ruled out but finds something alone`);
      else assert.deepEqual(s.detect(p, 16, g.of(k)), alone, `wallet ${k}`);
      return alone.received.map((r) => [r.amount, r.subaddress.major, r.subaddress.minor]);
    });
    assert.deepEqual(found.slice(0, 2), [
      [
        [10n, 1, 2],
        [40n, 0, 3],
      ],
      [
        [20n, 0, 0],
        [30n, 2, 7],
      ],
    ]);
    assert.ok(found.slice(2).every((f) => f.length === 0));
    if (tagged) assert.ok([...g.candidates.slice(2)].includes(0), "view tags rule out some of the eight wallets paid nothing");
    else assert.deepEqual([...g.candidates], accts.map(() => 1), "untagged outputs: every wallet looks");
  }
});

test("key images are x·Hp(P) with x = Hs(derivation‖i) + b (+ m) on each subaddress; a spend secret that does not open the table keys is refused", () => {
  const scanner = new Scanner(acct, be);
  for (const [major, minor] of [[0, 0], [0, 7], [2, 3], [0, 7]] as const) {
    const { tx, R } = payTo(major, minor, [10n, 20n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
    const got = scanner.scanTx(tx, new Uint8Array(32), false, 16, [1n, 2n]);
    assert.equal(got.received.length, 2);
    const derivation = be.generateKeyDerivation(R, acct.viewSecretKey)!;
    for (const r of got.received) {
      let x = be.deriveSecretKey(derivation, r.index, acct.spendSecretKey!);
      if (major !== 0 || minor !== 0) x = be.scAdd(x, deriver.secretKey(major, minor));
      assert.equal(hex(be.scalarMultBase(x)), hex(r.publicKey), "x opens the output");
      assert.equal(hex(r.keyImage!), hex(be.generateKeyImage(r.publicKey, x)!));
    }
  }
  // the public keys of acct with another spend secret: every table key is acct's, no secret opens them
  const wrong = new Scanner({ ...acct, spendSecretKey: randomScalar(be) }, be);
  const { tx } = payTo(1, 4, [10n], { rctType: RCT_TYPE.BulletproofPlus, tagged: true });
  assert.throws(() => wrong.scanTx(tx, new Uint8Array(32), false, 16, [1n]), /derived secret does not open output 0/);
});
