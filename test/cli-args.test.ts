import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { type FlagSpec, helpText, parseArgs, UsageError } from "../src/cli/args.js";

const specs: FlagSpec[] = [
  { name: "regtest", takesValue: false, help: "regtest" },
  { name: "rpc-bind-port", takesValue: true, help: "port", defaultValue: "18081" },
  { name: "add-peer", takesValue: true, help: "peer", repeatable: true },
];

test("values come from the next word or after =, switches stand alone", () => {
  const a = parseArgs(["--regtest", "--rpc-bind-port", "28081", "--add-peer=1.2.3.4:1", "--add-peer", "5.6.7.8:2"], specs);
  assert.equal(a.get("regtest"), true);
  assert.equal(a.get("rpc-bind-port"), "28081");
  assert.deepEqual(a.get("add-peer"), ["1.2.3.4:1", "5.6.7.8:2"]);
});

test("unknown flags, missing values and stray words are errors that name the problem", () => {
  assert.throws(() => parseArgs(["--bogus"], specs), (e: Error) => e instanceof UsageError && /--bogus/.test(e.message));
  assert.throws(() => parseArgs(["--rpc-bind-port"], specs), /needs a value/);
  assert.throws(() => parseArgs(["regtest"], specs), /unexpected argument 'regtest'/);
  assert.throws(() => parseArgs(["--regtest=yes"], specs), /switch and takes no value/);
});

test("help lists every flag with its default", () => {
  const h = helpText("x", "summary", specs);
  for (const s of specs) assert.match(h, new RegExp(`--${s.name}`));
  assert.match(h, /default: 18081/);
});

const root = fileURLToPath(new URL("../..", import.meta.url));
for (const bin of ["tsmonerod", "tsmonero-wallet-rpc", "tsmonero"]) {
  test(`bin/${bin} answers --help and rejects unknown flags`, () => {
    const help = spawnSync(process.execPath, [`${root}/bin/${bin}`, "--help"], { encoding: "utf8" });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, new RegExp(`Usage: ${bin}`));
    const bad = spawnSync(process.execPath, [`${root}/bin/${bin}`, "--no-such-flag"], { encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown flag --no-such-flag/);
  });
}
