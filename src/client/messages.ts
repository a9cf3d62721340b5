/**
 * Typed results of the node calls NodeClient makes (src/rpc/core_rpc_server_commands_defs.h in
 * Monero v0.18). Each is a schema (src/rpc/schema.ts), so parsing a result both checks and converts
 * it: u64 quantities (heights, amounts, difficulties, timestamps, sizes) become `bigint`; unknown
 * fields are ignored; absent ones take epee's zero defaults.
 */
import {
  array as epeeArray,
  bool as epeeBool,
  bytes as epeeBytes,
  type EpeeObjectCodec,
  EpeeTypeError,
  object as epeeObject,
  opt as epeeOpt,
  text as epeeText,
  u64 as epeeU64,
} from "../codec/epee-map.js";
import { decodeVarint } from "../codec/varint.js";
import { Writer } from "../codec/writer.js";
import type { AccessResponse } from "../protocol/rpc-bin.js";
import { array, bool, type Infer, object, str, u32, u64 } from "../rpc/schema.js";

const access = { status: str, untrusted: bool, credits: u64, top_hash: str };

export const getInfoResult = object({
  ...access,
  adjusted_time: u64,
  alt_blocks_count: u64,
  block_size_limit: u64,
  block_size_median: u64,
  block_weight_limit: u64,
  block_weight_median: u64,
  bootstrap_daemon_address: str,
  busy_syncing: bool,
  cumulative_difficulty: u64,
  cumulative_difficulty_top64: u64,
  database_size: u64,
  difficulty: u64,
  difficulty_top64: u64,
  free_space: u64,
  grey_peerlist_size: u64,
  height: u64,
  height_without_bootstrap: u64,
  incoming_connections_count: u64,
  mainnet: bool,
  nettype: str,
  offline: bool,
  outgoing_connections_count: u64,
  restricted: bool,
  rpc_connections_count: u64,
  stagenet: bool,
  start_time: u64,
  synchronized: bool,
  target: u64,
  target_height: u64,
  testnet: bool,
  top_block_hash: str,
  tx_count: u64,
  tx_pool_size: u64,
  update_available: bool,
  version: str,
  was_bootstrap_ever_used: bool,
  white_peerlist_size: u64,
  wide_cumulative_difficulty: str,
  wide_difficulty: str,
});
export type GetInfoResult = Infer<typeof getInfoResult>;

export const getHeightResult = object({ status: str, untrusted: bool, height: u64, hash: str });
export type GetHeightResult = Infer<typeof getHeightResult>;

export const getBlockCountResult = object({ status: str, untrusted: bool, count: u64 });
export type GetBlockCountResult = Infer<typeof getBlockCountResult>;

export const blockHeader = object({
  block_size: u64,
  block_weight: u64,
  cumulative_difficulty: u64,
  cumulative_difficulty_top64: u64,
  depth: u64,
  difficulty: u64,
  difficulty_top64: u64,
  hash: str,
  height: u64,
  long_term_weight: u64,
  major_version: u32,
  minor_version: u32,
  miner_tx_hash: str,
  nonce: u32,
  num_txes: u64,
  orphan_status: bool,
  pow_hash: str,
  prev_hash: str,
  reward: u64,
  timestamp: u64,
  wide_cumulative_difficulty: str,
  wide_difficulty: str,
});
export type BlockHeader = Infer<typeof blockHeader>;

export const blockHeaderResult = object({ ...access, block_header: blockHeader });
export type BlockHeaderResult = Infer<typeof blockHeaderResult>;

export const txEntry = object({
  tx_hash: str,
  as_hex: str,
  pruned_as_hex: str,
  prunable_as_hex: str,
  prunable_hash: str,
  as_json: str,
  in_pool: bool,
  double_spend_seen: bool,
  block_height: u64,
  confirmations: u64,
  block_timestamp: u64,
  received_timestamp: u64,
  output_indices: array(u64),
  relayed: bool,
});
export type TxEntry = Infer<typeof txEntry>;

export const getTransactionsResult = object({
  ...access,
  txs_as_hex: array(str),
  txs_as_json: array(str),
  missed_tx: array(str),
  txs: array(txEntry),
});
export type GetTransactionsResult = Infer<typeof getTransactionsResult>;

export const getTransactionPoolHashesResult = object({ ...access, tx_hashes: array(str) });
export type GetTransactionPoolHashesResult = Infer<typeof getTransactionPoolHashesResult>;

export const sendRawTransactionResult = object({
  ...access,
  double_spend: bool,
  fee_too_low: bool,
  invalid_input: bool,
  invalid_output: bool,
  low_mixin: bool,
  not_relayed: bool,
  overspend: bool,
  reason: str,
  sanity_check_failed: bool,
  too_big: bool,
  too_few_outputs: bool,
  tx_extra_too_big: bool,
});
export type SendRawTransactionResult = Infer<typeof sendRawTransactionResult>;

export const getFeeEstimateResult = object({ ...access, fee: u64, fees: array(u64), quantization_mask: u64 });
export type GetFeeEstimateResult = Infer<typeof getFeeEstimateResult>;

export const getVersionResult = object({ status: str, untrusted: bool, version: u32, release: bool });
export type GetVersionResult = Infer<typeof getVersionResult>;

export const outputDistributionJson = object({
  amount: u64,
  base: u64,
  binary: bool,
  compress: bool,
  distribution: array(u64),
  start_height: u64,
});
export const getOutputDistributionResult = object({ ...access, distributions: array(outputDistributionJson) });

export interface OutputDistribution {
  amount: bigint;
  start_height: bigint;
  base: bigint;
  /** Per block from start_height: outputs of `amount` created (cumulative when asked). */
  distribution: bigint[];
}
export interface GetOutputDistributionResult extends AccessResponse {
  distributions: OutputDistribution[];
}

export interface GetOutputDistributionRequest {
  amounts: bigint[];
  from_height: bigint;
  to_height: bigint;
  cumulative: boolean;
  binary: boolean;
  compress: boolean;
}

/** Request of /get_output_distribution.bin (epee). */
export const getOutputDistributionBinRequest = epeeObject<GetOutputDistributionRequest & { client: string }>({
  client: epeeText,
  amounts: epeeArray(epeeU64),
  from_height: epeeOpt(epeeU64, 0n),
  to_height: epeeOpt(epeeU64, 0n),
  cumulative: epeeOpt(epeeBool, false),
  binary: epeeOpt(epeeBool, true),
  compress: epeeOpt(epeeBool, false),
});

function u64sFromLe(b: Uint8Array, what: string): bigint[] {
  if (b.length % 8 !== 0) throw new EpeeTypeError(what, `blob of ${b.length} bytes is not a multiple of 8`);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: bigint[] = [];
  for (let k = 0; k < b.length; k += 8) out.push(dv.getBigUint64(k, true));
  return out;
}

/**
 * One distribution in epee form: `distribution` is an array of u64 when binary is false, a packed
 * little-endian u64 blob when binary, or `compressed_data` (varints) when binary and compress.
 * Written binary and uncompressed.
 */
const distributionEntry: EpeeObjectCodec<OutputDistribution> = (() => {
  const head = epeeObject({ amount: epeeU64, start_height: epeeU64, binary: epeeBool, compress: epeeBool, base: epeeU64 });
  const codec: EpeeObjectCodec<OutputDistribution> = {
    toSection(v) {
      const s = head.toSection({ ...v, binary: true, compress: false });
      const blob = new Uint8Array(8 * v.distribution.length);
      const dv = new DataView(blob.buffer);
      v.distribution.forEach((x, k) => dv.setBigUint64(8 * k, x, true));
      if (blob.length > 0) s.set("distribution", { kind: "string", value: blob });
      return s;
    },
    fromSection(s, what = "distribution") {
      const h = head.fromSection(s, what);
      let distribution: bigint[] = [];
      const raw = s.get(h.binary && h.compress ? "compressed_data" : "distribution");
      if (raw) {
        if (!h.binary) distribution = epeeArray(epeeU64).decode(raw, `${what}.distribution`);
        else if (!h.compress) distribution = u64sFromLe(epeeBytes.decode(raw, `${what}.distribution`), `${what}.distribution`);
        else {
          const b = epeeBytes.decode(raw, `${what}.compressed_data`);
          for (let k = 0; k < b.length; ) {
            const { value, next } = decodeVarint(b, k);
            distribution.push(value);
            k = next;
          }
        }
      }
      return { amount: h.amount, start_height: h.start_height, base: h.base, distribution };
    },
    encode: (v) => ({ kind: "object", value: codec.toSection(v) }),
    decode: (v, what) => {
      if (v.kind !== "object") throw new EpeeTypeError(what, `expected an object, found ${v.kind}`);
      return codec.fromSection(v.value, what);
    },
    empty: () => ({ amount: 0n, start_height: 0n, base: 0n, distribution: [] }),
  };
  return codec;
})();

/** Response of /get_output_distribution.bin (epee). */
export const getOutputDistributionBinResponse = epeeObject<GetOutputDistributionResult>({
  status: epeeText,
  untrusted: epeeBool,
  credits: epeeU64,
  top_hash: epeeText,
  distributions: epeeArray(distributionEntry),
});

/** Varint-packs a distribution the way monerod's compress_integer_array does. */
export function compressDistribution(xs: readonly (bigint | number)[]): Uint8Array {
  // one buffer for all (the Writer's varint: numbers while they are safe, not a bigint loop per value)
  const w = new Writer(2 * xs.length + 16);
  for (const x of xs) w.varint(x);
  return w.finish();
}
