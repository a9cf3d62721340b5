#!/usr/bin/env node
/**
 * Soak test (issue 14): starts tsmonerod (regtest, offline) and tsmonero-wallet-rpc (on that node)
 * on free ports of 127.0.0.1, then runs 64 concurrent clients against both for a while: most send
 * well-formed reads, some send hostile requests (bad JSON, 1e400, bodies over the limit, endless
 * chunked trailers, exotic Transfer-Encodings, LF-only heads, slow heads, pipelining without
 * reading). Writes run all along: a block mined every 2 s and a wallet `transfer` (relayed, to the
 * wallet's own subaddress) every `--transfer-every` seconds. Every `--every` seconds it prints, per
 * service, well-formed requests, errors among them, p50/p99 latency of well-formed reads and the
 * service's RSS. Exit code 1 when a well-formed request failed.
 *
 *   node scripts/soak.mjs                 # 10 minutes
 *   node scripts/soak.mjs --seconds 30    # a quick run
 *   node scripts/soak.mjs --clients 64 --hostile 16 --every 10
 *
 * Only 127.0.0.1; nothing is left behind (data in a temporary directory, processes stopped).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`soak: --${name} needs a positive number (got ${args[i + 1]})`);
    process.exit(2);
  }
  return v;
};
if (args.includes("--help")) {
  console.log("usage: node scripts/soak.mjs [--seconds 600] [--clients 64] [--hostile 16] [--every 10] [--transfer-every 2]");
  process.exit(0);
}
const SECONDS = opt("seconds", 600);
const CLIENTS = opt("clients", 64);
const HOSTILE = Math.min(opt("hostile", 16), CLIENTS - 2);
const EVERY = opt("every", 10);
const TRANSFER_EVERY = opt("transfer-every", 2);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startProc(bin, argv, ready) {
  const p = spawn(process.execPath, [join(ROOT, "bin", bin), ...argv], { cwd: dataDir, stdio: ["ignore", "pipe", "pipe"] });
  const out = [];
  p.stdout.on("data", (b) => out.push(b.toString()));
  p.stderr.on("data", (b) => out.push(b.toString()));
  const deadline = Date.now() + 60_000;
  while (!out.join("").includes(ready)) {
    if (p.exitCode !== null || Date.now() > deadline) throw new Error(`${bin} did not start:\n${out.join("")}`);
    await sleep(50);
  }
  return p;
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "tsmonero-soak-"));
const nodePort = await freePort();
const walletPort = await freePort();
const p2pPort = await freePort();
let node;
let wallet;
const cleanup = () => {
  node?.kill("SIGKILL");
  wallet?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("SIGINT", () => {
  cleanup();
  process.exit(130);
});

async function rpc(port, method, params = {}, timeoutMs = 10_000) {
  const res = await fetch(`http://${HOST}:${port}/json_rpc`, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status}`);
  const j = await res.json();
  if (j.error) throw new Error(`${method}: ${j.error.code} ${j.error.message}`);
  return j.result;
}

/** Sends raw bytes, waits for the close or `ms`; hostile requests only need to not hurt others. */
function raw(port, data, ms = 2000, { read = true } = {}) {
  return new Promise((resolve) => {
    const s = connect(port, HOST);
    const done = () => {
      s.destroy();
      resolve();
    };
    s.on("error", done);
    s.on("close", done);
    if (!read) s.pause();
    else s.on("data", () => undefined);
    s.on("connect", () => {
      for (const d of Array.isArray(data) ? data : [data]) s.write(d);
    });
    setTimeout(done, ms);
  });
}

const post = (b, extra = "") => `POST /json_rpc HTTP/1.1\r\nHost: x\r\n${extra}Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;
const HOSTILE_KINDS = [
  (port) => raw(port, post("{not json")),
  (port) => raw(port, post('{"jsonrpc":"2.0","id":1e400,"method":"get_version"}')),
  (port) => raw(port, post('{"jsonrpc":"2.0","id":0,"method":"get_version","params":{"x":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}')),
  (port) => raw(port, `POST /json_rpc HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n`),
  (port) => raw(port, ["POST /json_rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n", ...Array.from({ length: 40 }, () => `X-T: ${"t".repeat(1000)}\r\n`)]),
  (port) => raw(port, "POST /json_rpc HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
  (port) => raw(port, 'POST /json_rpc HTTP/1.1\nContent-Length: 2\n\n{}'),
  (port) => raw(port, "POST /json_rpc HTTP/1.1\r\nContent-Le", 3000),
  (port) => raw(port, "GARBAGE\r\n\r\n"),
  (port) => raw(port, Array.from({ length: 300 }, () => post('{"jsonrpc":"2.0","id":0,"method":"get_version"}')).join(""), 1500, { read: false }),
];

const stats = new Map();
const statFor = (svc) => {
  let s = stats.get(svc);
  if (!s) stats.set(svc, (s = { ok: 0, errors: 0, lat: [], all: [], lastError: "" }));
  return s;
};

async function wellFormed(svc, port, method, params) {
  const s = statFor(svc);
  const t0 = performance.now();
  try {
    await rpc(port, method, params);
    s.ok++;
    const ms = performance.now() - t0;
    s.lat.push(ms);
    s.all.push(ms);
  } catch (e) {
    s.errors++;
    s.lastError = `${method}: ${e instanceof Error ? e.message : String(e)}`;
  }
}

const pct = (xs, p) => {
  if (xs.length === 0) return NaN;
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.floor((p / 100) * a.length))];
};

try {
  node = await startProc("tsmonerod", ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", join(dataDir, "node"), "--rpc-bind-ip", HOST, "--rpc-bind-port", String(nodePort), "--p2p-bind-port", String(p2pPort), "--no-igd", "--non-interactive", "--log-file", ""], "RPC listening on");
  wallet = await startProc("tsmonero-wallet-rpc", ["--daemon-address", `${HOST}:${nodePort}`, "--wallet-dir", join(dataDir, "wallets"), "--rpc-bind-ip", HOST, "--rpc-bind-port", String(walletPort), "--disable-rpc-login"], "Starting wallet RPC server");
  await rpc(walletPort, "create_wallet", { filename: "soak", password: "", language: "English" });
  const { address } = await rpc(walletPort, "get_address", { account_index: 0 });
  const { address: sub } = await rpc(walletPort, "create_address", { account_index: 0, label: "soak" });
  // 200 coinbase outputs, 140 of them unlocked at the start: transfers never wait for funds
  await rpc(nodePort, "generateblocks", { amount_of_blocks: 200, wallet_address: address }, 120_000);
  await rpc(walletPort, "refresh", {}, 120_000);
  await rpc(walletPort, "auto_refresh", { enable: true, period: 2 });
  console.log(`soak: tsmonerod pid ${node.pid} on ${nodePort}, tsmonero-wallet-rpc pid ${wallet.pid} on ${walletPort}; ${CLIENTS} clients (${HOSTILE} hostile) for ${SECONDS} s`);

  const end = Date.now() + SECONDS * 1000;
  const warm = Date.now() + Math.min(30, SECONDS / 4) * 1000;
  const rssAfterWarmup = { node: NaN, wallet: NaN };
  const rssMax = { node: 0, wallet: 0 };
  const reads = [
    () => wellFormed("node", nodePort, "get_block_count"),
    () => wellFormed("node", nodePort, "get_info"),
    () => wellFormed("node", nodePort, "get_last_block_header"),
    () => wellFormed("node", nodePort, "get_block_header_by_height", { height: 1 + Math.floor(Math.random() * 70) }),
    () => wellFormed("wallet", walletPort, "get_balance"),
    () => wellFormed("wallet", walletPort, "get_address", { account_index: 0 }),
    () => wellFormed("wallet", walletPort, "get_height"),
    () => wellFormed("wallet", walletPort, "get_version"),
  ];
  let hostileSent = 0;
  const client = async (k) => {
    while (Date.now() < end) {
      if (k < HOSTILE) {
        const port = k % 2 === 0 ? nodePort : walletPort;
        await HOSTILE_KINDS[Math.floor(Math.random() * HOSTILE_KINDS.length)](port);
        hostileSent++;
      } else {
        await reads[Math.floor(Math.random() * reads.length)]();
        await sleep(5);
      }
    }
  };
  // writes: a block every 2 s, a relayed transfer every TRANSFER_EVERY s
  const writer = async () => {
    while (Date.now() < end) {
      await sleep(2000);
      await wellFormed("write", nodePort, "generateblocks", { amount_of_blocks: 1, wallet_address: address });
    }
  };
  const sender = async () => {
    while (Date.now() < end) {
      await sleep(TRANSFER_EVERY * 1000);
      const amount = 1_000_000 + Math.floor(Math.random() * 1_000_000_000);
      await wellFormed("transfer", walletPort, "transfer", { destinations: [{ address: sub, amount }] });
    }
  };
  const t0 = Date.now();
  let lastCount = { node: 0, wallet: 0 };
  const reporter = setInterval(() => {
    const line = [`t=${Math.round((Date.now() - t0) / 1000)}s hostile=${hostileSent}`];
    for (const [svc, pid] of [["node", node.pid], ["wallet", wallet.pid]]) {
      const s = statFor(svc);
      const rss = rssMiB(pid);
      rssMax[svc] = Math.max(rssMax[svc], rss);
      if (Number.isNaN(rssAfterWarmup[svc]) && Date.now() >= warm) rssAfterWarmup[svc] = rss;
      const n = s.ok + s.errors;
      line.push(`${svc}: ${n - lastCount[svc]} req, ${s.errors} errors, p50 ${pct(s.lat, 50).toFixed(1)} ms, p99 ${pct(s.lat, 99).toFixed(1)} ms, RSS ${rss.toFixed(0)} MiB`);
      lastCount[svc] = n;
      s.lat = [];
    }
    console.log(line.join(" | "));
  }, EVERY * 1000);
  await Promise.all([...Array.from({ length: CLIENTS }, (_, k) => client(k)), writer(), sender()]);
  clearInterval(reporter);
  let failed = false;
  for (const [svc, pid] of [["node", node.pid], ["wallet", wallet.pid]]) {
    const s = statFor(svc);
    const rss = rssMiB(pid);
    const growth = (rss / rssAfterWarmup[svc] - 1) * 100;
    console.log(`soak: ${svc}: ${s.ok} well-formed reads ok, ${s.errors} errors, p50 ${pct(s.all, 50).toFixed(1)} ms, p99 ${pct(s.all, 99).toFixed(1)} ms${s.errors ? ` (last: ${s.lastError})` : ""}; RSS after warm-up ${rssAfterWarmup[svc].toFixed(0)} MiB, at end ${rss.toFixed(0)} MiB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)}%), max ${rssMax[svc].toFixed(0)} MiB`);
    if (s.errors > 0) failed = true;
  }
  const w = statFor("write");
  console.log(`soak: writes (generateblocks 1): ${w.ok} ok, ${w.errors} errors${w.errors ? ` (last: ${w.lastError})` : ""}`);
  if (w.errors > 0) failed = true;
  const tr = statFor("transfer");
  console.log(`soak: transfers (relayed): ${tr.ok} ok, ${tr.errors} errors, p50 ${pct(tr.all, 50).toFixed(1)} ms, p99 ${pct(tr.all, 99).toFixed(1)} ms${tr.errors ? ` (last: ${tr.lastError})` : ""}`);
  if (tr.errors > 0) failed = true;
  // every transfer is in the wallet's history, none was refused by the node for a reused key image
  if (tr.ok > 0) {
    await rpc(nodePort, "generateblocks", { amount_of_blocks: 1, wallet_address: address });
    await rpc(walletPort, "refresh", {}, 120_000);
    const t = await rpc(walletPort, "get_transfers", { out: true, pending: true, failed: true, pool: true });
    const failedTx = (t.failed ?? []).length;
    const out = (t.out ?? []).length + (t.pending ?? []).length + (t.pool ?? []).length;
    console.log(`soak: wallet history: ${out} outgoing (confirmed, pool or pending), ${failedTx} failed`);
    if (out < tr.ok || failedTx > 0) failed = true;
  }
  console.log(`soak: ${hostileSent} hostile requests sent`);
  cleanup();
  process.exit(failed ? 1 : 0);
} catch (e) {
  console.error(`soak: ${e instanceof Error ? e.message : String(e)}`);
  cleanup();
  process.exit(1);
}
