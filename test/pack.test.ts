// What `npm pack` puts in the tarball (issue 15: "a package that installs; the tarball holds no
// fixtures"): the compiled sources, the launchers and what the install step builds from, and none
// of the tests, fixtures, benchmarks or build output. The install itself is checked by hand on a
// fresh clone (docs/architecture.md, Build); this keeps the file list from drifting.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("the tarball holds dist/src, the bins and the native sources, and no tests or fixtures", () => {
  // --ignore-scripts: list what is there now, without running prepare (tsc) again
  const res = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", timeout: 180_000 });
  assert.equal(res.status, 0, res.stderr);
  const files = new Set((JSON.parse(res.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: Record<string, string>; exports: Record<string, string> };

  for (const bin of Object.values(pkg.bin)) assert.ok(files.has(bin), `bin ${bin} is packed`);
  for (const cli of ["tsmonerod", "tsmonero-wallet-rpc", "tsmonero"]) assert.ok(files.has(`dist/src/cli/${cli}.js`), `${cli}'s compiled CLI is packed`);
  for (const [sub, target] of Object.entries(pkg.exports)) {
    const path = target.replace(/^\.\//, "");
    assert.ok(files.has(path), `export ${sub} → ${path} is packed`);
    assert.ok(files.has(path.replace(/\.js$/, ".d.ts")), `export ${sub} has its types`);
  }
  for (const need of ["package.json", "README.md", "binding.gyp", "scripts/build-native.mjs", "assets/mnemonics/english.json", "native/crypto/"])
    assert.ok([...files].some((f) => f === need || f.startsWith(need)), `${need} is packed`);

  const unwanted = [...files].filter((f) => /(^|\/)(test|tests|fixtures|bench|build|node_modules)\//.test(f) || /\.test\.(js|ts)$/.test(f) || f.startsWith("dist/test") || f.startsWith("dist/bench") || f.startsWith("src/"));
  assert.deepEqual(unwanted, [], "the tarball holds no tests, fixtures, benchmarks, build output or TypeScript sources");
});
