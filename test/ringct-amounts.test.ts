// RingCT amounts on real data: the recorded regtest chain's wallet seeds are known, so every output
// paid to alice's primary address must decrypt to an amount whose commitment equals outPk.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { defaultBackend } from "../src/crypto/index.js";
import {
  amountToScalar,
  commit,
  commitmentMask,
  decodeLegacyEcdh,
  decryptAmount,
  encodeLegacyEcdh,
  encryptAmount,
  H,
  readU64,
  zeroCommit,
} from "../src/crypto/ringct/amounts.js";
import { extraTxPubKey, parseTxExtra } from "../src/protocol/extra.js";
import { wordsToBytes } from "../src/protocol/mnemonic/index.js";
import { parseTransaction } from "../src/protocol/tx.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { WALLET_SEEDS } from "./helpers/chain.js";

const be = defaultBackend();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const fixtures = new URL("../../test/fixtures/chain/", import.meta.url);


test("H is 8·decompress(keccak(G)) (rctOps.cpp hashToPointSimple of G)", () => {
  const G = Uint8Array.from(Buffer.from("5866666666666666666666666666666666666666666666666666666666666666", "hex"));
  assert.equal(hex(be.pointMul8(be.keccak256(G))!), hex(H));
});

test("zero commitment is G + amount·H, and commit(0, 1) is G", () => {
  const one = new Uint8Array(32);
  one[0] = 1;
  assert.equal(hex(zeroCommit(be, 0n)), "5866666666666666666666666666666666666666666666666666666666666666");
  const amount = 123456789012345n;
  assert.equal(hex(zeroCommit(be, amount)), hex(be.pointAdd(be.scalarMultBase(one), be.scalarMult(amountToScalar(amount), H)!)!));
  assert.throws(() => amountToScalar(1n << 64n), RangeError);
  assert.equal(readU64(amountToScalar((1n << 64n) - 1n)), (1n << 64n) - 1n);
});

test("v2 and legacy ecdh encodings round-trip", () => {
  const s = be.hashToScalar(Buffer.from("shared"));
  for (const amount of [0n, 1n, 1000000000000n, (1n << 64n) - 1n]) {
    assert.equal(decryptAmount(be, s, encryptAmount(be, s, amount)), amount);
    const mask = be.hashToScalar(Buffer.from(`mask${amount}`));
    const enc = encodeLegacyEcdh(be, s, mask, amount);
    const dec = decodeLegacyEcdh(be, s, enc.mask, enc.amount);
    assert.equal(dec.amount, amount);
    assert.equal(hex(dec.mask), hex(mask));
  }
});

test("every recorded output to alice decrypts to an amount matching its commitment", () => {
  const acct = accountFromRecoveryKey(wordsToBytes(WALLET_SEEDS.alice).bytes, be);
  const txs = JSON.parse(gunzipSync(readFileSync(new URL("txs.json.gz", fixtures))).toString("utf8")) as {
    coinbase: boolean;
    as_hex: string;
  }[];
  let matched = 0;
  let checked = 0;
  for (const rec of txs) {
    if (rec.coinbase || !rec.as_hex) continue;
    const tx = parseTransaction(Buffer.from(rec.as_hex, "hex"));
    const rct = tx.rct!;
    const txPub = extraTxPubKey(parseTxExtra(tx.extra).fields);
    assert.ok(txPub, "transfer has a tx public key");
    const derivation = be.generateKeyDerivation(txPub, acct.viewSecretKey)!;
    tx.vout.forEach((out, i) => {
      checked++;
      const expectedKey = be.derivePublicKey(derivation, i, acct.spendPublicKey)!;
      if (hex(expectedKey) !== hex(out.target.type === "tagged_key" || out.target.type === "key" ? out.target.key : new Uint8Array())) return;
      const shared = be.derivationToScalar(derivation, i);
      const amount = decryptAmount(be, shared, rct.ecdhInfo[i].amount);
      const c = commit(be, amount, commitmentMask(be, shared));
      assert.equal(hex(c), hex(rct.outPk[i]), `output ${i} of a ${rec.as_hex.length / 2}-byte tx`);
      // A wrong shared secret gives an amount whose commitment does not match.
      const wrong = decryptAmount(be, be.derivationToScalar(derivation, i + 1), rct.ecdhInfo[i].amount);
      assert.notEqual(hex(commit(be, wrong, commitmentMask(be, shared))), hex(rct.outPk[i]));
      matched++;
    });
  }
  assert.ok(checked > 300, `checked ${checked} outputs`);
  assert.ok(matched >= 20, `only ${matched} outputs to alice's primary address found`);
});
