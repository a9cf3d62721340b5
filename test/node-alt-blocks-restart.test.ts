/**
 * Alternative blocks across a restart (issue 13): monerod drops them at start unless
 * --keep-alt-blocks (Blockchain::init → drop_alt_blocks); tsmonerod does the same, after its own
 * recovery of an interrupted chain switch has had the chance to use them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type DaemonOptions, startDaemon } from "../src/node/daemon.js";
import { freePort } from "./helpers/ports.js";

const ADDRESS = "42ey1afDFnn4886T7196doS9GPMzexD9gXpsZJDwVjeRVdFCSoHnv7KPbBeGpzJBzHRCAs9UxqeoyFQMYbqSWYTfJJQAWDm";

test("an alternative block is dropped at restart, and kept with --keep-alt-blocks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-alt-restart-"));
  try {
    const opts = async (keepAltBlocks: boolean): Promise<DaemonOptions> => ({
      network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: await freePort(),
      logFile: "", logToConsole: false, syncMode: "fast", verifyThreads: 1, keepFakechain: true, keepAltBlocks,
    });
    let d = await startDaemon(await opts(false));
    await d.core.generateBlocks(4, ADDRESS);
    // a block on top of height 1: a side chain one block long, lighter than the main chain
    await d.core.generateBlocks(1, ADDRESS, { prevId: d.core.store.meta(1).hash });
    assert.equal(d.core.altBlockCount(), 1);
    await d.stop();
    d = await startDaemon(await opts(true));
    assert.equal(d.core.altBlockCount(), 1, "--keep-alt-blocks keeps it");
    assert.equal(d.core.store.height(), 5, "the main chain is unchanged");
    await d.stop();
    d = await startDaemon(await opts(false));
    assert.equal(d.core.altBlockCount(), 0, "without the flag it is dropped, as monerod drops it");
    assert.equal(d.core.store.height(), 5);
    await d.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
