#!/usr/bin/env node
// Builds the optional C kernel (native/) with node-gyp during `npm install`.
// A failed build never fails the install: the reason is recorded in
// build/tsmonero-native-status.json and the pure-TypeScript backend is used instead.
// `--strict` (npm run build:native) makes a failure fatal, for kernel development.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const strict = process.argv.includes("--strict");
const statusFile = join(root, "build", "tsmonero-native-status.json");

function record(status) {
  mkdirSync(dirname(statusFile), { recursive: true });
  writeFileSync(statusFile, `${JSON.stringify(status, null, 2)}\n`);
}

if (process.env.TSMONERO_SKIP_NATIVE === "1") {
  record({ ok: false, reason: "native build skipped (TSMONERO_SKIP_NATIVE=1)" });
  console.warn("tsmonero: native build skipped (TSMONERO_SKIP_NATIVE=1); the TypeScript crypto backend will be used");
  process.exit(0);
}

const args = ["rebuild"];
if (!process.env.npm_config_nodedir) args.push("--nodedir=/usr");
// npm passes its bundled node-gyp in npm_config_node_gyp; outside npm, look beside node's own npm.
const bundled = join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js");
const gyp = process.env.npm_config_node_gyp || (existsSync(bundled) ? bundled : undefined);
const cmd = gyp ? process.execPath : "node-gyp";
const res = spawnSync(cmd, gyp ? [gyp, ...args] : args, {
  cwd: root,
  stdio: ["ignore", "inherit", "pipe"],
  encoding: "utf8",
});
if (res.status === 0) {
  record({ ok: true, builtAt: new Date().toISOString() });
  process.exit(0);
}
const stderr = res.stderr ?? "";
process.stderr.write(stderr);
let reason;
if (res.error) reason = `could not run node-gyp: ${res.error.message}`;
else if (/not found: (make|g\+\+|cc|gcc)|command not found|No such file or directory.*(cc|g\+\+)|gyp ERR! stack Error: not found/i.test(stderr))
  reason = "no C compiler/make found (install g++ and make, e.g. apt-get install -y build-essential)";
else {
  const lines = stderr.split("\n");
  const line =
    lines.find((l) => /\berror:/.test(l)) ?? lines.find((l) => /error/i.test(l)) ?? `node-gyp exited with ${res.status}`;
  reason = `native build failed, the C compiler or make reported: ${line.trim()} (run \`npm run build:native\` for the full log)`;
}
record({ ok: false, reason });
console.warn(`tsmonero: ${reason}; the pure TypeScript crypto backend will be used`);
process.exit(strict ? 1 : 0);
