// The layer rules of docs/architecture.md that are easy to break by accident, checked over src/:
// only the RPC layers import src/rpc/, and RPC error codes are spelled as numbers in one file
// (src/rpc/error-codes.ts); handlers name them, domain errors carry none (their services' edges,
// node/rpc/errors.ts and wallet/rpc/errors.ts, map kinds to codes).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const src = join(root, "src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Paths under src/, with forward slashes. */
const rel = (abs: string): string => relative(src, abs).split("\\").join("/");

/**
 * The RPC layers: the shared RPC server itself, the clients of RPC servers, each service's RPC edge
 * (node/rpc, node/zmq: the ZMQ pub and ZMQ RPC; wallet/rpc), the node's assembly of its servers
 * (node/daemon.ts, above node/rpc) and the command lines. Everything else sits below them.
 */
const RPC_LAYERS = [/^rpc\//, /^client\//, /^node\/rpc\//, /^node\/zmq\//, /^node\/daemon\.ts$/, /^wallet\/rpc\//, /^cli\//];
const isRpcLayer = (p: string): boolean => RPC_LAYERS.some((r) => r.test(p));

/** Where RPC codes may be written as numbers. */
const CODE_TABLES = new Set(["rpc/error-codes.ts"]);

/** The text without comments (block and line comments; a `//` inside a string such as a URL is kept). */
export function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[\s;{}(),])\/\/.*$/gm, "$1");
}

/** Import and export-from specifiers of a module (static and dynamic). */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*"([^"]+)"/g)) out.push(m[1]);
  return out;
}

/** Literal RPC error codes: a negative number given as a code, a code table entry, or an epee JSON-RPC code. */
const CODE_PATTERNS: readonly RegExp[] = [
  // new RpcError(-5, …), fail(-1, …), new WalletError(-13, …)
  /\b(?:\w*Error|fail)\(\s*-\d/,
  // { code: -7 }, e.code === -19
  /\bcode\s*(?::|[!=]==?)\s*-\d/,
  // a code table's entry: NOT_ENOUGH_OUTS_TO_MIX: -19,
  /^\s*[A-Z][A-Z0-9_]*\s*:\s*-\d+\s*,?\s*$/,
  // a code as a constant: const WALLET_RPC_ERROR_CODE_WRONG_URI = -11; (sentinels such as NONE = -2 pass)
  /\bconst\s+\w*(?:ERROR|CODE|Error|Code)\w*\s*=\s*-\d/,
  // epee's JSON-RPC codes anywhere
  /-32[0-9]{3}\b/,
];

export function literalCodes(text: string): string[] {
  const found: string[] = [];
  stripComments(text)
    .split("\n")
    .forEach((line, i) => {
      if (CODE_PATTERNS.some((r) => r.test(line))) found.push(`${i + 1}: ${line.trim()}`);
    });
  return found;
}

test("the code detector finds codes written as numbers, and not other negative numbers", () => {
  for (const bad of ['throw new RpcError(-5, "x");', "fail(-1, msg)", "{ code: -32602, message }", "  NOT_ENOUGH_OUTS_TO_MIX: -19,", "export const WALLET_RPC_ERROR_CODE_WRONG_URI = -11;", "if (e.code === -13) x();"])
    assert.equal(literalCodes(bad).length, 1, bad);
  for (const ok of ["if (i === -1) return;", "const x = a.slice(-4);", "// throws RpcError(-5, …)", "/** (code −19) */", "  uncoded: 0,", "fail(W.BAD_HEX, m)", "const NONE = -2;", 'const u = "http://x/-32602";'.replace("-32602", "a")])
    assert.deepEqual(literalCodes(ok), [], ok);
});

test("no module below the RPC layers imports src/rpc/", () => {
  const offenders: string[] = [];
  for (const file of sources(src)) {
    const p = rel(file);
    if (isRpcLayer(p)) continue;
    for (const spec of specifiers(stripComments(readFileSync(file, "utf8")))) {
      if (!spec.startsWith(".")) continue;
      const target = rel(resolve(dirname(file), spec));
      if (target.startsWith("rpc/")) offenders.push(`${p} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, [], "domain code imports the RPC layer (see docs/architecture.md)");
});

test("RPC error codes are numbers only in src/rpc/error-codes.ts", () => {
  const offenders: string[] = [];
  for (const file of sources(src)) {
    const p = rel(file);
    if (CODE_TABLES.has(p)) continue;
    for (const hit of literalCodes(readFileSync(file, "utf8"))) offenders.push(`${p}:${hit}`);
  }
  assert.deepEqual(offenders, [], "name the code (CORE_RPC_ERROR, WALLET_RPC_ERROR, JSONRPC_ERROR) or throw a domain error mapped at the edge");
});

test("base/, crypto/, codec/ and os/ import nothing of ours but base/", () => {
  const offenders: string[] = [];
  for (const file of sources(src)) {
    const p = rel(file);
    const layer = p.split("/")[0];
    if (!["base", "crypto", "codec", "os"].includes(layer)) continue;
    for (const spec of specifiers(stripComments(readFileSync(file, "utf8")))) {
      if (!spec.startsWith(".")) continue;
      const target = rel(resolve(dirname(file), spec)).split("/")[0];
      if (target !== layer && target !== "base") offenders.push(`${p} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
});
