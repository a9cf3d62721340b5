#!/usr/bin/env node
// Records how a real monerod (Debian's `monero` package) answers JSON-RPC envelope edge cases and
// plain-path errors, as the reference for test/rpc-envelope.test.ts (test/fixtures/rpc/monerod-envelope.json).
// Run: node scripts/record-rpc-fixtures.mjs [outFile]
//
// It starts `monerod --regtest --offline --fixed-difficulty 1` on ports 28490/28491 in a temporary
// directory (once plain, once with --restricted-rpc on 28492/28493), sends each case below with
// node:http and records the HTTP status, content type and body; then stops monerod and removes the
// directory. Only the envelope matters: results come from a fresh regtest chain (height 1).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outFile = process.argv[2] ?? join(root, "test", "fixtures", "rpc", "monerod-envelope.json");

/** [name, http method, path, body, restricted server?] */
const CASES = [
  ["ok string id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":"0","method":"get_block_count"}'],
  ["ok alias", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":"0","method":"getblockcount"}'],
  ["ok numeric id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":7,"method":"get_block_count"}'],
  ["ok array id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":[1,2],"method":"get_block_count"}'],
  ["ok object id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":{"a":1},"method":"get_block_count"}'],
  ["ok u64 max id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":18446744073709551615,"method":"get_block_count"}'],
  ["no id", "POST", "/json_rpc", '{"jsonrpc":"2.0","method":"get_block_count"}'],
  ["null id", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":null,"method":"get_block_count"}'],
  ["no jsonrpc member", "POST", "/json_rpc", '{"id":1,"method":"get_block_count"}'],
  ["jsonrpc 1.0", "POST", "/json_rpc", '{"jsonrpc":"1.0","id":1,"method":"get_block_count"}'],
  ["GET json_rpc", "GET", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_count"}'],
  ["unknown method", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":7,"method":"nope"}'],
  ["method not a string", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":7,"method":12}'],
  ["no method", "POST", "/json_rpc", '{"id":1}'],
  ["malformed", "POST", "/json_rpc", "{bad"],
  ["empty body", "POST", "/json_rpc", ""],
  ["batch", "POST", "/json_rpc", '[{"jsonrpc":"2.0","id":1,"method":"get_block_count"}]'],
  ["string root", "POST", "/json_rpc", '"get_block_count"'],
  ["params wrong type", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":[1,2],"method":"get_block_header_by_height","params":{"height":"x"}}'],
  ["params negative u64", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":{"height":-1}}'],
  ["params fraction", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":{"height":1.5}}'],
  ["params u64 overflow", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":{"height":18446744073709551616}}'],
  ["params numeric string", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":{"height":"0"}}'],
  ["params array for object", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":[0]}'],
  ["params absent", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height"}'],
  ["handler error", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_header_by_height","params":{"height":99999}}'],
  ["plain GET", "GET", "/get_height", ""],
  ["plain alias", "POST", "/getheight", ""],
  ["plain malformed", "POST", "/get_height", "{bad"],
  ["unknown path", "POST", "/nothing", ""],
  ["restricted method hidden", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"generateblocks","params":{}}', true],
  ["restricted path hidden", "POST", "/stop_daemon", "{}", true],
  ["restricted server still answers", "POST", "/json_rpc", '{"jsonrpc":"2.0","id":1,"method":"get_block_count"}', true],
];

const tmp = mkdtempSync(join(tmpdir(), "tsmonero-record-rpc-"));
const children = [];

function startMonerod(rpc, p2p, extra) {
  const dir = join(tmp, String(rpc));
  mkdirSync(dir);
  const args = ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpc), "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2p), "--no-zmq", "--non-interactive", "--log-level", "0", ...extra];
  const p = spawn("/usr/bin/monerod", args, { stdio: "ignore" });
  children.push(p);
  return rpc;
}

function send(port, method, path, body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent: false, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, contentType: res.headers["content-type"] ?? "", body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function waitReady(port) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const r = await send(port, "GET", "/get_height", "");
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`monerod on ${port} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

try {
  const plain = startMonerod(28490, 28491, []);
  const restricted = startMonerod(28492, 28493, ["--restricted-rpc"]);
  await Promise.all([waitReady(plain), waitReady(restricted)]);
  const version = JSON.parse((await send(plain, "POST", "/json_rpc", '{"id":0,"method":"get_info"}')).body).result.version;
  const cases = [];
  for (const [name, method, path, body, onRestricted] of CASES) {
    const answer = await send(onRestricted ? restricted : plain, method, path, body);
    cases.push({ name, method, path, request: body, restricted: onRestricted === true, status: answer.status, contentType: answer.contentType, response: answer.body });
  }
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify({ monerod: version, recorded: new Date().toISOString().slice(0, 10), cases }, null, 1) + "\n");
  console.log(`wrote ${cases.length} cases from monerod ${version} to ${outFile}`);
} finally {
  for (const p of children) p.kill("SIGTERM");
  await Promise.all(children.map((p) => (p.exitCode === null ? new Promise((r) => p.once("exit", r)) : undefined)));
  rmSync(tmp, { recursive: true, force: true });
}
