/**
 * Multisig behaviours that Monero's functional test `multisig` checks at HEAD, beyond what
 * wallet-multisig.test.ts compares with monero-wallet-rpc 0.18.0.0:
 * - a 1-of-2 group (0.18.0.0 already allows it): the proposer is the only signer, so its transfer
 *   is final at once (transfer_selected_rct finishes the tx when the threshold is 1) and
 *   submit_multisig puts it in the pool; a real monero-wallet-rpc in the same group reaches the
 *   same address;
 * - restore_deterministic_wallet with enable_multisig_experimental (master 45b52de): the multisig
 *   seed query_key "mnemonic" gives restores the same member; offsets, non-hex and damaged seeds
 *   are refused with wallet_rpc_server's messages;
 * - sign_multisig refuses a set that spends an output this member froze (0.18.3.1, wallet2::frozen
 *   of a multisig_tx_set), and signs it once thawed.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Daemon, stopDaemon } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, walletRpc } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const OURS = new URL("../../bin/tsmonero-wallet-rpc", import.meta.url).pathname;
const REAL = "/usr/bin/monero-wallet-rpc";
const PORT0 = 19050;
/** tests/functional_tests/multisig.py's seeds. */
const SEEDS = [
  "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted",
  "peeled mixture ionic radar utopia puddle buying illness nuns gadget river spout cavernous bounced paradise drunk looking cottage jump tequila melting went winter adjust spout",
  "dilute gutter certain antics pamphlet macro enjoy left slid guarded bogeys upload nineteen bomb jubilee enhanced irritate turnip eggs swung jukebox loudly reduce sedan slid",
];
const MINER = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";

describe("multisig beyond 0.18.0.0's comparisons: 1-of-2, restore from the multisig seed, frozen outputs", { skip }, () => {
  let daemon: Daemon;
  const procs: Daemon[] = [];
  const dirs: string[] = [];
  /** ours, real, ours */
  const urls: string[] = [];

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-msig2-node-"));
    dirs.push(nodeDir);
    daemon = startRegtestNode("tsmonerod", [PORT0, PORT0 + 1], nodeDir);
    [OURS, REAL, OURS].forEach((bin, i) => {
      const dir = mkdtempSync(join(tmpdir(), `tsmonero-msig2-w${i}-`));
      dirs.push(dir);
      const p = startWallet(bin, daemon.url, PORT0 + 2 + i, dir);
      procs.push(p);
      urls.push(p.url);
    });
    await Promise.all(procs.map(waitWallet));
  });

  after(async () => {
    await stopProcesses(procs);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Restores each member from its seed (as `name`) and runs the key exchange to the end; returns the group's address. */
  async function group(members: readonly { url: string; seed: number }[], threshold: number, name: string): Promise<string> {
    const infos: string[] = [];
    for (const m of members) {
      await walletCall(m.url, "restore_deterministic_wallet", { filename: name, password: "", seed: SEEDS[m.seed], restore_height: 0 });
      infos.push(String((await walletCall(m.url, "prepare_multisig", { enable_multisig_experimental: true })).multisig_info));
    }
    let msgs: string[] = [];
    for (const [i, m] of members.entries()) {
      const r = await walletCall(m.url, "make_multisig", { multisig_info: infos.filter((_, k) => k !== i), threshold, password: "" });
      msgs.push(String(r.multisig_info));
    }
    for (let round = 0; round < 8; round++) {
      const states = await Promise.all(members.map((m) => walletCall(m.url, "is_multisig")));
      if (states.every((s) => s.ready)) break;
      const next: string[] = [];
      for (const m of members) next.push(String((await walletCall(m.url, "exchange_multisig_keys", { multisig_info: msgs, password: "" })).multisig_info));
      msgs = next;
    }
    const addresses = await Promise.all(members.map(async (m) => String((await walletCall(m.url, "get_address")).address)));
    assert.ok(addresses.every((a) => a === addresses[0]), `one group address: ${addresses.join(", ")}`);
    return addresses[0];
  }

  /** Every member exports its multisig info and imports the others'. */
  async function exchangeInfos(members: readonly string[]): Promise<void> {
    const infos: string[] = [];
    for (const u of members) {
      await walletCall(u, "refresh");
      infos.push(String((await walletCall(u, "export_multisig_info")).info));
    }
    for (const [i, u] of members.entries()) await walletCall(u, "import_multisig_info", { info: infos.filter((_, k) => k !== i) });
  }

  const mine = async (address: string, n: number) => nodeCall(daemon.url, "generateblocks", { amount_of_blocks: n, wallet_address: address });
  const pool = async () => ((await nodePath(daemon.url, "/get_transaction_pool_hashes", {})).tx_hashes ?? []) as string[];

  it("a 1-of-2 member's transfer is final at once: submit_multisig puts it in the pool", async () => {
    const [ours, real] = urls;
    const address = await group([{ url: ours, seed: 0 }, { url: real, seed: 1 }], 1, "one-of-two");
    await mine(address, 4);
    await mine(MINER, 80);
    await exchangeInfos([ours, real]);
    const t = await walletCall(ours, "transfer", { destinations: [{ address: MINER, amount: 1_000_000_000_000n }] });
    const set = String(t.multisig_txset);
    assert.ok(set.length > 0);
    const r = await walletCall(ours, "submit_multisig", { tx_data_hex: set });
    const ids = r.tx_hash_list as string[];
    assert.equal(ids.length, 1);
    assert.ok((await pool()).includes(ids[0]), "the daemon took the 1-of-2 tx");
    await mine(MINER, 1);
    // the real member sees the spend once it knows the key images (fresh infos)
    await exchangeInfos([ours, real]);
    const out = await walletCall(real, "get_transfers", { out: true });
    assert.ok(((out.out ?? []) as { txid: string }[]).some((e) => e.txid === ids[0]), "the real member lists the tx as outgoing");
  });

  it("restore_deterministic_wallet with enable_multisig_experimental restores a member from its multisig seed", async () => {
    const ours = urls[0];
    await walletCall(ours, "open_wallet", { filename: "one-of-two", password: "" });
    const key = async (k: string) => String((await walletCall(ours, "query_key", { key_type: k })).key);
    const before = { view: await key("view_key"), spend: await key("spend_key"), seed: await key("mnemonic"), address: String((await walletCall(ours, "get_address")).address) };
    assert.match(before.seed, /^[0-9a-f]+$/);
    const restore = (seed: string, extra: Record<string, string> = {}) =>
      walletRpc(ours, "restore_deterministic_wallet", { filename: `restored-${Math.random().toString(36).slice(2)}`, password: "", seed, restore_height: 0, enable_multisig_experimental: true, ...extra });
    const refused = async (seed: string, message: string | RegExp, extra: Record<string, string> = {}) => {
      const a = await restore(seed, extra);
      assert.equal(a.error?.code, -1, JSON.stringify(a));
      if (typeof message === "string") assert.equal(a.error?.message, message);
      else assert.match(String(a.error?.message), message);
    };
    await refused(before.seed, "Multisig seeds are not compatible with seed offsets", { seed_offset: "x" });
    await refused(`${before.seed}zz`, "Multisig seed not represented as hexadecimal string");
    await refused(before.seed.slice(0, -64), "invalid multisig seed");
    // a seed whose view key does not match its view public key
    await refused(before.seed.slice(0, 16 + 128) + "00".repeat(32) + before.seed.slice(16 + 192), "invalid multisig seed");
    const a = await restore(before.seed);
    assert.equal(a.error, undefined, JSON.stringify(a.error));
    assert.equal(a.result?.address, before.address);
    assert.equal(a.result?.seed, "");
    assert.deepEqual({ view: await key("view_key"), spend: await key("spend_key"), seed: await key("mnemonic") }, { view: before.view, spend: before.spend, seed: before.seed });
    const st = await walletCall(ours, "is_multisig");
    assert.deepEqual({ multisig: st.multisig, ready: st.ready, threshold: Number(st.threshold), total: Number(st.total) }, { multisig: true, ready: true, threshold: 1, total: 2 });
    // the restored member spends: refresh, fresh infos with the real member, a transfer the daemon takes
    await mine(MINER, 80); // enough unlocked outputs on the chain for 16-member rings
    await exchangeInfos([ours, urls[1]]);
    const t = await walletCall(ours, "transfer", { destinations: [{ address: MINER, amount: 500_000_000_000n }] });
    const ids = (await walletCall(ours, "submit_multisig", { tx_data_hex: String(t.multisig_txset) })).tx_hash_list as string[];
    assert.ok((await pool()).includes(ids[0]));
    await mine(MINER, 1);
  });

  it("sign_multisig refuses a set spending an output the signer froze, and signs it once thawed", async () => {
    const [a, , c] = urls;
    const address = await group([{ url: a, seed: 0 }, { url: c, seed: 2 }], 2, "two-of-two");
    await mine(address, 2);
    await mine(MINER, 80);
    await exchangeInfos([a, c]);
    const t = await walletCall(a, "transfer", { destinations: [{ address: MINER, amount: 1_000_000_000_000n }] });
    const kis = ((t.spent_key_images as { key_images: string[] }).key_images ?? []) as string[];
    assert.ok(kis.length > 0);
    await walletCall(c, "freeze", { key_image: kis[0] });
    const a1 = await walletRpc(c, "sign_multisig", { tx_data_hex: String(t.multisig_txset) });
    assert.equal(a1.error?.code, -35, JSON.stringify(a1));
    assert.equal(a1.error?.message, "Failed to sign multisig tx: Will not sign multisig tx containing frozen outputs");
    await walletCall(c, "thaw", { key_image: kis[0] });
    const signed = await walletCall(c, "sign_multisig", { tx_data_hex: String(t.multisig_txset) });
    const ids = signed.tx_hash_list as string[];
    assert.equal(ids.length, 1);
    await walletCall(c, "submit_multisig", { tx_data_hex: String(signed.tx_data_hex) });
    assert.ok((await pool()).includes(ids[0]));
  });
});
