/**
 * --db-salvage (issue 13): monerod opens a damaged LMDB environment at its previous committed
 * snapshot (MDB_PREVSNAPSHOT). The newest meta page of a tsmonerod chain is damaged by hand (its
 * main database root pointed past the file, as a torn write could leave it): tsmonerod refuses to
 * start and says to try --db-salvage; with it, the chain opens at the commit before and works on.
 * Each start is a separate process (LMDB environments are cached per path inside one process).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { nodeCall } from "./helpers/node-rpc.js";
import { freePort } from "./helpers/ports.js";

const BIN = new URL("../../bin/tsmonerod", import.meta.url).pathname;
const ADDRESS = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";

/** Points the main database root of the newer of data.mdb's two meta pages past the file. */
function damageNewestMeta(file: string): void {
  const b = readFileSync(file);
  // lmdb-js's meta page: a 24-byte page header, then magic, version, address, map size, then the
  // free and main databases (48 bytes each; the free one's first field is the page size); the
  // main database's root is at 136 and the meta's txn id at 152
  assert.equal(b.readUInt32LE(24), 0xbeefc0de, "an LMDB meta page");
  const psize = b.readUInt32LE(48);
  const newest = b.readBigUInt64LE(152) > b.readBigUInt64LE(psize + 152) ? 0 : psize;
  b.writeBigUInt64LE(0xffffffffn, newest + 136);
  writeFileSync(file, b);
}

async function run(dir: string, port: number, extra: string[]): Promise<{ stop: () => Promise<number | null> }> {
  const p = spawn(BIN, ["--regtest", "--offline", "--fixed-difficulty", "1", "--keep-fakechain", "--data-dir", dir, "--rpc-bind-port", String(port), "--non-interactive", "--no-zmq", ...extra], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      await nodeCall(url, "get_version");
      break;
    } catch (e) {
      if (p.exitCode !== null || i > 100) throw new Error(`tsmonerod did not start (exit ${p.exitCode})`, { cause: e });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { stop: () => new Promise((r) => { p.once("exit", r); p.kill("SIGTERM"); }) };
}

test("a damaged newest meta page: refused with the advice; --db-salvage opens the commit before", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-salvage-"));
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let d = await run(dir, port, []);
    await nodeCall(url, "generateblocks", { amount_of_blocks: 5, wallet_address: ADDRESS });
    const before = Number((await nodeCall(url, "get_block_count")).count);
    assert.equal(before, 6);
    await d.stop();
    const lmdb = readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith("data.mdb"));
    assert.ok(lmdb);
    damageNewestMeta(join(dir, lmdb));

    const refused = spawnSync(BIN, ["--regtest", "--offline", "--keep-fakechain", "--data-dir", dir, "--rpc-bind-port", String(port), "--non-interactive", "--no-zmq"], { encoding: "utf8", timeout: 60_000 });
    assert.equal(refused.status, 1);
    assert.match(refused.stdout + refused.stderr, /cannot open the chain database in .*: MDB_PAGE_NOTFOUND.*start once with --db-salvage/);
    assert.doesNotMatch(refused.stdout + refused.stderr, /\n\s+at /, "no stack trace");

    d = await run(dir, port, ["--db-salvage"]);
    const after = Number((await nodeCall(url, "get_block_count")).count);
    assert.ok(after < before && after >= 1, `the previous commit's chain (${after} blocks, was ${before})`);
    await nodeCall(url, "generateblocks", { amount_of_blocks: 1, wallet_address: ADDRESS });
    assert.equal(Number((await nodeCall(url, "get_block_count")).count), after + 1, "and it grows again");
    await d.stop();
    // later starts need no flag: the salvaged state was committed
    d = await run(dir, port, []);
    assert.equal(Number((await nodeCall(url, "get_block_count")).count), after + 1);
    await d.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
