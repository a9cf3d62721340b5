/**
 * wallet/multisig without processes: the key exchange of every group of Monero's functional test
 * `multisig` (seeds and expected addresses of tests/functional_tests/multisig.py v0.18.0.0) comes out
 * at wallet2's address in N−M+2 steps; kex messages that are altered, cut, re-rounded, deprecated
 * or from outside the group are refused with wallet2's reason, and a refused step changes nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { base58Decode, base58Encode } from "../src/codec/base58.js";
import { availableBackends } from "../src/crypto/index.js";
import { wordsToBytes } from "../src/protocol/mnemonic/index.js";
import { emptyUserData, type WalletKeysData } from "../src/wallet/files/index.js";
import { accountFromRecoveryKey, primaryAddress } from "../src/wallet/keys/account.js";
import { exchangeMultisigKeys, firstKexMessage, makeMultisig, multisigStatus } from "../src/wallet/multisig/kex.js";
import { KEX_MSG_V2_MAGIC_1, KEX_MSG_V2_MAGIC_N, MultisigError, parseKexMsg } from "../src/wallet/multisig/kex-msg.js";
import { runKexStep } from "../src/wallet/multisig/kex-worker.js";

const SEEDS = [
  "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted",
  "peeled mixture ionic radar utopia puddle buying illness nuns gadget river spout cavernous bounced paradise drunk looking cottage jump tequila melting went winter adjust spout",
  "dilute gutter certain antics pamphlet macro enjoy left slid guarded bogeys upload nineteen bomb jubilee enhanced irritate turnip eggs swung jukebox loudly reduce sedan slid",
  "waking gown buffet negative reorder speedy baffles hotel pliers dewdrop actress diplomat lymph emit ajar mailed kennel cynical jaunt justice weavers height teardrop toyed lymph",
];
const GROUPS: [number, number, string][] = [
  [2, 2, "45J58b7PmKJFSiNPFFrTdtfMcFGnruP7V4CMuRpX7NsH4j3jGHKAjo3YJP2RePX6HMaSkbvTbrWUFhDNcNcHgtNmQ3gr7sG"],
  [2, 3, "44G2TQNfsiURKkvxp7gbgaJY8WynZvANnhmyMAwv6WeEbAvyAWMfKXRhh3uBXT2UAKhAsUJ7Fg5zjjF2U1iGciFk5duN94i"],
  [3, 3, "41mro238grj56GnrWkakAKTkBy2yDcXYsUZ2iXCM9pe5Ueajd2RRc6Fhh3uBXT2UAKhAsUJ7Fg5zjjF2U1iGciFk5ief4ZP"],
  [3, 4, "44vZSprQKJQRFe6t1VHgU4ESvq2dv7TjBLVGE7QscKxMdFSiyyPCEV64NnKUQssFPyWxc2meyt7j63F2S2qtCTRL6dakeff"],
  [2, 4, "47puypSwsV1gvUDratmX4y58fSwikXVehEiBhVLxJA1gRCxHyrRgTDr4NnKUQssFPyWxc2meyt7j63F2S2qtCTRL6aRPj5U"],
];

for (const b of availableBackends()) {
  const keysOf = (seed: string): WalletKeysData => ({
    network: "mainnet",
    ...accountFromRecoveryKey(wordsToBytes(seed).bytes, b),
    seedLanguage: "English",
    restoreHeight: 0n,
    createdAt: 0n,
    user: emptyUserData(),
  });
  const snapshot = (k: WalletKeysData) => JSON.stringify(k, (_, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString("hex") : typeof v === "bigint" ? String(v) : v));

  describe(`multisig key exchange (${b.name})`, () => {
    for (const [m, n, expected] of GROUPS) {
      it(`${m}/${n}: every signer reaches the functional test's address in ${n - m + 2} steps`, () => {
        const first = SEEDS.slice(0, n).map(keysOf);
        let steps = first.map((k) => makeMultisig(b, k, first.map((x) => firstKexMessage(b, x)), m));
        let count = 1;
        while (!steps[0].ready) {
          assert.ok(steps.every((s) => !s.ready && multisigStatus(s.keys).multisig && !multisigStatus(s.keys).ready));
          const msgs = steps.map((s) => s.message);
          steps = steps.map((s) => exchangeMultisigKeys(b, s.keys, msgs));
          count++;
        }
        assert.equal(count, n - m + 2);
        for (const s of steps) {
          assert.equal(primaryAddress(s.keys, "mainnet", b), expected);
          assert.deepEqual(multisigStatus(s.keys), { multisig: true, ready: true, threshold: m, total: n });
        }
      });
    }

    it("refuses bad kex messages with wallet2's reasons, and a refused step changes nothing", () => {
      const ws = SEEDS.slice(0, 3).map(keysOf);
      const first = ws.map((k) => firstKexMessage(b, k));
      const made = ws.map((k) => makeMultisig(b, k, first, 2));
      const msgs = made.map((s) => s.message);
      const k0 = made[0].keys;
      const before = snapshot(k0);
      const raw = base58Decode(msgs[1].slice(KEX_MSG_V2_MAGIC_N.length));
      const reround = raw.slice();
      reround[0] = 3; // varint round 2 → 3
      const trailing = new Uint8Array([...raw, 0]);
      const other = keysOf(SEEDS[3]);
      const foreign = makeMultisig(b, other, [firstKexMessage(b, other), first[1]], 2).message;
      const bad: [string, string[], RegExp][] = [
        ["cut", [msgs[1].slice(0, -5), msgs[2]], /decoding|Deserializ/],
        ["trailing byte", [KEX_MSG_V2_MAGIC_N + base58Encode(trailing), msgs[2]], /trailing/],
        ["moved to another round", [KEX_MSG_V2_MAGIC_N + base58Encode(reround), msgs[2]], /signature invalid/],
        ["replayed round-1 messages", first, /expected kex round/],
        ["from outside the group", [foreign, msgs[2]], /signer|recommend/],
        ["one signer missing", [msgs[1]], /other signers|recommendations/],
        ["deprecated", ["MultisigV1abc", msgs[2]], /deprecated/],
        ["not a kex message", ["hello", msgs[2]], /Only v2/],
      ];
      for (const [what, list, re] of bad) {
        assert.throws(() => exchangeMultisigKeys(b, k0, list), re, what);
        assert.equal(snapshot(k0), before, `${what} changed nothing`);
      }
      assert.throws(() => makeMultisig(b, ws[0], [first[1], first[1]], 2), /Duplicate signers/);
      assert.throws(() => makeMultisig(b, ws[0], first, 4), /invalid threshold/);
      assert.throws(() => makeMultisig(b, k0, first, 2), /already multisig/);
      assert.throws(() => makeMultisig(b, ws[0], msgs, 2), /should be '1'/);
      assert.equal(parseKexMsg(b, first[0]).round, 1);
      assert.ok(first[0].startsWith(KEX_MSG_V2_MAGIC_1));
      // the right messages still work after all that
      const done = made.map((s) => exchangeMultisigKeys(b, s.keys, msgs));
      const fin = done.map((s) => exchangeMultisigKeys(b, s.keys, done.map((d) => d.message)));
      assert.ok(fin.every((s) => s.ready));
      assert.throws(() => exchangeMultisigKeys(b, fin[0].keys, msgs), /already been finished/);
    });

    it("runs a step in a worker thread with the same result, a refusal as the same MultisigError, the loop free meanwhile", async () => {
      const ws = SEEDS.slice(0, 4).map(keysOf);
      const first = ws.map((k) => firstKexMessage(b, k));
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      const made = await Promise.all(ws.map((k) => runKexStep({ op: "make", backend: b.name, keys: k, msgs: first, threshold: 2 })));
      clearInterval(timer);
      assert.ok(ticks > 0, "the event loop ran while the workers worked");
      const inline = ws.map((k) => makeMultisig(b, k, first, 2));
      made.forEach((m, i) => assert.deepEqual(m.keys.multisig, inline[i].keys.multisig));
      const msgs = made.map((m) => m.message);
      const next = await runKexStep({ op: "exchange", backend: b.name, keys: made[0].keys, msgs });
      assert.equal(snapshot(next.keys), snapshot(exchangeMultisigKeys(b, made[0].keys, msgs).keys));
      await assert.rejects(runKexStep({ op: "exchange", backend: b.name, keys: made[0].keys, msgs: first }), (e: unknown) => e instanceof MultisigError && /expected kex round/.test(e.message));
    });
  });
}
