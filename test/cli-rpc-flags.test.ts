/**
 * The RPC flags of issue 13 on a real regtest tsmonerod (ports 29740-29749): CORS and preflights as
 * epee answers them (--rpc-access-control-origins), the per-IP connection limits, RPC bans after
 * failed chain requests and --disable-rpc-ban, IPv6 listening, and --start-mining.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { encodeEpee } from "../src/codec/epee-map.js";
import { type DaemonOptions, startDaemon } from "../src/node/daemon.js";
import { getHashesRequest } from "../src/node/rpc/bin.js";
import { connectionLimitFor } from "../src/rpc/http.js";

const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const daemonAt = (port: number, extra: Partial<DaemonOptions> = {}) => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-rpcflags-"));
  dirs.push(d);
  return startDaemon({ network: "regtest", dataDir: d, fixedDifficulty: 1n, offline: true, rpcBindPort: port, logToConsole: false, ...extra });
};

/** One raw exchange; resolves with what came back before the server closed ("" when it closed at once). */
function raw(port: number, text: string, host = "127.0.0.1"): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, host, () => s.write(text, "latin1"));
    let out = "";
    s.on("data", (d) => (out += d.toString("latin1")));
    s.on("close", () => resolve(out));
    s.on("error", () => resolve(out));
    setTimeout(() => s.destroy(), 3000);
  });
}

test("--rpc-access-control-origins: epee's CORS headers for allowed origins, preflights answered 200 OK before auth", async () => {
  const d = await daemonAt(29740, { rpcAccessControlOrigins: ["http://a.example", "http://b.example"], rpcLogin: "u:p" });
  try {
    const pre = await raw(29740, "OPTIONS /json_rpc HTTP/1.1\r\nHost: x\r\nOrigin: http://b.example\r\nConnection: close\r\n\r\n");
    assert.match(pre, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(pre, /\r\nAccess-Control-Allow-Origin: http:\/\/b\.example\r\nAccess-Control-Expose-Headers: www-authenticate\r\nAccess-Control-Allow-Headers: Content-Type, Authorization, X-Requested-With\r\nAccess-Control-Allow-Methods: POST, PUT, GET, OPTIONS\r\n\r\n$/);
    // a real request without credentials: 401, with the CORS headers so the browser can read the challenge
    const unauth = await raw(29740, "POST /get_height HTTP/1.1\r\nHost: x\r\nOrigin: http://a.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert.match(unauth, /^HTTP\/1\.1 401 Unauthorized/);
    assert.match(unauth, /Access-Control-Allow-Origin: http:\/\/a\.example\r\n/);
    assert.doesNotMatch(unauth, /Access-Control-Allow-Headers/, "only preflights get Allow-Headers");
    const other = await raw(29740, "OPTIONS /json_rpc HTTP/1.1\r\nHost: x\r\nOrigin: http://c.example\r\nConnection: close\r\n\r\n");
    assert.match(other, /^HTTP\/1\.1 200 OK/);
    assert.doesNotMatch(other, /Access-Control/);
  } finally {
    await d.stop();
  }
});

test("per-IP limits: loopback and private addresses get the private limit, others the public one", async () => {
  assert.equal(connectionLimitFor("127.0.0.1", 25, 3), 25);
  assert.equal(connectionLimitFor("192.168.1.7", 25, 3), 25);
  assert.equal(connectionLimitFor("::ffff:10.0.0.1", 25, 3), 25);
  assert.equal(connectionLimitFor("8.8.8.8", 25, 3), 3);
  assert.equal(connectionLimitFor("2001:db8::1", 25, 3), 3);
  const d = await daemonAt(29741, { rpcMaxConnectionsPerIp: 2, rpcMaxConnectionsPerPublicIp: 1 });
  try {
    const open = await Promise.all([0, 1].map(() => new Promise<ReturnType<typeof connect>>((res) => { const s = connect(29741, "127.0.0.1", () => res(s)); })));
    await new Promise((r) => setTimeout(r, 100));
    // the third from 127.0.0.1 is closed at once, unanswered
    assert.equal(await raw(29741, "GET /get_height HTTP/1.1\r\nHost: x\r\n\r\n"), "");
    for (const s of open) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    assert.match(await raw(29741, "GET /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), /"height": 1/);
  } finally {
    await d.stop();
  }
});

const badHashes = (): string => {
  const body = Buffer.from(encodeEpee(getHashesRequest, { client: "", block_ids: [new Uint8Array(32).fill(7)], start_height: 0n }));
  return `POST /get_hashes.bin HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.toString("latin1")}`;
};

test("RPC bans: a fourth failed chain request bans the host (monerod's add_host_fail), unless --disable-rpc-ban", async () => {
  const d = await daemonAt(29742);
  try {
    for (let i = 0; i < 4; i++) assert.match(await raw(29742, badHashes()), /^HTTP\/1\.1 200 Ok/);
    assert.equal(await raw(29742, "GET /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), "", "127.0.0.1 is banned: connections are closed at once");
    assert.equal(d.state.activeBans(Math.floor(Date.now() / 1000))[0]?.host, "127.0.0.1");
  } finally {
    await d.stop();
  }
  const free = await daemonAt(29743, { disableRpcBan: true });
  try {
    for (let i = 0; i < 6; i++) await raw(29743, badHashes());
    assert.match(await raw(29743, "GET /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), /"height": 1/);
  } finally {
    await free.stop();
  }
});

test("--rpc-use-ipv6 serves ::1 beside 127.0.0.1 on the same port", async () => {
  const d = await daemonAt(29744, { rpcUseIpv6: true });
  try {
    assert.match(await raw(29744, "GET /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "::1"), /"height": 1/);
    assert.match(await raw(29744, "GET /get_height HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), /"height": 1/);
  } finally {
    await d.stop();
  }
});

test("--start-mining mines from the start", async () => {
  const d = await daemonAt(29745, { startMining: { address: ALICE, threads: 1 } });
  try {
    assert.equal(d.core.minerStatus().active, true);
    const end = Date.now() + 60_000;
    while (d.core.store.height() < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    assert.ok(d.core.store.height() >= 3, `mined ${d.core.store.height() - 1} blocks`);
  } finally {
    await d.stop();
  }
});
