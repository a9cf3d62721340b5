/**
 * Checkpoints: block ids the chain must have at given heights (Monero's src/checkpoints/
 * checkpoints.cpp). A block at a checkpoint height whose id differs is refused, and no alternative
 * block may fork at or below the last checkpoint the chain has passed, so a node cannot be led
 * onto a rewritten history however much work it carries.
 *
 * The tables are monerod 0.18's init_default_checkpoints for each network (data, like the genesis
 * blocks). monerod 0.18 enforces them, and reads `<data-dir>/checkpoints.json`, on mainnet only;
 * the testnet and stagenet tables are kept for callers that choose to enforce them. DNS
 * checkpoints (MoneroPulse) are not fetched here.
 */
import type { Network } from "../protocol/network.js";

/** height → [block id hex, cumulative difficulty hex] (ADD_CHECKPOINT2). */
type Table = readonly (readonly [number, string, string])[];

const MAINNET: Table = [
  [1, "771fbcd656ec1464d3a02ead5e18644030007a0fc664c0a964d30922821a8148", "0x2"],
  [10, "c0e3b387e47042f72d8ccdca88071ff96bff1ac7cde09ae113dbb7ad3fe92381", "0x2a974"],
  [100, "ac3e11ca545e57c49fca2b4e8c48c03c23be047c43e471e1394528b1f9f80b2d", "0x35d14b"],
  [1000, "5acfc45acffd2b2e7345caf42fa02308c5793f15ec33946e969e829f40b03876", "0x36a0373"],
  [10000, "c758b7c81f928be3295d45e230646de8b852ec96a821eac3fea4daf3fcac0ca2", "0x60a91390"],
  [22231, "7cb10e29d67e1c069e6e11b17d30b809724255fee2f6868dc14cfc6ed44dfb25", "0x1e288793d"],
  [29556, "53c484a8ed91e4da621bb2fa88106dbde426fe90d7ef07b9c1e5127fb6f3a7f6", "0x71f64cce8"],
  [50000, "0fe8758ab06a8b9cb35b7328fd4f757af530a5d37759f9d3e421023231f7b31c", "0x893044b400"],
  [80000, "a62dcd7b536f22e003ebae8726e9e7276f63d594e264b6f0cd7aab27b66e75e3", "0x5cc113f1076"],
  [202612, "bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698", "0x73310a259eb2"],
  [202613, "e2aa337e78df1f98f462b3b1e560c6b914dec47b610698b7b7d1e3e86b6197c2", "0x733154039b97"],
  [202614, "c29e3dc37d8da3e72e506e31a213a58771b24450144305bcba9e70fa4d6ea6fb", "0x73319dc90cb6"],
  [205000, "5d3d7a26e6dc7535e34f03def711daa8c263785f73ec1fadef8a45880fde8063", "0x75fcc3d85123"],
  [220000, "9613f455933c00e3e33ac315cc6b455ee8aa0c567163836858c2d9caff111553", "0x89cfed0cae3c"],
  [230300, "bae7a80c46859db355556e3a9204a337ae8f24309926a1312323fdecf1920e61", "0x967d13e5baa9"],
  [230700, "93e631240ceac831da1aebfc5dac8f722c430463024763ebafa888796ceaeedf", "0x96fb9663ebe7"],
  [231350, "b5add137199b820e1ea26640e5c3e121fd85faa86a1e39cf7e6cc097bdeb1131", "0x97b9919177bf"],
  [232150, "955de8e6b6508af2c24f7334f97beeea651d78e9ade3ab18fec3763be3201aa8", "0x98a038b612e8"],
  [249380, "654fb0a81ce3e5caf7e3264a70f447d4bd07586c08fa50f6638cc54da0a52b2d", "0xac9739634e6d"],
  [460000, "75037a7aed3e765db96c75bcf908f59d690a5f3390baebb9edeafd336a1c4831", "0x167799549bdda"],
  [500000, "2428f0dbe49796be05ed81b347f53e1f7f44aed0abf641446ec2b94cae066b02", "0x188ce145e4ba9"],
  [600000, "f5828ebf7d7d1cb61762c4dfe3ccf4ecab2e1aad23e8113668d981713b7a54c5", "0x1d9f3759e1554"],
  [700000, "12be9b3d210b93f574d2526abb9c1ab2a881b479131fd0d4f7dac93875f503cd", "0x2201e4ee39c2c"],
  [825000, "56503f9ad766774b575be3aff73245e9d159be88132c93d1754764f28da2ff60", "0x27565a442d5df"],
  [900000, "d9958d0e7dcf91a5a7b11de225927bf7efc6eb26240315ce12372be902cc1337", "0x2a6334031546e"],
  [913193, "5292d5d56f6ba4de33a58d9a34d263e2cb3c6fee0aed2286fd4ac7f36d53c85f", "0x2aefe7f40f5ea"],
  [1000000, "a886ef5149902d8342475fee9bb296341b891ac67c4842f47a833f23c00ed721", "0x2edd71370f0e5"],
  [1100000, "3fd720c5c8b3072fc1ccda922dec1ef25f9ed88a1e6ad4103d0fe00b180a5903", "0x390eb0035c53a"],
  [1150000, "1dd16f626d18e1e988490dfd06de5920e22629c972c58b4d8daddea0038627b2", "0x422d5662e9e37"],
  [1200000, "fa7d13a90850882060479d100141ff84286599ae39c3277c8ea784393f882d1f", "0x4c73503fc4aa3"],
  [1300000, "31b34272343a44a9f4ac7de7a8fcf3b7d8a3124d7d6870affd510d2f37e74cd0", "0x723f49bc249d5"],
  [1390000, "a8f5649dd4ded60eedab475f2bec8c934681c07e3cf640e9be0617554f13ff6c", "0xb4bba65e2841b"],
  [1450000, "ac94e8860093bc7c83e4e91215cba1d663421ecf4067a0ae609c3a8b52bcfac2", "0x11a4aabdca9511"],
  [1530000, "01759bce497ec38e63c78b1038892169203bb78f87e488172f6b854fcd63ba7e", "0x2819ce9f9e91e5"],
  [1579000, "7d0d7a2346373afd41ed1e744a939fc5d474a7dbaa257be5c6fff4009e789241", "0x357a590e7dda83"],
  [1668900, "ac2dcaf3d2f58ffcf8391639f0f1ebafcb8eac43c49479c7c37f611868d07568", "0x474226e475cc3b"],
  [1775600, "1c6e01c661dc22cab939e79ec6a5272190624ce8356d2f7b958e4f9a57fdb05e", "0x5e3b9d206a27c6"],
  [1856000, "9b57f17f29c71a3acd8a7904b93c41fa6eb8d2b7c73936ce4f1702d14880ba29", "0x6bde5e1caccee1"],
  [1958000, "98a5d6e51afdf3146e0eefb10a66e8648d8d4d5c2742be8835e976ba217c9bb2", "0x79dd46d2a0971a"],
  [2046000, "5e867f0b8baefed9244a681df97fc885d8ab36c3dfcd24c7a3abf3b8ac8b8314", "0x9cb8b6ff2978c6"],
  [2092500, "c4e00820c9c7989b49153d5e90ae095a18a11d990e82fcc3be54e6ed785472b5", "0xb4e585a31369cb"],
  [2182500, "0d22b5f81982eff21d094af9e821dc2007e6342069e3b1a37b15d97646353124", "0xead4a874083492"],
  [2661600, "41c9060e8426012238e8a26da26fcb90797436896cc70886a894c2c560bcccf2", "0x2e0d87526ff161f"],
];

const TESTNET: Table = [
  [0, "48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b", "0x1"],
  [1000000, "46b690b710a07ea051bc4a6b6842ac37be691089c0f7758cfeec4d5fc0b4a258", "0x7aaad7153"],
  [1058600, "12904f6b4d9e60fd875674e07147d2c83d6716253f046af7b894c3e81da7e1bd", "0x971efd119"],
  [1450000, "87562ca6786f41556b8d5b48067303a57dc5ca77155b35199aedaeca1550f5a0", "0xa639e2930e"],
];

const STAGENET: Table = [
  [0, "76ee3cc98646292206cd3e86f74d88b4dcc1d937088645e9b0cbca84b7ce74eb", "0x1"],
  [10000, "1f8b0ce313f8b9ba9a46108bfd285c45ad7c2176871fd41c3a690d4830ce2fd5", "0x1d73ba"],
  [550000, "409f68cddd8e74b37469b41c1e61250d81c5776b42264f416d5d27c4626383ed", "0x5f3d4d03e"],
];

/** A checkpoint that contradicts one already held, or a malformed one. */
export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

const HASH_RE = /^[0-9a-f]{64}$/;

export class Checkpoints {
  private readonly points = new Map<number, string>();
  private readonly difficulties = new Map<number, bigint>();
  private max = -1;

  /** add_checkpoint: a second, different id for a height is refused. */
  add(height: number, hash: string, difficulty?: bigint): this {
    if (!Number.isSafeInteger(height) || height < 0) throw new CheckpointError(`checkpoint height ${height} is not a block height`);
    const h = hash.toLowerCase();
    if (!HASH_RE.test(h)) throw new CheckpointError(`checkpoint hash at height ${height} is not 64 hex digits: ${hash}`);
    const held = this.points.get(height);
    if (held !== undefined && held !== h) throw new CheckpointError(`a checkpoint at height ${height} already exists with another hash (${held}, not ${h})`);
    this.points.set(height, h);
    if (difficulty !== undefined) this.difficulties.set(height, difficulty);
    this.max = Math.max(this.max, height);
    return this;
  }

  get size(): number {
    return this.points.size;
  }

  /** get_max_height (0 when empty, as monerod). */
  get maxHeight(): number {
    return Math.max(0, this.max);
  }

  /** The checkpoints, lowest height first. */
  entries(): [number, string][] {
    return [...this.points.entries()].sort((a, b) => a[0] - b[0]);
  }

  /** The cumulative difficulty monerod's table gives for a checkpoint height, if any. */
  difficultyAt(height: number): bigint | undefined {
    return this.difficulties.get(height);
  }

  /** is_in_checkpoint_zone: at or below the highest checkpoint. */
  inZone(height: number): boolean {
    return this.max >= 0 && height <= this.max;
  }

  /** check_block: true unless `height` is a checkpoint with another id (`id` as hex). */
  check(height: number, id: string): { ok: boolean; isCheckpoint: boolean; expected?: string } {
    const want = this.points.get(height);
    if (want === undefined) return { ok: true, isCheckpoint: false };
    return want === id.toLowerCase() ? { ok: true, isCheckpoint: true } : { ok: false, isCheckpoint: true, expected: want };
  }

  /**
   * is_alternative_block_allowed: an alternative block at `blockHeight` is allowed while the chain
   * (of `chainHeight` blocks) has passed no checkpoint, or above the last checkpoint it has passed.
   * Never at height 0.
   */
  alternativeAllowed(chainHeight: number, blockHeight: number): boolean {
    if (blockHeight === 0) return false;
    let last = -1;
    for (const h of this.points.keys()) if (h <= chainHeight && h > last) last = h;
    return last < 0 || last < blockHeight;
  }

  /**
   * load_checkpoints_from_json: monerod's `checkpoints.json` (`{"hashlines":[{"height":N,
   * "hash":"…"}]}`); lines at or below the highest checkpoint already held are ignored, as monerod.
   * Returns how many were added.
   */
  addJson(text: string): number {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new CheckpointError(`checkpoints file is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    const lines = (doc as { hashlines?: unknown } | null)?.hashlines;
    if (!Array.isArray(lines)) throw new CheckpointError('checkpoints file has no "hashlines" array');
    const before = this.maxHeight;
    let added = 0;
    for (const [i, l] of lines.entries()) {
      const { height, hash } = (l ?? {}) as { height?: unknown; hash?: unknown };
      if (typeof height !== "number" || typeof hash !== "string") throw new CheckpointError(`hashlines[${i}] needs a numeric "height" and a string "hash"`);
      if (height <= before) continue;
      this.add(height, hash);
      added++;
    }
    return added;
  }
}

/** init_default_checkpoints for `network` (regtest: none). */
export function defaultCheckpoints(network: Network): Checkpoints {
  const c = new Checkpoints();
  const table = network === "mainnet" ? MAINNET : network === "testnet" ? TESTNET : network === "stagenet" ? STAGENET : [];
  for (const [h, id, d] of table) c.add(h, id, BigInt(d));
  return c;
}
