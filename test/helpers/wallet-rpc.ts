/**
 * Calling a wallet RPC (ours or monero-wallet-rpc) from tests, and starting either binary on a
 * daemon: JSON-RPC with exact 64-bit integers, answers as plain objects.
 */
import assert from "node:assert/strict";
import { isJsonObject, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../../src/rpc/json.js";
import { type Daemon, startProcess } from "./monerod.js";

export type Obj = Record<string, JsonValue>;
export type Answer = { result?: Obj; error?: { code: number; message: string } };

/** One JSON-RPC call; the whole answer (result or error). */
export async function rpc(url: string, method: string, params: JsonWritable = {}): Promise<Answer> {
  const r = await fetch(`${url}/json_rpc`, { method: "POST", body: stringifyJson({ jsonrpc: "2.0", id: 1, method, params }) });
  const v = parseJson(await r.text()) as unknown as Answer;
  assert.ok(isJsonObject(v as unknown as JsonValue), `${method}: answer is not an object`);
  return v;
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
