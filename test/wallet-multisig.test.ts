/**
 * Issue 18: tsmonero-wallet-rpc and monero-wallet-rpc in one multisig group, on tsmonerod and on a
 * real monerod. A 2/3 group of two of ours and one real wallet, and a 2/2 group of one of each, built
 * from the seeds of Monero's functional test `multisig`, reach the address that test expects; funds
 * mined to both addresses arrive in every member with the same balance; multisig infos cross both
 * ways and give the same full key images; a transfer made and signed by two real members is seen by
 * ours as by the real ones; in both groups a transfer proposed by one kind is signed and submitted by
 * the other, both ways, and the daemon takes it. Refusals answer monero-wallet-rpc's codes (compared
 * side by side). Altered, truncated, replayed and foreign kex messages, infos and tx sets are refused
 * and leave the wallet as it was (balance, transfers, key images, and nonces: the good set still
 * signs); a signing that fails half way wipes the nonces it took, so signing again is refused until
 * the group exports fresh infos; a reopened wallet is still the same multisig wallet. The checks that
 * do not depend on the daemon (bad kex messages, reopening) run on tsmonerod only.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import type { JsonWritable } from "../src/rpc/json.js";
import { defaultBackend } from "../src/crypto/index.js";
import { decryptWithViewKey, encryptWithViewKey } from "../src/wallet/cold/cipher.js";
import { decodeMultisigTxSet, encodeMultisigTxSet } from "../src/wallet/cold/formats.js";
import { MULTISIG_TX_PREFIX } from "../src/wallet/multisig/txset.js";
import { type Daemon, stopDaemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { mineUntilMined, nodeCall } from "./helpers/node-rpc.js";
import { big, rpc, startRegtestNode, startWallet, stopProcesses, waitWallet, walletCall, type WalletParams, walletRpc } from "./helpers/wallet-rpc.js";
import type { WalletMethod } from "../src/wallet/rpc/api.js";

const skip = needPackage("monero");
const BIN = new URL("../../bin/", import.meta.url).pathname;
const OURS = join(BIN, "tsmonero-wallet-rpc");
const REAL = "/usr/bin/monero-wallet-rpc";
/** Ports of this test (the multisig worktree's range): 8 per daemon kind. */
const PORTS = { tsmonerod: 19010, monerod: 19030 } as const;

/** tests/functional_tests/multisig.py v0.18.0.0: seeds and the group addresses it expects. */
const SEEDS = [
  "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted",
  "peeled mixture ionic radar utopia puddle buying illness nuns gadget river spout cavernous bounced paradise drunk looking cottage jump tequila melting went winter adjust spout",
  "dilute gutter certain antics pamphlet macro enjoy left slid guarded bogeys upload nineteen bomb jubilee enhanced irritate turnip eggs swung jukebox loudly reduce sedan slid",
];
const ADDR_2OF2 = "45J58b7PmKJFSiNPFFrTdtfMcFGnruP7V4CMuRpX7NsH4j3jGHKAjo3YJP2RePX6HMaSkbvTbrWUFhDNcNcHgtNmQ3gr7sG";
const ADDR_2OF3 = "44G2TQNfsiURKkvxp7gbgaJY8WynZvANnhmyMAwv6WeEbAvyAWMfKXRhh3uBXT2UAKhAsUJ7Fg5zjjF2U1iGciFk5duN94i";

/** The call must fail; returns the error. Raw (any method, any params): the refusals tried include deliberately malformed params. */
async function refused(url: string, method: string, params: JsonWritable): Promise<{ code: number; message: string }> {
  const a = await rpc(url, method, params);
  assert.ok(a.error, `${url} ${method} must refuse, answered ${JSON.stringify(a.result, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`);
  return a.error;
}
const status = async (u: string) => {
  const r = await walletCall(u, "is_multisig");
  return { multisig: r.multisig, ready: r.ready, threshold: Number(r.threshold), total: Number(r.total) };
};
/** Alters one base58 character in the middle of a message. */
const alter = (m: string): string => {
  const at = Math.floor(m.length / 2);
  return m.slice(0, at) + (m[at] === "2" ? "3" : "2") + m.slice(at + 1);
};

/** What a refusal must leave as it was: multisig state, balance, transfers, key images of the outputs. */
const snapshot = async (u: string) => ({
  status: await status(u),
  balance: await walletCall(u, "get_balance"),
  transfers: await walletCall(u, "get_transfers", { in: true, out: true, pending: true, failed: true, pool: true }),
  incoming: await walletCall(u, "incoming_transfers", { transfer_type: "all" }),
});

/** The same call refused by ours and by monero-wallet-rpc, with the same code; ours' refusal. */
async function refusedAlike(ours: string, real: string, method: string, params: JsonWritable): Promise<{ code: number; message: string }> {
  const a = await refused(ours, method, params);
  const b = await refused(real, method, params);
  assert.equal(a.code, b.code, `${method} ${JSON.stringify(params, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)).slice(0, 80)}: ours ${a.code} "${a.message}", monero-wallet-rpc ${b.code} "${b.message}"`);
  return a;
}

/** A copy of a multisig tx set with its first tx twice (re-encrypted with the group's view key). */
async function withFirstTxTwice(setHex: string, viewKeyHex: string): Promise<string> {
  const b = defaultBackend();
  const view = Uint8Array.from(Buffer.from(viewKeyHex, "hex"));
  const raw = Uint8Array.from(Buffer.from(setHex, "hex"));
  const set = decodeMultisigTxSet(await decryptWithViewKey(b, view, raw.subarray(MULTISIG_TX_PREFIX.length), "the set"));
  const twice = encodeMultisigTxSet({ ptx: [set.ptx[0], set.ptx[0]], signers: set.signers });
  return Buffer.concat([MULTISIG_TX_PREFIX, await encryptWithViewKey(b, view, twice)]).toString("hex");
}

for (const kind of ["tsmonerod", "monerod"] as const) describe(`multisig between tsmonero-wallet-rpc and monero-wallet-rpc on ${kind}`, { skip }, () => {
  const PORT0 = PORTS[kind];
  /** Daemon-independent checks (bad kex messages, reopening) run once, on tsmonerod. */
  const once = kind === "tsmonerod";
  let daemon: Daemon;
  let node: NodeClient;
  const procs: Daemon[] = [];
  const dirs: string[] = [];
  /** 2/3: ours, ours, real; 2/2: ours, real. */
  const g3: string[] = [];
  const g2: string[] = [];
  /** Member 1 of the 2/3 group in a real wallet. */
  let real1 = "";

  before(async () => {
    const nodeDir = mkdtempSync(join(tmpdir(), "tsmonero-msig-node-"));
    dirs.push(nodeDir);
    daemon = startRegtestNode(kind, [PORT0, PORT0 + 1], nodeDir);
    node = new NodeClient({ url: daemon.url, timeoutMs: 60_000 });
    await waitReady(daemon, node);
    const bins = [OURS, OURS, REAL, OURS, REAL, REAL];
    bins.forEach((bin, i) => {
      if (i === 5) return;
      const dir = mkdtempSync(join(tmpdir(), `tsmonero-msig-w${i}-`));
      dirs.push(dir);
      const p = startWallet(bin, daemon.url, PORT0 + 2 + i, dir);
      procs.push(p);
      (i < 3 ? g3 : g2).push(p.url);
    });
    // member 1 of the 2/3 group again, in a real wallet: two real members can then sign a transfer
    const dir5 = mkdtempSync(join(tmpdir(), "tsmonero-msig-w5-"));
    dirs.push(dir5);
    const p5 = startWallet(REAL, daemon.url, PORT0 + 7, dir5);
    procs.push(p5);
    real1 = p5.url;
    await Promise.all(procs.map(waitWallet));
    await walletCall(real1, "restore_deterministic_wallet", { filename: "m3b", password: "pw", seed: SEEDS[1], restore_height: 0 });
    const restore = (u: string, i: number, name: string) => walletCall(u, "restore_deterministic_wallet", { filename: name, password: "pw", seed: SEEDS[i], restore_height: 0 });
    await Promise.all([...g3.map((u, i) => restore(u, i, "m3")), ...g2.map((u, i) => restore(u, i, "m2"))]);
  });

  after(async () => {
    await stopProcesses(procs);
    await stopDaemon(daemon);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Runs the exchange to the end; checks at every round that bad messages change nothing. */
  async function buildGroup(urls: string[], threshold: number, bad: (round: number, u: string, msgs: string[]) => Promise<void>, shadow?: string): Promise<string[]> {
    const first: string[] = [];
    for (const u of urls) first.push(String((await walletCall(u, "prepare_multisig", { enable_multisig_experimental: true })).multisig_info));
    let msgs: string[] = [];
    let addresses: string[] = [];
    for (const u of urls) {
      const r = await walletCall(u, "make_multisig", { multisig_info: first, threshold, password: "pw" });
      msgs.push(String(r.multisig_info));
      addresses.push(String(r.address));
    }
    // a second wallet of one member (same seed) follows the exchange with the same messages
    const follow = async <M extends WalletMethod>(method: M, params: WalletParams<M>) => shadow && (await walletCall(shadow, method, params));
    if (shadow) await walletCall(shadow, "prepare_multisig", { enable_multisig_experimental: true });
    await follow("make_multisig", { multisig_info: first, threshold, password: "pw" });
    for (let round = 2; ; round++) {
      const states = await Promise.all(urls.map(status));
      assert.ok(states.every((s) => s.multisig && s.threshold === threshold && s.total === urls.length));
      if (states.every((s) => s.ready)) break;
      assert.ok(states.every((s) => !s.ready), "all members move together");
      for (const u of urls) await bad(round, u, msgs);
      await follow("exchange_multisig_keys", { multisig_info: msgs, password: "pw" });
      const next: string[] = [];
      addresses = [];
      for (const u of urls) {
        const r = await walletCall(u, "exchange_multisig_keys", { multisig_info: msgs, password: "pw" });
        next.push(String(r.multisig_info));
        addresses.push(String(r.address));
      }
      msgs = next;
    }
    return addresses;
  }

  let firstOfG2 = "";
  it("a 2/2 group of one of ours and one real wallet reaches the functional test's address", async () => {
    firstOfG2 = String((await walletCall(g2[0], "prepare_multisig", { enable_multisig_experimental: true })).multisig_info);
    const addresses = await buildGroup(g2, 2, async () => undefined);
    assert.deepEqual(addresses, [ADDR_2OF2, ADDR_2OF2]);
    for (const u of g2) assert.equal((await walletCall(u, "get_address")).address, ADDR_2OF2);
  });

  it("a 2/3 group of two of ours and one real wallet reaches it too, refusing bad messages on the way", async () => {
    const addresses = await buildGroup(g3, 2, async (round, u, msgs) => {
      if (!once || (u !== g3[0] && u !== g3[2])) return;
      const before = await status(u);
      const beforeAddr = (await walletCall(u, "get_address")).address;
      const cases: [string, string[], RegExp][] = [
        ["altered", [alter(msgs[1]), msgs[2]], /invalid|decoding|Deserializ/i],
        ["truncated", [msgs[1].slice(0, msgs[1].length - 10), msgs[2]], /decoding|Deserializ/i],
        ["replayed from round 1", [firstOfG2, firstOfG2], /round|signer/i],
        ["foreign", [firstOfG2, msgs[2]], /round|signer/i],
      ];
      for (const [what, bad, re] of cases) {
        const e = await refused(u, "exchange_multisig_keys", { multisig_info: bad, password: "pw" });
        assert.equal(e.code, -1, `${what} at round ${round}: ${e.message}`);
        if (u === g3[0]) assert.match(e.message, re, `${what}: ${e.message}`);
        assert.deepEqual(await status(u), before, `${what} changed nothing`);
        assert.equal((await walletCall(u, "get_address")).address, beforeAddr);
      }
    }, real1);
    assert.deepEqual(addresses, [ADDR_2OF3, ADDR_2OF3, ADDR_2OF3]);
    assert.equal((await walletCall(real1, "get_address")).address, ADDR_2OF3);
  });

  it("refuses what monero-wallet-rpc refuses, with its codes", async () => {
    for (const u of [g3[0], g3[2]]) {
      assert.equal((await refused(u, "prepare_multisig", {})).code, -28);
      assert.equal((await refused(u, "make_multisig", { multisig_info: [firstOfG2], threshold: 2 })).code, -28);
      assert.equal((await refused(u, "exchange_multisig_keys", { multisig_info: [firstOfG2] })).code, -28);
    }
  });

  it("funds mined to the 2/3 address arrive in every member, with the same balance and import-needed flag", async () => {
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 3, wallet_address: ADDR_2OF3 });
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 2, wallet_address: ADDR_2OF2 });
    // the coinbase outputs unlock after 60 blocks, and a ring of 16 needs as many unlocked outputs
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 100, wallet_address: ADDR_2OF2 });
    const balances = [];
    for (const u of g3) {
      await walletCall(u, "refresh").catch((e: unknown) => {
        throw new Error(`${String(e)}\n${procs.map((p) => p.output.join("").slice(-3000)).join("\n---\n")}`);
      });
      const b = await walletCall(u, "get_balance");
      balances.push({ balance: big(b.balance), needed: b.multisig_import_needed });
    }
    assert.ok(balances[0].balance > 0n);
    assert.deepEqual(balances[0], balances[2]);
    assert.deepEqual(balances[1], balances[2]);
    const b2 = [];
    for (const u of g2) {
      await walletCall(u, "refresh");
      const b = await walletCall(u, "get_balance");
      b2.push({ balance: big(b.balance), unlocked: big(b.unlocked_balance), needed: b.multisig_import_needed });
    }
    assert.ok(b2[0].unlocked > 0n);
    assert.deepEqual(b2[0], b2[1]);
  });

  it("before the infos are exchanged, ours refuses a transfer and bad sets as monero-wallet-rpc does, changing nothing", async () => {
    const [ours, real] = [g3[0], g3[2]];
    const before = await snapshot(ours);
    assert.equal(before.balance.multisig_import_needed, true);
    // wallet2: multisig_import_needed, a wallet_runtime_error, through handle_rpc_exception's default: GENERIC_TRANSFER_ERROR
    // wallet2: outputs with a partial key image are no candidates, so create_transactions_2 makes no tx: TX_NOT_POSSIBLE
    const e = await refusedAlike(ours, real, "transfer", { destinations: [{ address: ADDR_2OF2, amount: 1_000_000_000n }] });
    assert.equal(e.code, -16);
    assert.match(e.message, /^No transaction created.*import_multisig_info/);
    const r = await refused(real, "transfer", { destinations: [{ address: ADDR_2OF2, amount: 1_000_000_000n }] });
    assert.equal(r.message, "No transaction created");
    await refusedAlike(ours, real, "sweep_all", { address: ADDR_2OF2 });
    await refusedAlike(ours, real, "sign_multisig", { tx_data_hex: "00" });
    await refusedAlike(ours, real, "sign_multisig", { tx_data_hex: "zz" });
    await refusedAlike(ours, real, "submit_multisig", { tx_data_hex: "00" });
    await refusedAlike(ours, real, "import_multisig_info", { info: [] });
    await refusedAlike(ours, real, "import_multisig_info", { info: ["zz"] });
    await refusedAlike(ours, real, "finalize_multisig", { multisig_info: [] });
    assert.deepEqual(await snapshot(ours), before, "the refusals changed nothing");
  });

  it("multisig infos cross between both kinds: full key images agree, bad infos change nothing", async () => {
    const kis = async (u: string) => {
      const r = await walletCall(u, "incoming_transfers", { transfer_type: "all" });
      return ((r.transfers ?? []) as { key_image: string }[]).map((t) => t.key_image).sort();
    };
    const infos: string[] = [];
    for (const u of g3) infos.push(String((await walletCall(u, "export_multisig_info")).info));
    const foreign = String((await walletCall(g2[0], "export_multisig_info")).info);
    // bad infos first, on ours: refused, nothing changes
    const u0 = g3[0];
    const before = { bal: await walletCall(u0, "get_balance"), kis: await kis(u0) };
    const seen = await snapshot(u0);
    const hexFlip = (h: string) => h.slice(0, 200) + (h[200] === "0" ? "1" : "0") + h.slice(201);
    const bad: [string, string[], number, RegExp][] = [
      ["altered", [hexFlip(infos[1])], -1, /authenticate|altered/],
      ["truncated", [infos[1].slice(0, infos[1].length - 40)], -1, /authenticate|altered|short/],
      ["foreign", [foreign], -1, /authenticate|another group/],
      ["own only", [infos[0]], -1, /Wrong number of multisig sources/],
      ["not hex", ["zz"], -26, /Failed to parse hex/],
      ["none", [], -33, /more participants/],
    ];
    for (const [what, list, code, re] of bad) {
      const e = await refused(u0, "import_multisig_info", { info: list });
      assert.equal(e.code, code, `${what}: ${e.message}`);
      assert.match(e.message, re, what);
      assert.deepEqual(await snapshot(u0), seen, `${what} changed nothing`);
    }
    assert.equal(before.bal.multisig_import_needed, true);
    // before the import, neither kind shows a key image (partial ones are not known ones)
    assert.deepEqual(new Set(before.kis), new Set([""]));
    assert.deepEqual(new Set(await kis(g3[2])), new Set([""]));
    // the multisig seed (query_key mnemonic): the group's keys are the same in both kinds' seeds
    const seeds = await Promise.all([g3[0], g3[2]].map(async (u) => String((await walletCall(u, "query_key", { key_type: "mnemonic" })).key)));
    assert.equal(seeds[0].length, seeds[1].length);
    assert.equal(seeds[0].slice(0, 16), seeds[1].slice(0, 16), "threshold and total");
    assert.equal(seeds[0].slice(16 + 64, 16 + 256), seeds[1].slice(16 + 64, 16 + 256), "spend public, view secret, view public");
    const n: number[] = [];
    for (const u of g3) n.push(Number((await walletCall(u, "import_multisig_info", { info: infos })).n_outputs));
    assert.ok(n[0] > 0);
    assert.deepEqual(n, [n[0], n[0], n[0]]);
    const all = await Promise.all(g3.map(kis));
    assert.deepEqual(all[0], all[2], "ours and monero-wallet-rpc compute the same full key images");
    assert.deepEqual(all[1], all[2]);
    for (const u of g3) {
      const b = await walletCall(u, "get_balance");
      assert.equal(b.multisig_import_needed, false);
      assert.equal(big(b.balance), big(before.bal.balance));
    }
  });

  it("a transfer made and signed by two real members is seen by ours as by the real ones", async () => {
    const members = [g3[0], real1, g3[2]];
    for (const u of members) await walletCall(u, "refresh");
    const infos: string[] = [];
    for (const u of members) infos.push(String((await walletCall(u, "export_multisig_info")).info));
    for (const u of members) assert.ok(Number((await walletCall(u, "import_multisig_info", { info: infos })).n_outputs) > 0);
    const made = await walletCall(g3[2], "transfer", { destinations: [{ address: ADDR_2OF2, amount: 1_000_000_000_000n }] });
    assert.ok(String(made.multisig_txset).length > 0);
    const signed = await walletCall(real1, "sign_multisig", { tx_data_hex: made.multisig_txset });
    const sub = await walletCall(real1, "submit_multisig", { tx_data_hex: signed.tx_data_hex });
    const txid = String((sub.tx_hash_list as string[])[0]);
    await mineUntilMined(node.url, txid, ADDR_2OF2);
    const view = async (u: string) => {
      await walletCall(u, "refresh");
      const b = await walletCall(u, "get_balance");
      const t = await walletCall(u, "get_transfers", { out: true });
      const out = ((t.out ?? []) as { txid: string; amount: JsonWritable; fee: JsonWritable }[]).filter((x) => x.txid === txid);
      return { balance: big(b.balance), unlocked: big(b.unlocked_balance), needed: b.multisig_import_needed, out: out.map((x) => ({ amount: big(x.amount as number), fee: big(x.fee as number) })) };
    };
    const ours = await view(g3[0]);
    const real = await view(g3[2]);
    assert.equal(ours.out.length, 1, "ours sees the group's transfer as an outgoing one");
    assert.deepEqual(ours, real);
  });

  /** Every member refreshes, exports its info, and imports everyone's. */
  const exchangeInfos = async (members: string[]) => {
    for (const u of members) await walletCall(u, "refresh");
    const infos: string[] = [];
    for (const u of members) infos.push(String((await walletCall(u, "export_multisig_info")).info));
    for (const u of members) await walletCall(u, "import_multisig_info", { info: infos });
  };
  /** A set of the 2/2 group, for the 2/3 group to refuse as foreign. */
  let set22 = "";

  it("a 2/2 group of one of each: ours proposes and the real wallet signs and submits, and the reverse", async () => {
    const [ours, real] = g2;
    const dst = [{ address: ADDR_2OF3, amount: 300_000_000_000n }];
    const txids: string[] = [];
    for (const [proposer, signer] of [[ours, real], [real, ours]]) {
      await exchangeInfos(g2);
      const made = await walletCall(proposer, "transfer", { destinations: dst });
      const set = String(made.multisig_txset);
      assert.ok(set.length > 0);
      if (proposer === ours) set22 = set;
      // the proposer alone is not enough (M = 2), for both kinds
      const below = await refusedAlike(ours, real, "submit_multisig", { tx_data_hex: set });
      assert.equal(below.code, -33, below.message);
      const signed = await walletCall(signer, "sign_multisig", { tx_data_hex: set });
      const ids = signed.tx_hash_list as string[];
      assert.equal(ids.length, 1, "the second of two signers completes the tx");
      const sub = await walletCall(signer, "submit_multisig", { tx_data_hex: signed.tx_data_hex });
      assert.deepEqual(sub.tx_hash_list, ids);
      txids.push(ids[0]);
      await nodeCall(node.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF3 });
    }
    const view = async (u: string) => {
      await walletCall(u, "refresh");
      const b = await walletCall(u, "get_balance");
      const t = await walletCall(u, "get_transfers", { out: true });
      const out = ((t.out ?? []) as { txid: string; amount: JsonWritable; fee: JsonWritable; height: JsonWritable }[]).filter((x) => txids.includes(x.txid));
      return { balance: big(b.balance), out: out.map((x) => ({ txid: x.txid, amount: big(x.amount as number), fee: big(x.fee as number), height: big(x.height as number) })).sort((x, y) => x.txid.localeCompare(y.txid)) };
    };
    const [v0, v1] = [await view(ours), await view(real)];
    assert.equal(v0.out.length, 2, "both transfers are on the chain, as outgoing ones of the group");
    assert.ok(v0.out.every((x) => x.height > 0n));
    assert.deepEqual(v0, v1);
  });

  it("mixed signing in the 2/3 group: ours proposes and a real member completes, and the reverse; bad and replayed sets are refused and change nothing", async () => {
    const members = [g3[0], real1, g3[2]];
    const dst = [{ address: ADDR_2OF2, amount: 100_000_000_000n }];
    // ours proposes, the real wallet signs (as the 2nd of 2) and submits
    await exchangeInfos(members);
    const made = await walletCall(g3[0], "transfer", { destinations: dst, get_tx_key: true });
    assert.equal(made.tx_hash, "");
    assert.equal(String(made.tx_key).length, 64);
    const desc = await walletCall(real1, "describe_transfer", { multisig_txset: made.multisig_txset });
    assert.equal(big((desc.desc as { recipients: { amount: number }[] }[])[0].recipients[0].amount), 100_000_000_000n);
    // ours describes it alike, with the tx's weight as monerod's master adds it (its functional test multisig at HEAD)
    const ourDesc = (await walletCall(g3[1], "describe_transfer", { multisig_txset: made.multisig_txset })).desc as { weight?: JsonWritable; fee: JsonWritable }[];
    assert.equal(big(ourDesc[0].weight as number), big(made.weight as number));
    assert.equal(big(ourDesc[0].fee as number), big((desc.desc as { fee: JsonWritable }[])[0].fee as number));
    // a proposer may not sign its own proposal again
    const own = await refused(g3[0], "sign_multisig", { tx_data_hex: made.multisig_txset });
    assert.equal(own.code, -35, own.message);
    assert.match(own.message, /already signed by this private key/);
    const signed = await walletCall(real1, "sign_multisig", { tx_data_hex: made.multisig_txset });
    assert.equal((signed.tx_hash_list as string[]).length, 1);
    const sub = await walletCall(real1, "submit_multisig", { tx_data_hex: signed.tx_data_hex });
    assert.deepEqual(sub.tx_hash_list, signed.tx_hash_list);
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });

    // a real member proposes, ours signs and submits; bad sets first, refused with nothing changed
    await exchangeInfos(members);
    const made2 = await walletCall(g3[2], "transfer", { destinations: dst });
    const set = String(made2.multisig_txset);
    const ownReal = await refused(g3[2], "sign_multisig", { tx_data_hex: set });
    assert.equal(ownReal.code, own.code, `monero-wallet-rpc refuses its own proposal alike: ${ownReal.message}`);
    const u = g3[0];
    const before = await snapshot(u);
    const bad = async (what: string, hexSet: string, code: number, re: RegExp, method = "sign_multisig") => {
      const r = await refused(u, method, { tx_data_hex: hexSet });
      assert.equal(r.code, code, `${what}: ${r.message}`);
      assert.match(r.message, re, what);
      assert.deepEqual(await snapshot(u), before, `${what} changed nothing`);
    };
    await bad("truncated", set.slice(0, set.length - 40), -34, /Failed to parse multisig tx data/);
    const flipped = set.slice(0, 200) + (set[200] === "0" ? "1" : "0") + set.slice(201);
    await bad("altered", flipped, -34, /Failed to parse multisig tx data/);
    // a set of another group (the 2/2 one): not readable with this group's view key, by either kind
    await bad("foreign group", set22, -34, /Failed to parse multisig tx data/);
    await refusedAlike(u, real1, "sign_multisig", { tx_data_hex: set22 });
    await refusedAlike(u, real1, "describe_transfer", { multisig_txset: set22 });
    // the refusals took no nonce: the good set still signs
    const signed2 = await walletCall(u, "sign_multisig", { tx_data_hex: set });
    assert.equal((signed2.tx_hash_list as string[]).length, 1);
    const after = await snapshot(u);
    // replayed: ours already signed it; a fully signed set
    const replay = async (what: string, hexSet: string, re: RegExp) => {
      const r = await refused(u, "sign_multisig", { tx_data_hex: hexSet });
      assert.equal(r.code, -35, `${what}: ${r.message}`);
      assert.match(r.message, re, what);
      assert.deepEqual(await snapshot(u), after, `${what} changed nothing`);
    };
    await replay("signed again", set, /stale data|already signed/);
    await replay("fully signed", String(signed2.tx_data_hex), /already signed|fully signed/);
    await refusedAlike(u, real1, "sign_multisig", { tx_data_hex: signed2.tx_data_hex });
    const sub2 = await walletCall(u, "submit_multisig", { tx_data_hex: signed2.tx_data_hex });
    assert.deepEqual(sub2.tx_hash_list, signed2.tx_hash_list);
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });
    submitted = String(signed2.tx_data_hex);
  });

  /** The 2/3 set ours signed and submitted above. */
  let submitted = "";
  it("a set submitted again once on the chain is answered as monero-wallet-rpc answers, changing nothing", async () => {
    const u = g3[0];
    assert.ok(submitted, "the set of the test before");
    const signed2 = { tx_data_hex: submitted };
    await walletCall(u, "refresh");
    const mined = await snapshot(u);
    // submitted again once on the chain: both kinds answer alike (the daemon already has the tx), and nothing changes
    const again = await walletRpc(u, "submit_multisig", { tx_data_hex: signed2.tx_data_hex });
    const againReal = await walletRpc(real1, "submit_multisig", { tx_data_hex: signed2.tx_data_hex });
    assert.equal(again.error?.code, againReal.error?.code, `ours ${JSON.stringify(again.error)}, monero-wallet-rpc ${JSON.stringify(againReal.error)}`);
    await walletCall(u, "refresh");
    assert.deepEqual(await snapshot(u), mined, "a replayed submission changed nothing");
  });

  it("a signing that fails half way wipes the nonces it took: signing again is refused until fresh infos are exchanged", async () => {
    const members = [g3[0], real1, g3[2]];
    const dst = [{ address: ADDR_2OF2, amount: 100_000_000_000n }];
    // the change of the transfers before unlocks after 10 blocks
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 10, wallet_address: ADDR_2OF2 });
    await exchangeInfos(members);
    const set = String((await walletCall(g3[2], "transfer", { destinations: dst })).multisig_txset);
    const view = String((await walletCall(g3[0], "query_key", { key_type: "view_key" })).key);
    // the same tx twice: the first signs (its nonces taken), the second finds them gone
    const twice = await withFirstTxTwice(set, view);
    const e1 = await refused(g3[0], "sign_multisig", { tx_data_hex: twice });
    assert.equal(e1.code, -35, e1.message);
    assert.match(e1.message, /stale data: export fresh multisig data/);
    // the set alone would need the same nonces again: refused, no nonce serves twice
    const e2 = await refused(g3[0], "sign_multisig", { tx_data_hex: set });
    assert.equal(e2.code, -35, e2.message);
    assert.match(e2.message, /stale data: export fresh multisig data/);
    // what the group does then: export and import infos again, and propose again
    await exchangeInfos(members);
    const fresh = String((await walletCall(g3[2], "transfer", { destinations: dst })).multisig_txset);
    const signed = await walletCall(g3[0], "sign_multisig", { tx_data_hex: fresh });
    const sub = await walletCall(g3[0], "submit_multisig", { tx_data_hex: signed.tx_data_hex });
    assert.deepEqual(sub.tx_hash_list, signed.tx_hash_list);
    await nodeCall(node.url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });
  });

  it("a reopened multisig wallet is still the same multisig wallet", { skip: !once }, async () => {
    const u = g3[0];
    const seen = async () => ({
      status: await status(u),
      balance: await walletCall(u, "get_balance"),
      incoming: await walletCall(u, "incoming_transfers", { transfer_type: "all" }),
      seed: await walletCall(u, "query_key", { key_type: "mnemonic" }),
    });
    const before = await seen();
    await walletCall(u, "close_wallet");
    await walletCall(u, "open_wallet", { filename: "m3", password: "pw" });
    assert.deepEqual(await seen(), before);
    assert.equal((await walletCall(u, "get_address")).address, ADDR_2OF3);
  });
});
