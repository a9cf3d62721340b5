#!/usr/bin/env node
// npm run docs:rpc — regenerates the RPC documentation from the method tables (src/cli/rpc-docs.ts):
// src/node/rpc/spec-text.ts and src/wallet/rpc/spec-text.ts from ../shared/spec (each method's text),
// then docs/openrpc/node.json, docs/openrpc/wallet.json and docs/rpc-methods.md from the built tables.
// --check: write nothing, exit 1 naming the files that differ (test/rpc-docs.test.ts does the same).
// Run after `tsc -p tsconfig.json` (the script rebuilds by itself when the spec text changed).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const specDir = process.env.TSMONERO_SPEC_DIR ?? join(root, "..", "shared", "spec");
const docs = await import(join(root, "dist/src/cli/rpc-docs.js"));

const differ = [];
const put = (rel, text) => {
  const file = join(root, rel);
  const old = existsSync(file) ? readFileSync(file, "utf8") : undefined;
  if (old === text) return false;
  differ.push(rel);
  if (!check) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return true;
};

let specChanged = false;
if (process.argv.includes("--docs-only")) {
  // second pass after a rebuild
} else if (existsSync(join(specDir, "node-rpc.md")) && existsSync(join(specDir, "wallet-rpc.md"))) {
  specChanged = put("src/node/rpc/spec-text.ts", docs.specTextModule(readFileSync(join(specDir, "node-rpc.md"), "utf8"), "NODE_SPEC_TEXT", "node-rpc.md")) || specChanged;
  specChanged = put("src/wallet/rpc/spec-text.ts", docs.specTextModule(readFileSync(join(specDir, "wallet-rpc.md"), "utf8"), "WALLET_SPEC_TEXT", "wallet-rpc.md")) || specChanged;
} else {
  console.error(`rpc-docs: no spec files in ${specDir}; keeping the spec text as it is`);
}

if (specChanged && !check) {
  // the documents carry the spec text: build with the new text, then generate them in a fresh process
  execFileSync("npx", ["tsc", "-p", "tsconfig.json"], { cwd: root, stdio: "inherit" });
  execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--docs-only"], { cwd: root, stdio: "inherit" });
} else {
  for (const [rel, text] of Object.entries(docs.renderRpcDocs())) put(rel, text);
}

if (check && differ.length > 0) {
  console.error(`rpc-docs: out of date: ${differ.join(", ")} (run npm run docs:rpc)`);
  process.exit(1);
}
if (!check) console.log(differ.length > 0 ? `rpc-docs: wrote ${differ.join(", ")}` : "rpc-docs: up to date");
