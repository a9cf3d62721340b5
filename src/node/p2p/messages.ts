/**
 * The P2P commands monerod speaks over Levin, as epee objects: the node commands of
 * p2p/p2p_protocol_defs.h (1001 handshake, 1002 timed sync, 1003 ping, 1007 support flags) and the
 * block/tx commands of cryptonote_protocol/cryptonote_protocol_defs.h (2001..2010), plus the
 * network ids of cryptonote_config.h (regtest speaks mainnet's).
 */
import {
  array,
  bool,
  bytes,
  encodeEpee,
  type EpeeCodec,
  type EpeeObjectCodec,
  EpeeTypeError,
  i64,
  object,
  opt,
  podArray,
  podBlob,
  text,
  u16,
  u32,
  u64,
  u8,
} from "../../codec/epee-map.js";
import type { EpeeSection } from "../../codec/epee.js";
import { varintSize } from "../../codec/varint.js";
import type { Network } from "../../protocol/network.js";
import { type BlockCompleteEntry, blockCompleteEntry } from "../../protocol/rpc-bin.js";
import { hexToBytes } from "../../base/bytes.js";

export const COMMAND_HANDSHAKE = 1001;
export const COMMAND_TIMED_SYNC = 1002;
export const COMMAND_PING = 1003;
export const COMMAND_REQUEST_SUPPORT_FLAGS = 1007;
export const NOTIFY_NEW_BLOCK = 2001;
export const NOTIFY_NEW_TRANSACTIONS = 2002;
export const NOTIFY_REQUEST_GET_OBJECTS = 2003;
export const NOTIFY_RESPONSE_GET_OBJECTS = 2004;
export const NOTIFY_REQUEST_CHAIN = 2006;
export const NOTIFY_RESPONSE_CHAIN_ENTRY = 2007;
export const NOTIFY_NEW_FLUFFY_BLOCK = 2008;
export const NOTIFY_REQUEST_FLUFFY_MISSING_TX = 2009;
export const NOTIFY_GET_TXPOOL_COMPLEMENT = 2010;

/** P2P_SUPPORT_FLAG_FLUFFY_BLOCKS, the only flag 0.18 has. */
export const P2P_SUPPORT_FLAG_FLUFFY_BLOCKS = 0x01;
/** CURRENCY_PROTOCOL_MAX_OBJECT_REQUEST_COUNT. */
export const MAX_OBJECT_REQUEST_COUNT = 500;
/** BLOCKS_IDS_SYNCHRONIZING_DEFAULT_COUNT / _MAX_COUNT. */
export const BLOCK_IDS_DEFAULT_COUNT = 10000;
export const BLOCK_IDS_MAX_COUNT = 25000;
/** P2P_MAX_PEERS_IN_HANDSHAKE. */
export const MAX_PEERS_IN_HANDSHAKE = 250;

/** config::NETWORK_ID and its testnet/stagenet variants ("Bender's nightmare"/"daydream"). */
export const NETWORK_IDS: Readonly<Record<Network, Uint8Array>> = {
  mainnet: hexToBytes("1230f171610441611731008216a1a110"),
  testnet: hexToBytes("1230f171610441611731008216a1a111"),
  stagenet: hexToBytes("1230f171610441611731008216a1a112"),
  regtest: hexToBytes("1230f171610441611731008216a1a110"),
};

/** config::P2P_DEFAULT_PORT per network (regtest: mainnet's). */
export const DEFAULT_P2P_PORT: Readonly<Record<Network, number>> = { mainnet: 18080, testnet: 28080, stagenet: 38080, regtest: 18080 };

/** epee::net_utils::network_address: ipv4 / ipv6 kept; tor and i2p read as "other" and ignored. */
export type PeerAddress =
  | { type: "ipv4"; host: string; port: number }
  | { type: "ipv6"; host: string; port: number }
  | { type: "other"; typeId: number };

function ipv4FromInt(ip: number): string {
  return [ip & 255, (ip >>> 8) & 255, (ip >>> 16) & 255, (ip >>> 24) & 255].join(".");
}
function ipv4ToInt(host: string): number {
  const o = host.split(".").map(Number);
  return ((o[3] << 24) >>> 0) + (o[2] << 16) + (o[1] << 8) + o[0];
}
function ipv6ToBytes(host: string): Uint8Array {
  const [head, tail] = host.includes("::") ? host.split("::") : [host, undefined];
  const a = head ? head.split(":") : [];
  const b = tail !== undefined && tail !== "" ? tail.split(":") : [];
  const groups = tail === undefined ? a : [...a, ...new Array<string>(8 - a.length - b.length).fill("0"), ...b];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16) || 0;
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 255;
  });
  return out;
}
function ipv6FromBytes(b: Uint8Array): string {
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((b[i] << 8) | b[i + 1]).toString(16));
  return g.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

const ipv4Codec = object<{ m_ip: number; m_port: number }>({ m_ip: u32, m_port: u16 });
const ipv6Codec = object<{ addr: Uint8Array; m_port: number }>({ addr: podBlob(16), m_port: u16 });

export const peerAddress: EpeeCodec<PeerAddress> = {
  encode(v) {
    const s: EpeeSection = new Map();
    if (v.type === "ipv4") {
      s.set("type", { kind: "uint8", value: 1 });
      s.set("addr", ipv4Codec.encode({ m_ip: ipv4ToInt(v.host), m_port: v.port })!);
    } else if (v.type === "ipv6") {
      s.set("type", { kind: "uint8", value: 2 });
      s.set("addr", ipv6Codec.encode({ addr: ipv6ToBytes(v.host), m_port: v.port })!);
    } else throw new RangeError("cannot write an address of an unsupported type");
    return { kind: "object", value: s };
  },
  decode(v, what) {
    if (v.kind !== "object") throw new EpeeTypeError(what, `expected an object, found ${v.kind}`);
    const t = v.value.get("type");
    const type = t ? u8.decode(t, `${what}.type`) : 0;
    const addr = v.value.get("addr");
    if (type === 1 && addr) {
      const a = ipv4Codec.decode(addr, `${what}.addr`);
      return { type: "ipv4", host: ipv4FromInt(a.m_ip), port: a.m_port };
    }
    if (type === 2 && addr) {
      const a = ipv6Codec.decode(addr, `${what}.addr`);
      return { type: "ipv6", host: ipv6FromBytes(a.addr), port: a.m_port };
    }
    if (type === 3 || type === 4) return { type: "other", typeId: type };
    throw new EpeeTypeError(what, `unsupported network address type ${type}`);
  },
  empty: () => ({ type: "other", typeId: 0 }),
};

export interface PeerlistEntry {
  adr: PeerAddress;
  id: bigint;
  last_seen: bigint;
  pruning_seed: number;
  rpc_port: number;
  rpc_credits_per_hash: number;
}
export const peerlistEntry = object<PeerlistEntry>({
  adr: peerAddress,
  id: u64,
  last_seen: opt(i64, 0n),
  pruning_seed: opt(u32, 0),
  rpc_port: opt(u16, 0),
  rpc_credits_per_hash: opt(u32, 0),
});

export interface BasicNodeData {
  network_id: Uint8Array;
  my_port: number;
  rpc_port: number;
  rpc_credits_per_hash: number;
  peer_id: bigint;
  support_flags: number;
}
export const basicNodeData = object<BasicNodeData>({
  network_id: podBlob(16),
  my_port: u32,
  rpc_port: opt(u16, 0),
  rpc_credits_per_hash: opt(u32, 0),
  peer_id: u64,
  support_flags: opt(u32, 0),
});

export interface CoreSyncData {
  current_height: bigint;
  cumulative_difficulty: bigint;
  cumulative_difficulty_top64: bigint;
  top_id: Uint8Array;
  top_version: number;
  pruning_seed: number;
}
const coreSyncDataFields = {
  current_height: u64,
  cumulative_difficulty: u64,
  cumulative_difficulty_top64: u64,
  top_id: podBlob(32),
  top_version: opt(u8, 0),
  pruning_seed: opt(u32, 0),
};
export const coreSyncData = object<CoreSyncData>(coreSyncDataFields);

export interface HandshakeRequest {
  node_data: BasicNodeData;
  payload_data: CoreSyncData;
}
export const handshakeRequest = object<HandshakeRequest>({ node_data: basicNodeData, payload_data: coreSyncData });
export interface HandshakeResponse extends HandshakeRequest {
  local_peerlist_new: PeerlistEntry[];
}
export const handshakeResponse = object<HandshakeResponse>({ node_data: basicNodeData, payload_data: coreSyncData, local_peerlist_new: array(peerlistEntry) });
export interface TimedSyncRequest {
  payload_data: CoreSyncData;
}
export const timedSyncRequest = object<TimedSyncRequest>({ payload_data: coreSyncData });
export interface TimedSyncResponse extends TimedSyncRequest {
  local_peerlist_new: PeerlistEntry[];
}
export const timedSyncResponse = object<TimedSyncResponse>({ payload_data: coreSyncData, local_peerlist_new: array(peerlistEntry) });
export const emptyMessage = object<Record<string, never>>({});
export const pingResponse = object<{ status: string; peer_id: bigint }>({ status: text, peer_id: u64 });
export const supportFlagsResponse = object<{ support_flags: number }>({ support_flags: u32 });

export interface NewBlock {
  b: BlockCompleteEntry;
  current_blockchain_height: bigint;
}
/** NOTIFY_NEW_BLOCK and NOTIFY_NEW_FLUFFY_BLOCK share this shape. */
export const newBlock = object<NewBlock>({ b: blockCompleteEntry, current_blockchain_height: u64 });

export interface NewTransactions {
  txs: Uint8Array[];
  _: Uint8Array;
  dandelionpp_fluff: boolean;
}
export const newTransactions = object<NewTransactions>({ txs: array(bytes), _: bytes, dandelionpp_fluff: opt(bool, true) });

/**
 * NOTIFY_NEW_TRANSACTIONS' body (levin_notify's make_tx_message). With `pad` (--pad-transactions)
 * the `_` field is filled with spaces so the body is a multiple of 1024 bytes, as monerod does: an
 * estimate first, then trimmed by what the encoded body is over (a byte may be lost to the size
 * varint, which monerod does not mind either).
 */
export function newTransactionsBody(txs: readonly Uint8Array[], fluff: boolean, pad = false): Uint8Array {
  const body = (padding: number): Uint8Array => encodeEpee(newTransactions, { txs: [...txs], _: new Uint8Array(padding).fill(0x20), dandelionpp_fluff: fluff });
  if (!pad) return body(0);
  const GRANULARITY = 1024;
  let bytes = 9 + 4 + varintSize(txs.length);
  for (const t of txs) bytes += varintSize(t.length) + t.length;
  let padding = GRANULARITY - (bytes % GRANULARITY);
  const overhead = 2 + varintSize(padding);
  padding = overhead > padding ? 0 : padding - overhead;
  const remove = body(padding).length % GRANULARITY;
  return body(remove > padding ? 0 : padding - remove);
}

export interface RequestGetObjects {
  blocks: Uint8Array[];
  prune: boolean;
}
export const requestGetObjects = object<RequestGetObjects>({ blocks: podArray(32), prune: opt(bool, false) });

export interface ResponseGetObjects {
  blocks: BlockCompleteEntry[];
  missed_ids: Uint8Array[];
  current_blockchain_height: bigint;
}
export const responseGetObjects = object<ResponseGetObjects>({ blocks: array(blockCompleteEntry), missed_ids: podArray(32), current_blockchain_height: u64 });

export interface RequestChain {
  block_ids: Uint8Array[];
  prune: boolean;
}
export const requestChain = object<RequestChain>({ block_ids: podArray(32), prune: opt(bool, false) });

export interface ResponseChainEntry {
  start_height: bigint;
  total_height: bigint;
  cumulative_difficulty: bigint;
  cumulative_difficulty_top64: bigint;
  m_block_ids: Uint8Array[];
  m_block_weights: Uint8Array[];
  first_block: Uint8Array;
}
/** m_block_weights is a POD container of u64s: kept as 8-byte blobs here, read with weightsOf. */
export const responseChainEntry = object<ResponseChainEntry>({
  start_height: u64,
  total_height: u64,
  cumulative_difficulty: u64,
  cumulative_difficulty_top64: u64,
  m_block_ids: podArray(32),
  m_block_weights: podArray(8),
  first_block: bytes,
});

export interface RequestFluffyMissingTx {
  block_hash: Uint8Array;
  current_blockchain_height: bigint;
  missing_tx_indices: Uint8Array[];
}
export const requestFluffyMissingTx = object<RequestFluffyMissingTx>({
  block_hash: podBlob(32),
  current_blockchain_height: u64,
  missing_tx_indices: podArray(8),
});

export const getTxpoolComplement = object<{ hashes: Uint8Array[] }>({ hashes: podArray(32) });

/** A u64 as an 8-byte little-endian POD (KV_SERIALIZE_CONTAINER_POD_AS_BLOB of uint64_t). */
export function u64Pod(x: bigint | number): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(x));
  return new Uint8Array(b);
}
export function podU64(b: Uint8Array): bigint {
  return Buffer.from(b.buffer, b.byteOffset, 8).readBigUInt64LE(0);
}

/** A typed codec for each command, for logging and the fuzz test. */
export const COMMAND_NAMES: Readonly<Record<number, string>> = {
  [COMMAND_HANDSHAKE]: "COMMAND_HANDSHAKE",
  [COMMAND_TIMED_SYNC]: "COMMAND_TIMED_SYNC",
  [COMMAND_PING]: "COMMAND_PING",
  [COMMAND_REQUEST_SUPPORT_FLAGS]: "COMMAND_REQUEST_SUPPORT_FLAGS",
  [NOTIFY_NEW_BLOCK]: "NOTIFY_NEW_BLOCK",
  [NOTIFY_NEW_TRANSACTIONS]: "NOTIFY_NEW_TRANSACTIONS",
  [NOTIFY_REQUEST_GET_OBJECTS]: "NOTIFY_REQUEST_GET_OBJECTS",
  [NOTIFY_RESPONSE_GET_OBJECTS]: "NOTIFY_RESPONSE_GET_OBJECTS",
  [NOTIFY_REQUEST_CHAIN]: "NOTIFY_REQUEST_CHAIN",
  [NOTIFY_RESPONSE_CHAIN_ENTRY]: "NOTIFY_RESPONSE_CHAIN_ENTRY",
  [NOTIFY_NEW_FLUFFY_BLOCK]: "NOTIFY_NEW_FLUFFY_BLOCK",
  [NOTIFY_REQUEST_FLUFFY_MISSING_TX]: "NOTIFY_REQUEST_FLUFFY_MISSING_TX",
  [NOTIFY_GET_TXPOOL_COMPLEMENT]: "NOTIFY_GET_TXPOOL_COMPLEMENT",
};

export type { BlockCompleteEntry, EpeeObjectCodec };
