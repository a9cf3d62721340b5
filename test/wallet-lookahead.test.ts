/**
 * Issue 20, subaddresses at scale, against a real tsmonerod regtest node and two tsmonero-wallet-rpc
 * processes: set_subaddress_lookahead as monero-wallet-rpc 0.18.2+ (its password check and wallet2's
 * errors), get_subaddress_lookahead (our extension), a payment to (0, 999,999) found with a lookahead
 * of 1,000,000 (and again after a reopen and a rescan), the wallet process's memory measured; and
 * get_transfers' pagination over RPC while blocks arrive.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { defaultBackend } from "../src/crypto/index.js";
import { decodeAddress } from "../src/protocol/address.js";
import { SubaddressDeriver } from "../src/wallet/keys/subaddress.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { big, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, type WalletResult, walletRpc } from "./helpers/wallet-rpc.js";

type TransferEntry = NonNullable<WalletResult<"get_transfers">["in"]>[number];

const BIN = new URL("../../bin/tsmonero-wallet-rpc", import.meta.url).pathname;
const PORTS = { node: 19400, alice: 19401, recv: 19402 } as const;

/** Resident memory of a process, MB (Linux). */
const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

describe("subaddresses at scale and paged get_transfers on tsmonerod", () => {
  let daemon: Daemon;
  let node: NodeClient;
  const procs: Daemon[] = [];
  const dirs: string[] = [];
  let alice = "";
  let recv = "";
  let recvProc: Daemon;
  let recvAddress = "";
  let far = ""; // the address of (0, 999,999)

  const mine = (n: number, to: string) => nodeCall(daemon.url, "generateblocks", { amount_of_blocks: n, wallet_address: to });

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-lookahead-node-"));
    dirs.push(nodeDir);
    daemon = startRegtestNode("tsmonerod", [PORTS.node, PORTS.node + 100], nodeDir);
    node = new NodeClient({ url: daemon.url, timeoutMs: 120_000 });
    await waitReady(daemon, node);
    for (const k of ["alice", "recv"] as const) {
      const dir = mkdtempSync(join(tmpdir(), `tsmonero-lookahead-${k}-`));
      dirs.push(dir);
      const p = startWallet(BIN, daemon.url, PORTS[k], dir);
      procs.push(p);
      if (k === "alice") alice = p.url;
      else {
        recv = p.url;
        recvProc = p;
      }
    }
    await Promise.all(procs.map(waitWallet));
    await walletCall(alice, "restore_deterministic_wallet", { filename: "alice", password: "", seed: WALLET_SEEDS.alice });
    await walletCall(recv, "create_wallet", { filename: "recv", password: "pw", language: "English" });
    for (const u of [alice, recv]) await walletCall(u, "auto_refresh", { enable: false });
    recvAddress = String((await walletCall(recv, "get_address")).address);
    await mine(100, String((await walletCall(alice, "get_address")).address));
    await walletCall(alice, "refresh");
  });

  after(async () => {
    await stopProcesses(procs);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("set_subaddress_lookahead checks the password and wallet2's limits; get_subaddress_lookahead reads the sizes", async () => {
    assert.deepEqual(await walletCall(recv, "get_subaddress_lookahead"), { major_idx: 50, minor_idx: 200 });
    const wrong = await walletRpc(recv, "set_subaddress_lookahead", { password: "nope", major_idx: 1, minor_idx: 10 });
    assert.deepEqual(wrong.error, { code: -22, message: "Invalid password." });
    const zero = await walletRpc(recv, "set_subaddress_lookahead", { password: "pw", major_idx: 0, minor_idx: 10 });
    assert.deepEqual(zero.error, { code: -1, message: "Subaddress major lookahead may not be zero" });
    const zeroMinor = await walletRpc(recv, "set_subaddress_lookahead", { password: "pw", major_idx: 1, minor_idx: 0 });
    assert.deepEqual(zeroMinor.error, { code: -1, message: "Subaddress minor lookahead may not be zero" });
    const huge = await walletRpc(recv, "set_subaddress_lookahead", { password: "pw", major_idx: 1, minor_idx: 4_000_000_000 });
    assert.equal(huge.error?.code, -1);
    assert.match(huge.error?.message ?? "", /^Subaddress minor lookahead is too large \(at most \d+/);
    // the sizes were left as they were
    assert.deepEqual(await walletCall(recv, "get_subaddress_lookahead"), { major_idx: 50, minor_idx: 200 });
  });

  it("a payment to subaddress (0, 999,999) is found with a lookahead of 1,000,000, and the memory it takes is stated", async () => {
    const pid = recvProc.proc.pid ?? 0;
    const before = rssMb(pid);
    const t0 = Date.now();
    await walletCall(recv, "set_subaddress_lookahead", { password: "pw", major_idx: 1, minor_idx: 1_000_000 });
    const seconds = (Date.now() - t0) / 1000;
    const afterSet = rssMb(pid);
    console.log(`# set_subaddress_lookahead(1, 1,000,000): ${seconds.toFixed(1)} s; wallet process RSS ${before.toFixed(0)} → ${afterSet.toFixed(0)} MB (+${(afterSet - before).toFixed(0)} MB for the table in the scan worker and its copy on the main thread)`);
    assert.deepEqual(await walletCall(recv, "get_subaddress_lookahead"), { major_idx: 1, minor_idx: 1_000_000 });
    // 17 bytes a slot, 2^21 slots, twice (worker and main thread): ~71 MB; more would be a leak
    assert.ok(afterSet - before < 160, `the table takes ${(afterSet - before).toFixed(0)} MB`);

    const viewKey = String((await walletCall(recv, "query_key", { key_type: "view_key" })).key);
    const a = decodeAddress(recvAddress, "mainnet");
    const be = defaultBackend();
    far = new SubaddressDeriver({ viewSecretKey: Uint8Array.from(Buffer.from(viewKey, "hex")), spendPublicKey: a.spendPublicKey, viewPublicKey: a.viewPublicKey }, be).address("mainnet", 0, 999_999);
    // the main thread's copy answers get_address_index at once
    assert.deepEqual((await walletCall(recv, "get_address_index", { address: far })).index, { major: 0, minor: 999_999 });

    const sent = await walletCall(alice, "transfer", { destinations: [{ address: far, amount: 1_234_567_890 }] });
    await mine(1, String((await walletCall(alice, "get_address")).address));
    await walletCall(recv, "refresh");
    const t = await walletCall(recv, "get_transfers", { in: true });
    const incoming = t.in;
    assert.ok(incoming, "an incoming transfer");
    assert.equal(incoming.length, 1);
    assert.equal(incoming[0].txid, sent.tx_hash);
    assert.deepEqual(incoming[0].subaddr_index, { major: 0, minor: 999_999 });
    assert.equal(big(incoming[0].amount), 1_234_567_890n);
    assert.equal(incoming[0].address, far);
    assert.equal(big((await walletCall(recv, "get_balance")).balance), 1_234_567_890n);
    // wallet2 grows the account to the index it received on
    const addrs = (await walletCall(recv, "get_address", { account_index: 0, address_index: [999_999] })).addresses;
    assert.ok(addrs, "the address of (0, 999,999)");
    assert.equal(addrs[0].address, far);
  });

  it("the lookahead is kept in the keys file: after a reopen and a rescan the payment is found again", async () => {
    await walletCall(recv, "close_wallet");
    await walletCall(recv, "open_wallet", { filename: "recv", password: "pw" });
    assert.deepEqual(await walletCall(recv, "get_subaddress_lookahead"), { major_idx: 1, minor_idx: 1_000_000 });
    await walletCall(recv, "rescan_blockchain");
    const incoming = (await walletCall(recv, "get_transfers", { in: true })).in;
    assert.ok(incoming, "the incoming transfer");
    assert.deepEqual(incoming.map((e) => e.subaddr_index), [{ major: 0, minor: 999_999 }]);
    // a smaller lookahead keeps what was derived (wallet2 keeps m_subaddresses)
    await walletCall(recv, "set_subaddress_lookahead", { password: "pw", major_idx: 2, minor_idx: 20 });
    assert.deepEqual(await walletCall(recv, "get_subaddress_lookahead"), { major_idx: 2, minor_idx: 20 });
    assert.deepEqual((await walletCall(recv, "get_address_index", { address: far })).index, { major: 0, minor: 999_999 });
  });

  it("get_transfers pages with limit and cursor while blocks arrive: every entry once, in order; no limit answers as before", async () => {
    await mine(25, recvAddress);
    await walletCall(recv, "refresh");
    const plain = await walletCall(recv, "get_transfers", { in: true, out: true });
    assert.ok(!("next_cursor" in plain) && !("more" in plain), "the drop-in answer is unchanged");
    const seen: TransferEntry[] = [];
    let cursor = "";
    let mined = 0;
    for (;;) {
      const page = await walletCall(recv, "get_transfers", { in: true, out: true, limit: 4, cursor });
      const entries = [...(page.in ?? []), ...(page.out ?? [])];
      assert.ok(entries.length <= 4);
      seen.push(...entries);
      if (mined < 6) {
        await mine(2, recvAddress); // new blocks while the client pages
        await walletCall(recv, "refresh");
        mined++;
      }
      cursor = String(page.next_cursor);
      if (page.more === false && entries.length === 0 && mined >= 6) break;
    }
    const all = await walletCall(recv, "get_transfers", { in: true, out: true });
    const key = (e: TransferEntry) => `${String(e.txid)}:${JSON.stringify(e.subaddr_index)}`;
    assert.ok(all.in, "incoming transfers");
    const expected = [...all.in, ...(all.out ?? [])].map(key);
    assert.equal(expected.length, 1 + 25 + 12);
    assert.deepEqual(seen.map(key), all.in.map(key), "pages in chain order, nothing missing or repeated");
    const bad = await walletRpc(recv, "get_transfers", { in: true, limit: 2, cursor: "not-a-cursor" });
    assert.equal(bad.error?.code, -1);
    assert.match(bad.error?.message ?? "", /Invalid cursor "not-a-cursor": pass the next_cursor/);
  });
});
