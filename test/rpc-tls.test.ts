/**
 * TLS on the RPC servers and in the node client, as epee does it (src/rpc/tls.ts): autodetect
 * serves TLS and plain HTTP on one port, `enabled` refuses plain HTTP, `disabled` refuses TLS at
 * once, a server pinned to a client certificate's SHA-256 takes that client and drops others,
 * certificates from files are served as given, and NodeClient falls back from TLS to plain HTTP
 * in autodetect mode as wallet2 does; tsmonero-wallet-rpc serves --rpc-ssl and applies
 * set_daemon's ssl params against a TLS-only tsmonerod. Also checked with curl when it is installed.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { generate } from "selfsigned";
import { NoDaemonConnectionError, NodeClient } from "../src/client/node-client.js";
import { startDaemon } from "../src/node/daemon.js";
import { startWalletRpc } from "../src/wallet/rpc/index.js";
import { WalletService } from "../src/wallet/service/index.js";
import { MethodTable, object, RpcServer } from "../src/rpc/index.js";
import { parseFingerprint, ServerTls, SSL_AUTODETECT, SSL_DISABLED, SslConfigError, type SslOptions, sslOptionsFromFlags, sslOptionsFromSetDaemon } from "../src/rpc/tls.js";

interface Pem {
  key: string;
  cert: string;
  /** SHA-256, lower-case hex. */
  fp: string;
}

async function makeCert(cn: string): Promise<Pem> {
  const r = await generate([{ name: "commonName", value: cn }], { keyType: "ec", curve: "P-256", algorithm: "sha256" });
  return { key: r.private, cert: r.cert, fp: new X509Certificate(r.cert).fingerprint256.replace(/:/g, "").toLowerCase() };
}

const methods = (): MethodTable =>
  new MethodTable().addJsonPath({ path: "/get_height", params: object({}), handler: () => ({ height: 7n, status: "OK", untrusted: false }) });

const servers: RpcServer[] = [];
const logged: string[] = [];
async function serve(o: SslOptions): Promise<{ port: number; tls: ServerTls }> {
  const tls = ServerTls.create(o, { log: (m) => logged.push(m), handshakeTimeoutMs: 5000 });
  const s = new RpcServer({ methods: methods(), tls, log: (m) => logged.push(m) });
  servers.push(s);
  const { port } = await s.listen(0);
  return { port, tls };
}

interface Got {
  status: number;
  body: string;
  /** The server certificate's SHA-256 (TLS only). */
  serverFp?: string;
}

function get(scheme: "http" | "https", port: number, client?: Pem): Promise<Got> {
  return new Promise((resolve, reject) => {
    const send = scheme === "https" ? httpsRequest : httpRequest;
    const tlsOpts = scheme === "https" ? { rejectUnauthorized: false, ...(client ? { key: client.key, cert: client.cert } : {}) } : {};
    const req = send({ host: "127.0.0.1", port, path: "/get_height", method: "POST", agent: false, timeout: 10_000, ...tlsOpts }, (res) => {
      const chunks: Buffer[] = [];
      const sock = res.socket as { getPeerCertificate?: () => { fingerprint256?: string } };
      const serverFp = sock.getPeerCertificate?.().fingerprint256?.replace(/:/g, "").toLowerCase();
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), ...(serverFp ? { serverFp } : {}) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end("{}");
  });
}

let dir = "";
let alice: Pem;
let mallory: Pem;
let serverPem: Pem;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tsmonero-tls-"));
  [alice, mallory, serverPem] = await Promise.all([makeCert("alice"), makeCert("mallory"), makeCert("node")]);
  writeFileSync(join(dir, "server.key"), serverPem.key);
  writeFileSync(join(dir, "server.crt"), serverPem.cert);
  writeFileSync(join(dir, "alice.crt"), alice.cert);
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("flags as epee reads them", () => {
  test("modes, fingerprints and the CA file", () => {
    assert.deepEqual(sslOptionsFromFlags({ prefix: "rpc-ssl" }), { ...SSL_AUTODETECT });
    assert.equal(sslOptionsFromFlags({ prefix: "rpc-ssl", support: "disabled" }).verification, "none");
    // fingerprints or a CA file force TLS on for a server, whatever --rpc-ssl says (rpc_args::do_process_ssl)
    const pinned = sslOptionsFromFlags({ prefix: "rpc-ssl", support: "disabled", allowedFingerprints: [alice.fp.toUpperCase().replace(/(..)(?!$)/g, "$1:")] });
    assert.deepEqual([pinned.support, pinned.verification, pinned.fingerprints], ["enabled", "user_certificates", [alice.fp]]);
    assert.equal(sslOptionsFromFlags({ prefix: "rpc-ssl", caCertificates: "/x", allowChained: true }).verification, "user_ca");
    assert.equal(sslOptionsFromFlags({ prefix: "rpc-ssl", allowAnyCert: true, caCertificates: "/x" }).verification, "none");
    // the wallet side: an explicit --daemon-ssl wins over the implied enabled
    assert.equal(sslOptionsFromFlags({ prefix: "daemon-ssl", allowedFingerprints: [alice.fp] }).support, "enabled");
    assert.equal(sslOptionsFromFlags({ prefix: "daemon-ssl", allowedFingerprints: [alice.fp], support: "autodetect" }).support, "autodetect");
    assert.throws(() => sslOptionsFromFlags({ prefix: "rpc-ssl", support: "on" }), /--rpc-ssl needs one of enabled\|disabled\|autodetect \(got 'on'\)/);
    assert.throws(() => parseFingerprint("abcd", "--rpc-ssl-allowed-fingerprints"), /should be 32 bytes long \(got 2/);
    assert.throws(() => parseFingerprint("zz", "--rpc-ssl-allowed-fingerprints"), /not hexadecimal/);
    assert.throws(() => sslOptionsFromFlags({ prefix: "rpc-ssl", certificate: "/x.crt" }), /must be given together/);
    assert.throws(() => ServerTls.create({ ...SSL_AUTODETECT, certificatePath: join(dir, "none.crt"), privateKeyPath: join(dir, "none.key") }), SslConfigError);
  });

  test("set_daemon's ssl params: monero-wallet-rpc's messages", () => {
    const p = { ssl_support: "enabled", ssl_private_key_path: "", ssl_certificate_path: "", ssl_ca_file: "", ssl_allowed_fingerprints: [], ssl_allow_any_cert: false };
    assert.throws(() => sslOptionsFromSetDaemon(p), /SSL is enabled but no user certificate or fingerprints were provided/);
    assert.throws(() => sslOptionsFromSetDaemon({ ...p, ssl_support: "maybe" }), /Invalid ssl support mode/);
    assert.equal(sslOptionsFromSetDaemon({ ...p, ssl_allow_any_cert: true }).verification, "none");
    assert.deepEqual(sslOptionsFromSetDaemon({ ...p, ssl_allowed_fingerprints: [alice.fp] }).fingerprints, [alice.fp]);
  });
});

describe("servers", () => {
  test("autodetect: TLS and plain HTTP on one port, a self-signed certificate generated", async () => {
    const { port, tls } = await serve(SSL_AUTODETECT);
    const plain = await get("http", port);
    const secure = await get("https", port);
    assert.equal(plain.status, 200);
    assert.equal(secure.status, 200);
    assert.equal(secure.body, plain.body);
    assert.match(secure.body, /"height": 7/);
    const pem = await tls.certificate();
    assert.ok(pem);
    const x = new X509Certificate(pem);
    assert.equal(secure.serverFp, x.fingerprint256.replace(/:/g, "").toLowerCase());
    assert.ok(x.issuer === x.subject && x.verify(x.publicKey), "self-signed");
    // half a year, as epee's create_rsa_ssl_certificate
    const days = (Date.parse(x.validTo) - Date.parse(x.validFrom)) / 86_400_000;
    assert.ok(days > 180 && days < 184, `valid ${days} days`);
  });

  test("enabled refuses plain HTTP; disabled refuses TLS at once", async () => {
    const on = await serve({ ...SSL_AUTODETECT, support: "enabled" });
    assert.equal((await get("https", on.port)).status, 200);
    await assert.rejects(get("http", on.port), /socket hang up|ECONNRESET|parse error|HPE_/i);
    const off = await serve(SSL_DISABLED);
    assert.equal((await get("http", off.port)).status, 200);
    const t0 = Date.now();
    await assert.rejects(get("https", off.port), /socket disconnected|ECONNRESET|socket hang up/i);
    assert.ok(Date.now() - t0 < 2000, `refused in ${Date.now() - t0} ms`);
  });

  test("pinned to a client fingerprint: that client is taken, another refused, none refused", async () => {
    const { port } = await serve(sslOptionsFromFlags({ prefix: "rpc-ssl", support: "enabled", allowedFingerprints: [alice.fp] }));
    const ok = await get("https", port, alice);
    assert.equal(ok.status, 200);
    await assert.rejects(get("https", port, mallory), /socket hang up|ECONNRESET|disconnected/i);
    await assert.rejects(get("https", port), /socket hang up|ECONNRESET|disconnected/i);
    assert.ok(logged.some((l) => l.includes(`certificate ${mallory.fp.toUpperCase().replace(/(..)(?!$)/g, "$1:")} is not in the allowed list`)), logged.join("\n"));
  });

  test("a client certificate in the CA file is taken; --rpc-ssl-certificate/--rpc-ssl-private-key are served", async () => {
    const o = sslOptionsFromFlags({ prefix: "rpc-ssl", caCertificates: join(dir, "alice.crt"), certificate: join(dir, "server.crt"), privateKey: join(dir, "server.key") });
    const { port } = await serve(o);
    const ok = await get("https", port, alice);
    assert.equal(ok.status, 200);
    assert.equal(ok.serverFp, serverPem.fp);
    await assert.rejects(get("https", port, mallory), /socket hang up|ECONNRESET|disconnected/i);
  });

  test("curl --insecure https:// and curl http:// on one autodetect port", async (t) => {
    const { port } = await serve(SSL_AUTODETECT);
    const curl = promisify(execFile);
    let out: { stdout: string }[];
    try {
      out = await Promise.all([
        curl("curl", ["-s", "--insecure", "-X", "POST", `https://127.0.0.1:${port}/get_height`, "-d", "{}"]),
        curl("curl", ["-s", "-X", "POST", `http://127.0.0.1:${port}/get_height`, "-d", "{}"]),
      ]);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return t.skip("curl is not installed");
      throw e;
    }
    for (const o of out) assert.match(o.stdout, /"height": 7/);
  });
});

// raw on purpose: these test the transport underneath the typed clients (NodeClient's TLS, its
// `secure`, fallback and pinning) against a bare RpcServer with its own one-method table
describe("NodeClient", () => {
  test("autodetect speaks TLS to a TLS node, falls back to plain HTTP on a plain one", async () => {
    const auto = await serve(SSL_AUTODETECT);
    const a = new NodeClient({ url: `http://127.0.0.1:${auto.port}`, ssl: SSL_AUTODETECT });
    assert.deepEqual(await a.json("/get_height"), { height: 7, status: "OK", untrusted: false });
    assert.equal(a.secure, true);
    a.close();
    const off = await serve(SSL_DISABLED);
    const b = new NodeClient({ url: `http://127.0.0.1:${off.port}`, ssl: SSL_AUTODETECT });
    const t0 = Date.now();
    assert.deepEqual(await b.json("/get_height"), { height: 7, status: "OK", untrusted: false });
    assert.equal(b.secure, false);
    assert.ok(Date.now() - t0 < 2000, `fell back in ${Date.now() - t0} ms`);
    b.close();
  });

  test("many concurrent calls over new TLS connections (resumed sessions) all pass verification", async () => {
    // Node's agent resumes TLS sessions on new sockets; a resumed session shows no peer
    // certificate, which once made busy clients fail with "the peer sent no certificate"
    const o = sslOptionsFromFlags({ prefix: "rpc-ssl", support: "enabled", certificate: join(dir, "server.crt"), privateKey: join(dir, "server.key") });
    const { port } = await serve(o);
    const c = new NodeClient({ url: `http://127.0.0.1:${port}`, retries: 0, ssl: sslOptionsFromFlags({ prefix: "daemon-ssl", allowedFingerprints: [serverPem.fp] }) });
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(Array.from({ length: 24 }, () => c.json("/get_height")));
      for (const a of answers) assert.deepEqual(a, { height: 7, status: "OK", untrusted: false });
      c.close(); // the next round opens new sockets, which resume the cached session
    }
  });

  test("enabled with a pinned server fingerprint: the right node is used, another refused", async () => {
    const o = sslOptionsFromFlags({ prefix: "rpc-ssl", support: "enabled", certificate: join(dir, "server.crt"), privateKey: join(dir, "server.key") });
    const { port } = await serve(o);
    const good = new NodeClient({ url: `http://127.0.0.1:${port}`, retries: 0, ssl: sslOptionsFromFlags({ prefix: "daemon-ssl", allowedFingerprints: [serverPem.fp] }) });
    assert.deepEqual(await good.json("/get_height"), { height: 7, status: "OK", untrusted: false });
    assert.equal(good.secure, true);
    good.close();
    const bad = new NodeClient({ url: `http://127.0.0.1:${port}`, retries: 0, ssl: sslOptionsFromFlags({ prefix: "daemon-ssl", allowedFingerprints: [alice.fp] }) });
    await assert.rejects(bad.json("/get_height"), (e: unknown) => e instanceof NoDaemonConnectionError && /not in the allowed list/.test(e.message));
    bad.close();
    // enabled against a plain node: no fallback
    const off = await serve(SSL_DISABLED);
    const strict = new NodeClient({ url: `http://127.0.0.1:${off.port}`, retries: 0, ssl: sslOptionsFromFlags({ prefix: "daemon-ssl", support: "enabled", allowAnyCert: true }) });
    await assert.rejects(strict.json("/get_height"), NoDaemonConnectionError);
    strict.close();
  });
});

/** A JSON-RPC call over TLS (any server certificate). */
function jrpc(port: number, method: string, params: Record<string, unknown> = {}): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "0", method, params });
    const req = httpsRequest({ host: "127.0.0.1", port, path: "/json_rpc", method: "POST", agent: false, rejectUnauthorized: false, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as { result?: Record<string, unknown> }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("tsmonero-wallet-rpc: serves --rpc-ssl enabled; set_daemon's ssl params pin a TLS-only tsmonerod", async () => {
  const node = await startDaemon({
    network: "regtest", dataDir: join(dir, "node"), fixedDifficulty: 1n, offline: true, rpcBindPort: 0, logFile: "", logToConsole: false, verifyThreads: 1,
    rpcSsl: sslOptionsFromFlags({ prefix: "rpc-ssl", support: "enabled", certificate: join(dir, "server.crt"), privateKey: join(dir, "server.key") }),
  });
  const nodePort = Number(new URL(node.rpcUrl).port);
  mkdirSync(join(dir, "wallets"));
  const svc = new WalletService({ network: "mainnet", walletDir: join(dir, "wallets"), node: null, kdf: { log2N: 10, r: 8, p: 1 }, autoRefreshPeriod: 0, log: () => undefined });
  const rpc = await startWalletRpc({ service: svc, port: 0, tls: ServerTls.create({ ...SSL_AUTODETECT, support: "enabled" }) });
  const port = rpc.address.port;
  try {
    await assert.rejects(get("http", port), /socket hang up|ECONNRESET|HPE_/i);
    const created = await jrpc(port, "create_wallet", { filename: "w", password: "", language: "English" });
    assert.ok(created.result, JSON.stringify(created.error));
    const base = { address: `127.0.0.1:${nodePort}`, trusted: true };
    // pinned to the node's certificate: refresh goes through
    assert.deepEqual((await jrpc(port, "set_daemon", { ...base, ssl_support: "enabled", ssl_allowed_fingerprints: [serverPem.fp] })).result, {});
    const ok = await jrpc(port, "refresh");
    assert.equal(ok.error, undefined, JSON.stringify(ok.error));
    assert.equal((await jrpc(port, "get_height")).result?.height, 1);
    // pinned to another certificate, or plain HTTP to a TLS-only node: no connection to daemon
    for (const ssl of [{ ssl_support: "enabled", ssl_allowed_fingerprints: [alice.fp] }, { ssl_support: "disabled" }]) {
      assert.deepEqual((await jrpc(port, "set_daemon", { ...base, ...ssl })).result, {});
      assert.equal((await jrpc(port, "refresh")).error?.code, -38, JSON.stringify(ssl));
    }
    // the default (autodetect) finds TLS and takes any certificate, as wallet2
    assert.deepEqual((await jrpc(port, "set_daemon", base)).result, {});
    assert.equal((await jrpc(port, "refresh")).error, undefined);
    assert.equal((await jrpc(port, "set_daemon", { ...base, ssl_support: "enabled" })).error?.message, "SSL is enabled but no user certificate or fingerprints were provided");
  } finally {
    await svc.stop();
    await rpc.close();
    await node.stop();
  }
});
