/**
 * Issue 13's acceptance for flags: every flag of the real `monerod --help` and
 * `monero-wallet-rpc --help` is in our tables (none unknown), scripts/flags-check.mjs runs a
 * sample of them through our launchers (exit 0, each accepted with its effect or refused with the
 * reason), and one config file starts monerod and tsmonerod alike. Ports 29760-29795.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { findSpec, parseArgs } from "../src/cli/args.js";
import { NODE_FLAGS } from "../src/cli/node-flags.js";
import { WALLET_FLAGS } from "../src/cli/wallet-flags.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The flags of a real binary's --help, as the script reads them. */
function helpFlags(bin: string): { name: string; takesValue: boolean }[] {
  const r = spawnSync(bin, ["--help"], { encoding: "utf8" });
  assert.equal(r.error, undefined, `${bin} must be installed (Debian package monero)`);
  const out: { name: string; takesValue: boolean }[] = [];
  for (const line of (r.stdout + r.stderr).split("\n")) {
    const m = /^ {2}--([a-z0-9-]+)( arg)?/.exec(line);
    if (m && m[1] !== "help") out.push({ name: m[1], takesValue: m[2] !== undefined });
  }
  return out;
}

for (const [bin, specs] of [["monerod", NODE_FLAGS], ["monero-wallet-rpc", WALLET_FLAGS]] as const) {
  test(`every flag of ${bin} --help is recognised by our launcher, with the same switch/value shape`, () => {
    const flags = helpFlags(bin);
    assert.ok(flags.length > (bin === "monerod" ? 100 : 50), `parsed ${flags.length} flags`);
    for (const f of flags) {
      const spec = findSpec(f.name, specs, false);
      assert.ok(spec, `--${f.name} is unknown`);
      assert.equal(spec.takesValue, f.takesValue, `--${f.name}: ${f.takesValue ? "takes a value" : "is a switch"} in ${bin}`);
      // and the parser takes it as monerod's command line writes it
      assert.ok(parseArgs(f.takesValue ? [`--${f.name}`, "x"] : [`--${f.name}`], specs).has(f.name));
    }
  });
}

test("scripts/flags-check.mjs runs flags through the launchers: effects checked, refusals with reasons, exit 0", () => {
  const sample = ["config-file", "pidfile", "rpc-access-control-origins", "block-notify", "add-peer", "zmq-pub", "hw-device", "bitmessage-address", "wallet-file", "restricted-rpc", "log-file"];
  const r = spawnSync(process.execPath, [join(root, "scripts/flags-check.mjs"), "--only", sample.join(",")], { encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const line = (flag: string, section: "monerod" | "monero-wallet-rpc"): string => {
    const part = r.stdout.split(/\nmonero-wallet-rpc: /)[section === "monerod" ? 0 : 1];
    return part.split("\n").find((l) => l.trim().startsWith(`--${flag} `)) ?? "";
  };
  assert.match(line("config-file", "monerod"), /accepted: the file's rpc-bind-port \d+ and data-dir took effect/);
  assert.match(line("pidfile", "monerod"), /pid file holds the detached pid; pid file removed on a clean stop/);
  assert.match(line("rpc-access-control-origins", "monerod"), /preflight answered with Access-Control-Allow-Origin/);
  assert.match(line("block-notify", "monerod"), /ran for a generated block with its hash/);
  assert.match(line("restricted-rpc", "monerod"), /get_info says restricted/);
  // P2P is active (node/p2p); with the script's --offline base the flag is accepted and parsed, no peer is contacted
  assert.match(line("add-peer", "monerod"), /--add-peer\s+accepted$/);
  assert.match(line("zmq-pub", "monerod"), /accepted: ZMQ pub listening on 127\.0\.0\.1:29799/);
  assert.match(line("hw-device", "monero-wallet-rpc"), /refused: hardware wallets/);
  assert.match(line("bitmessage-address", "monero-wallet-rpc"), /refused: the multisig messaging system/);
  assert.match(line("wallet-file", "monero-wallet-rpc"), /accepted: the wallet is open/);
  assert.match(line("log-file", "monero-wallet-rpc"), /log written to the given file/);
  assert.match(r.stdout, /0 unknown, 0 with a failed effect check/);
});

function get(port: number, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<{ status: number; headers: Record<string, unknown>; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers, timeout: 5000 }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", () => resolve(undefined));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

/** Starts `bin args`, reads what a client sees, stops it with SIGTERM. */
async function serveWith(bin: string, args: string[], port: number): Promise<Record<string, unknown>> {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
  try {
    const end = Date.now() + 60_000;
    let info: { status: number; body: string } | undefined;
    while (Date.now() < end) {
      info = await get(port, "/get_info");
      if (info?.status === 200) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.equal(info?.status, 200, `${bin} did not serve RPC on ${port}: ${out}`);
    const main = JSON.parse(info?.body ?? "{}") as Record<string, unknown>;
    const restricted = JSON.parse((await get(port + 1, "/get_info"))?.body ?? "{}") as Record<string, unknown>;
    const pre = await get(port, "/json_rpc", { origin: "http://wallet.example" }, "OPTIONS");
    const other = await get(port, "/json_rpc", { origin: "http://other.example" }, "OPTIONS");
    return {
      nettype: main.nettype,
      height: main.height,
      offline: main.offline,
      restricted: main.restricted,
      restrictedPortRestricted: restricted.restricted,
      preflight: pre?.status,
      cors: pre?.headers["access-control-allow-origin"],
      corsOther: other?.headers["access-control-allow-origin"],
    };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

test("the same config file starts monerod and tsmonerod alike", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-sameconf-"));
  dirs.push(dir);
  const conf = join(dir, "bitmonero.conf");
  writeFileSync(
    conf,
    [
      "# one config file for both",
      "regtest=1",
      "offline=1",
      "fixed-difficulty=1",
      `data-dir=${dir}/data`,
      "rpc-bind-port=29790",
      "rpc-restricted-bind-port=29791",
      "rpc-access-control-origins=http://wallet.example",
      "p2p-bind-ip=127.0.0.1",
      "p2p-bind-port=29792",
      "no-zmq=1",
      "no-igd=1",
      "log-level=0",
      "max-log-file-size=1000000",
      "max-log-files=3",
      "disable-dns-checkpoints=1",
      "check-updates=disabled",
      "",
    ].join("\n"),
  );
  const real = await serveWith("monerod", ["--config-file", conf, "--non-interactive"], 29790);
  const ours = await serveWith(process.execPath, [join(root, "bin/tsmonerod"), "--config-file", conf], 29790);
  assert.deepEqual(ours, real);
  assert.deepEqual(real, { nettype: "fakechain", height: 1, offline: true, restricted: false, restrictedPortRestricted: true, preflight: 200, cors: "http://wallet.example", corsOther: undefined });
  assert.ok(existsSync(join(dir, "data", "bitmonero.log")), "monerod logged to <data-dir>/bitmonero.log");
  assert.ok(existsSync(join(dir, "data", "tsmonerod.log")), "tsmonerod logged to <data-dir>/tsmonerod.log");
  // a flag monerod keeps to its command line is refused in the file by both, with monerod 0.18's words
  writeFileSync(conf, "detach=1\n", { flag: "a" });
  const m = spawnSync("monerod", ["--config-file", conf], { encoding: "utf8" });
  const t = spawnSync(process.execPath, [join(root, "bin/tsmonerod"), "--config-file", conf], { encoding: "utf8" });
  assert.match(m.stdout + m.stderr, /Error parsing config file: unrecognised option 'detach'/);
  assert.match(t.stderr, /Error parsing config file .*: unrecognised option 'detach' \(line \d+; it is allowed on the command line only/);
  assert.notEqual(m.status, 0);
  assert.notEqual(t.status, 0);
});
