import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { blockHash, serializeBlock } from "../src/protocol/block.js";
import {
  GENESIS,
  genesisBlock,
  genesisHash,
  HARD_FORKS,
  hardForkEarliestHeight,
  HARD_FORK_FORKED_TIME,
  HARD_FORK_UPDATE_TIME,
  hardForkInfo,
  type HardForkInfo,
  hardForkState,
  hardForkVersionAt,
  LATEST_HARD_FORK,
} from "../src/protocol/genesis.js";
import type { Network } from "../src/protocol/network.js";
import { recordedBlocks, toHex } from "./helpers/chain.js";

const NETS: Network[] = ["mainnet", "testnet", "stagenet", "regtest"];

test("genesis blocks built from GENESIS_TX and nonce hash to the known genesis ids", () => {
  assert.equal(genesisHash("mainnet"), "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3");
  assert.equal(genesisHash("testnet"), "48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b");
  assert.equal(genesisHash("stagenet"), "76ee3cc98646292206cd3e86f74d88b4dcc1d937088645e9b0cbca84b7ce74eb");
  for (const net of NETS) assert.equal(genesisHash(net), GENESIS[net].hash, net);
});

test("regtest genesis is byte for byte the block 0 monerod --regtest served", () => {
  const b0 = recordedBlocks()[0];
  const g = genesisBlock("regtest");
  assert.equal(toHex(serializeBlock(g)), b0.blob);
  assert.equal(toHex(blockHash(g)), b0.hash);
});

test("hard-fork tables: 16 versions in order, v16 heights as in hardforks.cpp", () => {
  for (const net of ["mainnet", "testnet", "stagenet"] as const) {
    const t = HARD_FORKS[net];
    assert.equal(t.length, 16, net);
    t.forEach((f, i) => assert.equal(f.version, i + 1));
    for (let i = 1; i < t.length; i++) assert.ok(t[i].height > t[i - 1].height, `${net} heights increase`);
  }
  assert.equal(hardForkEarliestHeight(HARD_FORKS.mainnet, 16), 2689608);
  assert.equal(hardForkEarliestHeight(HARD_FORKS.testnet, 16), 1983520);
  assert.equal(hardForkEarliestHeight(HARD_FORKS.stagenet, 16), 1151720);
  assert.equal(hardForkVersionAt(HARD_FORKS.mainnet, 2689607), 15);
  assert.equal(hardForkVersionAt(HARD_FORKS.mainnet, 2689608), 16);
  assert.equal(hardForkVersionAt(HARD_FORKS.mainnet, 0), 1);
  assert.equal(hardForkVersionAt(HARD_FORKS.stagenet, 32000), 2);
  assert.equal(hardForkVersionAt(HARD_FORKS.stagenet, 31999), 1);
});

test("regtest: version 1 at height 0, the latest version from height 1, as every recorded block shows", () => {
  for (const b of recordedBlocks()) assert.equal(hardForkVersionAt(HARD_FORKS.regtest, b.height), b.header.major_version, `height ${b.height}`);
  assert.equal(hardForkVersionAt(HARD_FORKS.regtest, 10_000_000), LATEST_HARD_FORK);
});

test("hard_fork_info: monerod's answers after every block of the recorded regtest chain", () => {
  const states = (JSON.parse(readFileSync(new URL("../../test/fixtures/consensus/chain-state.json", import.meta.url), "utf8")) as {
    states: { height: number; hard_fork_info: HardForkInfo }[];
  }).states;
  const votes = recordedBlocks().map((b) => (JSON.parse(b.json) as { minor_version: number }).minor_version || 1);
  assert.equal(states.length, 333);
  const now = Math.floor(Date.now() / 1000);
  for (const s of states) assert.deepEqual(hardForkInfo(HARD_FORKS.regtest, s.height, votes.slice(0, s.height), now), s.hard_fork_info, `height ${s.height}`);
});

test("hard_fork_info on mainnet tables: versions, enabled, state by the last fork's age", () => {
  const old = hardForkInfo(HARD_FORKS.mainnet, 2_000_000, [], 1_600_000_000);
  assert.equal(old.version, 12);
  assert.equal(old.voting, 16);
  assert.equal(old.earliest_height, 1978433);
  assert.equal(hardForkInfo(HARD_FORKS.mainnet, 2_000_000, [], 0, 16).enabled, false);
  const last = 1656629118;
  assert.equal(hardForkState(HARD_FORKS.mainnet, last), 2);
  assert.equal(hardForkState(HARD_FORKS.mainnet, last + HARD_FORK_UPDATE_TIME), 1);
  assert.equal(hardForkState(HARD_FORKS.mainnet, last + HARD_FORK_FORKED_TIME), 0);
  // votes: only the newest 10080 count, and versions above the table's last count as the last
  const info = hardForkInfo(HARD_FORKS.mainnet, 3_000_000, [...new Array<number>(20000).fill(15), ...new Array<number>(10000).fill(17)], 0);
  assert.equal(info.window, 10080);
  assert.equal(info.votes, 10000);
});
