/**
 * Checkpoints (monerod's src/checkpoints, Blockchain::handle_block_to_main_chain and
 * handle_alternative_block): the tables, the rules on a real regtest node given checkpoints, and
 * tsmonerod on mainnet reading <data-dir>/checkpoints.json as monerod 0.18 does. Ports 19880-19889.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { CheckpointError, Checkpoints, defaultCheckpoints } from "../src/consensus/checkpoints.js";
import { defaultBackend } from "../src/crypto/index.js";
import { openNode } from "../src/node/chain/index.js";
import { encodeAddress } from "../src/protocol/address.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const be = defaultBackend();
const account = accountFromRecoveryKey(new Uint8Array(32).fill(7), be);
const ADDRESS = encodeAddress("regtest", "standard", account.spendPublicKey, account.viewPublicKey, null, be);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

test("the tables are monerod 0.18's; zone, check, alternative blocks and checkpoints.json follow checkpoints.cpp", () => {
  const main = defaultCheckpoints("mainnet");
  assert.equal(main.size, 43);
  assert.equal(main.maxHeight, 2661600);
  assert.equal(main.check(202612, "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698").ok, true);
  assert.equal(main.difficultyAt(1), 2n);
  assert.deepEqual(defaultCheckpoints("testnet").entries()[0], [0, "48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b"]);
  assert.equal(defaultCheckpoints("stagenet").maxHeight, 550000);
  assert.equal(defaultCheckpoints("regtest").size, 0);

  const c = new Checkpoints().add(10, "aa".repeat(32)).add(20, "bb".repeat(32));
  assert.ok(c.inZone(0) && c.inZone(20) && !c.inZone(21));
  assert.ok(!new Checkpoints().inZone(0), "no checkpoints: no zone");
  assert.deepEqual(c.check(10, "AA".repeat(32)), { ok: true, isCheckpoint: true });
  assert.deepEqual(c.check(10, "cc".repeat(32)), { ok: false, isCheckpoint: true, expected: "aa".repeat(32) });
  assert.deepEqual(c.check(11, "cc".repeat(32)), { ok: true, isCheckpoint: false });
  // is_alternative_block_allowed: before the first checkpoint anything but height 0; after, only above the last one passed
  assert.equal(c.alternativeAllowed(5, 0), false);
  assert.equal(c.alternativeAllowed(5, 3), true);
  assert.equal(c.alternativeAllowed(15, 10), false);
  assert.equal(c.alternativeAllowed(15, 11), true);
  assert.equal(c.alternativeAllowed(25, 19), false);
  assert.equal(c.alternativeAllowed(25, 21), true);
  // a second, different hash at a height is refused; the same one again is fine
  assert.throws(() => c.add(10, "cc".repeat(32)), CheckpointError);
  c.add(10, "aa".repeat(32));
  assert.throws(() => c.add(30, "xyz"), /64 hex digits/);
  // checkpoints.json: lines at or below the highest held are ignored, as monerod
  const n = c.addJson(JSON.stringify({ hashlines: [{ height: 15, hash: "dd".repeat(32) }, { height: 40, hash: "ee".repeat(32) }] }));
  assert.equal(n, 1);
  assert.equal(c.check(15, "00".repeat(32)).isCheckpoint, false);
  assert.equal(c.maxHeight, 40);
  assert.throws(() => c.addJson("{"), /not JSON/);
  assert.throws(() => c.addJson("{}"), /hashlines/);
  assert.throws(() => c.addJson('{"hashlines":[{"height":"50"}]}'), /numeric "height"/);
});

test("a node given checkpoints refuses a block with another id at a checkpoint height, and alternative blocks at or below the last passed", async (t) => {
  const dirs: string[] = [];
  let clock = 1_700_000_000;
  const open = async (checkpoints?: Checkpoints) => {
    const dir = mkdtempSync(join(tmpdir(), "tsmonero-checkpoints-"));
    dirs.push(dir);
    const node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, offline: true, syncMode: "fast", now: () => clock, verifyThreads: 1, ...(checkpoints ? { checkpoints } : {}) });
    t.after(async () => {
      await node.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return node;
  };
  // the source chain: 6 blocks on genesis
  const src = await open();
  for (let i = 0; i < 6; i++) {
    clock += 120;
    await src.generateBlocks(1, ADDRESS);
  }
  const blob = (h: number): Uint8Array => {
    const b = src.store.blockBlob(h);
    assert.ok(b);
    return b;
  };
  const id3 = hex(src.store.meta(3).hash);

  // the right id at height 3: the whole chain is taken
  const good = await open(new Checkpoints().add(3, id3));
  for (let h = 1; h <= 6; h++) assert.equal((await good.submitBlock(blob(h))).status, "added", `block ${h}`);

  // another id at height 3: blocks 1 and 2 are taken, 3 is refused and the chain stays at 3 blocks
  const other = await open(new Checkpoints().add(3, "ab".repeat(32)));
  for (let h = 1; h <= 2; h++) assert.equal((await other.submitBlock(blob(h))).status, "added");
  const r = await other.submitBlock(blob(3));
  assert.equal(r.status, "rejected");
  assert.ok(r.status === "rejected" && r.error?.code === "CHECKPOINT", JSON.stringify(r));
  assert.match(r.message ?? "", new RegExp(`height 3 must be ${"ab".repeat(32)}, not ${id3}`));
  assert.equal(other.store.height(), 3);

  // alternative blocks on `good` (checkpoint 3 passed): a fork at height 3 or below is refused, above is kept
  const mineAlt = await open();
  for (let h = 1; h <= 6; h++) assert.equal((await mineAlt.submitBlock(blob(h))).status, "added");
  clock += 1;
  const low = await mineAlt.generateBlocks(1, ADDRESS, { prevId: mineAlt.store.meta(2).hash });
  const high = await mineAlt.generateBlocks(1, ADDRESS, { prevId: mineAlt.store.meta(4).hash });
  const altBlobOf = (id: Uint8Array): Uint8Array => {
    const b = mineAlt.altBlock(id)?.blob;
    assert.ok(b, "the alternative block is kept by the node that mined it");
    return b;
  };
  const lowR = await good.submitBlock(altBlobOf(low.blocks[0]));
  assert.ok(lowR.status === "rejected" && lowR.error?.code === "ALT_BELOW_CHECKPOINT", JSON.stringify(lowR));
  assert.equal((await good.submitBlock(altBlobOf(high.blocks[0]))).status, "alternative");
  assert.equal(good.store.height(), 7);
});

test("tsmonerod on mainnet reads <data-dir>/checkpoints.json: a malformed file stops the start with what to fix; --disable-dns-checkpoints skips it", { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-checkpoints-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "checkpoints.json"), '{"hashlines":[{"height":3000000,"hash":"not-a-hash"}]}');
  const run = (extra: string[], until: RegExp): Promise<{ code: number | null; out: string }> =>
    new Promise((resolve) => {
      const p = spawn(process.execPath, [join(ROOT, "bin/tsmonerod"), "--data-dir", dir, "--offline", "--no-zmq", "--non-interactive", "--rpc-bind-port", "19880", "--p2p-bind-port", "19881", ...extra]);
      let out = "";
      const seen = (b: Buffer): void => {
        out += b.toString();
        if (until.test(out)) p.kill("SIGTERM");
      };
      p.stdout.on("data", seen);
      p.stderr.on("data", seen);
      p.on("exit", (code) => resolve({ code, out }));
    });
  const bad = await run([], /cannot load the checkpoints file|RPC server/);
  assert.notEqual(bad.code, 0);
  assert.match(bad.out, /cannot load the checkpoints file .*checkpoints\.json: checkpoint hash at height 3000000 is not 64 hex digits: not-a-hash\. Fix it/);
  const skipped = await run(["--disable-dns-checkpoints"], /chain height 1\b/);
  assert.doesNotMatch(skipped.out, /checkpoints file/);
  assert.match(skipped.out, /chain height 1\b/);
});
