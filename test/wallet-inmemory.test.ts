/**
 * Wallets with an empty filename (what Monero's functional tests open first): tsmonero-wallet-rpc
 * next to the real monero-wallet-rpc (Debian package `monero`), both --offline on free ports, the
 * same calls to both, the answers compared field for field. Such a wallet lives in memory only:
 * nothing is written to --wallet-dir, store / close_wallet / stop_wallet / SIGTERM succeed storing
 * nothing, change_wallet_password fails with error code 0 (wallet2::verify_password cannot read a
 * keys file), generate_from_keys does not autosave the open wallet while restore does.
 * Also open_wallet's failures: "Failed to open wallet" word for word, whatever the reason.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import type { WalletMethod } from "../src/wallet/rpc/api.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { withoutMoneroTls } from "./helpers/monerod.js";
import { needPackage } from "./helpers/packages.js";
import { freePort } from "./helpers/ports.js";
import { type WalletParams, walletRpc } from "./helpers/wallet-rpc.js";

const BIN = fileURLToPath(new URL("../../bin/tsmonero-wallet-rpc", import.meta.url));
const skip = needPackage("monero");

interface Wallet {
  name: string;
  url: string;
  proc: ChildProcess;
  dir: string;
  logDir: string;
  output: string[];
  exited: Promise<number | null>;
}

async function start(kind: "real" | "ours"): Promise<Wallet> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-inmem-${kind}-`));
  const logDir = mkdtempSync(join(tmpdir(), `tsmonero-inmem-${kind}-log-`));
  const flags = [
    "--offline", "--wallet-dir", dir, "--disable-rpc-login", "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port),
    "--log-file", join(logDir, "wallet.log"), "--non-interactive",
  ];
  const [bin, args] = kind === "real" ? ["/usr/bin/monero-wallet-rpc", flags] : [process.execPath, [BIN, ...flags]];
  const proc = spawn(bin, withoutMoneroTls(bin, args), { cwd: logDir, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const keep = (b: Buffer): void => {
    output.push(b.toString());
    if (output.length > 100) output.shift();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  const w: Wallet = { name: kind === "real" ? "monero-wallet-rpc" : "tsmonero-wallet-rpc", url: `http://127.0.0.1:${port}`, proc, dir, logDir, output, exited };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${w.name} exited ${proc.exitCode}: ${output.join("").slice(-2000)}`);
    try {
      await walletRpc(w.url, "get_version");
      return w;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`${w.name} did not answer: ${String(e)}`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function stop(w: Wallet | undefined): Promise<void> {
  if (!w) return;
  if (w.proc.exitCode === null && w.proc.signalCode === null) {
    w.proc.kill("SIGTERM");
    const t = setTimeout(() => w.proc.kill("SIGKILL"), 10_000);
    await w.exited;
    clearTimeout(t);
  }
  rmSync(w.dir, { recursive: true, force: true });
  rmSync(w.logDir, { recursive: true, force: true });
}

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));

describe("wallets with an empty filename and open_wallet failures: tsmonero-wallet-rpc vs monero-wallet-rpc", { skip }, () => {
  let real: Wallet | undefined;
  let ours: Wallet | undefined;
  let aliceAddress = "";
  let aliceView = "";

  /** The same call to both; asserts the answers (result or error) are equal and returns them. */
  async function same<M extends WalletMethod>(method: M, params?: WalletParams<M>) {
    const [a, b] = await Promise.all([walletRpc((real as Wallet).url, method, params), walletRpc((ours as Wallet).url, method, params)]);
    assert.deepEqual(b, a, `${method} ${show(params)}: ours ${show(b)}, monero-wallet-rpc ${show(a)}`);
    return a;
  }
  const files = (w: Wallet | undefined): string[] => readdirSync((w as Wallet).dir).filter((f) => !f.startsWith(".")).sort();

  before(async () => {
    [real, ours] = await Promise.all([start("real"), start("ours")]);
  });
  after(async () => {
    await Promise.all([stop(real), stop(ours)]);
  });

  it("restore, create and generate_from_keys with an empty filename write nothing; store and close succeed; a password change fails with code 0", async () => {
    const r = await same("restore_deterministic_wallet", { filename: "", password: "", seed: WALLET_SEEDS.alice, restore_height: 0, language: "English" });
    assert.equal(r.result?.info, "Wallet has been restored successfully.");
    await same("get_address", { account_index: 0 });
    await same("query_key", { key_type: "mnemonic" });
    aliceView = (await same("query_key", { key_type: "view_key" })).result?.key as string;
    aliceAddress = (await same("get_address")).result?.address as string;
    await same("store");
    assert.deepEqual(files(real), []);
    assert.deepEqual(files(ours), []);

    // wallet2::verify_password throws out of the handler: epee answers code 0 (its message is empty; ours says why)
    const [a, b] = await Promise.all([
      walletRpc((real as Wallet).url, "change_wallet_password", { old_password: "", new_password: "x" }),
      walletRpc((ours as Wallet).url, "change_wallet_password", { old_password: "", new_password: "x" }),
    ]);
    assert.equal(a.error?.code, 0, show(a));
    assert.equal(b.error?.code, 0, show(b));
    assert.match(b.error?.message ?? "", /in memory only.*no keys file/);

    await same("close_wallet", { autosave_current: true });
    await same("get_balance");
    await same("create_wallet", { filename: "", password: "", language: "English" });
    const g = await same("generate_from_keys", { filename: "", address: aliceAddress, viewkey: aliceView, password: "" });
    assert.equal(g.result?.info, "Watch-only wallet has been generated successfully.");
    await same("get_balance");
    await same("close_wallet");
    assert.deepEqual(files(real), []);
    assert.deepEqual(files(ours), []);
  });

  it("autosave_current: restoring into memory stores the open file wallet, generate_from_keys into memory does not", async () => {
    await same("create_wallet", { filename: "f", password: "pw", language: "English" });
    await same("set_attribute", { key: "k", value: "1" });
    await same("generate_from_keys", {
      filename: "",
      address: aliceAddress,
      viewkey: aliceView,
      password: "",
      autosave_current: true,
    });
    await same("open_wallet", { filename: "f", password: "pw" });
    await same("get_attribute", { key: "k" }); // never stored: -45 on both
    await same("set_attribute", { key: "k", value: "2" });
    await same("restore_deterministic_wallet", { filename: "", password: "", seed: WALLET_SEEDS.bob, restore_height: 0, language: "English" });
    await same("open_wallet", { filename: "f", password: "pw", autosave_current: true });
    assert.deepEqual((await same("get_attribute", { key: "k" })).result, { value: "2" });
    assert.deepEqual(files(ours), files(real));
  });

  it("open_wallet's failures answer -1 \"Failed to open wallet\" whatever the reason; \".\" and \"..\" are existing files", async () => {
    for (const p of [{ filename: "nobody", password: "" }, { filename: "", password: "" }, { filename: "f", password: "bad" }, { filename: "a/b", password: "" }]) {
      const a = await same("open_wallet", p);
      assert.equal(a.error?.code, -1);
    }
    // "." and ".." name the wallet dir itself, which exists
    for (const filename of [".", ".."]) {
      await same("create_wallet", { filename, password: "", language: "English" });
      await same("restore_deterministic_wallet", { filename, password: "", seed: WALLET_SEEDS.carol, language: "English" });
      await same("generate_from_keys", { filename, password: "", address: aliceAddress, viewkey: aliceView });
    }
    const logged = (ours as Wallet).output.join("");
    assert.match(logged, /open_wallet "nobody": Failed to open wallet: .*/, "ours logs the reason");
  });

  it("stop_wallet and SIGTERM with an in-memory wallet exit as monero-wallet-rpc does, storing nothing", async () => {
    await same("restore_deterministic_wallet", { filename: "", password: "", seed: WALLET_SEEDS.carol, restore_height: 0, language: "English" });
    await same("stop_wallet");
    const [ra, oa] = await Promise.all([(real as Wallet).exited, (ours as Wallet).exited]);
    assert.equal(oa, ra, "exit codes after stop_wallet");
    assert.deepEqual(files(ours), files(real));
    await Promise.all([stop(real), stop(ours)]);

    [real, ours] = await Promise.all([start("real"), start("ours")]);
    await same("restore_deterministic_wallet", { filename: "", password: "", seed: WALLET_SEEDS.carol, restore_height: 0, language: "English" });
    for (const w of [real, ours]) w.proc.kill("SIGTERM");
    const [rb, ob] = await Promise.all([real.exited, ours.exited]);
    assert.equal(ob, rb, "exit codes after SIGTERM");
    assert.deepEqual(files(ours), []);
    assert.deepEqual(files(real), []);
  });
});
