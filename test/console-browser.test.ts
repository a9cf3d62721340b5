/**
 * Issue 21's acceptance for the web console: the devnet (bin/tsmonero, a child process in a temp
 * data dir, ports 29850–29852) serves the console, and a real browser (Debian's chromium, driven by
 * puppeteer-core) opens it, sees the dev wallets' balances, sends from dev0 to dev1 with the send
 * form, mines with the mine button, and finds the transaction in the explorer (pool, block,
 * transaction page with key images, rings, outputs and decoded extra) and in both wallets'
 * histories. Also, over plain HTTP: content types, no directory traversal, and the RPC pass-through
 * refusing requests a cross-site page could make.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { needPackage } from "./helpers/packages.js";

const BIN = fileURLToPath(new URL("../../bin/tsmonero", import.meta.url));
const NODE_PORT = 29850;
const WALLET_PORT = 29851;
const CONSOLE_PORT = 29852;
const CONSOLE = `http://127.0.0.1:${CONSOLE_PORT}`;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const dir = mkdtempSync(join(tmpdir(), "tsmonero-console-"));
let proc: ChildProcess | null = null;
let printed = "";
let browser: Browser | null = null;

/** The dev wallets as printed at startup: name → address and balance text ("175.9 XMR"). */
const dev = new Map<string, { address: string; balance: string }>();

before(async () => {
  proc = spawn(process.execPath, [BIN, "--data-dir", dir, "--rpc-bind-port", String(NODE_PORT), "--wallet-rpc-bind-port", String(WALLET_PORT), "--web-console-port", String(CONSOLE_PORT), "--wallets", "2"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const out: string[] = [];
  proc.stdout?.on("data", (b: Buffer) => out.push(b.toString()));
  proc.stderr?.on("data", (b: Buffer) => out.push(b.toString()));
  const deadline = Date.now() + 120_000;
  while (!/"method":"open_wallet".*\n/.test(out.join(""))) {
    if (proc.exitCode !== null) throw new Error(`tsmonero exited: ${out.join("")}`);
    if (Date.now() > deadline) throw new Error(`tsmonero did not get ready: ${out.join("")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  printed = out.join("");
  const lines = printed.split("\n");
  lines.forEach((l, i) => {
    const m = /^ {2}(dev\d+) {2}([\d.]+ XMR)/.exec(l);
    const a = /^ {4}address (\S+)$/.exec(lines[i + 1] ?? "");
    if (m && a) dev.set(m[1], { address: a[1], balance: m[2] });
  });
});

after(async () => {
  await browser?.close().catch(() => undefined);
  if (proc && proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise((r) => proc?.once("exit", r));
    proc.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A raw HTTP request to the console (paths as given, no URL normalisation). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body = ""): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: CONSOLE_PORT, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("the devnet prints the console's URL and serves its files with their content types, nothing else", async () => {
  assert.match(printed, new RegExp(`web console \\(explorer, dev wallets, send, mine\\): ${CONSOLE}/`));
  const index = await raw("GET", "/");
  assert.equal(index.status, 200);
  assert.equal(index.type, "text/html; charset=utf-8");
  assert.match(index.body, /<script type="module" src="\/app.js">/);
  assert.equal((await raw("GET", "/app.js")).type, "text/javascript; charset=utf-8");
  assert.equal((await raw("GET", "/style.css")).type, "text/css; charset=utf-8");
  const config = await raw("GET", "/console.json");
  assert.equal(config.type, "application/json; charset=utf-8");
  assert.deepEqual(
    (JSON.parse(config.body) as { devWallets: { name: string }[] }).devWallets.map((w) => w.name),
    ["dev0", "dev1"],
  );
  for (const p of ["/../package.json", "/%2e%2e/package.json", "/..%2fpackage.json", "/assets/console/index.html", "/index.html/..", "//etc/passwd", "/app.ts"]) {
    const r = await raw("GET", p);
    assert.equal(r.status, 404, `${p} is not served`);
  }
});

test("the RPC pass-through: the page's own requests only (the console header, same origin, a known Host)", async () => {
  const body = JSON.stringify({ jsonrpc: "2.0", id: "0", method: "get_info" });
  const ok = await raw("POST", "/node/json_rpc", { "x-tsmonero-console": "1", "content-type": "application/json" }, body);
  assert.equal(ok.status, 200);
  assert.equal((JSON.parse(ok.body) as { result: { height: number } }).result.height, 100);
  const noHeader = await raw("POST", "/wallet/json_rpc", { "content-type": "text/plain" }, JSON.stringify({ jsonrpc: "2.0", id: "0", method: "get_address" }));
  assert.equal(noHeader.status, 403);
  assert.match(noHeader.body, /x-tsmonero-console/);
  const crossSite = await raw("POST", "/wallet/json_rpc", { "x-tsmonero-console": "1", origin: "http://evil.example" }, body);
  assert.equal(crossSite.status, 403);
  assert.match(crossSite.body, /cross-origin request from http:\/\/evil.example refused/);
  const rebound = await raw("GET", "/", { host: "evil.example:29852" });
  assert.equal(rebound.status, 421);
});

/** Shows `hash` and waits for `selector` in the new view (the old view is cleared first); the page's code is in strings: the tests are not compiled with the DOM's types. */
async function show(page: Page, hash: string, selector: string, timeout = 60_000): Promise<void> {
  // the same hash again fires no hashchange of its own: send one (the page shows it anew)
  await page.evaluate(
    `document.getElementById("view").replaceChildren(); if (location.hash === ${JSON.stringify(hash)}) window.dispatchEvent(new HashChangeEvent("hashchange")); else location.hash = ${JSON.stringify(hash)};`,
  );
  await page
    .waitForFunction(
      `document.body.dataset.loading === undefined && (document.querySelector(${JSON.stringify(`#view ${selector}`)}) !== null || !document.getElementById("error").hidden)`,
      { timeout },
    )
    .catch(async (e: unknown) => {
      const body = (await page.evaluate(`document.body.innerText`)) as string;
      throw new Error(`${hash}: no ${selector} after ${timeout} ms (${e instanceof Error ? e.message : String(e)}); the page shows: ${body.slice(0, 1500)}`);
    });
  assert.equal(await errorText(page), "", `no error on ${hash}`);
}

/** The page's error box's text ("" when hidden). */
const errorText = (page: Page): Promise<string> => page.evaluate(`document.getElementById("error").hidden ? "" : document.getElementById("error").textContent`) as Promise<string>;
const waitError = (page: Page, timeout: number): Promise<unknown> => page.waitForFunction(`!document.getElementById("error").hidden`, { timeout });
const setValue = (page: Page, selector: string, value: string): Promise<unknown> => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).value = ${JSON.stringify(value)}`);

const text = (page: Page, selector: string): Promise<string> => page.$eval(selector, (e) => e.textContent ?? "");

test("in a real browser: the dev wallets' balances, send, mine, the transaction in the explorer and in both wallets' histories", { timeout: 300_000 }, async (t) => {
  const skip = needPackage("chromium", [CHROMIUM]);
  if (skip) return t.skip(skip);
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  const page = await browser.newPage();
  const consoleErrors: string[] = [];
  page.on("pageerror", (e) => consoleErrors.push(e instanceof Error ? e.message : String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  await page.goto(`${CONSOLE}/#/chain`);

  // the chain: newest block first, 20 a page, the next page by height
  await show(page, "#/chain", "#blocks tbody tr");
  assert.equal(await page.$$eval("#blocks tbody tr", (rows) => rows.length), 20);
  assert.equal(await page.$eval("#blocks tbody tr", (r) => r.getAttribute("data-height")), "99");
  await show(page, "#/chain?top=79", "#blocks tbody tr[data-height='60']");

  // the wallets: balances as the devnet printed them
  await show(page, "#/wallets", "tr[data-wallet='dev1'] .balance");
  for (const name of ["dev0", "dev1"]) assert.equal(await text(page, `tr[data-wallet='${name}'] .balance`), dev.get(name)?.balance, `${name}'s balance`);
  assert.ok((await page.$$("table.subaddresses tbody tr")).length >= 2, "the subaddresses holding coins are listed");

  // a send the wallet refuses shows the wallet RPC's reason
  await show(page, "#/wallet/dev0", "#send-form");
  await setValue(page, "#send-address", "not-an-address");
  await page.click("#send-submit");
  await waitError(page, 60_000);
  const refused = await errorText(page);
  t.diagnostic(`bad address: ${refused}`);
  assert.match(refused, /^wallet transfer: .*address.* \(error -?\d+\)$/i);

  // send 1.25 XMR from dev0 to dev1
  const dev1 = dev.get("dev1")?.address ?? "";
  await setValue(page, "#send-address", dev1);
  await setValue(page, "#send-amount", "1.25");
  await page.click("#send-submit");
  await page.waitForSelector("#sent-tx", { timeout: 120_000 });
  const txid = (await page.$eval("#sent-tx", (e) => e.getAttribute("data-txid"))) ?? "";
  assert.match(txid, /^[0-9a-f]{64}$/);
  assert.match(await text(page, "#send-result"), /\(1\.25 XMR, fee 0\.\d+ XMR\)/);

  // in the pool, and pending in dev0's history
  await show(page, "#/pool", `a[href='#/tx/${txid}']`);
  await show(page, `#/tx/${txid}`, "#tx-status[data-in-pool='true']");

  // mine: the block at height 100 carries it
  await page.click("#mine");
  await page.waitForFunction(`/mined block 100/.test(document.getElementById("mined").textContent)`, { timeout: 60_000 });
  await show(page, "#/pool", "#pool-empty");
  await show(page, "#/block/100", `#block-txs a[href='#/tx/${txid}']`);
  await show(page, `#/tx/${txid}`, "#tx-status[data-height='100']");
  const keyImages = await page.$$eval("#tx-inputs .key-image", (es) => es.map((e) => e.textContent ?? ""));
  assert.ok(keyImages.length >= 1 && keyImages.every((k) => /^[0-9a-f]{64}$/.test(k)), `key images: ${keyImages.join(", ")}`);
  const rings: number[][] = await page.$$eval("#tx-inputs .ring", (es) => es.map((e) => (e.textContent ?? "").split(" ").map(Number)));
  for (const ring of rings) {
    assert.equal(ring.length, 16, "16 ring members");
    assert.ok(ring.every((v, i) => i === 0 || v > ring[i - 1]), "absolute global indices, increasing");
  }
  const outputs = await page.$$eval("#tx-outputs tbody tr", (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent ?? "")));
  assert.ok(outputs.length >= 2, "two outputs or more");
  for (const o of outputs) {
    assert.match(o[1], /^[0-9a-f]{64}$/, "one-time key");
    assert.match(o[2], /^[0-9a-f]{2}$/, "view tag");
    assert.match(o[3], /^[0-9a-f]{64}$/, "amount commitment");
  }
  assert.match(await text(page, "#tx-extra .extra-pubkey"), /^[0-9a-f]{64}$/);
  assert.match(await text(page, "#tx-extra"), /payment id \(encrypted nonce\)/);
  assert.match(await text(page, "#view dl"), /fee0\.\d+ XMR/);

  // both wallets' histories
  await show(page, "#/wallet/dev0", `tr[data-txid='${txid}'][data-type='out']`);
  await show(page, "#/wallet/dev1", `tr[data-txid='${txid}'][data-type='in']`);
  assert.match(await page.$eval(`tr[data-txid='${txid}']`, (r) => r.textContent ?? ""), /1\.25 XMR/);

  // an unknown transaction: the page says so
  await page.evaluate(`location.hash = "#/tx/${"0".repeat(64)}"`);
  await waitError(page, 30_000);
  assert.match(await errorText(page), /transaction 0{64} not found/);
  assert.deepEqual(consoleErrors, [], "no script errors in the page");

  // the console left the wallet RPC's open wallet as it found it (dev0)
  const r = await fetch(`http://127.0.0.1:${WALLET_PORT}/json_rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: "0", method: "get_address", params: {} }) });
  assert.equal(((await r.json()) as { result: { address: string } }).result.address, dev.get("dev0")?.address);
  assert.ok(existsSync(join(dir, "wallets", "dev1.keys")));
});
