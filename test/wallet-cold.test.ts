/**
 * Issue 17 (second half): outputs, key images and cold signing cross between tsmonero-wallet-rpc and
 * a real monero-wallet-rpc, both ways, on one chain (a real monerod, then tsmonerod). Alice has a
 * view-only wallet and an offline full wallet in each implementation: ours' view-only exports go
 * to the real full wallet and back, and the real view-only's to ours; an unsigned set made by one
 * view-only wallet is described by both full wallets, signed by the other implementation and
 * submitted by the view-only one; balances agree at the end. Truncated, altered and foreign data
 * is refused by both, and leaves the wallet as it was.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import type { JsonWritable } from "../src/rpc/json.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { mineUntilMined, nodeCall } from "./helpers/node-rpc.js";
import { big, type Obj, rpc, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const BIN = new URL("../../bin/", import.meta.url).pathname;
const DEAD_DAEMON = "127.0.0.1:9"; // the offline signers never reach a daemon




/** The call must fail; returns the error for comparing. Raw (any method, any params): the refusals tried include deliberately malformed params. */
async function refusedBy(url: string, method: string, params: JsonWritable): Promise<{ code: number; message: string }> {
  const a = await rpc(url, method, params);
  assert.ok(a.error, `${url} ${method} must refuse, answered ${JSON.stringify(a.result, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`);
  assert.notEqual(a.error.code, -32601);
  assert.notEqual(a.error.code, -48);
  return a.error;
}




/** Flips one hex digit in the middle of a hex string. */
const flip = (h: string, at = Math.floor(h.length / 2)): string => h.slice(0, at) + (h[at] === "0" ? "1" : "0") + h.slice(at + 1);

for (const kind of ["monerod", "tsmonerod"] as const) {
  describe(`outputs, key images and cold signing cross between tsmonero-wallet-rpc and monero-wallet-rpc on ${kind}`, { skip }, () => {
    let daemon: Daemon;
    let node: NodeClient;
    const procs: Daemon[] = [];
    const dirs: string[] = [];
    /** alice: view-only and full (offline) wallets, ours and the real one's. */
    const W = { viewOurs: "", viewReal: "", fullOurs: "", fullReal: "" };
    let alice = "";
    let bob = "";

    const mine = (n: number, to = alice) => nodeCall(node.url, "generateblocks", { amount_of_blocks: n, wallet_address: to });
    const balance = async (u: string) => {
      const r = await walletCall(u, "get_balance", { account_index: 0 });
      return { balance: big(r.balance), unlocked: big(r.unlocked_balance) };
    };

    before(async () => {
      const ports = await Promise.all(Array.from({ length: 6 }, () => freePort()));
      const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-cold-node-"));
      dirs.push(nodeDir);
      daemon = startRegtestNode(kind, [ports[0], ports[1]], nodeDir);
      node = new NodeClient({ url: daemon.url, timeoutMs: 60_000 });
      await waitReady(daemon, node);
      const bins = { viewOurs: join(BIN, "tsmonero-wallet-rpc"), viewReal: "/usr/bin/monero-wallet-rpc", fullOurs: join(BIN, "tsmonero-wallet-rpc"), fullReal: "/usr/bin/monero-wallet-rpc" };
      (Object.keys(bins) as (keyof typeof bins)[]).forEach((k, i) => {
        const dir = mkdtempSync(join(tmpdir(), `tsmonero-cold-${k}-`));
        dirs.push(dir);
        const p = startWallet(bins[k], daemon.url, ports[2 + i], dir);
        procs.push(p);
        W[k] = p.url;
      });
      await Promise.all(procs.map(waitWallet));
      // bob's address, from a wallet restored for the purpose
      await walletCall(W.fullOurs, "restore_deterministic_wallet", { filename: "bob", password: "", seed: WALLET_SEEDS.bob });
      bob = String((await walletCall(W.fullOurs, "get_address")).address);
      // the full wallets are restored on an empty chain and then cut off: they learn outputs only by import
      for (const k of ["fullOurs", "fullReal"] as const) {
        await walletCall(W[k], "restore_deterministic_wallet", { filename: "alice", password: "", seed: WALLET_SEEDS.alice });
        await walletCall(W[k], "auto_refresh", { enable: false });
        await walletCall(W[k], "set_daemon", { address: DEAD_DAEMON, trusted: false, ssl_support: "disabled" });
      }
      alice = String((await walletCall(W.fullOurs, "get_address")).address);
      assert.equal(String((await walletCall(W.fullReal, "get_address")).address), alice);
      const viewkey = String((await walletCall(W.fullOurs, "query_key", { key_type: "view_key" })).key);
      for (const k of ["viewOurs", "viewReal"] as const) {
        await walletCall(W[k], "generate_from_keys", { filename: "alice-view", address: alice, viewkey, password: "" });
        await walletCall(W[k], "auto_refresh", { enable: false });
      }
      await mine(80);
      await mine(2, bob);
      for (const k of ["viewOurs", "viewReal"] as const) await walletCall(W[k], "refresh");
    });

    after(async () => {
      await stopProcesses(procs);
      await stopDaemon(daemon);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    it("a view-only wallet refuses to sign and to export key images it cannot make", async () => {
      for (const u of [W.viewOurs, W.viewReal]) {
        await refusedBy(u, "sign_transfer", { unsigned_txset: "00" });
        await refusedBy(u, "query_key", { key_type: "spend_key" });
      }
      const e = await refusedBy(W.viewOurs, "export_key_images", { all: true });
      assert.match(e.message, /view-only/);
    });

    it("outputs cross both ways: each full wallet imports the other implementation's view-only export", async () => {
      const ours = String((await walletCall(W.viewOurs, "export_outputs", { all: true })).outputs_data_hex);
      const real = String((await walletCall(W.viewReal, "export_outputs", { all: true })).outputs_data_hex);
      assert.equal(ours.slice(0, 42), real.slice(0, 42), "same magic");
      const a = await walletCall(W.fullReal, "import_outputs", { outputs_data_hex: ours });
      const b = await walletCall(W.fullOurs, "import_outputs", { outputs_data_hex: real });
      assert.equal(big(a.num_imported), 80n);
      assert.equal(big(b.num_imported), 80n);
      // the two full wallets computed the same key images, in the same order
      const kiOurs = (await walletCall(W.fullOurs, "export_key_images", { all: true })).signed_key_images as Obj[];
      const kiReal = (await walletCall(W.fullReal, "export_key_images", { all: true })).signed_key_images as Obj[];
      assert.equal(kiOurs.length, 80);
      assert.deepEqual(kiOurs.map((x) => x.key_image), kiReal.map((x) => x.key_image));
      // incremental: nothing new since the last export, from both
      for (const u of [W.viewOurs, W.viewReal]) {
        const inc = String((await walletCall(u, "export_outputs", { all: false })).outputs_data_hex);
        assert.ok(inc.length > 0);
      }
    });

    it("key images cross both ways: each view-only wallet imports the other implementation's signed key images", async () => {
      const fromReal = await walletCall(W.fullReal, "export_key_images", { all: true });
      const fromOurs = await walletCall(W.fullOurs, "export_key_images", { all: true });
      assert.equal(big(fromReal.offset), 0n);
      const a = await walletCall(W.viewOurs, "import_key_images", { offset: 0, signed_key_images: fromReal.signed_key_images });
      const b = await walletCall(W.viewReal, "import_key_images", { offset: 0, signed_key_images: fromOurs.signed_key_images });
      assert.equal(big(a.spent), 0n);
      assert.deepEqual([big(a.height), big(a.spent), big(a.unspent)], [big(b.height), big(b.spent), big(b.unspent)]);
      assert.deepEqual(await balance(W.viewOurs), await balance(W.viewReal));
      // the full wallets keep their "requested" marks after exporting: an incremental export starts where the import did, in both
      const incOurs = await walletCall(W.fullOurs, "export_key_images", { all: false });
      const incReal = await walletCall(W.fullReal, "export_key_images", { all: false });
      assert.equal(big(incOurs.offset), big(incReal.offset));
      assert.equal((incOurs.signed_key_images as Obj[]).length, (incReal.signed_key_images as Obj[]).length);
    });

    it("bad outputs, key images and sets are refused by both, and change nothing", async () => {
      const before = [await balance(W.viewOurs), await balance(W.viewReal)];
      const good = String((await walletCall(W.viewOurs, "export_outputs", { all: true })).outputs_data_hex);
      for (const bad of [good.slice(0, good.length - 20), flip(good), flip(good, 10), "4d6f6e65726f"]) {
        await refusedBy(W.fullOurs, "import_outputs", { outputs_data_hex: bad });
        await refusedBy(W.fullReal, "import_outputs", { outputs_data_hex: bad });
      }
      assert.equal((await refusedBy(W.fullOurs, "import_outputs", { outputs_data_hex: "zz" })).code, -26);
      const ki = (await walletCall(W.fullReal, "export_key_images", { all: true })).signed_key_images as Obj[];
      // a known key image is taken without a check (wallet2 too): give entry 3 another output's key image
      const altered = ki.map((x, i) => (i === 3 ? { ...x, key_image: ki[4].key_image } : x));
      const e1 = await refusedBy(W.viewOurs, "import_key_images", { offset: 0, signed_key_images: altered as JsonWritable });
      const e2 = await refusedBy(W.viewReal, "import_key_images", { offset: 0, signed_key_images: altered as JsonWritable });
      assert.equal(e1.code, e2.code);
      assert.equal(e1.code, -9);
      // shifted by one: every signature is for another output
      const shifted = await refusedBy(W.viewOurs, "import_key_images", { offset: 1, signed_key_images: ki.slice(0, 5) as JsonWritable });
      assert.equal(shifted.code, -9);
      const e3 = await refusedBy(W.viewOurs, "import_key_images", { offset: 79, signed_key_images: ki.slice(0, 5) as JsonWritable });
      const e4 = await refusedBy(W.viewReal, "import_key_images", { offset: 79, signed_key_images: ki.slice(0, 5) as JsonWritable });
      assert.equal(e3.code, e4.code);
      await refusedBy(W.viewOurs, "import_key_images", { offset: 0, signed_key_images: [{ key_image: "00", signature: "00" }] });
      assert.deepEqual([await balance(W.viewOurs), await balance(W.viewReal)], before);
      for (const u of [W.fullOurs, W.fullReal]) {
        await refusedBy(u, "sign_transfer", { unsigned_txset: "4d6f6e65726f20756e7369676e6564207478207365740500" });
        await refusedBy(u, "describe_transfer", { unsigned_txset: "00112233" });
        await refusedBy(u, "submit_transfer", { tx_data_hex: "00112233" });
      }
    });

    for (const [maker, signer, other] of [
      ["viewOurs", "fullReal", "fullOurs"],
      ["viewReal", "fullOurs", "fullReal"],
    ] as const) {
      it(`an unsigned set from ${maker} is described alike by both, signed by ${signer} and submitted by ${maker}`, async () => {
        await walletCall(W[maker], "refresh");
        const amount = 1_234_000_000_000n;
        const t = await walletCall(W[maker], "transfer", { destinations: [{ address: bob, amount }], ring_size: 16 });
        const unsigned = String(t.unsigned_txset);
        assert.ok(unsigned.length > 0);
        assert.equal(String(t.tx_blob ?? ""), "");
        assert.equal(String(t.tx_key ?? ""), "");
        const d1 = await walletCall(W[signer], "describe_transfer", { unsigned_txset: unsigned });
        const d2 = await walletCall(W[other], "describe_transfer", { unsigned_txset: unsigned });
        assert.deepEqual(d1, d2);
        const desc = (d1.desc as Obj[])[0];
        assert.equal(big(desc.fee), big(t.fee));
        assert.equal(big(desc.ring_size), 16n);
        assert.deepEqual((desc.recipients as Obj[]).map((r) => [r.address, big(r.amount)]), [[bob, amount]]);
        assert.equal(desc.change_address, alice);
        assert.equal(big(desc.change_amount), big(desc.amount_in) - amount - big(t.fee));
        // a tampered set is refused by the signer
        await refusedBy(W[signer], "sign_transfer", { unsigned_txset: flip(unsigned) });
        const s = await walletCall(W[signer], "sign_transfer", { unsigned_txset: unsigned, get_tx_keys: true, export_raw: true });
        const ids = s.tx_hash_list as string[];
        assert.equal(ids.length, 1);
        assert.equal((s.tx_raw_list as string[]).length, 1);
        assert.ok(String((s.tx_key_list as string[])[0]).length >= 64);
        const sub = await walletCall(W[maker], "submit_transfer", { tx_data_hex: String(s.signed_txset) });
        assert.deepEqual(sub.tx_hash_list, ids);
        const pending = await walletCall(W[maker], "get_transfers", { pending: true, out: true });
        assert.equal(((pending.pending as Obj[] | undefined) ?? []).filter((x) => x.txid === ids[0]).length, 1);
        await mineUntilMined(node.url, ids[0], alice);
        await walletCall(W[maker], "refresh");
        const out = await walletCall(W[maker], "get_transfers", { pending: true, out: true });
        assert.equal(((out.out as Obj[] | undefined) ?? []).filter((x) => x.txid === ids[0]).length, 1);
        assert.equal(((out.pending as Obj[] | undefined) ?? []).filter((x) => x.txid === ids[0]).length, 0);
        // the signer keeps the tx key: check_tx_key by bob's address agrees
        const key = String((await walletCall(W[signer], "get_tx_key", { txid: ids[0] })).tx_key);
        assert.equal(key.length % 64, 0);
      });
    }

    it("after both spends, the two view-only wallets report the same balance once each imports the latest key images", async () => {
      await mine(10);
      for (const [view, full] of [
        ["viewOurs", "fullReal"],
        ["viewReal", "fullOurs"],
      ] as const) {
        await walletCall(W[view], "refresh");
        const outs = String((await walletCall(W[view], "export_outputs", { all: true })).outputs_data_hex);
        await walletCall(W[full], "import_outputs", { outputs_data_hex: outs });
        const ki = await walletCall(W[full], "export_key_images", { all: true });
        await walletCall(W[view], "import_key_images", { offset: Number(ki.offset), signed_key_images: ki.signed_key_images });
      }
      const a = await balance(W.viewOurs);
      const b = await balance(W.viewReal);
      assert.deepEqual(a, b);
      const inc = await walletCall(W.viewOurs, "incoming_transfers", { transfer_type: "available" });
      const inr = await walletCall(W.viewReal, "incoming_transfers", { transfer_type: "available" });
      const sum = (x: Obj) => ((x.transfers as Obj[] | undefined) ?? []).reduce((s, t) => s + big(t.amount), 0n);
      assert.equal(sum(inc), sum(inr));
      assert.equal(sum(inc), a.balance);
    });
  });
}
