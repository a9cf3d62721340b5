/**
 * The wallet service against unlucky operators (issue 14): very long wallet names, a wallet cache
 * that is missing or corrupt. Answers and log lines are compared with what monero-wallet-rpc
 * v0.18 does (checked by hand against the Debian binary): a missing cache opens with "wallet cache
 * missing: PATH, starting with empty blockchain"; a cache that does not load fails open_wallet with
 * -1 "Failed to open wallet" (the reason goes to the log, as every open_wallet failure); names too
 * long for the file system are refused with -1 saying so.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { MAX_WALLET_NAME_BYTES, WalletService } from "../src/wallet/service/service.js";
import { WalletError } from "../src/wallet/errors.js";
import { WALLET_FAILURE_CODES } from "../src/wallet/rpc/errors.js";

describe("wallet service: long names, missing and corrupt caches", () => {
  let dir: string;
  let svc: WalletService;
  const logged: string[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-hostile-"));
    svc = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: { log2N: 10, r: 8, p: 1 }, autoRefreshPeriod: 0, log: (m) => logged.push(m) });
  });
  after(async () => {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const fails = async (f: () => Promise<unknown>, code: number, message: RegExp): Promise<void> => {
    await assert.rejects(f, (e: unknown) => {
      assert.ok(e instanceof WalletError, String(e));
      assert.equal(WALLET_FAILURE_CODES[e.kind], code);
      assert.match(e.message, message);
      return true;
    });
  };

  it("a name too long for the file system: -1 saying so (was: \"cannot lock wallet\")", async () => {
    for (const n of [MAX_WALLET_NAME_BYTES + 1, 251, 300, 5000]) {
      await fails(() => svc.createWallet({ filename: "a".repeat(n), password: "", language: "English" }), -1, new RegExp(`file name too long \\(${n} bytes; wallet names may have at most ${MAX_WALLET_NAME_BYTES}\\)`));
      // open_wallet answers monero-wallet-rpc's words whatever the reason; the reason is logged
      logged.length = 0;
      await fails(() => svc.openWallet({ filename: "a".repeat(n), password: "", autosave_current: false }), -1, /^Failed to open wallet$/);
      assert.ok(logged.some((l) => /file name too long/.test(l)), logged.join("\n"));
    }
    // multi-byte names count in bytes
    await fails(() => svc.createWallet({ filename: "é".repeat(120), password: "", language: "English" }), -1, /file name too long \(240 bytes/);
    // the longest name allowed works, files and all
    const longest = "b".repeat(MAX_WALLET_NAME_BYTES);
    await svc.createWallet({ filename: longest, password: "", language: "English" });
    await svc.closeWallet({ autosave_current: true });
    await svc.openWallet({ filename: longest, password: "", autosave_current: false });
    await svc.closeWallet({ autosave_current: false });
  });

  it("a missing cache is rebuilt by a rescan, with monero-wallet-rpc's log line", async () => {
    await svc.createWallet({ filename: "m", password: "", language: "English" });
    await svc.closeWallet({ autosave_current: true });
    assert.equal(existsSync(join(dir, "m")), true);
    unlinkSync(join(dir, "m"));
    logged.length = 0;
    await svc.openWallet({ filename: "m", password: "", autosave_current: false });
    assert.ok(logged.some((l) => l === `wallet cache missing: ${join(dir, "m")}, starting with empty blockchain (rebuilt by a rescan)`), logged.join("\n"));
    await svc.closeWallet({ autosave_current: true });
    assert.equal(existsSync(join(dir, "m")), true, "the cache is written again");
  });

  it("a corrupt cache fails open_wallet with -1 as monero-wallet-rpc does, saying which file and what to do", async () => {
    await svc.createWallet({ filename: "c", password: "", language: "English" });
    await svc.closeWallet({ autosave_current: true });
    for (const bytes of [Buffer.alloc(0), Buffer.from("garbage that is no wallet cache at all".repeat(10))]) {
      writeFileSync(join(dir, "c"), bytes);
      logged.length = 0;
      await fails(() => svc.openWallet({ filename: "c", password: "", autosave_current: false }), -1, /^Failed to open wallet$/);
      assert.ok(logged.some((l) => l.includes(`wallet file ${join(dir, "c")} is corrupt`) && l.endsWith("move it away to rebuild it by a rescan")), logged.join("\n"));
    }
    // and moving it away is enough
    unlinkSync(join(dir, "c"));
    await svc.openWallet({ filename: "c", password: "", autosave_current: false });
    await svc.closeWallet({ autosave_current: false });
  });
});
