#!/usr/bin/env node
/**
 * Runs every flag of `monerod --help` and `monero-wallet-rpc --help` (the real binaries' output,
 * parsed here, so the list is Monero's and not ours) through our launchers, bin/tsmonerod and
 * bin/tsmonero-wallet-rpc, one run per flag on a regtest/offline setup in a temp dir, and prints
 * for each: accepted (with its effect checked where that is quick), accepted and logged as
 * inactive, or refused with the reason. Exits 1 if any flag is unknown to our launchers or a check
 * of an effect fails.
 *
 *   node scripts/flags-check.mjs [--only name,name…] [--monerod path] [--wallet-rpc path] [--jobs n]
 *
 * Ports: 29760-29789. Needs a build (npm run build).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const only = opt("only") ? new Set(opt("only").split(",")) : undefined;
const JOBS = Number(opt("jobs", "2"));
const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";

/** The flags of a --help text: name and whether it takes a value. */
export function helpFlags(text) {
  const out = [];
  for (const line of text.split("\n")) {
    const m = /^ {2}--([a-z0-9-]+)( arg)?/.exec(line);
    if (m) out.push({ name: m[1], takesValue: m[2] !== undefined });
  }
  return out;
}

function help(bin) {
  const r = spawnSync(bin, ["--help"], { encoding: "utf8" });
  if (r.error) {
    console.error(`flags-check: cannot run ${bin} --help (${r.error.message}); install Monero 0.18 or pass --monerod / --wallet-rpc`);
    process.exit(2);
  }
  return helpFlags(r.stdout + r.stderr);
}

const work = mkdtempSync(join(tmpdir(), "tsmonero-flags-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// files some flags need: a certificate and key, a password file, an entropy file
const { generate } = await import("selfsigned");
const pair = await generate([{ name: "commonName", value: "flags-check" }], { keyType: "rsa", keySize: 2048, algorithm: "sha256" });
writeFileSync(join(work, "tls.key"), pair.private);
writeFileSync(join(work, "tls.crt"), pair.cert);
writeFileSync(join(work, "pw"), "\n");
writeFileSync(join(work, "entropy"), "0123456789abcdef0123456789abcdef");

/** HTTP to one of our servers: { status, headers, body } or undefined when nothing answered. */
function http(port, method, path, body = "", headers = {}) {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { "content-type": "application/json", ...headers }, timeout: 10000 }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on("error", () => resolve(undefined));
    req.on("timeout", () => req.destroy());
    req.end(body);
  });
}
const rpc = async (port, method, params = {}) => {
  const r = await http(port, "POST", "/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: 0, method, params }));
  return r && JSON.parse(r.body);
};
const waitFile = async (p, ms = 5000) => {
  const end = Date.now() + ms;
  while (!existsSync(p) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return existsSync(p);
};

/**
 * One run: `launcher args`, until it serves (`ready` in its output) or exits; then `effect` (if
 * any), then SIGTERM. Resolves { code, out, served, effect }.
 */
function run(launcher, args, ready, effect, ms = 30000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, "bin", launcher), ...args], { stdio: ["pipe", "pipe", "pipe"], cwd: work });
    child.stdin.end("\n");
    let out = "";
    let served = false;
    let effectResult;
    const timer = setTimeout(() => child.kill("SIGKILL"), ms);
    const onData = (d) => {
      out += d;
      if (!served && out.includes(ready)) {
        served = true;
        Promise.resolve(effect ? effect(out).catch((e) => `check failed: ${e.message}`) : undefined).then((r) => {
          effectResult = r;
          child.kill("SIGTERM");
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, served, effect: effectResult });
    });
  });
}

/** Kills a detached copy whose pid the launcher printed. */
function killDetached(out) {
  const m = /detached, pid (\d+)/.exec(out);
  if (m) {
    try {
      process.kill(Number(m[1]), "SIGTERM");
    } catch {
      // gone
    }
  }
}

const ok = (cond, what) => (cond ? what : `check failed: ${what}`);

/** Per-flag values and effect checks for tsmonerod; `port` is the run's RPC port, `dir` its data dir. */
function nodeCase(name, port, dir) {
  const restricted = port + 1;
  const common = {
    value: undefined,
    /** flags of the base command line this flag replaces */
    drop: [],
    effect: undefined,
  };
  const c = { ...common };
  switch (name) {
    case "config-file": {
      const conf = join(dir, "node.conf");
      writeFileSync(conf, `# flags-check\nregtest=1\noffline=1\nfixed-difficulty=1\ndata-dir=${dir}/conf-data\nrpc-bind-port=${restricted}\n`);
      c.value = conf;
      c.drop = ["rpc-bind-port", "data-dir"];
      c.effect = async () => ok(((await http(restricted, "GET", "/get_height")) ?? {}).status === 200 && existsSync(`${dir}/conf-data`), `the file's rpc-bind-port ${restricted} and data-dir took effect`);
      break;
    }
    case "detach":
      c.extra = ["--pidfile", join(dir, "d.pid")];
      c.detach = true;
      break;
    case "pidfile":
      c.value = join(dir, "p.pid");
      c.extra = ["--detach"];
      c.detach = true;
      break;
    case "log-file":
      c.value = join(dir, "custom.log");
      c.drop = ["log-file"];
      c.effect = async () => ok(await waitFile(join(dir, "custom.log")), "log written to the given file");
      break;
    case "log-level":
      c.value = "*:INFO,global:DEBUG";
      break;
    case "data-dir":
      c.value = join(dir, "other");
      c.drop = ["data-dir"];
      c.effect = async () => ok(existsSync(join(dir, "other", "fake", "lmdb")), "chain opened in the given data dir");
      break;
    case "testnet":
    case "stagenet":
      c.drop = ["regtest", "fixed-difficulty"];
      c.effect = async () => {
        const r = await rpc(port, "get_info");
        return ok(r?.result?.nettype === name, `get_info nettype ${r?.result?.nettype}`);
      };
      break;
    case "regtest":
      c.drop = ["regtest"];
      c.effect = async () => ok((await rpc(port, "get_info"))?.result?.nettype === "fakechain", "get_info nettype fakechain");
      break;
    case "offline":
    case "fixed-difficulty":
      c.drop = [name];
      if (name === "fixed-difficulty") c.value = "1";
      break;
    case "rpc-bind-port":
      c.value = String(restricted);
      c.drop = ["rpc-bind-port"];
      c.effect = async () => ok(((await http(restricted, "GET", "/get_height")) ?? {}).status === 200, `RPC served on ${restricted}`);
      break;
    case "rpc-restricted-bind-port":
      c.value = String(restricted);
      c.effect = async () => ok((await rpc(restricted, "get_info"))?.result?.restricted === true, `restricted RPC on ${restricted}`);
      break;
    case "restricted-rpc":
      c.effect = async () => ok((await rpc(port, "get_info"))?.result?.restricted === true, "get_info says restricted");
      break;
    case "public-node":
      c.extra = ["--restricted-rpc"];
      break;
    case "rpc-login":
      c.value = "u:p";
      c.effect = async () => ok(((await http(port, "GET", "/get_height")) ?? {}).status === 401, "401 without credentials");
      break;
    case "rpc-access-control-origins":
      c.value = "http://a.example";
      c.effect = async () => {
        const r = await http(port, "OPTIONS", "/json_rpc", "", { origin: "http://a.example" });
        return ok(r?.headers["access-control-allow-origin"] === "http://a.example", "preflight answered with Access-Control-Allow-Origin");
      };
      break;
    case "rpc-ssl":
      c.value = "disabled";
      break;
    case "rpc-ssl-private-key":
    case "rpc-ssl-certificate":
      c.value = join(work, name.endsWith("key") ? "tls.key" : "tls.crt");
      c.extra = name.endsWith("key") ? ["--rpc-ssl-certificate", join(work, "tls.crt")] : ["--rpc-ssl-private-key", join(work, "tls.key")];
      break;
    case "rpc-ssl-ca-certificates":
      c.value = join(work, "tls.crt");
      break;
    case "rpc-ssl-allowed-fingerprints":
      c.value = "00".repeat(32).match(/../g).join(":");
      break;
    case "block-notify":
      c.value = `/usr/bin/touch ${dir}/block-%s`;
      c.effect = async () => {
        const r = await rpc(port, "generateblocks", { amount_of_blocks: 1, wallet_address: ALICE });
        const id = r?.result?.blocks?.[0];
        return ok(id !== undefined && (await waitFile(`${dir}/block-${id}`)), "ran for a generated block with its hash");
      };
      break;
    case "reorg-notify":
    case "block-rate-notify":
      c.value = `/usr/bin/touch ${dir}/${name}-%s`;
      break;
    case "start-mining":
      c.value = ALICE;
      c.effect = async () => {
        const r = await http(port, "POST", "/mining_status", "{}");
        return ok(r !== undefined && JSON.parse(r.body).active === true, "mining_status active");
      };
      break;
    case "mining-threads":
      c.value = "1";
      c.extra = ["--start-mining", ALICE];
      break;
    case "zmq-rpc-bind-ip":
      c.value = "127.0.0.1";
      c.extra = ["--zmq-rpc-bind-port", "29798"];
      c.drop = ["no-zmq"];
      break;
    case "zmq-rpc-bind-port":
      c.value = "29798";
      c.drop = ["no-zmq"];
      c.effect = async () => ok(await new Promise((res) => {
        const sock = connect({ host: "127.0.0.1", port: 29798 }, () => {
          sock.destroy();
          res(true);
        });
        sock.on("error", () => res(false));
      }), "ZMQ RPC listening on 127.0.0.1:29798");
      break;
    case "rpc-bind-ip":
    case "rpc-restricted-bind-ip":
    case "p2p-bind-ip":
      c.value = "127.0.0.1";
      break;
    case "rpc-bind-ipv6-address":
    case "rpc-restricted-bind-ipv6-address":
    case "p2p-bind-ipv6-address":
      c.value = "::1";
      break;
    case "rpc-use-ipv6":
      c.effect = async () => ok(await new Promise((res) => {
        const req = request({ host: "::1", port, path: "/get_height", timeout: 5000 }, (r) => res(r.statusCode === 200));
        req.on("error", () => res(false));
        req.end();
      }), "RPC on [::1]");
      break;
    case "rpc-max-connections-per-public-ip":
    case "rpc-max-connections-per-private-ip":
      c.value = "2";
      break;
    case "zmq-pub":
      c.value = "tcp://127.0.0.1:29799";
      c.drop = ["no-zmq"];
      c.effect = async () => ok(await new Promise((res) => {
        const sock = connect({ host: "127.0.0.1", port: 29799 }, () => {
          sock.destroy();
          res(true);
        });
        sock.on("error", () => res(false));
      }), "ZMQ pub listening on 127.0.0.1:29799");
      break;
    case "check-updates":
      c.value = "disabled";
      break;
    case "db-sync-mode":
      c.value = "safe:sync";
      break;
    case "igd":
      c.value = "disabled";
      break;
    case "ban-list":
    case "extra-messages-file":
      c.value = join(work, "entropy");
      break;
    case "add-peer":
    case "add-priority-node":
    case "add-exclusive-node":
    case "seed-node":
      c.value = "127.0.0.1:29798";
      break;
    case "bootstrap-daemon-login":
      c.value = "u:p";
      c.extra = ["--bootstrap-daemon-address", "127.0.0.1:29796"];
      break;
    case "proxy":
    case "bootstrap-daemon-proxy":
      c.value = "127.0.0.1:9050";
      break;
    case "tx-proxy":
      c.value = "tor,127.0.0.1:9050,10";
      break;
    case "anonymous-inbound":
      c.value = "x.onion,127.0.0.1:29797,10";
      break;
    case "bootstrap-daemon-address":
      c.value = "127.0.0.1:29796";
      break;
    case "rpc-payment-address":
      c.value = ALICE;
      break;
    case "out-peers":
    case "in-peers":
    case "tos-flag":
    case "limit-rate":
      c.value = "-1";
      break;
    default:
      break;
  }
  return c;
}

/** Per-flag values and checks for tsmonero-wallet-rpc. */
function walletCase(name, port, dir) {
  const c = { value: undefined, drop: [], effect: undefined };
  const wf = join(work, "wallets", "w");
  switch (name) {
    case "config-file": {
      const conf = join(dir, "wallet.conf");
      writeFileSync(conf, `# flags-check\nrpc-bind-port=${port + 1}\ndisable-rpc-login=1\noffline=1\nwallet-dir=${dir}/wd\n`);
      c.value = conf;
      c.drop = ["rpc-bind-port", "wallet-dir"];
      c.effect = async () => ok(((await http(port + 1, "POST", "/json_rpc", '{"jsonrpc":"2.0","id":0,"method":"get_version"}')) ?? {}).status === 200, `the file's rpc-bind-port ${port + 1} took effect`);
      break;
    }
    case "wallet-file":
      c.value = wf;
      c.drop = ["wallet-dir"];
      c.extra = ["--password", ""];
      c.effect = async () => ok((await rpc(port, "get_address"))?.result?.address !== undefined, "the wallet is open");
      break;
    case "password":
      c.value = "";
      c.drop = ["wallet-dir"];
      c.extra = ["--wallet-file", wf];
      break;
    case "password-file":
      c.value = join(work, "pw");
      c.drop = ["wallet-dir"];
      c.extra = ["--wallet-file", wf];
      break;
    case "prompt-for-password":
      c.drop = ["wallet-dir"];
      c.extra = ["--wallet-file", wf];
      break;
    case "wallet-dir":
      c.value = join(dir, "wd2");
      c.drop = ["wallet-dir"];
      break;
    case "rpc-bind-port":
      c.value = String(port + 1);
      c.drop = ["rpc-bind-port"];
      break;
    case "disable-rpc-login":
    case "offline":
      c.drop = [name];
      break;
    case "rpc-login":
      c.value = "u:p";
      c.drop = ["disable-rpc-login"];
      c.effect = async () => ok(((await http(port, "POST", "/json_rpc", "{}")) ?? {}).status === 401, "401 without credentials");
      break;
    case "detach":
      c.extra = ["--log-file", join(dir, "w.log")];
      c.detach = true;
      break;
    case "pidfile":
      c.value = join(dir, "w.pid");
      c.extra = ["--detach", "--log-file", join(dir, "w.log")];
      c.detach = true;
      break;
    case "log-file":
      c.value = join(dir, "w.log");
      c.effect = async () => ok(await waitFile(join(dir, "w.log")), "log written to the given file");
      break;
    case "log-level":
      c.value = "1";
      break;
    case "rpc-access-control-origins":
      c.value = "*";
      c.effect = async () => {
        const r = await http(port, "OPTIONS", "/json_rpc", "", { origin: "http://z.example" });
        return ok(r?.headers["access-control-allow-origin"] === "http://z.example", "preflight answered with Access-Control-Allow-Origin");
      };
      break;
    case "daemon-address":
      c.value = "127.0.0.1:29795";
      break;
    case "daemon-host":
      c.value = "127.0.0.1";
      break;
    case "daemon-port":
      c.value = "29795";
      break;
    case "daemon-login":
    case "bitmessage-login":
      c.value = "u:p";
      break;
    case "daemon-ssl":
    case "rpc-ssl":
      c.value = "disabled";
      break;
    case "daemon-ssl-private-key":
    case "daemon-ssl-certificate":
    case "rpc-ssl-private-key":
    case "rpc-ssl-certificate": {
      const pre = name.startsWith("daemon") ? "daemon-ssl" : "rpc-ssl";
      c.value = join(work, name.endsWith("key") ? "tls.key" : "tls.crt");
      c.extra = name.endsWith("key") ? [`--${pre}-certificate`, join(work, "tls.crt")] : [`--${pre}-private-key`, join(work, "tls.key")];
      break;
    }
    case "daemon-ssl-ca-certificates":
    case "rpc-ssl-ca-certificates":
      c.value = join(work, "tls.crt");
      break;
    case "daemon-ssl-allowed-fingerprints":
    case "rpc-ssl-allowed-fingerprints":
      c.value = "00".repeat(32).match(/../g).join(":");
      break;
    case "tx-notify":
      c.value = `/usr/bin/touch ${dir}/tx-%s`;
      break;
    case "extra-entropy":
      c.value = join(work, "entropy");
      break;
    case "rpc-bind-ip":
    case "rpc-restricted-bind-ip":
      c.value = "127.0.0.1";
      break;
    case "rpc-bind-ipv6-address":
    case "rpc-restricted-bind-ipv6-address":
      c.value = "::1";
      break;
    case "proxy":
      c.value = "127.0.0.1:9050";
      break;
    case "rpc-max-connections-per-public-ip":
    case "rpc-max-connections-per-private-ip":
      c.value = "2";
      break;
    case "shared-ringdb-dir":
      c.value = join(dir, "ringdb");
      break;
    case "generate-from-json":
      c.value = join(work, "entropy");
      break;
    default:
      break;
  }
  return c;
}

function defaultValue(helpText, name) {
  const m = new RegExp(`--${name} arg \\(=([^)]*)\\)`).exec(helpText);
  return m && !m[1].includes("/") && !m[1].includes(",") ? m[1] : undefined;
}

/** Classifies one run's outcome. */
function verdict(r, flag) {
  const text = r.out;
  if (/unknown flag --/.test(text)) return { kind: "UNKNOWN", detail: (/unknown flag [^\n]*/.exec(text) ?? [""])[0] };
  const refused = /--([a-z0-9-]+) is not supported: ([^\n]*)/.exec(text);
  if (refused) return { kind: "refused", detail: refused[2] };
  const inactive = new RegExp(`--${flag} accepted; ([^\\n]*)`).exec(text);
  if (r.served || r.code === 0) {
    const failed = typeof r.effect === "string" && r.effect.includes("check failed");
    return { kind: failed ? "EFFECT-FAILED" : inactive ? "inactive" : "accepted", detail: [inactive ? inactive[1] : "", r.effect ?? ""].filter((x) => x).join("; ") };
  }
  const why = text.trim().split("\n").filter((l) => l.trim() !== "").pop() ?? `exit ${r.code}`;
  return { kind: "accepted, value refused", detail: why };
}

async function checkCommand(label, monero, launcher, ready, baseOf, caseOf, prep) {
  const helpText = spawnSync(monero, ["--help"], { encoding: "utf8" }).stdout;
  const flags = help(monero).filter((f) => f.name !== "help" && (!only || only.has(f.name)));
  if (prep) await prep();
  console.log(`\n${label}: ${flags.length} flags of \`${monero} --help\` through bin/${launcher}`);
  const results = new Array(flags.length);
  let next = 0;
  const slot = async (s) => {
    for (;;) {
      const i = next++;
      if (i >= flags.length) return;
      const f = flags[i];
      const port = 29760 + s * 10 + (label === "monero-wallet-rpc" ? 5 : 0);
      const dir = join(work, `${label}-${f.name}`);
      mkdirSync(dir, { recursive: true });
      const c = caseOf(f.name, port, dir);
      const base = baseOf(port, dir).filter(([k]) => !c.drop.includes(k) && k !== f.name);
      const value = c.value ?? (f.takesValue ? defaultValue(helpText, f.name) ?? "1" : undefined);
      const args = [`--${f.name}`, ...(value !== undefined ? [value] : []), ...(c.extra ?? []), ...base.flatMap(([k, v]) => (v === undefined ? [`--${k}`] : [`--${k}`, v]))];
      let r;
      if (f.name === "version" || f.name === "os-version") {
        r = await run(launcher, [`--${f.name}`], "\u0000never", undefined);
        r.effect = ok(r.code === 0 && r.out.trim() !== "", `prints: ${r.out.trim()}`);
      } else if (c.detach) {
        r = await run(launcher, args, "\u0000never", undefined, 60000);
        const pid = /detached, pid (\d+)/.exec(r.out);
        const pidfile = c.value ?? c.extra?.[c.extra.indexOf("--pidfile") + 1];
        r.effect = ok(r.code === 0 && pid !== null, "the launcher exited 0 once the detached copy served");
        if (pidfile && f.name === "pidfile") r.effect += "; " + ok(existsSync(pidfile) && readFileSync(pidfile, "utf8").trim() === pid?.[1], "pid file holds the detached pid");
        killDetached(r.out);
        if (pidfile && f.name === "pidfile") {
          const t0 = Date.now();
          while (existsSync(pidfile) && Date.now() < t0 + 20000) await new Promise((res) => setTimeout(res, 100));
          const gone = !existsSync(pidfile);
          // when it fails, say what the stopped process logged (its log file is next to the pid file)
          const logTail = () => { try { return readFileSync(join(dir, label === "monero-wallet-rpc" ? "w.log" : "node.log"), "utf8").trim().split("\n").slice(-4).join(" | "); } catch { return "no log"; } };
          r.effect += "; " + ok(gone, gone ? "pid file removed on a clean stop" : `pid file removed on a clean stop (still there after 20 s; log: ${logTail()})`);
        }
      } else r = await run(launcher, args, ready, c.effect);
      results[i] = { flag: f.name, ...verdict(r, f.name) };
      const v = results[i];
      console.log(`  --${v.flag.padEnd(36)} ${v.kind}${v.detail ? `: ${v.detail}` : ""}`);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, (_, s) => slot(s)));
  return results;
}

const nodeBase = (port, dir) => [
  ["regtest"],
  ["offline"],
  ["fixed-difficulty", "1"],
  ["data-dir", dir],
  ["rpc-bind-port", String(port)],
  ["log-file", join(dir, "node.log")],
  ["rpc-ssl", "disabled"],
  // the ZMQ RPC would take 18082 in every run (the zmq cases put it back on their own port)
  ["no-zmq"],
  ["non-interactive"],
];
const walletBase = (port, dir) => [
  ["wallet-dir", join(dir, "wallets")],
  ["rpc-bind-port", String(port)],
  ["disable-rpc-login"],
  ["offline"],
  ["rpc-ssl", "disabled"],
];

/** A wallet file for the flags that open one (--wallet-file, --password…): created through the RPC. */
async function makeWallet() {
  const port = 29789;
  await run("tsmonero-wallet-rpc", ["--wallet-dir", join(work, "wallets"), "--rpc-bind-port", String(port), "--disable-rpc-login", "--offline", "--rpc-ssl", "disabled"], "Starting wallet RPC server", async () => {
    const r = await rpc(port, "create_wallet", { filename: "w", password: "", language: "English" });
    if (r?.error) throw new Error(r.error.message);
    await rpc(port, "close_wallet");
  });
}

const all = [
  ...(await checkCommand("monerod", opt("monerod", "monerod"), "tsmonerod", "\ntsmonerod: RPC listening on", nodeBase, nodeCase)),
  ...(await checkCommand("monero-wallet-rpc", opt("wallet-rpc", "monero-wallet-rpc"), "tsmonero-wallet-rpc", "Starting wallet RPC server", walletBase, walletCase, makeWallet)),
];
const count = (k) => all.filter((r) => r.kind === k).length;
console.log(`\n${all.length} flags: ${count("accepted")} accepted, ${count("inactive")} accepted and logged as inactive, ${count("refused")} refused with a reason, ${count("accepted, value refused")} accepted with the sample value refused, ${count("UNKNOWN")} unknown, ${count("EFFECT-FAILED")} with a failed effect check`);
process.exitCode = count("UNKNOWN") > 0 || count("EFFECT-FAILED") > 0 ? 1 : 0;
