/**
 * The console's RPC calls: the node's and the wallet's JSON-RPC, through the console server's
 * same-origin pass-through (/node/…, /wallet/…), exactly as a client sends them. Integers past
 * 2^53 (atomic amounts) are read as bigint, and bigints are written as JSON numbers.
 */

export type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

/** An RPC answered with an error, or did not answer: the message says which call and why. */
export class RpcCallError extends Error {
  override name = "RpcCallError";
}

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/** JSON.parse that keeps big integers exact (the reviver's source text, where the browser gives it). */
export function parseJson(text: string): unknown {
  const reviver: Reviver = (_k, v, ctx) =>
    typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v) && ctx?.source && /^-?\d+$/.test(ctx.source) ? BigInt(ctx.source) : v;
  return JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown);
}

export function stringifyJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `@@big:${x.toString()}@@` : x)).replace(/"@@big:(-?\d+)@@"/g, "$1");
}

async function post(base: string, path: string, body: unknown, what: string): Promise<unknown> {
  let r: Response;
  try {
    r = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-tsmonero-console": "1" }, body: stringifyJson(body) });
  } catch (e) {
    throw new RpcCallError(`${what}: no answer (${e instanceof Error ? e.message : String(e)})`);
  }
  const text = await r.text();
  if (!r.ok) throw new RpcCallError(`${what}: HTTP ${r.status} ${r.statusText}${text ? `: ${text.trim().slice(0, 300)}` : ""}`);
  try {
    return parseJson(text);
  } catch {
    throw new RpcCallError(`${what}: the answer is not JSON: ${text.slice(0, 200)}`);
  }
}

async function jsonRpc<T>(base: string, method: string, params: Record<string, unknown>, who: string): Promise<T> {
  const v = (await post(base, "/json_rpc", { jsonrpc: "2.0", id: "0", method, params }, `${who} ${method}`)) as { result?: T; error?: { code: number; message: string } };
  if (v.error) throw new RpcCallError(`${who} ${method}: ${v.error.message} (error ${v.error.code})`);
  if (v.result === undefined) throw new RpcCallError(`${who} ${method}: the answer has no result`);
  return v.result;
}

/** A node JSON-RPC method. */
export const node = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> => jsonRpc<T>("/node", method, params, "node");

/** A node plain-JSON path (/get_transactions, /get_transaction_pool, …); status other than OK is an error. */
export async function nodePath<T>(path: string, body: Record<string, unknown> = {}): Promise<T> {
  const v = (await post("/node", path, body, `node ${path}`)) as T & { status?: string };
  if (v.status !== undefined && v.status !== "OK") throw new RpcCallError(`node ${path}: ${v.status}`);
  return v;
}

/** A wallet JSON-RPC method (on whatever wallet the wallet RPC has open). */
export const wallet = <T>(method: string, params: Record<string, unknown> = {}): Promise<T> => jsonRpc<T>("/wallet", method, params, "wallet");

/** Atomic units as XMR text: 1500000000000 → "1.5". */
export function xmr(v: number | bigint | undefined): string {
  if (v === undefined) return "?";
  const a = BigInt(v);
  const neg = a < 0n;
  const abs = neg ? -a : a;
  const whole = abs / 1_000_000_000_000n;
  const frac = (abs % 1_000_000_000_000n).toString().padStart(12, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ".0"}`;
}

/** XMR text as atomic units; throws with the reason on bad input. */
export function atomic(text: string): bigint {
  const t = text.trim();
  const m = /^(\d+)(?:\.(\d{0,12}))?$/.exec(t);
  if (!m) throw new Error(`amount '${text}' is not a number of XMR with at most 12 decimals`);
  const v = BigInt(m[1]) * 1_000_000_000_000n + BigInt((m[2] ?? "").padEnd(12, "0") || "0");
  if (v === 0n) throw new Error("amount must be more than 0");
  return v;
}
