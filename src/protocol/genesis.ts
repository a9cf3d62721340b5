/**
 * Genesis blocks and hard-fork tables per network.
 * Genesis: src/cryptonote_config.h (GENESIS_TX, GENESIS_NONCE) and
 * cryptonote_tx_utils.cpp generate_genesis_block (version 1.0, timestamp 0, zero prev id, no txs).
 * Hard forks: src/hardforks/hardforks.cpp; regtest as cryptonote_core.cpp builds it for --regtest
 * (mainnet genesis, version 1 at height 0 and the newest version from height 1).
 */
import { type Block, blockHash } from "./block.js";
import type { Network } from "./network.js";
import { parseTransaction } from "./tx.js";

/** One row of a hard-fork table (hardfork_t): `version` applies from `height`. */
export interface HardFork {
  readonly version: number;
  readonly height: number;
  /** Voting threshold in percent (0 for every v0.18 fork: no vote needed). */
  readonly threshold: number;
  /** Unix time the fork was finalised (informational). */
  readonly time: number;
}

/** HardFork::DEFAULT_WINDOW_SIZE and DEFAULT_THRESHOLD_PERCENT (src/cryptonote_basic/hardfork.cpp). */
export const HARD_FORK_VOTING_WINDOW = 10080;
export const HARD_FORK_DEFAULT_THRESHOLD = 80;

const hf = (version: number, height: number, time: number): HardFork => ({ version, height, threshold: 0, time });

export const MAINNET_HARD_FORKS: readonly HardFork[] = [
  hf(1, 1, 1341378000),
  hf(2, 1009827, 1442763710),
  hf(3, 1141317, 1458558528),
  hf(4, 1220516, 1483574400),
  hf(5, 1288616, 1489520158),
  hf(6, 1400000, 1503046577),
  hf(7, 1546000, 1521303150),
  hf(8, 1685555, 1535889547),
  hf(9, 1686275, 1535889548),
  hf(10, 1788000, 1549792439),
  hf(11, 1788720, 1550225678),
  hf(12, 1978433, 1571419280),
  hf(13, 2210000, 1598180817),
  hf(14, 2210720, 1598180818),
  hf(15, 2688888, 1656629117),
  hf(16, 2689608, 1656629118),
];

export const TESTNET_HARD_FORKS: readonly HardFork[] = [
  hf(1, 1, 1341378000),
  hf(2, 624634, 1445355000),
  hf(3, 800500, 1472415034),
  hf(4, 801219, 1472415035),
  hf(5, 802660, 1472415036 + 86400 * 180),
  hf(6, 971400, 1501709789),
  hf(7, 1057027, 1512211236),
  hf(8, 1057058, 1533211200),
  hf(9, 1057778, 1533297600),
  hf(10, 1154318, 1550153694),
  hf(11, 1155038, 1550225678),
  hf(12, 1308737, 1569582000),
  hf(13, 1543939, 1599069376),
  hf(14, 1544659, 1599069377),
  hf(15, 1982800, 1652727000),
  hf(16, 1983520, 1652813400),
];

export const STAGENET_HARD_FORKS: readonly HardFork[] = [
  hf(1, 1, 1341378000),
  hf(2, 32000, 1521000000),
  hf(3, 33000, 1521120000),
  hf(4, 34000, 1521240000),
  hf(5, 35000, 1521360000),
  hf(6, 36000, 1521480000),
  hf(7, 37000, 1521600000),
  hf(8, 176456, 1537821770),
  hf(9, 177176, 1537821771),
  hf(10, 269000, 1550153694),
  hf(11, 269720, 1550225678),
  hf(12, 454721, 1571419280),
  hf(13, 675405, 1598180817),
  hf(14, 676125, 1598180818),
  hf(15, 1151000, 1656629117),
  hf(16, 1151720, 1656629118),
];

/** The newest hard-fork version this code knows (HF 16, v0.18). */
export const LATEST_HARD_FORK = 16;

/** cryptonote_core.cpp regtest_hard_forks: {1, 0}, {latest, 1}. */
export const REGTEST_HARD_FORKS: readonly HardFork[] = [
  { version: 1, height: 0, threshold: 0, time: 0 },
  { version: LATEST_HARD_FORK, height: 1, threshold: 0, time: 0 },
];

export const HARD_FORKS: Readonly<Record<Network, readonly HardFork[]>> = {
  mainnet: MAINNET_HARD_FORKS,
  testnet: TESTNET_HARD_FORKS,
  stagenet: STAGENET_HARD_FORKS,
  regtest: REGTEST_HARD_FORKS,
};

/**
 * The hard-fork version in force at `height` on a chain following `table` without votes (all v0.18
 * forks have threshold 0, so the version switches at the listed height). Height 0 is version 1.
 */
export function hardForkVersionAt(table: readonly HardFork[], height: number | bigint): number {
  const h = BigInt(height);
  let v = 1;
  for (const f of table) if (BigInt(f.height) <= h) v = f.version;
  return v;
}

/** The first height at which `version` is in force, or undefined if the table never reaches it. */
export function hardForkEarliestHeight(table: readonly HardFork[], version: number): number | undefined {
  for (const f of table) if (f.version >= version) return f.height;
  return undefined;
}

/** The shape of monerod's `hard_fork_info` answer (core_rpc_server.cpp on_hard_fork_info), without status fields. */
export interface HardForkInfo {
  earliest_height: number;
  enabled: boolean;
  /** HardFork::State at `now`: 0 likely forked, 1 update needed, 2 ready. */
  state: number;
  threshold: number;
  version: number;
  votes: number;
  voting: number;
  window: number;
}

/** HardFork's DEFAULT_FORKED_TIME (a year) and DEFAULT_UPDATE_TIME (half a year), seconds. */
export const HARD_FORK_FORKED_TIME = 31557600;
export const HARD_FORK_UPDATE_TIME = 31557600 / 2;

/**
 * HardFork::get_state: how long ago the table's last fork was finalised. A year or more: "likely
 * forked" (0, a newer fork may exist that this code does not know); half a year: "update needed" (1).
 */
export function hardForkState(table: readonly HardFork[], now: number): number {
  const last = table[table.length - 1];
  if (table.length <= 1 || last === undefined) return 2;
  if (now >= last.time + HARD_FORK_FORKED_TIME) return 0;
  if (now >= last.time + HARD_FORK_UPDATE_TIME) return 1;
  return 2;
}

/**
 * hard_fork_info (HardFork::get_voting_info) for `version` (default: the next block's version) on
 * a chain of `chainHeight` blocks. `votes` are the votes (get_block_vote: minor version, 0 meaning
 * 1) of the chain's newest blocks, oldest first; the last HARD_FORK_VOTING_WINDOW of them count.
 * `now` is the local time in seconds.
 */
export function hardForkInfo(
  table: readonly HardFork[],
  chainHeight: number,
  votes: readonly number[],
  now: number,
  version?: number,
): HardForkInfo {
  const current = hardForkVersionAt(table, chainHeight);
  const v = version ?? current;
  const last = table[table.length - 1];
  const maxVersion = last?.version ?? 1;
  const window = votes.slice(Math.max(0, votes.length - HARD_FORK_VOTING_WINDOW));
  let count = 0;
  for (const vote of window) if (Math.min(vote, maxVersion) >= v) count++;
  const currentFork = [...table].reverse().find((f) => BigInt(f.height) <= BigInt(chainHeight));
  const thresholdPercent = currentFork?.threshold ?? 0;
  return {
    earliest_height: hardForkEarliestHeight(table, v) ?? 0,
    enabled: current >= v,
    state: hardForkState(table, now),
    threshold: Math.floor((window.length * thresholdPercent + 99) / 100),
    version: v,
    votes: count,
    voting: maxVersion,
    window: window.length,
  };
}

export interface GenesisParams {
  /** GENESIS_TX: the coinbase transaction blob. */
  readonly txHex: string;
  readonly nonce: number;
  /** The block id monerod reports at height 0. */
  readonly hash: string;
}

const MAINNET_GENESIS_TX =
  "013c01ff0001ffffffffffff03029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd08807121017767aafcde9be00dcfd098715ebcf7f410daebc582fda69d24a28e9d0bc890d1";

export const GENESIS: Readonly<Record<Network, GenesisParams>> = {
  mainnet: { txHex: MAINNET_GENESIS_TX, nonce: 10000, hash: "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3" },
  testnet: { txHex: MAINNET_GENESIS_TX, nonce: 10001, hash: "48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b" },
  stagenet: {
    txHex:
      "013c01ff0001ffffffffffff0302df5d56da0c7d643ddd1ce61901c7bdc5fb1738bfe39fbe69c28a3a7032729c0f2101168d0c4ca86fb55a4cf6a36d31431be1c53a3bd7411bb24e8832410289fa6f3b",
    nonce: 10002,
    hash: "76ee3cc98646292206cd3e86f74d88b4dcc1d937088645e9b0cbca84b7ce74eb",
  },
  // --regtest runs on mainnet's genesis
  regtest: { txHex: MAINNET_GENESIS_TX, nonce: 10000, hash: "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3" },
};

/** generate_genesis_block: the genesis block of `net`. */
export function genesisBlock(net: Network): Block {
  const g = GENESIS[net];
  return {
    majorVersion: 1,
    minorVersion: 0,
    timestamp: 0n,
    prevId: new Uint8Array(32),
    nonce: g.nonce,
    minerTx: parseTransaction(Uint8Array.from(Buffer.from(g.txHex, "hex"))),
    txHashes: [],
  };
}

/** Hex id of `net`'s genesis block, computed from the block (not read from GENESIS). */
export function genesisHash(net: Network): string {
  return Buffer.from(blockHash(genesisBlock(net))).toString("hex");
}
