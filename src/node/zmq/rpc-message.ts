/**
 * monerod's ZMQ RPC envelope (src/rpc/message.cpp) and its reading of request fields
 * (src/serialization/json_object.cpp's fromJsonValue): JSON-RPC 2.0 shaped, but with monerod's own
 * error object `{code: 1, error_str, message}`:
 * - text that is not a JSON object: "Malformed json" / "Failed to parse the json request";
 * - no `jsonrpc`, no `method` (or not a string), no `params`, no `id`, or a field of the wrong
 *   type: "Malformed json" with the json_object.cpp message, and `"id": null`;
 * - an unknown method: "Invalid request type" / "\"<method>\" is not a valid request.", the id kept;
 * - a handler's failure: its status ("Failed") and details, the id kept.
 * A result is `{"rpc_version": 131072, <fields>}`. Field order is the C++ writers' order.
 */
import { type JsonObject, JsonParseError, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../../rpc/json.js";

/** DAEMON_RPC_VERSION_ZMQ: 2.0. */
export const ZMQ_RPC_VERSION = 2 << 16;

/** json::JSON_ERROR: a request monerod answers with "Malformed json". */
export class ZmqJsonError extends Error {
  override name = "ZmqJsonError";
}

/** json::MISSING_KEY. */
export const missingKey = (key: string): ZmqJsonError => new ZmqJsonError(`Key "${key}" missing from object.`);
/** json::WRONG_TYPE. */
export const wrongType = (type: string): ZmqJsonError => new ZmqJsonError(`Json value has incorrect type, expected: ${type}`);
/** json::BAD_INPUT. */
export const badInput = (): ZmqJsonError => new ZmqJsonError("An item failed to convert from json object to native object");

/** A handler's answer when it fails: Message::status and error_details. */
export class ZmqFailure extends Error {
  override name = "ZmqFailure";
  constructor(
    message: string,
    readonly status = "Failed",
  ) {
    super(message);
  }
}

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A parsed request: FullMessage(json, true). */
export interface ZmqRequest {
  method: string;
  params: JsonValue;
  /** Absent when the request has no `id` (which monerod reports once it needs the id). */
  id: JsonValue | undefined;
}

/** FullMessage's checks, in its order. */
export function parseRequest(text: string | Uint8Array): ZmqRequest {
  let doc: JsonValue;
  try {
    doc = parseJson(text);
  } catch (e) {
    if (e instanceof JsonParseError) throw new ZmqJsonError("Failed to parse the json request");
    throw e;
  }
  if (!isObject(doc)) throw new ZmqJsonError("Failed to parse the json request");
  if (!("jsonrpc" in doc)) throw missingKey("jsonrpc");
  if (!("method" in doc)) throw missingKey("method");
  const method = doc.method;
  if (typeof method !== "string") throw wrongType("Expected string");
  if (!("params" in doc)) throw missingKey("params");
  return { method, params: doc.params, id: "id" in doc ? doc.id : undefined };
}

/** FullMessage::getID. */
export function requestId(req: ZmqRequest): JsonValue {
  if (req.id === undefined) throw missingKey("id");
  return req.id;
}

/** FullMessage::getResponse of an OK message: `result` is rpc_version, then the message's fields. */
export function resultText(id: JsonValue, fields: Record<string, JsonWritable>): string {
  return stringifyJson({ jsonrpc: "2.0", id, result: { rpc_version: ZMQ_RPC_VERSION, ...fields } });
}

/** FullMessage::getResponse of a failed message (rpc::error: code 1, the status, the details). */
export function errorText(id: JsonValue, status: string, message: string): string {
  return stringifyJson({ jsonrpc: "2.0", id, error: { code: 1, error_str: status, message } });
}

/** BAD_JSON. */
export const badJson = (message: string): string => errorText(null, "Malformed json", message);
/** BAD_REQUEST. */
export const badRequest = (method: string, id: JsonValue): string => errorText(id, "Invalid request type", `"${method}" is not a valid request.`);

// ---- fromJsonValue: a request's fields, with json_object.cpp's checks and messages ----

/** A request's params as an object (monerod asserts, and aborts, on anything else: we refuse it). */
export function paramsObject(params: JsonValue): JsonObject {
  if (!isObject(params)) throw wrongType("json object");
  return params;
}

/** GET_FROM_JSON_OBJECT: the member, or MISSING_KEY. */
export function member(o: JsonObject, key: string): JsonValue {
  if (!(key in o)) throw missingKey(key);
  return o[key];
}

const isInteger = (v: JsonValue): v is number | bigint => typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));

/** to_uint64 / to_uint with convert_numeric: an unsigned integer no larger than `max`. */
export function readUint(v: JsonValue, max: bigint = (1n << 64n) - 1n): bigint {
  if (!isInteger(v) || BigInt(v) < 0n || BigInt(v) > (max > 0xffffffffn ? (1n << 64n) - 1n : 0xffffffffn)) throw wrongType("unsigned integer");
  const n = BigInt(v);
  if (n > max) throw wrongType("numeric overflow");
  return n;
}

/** to_int with convert_numeric into a type of [min, max]. */
export function readInt(v: JsonValue, min: number, max: number): number {
  if (!isInteger(v) || BigInt(v) < -(1n << 31n) || BigInt(v) >= 1n << 31n) throw wrongType("integer");
  const n = Number(v);
  if (n < min) throw wrongType("numeric underflow");
  if (n > max) throw wrongType("numeric overflow");
  return n;
}

export function readBool(v: JsonValue): boolean {
  if (typeof v !== "boolean") throw wrongType("boolean");
  return v;
}

export function readString(v: JsonValue): string {
  if (typeof v !== "string") throw wrongType("string");
  return v;
}

/** read_hex into a 32-byte POD (hash, key image, key): exactly 64 hex digits. */
export function readHash(v: JsonValue): Uint8Array {
  if (typeof v !== "string") throw wrongType("string");
  if (!/^[0-9a-fA-F]{64}$/.test(v)) throw badInput();
  return new Uint8Array(Buffer.from(v, "hex"));
}

/** A vector-like field: a JSON array, each item read by `item`. */
export function readArray<T>(v: JsonValue, item: (x: JsonValue) => T): T[] {
  if (!Array.isArray(v)) throw wrongType("json array");
  return v.map(item);
}

/** A struct field (output_amount_and_index and the like): a JSON object. */
export function readObject(v: JsonValue): JsonObject {
  if (!isObject(v)) throw wrongType("json object");
  return v;
}
