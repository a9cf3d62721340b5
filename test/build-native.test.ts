// The native build must never fail `npm install`: without a working C compiler the install goes on,
// the reason is recorded, and the runtime falls back to the TypeScript backend naming that reason.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

function copyForBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-build-"));
  for (const p of ["binding.gyp", "native", "scripts"]) cpSync(join(root, p), join(dir, p), { recursive: true });
  return dir;
}

test("a failing compiler does not fail the install, and the reason is recorded", () => {
  const dir = copyForBuild();
  try {
    const res = spawnSync(process.execPath, [join(dir, "scripts", "build-native.mjs")], {
      cwd: dir,
      env: { ...process.env, CC: "/bin/false", CXX: "/bin/false", LINK: "/bin/false" },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(res.status, 0, `install step must succeed, stderr: ${res.stderr}`);
    const status = JSON.parse(readFileSync(join(dir, "build", "tsmonero-native-status.json"), "utf8"));
    assert.equal(status.ok, false);
    assert.match(status.reason, /native build failed|no C compiler/);
    assert.match(res.stderr, /pure TypeScript crypto backend will be used/);
    const strict = spawnSync(process.execPath, [join(dir, "scripts", "build-native.mjs"), "--strict"], {
      cwd: dir,
      env: { ...process.env, CC: "/bin/false", CXX: "/bin/false", LINK: "/bin/false" },
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.notEqual(strict.status, 0, "--strict makes the failure fatal");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("TSMONERO_SKIP_NATIVE=1 skips the build and says so", () => {
  const dir = copyForBuild();
  try {
    const res = spawnSync(process.execPath, [join(dir, "scripts", "build-native.mjs")], {
      cwd: dir,
      env: { ...process.env, TSMONERO_SKIP_NATIVE: "1" },
      encoding: "utf8",
    });
    assert.equal(res.status, 0);
    const status = JSON.parse(readFileSync(join(dir, "build", "tsmonero-native-status.json"), "utf8"));
    assert.deepEqual(status, { ok: false, reason: "native build skipped (TSMONERO_SKIP_NATIVE=1)" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("forcing the TS backend works and a missing kernel is named in one warning", () => {
  const script = `
    const m = await import(${JSON.stringify(join(root, "dist/src/crypto/index.js"))});
    const b = m.defaultBackend();
    m.defaultBackend();
    console.log(b.name, Buffer.from(b.keccak256(new Uint8Array())).toString("hex"));
  `;
  const res = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, TSMONERO_CRYPTO: "ts" },
    encoding: "utf8",
  });
  assert.equal(res.status, 0, res.stderr);
  assert.equal(res.stdout.trim(), "ts c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
});
