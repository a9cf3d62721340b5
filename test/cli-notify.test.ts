/**
 * --block-notify, --reorg-notify and --tx-notify's runner (os/notify.ts) and the daemon's hooks on
 * a real regtest tsmonerod: each main-chain block runs the block hook with its hash, a reorg runs
 * the reorg hook with monerod's %s/%h/%n/%d; the block-rate check's verdicts (node/block-rate.ts).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { checkBlockRate } from "../src/node/block-rate.js";
import { startDaemon } from "../src/node/daemon.js";
import { Notify, NotifySpecError } from "../src/os/notify.js";

const ALICE = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-notify-"));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function waitFor(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a notify spec is split on blanks without a shell, its program must exist, tags are replaced in every word", () => {
  const n = new Notify("/usr/bin/touch  /tmp/x-%s\t'%h' %s%s");
  assert.deepEqual(n.argv([["%s", "AB"], ["%h", "7"]]), ["/usr/bin/touch", "/tmp/x-AB", "'7'", "ABAB"]);
  assert.throws(() => new Notify("no-such-program %s"), (e: Error) => e instanceof NotifySpecError && /File not found: no-such-program/.test(e.message));
  assert.throws(() => new Notify("   "), /empty/);
});

test("tsmonerod runs --block-notify per main-chain block and --reorg-notify per reorg with monerod's substitutions", async () => {
  const dir = tmp();
  const out = join(dir, "out");
  const daemon = await startDaemon({
    network: "regtest",
    dataDir: join(dir, "data"),
    fixedDifficulty: 1n,
    offline: true,
    rpcBindPort: 29720,
    logToConsole: false,
    blockNotify: `/usr/bin/touch ${out}-block-%s`,
    reorgNotify: `/usr/bin/touch ${out}-reorg-split%s-height%h-new%n-dropped%d`,
  });
  try {
    const fork = daemon.core.store.topHash();
    const main = await daemon.core.generateBlocks(2, ALICE);
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
    await waitFor("the block hooks", () => main.blocks.every((b) => existsSync(`${out}-block-${hex(b)}`)));
    // three blocks from the fork (height 1) overtake the two: split 1, new height 4, 3 new, 2 dropped
    const alt = await daemon.core.generateBlocks(2, ALICE, { prevId: fork });
    await daemon.core.generateBlocks(1, ALICE, { prevId: alt.blocks[1] });
    assert.equal(daemon.core.store.height(), 4);
    await waitFor("the reorg hook", () => existsSync(`${out}-reorg-split1-height4-new3-dropped2`));
    // the new chain's block hooks run after the reorg hook (monerod's order): wait for them, then make sure no more come
    const blocksRun = () => readdirSync(dir).filter((f) => f.startsWith("out-block-")).length;
    await waitFor("the new chain's block hooks", () => blocksRun() >= 5);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(blocksRun(), 5, "each main-chain block once: 2 before the reorg, 3 of the new chain");
  } finally {
    await daemon.stop();
  }
});

test("the block-rate check flags improbable windows as monerod's does, and not a chain on time", () => {
  const now = 1_700_000_000;
  const onTime = Array.from({ length: 150 }, (_, i) => now - i * 120);
  assert.equal(checkBlockRate(onTime, now), undefined);
  // no block for 90 minutes: 0 seen where 45 are expected
  assert.deepEqual(checkBlockRate(onTime.map((t) => t - 5401), now), { minutes: 90, blocks: 0, expected: 45 });
  // 150 blocks in the last 10 minutes: the 90-minute window already sees 150 for 45 expected (>3x: probability 0)
  const burst = Array.from({ length: 150 }, (_, i) => now - i * 4);
  assert.deepEqual(checkBlockRate(burst, now), { minutes: 90, blocks: 150, expected: 45 });
});
