/**
 * Levin framing (contrib/epee/include/net/levin_base.h): a 33-byte little-endian header
 * (signature 0x0101010101012101, body size, "expects a response" flag, command, return code,
 * flags, protocol version) followed by the body, an epee document for every Monero command.
 * This module only frames; commands and their payloads live above it.
 */
import { FormatError, Reader } from "./reader.js";
import { Writer } from "./writer.js";

export const LEVIN_SIGNATURE = 0x0101010101012101n;
export const LEVIN_HEADER_SIZE = 33;
/** LEVIN_INITIAL_MAX_PACKET_SIZE: before a handshake completes. */
export const LEVIN_INITIAL_MAX_PACKET_SIZE = 256 * 1024;
/** LEVIN_DEFAULT_MAX_PACKET_SIZE: after the handshake. */
export const LEVIN_DEFAULT_MAX_PACKET_SIZE = 100000000;
export const LEVIN_PACKET_REQUEST = 0x1;
export const LEVIN_PACKET_RESPONSE = 0x2;
export const LEVIN_PACKET_BEGIN = 0x4;
export const LEVIN_PACKET_END = 0x8;
export const LEVIN_PROTOCOL_VER_1 = 1;

export interface LevinHeader {
  /** Body size in bytes. */
  cb: number;
  haveToReturnData: boolean;
  command: number;
  returnCode: number;
  flags: number;
  protocolVersion: number;
}

/** Reads and checks a header; `maxPacketSize` bounds the body size it announces. */
export function parseLevinHeader(buf: Uint8Array, maxPacketSize = LEVIN_DEFAULT_MAX_PACKET_SIZE, offset = 0): LevinHeader {
  const r = new Reader(buf, offset);
  const sig = r.u64le("levin signature");
  if (sig !== LEVIN_SIGNATURE) throw new FormatError("levin signature", offset, `bad signature 0x${sig.toString(16)}`);
  const cb = r.u64le("levin body size");
  if (cb > BigInt(maxPacketSize))
    throw new FormatError("levin body size", offset + 8, `body of ${cb} bytes exceeds the ${maxPacketSize}-byte limit`);
  // a raw C++ bool in Monero: any non-zero byte reads as true
  const ret = r.u8("levin have_to_return_data");
  return {
    cb: Number(cb),
    haveToReturnData: ret !== 0,
    command: r.u32le("levin command"),
    returnCode: r.u32le("levin return code") | 0,
    flags: r.u32le("levin flags"),
    protocolVersion: r.u32le("levin protocol version"),
  };
}

export function serializeLevinHeader(h: LevinHeader): Uint8Array {
  const w = new Writer(LEVIN_HEADER_SIZE);
  w.u64le(LEVIN_SIGNATURE)
    .u64le(BigInt(h.cb))
    .u8(h.haveToReturnData ? 1 : 0)
    .u32le(h.command)
    .u32le(h.returnCode >>> 0)
    .u32le(h.flags)
    .u32le(h.protocolVersion);
  return w.finish();
}

export interface LevinMessage {
  header: LevinHeader;
  body: Uint8Array;
}

/**
 * Splits one framed message off the front of `buf`. Returns undefined when more bytes are needed
 * (a stream reader calls again when they arrive); throws FormatError on a bad header.
 */
export function readLevinMessage(
  buf: Uint8Array,
  maxPacketSize = LEVIN_DEFAULT_MAX_PACKET_SIZE,
): { message: LevinMessage; rest: Uint8Array } | undefined {
  if (buf.length < LEVIN_HEADER_SIZE) return undefined;
  const header = parseLevinHeader(buf, maxPacketSize);
  const end = LEVIN_HEADER_SIZE + header.cb;
  if (buf.length < end) return undefined;
  return { message: { header, body: buf.subarray(LEVIN_HEADER_SIZE, end) }, rest: buf.subarray(end) };
}

/** Parses a buffer holding exactly one message. */
export function parseLevinMessage(buf: Uint8Array, maxPacketSize = LEVIN_DEFAULT_MAX_PACKET_SIZE): LevinMessage {
  if (buf.length < LEVIN_HEADER_SIZE)
    throw new FormatError("levin header", 0, `needs ${LEVIN_HEADER_SIZE} bytes, ${buf.length} given`);
  const header = parseLevinHeader(buf, maxPacketSize);
  const end = LEVIN_HEADER_SIZE + header.cb;
  if (buf.length < end) throw new FormatError("levin body", LEVIN_HEADER_SIZE, `needs ${header.cb} bytes, ${buf.length - LEVIN_HEADER_SIZE} left`);
  if (buf.length > end) throw new FormatError("levin message", end, `${buf.length - end} unexpected trailing byte(s)`);
  return { header, body: buf.subarray(LEVIN_HEADER_SIZE, end) };
}

export function serializeLevinMessage(h: Omit<LevinHeader, "cb">, body: Uint8Array): Uint8Array {
  const head = serializeLevinHeader({ ...h, cb: body.length });
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}
