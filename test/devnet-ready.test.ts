/**
 * Issue 21's acceptance for `npm start` (bin/tsmonero, run as a child process in a temp data dir):
 * the devnet comes up ready to use — deterministic dev wallets funded with unlocked coins, dev0 open
 * on the wallet RPC — so the transfer printed at startup, sent as it is with plain HTTP, works at
 * once, and its funds reach dev1 after the next block (mined with the printed generateblocks, or by
 * --mine-on-tx). A restart keeps chain and wallets and mines nothing; --reset starts over.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/tsmonero", import.meta.url));
const NODE_PORT = 29810;
const WALLET_PORT = 29811;
const procs: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), "tsmonero-devnet-ready-"));
/** dev0's address: derived from a fixed constant, the same on every machine. */
const DEV0_ADDRESS = "42bQJHxhLQg2ZZQgYmzDPjdK4Xh55Sgin1Kj11cvAXDr5Uzq8pb8GFkeJBMn6jSsSh7z3Tvg3VJtH2F2MvMV3G1c5Jzjj7K";
const XMR = 1_000_000_000_000n;

after(() => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

interface Printed {
  text: string;
  wallets: { name: string; address: string; seed: string; balance: bigint }[];
  /** The printed curl lines by JSON-RPC method: where to post and what. */
  curls: Map<string, { url: string; body: string }>;
  seconds: number;
}

/** "175.919343878075" → atomic units. */
function atomic(text: string): bigint {
  const [whole, frac = ""] = text.split(".");
  return BigInt(whole) * XMR + BigInt(frac.padEnd(12, "0"));
}

function parsePrinted(text: string): Printed {
  const wallets: Printed["wallets"] = [];
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    const m = /^ {2}(dev\d+) {2}([\d.]+) XMR/.exec(l);
    if (!m) return;
    const address = /^ {4}address (\S+)$/.exec(lines[i + 1])?.[1];
    const seed = /^ {4}seed {4}(.+)$/.exec(lines[i + 2])?.[1];
    assert.ok(address && seed, `address and seed lines after ${l}`);
    wallets.push({ name: m[1], address, seed, balance: atomic(m[2]) });
  });
  const curls = new Map<string, { url: string; body: string }>();
  for (const l of lines) {
    const m = /curl -s (\S+) -d '(.+)'$/.exec(l);
    if (m) curls.set((JSON.parse(m[2]) as { method: string }).method, { url: m[1], body: m[2] });
  }
  const seconds = Number(/devnet ready in ([\d.]+) s/.exec(text)?.[1]);
  return { text, wallets, curls, seconds };
}

async function start(...flags: string[]): Promise<{ proc: ChildProcess; out: string[]; printed: Printed; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [BIN, "--data-dir", dir, "--rpc-bind-port", String(NODE_PORT), "--wallet-rpc-bind-port", String(WALLET_PORT), "--no-web-console", ...flags], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  procs.push(proc);
  const out: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const deadline = Date.now() + 90_000;
  // ready: the last printed line (the open_wallet example) is out
  while (!/"method":"open_wallet".*\n/.test(out.join(""))) {
    if (proc.exitCode !== null) throw new Error(`tsmonero exited: ${out.join("")}`);
    if (Date.now() > deadline) throw new Error(`tsmonero did not get ready: ${out.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { proc, out, printed: parsePrinted(out.join("")), exited };
}

type Json = Record<string, unknown>;

/** A JSON-RPC call with a body as given (the printed one), answering the result or throwing the error. */
async function post<T = Json>(url: string, body: string): Promise<T> {
  const r = await fetch(url, { method: "POST", body });
  const v = (await r.json()) as { result?: T; error?: { code: number; message: string } };
  if (v.error) throw new Error(`${url} ${body.slice(0, 80)}: ${v.error.code} ${v.error.message}`);
  assert.ok(v.result !== undefined);
  return v.result;
}

const call = <T = Json>(port: number, method: string, params: Json = {}): Promise<T> =>
  post<T>(`http://127.0.0.1:${port}/json_rpc`, JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));

const printedCall = <T = Json>(p: Printed, method: string): Promise<T> => {
  const c = p.curls.get(method);
  assert.ok(c, `a curl line for ${method} is printed`);
  return post<T>(c.url, c.body);
};

const height = async (): Promise<number> => (await call<{ height: number }>(NODE_PORT, "get_info")).height;

async function waitFor(what: string, f: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * dev1's incoming transfer `txid` once it is in a block, and dev1's balance then (the wallet RPC
 * switched to dev1 with the printed open_wallet; no refresh call: the devnet's open_wallet syncs).
 */
async function dev1Receipt(p: Printed, txid: string): Promise<{ amount: bigint; confirmations: number; balance: bigint }> {
  await printedCall(p, "open_wallet");
  const t = await call<{ transfer: { amount: number; confirmations: number; type: string } }>(WALLET_PORT, "get_transfer_by_txid", { txid });
  const b = await call<{ balance: number }>(WALLET_PORT, "get_balance");
  assert.equal(t.transfer.type, "in");
  return { amount: BigInt(t.transfer.amount), confirmations: t.transfer.confirmations, balance: BigInt(b.balance) };
}

test("npm start: funded dev wallets, the printed transfer works at once, funds arrive after the next block; restart keeps all and mines nothing; --reset starts over", { timeout: 300_000 }, async (t) => {
  // ---- a fresh devnet
  const first = await start();
  const p1 = first.printed;
  t.diagnostic(`fresh start: ready in ${p1.seconds} s`);
  assert.ok(p1.seconds > 0 && p1.seconds < 60, `ready in ${p1.seconds} s`);
  assert.match(p1.text, /3 dev wallets funded \(mined 99 blocks now\)/);
  assert.deepEqual(
    p1.wallets.map((w) => w.name),
    ["dev0", "dev1", "dev2"],
  );
  assert.equal(p1.wallets[0].address, DEV0_ADDRESS, "dev0 is the same on every machine");
  assert.equal(new Set(p1.wallets.map((w) => w.seed)).size, 3);
  for (const w of p1.wallets) assert.ok(w.balance > 0n, `${w.name} is funded`);
  assert.ok(!p1.text.includes("\r"), "no terminal redraws when the output is not a terminal");
  const h0 = await height();
  assert.equal(h0, 100);

  // no setup call: dev0 is open and has unlocked coins
  const addr = await call<{ address: string }>(WALLET_PORT, "get_address");
  assert.equal(addr.address, DEV0_ADDRESS);
  const bal0 = await printedCall<{ balance: number; unlocked_balance: number }>(p1, "get_balance");
  assert.ok(bal0.unlocked_balance > 0, "dev0 can spend at once");

  // the printed transfer, as printed: 1 XMR from dev0 to dev1
  const sent = await printedCall<{ tx_hash: string; amount: number; fee: number }>(p1, "transfer");
  assert.match(sent.tx_hash, /^[0-9a-f]{64}$/);
  assert.equal(BigInt(sent.amount), XMR);
  assert.ok(sent.fee > 0);
  // the printed generateblocks mines the next block, which carries the tx
  await printedCall(p1, "generateblocks");
  assert.equal(await height(), h0 + 1);
  const r1 = await dev1Receipt(p1, sent.tx_hash);
  assert.equal(r1.amount, XMR);
  assert.equal(r1.confirmations, 1);
  assert.equal(r1.balance, p1.wallets[1].balance + XMR, "dev1 holds what it was printed with, plus 1 XMR");

  // the printed seed is the wallet's: restoring it (in memory) gives the printed address
  const restored = await call<{ address: string }>(WALLET_PORT, "restore_deterministic_wallet", { filename: "", seed: p1.wallets[2].seed, password: "", restore_height: 0, language: "English" });
  assert.equal(restored.address, p1.wallets[2].address);

  first.proc.kill("SIGTERM");
  assert.equal(await first.exited, 0);
  for (const w of ["dev0", "dev1", "dev2"]) assert.ok(existsSync(join(dir, "wallets", `${w}.keys`)), `${w} is a wallet file`);

  // ---- restart (with --mine-on-tx): the same chain and wallets, nothing mined
  const second = await start("--mine-on-tx");
  const p2 = second.printed;
  t.diagnostic(`restart: ready in ${p2.seconds} s`);
  assert.match(p2.text, /3 dev wallets funded \(nothing to mine\)/);
  assert.equal(await height(), h0 + 1, "the chain is kept and nothing was mined");
  assert.deepEqual(
    p2.wallets.map((w) => [w.name, w.address, w.seed]),
    p1.wallets.map((w) => [w.name, w.address, w.seed]),
  );
  assert.equal(p2.wallets[1].balance, r1.balance, "dev1 reopened with what it held");
  assert.equal((await call<{ address: string }>(WALLET_PORT, "get_address")).address, DEV0_ADDRESS, "dev0 is open again");
  // the transfer enters the pool, --mine-on-tx mines it into the next block
  const sent2 = await printedCall<{ tx_hash: string }>(p2, "transfer");
  await waitFor("the block mined for the transfer", async () => (await height()) === h0 + 2);
  const r2 = await dev1Receipt(p2, sent2.tx_hash);
  assert.equal(r2.amount, XMR);
  assert.equal(r2.confirmations, 1);
  assert.equal(r2.balance, r1.balance + XMR);
  second.proc.kill("SIGTERM");
  assert.equal(await second.exited, 0);

  // ---- --reset: a new chain and new wallet files with the same keys; and a block every 0.5 s
  const third = await start("--reset", "--wallets", "2", "--mine-interval", "0.5");
  const p3 = third.printed;
  assert.match(p3.text, /reset: deleted the chain and the wallets/);
  assert.match(p3.text, /chain height 100, 2 dev wallets funded \(mined 99 blocks now\)/);
  assert.match(p3.text, /auto-mining: a block every 0\.5 s \(to dev0\)/);
  const t0 = Date.now();
  await waitFor("3 blocks mined on the timer", async () => (await height()) >= 103, 15_000);
  t.diagnostic(`--mine-interval 0.5: 3 blocks in ${Date.now() - t0} ms`);
  assert.deepEqual(
    p3.wallets.map((w) => [w.name, w.address]),
    p1.wallets.slice(0, 2).map((w) => [w.name, w.address]),
  );
  // dev1 got the same 5 coinbases as on the first fresh start (dev0, the miner, got fewer blocks: one wallet less to fund)
  assert.equal(p3.wallets[1].balance, p1.wallets[1].balance, "dev1 funded as on a fresh start");
  assert.ok(!existsSync(join(dir, "wallets", "dev2.keys")), "the wallets went with the chain");
  const transfers = await call<{ out?: unknown[] }>(WALLET_PORT, "get_transfers", { out: true });
  assert.equal(transfers.out, undefined, "dev0 has sent nothing on the new chain");
  third.proc.kill("SIGTERM");
  assert.equal(await third.exited, 0);

  // a dev wallet file that is not one: the devnet says which and what to do, and exits
  writeFileSync(join(dir, "wallets", "dev1.keys"), "not a wallet");
  const broken = spawnSync(process.execPath, [BIN, "--data-dir", dir, "--rpc-bind-port", String(NODE_PORT), "--wallet-rpc-bind-port", String(WALLET_PORT), "--no-web-console", "--wallets", "2"], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(broken.status, 1, broken.stdout + broken.stderr);
  assert.match(broken.stderr, /the dev wallet file \S+dev1 does not open \(.+\); move it away, or start over with --reset/);
  assert.ok(!/\n\s+at /.test(broken.stderr), "no stack trace");
});

test("tsmonero: bad devnet flags are errors that say what to do", () => {
  const bad = (args: string[], re: RegExp) => {
    const r = spawnSync(process.execPath, [BIN, "--data-dir", dir, "--rpc-bind-port", String(NODE_PORT), ...args], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, re);
    assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
  };
  bad(["--wallets", "many"], /--wallets must be a number of wallets 0-100 \(got 'many'\)/);
  bad(["--mine-interval", "-1"], /--mine-interval must be a number of seconds/);
  bad(["--wallets", "0", "--mine-on-tx"], /--mine-on-tx mine to dev wallet dev0: use them with --wallets 1 or more/);
  const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
  for (const f of ["--wallets", "--mine-interval", "--mine-on-tx", "--reset"]) assert.ok(help.stdout.includes(f), `--help lists ${f}`);
});
