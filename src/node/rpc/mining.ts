/**
 * Mining and chain control: get_block_template, submit_block, generateblocks, get_miner_data,
 * calc_pow, /start_mining, /stop_mining, /mining_status, /pop_blocks.
 * Behaviour mirrors monerod v0.18 src/rpc/core_rpc_server.cpp.
 */
import { baseBlockReward } from "../../consensus/reward.js";
import { decodeAddress } from "../../protocol/address.js";
import { HARD_FORKS, hardForkVersionAt } from "../../protocol/genesis.js";
import { blockHash, parseBlock } from "../../protocol/block.js";
import { serializeTransaction } from "../../protocol/tx.js";
import { MiningError, type MiningStatusReport } from "../mining/index.js";
import { CORE_RPC_ERROR } from "../../rpc/error-codes.js";
import { RpcError } from "../../rpc/methods.js";
import { anyJson, bool, object, str, u32, u64, u8 } from "../../rpc/schema.js";
import { domainRpcError, miningErrorDocs } from "./errors.js";
import { defineJsonPath, defineJsonRpc, fromHex, type NodeRpcDeps, nextContext, OK, parseHash, parseHexBuf, toHex, wide } from "./common.js";

/** CRYPTONOTE_MAX_BLOCK_SIZE-style limit monerod applies to submitted blobs (check_incoming_block_size). */
const MAX_BLOCK_BLOB = 2 * 1024 * 1024 + 100 * 1024;

function checkMinerAddress(d: NodeRpcDeps, address: string): void {
  let kind: string;
  try {
    kind = decodeAddress(address, d.core.network).kind;
  } catch {
    throw new RpcError(CORE_RPC_ERROR.WRONG_WALLET_ADDRESS, "Failed to parse wallet address");
  }
  if (address === "") throw new RpcError(CORE_RPC_ERROR.WRONG_WALLET_ADDRESS, "Failed to parse wallet address");
  if (kind === "subaddress") throw new RpcError(CORE_RPC_ERROR.MINING_TO_SUBADDRESS, "Mining to subaddress is not supported yet");
}

export function miningMethods(d: NodeRpcDeps) {
  const { core } = d;
  const store = core.store;

  const template = async (p: { wallet_address: string; reserve_size: bigint; extra_nonce: string; prev_block: string }) => {
    if (p.reserve_size > 255n) throw new RpcError(CORE_RPC_ERROR.TOO_BIG_RESERVE_SIZE, "Too big reserved size, maximum 255");
    if (p.reserve_size > 0n && p.extra_nonce !== "") throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Cannot specify both a reserve_size and an extra_nonce");
    if (p.extra_nonce.length > 510) throw new RpcError(CORE_RPC_ERROR.TOO_BIG_RESERVE_SIZE, "Too big extra_nonce size, maximum 510 hex chars");
    checkMinerAddress(d, p.wallet_address);
    let extraNonce: Uint8Array | undefined;
    if (p.extra_nonce !== "") {
      extraNonce = parseHexBuf(p.extra_nonce);
      if (!extraNonce) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Parameter extra_nonce should be a hex string");
    }
    let prevId: Uint8Array | undefined;
    if (p.prev_block !== "") {
      prevId = parseHash(p.prev_block);
      if (!prevId) throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, "Invalid prev_block");
    }
    let tpl;
    try {
      tpl = await core.blockTemplate(p.wallet_address, Number(p.reserve_size), { ...(prevId ? { prevId } : {}), ...(extraNonce ? { extraNonce } : {}) });
    } catch (e) {
      const mapped = domainRpcError(e);
      if (mapped) throw mapped;
      throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, `Internal error: failed to create block template${e instanceof Error ? `: ${e.message}` : ""}`);
    }
    const w = wide(tpl.difficulty);
    // later v0.18 releases answer the template's weight (its txs' and the coinbase's), as
    // Blockchain::create_block_template's cumulative_weight
    let cumulativeWeight = serializeTransaction(tpl.block.minerTx).length;
    for (const id of tpl.txIds) cumulativeWeight += core.pool.get(id)?.weight ?? 0;
    return {
      blockhashing_blob: toHex(tpl.hashingBlob),
      blocktemplate_blob: toHex(tpl.blob),
      cumulative_weight: cumulativeWeight,
      difficulty: w.lo,
      difficulty_top64: w.top64,
      expected_reward: tpl.expectedReward,
      height: tpl.height,
      next_seed_hash: tpl.nextSeedHash.length > 0 && Buffer.compare(tpl.nextSeedHash, tpl.seedHash) !== 0 ? toHex(tpl.nextSeedHash) : "",
      prev_hash: toHex(tpl.prevHash),
      reserved_offset: tpl.reservedOffset,
      seed_hash: toHex(tpl.seedHash),
      seed_height: tpl.seedHeight,
      status: OK,
      untrusted: false,
      wide_difficulty: w.wide,
    };
  };

  return [
    defineJsonRpc({
      name: "get_block_template",
      mirrors: "cryptonote::core_rpc_server::on_getblocktemplate",
      errors: miningErrorDocs("wrong-address", "subaddress", "reserve-too-big", "bad-request", "internal"),
      aliases: ["getblocktemplate"],
      params: object({ wallet_address: str, reserve_size: u64, extra_nonce: str, prev_block: str }),
      handler: (p) => template(p),
    }),

    defineJsonRpc({
      name: "submit_block",
      mirrors: "cryptonote::core_rpc_server::on_submitblock",
      errors: [
        { code: CORE_RPC_ERROR.WRONG_PARAM, message: "Wrong param" },
        { code: CORE_RPC_ERROR.WRONG_BLOCKBLOB, message: "Wrong block blob" },
        { code: CORE_RPC_ERROR.WRONG_BLOCKBLOB_SIZE, message: "Block bloc size is too big, rejecting block" },
        { code: CORE_RPC_ERROR.BLOCK_NOT_ACCEPTED, message: "Block not accepted" },
        { code: CORE_RPC_ERROR.INTERNAL_ERROR, message: "Internal error" },
      ],
      aliases: ["submitblock"],
      params: anyJson,
      summary: "params: [block blob hex]",
      handler: async (p) => {
        if (!Array.isArray(p) || p.length !== 1) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Wrong param");
        const hexBlob = p[0];
        const blob = typeof hexBlob === "string" ? parseHexBuf(hexBlob) : undefined;
        if (!blob) throw new RpcError(CORE_RPC_ERROR.WRONG_BLOCKBLOB, "Wrong block blob");
        try {
          parseBlock(blob);
        } catch {
          throw new RpcError(CORE_RPC_ERROR.WRONG_BLOCKBLOB, "Wrong block blob");
        }
        if (blob.length > MAX_BLOCK_BLOB) throw new RpcError(CORE_RPC_ERROR.WRONG_BLOCKBLOB_SIZE, "Block bloc size is too big, rejecting block");
        const r = await core.submitBlock(blob);
        // not judged (the verify worker died twice): CORE_RPC_ERROR_CODE_INTERNAL_ERROR, not "Block not accepted"
        if (r.status === "error") throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, `Internal error: ${r.message ?? "the block could not be verified"}`);
        // monerod answers OK for an orphan (handle_block_found succeeds without verification_failed)
        const orphanOnly = r.flags !== undefined && r.flags.length > 0 && r.flags.every((f) => f === "marked_as_orphaned");
        if (r.status === "rejected" && !orphanOnly) throw new RpcError(CORE_RPC_ERROR.BLOCK_NOT_ACCEPTED, `Block not accepted${r.message ? `: ${r.message}` : ""}`);
        // later v0.18 releases name the submitted block (on_submitblock's block_id)
        return { block_id: toHex(r.id ?? blockHash(parseBlock(blob))), status: OK, untrusted: false };
      },
    }),

    defineJsonRpc({
      name: "generateblocks",
      errors: miningErrorDocs("regtest-required", "wrong-address", "subaddress", "bad-request", "block-not-accepted", "internal"),
      restricted: true,
      params: object({ amount_of_blocks: u64, wallet_address: str, prev_block: str, starting_nonce: u32 }),
      handler: async (p) => {
        if (core.network !== "regtest") throw new RpcError(CORE_RPC_ERROR.REGTEST_REQUIRED, "Regtest required when generating blocks");
        checkMinerAddress(d, p.wallet_address);
        let prevId: Uint8Array | undefined;
        if (p.prev_block !== "") {
          prevId = parseHash(p.prev_block);
          if (!prevId) throw new RpcError(CORE_RPC_ERROR.INTERNAL_ERROR, "Invalid prev_block");
        }
        if (p.amount_of_blocks > 100000n) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "amount_of_blocks: at most 100000 blocks per call");
        let r;
        try {
          r = await core.generateBlocks(Number(p.amount_of_blocks), p.wallet_address, { ...(prevId ? { prevId } : {}), startingNonce: p.starting_nonce });
        } catch (e) {
          const mapped = domainRpcError(e);
        if (mapped) throw mapped;
          throw new RpcError(CORE_RPC_ERROR.BLOCK_NOT_ACCEPTED, `Block not accepted${e instanceof Error ? `: ${e.message}` : ""}`);
        }
        // monerod: the last generated block's height (the chain height when none was asked)
        return { blocks: r.blocks.map(toHex), height: r.height, status: OK, untrusted: false };
      },
    }),

    defineJsonRpc({
      name: "get_miner_data",
      params: object({}, { arrayIsEmpty: true }),
      handler: () => {
        const height = store.height();
        const ctx = nextContext(core);
        const seed = core.seedFor(height);
        const backlog = [...core.pool.entries()]
          .sort((a, b) => {
            const x = a.fee * BigInt(b.weight);
            const y = b.fee * BigInt(a.weight);
            return x > y ? -1 : x < y ? 1 : 0;
          })
          .map((e) => ({ fee: e.fee, id: toHex(e.id), weight: e.weight }));
        const out = {
          already_generated_coins: store.alreadyGeneratedCoins(),
          difficulty: wide(ctx.difficulty).wide,
          height,
          major_version: ctx.hfVersion,
          median_weight: ctx.limits.effectiveMedian,
          prev_id: toHex(store.topHash()),
          seed_hash: toHex(seed.hash),
          status: OK,
          untrusted: false,
        };
        return backlog.length > 0 ? { ...out, tx_backlog: backlog } : out;
      },
    }),

    defineJsonRpc({
      name: "calc_pow",
      mirrors: "cryptonote::core_rpc_server::on_calcpow",
      restricted: true,
      params: object({ major_version: u8, height: u64, block_blob: str, seed_hash: str }),
      handler: async (p) => {
        // monerod hashes block_blob as given (get_block_longhash over the blob: pass the hashing blob)
        const blob = parseHexBuf(p.block_blob);
        if (!blob) throw new RpcError(CORE_RPC_ERROR.WRONG_BLOCKBLOB, "Wrong block blob");
        if (blob.length > MAX_BLOCK_BLOB) throw new RpcError(CORE_RPC_ERROR.WRONG_BLOCKBLOB_SIZE, "Block blob size is too big, rejecting block");
        let seed: Uint8Array | undefined;
        if (p.seed_hash !== "") {
          seed = parseHash(p.seed_hash);
          if (!seed) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, "Wrong seed hash");
        }
        if (p.major_version < 12) throw new RpcError(CORE_RPC_ERROR.WRONG_PARAM, `major_version ${p.major_version}: only RandomX (major version 12 and later) is supported`);
        if (p.height > 0xffffffffn) throw new RpcError(CORE_RPC_ERROR.TOO_BIG_HEIGHT, "height is too big");
        return toHex(await core.powHash(blob, Number(p.height), seed));
      },
    }),

    defineJsonPath({
      path: "/start_mining",
      restricted: true,
      params: object({ miner_address: str, threads_count: u64, do_background_mining: bool, ignore_battery: bool }),
      handler: (p) => {
        try {
          decodeAddress(p.miner_address, core.network);
        } catch {
          return { status: "Failed, wrong address", untrusted: false };
        }
        if (p.threads_count > 1024n) return { status: "Failed, too many threads relative to CPU cores.", untrusted: false };
        // core_rpc_server::on_start_mining answers this before trying (not a "Failed, …" status)
        if (core.minerStatus().active) return { status: "Already mining", untrusted: false };
        try {
          core.startMining(p.miner_address, Number(p.threads_count), { background: p.do_background_mining, ignoreBattery: p.ignore_battery });
        } catch (e) {
          // node/mining words its refusals as monerod's start_mining statuses ("Failed, …")
          if (e instanceof MiningError) return { status: e.message.startsWith("Failed") ? e.message : `Failed, ${e.message}`, untrusted: false };
          return { status: `Failed, mining not started${e instanceof Error ? `: ${e.message}` : ""}`, untrusted: false };
        }
        return { status: OK, untrusted: false };
      },
    }),

    defineJsonPath({
      path: "/stop_mining",
      restricted: true,
      params: object({}),
      handler: () => {
        if (!core.minerStatus().active) return { status: "Mining never started", untrusted: false }; // on_stop_mining
        core.stopMining();
        return { status: OK, untrusted: false };
      },
    }),

    defineJsonPath({
      path: "/mining_status",
      restricted: true,
      params: object({}),
      handler: () => {
        const withReport = core as typeof core & { miningReport?: () => MiningStatusReport };
        if (typeof withReport.miningReport === "function") {
          const r = withReport.miningReport();
          const w = wide(r.difficulty);
          return {
            active: r.active, address: r.address, bg_idle_threshold: r.bgIdleThreshold, bg_ignore_battery: r.bgIgnoreBattery,
            bg_min_idle_seconds: r.bgMinIdleSeconds, bg_target: r.bgTarget, block_reward: r.blockReward, block_target: r.blockTarget,
            difficulty: w.lo, difficulty_top64: w.top64, is_background_mining_enabled: r.isBackgroundMiningEnabled, pow_algorithm: r.powAlgorithm,
            speed: Math.round(r.speed), status: OK, threads_count: r.threadsCount, untrusted: false, wide_difficulty: w.wide,
          };
        }
        const m = core.minerStatus();
        const ctx = nextContext(core);
        const w = wide(ctx.difficulty);
        const height = store.height();
        const version = hardForkVersionAt(HARD_FORKS[core.network], height);
        return {
          active: m.active,
          address: m.active ? m.address : "",
          bg_idle_threshold: 90,
          bg_ignore_battery: false,
          bg_min_idle_seconds: 10,
          bg_target: 40,
          block_reward: baseBlockReward(store.alreadyGeneratedCoins(), version),
          block_target: 120,
          difficulty: w.lo,
          difficulty_top64: w.top64,
          is_background_mining_enabled: m.background,
          pow_algorithm: version >= 12 ? "RandomX" : "Cryptonight",
          speed: m.active ? Math.round(m.speed) : 0,
          status: OK,
          threads_count: m.active ? m.threads : 0,
          untrusted: false,
          wide_difficulty: w.wide,
        };
      },
    }),

    defineJsonPath({
      path: "/pop_blocks",
      restricted: true,
      params: object({ nblocks: u64 }),
      handler: async (p) => {
        const n = p.nblocks > BigInt(store.height()) ? store.height() : Number(p.nblocks);
        const height = await core.popBlocks(n);
        return { height, status: OK, untrusted: false };
      },
    }),
  ] as const;
}

export { fromHex };
