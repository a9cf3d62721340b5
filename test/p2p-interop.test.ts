/**
 * Levin P2P against real monerod 0.18 on a private regtest network (ports 19200–19399):
 * tsmonerod syncs the recorded chain (333 blocks, 154 txs) from a monerod and verifies every block,
 * a fresh monerod syncs the same chain from tsmonerod, blocks mined on either side reach the others
 * as fluffy blocks, and get_connections / get_info / sync_info report the peers.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Daemon } from "./helpers/monerod.js";
import { MINER_ADDRESS, Net, pool, top, until } from "./helpers/p2p.js";
import { recordedBlocks, recordedTxs, WALLET_SEEDS } from "./helpers/chain.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { startWallet, stopProcesses, waitWallet, walletCall } from "./helpers/wallet-rpc.js";

const ADDRESS = MINER_ADDRESS;
const net = new Net();
const procs = net.procs;
const monerod = net.monerod.bind(net);
const tsmonerod = net.tsmonerod.bind(net);
const tmp = net.tmp.bind(net);
after(() => net.close());

/** The three nodes every test below uses: a monerod holding the recorded chain (A), tsmonerod synced from it (T), a monerod synced from T (M2). */
let A: Daemon;
let T: Daemon;
let M2: Daemon;
let chainTop: { height: number; hash: string };
let txCount = 0;
const T_ARGS = ["--add-exclusive-node", "127.0.0.1:19211"];
/** Every Dandelion++ epoch of tsmonerod a stem epoch (monerod's draw is 80 %), so the stem path is tested every run. */
const T_ENV = { TSMONERO_TEST_DANDELION_FLUFF_PERCENT: "0" };
let tDir = "";

before(async () => {
  // a real monerod holding the recorded chain: replayed offline, then restarted online with the chain kept
  const mDir = tmp();
  const m = monerod(19210, 19211, mDir, ["--offline"]);
  await until("monerod up", () => nodeCall(m.url, "get_info").then(() => true));
  const txs = new Map(recordedTxs().map((t) => [t.tx_hash, t]));
  for (const b of recordedBlocks().slice(1)) {
    for (const h of b.tx_hashes) {
      const r = await nodePath(m.url, "/send_raw_transaction", { tx_as_hex: txs.get(h)!.as_hex });
      assert.equal(r.status, "OK");
      txCount++;
    }
    await nodeCall(m.url, "submit_block", [b.blob]);
  }
  chainTop = await top(m.url);
  await stopProcesses([m]);
  // a --seed-node where nothing listens keeps it from dialling mainnet's seed nodes on the Internet when alone
  A = monerod(19210, 19211, mDir, ["--keep-fakechain", "--max-connections-per-ip", "4", "--seed-node", "127.0.0.1:19398"]);
  await until("monerod online", () => nodeCall(A.url, "get_info").then(() => true));
  tDir = tmp();
  T = tsmonerod(19212, 19213, tDir, T_ARGS, T_ENV);
  await until("tsmonerod synced from monerod", async () => ((await top(T.url)).hash === chainTop.hash ? true : undefined), 120_000);
  // monerod counts itself synchronized only once a peer it handshakes with is at least as high as it
  // (process_payload_sync_data → on_connection_synchronized) or a sync of its own ends; until then it
  // ignores new blocks and txs ("Received new block while syncing, ignored"). Every peer A met so far
  // was behind it, so A is not synchronized: a real monerod in tsmonerod's place leaves it so too.
  assert.equal((await nodeCall(A.url, "get_info")).synchronized, false);
  // tsmonerod restarts on its chain and handshakes A again, now as high as A: A is synchronized
  await stopProcesses([T]);
  T = tsmonerod(19212, 19213, tDir, [...T_ARGS, "--keep-fakechain"], T_ENV);
  await until("monerod synchronized by tsmonerod's handshake", async () => ((await nodeCall(A.url, "get_info")).synchronized === true ? true : undefined));
  assert.equal((await top(T.url)).hash, chainTop.hash);
});

test("tsmonerod syncs the recorded chain from monerod, and a fresh monerod syncs it from tsmonerod", { timeout: 300_000 }, async () => {
  assert.equal(chainTop.height, recordedBlocks().length - 1);
  assert.ok(txCount >= 150, `${txCount} txs in the chain`);
  const info = await nodeCall(T.url, "get_info");
  assert.equal(info.outgoing_connections_count, 1);
  assert.equal(info.synchronized, true);
  assert.equal(info.tx_count, txCount);
  const conns = (await nodeCall(T.url, "get_connections")).connections as { incoming: boolean; port: string; state: string; support_flags: number }[];
  assert.equal(conns.length, 1);
  assert.equal(conns[0].port, "19211");
  assert.equal(conns[0].support_flags, 1);

  M2 = monerod(19214, 19215, tmp(), ["--add-exclusive-node", "127.0.0.1:19213"]);
  await until("monerod synced from tsmonerod", async () => ((await top(M2.url)).hash === chainTop.hash ? true : undefined), 120_000);
  const mConns = (await nodeCall(M2.url, "get_connections")).connections as { port: string; incoming: boolean }[];
  assert.ok(mConns.some((c) => c.port === "19213" && !c.incoming), "monerod shows its connection to tsmonerod");
  assert.equal((await nodeCall(T.url, "get_info")).incoming_connections_count, 1);
});

test("blocks mined on tsmonerod reach both monerods (its outgoing and its incoming peer), blocks mined on a monerod reach tsmonerod", { timeout: 300_000 }, async () => {
  await nodeCall(T.url, "generateblocks", { amount_of_blocks: 3, wallet_address: ADDRESS });
  const a = await top(T.url);
  await until("tsmonerod's blocks relayed to its incoming peer", async () => ((await top(M2.url)).hash === a.hash ? true : undefined));
  await until("tsmonerod's blocks relayed to its outgoing peer", async () => ((await top(A.url)).hash === a.hash ? true : undefined));
  await nodeCall(M2.url, "generateblocks", { amount_of_blocks: 2, wallet_address: ADDRESS });
  const b = await top(M2.url);
  assert.equal(b.height, a.height + 2);
  await until("monerod's blocks relayed to tsmonerod", async () => ((await top(T.url)).hash === b.hash ? true : undefined));
  await until("and on to the other monerod", async () => ((await top(A.url)).hash === b.hash ? true : undefined));
  await nodeCall(A.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS });
  const c = await top(A.url);
  await until("blocks of tsmonerod's outgoing peer reach it", async () => ((await top(T.url)).hash === c.hash ? true : undefined));
  await until("and on to its incoming peer", async () => ((await top(M2.url)).hash === c.hash ? true : undefined));
});

test("a tx sent to tsmonerod reaches both monerods' pools, one sent to a monerod reaches tsmonerod's, and a block mined on either holds both", { timeout: 300_000 }, async () => {
  // txs made by a real monero-wallet-rpc on the recorded chain's wallets, not relayed by it
  const w = startWallet("/usr/bin/monero-wallet-rpc", T.url, 19216, tmp());
  procs.push(w);
  await waitWallet(w);
  const make = async (name: keyof typeof WALLET_SEEDS, to?: string): Promise<{ hash: string; blob: string; address: string }> => {
    await walletCall(w.url, "restore_deterministic_wallet", { filename: name, password: "", seed: WALLET_SEEDS[name], restore_height: 0 });
    await walletCall(w.url, "refresh");
    const address = (await walletCall(w.url, "get_address", { account_index: 0 })).address as string;
    const r = await walletCall(w.url, "transfer", { destinations: [{ amount: 1_000_000_000, address: to ?? address }], do_not_relay: true, get_tx_hex: true });
    await walletCall(w.url, "close_wallet");
    return { hash: r.tx_hash as string, blob: r.tx_blob as string, address };
  };
  const alice = await make("alice");
  const bob = await make("bob", alice.address);
  const send = async (url: string, blob: string): Promise<void> => {
    const a = await nodePath(url, "/send_raw_transaction", { tx_as_hex: blob });
    assert.equal(a.status, "OK", `${url}: ${a.reason ?? ""}`);
  };
  const inPool = (url: string, hash: string) => async (): Promise<true | undefined> => ((await pool(url)).includes(hash) ? true : undefined);

  // to tsmonerod, then relay_tx: Dandelion++, in a stem epoch (T_ENV). It goes along tsmonerod's one stem, its
  // outgoing peer A, as NOTIFY_NEW_TRANSACTIONS with dandelionpp_fluff false, and tsmonerod keeps it
  // embargoed (last_relayed_time 0, as monerod reports a stem tx) for ~39 s on average; A has it at
  // once, which only the stem message can have brought. A stem must be an outgoing peer as high as
  // the chain as last announced (monerod 0.18 learns a peer's height at the handshake and at each
  // timed sync, every 60 s): first wait until tsmonerod knows A's height.
  const height = (await top(T.url)).height + 1;
  await until("tsmonerod knows its outgoing peer's height (a timed sync)", async () => ((await nodeCall(T.url, "get_connections")).connections ?? []).some((c) => !c.incoming && c.height >= height) || undefined, 90_000);
  // held back first (do_not_relay), then relay_tx: monerod relays it as a tx of its own
  // (relay_method::local), so it goes along the stem as one from send_raw_transaction does
  const kept = await nodePath(T.url, "/send_raw_transaction", { tx_as_hex: alice.blob, do_not_relay: true });
  assert.equal(kept.status, "OK", kept.reason ?? "");
  assert.equal((await nodeCall(T.url, "relay_tx", { txids: [alice.hash] })).status, "OK");
  const held = async () => ((await nodePath(T.url, "/get_transaction_pool")).transactions ?? []).find((t) => t.id_hash === alice.hash);
  const mine = await held();
  assert.ok(mine, "in tsmonerod's own pool");
  assert.equal(mine.last_relayed_time, 0, "tsmonerod holds it in its stem, embargoed");
  await until("tsmonerod's stem tx in its stem's (A's) pool, long before its embargo ends", inPool(A.url, alice.hash), 10_000);
  await until("tsmonerod's tx in its incoming peer's pool", inPool(M2.url, alice.hash), 90_000);
  // to monerod M2: Dandelion++ stems it to its one outgoing peer (tsmonerod) or fluffs it; either way it reaches us, and we fluff it on
  await send(M2.url, bob.blob);
  await until("monerod's tx in tsmonerod's pool", inPool(T.url, bob.hash));
  await until("and on to the other monerod", inPool(A.url, bob.hash), 90_000);

  // a block mined on monerod A holds both; everyone agrees on it and empties its pool
  await nodeCall(A.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS });
  const b = await top(A.url);
  const blk = await nodeCall(A.url, "get_block", { hash: b.hash });
  assert.deepEqual([...(blk.tx_hashes as string[])].sort(), [alice.hash, bob.hash].sort());
  for (const u of [T.url, M2.url]) await until(`${u} has the block`, async () => ((await top(u)).hash === b.hash ? true : undefined));
  for (const u of [A.url, T.url, M2.url]) await until(`${u}'s pool emptied`, async () => ((await pool(u)).length === 0 ? true : undefined));
  // and one mined on tsmonerod holds a tx sent to monerod A
  const carol = await make("carol", alice.address);
  await send(A.url, carol.blob);
  await until("monerod A's tx in tsmonerod's pool", inPool(T.url, carol.hash), 90_000);
  await nodeCall(T.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS });
  const c = await top(T.url);
  assert.deepEqual((await nodeCall(T.url, "get_block", { hash: c.hash })).tx_hashes, [carol.hash]);
  for (const u of [A.url, M2.url]) await until(`${u} has tsmonerod's block`, async () => ((await top(u)).hash === c.hash ? true : undefined));
});
