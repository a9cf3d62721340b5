/**
 * Monero addresses (src/cryptonote_basic/cryptonote_basic_impl.cpp, src/common/base58.cpp):
 * base58(varint(prefix) ‖ spend public key ‖ view public key [‖ 8-byte payment id] ‖ keccak[0..4]).
 *
 * `decodeAddress` accepts exactly what Monero's `get_account_address_from_str` accepts, in the same
 * order of checks, and when it refuses it says precisely why (`AddressError.reason`): bad base58,
 * too short, checksum, unknown prefix, another network's prefix, wrong length for the type, a key
 * that is not a curve point. It also accepts Monero's pre-base58 format: 132 hex characters (version
 * byte 0, both keys, a byte-sum checksum), valid on every network and never checked for curve points,
 * as Monero does.
 */
import { base58Decode, base58Encode, Base58Error } from "../codec/base58.js";
import { decodeVarint, encodeVarintNumber, VarintError } from "../codec/varint.js";
import type { Bytes, CryptoBackend } from "../crypto/backend.js";
import { defaultBackend } from "../crypto/index.js";
import { ADDRESS_NETWORKS, type AddressNetwork, addressNetwork, type Network, NETWORKS } from "./network.js";

export type AddressKind = "standard" | "subaddress" | "integrated";

/** A decoded address. */
export interface Address {
  readonly network: AddressNetwork;
  readonly kind: AddressKind;
  readonly spendPublicKey: Bytes;
  readonly viewPublicKey: Bytes;
  /** The 8-byte payment id of an integrated address, else null. */
  readonly paymentId: Bytes | null;
}

export type AddressErrorReason =
  | "empty"
  | "base58"
  | "too-short"
  | "checksum"
  | "prefix"
  | "network"
  | "length"
  | "key"
  | "old-format";

/** Why a string is not an address (of the wanted network). */
export class AddressError extends Error {
  override readonly name = "AddressError";
  constructor(
    readonly reason: AddressErrorReason,
    message: string,
  ) {
    super(message);
  }
}

const CHECKSUM_SIZE = 4;
const KEYS_SIZE = 64;
const INTEGRATED_SIZE = 72;
/** 2 × sizeof(public_address_outer_blob): version byte, 64 key bytes, checksum byte, in hex. */
const OLD_FORMAT_HEX_LENGTH = 132;

/** Which network and kind a base58 tag denotes, if any. */
function classifyPrefix(tag: bigint): { network: AddressNetwork; kind: AddressKind } | null {
  for (const network of ADDRESS_NETWORKS) {
    const p = NETWORKS[network];
    if (tag === BigInt(p.addressPrefix)) return { network, kind: "standard" };
    if (tag === BigInt(p.integratedAddressPrefix)) return { network, kind: "integrated" };
    if (tag === BigInt(p.subaddressPrefix)) return { network, kind: "subaddress" };
  }
  return null;
}

function prefixOf(network: AddressNetwork, kind: AddressKind): number {
  const p = NETWORKS[network];
  return kind === "standard" ? p.addressPrefix : kind === "integrated" ? p.integratedAddressPrefix : p.subaddressPrefix;
}

const HEX_RE = /^[0-9a-fA-F]*$/;

/** Monero's old hex address format (cryptonote_basic_impl.cpp, the `else` branch). */
function decodeOldFormat(text: string, network: AddressNetwork): Address {
  if (!HEX_RE.test(text)) throw new AddressError("old-format", "a 132-character address must be hex (Monero's old address format), and this is not");
  const blob = Uint8Array.from(Buffer.from(text, "hex"));
  if (blob[0] > 0) throw new AddressError("old-format", `old-format address has unknown version ${blob[0]} (expected 0)`);
  let sum = 0;
  for (let i = 0; i < blob.length - 1; i++) sum = (sum + blob[i]) & 0xff;
  if (sum !== blob[blob.length - 1]) throw new AddressError("checksum", "old-format address checksum (byte sum) does not match");
  return {
    network,
    kind: "standard",
    spendPublicKey: blob.slice(1, 33),
    viewPublicKey: blob.slice(33, 65),
    paymentId: null,
  };
}

function describe(kind: AddressKind): string {
  return kind === "standard" ? "a standard address" : kind === "integrated" ? "an integrated address" : "a subaddress";
}

/**
 * Decodes an address. With `network`, only that network's addresses are accepted (as Monero's
 * `get_account_address_from_str(info, nettype, str)`); without it, any of the three networks.
 * Throws `AddressError` naming what is wrong.
 */
export function decodeAddress(text: string, network?: Network, backend: CryptoBackend = defaultBackend()): Address {
  const want = network === undefined ? undefined : addressNetwork(network);
  if (text.length === 0) throw new AddressError("empty", "address is empty");
  if (text.length === OLD_FORMAT_HEX_LENGTH) return decodeOldFormat(text, want ?? "mainnet");
  let raw: Uint8Array;
  try {
    raw = base58Decode(text);
  } catch (e) {
    if (e instanceof Base58Error) throw new AddressError("base58", `address is not valid base58: ${e.message}`);
    throw e;
  }
  if (raw.length <= CHECKSUM_SIZE) throw new AddressError("too-short", `address is too short (${text.length} characters)`);
  const body = raw.subarray(0, raw.length - CHECKSUM_SIZE);
  const hash = backend.keccak256(body);
  for (let i = 0; i < CHECKSUM_SIZE; i++) {
    if (hash[i] !== raw[body.length + i]) {
      throw new AddressError("checksum", "address checksum does not match (a character is wrong or missing)");
    }
  }
  let tag: bigint;
  let start: number;
  try {
    const v = decodeVarint(body, 0);
    tag = v.value;
    start = v.next;
  } catch (e) {
    if (e instanceof VarintError) throw new AddressError("prefix", `address prefix is not a valid varint: ${e.message}`);
    throw e;
  }
  const cls = classifyPrefix(tag);
  if (!cls) throw new AddressError("prefix", `address prefix ${tag} is not a Monero address prefix of any network`);
  if (want !== undefined && cls.network !== want) {
    throw new AddressError("network", `${describe(cls.kind)} of ${cls.network}, not ${want}`);
  }
  const data = body.subarray(start);
  const expected = cls.kind === "integrated" ? INTEGRATED_SIZE : KEYS_SIZE;
  if (data.length !== expected) {
    throw new AddressError(
      "length",
      `${describe(cls.kind)} must carry ${expected} bytes after its prefix, this one carries ${data.length}`,
    );
  }
  const spendPublicKey = data.slice(0, 32);
  const viewPublicKey = data.slice(32, 64);
  if (!backend.pointCheck(spendPublicKey)) throw new AddressError("key", "address spend public key is not a valid curve point");
  if (!backend.pointCheck(viewPublicKey)) throw new AddressError("key", "address view public key is not a valid curve point");
  return {
    network: cls.network,
    kind: cls.kind,
    spendPublicKey,
    viewPublicKey,
    paymentId: cls.kind === "integrated" ? data.slice(64, 72) : null,
  };
}

/** `decodeAddress` that returns null instead of throwing (Monero's boolean answer). */
export function tryDecodeAddress(text: string, network?: Network, backend?: CryptoBackend): Address | null {
  try {
    return decodeAddress(text, network, backend);
  } catch (e) {
    if (e instanceof AddressError) return null;
    throw e;
  }
}

/**
 * Encodes an address (get_account_address_as_str / get_account_integrated_address_as_str). `paymentId`
 * (8 bytes) is required for, and only allowed with, kind "integrated".
 */
export function encodeAddress(
  network: Network,
  kind: AddressKind,
  spendPublicKey: Bytes,
  viewPublicKey: Bytes,
  paymentId: Bytes | null = null,
  backend: CryptoBackend = defaultBackend(),
): string {
  if (spendPublicKey.length !== 32 || viewPublicKey.length !== 32) throw new TypeError("encodeAddress: keys must be 32 bytes");
  if ((kind === "integrated") !== (paymentId !== null)) {
    throw new TypeError("encodeAddress: a payment id goes with, and only with, an integrated address");
  }
  if (paymentId !== null && paymentId.length !== 8) throw new TypeError("encodeAddress: an integrated address takes an 8-byte payment id");
  const tag = encodeVarintNumber(prefixOf(addressNetwork(network), kind));
  const len = tag.length + 64 + (paymentId ? 8 : 0);
  const buf = new Uint8Array(len + CHECKSUM_SIZE);
  buf.set(tag, 0);
  buf.set(spendPublicKey, tag.length);
  buf.set(viewPublicKey, tag.length + 32);
  if (paymentId) buf.set(paymentId, tag.length + 64);
  buf.set(backend.keccak256(buf.subarray(0, len)).subarray(0, CHECKSUM_SIZE), len);
  return base58Encode(buf);
}

/** The same address re-encoded as `kind` (e.g. the standard address inside an integrated one). */
export function addressToString(a: Address, backend?: CryptoBackend): string {
  return encodeAddress(a.network, a.kind, a.spendPublicKey, a.viewPublicKey, a.paymentId, backend);
}

/** validate_address's answer (wallet_rpc_server.cpp on_validate_address, without OpenAlias). */
export interface ValidateAddressResult {
  valid: boolean;
  integrated: boolean;
  subaddress: boolean;
  nettype: string;
  openalias_address: string;
}

/**
 * Monero's validate_address: with `anyNetType`, tries mainnet, testnet, stagenet in that order;
 * otherwise only the wallet's network. Returns the RPC's fields, plus `error` (ours, not Monero's)
 * saying why an invalid address is invalid for the wallet's network.
 */
export function validateAddress(
  text: string,
  opts: { walletNetwork?: Network; anyNetType?: boolean },
  backend: CryptoBackend = defaultBackend(),
): ValidateAddressResult & { error?: string } {
  const nets: AddressNetwork[] = opts.anyNetType
    ? [...ADDRESS_NETWORKS]
    : opts.walletNetwork !== undefined
      ? [addressNetwork(opts.walletNetwork)]
      : [];
  let firstError: string | undefined;
  for (const net of nets) {
    try {
      const a = decodeAddress(text, net, backend);
      return {
        valid: true,
        integrated: a.kind === "integrated",
        subaddress: a.kind === "subaddress",
        nettype: net,
        openalias_address: "",
      };
    } catch (e) {
      if (!(e instanceof AddressError)) throw e;
      firstError ??= e.message;
    }
  }
  return { valid: false, integrated: false, subaddress: false, nettype: "", openalias_address: "", error: firstError };
}
