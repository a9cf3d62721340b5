/**
 * Issue 17 (first half): signed messages, tx proofs, spend proofs and reserve proofs, in wallet2's
 * formats, crossing between tsmonero-wallet-rpc and a real monero-wallet-rpc both ways. Alice and bob
 * each run in both (same seeds, same chain: a real monerod, then tsmonerod); every proof one makes
 * is checked by the other, answers compared field for field; tampered, truncated and wrong-version
 * proofs are refused by both. V1 forms (which 0.18 no longer makes) are derived here with our
 * prover at version 1 and checked by both; a SigV1 from Monero's own tree checks too.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { base58Decode, base58Encode } from "../src/codec/base58.js";
import type { Bytes } from "../src/crypto/backend.js";
import { availableBackends, defaultBackend } from "../src/crypto/index.js";
import { generateSignature } from "../src/crypto/keys.js";
import { checkTxProof, generateTxProof } from "../src/crypto/proofs.js";
import { MoneroTestRandom } from "../src/crypto/random.js";
import { decodeAddress } from "../src/protocol/address.js";
import { extraAdditionalPubKeys, extraTxPubKey, parseTxExtra } from "../src/protocol/extra.js";
import { parseTransaction } from "../src/protocol/tx.js";
import type { JsonWritable } from "../src/rpc/json.js";
import { SubaddressDeriver } from "../src/wallet/keys/subaddress.js";
import { emptyLedgerState, Ledger } from "../src/wallet/ledger/ledger.js";
import { decodeReserveProof, encodeReserveProof, makeTxProof, type ProofWallet, verifyMessage } from "../src/wallet/proofs/index.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { big, type Obj, rpc, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, walletRpc } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const BIN = new URL("../../bin/", import.meta.url).pathname;
const b = defaultBackend();
const te = new TextEncoder();
const hex = (x: Uint8Array): string => Buffer.from(x).toString("hex");
const unhex = (s: string): Bytes => Uint8Array.from(Buffer.from(s, "hex"));




/** An answer with its integers as bigint (the JSON reader gives small ones as numbers). */
const n = (o: Obj): Obj => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "number" && Number.isInteger(v) ? BigInt(v) : v]));


/**
 * A check refused: an error, or an answer that is not good. Returns which, for comparing the two
 * wallets. Raw (any method, any params): the refusals tried include deliberately malformed params.
 */
async function refused(url: string, method: string, params: JsonWritable, label = ""): Promise<string> {
  const a = await rpc(url, method, params);
  if (a.error) {
    assert.notEqual(a.error.code, -32601);
    return `error ${a.error.code}`;
  }
  assert.equal(a.result?.good, false, `${label} ${url} ${method} ${JSON.stringify(params, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))} must not be good`);
  return "not good";
}

/** Changes one base58 character in the middle of a proof's body (never the header). */
function alter(s: string, at = Math.floor(s.length / 2)): string {
  const c = s[at] === "A" ? "B" : "A";
  return s.slice(0, at) + c + s.slice(at + 1);
}

/** Changes a character of every signature of a tx proof (a proof holds when any one of them does). */
function alterEach(s: string): string {
  const header = s.startsWith("Out") ? 10 : 9;
  let out = s;
  for (let at = header + 44 + 20; at < s.length; at += 132) out = alter(out, at);
  return out;
}



describe("proof crypto and formats (no daemon)", () => {
  it("a SigV1 from Monero's tree (tests/data/fuzz/signature/SIG2, testnet) verifies; altered or for other data it does not", () => {
    const a = decodeAddress("9uVsvEryzpN8WH2t1WWhFFCG5tS8cBNdmJYNRuckLENFimfauV5pZKeS1P2CbxGkSDTUPHXWwiYE5ZGSXDAGbaZgDxobqDN", "testnet");
    const sig = "SigV1WbMcLkLKXz3Su9iFUp9aYF5vSfpVetcytVWAgqhn3KNe1kidn7M2KfTRpuK8G1ba1w2u5mbyoWbkLPy2Gm97BM4W";
    for (const be of availableBackends()) {
      assert.deepEqual(verifyMessage(be, te.encode("test"), a, sig), { good: true, version: 1, old: true, signatureType: "spend" }, be.name);
      assert.equal(verifyMessage(be, te.encode("test!"), a, sig).good, false);
      assert.equal(verifyMessage(be, te.encode("test"), a, alter(sig)).good, false);
      assert.deepEqual(verifyMessage(be, te.encode("test"), a, "SigV3" + sig.slice(5)), { good: false, version: 0, old: false, signatureType: "spend", why: "Signature header check error" });
      assert.equal(verifyMessage(be, te.encode("test"), a, sig + "1").why, "Signature decoding error");
    }
  });

  it("tx proofs (Monero's tests/unit_tests/tx_proof.cpp cases): each version checks only as itself, any wrong point fails, on every backend", () => {
    const rng = MoneroTestRandom.seeded42();
    const key = () => {
      const s = new Uint8Array(32);
      rng.fill(s);
      return b.scReduce32(s);
    };
    const [r, a, bsec] = [key(), key(), key()];
    const A = b.scalarMultBase(a);
    const B = b.scalarMultBase(bsec);
    const RB = b.scalarMult(r, B) as Bytes;
    const RG = b.scalarMultBase(r);
    const D = b.scalarMult(r, A) as Bytes;
    const prefixHash = b.keccak256(te.encode("hash input"));
    const evil = () => b.scalarMultBase(key());
    for (const be of availableBackends()) {
      for (const st of [{ prefixHash, R: RG, A, B: null, D }, { prefixHash, R: RB, A, B, D }]) {
        const v1 = generateTxProof(be, st, r, rng, 1);
        const v2 = generateTxProof(be, st, r, rng, 2);
        assert.ok(checkTxProof(be, st, v1, 1) && checkTxProof(be, st, v2, 2), be.name);
        assert.ok(!checkTxProof(be, st, v1, 2) && !checkTxProof(be, st, v2, 1), "versions do not cross");
        assert.ok(!checkTxProof(be, st, v2, 3), "unknown version");
        for (const k of ["R", "A", "D", ...(st.B ? ["B"] : [])] as const) assert.ok(!checkTxProof(be, { ...st, [k]: evil() }, v2, 2), `evil ${k}`);
        const flipped = v2.slice();
        flipped[40] ^= 1;
        assert.ok(!checkTxProof(be, st, flipped, 2));
        // non-canonical s (s + ℓ) is refused, as sc_check does
        const nc = v2.slice();
        nc[63] |= 0xf0;
        assert.ok(!checkTxProof(be, st, nc, 2));
      }
    }
  });

  it("reserve proofs: the archive reads back as written; cut, trailing and wrong-version strings are refused with what was wrong", () => {
    const k = (n: number, len = 32) => new Uint8Array(len).fill(n);
    const p = {
      version: 2 as const,
      entries: [{ txid: k(1), indexInTx: 300n, sharedSecret: k(2), keyImage: k(3), sharedSecretSig: k(4, 64), keyImageSig: k(5, 64) }],
      spendKeys: new Map([[hex(k(6)), k(7, 64)]]),
    };
    const s = encodeReserveProof(p);
    assert.ok(s.startsWith("ReserveProofV2"));
    assert.deepEqual(decodeReserveProof(s), p);
    assert.throws(() => decodeReserveProof(s.slice(0, -11)), /^ProofError: The given address isn't found in the proof: the proof does not decode/);
    assert.throws(() => decodeReserveProof(s + base58Encode(k(0, 8))), /bytes after the proof/);
    assert.throws(() => decodeReserveProof("ReserveProofV3" + s.slice(14)), /^ProofError: Signature header check error: a reserve proof starts with ReserveProofV2/);
    assert.throws(() => decodeReserveProof("ReserveProofV2" + "0OIl"), /^ProofError: Signature decoding error/);
    assert.equal(decodeReserveProof("ReserveProofV1" + s.slice(14)).version, 1);
  });
});

for (const kind of ["monerod", "tsmonerod"] as const) {
  describe(`proofs cross between tsmonero-wallet-rpc and monero-wallet-rpc on ${kind}`, { skip }, () => {
    let daemon: Daemon;
    let node: NodeClient;
    const procs: Daemon[] = [];
    const dirs: string[] = [];
    /** alice and bob in ours and in the real wallet. */
    const W = { oursA: "", realA: "", oursB: "", realB: "" };
    let alice = "";
    let aliceSub = "";
    let bob = "";
    let bobSub = "";
    /** The transactions the proofs are about: sender's url, and what each address received. */
    const txs: { txid: string; sender: string; paid: Map<string, bigint> }[] = [];

    const mine = (n: number) => nodeCall(node.url, "generateblocks", { amount_of_blocks: n, wallet_address: alice });
    const refreshAll = async () => {
      for (const u of Object.values(W)) await walletCall(u, "refresh");
    };
    const name = (u: string) => Object.entries(W).find(([, v]) => v === u)?.[0] ?? u;

    before(async () => {
      const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
      const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-proofs-node-"));
      dirs.push(nodeDir);
      daemon = startRegtestNode(kind, [ports[0], ports[1]], nodeDir);
      node = new NodeClient({ url: daemon.url, timeoutMs: 60_000 });
      await waitReady(daemon, node);
      const bins = { oursA: join(BIN, "tsmonero-wallet-rpc"), realA: "/usr/bin/monero-wallet-rpc", oursB: join(BIN, "tsmonero-wallet-rpc"), realB: "/usr/bin/monero-wallet-rpc" };
      (Object.keys(bins) as (keyof typeof bins)[]).forEach((k, i) => {
        const dir = mkdtempSync(join(tmpdir(), `tsmonero-proofs-${k}-`));
        dirs.push(dir);
        const p = startWallet(bins[k], daemon.url, ports[2 + i], dir);
        procs.push(p);
        W[k] = p.url;
      });
      await Promise.all(procs.map(waitWallet));
      for (const [k, u] of Object.entries(W)) {
        await walletCall(u, "restore_deterministic_wallet", { filename: k, password: "", seed: k.endsWith("A") ? WALLET_SEEDS.alice : WALLET_SEEDS.bob });
        await walletCall(u, "auto_refresh", { enable: false });
        await walletCall(u, "create_address", { account_index: 0 });
      }
      alice = String((await walletCall(W.oursA, "get_address")).address);
      bob = String((await walletCall(W.oursB, "get_address")).address);
      const sub1 = async (u: string) => String(((await walletCall(u, "get_address", { account_index: 0, address_index: [1] })).addresses as Obj[])[0].address);
      aliceSub = await sub1(W.oursA);
      bobSub = await sub1(W.oursB);
      assert.equal(await sub1(W.realA), aliceSub);
      assert.equal(await sub1(W.realB), bobSub);
      await mine(100);
      await refreshAll();
    });

    after(async () => {
      await stopProcesses(procs);
      await stopDaemon(daemon);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it("sends the transactions the proofs are about (ours and the real wallet; standard, subaddress and additional tx keys)", async () => {
      const send = async (url: string, dests: [string, bigint][]) => {
        const r = await walletCall(url, "transfer", { destinations: dests.map(([address, amount]) => ({ address, amount })), get_tx_key: true });
        const paid = new Map<string, bigint>();
        for (const [a, v] of dests) paid.set(a, (paid.get(a) ?? 0n) + v);
        txs.push({ txid: String(r.tx_hash), sender: url, paid });
      };
      // several destinations with a subaddress: additional tx keys; one subaddress alone: R = r·D
      await send(W.oursA, [[bob, 1_100_000_000_000n], [bobSub, 700_000_000_000n], [aliceSub, 500_000_000_000n]]);
      await send(W.oursA, [[bobSub, 300_000_000_000n]]);
      await mine(1);
      await walletCall(W.realA, "refresh");
      await send(W.realA, [[bob, 900_000_000_000n]]);
      await send(W.realA, [[bob, 200_000_000_000n], [bobSub, 400_000_000_000n]]);
      await mine(10);
      await refreshAll();
      const bal = await Promise.all([W.oursA, W.realA].map(async (u) => big((await walletCall(u, "get_balance")).balance)));
      assert.equal(bal[0], bal[1], "both alices agree on the balance");
    });

    it("sign / verify: SigV2 with the spend and the view key, primary address and subaddress, each way", async () => {
      for (const signer of [W.oursA, W.realA]) {
        for (const [index, address] of [[0, alice], [1, aliceSub]] as const) {
          for (const type of ["spend", "view"] as const) {
            for (const data of ["", "hello", "ünïcødé ✓ \u0000 end"]) {
              const sig = String((await walletCall(signer, "sign", { data, account_index: 0, address_index: index, signature_type: type })).signature);
              assert.match(sig, /^SigV2[1-9A-HJ-NP-Za-km-z]{88}$/);
              const ans = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "verify", { data, address, signature: sig })));
              assert.deepEqual(ans[0], { good: true, old: false, signature_type: type, version: 2 }, `${name(signer)} ${type} (0,${index}) ${JSON.stringify(data)}`);
              assert.deepEqual(ans[1], ans[0]);
              for (const [d, a, s] of [[data + "x", address, sig], [data, bob, sig], [data, address, alter(sig)], [data, address, sig.replace("SigV2", "SigV1")], [data, address, sig + "x"], [data, address, sig.slice(0, -1)]]) {
                const bad = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "verify", { data: d, address: a, signature: s })));
                assert.deepEqual(bad[0], { good: false, old: false, signature_type: "spend", version: 0 });
                assert.deepEqual(bad[1], bad[0]);
              }
            }
          }
        }
      }
      // signature_type: default spend, anything else -47 (both)
      for (const u of [W.oursA, W.realA]) {
        const s = String((await walletCall(u, "sign", { data: "d" })).signature);
        assert.equal((await walletCall(W.oursB, "verify", { data: "d", address: alice, signature: s })).signature_type, "spend");
        const e = await walletRpc(u, "sign", { data: "d", signature_type: "both" });
        assert.equal(e.error?.code, -47);
        assert.match(String(e.error?.message), /^Invalid signature type requested/);
      }
      // an address that does not parse: -2 (both)
      for (const u of [W.oursB, W.realB]) assert.equal((await walletRpc(u, "verify", { data: "d", address: "4nope", signature: "SigV2" })).error?.code, -2);
    });

    it("SigV1 of older wallets (derived here with alice's keys: 0.18 makes none) verifies in both", async () => {
      const spend = unhex(String((await walletCall(W.oursA, "query_key", { key_type: "spend_key" })).key));
      const view = unhex(String((await walletCall(W.oursA, "query_key", { key_type: "view_key" })).key));
      for (const [type, sec] of [["spend", spend], ["view", view]] as const) {
        const data = `an old ${type} signature`;
        const sig = "SigV1" + base58Encode(generateSignature(b, b.keccak256(te.encode(data)), b.scalarMultBase(sec), sec));
        const ans = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "verify", { data, address: alice, signature: sig })));
        assert.deepEqual(ans[0], { good: true, old: true, signature_type: type, version: 1 });
        assert.deepEqual(ans[1], ans[0]);
        const bad = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "verify", { data: data + ".", address: alice, signature: sig })));
        assert.deepEqual(bad[0], bad[1]);
        assert.equal(bad[0].good, false);
      }
    });

    it("tx proofs: OutProofV2 from each sender and InProofV2 from each recipient, with and without a message, checked by both the same way", async () => {
      const height = big((await node.getHeight()).height);
      for (const t of txs) {
        const txHeight = (await node.getTransactions([t.txid])).txs[0].block_height;
        for (const [address, amount] of t.paid) {
          const own = address === aliceSub ? [W.oursA, W.realA] : [W.oursB, W.realB];
          const others = address === aliceSub ? [W.oursB, W.realB] : [W.oursA, W.realA];
          for (const message of ["", "paid in full"]) {
            const proofs: [string, string][] = [];
            if (address !== aliceSub) proofs.push([`out by ${name(t.sender)}`, String((await walletCall(t.sender, "get_tx_proof", { txid: t.txid, address, message })).signature)]);
            for (const u of own) proofs.push([`in by ${name(u)}`, String((await walletCall(u, "get_tx_proof", { txid: t.txid, address, message })).signature)]);
            for (const [what, sig] of proofs) {
              assert.match(sig, what.startsWith("out") ? /^OutProofV2/ : /^InProofV2/);
              const checkers = what.startsWith("out") ? own : others;
              const ans = (await Promise.all(checkers.map((u) => walletCall(u, "check_tx_proof", { txid: t.txid, address, message, signature: sig })))).map(n);
              assert.deepEqual(ans[0], { confirmations: height - txHeight, good: true, in_pool: false, received: amount }, `${what} for ${address === bob ? "bob" : "a subaddress"} in ${t.txid}`);
              assert.deepEqual(ans[1], ans[0], `${what}: ours and monero-wallet-rpc answer alike`);
              // refused by both: another message, another address, another tx, altered, cut, V1 header
              const otherTx = txs.find((x) => x.txid !== t.txid)?.txid ?? "";
              const otherAddress = address === bob ? alice : bob;
              const bads: [string, Obj][] = [
                ["message", { txid: t.txid, address, message: message + "!", signature: sig }],
                ["address", { txid: t.txid, address: otherAddress, message, signature: sig }],
                ["tx", { txid: otherTx, address, message, signature: sig }],
                ["altered", { txid: t.txid, address, message, signature: alterEach(sig) }],
                ["cut", { txid: t.txid, address, message, signature: sig.slice(0, -1) }],
                ["V1", { txid: t.txid, address, message, signature: sig.replace("ProofV2", "ProofV1") }],
              ];
              // one signature of several altered: the others still prove the payment, and both say what was received
              const one = (await Promise.all(checkers.map((u) => walletCall(u, "check_tx_proof", { txid: t.txid, address, message, signature: alter(sig) })))).map(n);
              assert.deepEqual(one[1], one[0]);
              for (const [why, params] of bads) {
                const r = await Promise.all(checkers.map((u) => refused(u, "check_tx_proof", params as JsonWritable, `${what} ${why}`)));
                assert.equal(r[0], r[1], `${what}, ${why}: both refuse the same way`);
              }
              // an unknown header: ours refuses it; wallet2 never compares the header with anything (it
              // compares the string's first 9 or 10 characters with themselves), so it reads any 9
              // characters not starting "Out" as InProofV2 and accepts the proof behind them
              const x = { txid: t.txid, address, message, signature: "X" + sig.slice(1) };
              const e = await walletRpc(checkers[0], "check_tx_proof", x);
              assert.equal(e.error?.code, -1);
              assert.match(String(e.error?.message), /^Signature header check error: a tx proof starts with OutProofV2 or InProofV2/);
              const real = await walletRpc(checkers[1], "check_tx_proof", x);
              if (what.startsWith("in")) assert.equal(real.result?.good, true, "monero-wallet-rpc accepts XnProofV2");
              else assert.match(String(real.error?.message), /^Wrong signature size/);
            }
          }
        }
      }
      // check_tx_key shares the received-amount rule with the tx proofs: same answers, additional keys included
      for (const t of txs) {
        const key = String((await walletCall(t.sender, "get_tx_key", { txid: t.txid })).tx_key);
        for (const [address, amount] of t.paid) {
          const ans = (await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_tx_key", { txid: t.txid, tx_key: key, address })))).map(n);
          assert.equal(ans[0].received, amount);
          assert.deepEqual(ans[1], ans[0]);
        }
        if (key.length > 64) {
          const short = await Promise.all([W.oursB, W.realB].map((u) => walletRpc(u, "check_tx_key", { txid: t.txid, tx_key: key.slice(0, 128), address: bob })));
          assert.deepEqual(short.map((x) => [x.error?.code, String(x.error?.message).split(":")[0]]), [[-1, "The size of additional derivations is wrong"], [-1, "The size of additional derivations is wrong"]]);
        }
      }
      // not a receipt of that address: both say so
      const none = txs[1]; // paid only bob's subaddress
      for (const u of [W.oursB, W.realB]) {
        const e = await walletRpc(u, "get_tx_proof", { txid: none.txid, address: bob });
        assert.equal(e.error?.code, -1);
        assert.match(String(e.error?.message), /^No funds received in this tx\./);
      }
      // a tx the daemon does not know, and a txid that is not one
      for (const u of [W.oursA, W.realA]) {
        const e = await walletRpc(u, "get_tx_proof", { txid: "ab".repeat(32), address: bob });
        assert.deepEqual([e.error?.code, String(e.error?.message).split(":")[0]], [-1, "Failed to get transaction from daemon"]);
        assert.equal((await walletRpc(u, "check_tx_proof", { txid: "zz", address: bob, signature: "InProofV2" })).error?.code, -8);
        assert.equal((await walletRpc(u, "get_tx_proof", { txid: txs[0].txid, address: "4nope" })).error?.code, -2);
      }
      // a sender that did not keep the tx key (the other alice): both say so
      for (const u of [W.oursA, W.realA]) {
        const t = txs.find((x) => x.sender !== u) as (typeof txs)[number];
        const e = await walletRpc(u, "get_tx_proof", { txid: t.txid, address: bob });
        assert.equal(e.error?.code, -1);
        assert.match(String(e.error?.message), /^Tx secret key wasn't found in the wallet file\./);
      }
    });

    it("OutProofV1 / InProofV1 (derived here with our prover at version 1) verify in both; their V2 header does not", async () => {
      const keysOf = async (u: string) => {
        const spend = unhex(String((await walletCall(u, "query_key", { key_type: "spend_key" })).key));
        const view = unhex(String((await walletCall(u, "query_key", { key_type: "view_key" })).key));
        return { spendSecretKey: spend, viewSecretKey: view, spendPublicKey: b.scalarMultBase(spend), viewPublicKey: b.scalarMultBase(view) };
      };
      const t = txs[0]; // ours, to bob and bob's subaddress, additional tx keys
      const tx = parseTransaction(unhex((await node.getTransactions([t.txid])).txs[0].as_hex));
      const txKeys = String((await walletCall(t.sender, "get_tx_key", { txid: t.txid })).tx_key);
      const ledger = new Ledger(emptyLedgerState(0), "mainnet");
      ledger.setTxKeys(t.txid, { txKey: txKeys.slice(0, 64), additional: (txKeys.slice(64).match(/.{64}/g) ?? []) });
      const aliceKeys = await keysOf(W.oursA);
      const bobKeys = await keysOf(W.oursB);
      const pw = (keys: typeof aliceKeys, mine: boolean): ProofWallet => ({
        backend: b,
        keys,
        ledger,
        deriver: new SubaddressDeriver(keys, b),
        node: null,
        subaddressIndexOf: () => (mine ? { major: 0, minor: 0 } : null),
      });
      for (const [address, amount] of t.paid) {
        if (address === aliceSub) continue;
        const a = decodeAddress(address, "mainnet");
        const pa = { spendPublicKey: a.spendPublicKey, viewPublicKey: a.viewPublicKey, isSubaddress: a.kind === "subaddress" };
        for (const [what, sig] of [
          ["OutProofV1", makeTxProof(pw(aliceKeys, false), tx, t.txid, pa, te.encode("v1"), 1)],
          ["InProofV1", makeTxProof(pw(bobKeys, true), tx, t.txid, pa, te.encode("v1"), 1)],
        ]) {
          assert.ok(sig.startsWith(what));
          const ans = await Promise.all([W.oursA, W.realA].map((u) => walletCall(u, "check_tx_proof", { txid: t.txid, address, message: "v1", signature: sig })));
          assert.equal(ans[0].good, true, `${what} to ${address === bob ? "bob" : "bob's subaddress"}`);
          assert.equal(big(ans[0].received), amount);
          assert.deepEqual(ans[1], ans[0]);
          const v2 = await Promise.all([W.oursA, W.realA].map((u) => walletCall(u, "check_tx_proof", { txid: t.txid, address, message: "v1", signature: sig.replace("ProofV1", "ProofV2") })));
          assert.deepEqual(v2.map((x) => x.good), [false, false]);
        }
      }
    });

    it("spend proofs: SpendProofV1 of either alice checks in both; other message, other tx, altered, cut, and a wallet that did not spend are refused", async () => {
      for (const t of [txs[0], txs[2]]) {
        for (const maker of [W.oursA, W.realA]) {
          for (const message of ["", "I spent it"]) {
            const sig = String((await walletCall(maker, "get_spend_proof", { txid: t.txid, message })).signature);
            assert.match(sig, /^SpendProofV1/);
            assert.equal((sig.length - 12) % 88, 0);
            const ans = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_spend_proof", { txid: t.txid, message, signature: sig })));
            assert.deepEqual(ans, [{ good: true }, { good: true }], `${name(maker)} on ${t.txid}`);
            const otherTx = txs.find((x) => x.txid !== t.txid)?.txid ?? "";
            for (const params of [
              { txid: t.txid, message: message + "?", signature: sig },
              { txid: otherTx, message, signature: sig },
              { txid: t.txid, message, signature: alter(sig) },
              { txid: t.txid, message, signature: sig.slice(0, -88) },
              { txid: t.txid, message, signature: "SpendProofV2" + sig.slice(12) },
            ]) {
              const r = await Promise.all([W.oursB, W.realB].map((u) => refused(u, "check_spend_proof", params)));
              assert.equal(r[0], r[1], JSON.stringify(params.signature.slice(0, 14)));
            }
          }
        }
      }
      for (const u of [W.oursB, W.realB]) {
        const e = await walletRpc(u, "get_spend_proof", { txid: txs[0].txid });
        assert.equal(e.error?.code, -1);
        assert.match(String(e.error?.message), /^This tx wasn't generated by this wallet!/);
      }
    });

    it("reserve proofs: ReserveProofV2 (all, or account + amount) of either alice checks in both with the same total; tampering is refused", async () => {
      const balance = big((await walletCall(W.oursA, "get_balance")).balance);
      for (const maker of [W.oursA, W.realA]) {
        for (const req of [{ all: true }, { all: false, account_index: 0, amount: balance / 10n }]) {
          const sig = String((await walletCall(maker, "get_reserve_proof", { ...req, message: "reserves" })).signature);
          assert.match(sig, /^ReserveProofV2/);
          const ans = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_reserve_proof", { address: alice, message: "reserves", signature: sig })));
          assert.equal(ans[0].good, true, `${name(maker)} ${JSON.stringify(req.all)}`);
          if (req.all) assert.equal(big(ans[0].total), balance);
          else assert.ok(big(ans[0].total) >= balance / 10n && big(ans[0].total) <= balance);
          assert.equal(big(ans[0].spent), 0n);
          assert.deepEqual(ans[1], ans[0]);
          for (const params of [
            { address: alice, message: "reserve", signature: sig },
            { address: bob, message: "reserves", signature: sig },
            { address: alice, message: "reserves", signature: sig.replace("ProofV2", "ProofV1") },
            { address: alice, message: "reserves", signature: alter(sig, 40) },
            { address: alice, message: "reserves", signature: sig.slice(0, -30) },
          ]) {
            const r = await Promise.all([W.oursB, W.realB].map((u) => refused(u, "check_reserve_proof", params)));
            assert.ok(r.every((x) => x !== "good"));
          }
        }
      }
      // bytes after the archive: wallet2 reads what it needs and never looks further (check_stream_state
      // fails, but the entries are loaded by then and used); ours refuses the altered string
      const whole = String((await walletCall(W.oursA, "get_reserve_proof", { all: true, message: "m" })).signature);
      const raw = base58Decode(whole.slice(14));
      const trailing = "ReserveProofV2" + base58Encode(Uint8Array.from([...raw, 0, 1, 2, 3]));
      const t = await walletRpc(W.oursB, "check_reserve_proof", { address: alice, message: "m", signature: trailing });
      assert.equal(t.error?.code, -1);
      assert.match(String(t.error?.message), /^The given address isn't found in the proof: the proof does not decode \(reserve proof at offset \d+: 4 bytes after the proof\)/);
      assert.equal((await walletCall(W.realB, "check_reserve_proof", { address: alice, message: "m", signature: trailing })).good, true, "monero-wallet-rpc accepts trailing bytes");
      for (const u of [W.oursA, W.realA]) {
        const e = await walletRpc(u, "get_reserve_proof", { all: false, account_index: 0, amount: balance + 1n });
        assert.deepEqual([e.error?.code, String(e.error?.message).split(":")[0]], [-1, "Not enough balance in this account for the requested minimum reserve amount"]);
        assert.equal((await walletRpc(u, "get_reserve_proof", { all: false, account_index: 7, amount: 1 })).error?.code, -1);
        const sub = await walletRpc(u, "check_reserve_proof", { address: aliceSub, signature: "ReserveProofV2" });
        assert.deepEqual([sub.error?.code, String(sub.error?.message).split(":")[0]], [-1, "Address must not be a subaddress"]);
      }
    });

    it("ReserveProofV1 (our V2 re-proved at version 1 with alice's view key) checks in both", async () => {
      const sig = String((await walletCall(W.oursA, "get_reserve_proof", { all: true, message: "old" })).signature);
      const view = unhex(String((await walletCall(W.oursA, "query_key", { key_type: "view_key" })).key));
      const A = b.scalarMultBase(view);
      const a = decodeAddress(alice, "mainnet");
      const p = decodeReserveProof(sig);
      const prefixHash = b.keccak256(Buffer.concat([te.encode("old"), a.spendPublicKey, a.viewPublicKey, ...p.entries.map((e) => e.keyImage)]));
      const txsById = new Map((await node.getTransactions([...new Set(p.entries.map((e) => hex(e.txid)))])).txs.map((e) => [e.tx_hash, parseTransaction(unhex(e.as_hex || e.pruned_as_hex + e.prunable_as_hex))]));
      for (const e of p.entries) {
        const tx = txsById.get(hex(e.txid));
        assert.ok(tx);
        const fields = parseTxExtra(tx.extra).fields;
        const R = [extraTxPubKey(fields), extraAdditionalPubKeys(fields)[Number(e.indexInTx)]].find((k) => k && hex(b.scalarMult(view, k) as Bytes) === hex(e.sharedSecret));
        assert.ok(R);
        e.sharedSecretSig = generateTxProof(b, { prefixHash, R: A, A: R, B: null, D: e.sharedSecret }, view, undefined, 1);
      }
      const v1 = encodeReserveProof({ ...p, version: 1 });
      const ans = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_reserve_proof", { address: alice, message: "old", signature: v1 })));
      assert.equal(ans[0].good, true);
      assert.deepEqual(ans[1], ans[0]);
      const asV2 = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_reserve_proof", { address: alice, message: "old", signature: v1.replace("ProofV1", "ProofV2") })));
      assert.deepEqual(asV2.map((x) => x.good), [false, false]);
    });

    it("a pool tx: proofs say in_pool; a reserve proof whose outputs were spent since says how much", async () => {
      const reserve = String((await walletCall(W.oursA, "get_reserve_proof", { all: true, message: "before" })).signature);
      const r = await walletCall(W.oursA, "transfer", { destinations: [{ address: bob, amount: 123_000_000_000n }] });
      const txid = String(r.tx_hash);
      const out = String((await walletCall(W.oursA, "get_tx_proof", { txid, address: bob })).signature);
      const ans = (await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_tx_proof", { txid, address: bob, signature: out })))).map(n);
      assert.deepEqual(ans[0], { confirmations: 0n, good: true, in_pool: true, received: 123_000_000_000n });
      assert.deepEqual(ans[1], ans[0]);
      const spent = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_reserve_proof", { address: alice, message: "before", signature: reserve })));
      assert.equal(spent[0].good, true);
      assert.ok(big(spent[0].spent) > 0n, "the pool tx's inputs count as spent");
      assert.deepEqual(spent[1], spent[0]);
      await mine(1);
      const mined = await Promise.all([W.oursB, W.realB].map((u) => walletCall(u, "check_reserve_proof", { address: alice, message: "before", signature: reserve })));
      assert.deepEqual(mined[1], mined[0]);
      assert.equal(mined[0].spent, spent[0].spent);
    });

    it("bad input is refused with a clear error and changes nothing; a view-only wallet refuses the spend key but proves receipts", async () => {
      const before = await walletCall(W.oursA, "get_balance");
      const garbage = ["", "O", "OutProofV2", "InProofV", "SpendProofV1", "ReserveProofV2", "ReserveProofV2" + "1".repeat(5000), "x".repeat(100_000), "OutProofV2" + "z".repeat(132), "\u0000\uffff"];
      for (const s of garbage) {
        for (const [m, p] of [
          ["check_tx_proof", { txid: txs[0].txid, address: bob, signature: s }],
          ["check_spend_proof", { txid: txs[0].txid, signature: s }],
          ["check_reserve_proof", { address: alice, signature: s }],
          ["verify", { data: "x", address: alice, signature: s }],
        ] as const) {
          const a = await walletRpc(W.oursA, m, p);
          if (a.error) {
            assert.equal(a.error.code, -1, `${m} ${s.slice(0, 20)}`);
            assert.ok(a.error.message.length > 10);
          } else assert.equal(a.result?.good, false);
        }
      }
      assert.deepEqual(await walletCall(W.oursA, "get_balance"), before);
      // every error names what was wrong and what to do, after wallet2's words
      const e = await walletRpc(W.oursA, "check_tx_proof", { txid: txs[0].txid, address: bob, signature: "OutProofV2abc" });
      assert.match(String(e.error?.message), /^Wrong signature size: after OutProofV2 a tx proof has 132 characters per tx public key/);

      // a view-only bob (ours): the spend key is refused (monero-wallet-rpc aborts on this one), the view key signs, receipts are proved
      const viewKey = String((await walletCall(W.oursB, "query_key", { key_type: "view_key" })).key);
      await walletCall(W.oursB, "generate_from_keys", { filename: "bob-view", password: "", address: bob, viewkey: viewKey, restore_height: 0 });
      await walletCall(W.oursB, "refresh");
      const spend = await walletRpc(W.oursB, "sign", { data: "d" });
      assert.equal(spend.error?.code, -29);
      assert.match(String(spend.error?.message), /^command not supported by watch-only wallet: signing with the spend key needs the spend secret key/);
      assert.equal((await walletRpc(W.oursB, "sign", { data: "d", signature_type: "view", address_index: 1 })).error?.code, -29);
      const viewSig = String((await walletCall(W.oursB, "sign", { data: "d", signature_type: "view" })).signature);
      assert.deepEqual(await walletCall(W.realA, "verify", { data: "d", address: bob, signature: viewSig }), { good: true, old: false, signature_type: "view", version: 2 });
      const reserve = await walletRpc(W.oursB, "get_reserve_proof", { all: true });
      assert.match(String(reserve.error?.message), /^Reserve proof can only be generated by a full wallet/);
      const sp = await walletRpc(W.oursB, "get_spend_proof", { txid: txs[0].txid });
      assert.match(String(sp.error?.message), /^get_spend_proof requires spend secret key and is not available for a watch-only wallet/);
      const inProof = String((await walletCall(W.oursB, "get_tx_proof", { txid: txs[0].txid, address: bob })).signature);
      const ans = await walletCall(W.realA, "check_tx_proof", { txid: txs[0].txid, address: bob, signature: inProof });
      assert.equal(ans.good, true);
      assert.equal(big(ans.received), txs[0].paid.get(bob));
      // the service still answers
      assert.equal((await walletCall(W.oursB, "get_address")).address, bob);
      for (const p of procs) assert.equal(p.proc.exitCode, null, "no wallet process died");
    });
  });
}
