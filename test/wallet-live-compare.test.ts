/**
 * Answers checked against a live monero-wallet-rpc (Debian package `monero`) on a fresh real
 * monerod --regtest, on free ports: the real wallet (alice, then bob) spends, ours (bob) only reads.
 * - get_transfer_by_txid of a tx paying several of bob's subaddresses (two accounts): the `transfer`
 *   entry and the order of `transfers` (wallet2's hash-map order, src/wallet/ledger/hash-order.ts).
 * - scan_tx of a coinbase tx the wallet skipped (restored above its height): wallet2::scan_tx
 *   processes it as an ordinary tx (miner_tx false): type "in", not "block". Its `fee` there is
 *   rct_signatures.txnFee of a coinbase, which no blob sets: monero-wallet-rpc answers whatever the
 *   memory held (e.g. 140172513293824); ours answers 0, and the comparison leaves that one field out.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import type { WalletMethod } from "../src/wallet/rpc/api.js";
import { WalletService } from "../src/wallet/service/index.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { type Daemon, startMonerod, startProcess, stopDaemon, waitReady } from "./helpers/monerod.js";
import { nodeCall } from "./helpers/node-rpc.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { walletCall, type WalletParams, walletRpc } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const FAST_KDF = { log2N: 10, r: 8, p: 1 };

/** A wallet's whole answer to one call (its result or its error), as both wallets' are compared. */
type Answer<M extends WalletMethod> = Awaited<ReturnType<typeof walletRpc<M>>>;

/** `v` with the fee of every entry of tx `txid` replaced by a marker; `fees` collects the fees replaced. */
function withoutFee(v: unknown, txid: string, fees: unknown[]): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutFee(x, txid, fees));
  if (v !== null && typeof v === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = withoutFee(x, txid, fees);
    if (o.txid === txid && "fee" in o) {
      fees.push(o.fee);
      o.fee = "<coinbase fee>";
    }
    return o;
  }
  return v;
}

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));

describe("answers against a live monero-wallet-rpc: multi-subaddress get_transfer_by_txid, scan_tx of a coinbase", { skip }, () => {
  let daemon: Daemon | undefined;
  let real: Daemon | undefined;
  let realUrl = "";
  let svc: WalletService | undefined;
  let rpc: WalletRpc | undefined;
  let oursUrl = "";
  const dirs: string[] = [];
  let multiTxid = "";
  let coinbaseTxid = "";

  /** The same call to both wallets: returns their whole answers [real, ours]. */
  const both = <M extends WalletMethod>(method: M, params?: WalletParams<M>): Promise<[Answer<M>, Answer<M>]> =>
    Promise.all([walletRpc(realUrl, method, params), walletRpc(oursUrl, method, params)]);

  before(async () => {
    const [rpcPort, p2pPort, walletPort] = [await freePort(), await freePort(), await freePort()];
    daemon = startMonerod(rpcPort, p2pPort);
    const node = new NodeClient({ url: `http://127.0.0.1:${rpcPort}` });
    await waitReady(daemon, node);
    const walletDir = mkdtempSync(join(tmpdir(), "tsmonero-live-real-"));
    dirs.push(walletDir);
    real = startProcess(
      "/usr/bin/monero-wallet-rpc",
      [
        "--wallet-dir", walletDir, "--disable-rpc-login", "--daemon-address", `127.0.0.1:${rpcPort}`, "--rpc-bind-ip", "127.0.0.1",
        "--rpc-bind-port", String(walletPort), "--log-file", join(walletDir, "wallet.log"), "--non-interactive",
      ],
      walletDir,
      `http://127.0.0.1:${walletPort}`,
    );
    realUrl = real.url;
    const oursDir = mkdtempSync(join(tmpdir(), "tsmonero-live-ours-"));
    dirs.push(oursDir);
    svc = new WalletService({ network: "regtest", walletDir: oursDir, node, trusted: true, kdf: FAST_KDF, autoRefreshPeriod: 0 });
    rpc = await startWalletRpc({ service: svc, port: 0 });
    oursUrl = rpc.url;
    for (const deadline = Date.now() + 60_000; ; ) {
      if (real.proc.exitCode !== null) throw new Error(`monero-wallet-rpc exited: ${real.output.join("").slice(-2000)}`);
      try {
        await walletCall(realUrl, "get_version");
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await walletCall(realUrl, "auto_refresh", { enable: false });

    // ours holds bob and names the subaddresses alice pays (0/1..0/27, 1/1..1/5)
    await walletCall(oursUrl, "restore_deterministic_wallet", { filename: "bob", password: "", seed: WALLET_SEEDS.bob, restore_height: 0, language: "English" });
    await walletCall(oursUrl, "create_address", { account_index: 0, count: 27 });
    await walletCall(oursUrl, "create_account", {});
    await walletCall(oursUrl, "create_address", { account_index: 1, count: 5 });
    const addr = async (major: number, minor: number) => {
      const { addresses } = await walletCall(oursUrl, "get_address", { account_index: major, address_index: [minor] });
      assert.ok(addresses, `get_address ${major}/${minor}: addresses`);
      return addresses[0].address;
    };
    const bob = (await walletCall(oursUrl, "get_address")).address;

    // two coinbases to bob (heights 1, 2), then alice's, unlocked
    const alice = await walletCall(realUrl, "restore_deterministic_wallet", { filename: "alice", password: "", seed: WALLET_SEEDS.alice, restore_height: 0, language: "English" });
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 2, wallet_address: bob });
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 100, wallet_address: alice.address });
    coinbaseTxid = (await nodeCall(node.url, "get_block", { height: 1 })).miner_tx_hash;
    await walletCall(realUrl, "refresh");
    const xmr = 1_000_000_000_000n;
    // wallet2's map has 13 buckets (hash = major << 32 | minor; 2^32 ≡ 9 mod 13): 0/1, 0/14, 0/27 and 1/5
    // share bucket 1, 0/13 and 1/4 bucket 0, so the order is not simply the outputs' order
    const dests = [[0, 1], [0, 14], [1, 5], [0, 27], [0, 2], [1, 4], [0, 13]];
    const destinations: { amount: bigint; address: string }[] = [];
    for (const [i, [major, minor]] of dests.entries()) destinations.push({ amount: xmr + BigInt(i) * 1_000_000n, address: await addr(major, minor) });
    const sent = await walletCall(realUrl, "transfer", { destinations, priority: 0, ring_size: 16 });
    multiTxid = sent.tx_hash;
    // mined for sure before the wallets look: a block template made just before the tx reached the
    // pool can leave it out (seen once in a full run: the real wallet then found none of the 7)
    for (let i = 0; ; i++) {
      await nodeCall(node.url, "generateblocks", { amount_of_blocks: 1, wallet_address: alice.address });
      const t = await node.getTransactions([multiTxid]);
      if (t.txs?.[0]?.in_pool === false) break;
      if (i >= 5) throw new Error(`the 7-payment tx ${multiTxid} is still not mined after ${i + 1} blocks: ${JSON.stringify(t)}`);
    }

    // the real one now holds bob too; both refreshed to the same tip
    await walletCall(realUrl, "restore_deterministic_wallet", { filename: "bob", password: "", seed: WALLET_SEEDS.bob, restore_height: 0, language: "English" });
    await walletCall(realUrl, "refresh");
    await walletCall(oursUrl, "refresh");
  });

  after(async () => {
    await rpc?.close();
    await svc?.stop();
    await stopDaemon(real);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("get_transfer_by_txid of a tx paying 7 subaddresses in 2 accounts (colliding hash buckets): the same `transfer` and the same `transfers` order", async () => {
    for (const account_index of [0, 1]) {
      const [a, b] = await both("get_transfer_by_txid", { txid: multiTxid, account_index });
      assert.ok(a.result, show(a));
      assert.ok(a.result.transfers.length > 1, `several entries in account ${account_index}`);
      assert.deepEqual(b, a, `account ${account_index}: ours ${show(b)}\nmonero-wallet-rpc ${show(a)}`);
    }
    // across txs monero-wallet-rpc lists m_payments' hash order (ours: by height); within the tx, the same order
    const [a, b] = await both("get_transfers", { in: true, all_accounts: true });
    const ofTx = (x: Answer<"get_transfers">) => {
      assert.ok(x.result?.in, show(x));
      return x.result.in.filter((e) => e.txid === multiTxid);
    };
    assert.equal(ofTx(a).length, 7);
    assert.deepEqual(ofTx(b), ofTx(a), "get_transfers in: the tx's entries in the same order");
  });

  it("scan_tx of a coinbase the wallet skipped: the same balance, transfers and outputs afterwards", async () => {
    for (const url of [realUrl, oursUrl])
      await walletCall(url, "restore_deterministic_wallet", { filename: "bob-late", password: "", seed: WALLET_SEEDS.bob, restore_height: 50, language: "English" });
    await Promise.all([walletCall(realUrl, "refresh"), walletCall(oursUrl, "refresh")]);
    const [sa, sb] = await both("scan_tx", { txids: [coinbaseTxid] });
    assert.deepEqual(sb, sa, "scan_tx's answer");
    const asked: [string, () => Promise<[Answer<WalletMethod>, Answer<WalletMethod>]>][] = [
      ["get_balance", () => both("get_balance", { all_accounts: true })],
      ["get_transfers", () => both("get_transfers", { in: true, out: true, pool: true, all_accounts: true })],
      ["get_transfer_by_txid", () => both("get_transfer_by_txid", { txid: coinbaseTxid })],
      ["incoming_transfers", () => both("incoming_transfers", { transfer_type: "all" })],
    ];
    for (const [method, ask] of asked) {
      const [a, b] = await ask();
      const [feesA, feesB]: unknown[][] = [[], []];
      const [na, nb] = [withoutFee(a.result, coinbaseTxid, feesA), withoutFee(b.result, coinbaseTxid, feesB)];
      assert.deepEqual(nb, na, `${method}: ours ${show(b)}\nmonero-wallet-rpc ${show(a)}`);
      assert.ok(feesB.every((f) => f === 0), `ours: the coinbase's fee is 0 (${show(feesB)})`);
      if (method === "get_transfers") {
        assert.equal((na as { in: unknown[] }).in.length, 8, "the coinbase and the 7 payments");
        assert.ok(feesA.length === 1 && feesB.length === 1, "the coinbase is listed once, as type in");
      }
    }
    // scanning it again changes nothing
    await both("scan_tx", { txids: [coinbaseTxid] });
    const [a, b] = await both("get_balance", { all_accounts: true });
    assert.deepEqual(b, a);
  });
});
