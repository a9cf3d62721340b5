/**
 * Calling a wallet RPC (ours or monero-wallet-rpc) from tests, and starting either binary on a
 * daemon. `walletCall` / `walletRpc` go through the typed wallet client (walletClient: WalletApi's
 * checked params and typed results), as any caller of the package would; `call` / `rpc` are the raw
 * calls (fetch, any method name, any params: answers as plain objects) for what the map does not
 * hold: hostile inputs, unknown methods, deliberately wrong params. `hubCall` / `hubRpc` are the
 * typed calls of a hub's own endpoint (/wallets/json_rpc); a hub wallet's endpoint
 * (/wallets/NAME/json_rpc) is a wallet url for walletCall. All read 64-bit integers exactly.
 */
import assert from "node:assert/strict";
import { NodeRpcError } from "../../src/client/node-client.js";
import type { WireIn, WireOut } from "../../src/client/rpc-client.js";
import { isJsonObject, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../../src/rpc/json.js";
import { hubClient, type HubApi, type HubMethod, walletClient, type WalletApi, type WalletMethod } from "../../src/wallet/rpc/api.js";
import { type Daemon, startMonerod, startProcess } from "./monerod.js";

export type Obj = Record<string, JsonValue>;
export type Answer = { result?: Obj; error?: { code: number; message: string } };

/**
 * wallet2's bare "Failed to … from daemon" (no reason after it: ours always gives one). Seen in 2 of
 * about 30 runs of the proofs test, from a real monero-wallet-rpc talking to a real monerod: the
 * level-2 logs of both (TSMONERO_TEST_REAL_WALLET_LOG_DIR) show monerod destroying the wallet's
 * keep-alive connection right after answering it, and wallet2's next request on that socket
 * failing with "HTTP_CLIENT: Failed to SEND"; wallet2 does not retry, its next call reconnects.
 */
const REAL_WALLET_TRANSPORT_FAILURE = /^Failed to get [a-z ]+ from daemon$/;

/** One raw JSON-RPC call (any method, any params); the whole answer (result or error). A real wallet's transport failure (above) is retried once. */
export async function rpc(url: string, method: string, params: JsonWritable = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(`${url}/json_rpc`, { method: "POST", body: stringifyJson({ jsonrpc: "2.0", id: 1, method, params }) });
    const v = parseJson(await r.text()) as unknown as Answer;
    assert.ok(isJsonObject(v as unknown as JsonValue), `${method}: answer is not an object`);
    if (attempt === 0 && v.error?.code === -1 && REAL_WALLET_TRANSPORT_FAILURE.test(v.error.message)) continue;
    return v;
  }
}

/** One raw JSON-RPC call that must succeed; its result. */
export async function call(url: string, method: string, params: JsonWritable = {}): Promise<Obj> {
  const a = await rpc(url, method, params);
  if (a.error) throw new Error(`${url} ${method}: ${a.error.code} ${a.error.message}`);
  assert.ok(a.result);
  return a.result;
}

/** How long a typed call may take: what fetch allowed the raw calls (undici's 300 s), since a real wallet's refresh can be slow. */
export const CALL_TIMEOUT_MS = 300_000;

/** The params a wallet method takes, as a caller sends them. */
export type WalletParams<M extends WalletMethod> = WireIn<WalletApi[M]["params"]>;

/** What a wallet method answers, as a caller reads it. */
export type WalletResult<M extends WalletMethod> = WireOut<WalletApi[M]["result"]>;

/** The params a hub method (/wallets/json_rpc) takes, and what it answers. */
export type HubParams<M extends HubMethod> = WireIn<HubApi[M]["params"]>;
export type HubResult<M extends HubMethod> = WireOut<HubApi[M]["result"]>;

type Answered<R> = { result?: R; error?: { code: number; message: string } };

/**
 * One call through the client `make` gives for `url`, kept per url as fetch kept its connections:
 * calls reuse keep-alive connections (monerod, for one, refuses new connections from a host it has
 * just blocked, and the P2P tests read its RPC then over a connection opened before); idle ones do
 * not keep the process alive. A JSON-RPC error comes back as `error`, as `rpc` gives it.
 */
async function answered<C, R>(clients: Map<string, C>, make: (url: string) => C, url: string, f: (c: C) => Promise<R>): Promise<Answered<R>> {
  let c = clients.get(url);
  if (!c) clients.set(url, (c = make(url)));
  try {
    return { result: await f(c) };
  } catch (e) {
    if (e instanceof NodeRpcError) return { error: { code: e.code, message: e.rpcMessage } };
    throw e;
  }
}

const walletClients = new Map<string, ReturnType<typeof walletClient>>();
const hubClients = new Map<string, ReturnType<typeof hubClient>>();

/** One call through the wallet client of `url` (see `answered`). `params` default to {}, as the raw calls sent. The calls name canonical methods of the map. */
const typedCall = <R>(url: string, f: (c: ReturnType<typeof walletClient>) => Promise<R>): Promise<Answered<R>> =>
  answered(walletClients, (u) => walletClient({ url: u, timeoutMs: CALL_TIMEOUT_MS }), url, f);

/** One typed call to a hub's own endpoint (/wallets/json_rpc of the server at `url`); the whole answer (result or error). */
export function hubRpc<M extends HubMethod>(url: string, method: M, params?: HubParams<M>): Promise<Answered<HubResult<M>>> {
  return answered(hubClients, (u) => hubClient({ url: u, timeoutMs: CALL_TIMEOUT_MS }), url, (c) => c.call(method, params ?? ({} as HubParams<M>)));
}

/** One typed call to a hub's own endpoint that must succeed; its result (CallError on an error answer). */
export async function hubCall<M extends HubMethod>(url: string, method: M, params?: HubParams<M>): Promise<HubResult<M>> {
  const a = await hubRpc(url, method, params);
  if (a.error) throw new CallError(a.error.code, `${url}/wallets ${method}: ${a.error.code} ${a.error.message}`);
  assert.ok(a.result !== undefined);
  return a.result;
}

/** One typed wallet JSON-RPC call; the whole answer (result or error). A real wallet's transport failure (above) is retried once. */
export async function walletRpc<M extends WalletMethod>(url: string, method: M, params?: WalletParams<M>): Promise<{ result?: WalletResult<M>; error?: { code: number; message: string } }> {
  for (let attempt = 0; ; attempt++) {
    const a = await typedCall(url, (c) => c.call(method, params ?? ({} as WalletParams<M>)));
    if (attempt === 0 && a.error?.code === -1 && REAL_WALLET_TRANSPORT_FAILURE.test(a.error.message)) continue;
    return a;
  }
}

/** A typed call's error answer, thrown: its code, and the method and message in its text. */
export class CallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One typed wallet JSON-RPC call that must succeed; its result (CallError on an error answer). */
export async function walletCall<M extends WalletMethod>(url: string, method: M, params?: WalletParams<M>): Promise<WalletResult<M>> {
  const a = await walletRpc(url, method, params);
  if (a.error) throw new CallError(a.error.code, `${url} ${method}: ${a.error.code} ${a.error.message}`);
  assert.ok(a.result !== undefined);
  return a.result;
}

/** An integer of an answer as bigint (the JSON reader gives small ones as numbers). */
export const big = (v: JsonValue | undefined): bigint => {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(v);
  throw new Error(`not an integer: ${String(v)}`);
};

/** Starts tsmonero-wallet-rpc or monero-wallet-rpc (`bin` under /usr) on `daemonUrl`, no login. */
export function startWallet(bin: string, daemonUrl: string, port: number, dir: string): Daemon {
  const args = ["--wallet-dir", dir, "--daemon-address", daemonUrl.replace("http://", ""), "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(port), "--disable-rpc-login", "--log-level", "0"];
  if (bin.startsWith("/usr")) args.push("--non-interactive");
  // a real wallet's own log, kept outside the test's dirs, when chasing an intermittent failure
  const logDir = process.env.TSMONERO_TEST_REAL_WALLET_LOG_DIR;
  if (logDir && bin.startsWith("/usr")) args.splice(args.indexOf("--log-level"), 2, "--log-level", "2", "--log-file", `${logDir}/wallet-${port}-${Date.now()}.log`);
  return startProcess(bin, args, dir, `http://127.0.0.1:${port}`);
}

/** Waits until the wallet RPC answers get_version (30 s), failing with its output if it exits. */
export async function waitWallet(p: Daemon): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (p.proc.exitCode !== null) throw new Error(`wallet exited ${p.proc.exitCode}: ${p.output.join("").slice(-2000)}`);
    try {
      await walletCall(p.url, "get_version");
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * A regtest daemon for the wallet interop tests: the real monerod, or tsmonerod with its data in
 * `dir` (offline, fixed difficulty 1). `ports` are the RPC and (monerod) P2P ports.
 */
export function startRegtestNode(kind: "monerod" | "tsmonerod", ports: readonly [number, number], dir: string): Daemon {
  if (kind === "monerod") return startMonerod(ports[0], ports[1]);
  const bin = new URL("../../../bin/tsmonerod", import.meta.url).pathname;
  // --no-zmq: tsmonerod binds monerod's ZMQ RPC port (18082) by default, which two test nodes would share
  return startProcess(bin, ["--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-port", String(ports[0]), "--no-zmq"], dir, `http://127.0.0.1:${ports[0]}`);
}

/** SIGTERM to each process still running (SIGKILL after 10 s), waiting for each to exit. */
export async function stopProcesses(procs: readonly Daemon[]): Promise<void> {
  for (const p of procs) {
    if (p.proc.exitCode !== null) continue;
    const gone = new Promise((r) => p.proc.once("exit", r));
    p.proc.kill("SIGTERM");
    const t = setTimeout(() => p.proc.kill("SIGKILL"), 10_000);
    await gone;
    clearTimeout(t);
  }
}
