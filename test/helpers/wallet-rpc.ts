/**
 * Calling a wallet RPC (ours or monero-wallet-rpc) from tests, and starting either binary on a
 * daemon: JSON-RPC with exact 64-bit integers, answers as plain objects.
 */
import assert from "node:assert/strict";
import { isJsonObject, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../../src/rpc/json.js";
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

/** One JSON-RPC call; the whole answer (result or error). A real wallet's transport failure (above) is retried once. */
export async function rpc(url: string, method: string, params: JsonWritable = {}): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const r = await fetch(`${url}/json_rpc`, { method: "POST", body: stringifyJson({ jsonrpc: "2.0", id: 1, method, params }) });
    const v = parseJson(await r.text()) as unknown as Answer;
    assert.ok(isJsonObject(v as unknown as JsonValue), `${method}: answer is not an object`);
    if (attempt === 0 && v.error?.code === -1 && REAL_WALLET_TRANSPORT_FAILURE.test(v.error.message)) continue;
    return v;
  }
}

/** One JSON-RPC call that must succeed; its result. */
export async function call(url: string, method: string, params: JsonWritable = {}): Promise<Obj> {
  const a = await rpc(url, method, params);
  if (a.error) throw new Error(`${url} ${method}: ${a.error.code} ${a.error.message}`);
  assert.ok(a.result);
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
      await call(p.url, "get_version");
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
