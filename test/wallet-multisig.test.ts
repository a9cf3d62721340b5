/**
 * Issue 18: tsmonero-wallet-rpc and monero-wallet-rpc in one multisig group. A 2/3 group of two of
 * ours and one real wallet, and a 2/2 group of one of each, built from the seeds of Monero's
 * functional test `multisig`, reach the address that test expects; funds mined to the 2/3 address
 * arrive in every member with the same balance; multisig infos cross both ways and give the same
 * full key images; a transfer made and signed by two real members (a second real wallet of member
 * 1 follows the exchange) is seen by ours as by the real ones. Altered, truncated, replayed and
 * foreign kex messages and infos are refused with wallet2's reason and leave the wallet as it was;
 * a reopened wallet is still the same multisig wallet.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeClient } from "../src/client/node-client.js";
import type { JsonWritable } from "../src/rpc/json.js";
import { type Daemon, waitReady } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { big, call, rpc, startRegtestNode, startWallet, stopProcesses, waitWallet } from "./helpers/wallet-rpc.js";

const skip = needPackage("monero");
const BIN = new URL("../../bin/", import.meta.url).pathname;
const OURS = join(BIN, "tsmonero-wallet-rpc");
const REAL = "/usr/bin/monero-wallet-rpc";
/** Ports of this test (the multisig worktree's range). */
const PORT0 = 19010;

/** tests/functional_tests/multisig.py v0.18.0.0: seeds and the group addresses it expects. */
const SEEDS = [
  "velvet lymph giddy number token physics poetry unquoted nibs useful sabotage limits benches lifestyle eden nitrogen anvil fewest avoid batch vials washing fences goat unquoted",
  "peeled mixture ionic radar utopia puddle buying illness nuns gadget river spout cavernous bounced paradise drunk looking cottage jump tequila melting went winter adjust spout",
  "dilute gutter certain antics pamphlet macro enjoy left slid guarded bogeys upload nineteen bomb jubilee enhanced irritate turnip eggs swung jukebox loudly reduce sedan slid",
];
const ADDR_2OF2 = "45J58b7PmKJFSiNPFFrTdtfMcFGnruP7V4CMuRpX7NsH4j3jGHKAjo3YJP2RePX6HMaSkbvTbrWUFhDNcNcHgtNmQ3gr7sG";
const ADDR_2OF3 = "44G2TQNfsiURKkvxp7gbgaJY8WynZvANnhmyMAwv6WeEbAvyAWMfKXRhh3uBXT2UAKhAsUJ7Fg5zjjF2U1iGciFk5duN94i";

/** The call must fail; returns the error. */
async function refused(url: string, method: string, params: JsonWritable): Promise<{ code: number; message: string }> {
  const a = await rpc(url, method, params);
  assert.ok(a.error, `${url} ${method} must refuse, answered ${JSON.stringify(a.result, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`);
  return a.error;
}
const status = async (u: string) => {
  const r = await call(u, "is_multisig");
  return { multisig: r.multisig, ready: r.ready, threshold: Number(r.threshold), total: Number(r.total) };
};
/** Alters one base58 character in the middle of a message. */
const alter = (m: string): string => {
  const at = Math.floor(m.length / 2);
  return m.slice(0, at) + (m[at] === "2" ? "3" : "2") + m.slice(at + 1);
};

describe("multisig key exchange between tsmonero-wallet-rpc and monero-wallet-rpc", { skip }, () => {
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
    daemon = startRegtestNode("tsmonerod", [PORT0, PORT0 + 1], nodeDir);
    procs.push(daemon);
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
    await Promise.all(procs.slice(1).map(waitWallet));
    await call(real1, "restore_deterministic_wallet", { filename: "m3b", password: "pw", seed: SEEDS[1], restore_height: 0 });
    const restore = (u: string, i: number, name: string) => call(u, "restore_deterministic_wallet", { filename: name, password: "pw", seed: SEEDS[i], restore_height: 0 });
    await Promise.all([...g3.map((u, i) => restore(u, i, "m3")), ...g2.map((u, i) => restore(u, i, "m2"))]);
  });

  after(async () => {
    await stopProcesses(procs);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Runs the exchange to the end; checks at every round that bad messages change nothing. */
  async function buildGroup(urls: string[], threshold: number, bad: (round: number, u: string, msgs: string[]) => Promise<void>, shadow?: string): Promise<string[]> {
    const first: string[] = [];
    for (const u of urls) first.push(String((await call(u, "prepare_multisig", { enable_multisig_experimental: true })).multisig_info));
    let msgs: string[] = [];
    let addresses: string[] = [];
    for (const u of urls) {
      const r = await call(u, "make_multisig", { multisig_info: first, threshold, password: "pw" });
      msgs.push(String(r.multisig_info));
      addresses.push(String(r.address));
    }
    // a second wallet of one member (same seed) follows the exchange with the same messages
    const follow = async (method: string, params: JsonWritable) => shadow && (await call(shadow, method, params));
    if (shadow) await call(shadow, "prepare_multisig", { enable_multisig_experimental: true });
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
        const r = await call(u, "exchange_multisig_keys", { multisig_info: msgs, password: "pw" });
        next.push(String(r.multisig_info));
        addresses.push(String(r.address));
      }
      msgs = next;
    }
    return addresses;
  }

  let firstOfG2 = "";
  it("a 2/2 group of one of ours and one real wallet reaches the functional test's address", async () => {
    firstOfG2 = String((await call(g2[0], "prepare_multisig", { enable_multisig_experimental: true })).multisig_info);
    const addresses = await buildGroup(g2, 2, async () => undefined);
    assert.deepEqual(addresses, [ADDR_2OF2, ADDR_2OF2]);
    for (const u of g2) assert.equal((await call(u, "get_address")).address, ADDR_2OF2);
  });

  it("a 2/3 group of two of ours and one real wallet reaches it too, refusing bad messages on the way", async () => {
    const addresses = await buildGroup(g3, 2, async (round, u, msgs) => {
      if (u !== g3[0] && u !== g3[2]) return;
      const before = await status(u);
      const beforeAddr = (await call(u, "get_address")).address;
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
        assert.equal((await call(u, "get_address")).address, beforeAddr);
      }
    }, real1);
    assert.deepEqual(addresses, [ADDR_2OF3, ADDR_2OF3, ADDR_2OF3]);
    assert.equal((await call(real1, "get_address")).address, ADDR_2OF3);
  });

  it("refuses what monero-wallet-rpc refuses, with its codes", async () => {
    for (const u of [g3[0], g3[2]]) {
      assert.equal((await refused(u, "prepare_multisig", {})).code, -28);
      assert.equal((await refused(u, "make_multisig", { multisig_info: [firstOfG2], threshold: 2 })).code, -28);
      assert.equal((await refused(u, "exchange_multisig_keys", { multisig_info: [firstOfG2] })).code, -28);
    }
  });

  it("funds mined to the 2/3 address arrive in every member, with the same balance and import-needed flag", async () => {
    await node.jsonRpc("generateblocks", { amount_of_blocks: 3, wallet_address: ADDR_2OF3 });
    await node.jsonRpc("generateblocks", { amount_of_blocks: 2, wallet_address: ADDR_2OF2 });
    // the coinbase outputs unlock after 60 blocks, and a ring of 16 needs as many unlocked outputs
    await node.jsonRpc("generateblocks", { amount_of_blocks: 100, wallet_address: ADDR_2OF2 });
    const balances = [];
    for (const u of g3) {
      await call(u, "refresh").catch((e: unknown) => {
        throw new Error(`${String(e)}\n${procs.map((p) => p.output.join("").slice(-3000)).join("\n---\n")}`);
      });
      const b = await call(u, "get_balance");
      balances.push({ balance: big(b.balance), needed: b.multisig_import_needed });
    }
    assert.ok(balances[0].balance > 0n);
    assert.deepEqual(balances[0], balances[2]);
    assert.deepEqual(balances[1], balances[2]);
  });

  it("multisig infos cross between both kinds: full key images agree, bad infos change nothing", async () => {
    const kis = async (u: string) => {
      const r = await call(u, "incoming_transfers", { transfer_type: "all" });
      return ((r.transfers ?? []) as { key_image: string }[]).map((t) => t.key_image).sort();
    };
    const infos: string[] = [];
    for (const u of g3) infos.push(String((await call(u, "export_multisig_info")).info));
    const foreign = String((await call(g2[0], "export_multisig_info")).info);
    // bad infos first, on ours: refused, nothing changes
    const u0 = g3[0];
    const before = { bal: await call(u0, "get_balance"), kis: await kis(u0) };
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
      assert.deepEqual({ bal: await call(u0, "get_balance"), kis: await kis(u0) }, before, `${what} changed nothing`);
    }
    assert.equal(before.bal.multisig_import_needed, true);
    // before the import, neither kind shows a key image (partial ones are not known ones)
    assert.deepEqual(new Set(before.kis), new Set([""]));
    assert.deepEqual(new Set(await kis(g3[2])), new Set([""]));
    // the multisig seed (query_key mnemonic): the group's keys are the same in both kinds' seeds
    const seeds = await Promise.all([g3[0], g3[2]].map(async (u) => String((await call(u, "query_key", { key_type: "mnemonic" })).key)));
    assert.equal(seeds[0].length, seeds[1].length);
    assert.equal(seeds[0].slice(0, 16), seeds[1].slice(0, 16), "threshold and total");
    assert.equal(seeds[0].slice(16 + 64, 16 + 256), seeds[1].slice(16 + 64, 16 + 256), "spend public, view secret, view public");
    const n: number[] = [];
    for (const u of g3) n.push(Number((await call(u, "import_multisig_info", { info: infos })).n_outputs));
    assert.ok(n[0] > 0);
    assert.deepEqual(n, [n[0], n[0], n[0]]);
    const all = await Promise.all(g3.map(kis));
    assert.deepEqual(all[0], all[2], "ours and monero-wallet-rpc compute the same full key images");
    assert.deepEqual(all[1], all[2]);
    for (const u of g3) {
      const b = await call(u, "get_balance");
      assert.equal(b.multisig_import_needed, false);
      assert.equal(big(b.balance), big(before.bal.balance));
    }
  });

  it("a transfer made and signed by two real members is seen by ours as by the real ones", async () => {
    const members = [g3[0], real1, g3[2]];
    for (const u of members) await call(u, "refresh");
    const infos: string[] = [];
    for (const u of members) infos.push(String((await call(u, "export_multisig_info")).info));
    for (const u of members) assert.ok(Number((await call(u, "import_multisig_info", { info: infos })).n_outputs) > 0);
    const made = await call(g3[2], "transfer", { destinations: [{ address: ADDR_2OF2, amount: 1_000_000_000_000n }] });
    assert.ok(String(made.multisig_txset).length > 0);
    const signed = await call(real1, "sign_multisig", { tx_data_hex: made.multisig_txset });
    const sub = await call(real1, "submit_multisig", { tx_data_hex: signed.tx_data_hex });
    const txid = String((sub.tx_hash_list as string[])[0]);
    await node.jsonRpc("generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });
    const view = async (u: string) => {
      await call(u, "refresh");
      const b = await call(u, "get_balance");
      const t = await call(u, "get_transfers", { out: true });
      const out = ((t.out ?? []) as { txid: string; amount: JsonWritable; fee: JsonWritable }[]).filter((x) => x.txid === txid);
      return { balance: big(b.balance), unlocked: big(b.unlocked_balance), needed: b.multisig_import_needed, out: out.map((x) => ({ amount: big(x.amount as number), fee: big(x.fee as number) })) };
    };
    const ours = await view(g3[0]);
    const real = await view(g3[2]);
    assert.equal(ours.out.length, 1, "ours sees the group's transfer as an outgoing one");
    assert.deepEqual(ours, real);
  });

  it("mixed signing: ours proposes and a real member completes; a real member proposes and ours completes; bad sets change nothing", async () => {
    const members = [g3[0], real1, g3[2]];
    const exchange = async () => {
      for (const u of members) await call(u, "refresh");
      const infos: string[] = [];
      for (const u of members) infos.push(String((await call(u, "export_multisig_info")).info));
      for (const u of members) await call(u, "import_multisig_info", { info: infos });
    };
    const dst = [{ address: ADDR_2OF2, amount: 100_000_000_000n }];
    // ours proposes, the real wallet signs (as the 2nd of 2) and submits
    await exchange();
    const made = await call(g3[0], "transfer", { destinations: dst, get_tx_key: true });
    assert.equal(made.tx_hash, "");
    assert.equal(String(made.tx_key).length, 64);
    const desc = await call(real1, "describe_transfer", { multisig_txset: made.multisig_txset });
    assert.equal(big((desc.desc as { recipients: { amount: number }[] }[])[0].recipients[0].amount), 100_000_000_000n);
    const signed = await call(real1, "sign_multisig", { tx_data_hex: made.multisig_txset });
    assert.equal((signed.tx_hash_list as string[]).length, 1);
    const sub = await call(real1, "submit_multisig", { tx_data_hex: signed.tx_data_hex });
    assert.deepEqual(sub.tx_hash_list, signed.tx_hash_list);
    await node.jsonRpc("generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });

    // a real member proposes, ours signs and submits; bad sets first, refused with nothing changed
    await exchange();
    const made2 = await call(g3[2], "transfer", { destinations: dst });
    const set = String(made2.multisig_txset);
    const bad = async (hexSet: string, code: number, re: RegExp) => {
      const r = await refused(g3[0], "sign_multisig", { tx_data_hex: hexSet });
      assert.equal(r.code, code, r.message);
      assert.match(r.message, re);
    };
    await bad(set.slice(0, set.length - 40), -34, /Failed to parse multisig tx data/);
    const flipped = set.slice(0, 200) + (set[200] === "0" ? "1" : "0") + set.slice(201);
    await bad(flipped, -34, /Failed to parse multisig tx data/);
    const signed2 = await call(g3[0], "sign_multisig", { tx_data_hex: set });
    assert.equal((signed2.tx_hash_list as string[]).length, 1);
    // replayed: ours already signed it
    await bad(set, -35, /stale data|already signed/);
    await bad(String(signed2.tx_data_hex), -35, /already signed|fully signed/);
    const sub2 = await call(g3[0], "submit_multisig", { tx_data_hex: signed2.tx_data_hex });
    assert.deepEqual(sub2.tx_hash_list, signed2.tx_hash_list);
    await node.jsonRpc("generateblocks", { amount_of_blocks: 1, wallet_address: ADDR_2OF2 });
  });

  it("a reopened multisig wallet is still the same multisig wallet", async () => {
    const u = g3[0];
    const seen = async () => ({
      status: await status(u),
      balance: await call(u, "get_balance"),
      incoming: await call(u, "incoming_transfers", { transfer_type: "all" }),
      seed: await call(u, "query_key", { key_type: "mnemonic" }),
    });
    const before = await seen();
    await call(u, "close_wallet");
    await call(u, "open_wallet", { filename: "m3", password: "pw" });
    assert.deepEqual(await seen(), before);
    assert.equal((await call(u, "get_address")).address, ADDR_2OF3);
  });
});
