// What `npm pack` ships (issue 15: a package that installs): the compiled sources, the launchers,
// the seed word lists and what the install script needs to build the C kernel; no tests, fixtures,
// bench or TypeScript sources. Installing the tarball into an empty project was checked by hand
// (npx tsmonerod --help, npx tsmonero-wallet-rpc --help, imports of every subpath): see README.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

test("npm pack: dist/src, bin, assets and the native sources; no tests, fixtures, bench or .ts sources", () => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const files = (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  for (const need of ["dist/src/index.js", "dist/src/index.d.ts", "dist/src/node/daemon.js", "dist/src/wallet/index.js", "dist/src/client/index.js", "bin/tsmonerod", "bin/tsmonero-wallet-rpc", "binding.gyp", "scripts/build-native.mjs", "native/crypto/bpplus.c", "assets/mnemonics/english.json", "assets/console/index.html", "assets/console/app.js"]) {
    assert.ok(files.includes(need), `${need} is in the package`);
  }
  const stray = files.filter((f) => /(^|\/)(test|fixtures|bench)\//.test(f) || (f.endsWith(".ts") && !f.endsWith(".d.ts")));
  assert.deepEqual(stray, []);
  // every subpath export points at a shipped file
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { exports: Record<string, string>; bin: Record<string, string> };
  for (const [sub, target] of Object.entries(pkg.exports)) assert.ok(files.includes(target.replace(/^\.\//, "")), `export ${sub} → ${target}`);
  for (const target of Object.values(pkg.bin)) assert.ok(files.includes(target), `bin ${target}`);
});
