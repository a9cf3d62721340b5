/**
 * The typed node client (src/client/typed-node-client.ts over NodeRpcApi and NodePathApi, from
 * `tsmonero/node`'s nodeClient) driving a real tsmonerod in this process (regtest, offline, digest
 * login): checked params go out as epee reads them, typed results come back for JSON-RPC methods
 * and JSON paths, errors are NodeRpcError with monerod's codes. test/node-client-types.ts proves
 * at compile time that misspelled methods and wrong param types do not compile.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { NodeAuthError, NodeRpcError } from "../src/client/node-client.js";
import { type Daemon, nodeClient, startDaemon } from "../src/node/daemon.js";
import { CORE_RPC_ERROR } from "../src/rpc/error-codes.js";
import { freePort } from "./helpers/ports.js";

const MINER = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const login = "typed:node";

describe("typed node client against tsmonerod", () => {
  let dir: string;
  let daemon: Daemon;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-node-client-"));
    daemon = await startDaemon({ network: "regtest", dataDir: dir, fixedDifficulty: 1n, offline: true, rpcBindPort: await freePort(), rpcLogin: login, logToConsole: false });
  });
  after(async () => {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("calls JSON-RPC methods and JSON paths with checked params and reads typed results", async () => {
    const n = nodeClient({ url: daemon.rpcUrl, login });
    try {
      const gen = await n.call("generateblocks", { amount_of_blocks: 3, wallet_address: MINER });
      assert.equal(gen.blocks.length, 3);
      const info = await n.call("get_info");
      assert.equal(Number(info.height), 4);
      assert.equal(info.top_block_hash, gen.blocks[2]);
      const hdr = await n.call("get_block_header_by_height", { height: 3n });
      assert.equal(hdr.block_header.hash, gen.blocks[2]);
      assert.equal(hdr.block_header.height, 3);
      const block = await n.call("get_block", { hash: gen.blocks[0] });
      assert.equal(block.block_header.height, 1);
      assert.equal(block.tx_hashes, undefined); // no txs: epee leaves the list out
      assert.equal(await n.call("on_get_block_hash", [2]), gen.blocks[1]);
      const height = await n.path("/get_height");
      assert.equal(height.height, 4);
      assert.equal(height.hash, gen.blocks[2]);
      const txs = await n.path("/get_transactions", { txs_hashes: [block.miner_tx_hash], decode_as_json: true });
      assert.equal(txs.txs?.length, 1);
      assert.equal(txs.txs?.[0].block_height, 1);
      assert.equal(txs.missed_tx, undefined);
      const pool = await n.path("/get_transaction_pool_hashes");
      assert.equal(pool.tx_hashes, undefined);
    } finally {
      n.close();
    }
  });

  it("answers errors as NodeRpcError with monerod's codes, and needs the login", async () => {
    const n = nodeClient({ url: daemon.rpcUrl, login });
    try {
      await assert.rejects(
        n.call("get_block_header_by_height", { height: 99 }),
        (e: unknown) => e instanceof NodeRpcError && e.code === CORE_RPC_ERROR.TOO_BIG_HEIGHT,
      );
    } finally {
      n.close();
    }
    const anonymous = nodeClient({ url: daemon.rpcUrl });
    try {
      await assert.rejects(anonymous.call("get_info"), NodeAuthError);
    } finally {
      anonymous.close();
    }
  });
});
