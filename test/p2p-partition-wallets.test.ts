/**
 * Partitions and real wallets (ports 19400–19407 and 19419 for the nodes, 19440–19443 for the wallets): two groups, each a real monerod and a tsmonerod,
 * share a chain funding alice and bob, are cut apart, and each mines coinbase to the wallets and
 * transfers between them; the lighter branch holds a tx that conflicts with one of the heavier
 * branch (monerod keeps it in its pool, a double spend its templates leave out) and one that does
 * not (it returns to the pool and is mined again). On reconnect every
 * node reorganises to the heavier chain, and a real monero-wallet-rpc on each node (two on tsmonerod,
 * two on monerod), holding alice and bob restored from the same seeds, reports the same balances and
 * transfers as the wallets on the monerods.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { parseBlock } from "../src/protocol/block.js";
import type { JsonValue } from "../src/rpc/json.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import type { Daemon } from "./helpers/monerod.js";
import { hasTop, Net, pool, top, until, up } from "./helpers/p2p.js";
import { nodeCall, nodePath } from "./helpers/node-rpc.js";
import { type Obj, startWallet, stopProcesses, walletCall } from "./helpers/wallet-rpc.js";

const net = new Net();
after(() => net.close());

const mine = (d: Daemon, n: number, to: string): Promise<unknown> => nodeCall(d.url, "generateblocks", { amount_of_blocks: n, wallet_address: to });
const DEAD_SEED = ["--seed-node", "127.0.0.1:19419"];
const ALL = { in: true, out: true, pending: true, failed: true, pool: true };

/** One monero-wallet-rpc; `use` opens one of its wallets and refreshes it to its daemon's top. */
class Wallet {
  private open = "";
  constructor(readonly name: string, readonly rpc: Daemon, readonly node: Daemon) {}

  async use(file: string): Promise<void> {
    if (this.open !== file) {
      if (this.open) await walletCall(this.rpc.url, "close_wallet");
      await walletCall(this.rpc.url, "open_wallet", { filename: file, password: "" });
      this.open = file;
    }
    const height = (await top(this.node.url)).height + 1;
    await until(`${this.name} ${file} refreshed to ${height}`, async () => {
      await walletCall(this.rpc.url, "refresh");
      return Number((await walletCall(this.rpc.url, "get_height")).height) === height ? true : undefined;
    });
  }

  async restore(file: string, seed: string): Promise<void> {
    if (this.open) await walletCall(this.rpc.url, "close_wallet");
    await walletCall(this.rpc.url, "restore_deterministic_wallet", { filename: file, seed, password: "", restore_height: 0, language: "English" });
    this.open = file;
  }

  /** Balance and transfers of `file`, refreshed now. */
  async view(file: string): Promise<{ balance: Obj; transfers: Obj }> {
    await this.use(file);
    const b = await walletCall(this.rpc.url, "get_balance", { account_index: 0 });
    return { balance: { balance: b.balance, unlocked_balance: b.unlocked_balance, blocks_to_unlock: b.blocks_to_unlock }, transfers: await walletCall(this.rpc.url, "get_transfers", ALL) };
  }
}

/**
 * A view's pool entries without their timestamp (each daemon's own receive time of the tx, taken
 * when the reorganisation returned it to that daemon's pool), which is checked to be close instead.
 */
function comparable(v: { balance: Obj; transfers: Obj }): { shape: JsonValue; poolTimes: number[] } {
  const poolEntries = sorted((v.transfers.pool ?? []) as Obj[]);
  const transfers: Obj = {};
  for (const [kind, list] of Object.entries(v.transfers)) transfers[kind] = sorted(list as Obj[]);
  transfers.pool = poolEntries.map((e) => ({ ...e, timestamp: 0 }));
  return { shape: { ...v.balance, transfers } as unknown as JsonValue, poolTimes: poolEntries.map((e) => Number(e.timestamp)) };
}

/**
 * A transfer list in one order: monero-wallet-rpc lists "in" in its payments hash map's order, which
 * depends on when each wallet's (background) refreshes inserted them, not on the daemon.
 */
function sorted(list: Obj[]): Obj[] {
  const key = (e: Obj): string => `${String(e.height).padStart(12, "0")} ${String(e.txid)} ${JSON.stringify(e.subaddr_index)} ${String(e.amount)}`;
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Same balances and transfers; pool entries' receive times at most `slack` seconds apart (each daemon
 * stamps a tx when it reaches its pool: by relay, or when its own reorganisation returns it, and two
 * daemons reorganise as far apart as the test waited for them to).
 */
function assertSameView(a: { balance: Obj; transfers: Obj }, b: { balance: Obj; transfers: Obj }, what: string, slack = 60): void {
  const [ca, cb] = [comparable(a), comparable(b)];
  assert.deepEqual(ca.shape, cb.shape, what);
  ca.poolTimes.forEach((t, i) => assert.ok(Math.abs(t - cb.poolTimes[i]) <= slack, `${what}: pool receive times ${t} and ${cb.poolTimes[i]} more than ${slack} s apart`));
}

const txIds = (v: { transfers: Obj }, kind: string): string[] => ((v.transfers[kind] ?? []) as Obj[]).map((e) => e.txid as string).sort();

test("two groups mine and transfer apart, reconnect, reorganise to the heavier chain, and real wallets on tsmonerod and monerod see the same balances and transfers", { timeout: 1_500_000 }, async (t) => {
  const t0 = Date.now();
  const phase = (what: string): void => t.diagnostic(`${what}: ${Math.round((Date.now() - t0) / 1000)} s`);
  // group A (the light branch): M1 ← T1; group B (the heavy one): M2 ← T2; T2 also dials T1 while whole
  const M1 = net.monerod(19400, 19401, net.tmp(), DEAD_SEED);
  const M2 = net.monerod(19404, 19405, net.tmp(), DEAD_SEED);
  const T1 = net.tsmonerod(19402, 19403, net.tmp(), ["--add-exclusive-node", "127.0.0.1:19401"]);
  const t2Dir = net.tmp();
  const whole = ["--add-exclusive-node", "127.0.0.1:19405", "--add-exclusive-node", "127.0.0.1:19403", "--keep-fakechain"];
  const apart = ["--add-exclusive-node", "127.0.0.1:19405", "--keep-fakechain"];
  let T2 = net.tsmonerod(19406, 19407, t2Dir, whole);
  for (const d of [M1, M2, T1, T2]) await up(d);
  await until("T2 connected to M2 and T1", async () => ((await nodeCall(T2.url, "get_info")).outgoing_connections_count === 2 ? true : undefined));
  await until("T1 connected to M1", async () => ((await nodeCall(T1.url, "get_info")).outgoing_connections_count === 1 ? true : undefined));

  // a real monero-wallet-rpc on each node; each restores alice and bob (the observers compared at
  // the end), and the one on T1 (group A) and the one on M2 (group B) also a spending copy of each
  const walletOn = (name: string, node: Daemon, port: number): Wallet => {
    const p = startWallet("/usr/bin/monero-wallet-rpc", node.url, port, net.tmp());
    net.procs.push(p);
    return new Wallet(name, p, node);
  };
  const W = { T1: walletOn("wallet on T1", T1, 19440), M1: walletOn("wallet on M1", M1, 19441), T2: walletOn("wallet on T2", T2, 19442), M2: walletOn("wallet on M2", M2, 19443) };
  for (const w of Object.values(W)) {
    // four wallets and four nodes starting on a busy machine: longer than waitWallet's 30 s
    await until(`${w.name} up`, async () => {
      if (w.rpc.proc.exitCode !== null) throw new Error(`${w.name} exited ${w.rpc.proc.exitCode}: ${w.rpc.output.join("").slice(-2000)}`);
      return (await walletCall(w.rpc.url, "get_version")) ? true : undefined;
    }, 180_000);
    for (const who of ["alice", "bob"] as const) await w.restore(who, WALLET_SEEDS[who]);
  }
  for (const w of [W.T1, W.M2]) for (const who of ["alice", "bob"] as const) await w.restore(`${who}-spend`, WALLET_SEEDS[who]);
  const address = async (who: "alice" | "bob"): Promise<string> => {
    await W.M1.use(who);
    return (await walletCall(W.M1.rpc.url, "get_address", { account_index: 0 })).address as string;
  };
  const alice = await address("alice");
  const bob = await address("bob");
  // MINER_ADDRESS is alice's: the blocks that only age the chain go to carol
  await W.M1.restore("carol", WALLET_SEEDS.carol);
  const carol = (await walletCall(W.M1.rpc.url, "get_address", { account_index: 0 })).address as string;
  phase("wallets restored");

  // the shared chain, mined on tsmonerod: coinbase to alice and bob, then enough blocks for their
  // outputs to unlock and for rings of 16 to find decoys
  await mine(T1, 3, alice);
  await mine(T1, 3, bob);
  await mine(T1, 94, carol);
  const shared = await top(T1.url);
  phase("shared chain mined on T1");
  for (const d of [M1, T2, M2]) await hasTop(d.url, shared.hash, 180_000);
  phase(`shared chain of ${shared.height} blocks everywhere`);

  // two of alice's coinbase outputs, by key image: K1 is spent on both branches (a double spend
  // across the partition), K2 on the light branch only
  await W.T1.use("alice-spend");
  const outs = ((await walletCall(W.T1.rpc.url, "incoming_transfers", { transfer_type: "available" })).transfers as Obj[])
    .sort((a, b) => Number(a.global_index) - Number(b.global_index));
  assert.equal(outs.length, 3, "alice's three coinbase outputs");
  const [K1, K2] = [outs[0].key_image as string, outs[1].key_image as string];
  const sweep = async (w: Wallet, ki: string, to: string): Promise<string> =>
    ((await walletCall(w.rpc.url, "sweep_single", { key_image: ki, address: to })).tx_hash as string);

  // the partition: T2 restarts dialling only M2
  await stopProcesses([T2]);
  T2 = net.tsmonerod(19406, 19407, t2Dir, apart);
  W.T2 = new Wallet("wallet on T2", W.T2.rpc, T2);
  await up(T2);
  await until("T2 back with M2 only", async () => ((await nodeCall(T2.url, "get_info")).outgoing_connections_count === 1 ? true : undefined));
  assert.equal((await top(T2.url)).hash, shared.hash, "tsmonerod kept its chain over the restart");

  // group A, the light branch: alice spends K1 and K2 to bob through tsmonerod T1, which mines them
  // with a coinbase to alice; monerod M1 mines one more block on it
  await W.T1.use("alice-spend");
  const lightConflict = await sweep(W.T1, K1, bob);
  const lightReturn = await sweep(W.T1, K2, bob);
  await until("T1 has both light txs", async () => ((await pool(T1.url)).length === 2 ? true : undefined));
  await mine(T1, 1, alice);
  const lightTxBlock = await top(T1.url);
  assert.deepEqual([...((await nodeCall(T1.url, "get_block", { hash: lightTxBlock.hash })).tx_hashes as string[])].sort(), [lightConflict, lightReturn].sort());
  await hasTop(M1.url, lightTxBlock.hash);
  await mine(M1, 1, bob);
  const light = await top(M1.url);
  await hasTop(T1.url, light.hash);

  // group B, the heavy branch: through monerod M2, alice spends K1 to bob (the double spend) and bob
  // pays alice 1.5 XMR; M2 mines them with a coinbase to bob, T2 and M2 mine three more
  await W.M2.use("alice-spend");
  const heavySpend = await sweep(W.M2, K1, bob);
  await W.M2.use("bob-spend");
  const heavyPay = (await walletCall(W.M2.rpc.url, "transfer", { destinations: [{ amount: 1_500_000_000_000, address: alice }] })).tx_hash as string;
  await until("M2 has both heavy txs", async () => ((await pool(M2.url)).length === 2 ? true : undefined));
  // monerod mines a pool tx only once it left the Dandelion++ stem (tx_memory_pool::fill_block_template
  // skips local and stem txs): wait until M2's own template holds both
  await until(
    "M2's block template holds both heavy txs",
    async () => {
      const t = await nodeCall(M2.url, "get_block_template", { wallet_address: bob, reserve_size: 0 });
      const ids = parseBlock(Buffer.from(t.blocktemplate_blob as string, "hex")).txHashes.map((h) => Buffer.from(h).toString("hex"));
      return ids.includes(heavySpend) && ids.includes(heavyPay) ? true : undefined;
    },
    180_000,
  );
  await mine(M2, 1, bob);
  const heavyTxBlock = await top(M2.url);
  assert.deepEqual([...((await nodeCall(M2.url, "get_block", { hash: heavyTxBlock.hash })).tx_hashes as string[])].sort(), [heavySpend, heavyPay].sort());
  await hasTop(T2.url, heavyTxBlock.hash);
  await mine(T2, 2, alice);
  await hasTop(M2.url, (await top(T2.url)).hash);
  await mine(M2, 1, carol);
  const heavy = await top(M2.url);
  await hasTop(T2.url, heavy.hash);
  assert.equal(light.height, shared.height + 2);
  assert.equal(heavy.height, shared.height + 4);
  phase("both branches mined");

  // every observer wallet scans its own branch first, so the light group's wallets see the light
  // branch and must later undo it; the two kinds of node agree within each group already
  const before: Record<string, Record<string, { balance: Obj; transfers: Obj }>> = {};
  for (const [k, w] of Object.entries(W)) {
    before[k] = {};
    for (const who of ["alice", "bob"]) before[k][who] = await w.view(who);
  }
  for (const who of ["alice", "bob"]) {
    assertSameView(before.T1[who], before.M1[who], `${who} on the light branch: wallet on tsmonerod T1 vs on monerod M1`);
    assertSameView(before.T2[who], before.M2[who], `${who} on the heavy branch: wallet on tsmonerod T2 vs on monerod M2`);
  }
  assert.ok(txIds(before.M1.bob, "in").includes(lightReturn), "bob received K2's sweep on the light branch");
  assert.ok(!txIds(before.M2.bob, "in").includes(lightReturn));

  // reconnect: T2 dials T1 again; the light group reorganises to the heavy chain
  await stopProcesses([T2]);
  const reconnectAt = Date.now();
  T2 = net.tsmonerod(19406, 19407, t2Dir, whole);
  W.T2 = new Wallet("wallet on T2", W.T2.rpc, T2);
  await up(T2);
  for (const d of [T1, M1, T2, M2]) await hasTop(d.url, heavy.hash, 180_000);
  phase("everyone on the heavy chain");
  // the light group's nodes returned the light txs to their pools when each reorganised, somewhere
  // in this span (a real monerod can take over a minute to pick up the heavier chain from its peer)
  const reorgSpan = Math.max(60, Math.ceil((Date.now() - reconnectAt) / 1000) + 5);
  const hashAt = async (d: Daemon, height: number): Promise<string> => ((await nodeCall(d.url, "get_block_header_by_height", { height })).block_header as { hash: string }).hash;
  for (const d of [T1, M1]) assert.equal(await hashAt(d, shared.height + 1), heavyTxBlock.hash, `${d.url}: the heavy branch's first block is in the main chain`);

  // the light branch's txs, as monerod treats them: both come back to the pools of the nodes that
  // held them in a block, the double spend of K1 too (monerod returns a popped block's txs to its
  // pool before it applies the heavier chain, and keeps them: its templates leave the double spend
  // out); the heavy group's nodes never take the double spend
  const both = [lightConflict, lightReturn].sort();
  const poolOf = { M1: [] as string[] };
  await until("the light group's pools hold the light branch's txs", async () => {
    poolOf.M1 = await pool(M1.url);
    return both.every((x) => poolOf.M1.includes(x)) ? true : undefined;
  }, 30_000);
  await until("tsmonerod T1's pool is monerod M1's", async () => (JSON.stringify((await pool(T1.url)).sort()) === JSON.stringify((await pool(M1.url)).sort()) ? true : undefined), 30_000);
  for (const d of [T1, M1, T2, M2]) {
    const p = await pool(d.url);
    assert.ok(!p.includes(heavySpend) && !p.includes(heavyPay), `${d.url}: the heavy branch's txs are mined, not pooled`);
    if (d === T2 || d === M2) assert.ok(!p.includes(lightConflict), `${d.url}: the heavy group refuses the light branch's double spend`);
  }
  for (const d of [T1, M1]) {
    const tx = await nodePath(d.url, "/get_transactions", { txs_hashes: both });
    assert.deepEqual(tx.txs?.map((x) => [x.tx_hash, x.in_pool, x.double_spend_seen]).sort(), both.map((x) => [x, true, false]), `${d.url}: both light txs in the pool, not yet flagged`);
  }

  // the wallets in the light group, refreshed: they undo the light branch; each sees what the
  // wallet on the monerod of its group sees (the pool included)
  const mid: Record<string, Record<string, { balance: Obj; transfers: Obj }>> = {};
  for (const [k, w] of Object.entries(W)) {
    mid[k] = {};
    for (const who of ["alice", "bob"]) mid[k][who] = await w.view(who);
  }
  for (const who of ["alice", "bob"]) {
    assertSameView(mid.T1[who], mid.M1[who], `${who} after the reorganisation: wallet on tsmonerod T1 vs on monerod M1`, reorgSpan);
    assertSameView(mid.T2[who], mid.M2[who], `${who} after the reorganisation: wallet on tsmonerod T2 vs on monerod M2`, reorgSpan);
    // unlocked balances are the chain's alone: the same on all four (balance also counts incoming
    // pool txs, which only the light group's pools hold)
    for (const k of ["T1", "T2"]) assert.equal(mid[k][who].balance.unlocked_balance, mid.M2[who].balance.unlocked_balance, `${who}'s unlocked balance on ${k} vs on M2`);
  }
  assert.deepEqual(txIds(mid.M1.bob, "in"), txIds(mid.M2.bob, "in"), "bob's confirmed receipts are the heavy chain's in both groups");
  assert.ok(!txIds(mid.M1.bob, "in").includes(lightReturn) && !txIds(mid.M1.bob, "in").includes(lightConflict));
  assert.deepEqual(txIds(mid.M1.bob, "pool"), both, "bob's wallet on M1 sees both light txs back in the pool");
  assert.ok(txIds(mid.M1.alice, "in").includes(heavyPay) && txIds(mid.M1.bob, "in").includes(heavySpend));
  assert.notDeepEqual(mid.M1.alice.balance, before.M1.alice.balance, "alice's light-branch coinbase and spends are undone");

  // a block mined on monerod M1 carries the returned tx and leaves the double spend out; a template
  // built on tsmonerod T1 leaves it out too. Neither flags it double_spend_seen (monerod's
  // is_transaction_ready_to_go fails its input check first; only a conflicting pool tx sets the flag),
  // and it stays in both pools
  await mine(M1, 1, carol);
  const last = await top(M1.url);
  for (const d of [T1, T2, M2]) await hasTop(d.url, last.hash);
  assert.deepEqual((await nodeCall(M1.url, "get_block", { hash: last.hash })).tx_hashes, [lightReturn]);
  const tpl = await nodeCall(T1.url, "get_block_template", { wallet_address: carol, reserve_size: 1 });
  assert.equal(Number(tpl.height), last.height + 1);
  for (const d of [T1, M1]) {
    await until(`${d.url}'s pool holds the double spend alone`, async () => ((await pool(d.url)).join() === lightConflict ? true : undefined));
    const tx = await nodePath(d.url, "/get_transactions", { txs_hashes: [lightConflict] });
    assert.deepEqual(tx.txs?.map((x) => [x.in_pool, x.double_spend_seen]), [[true, false]], `${d.url}: the double spend stays, unflagged, as in monerod`);
  }
  for (const d of [T2, M2]) await until(`${d.url}'s pool empties`, async () => ((await pool(d.url)).length === 0 ? true : undefined));
  // all four wallets of each key set agree on balances and mined transfers; within a group, on the pool too
  const end: Record<string, Record<string, { balance: Obj; transfers: Obj }>> = {};
  for (const [k, w] of Object.entries(W)) {
    end[k] = {};
    for (const who of ["alice", "bob"]) end[k][who] = await w.view(who);
  }
  for (const who of ["alice", "bob"]) {
    assertSameView(end.T1[who], end.M1[who], `${who} at the end: wallet on tsmonerod T1 vs on monerod M1`, reorgSpan);
    assertSameView(end.T2[who], end.M2[who], `${who} at the end: wallet on tsmonerod T2 vs on monerod M2`, reorgSpan);
    // across the groups: unlocked balance and mined transfers (balance counts the double spend
    // still in the light group's pools as incoming for bob)
    const mined = (v: { balance: Obj; transfers: Obj }): JsonValue => comparable({ balance: { unlocked_balance: v.balance.unlocked_balance }, transfers: { in: v.transfers.in ?? [], out: v.transfers.out ?? [] } }).shape;
    assert.deepEqual(mined(end.T1[who]), mined(end.M2[who]), `${who} at the end: balance and mined transfers, wallet on T1 vs on M2`);
  }
  assert.ok(txIds(end.M2.bob, "in").includes(lightReturn), "K2's sweep, mined again, reached bob");
  assert.deepEqual(txIds(end.M1.bob, "pool"), [lightConflict], "bob's wallets in the light group still see the double spend in the pool");
  assert.equal(txIds(end.M2.bob, "pool").length, 0);
  // the spending copies hold the same keys: the same balance as the observers
  for (const w of [W.T1, W.M2]) for (const who of ["alice", "bob"]) assert.equal((await w.view(`${who}-spend`)).balance.unlocked_balance, end.M2[who].balance.unlocked_balance, `${who}-spend on ${w.name}`);
  phase("wallets agree");
});
