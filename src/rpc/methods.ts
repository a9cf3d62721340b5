/**
 * The method table: every RPC entry point declared once — JSON-RPC methods (POST /json_rpc), plain
 * JSON paths (/get_height …) and binary epee paths (/get_blocks.bin …) — with its name, aliases,
 * params schema (validation and defaults), handler and restricted flag. The server (server.ts) only
 * routes; what a request may contain and what a failure looks like come from here.
 */
import type { EpeeObjectCodec } from "../codec/epee-map.js";
import type { JsonWritable } from "./json.js";
import type { JsonSchema, Schema, SchemaError } from "./schema.js";

/** What a handler knows about the call. */
export interface RpcContext {
  /** Remote IP address as node:net reports it. */
  remoteAddress: string;
  /** True on a restricted server instance (monerod's --restricted-rpc / restricted port). */
  restricted: boolean;
  /** Aborted when the client goes away or the server closes. */
  signal: AbortSignal;
}

/** An error a handler throws to answer with a JSON-RPC error object `{code, message}`. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface JsonRpcMethod<P> {
  name: string;
  aliases?: string[];
  params: Schema<P>;
  /** Hidden on restricted servers (they answer as if the method did not exist, as monerod does). */
  restricted?: boolean;
  summary?: string;
  /** The result's shape, for generated docs (results are not checked at run time). */
  result?: { jsonSchema(): JsonSchema };
  /** Answer strings hold raw bytes (one char per byte, latin1), written byte for byte as epee writes blobs in JSON. */
  rawBytes?: boolean;
  handler(params: P, ctx: RpcContext): JsonWritable | Promise<JsonWritable>;
}

export interface JsonPath<P> {
  /** e.g. "/get_height". */
  path: string;
  aliases?: string[];
  params: Schema<P>;
  restricted?: boolean;
  summary?: string;
  /** As JsonRpcMethod.rawBytes. */
  rawBytes?: boolean;
  handler(params: P, ctx: RpcContext): JsonWritable | Promise<JsonWritable>;
}

export interface BinPath<Req, Res> {
  /** e.g. "/get_blocks.bin". */
  path: string;
  aliases?: string[];
  request: EpeeObjectCodec<Req>;
  response: EpeeObjectCodec<Res>;
  restricted?: boolean;
  summary?: string;
  handler(req: Req, ctx: RpcContext): Res | Promise<Res>;
}

/** How a service (node or wallet) words its failures. */
export interface ErrorPolicy {
  /** Params that do not match the schema. */
  invalidParams(err: SchemaError, method: string): { code: number; message: string };
  /** A handler threw something other than RpcError (the details go to the log, never to the client). */
  internal(method: string): { code: number; message: string };
}

/**
 * epee's own answers, used by monerod and monero-wallet-rpc alike when a request does not load:
 * -32602 "Invalid params" (we add what was wrong), -32603 "Internal error".
 */
export const EPEE_ERRORS: ErrorPolicy = {
  invalidParams: (err) => ({ code: -32602, message: `Invalid params: ${err.message}` }),
  internal: () => ({ code: -32603, message: "Internal error" }),
};

type AnyJsonRpc = JsonRpcMethod<unknown>;
type AnyJsonPath = JsonPath<unknown>;
type AnyBinPath = BinPath<unknown, unknown>;

/**
 * What a restricted server does with a restricted JSON-RPC method: monerod hides it ("Method not
 * found", as if it did not exist); monero-wallet-rpc --restricted-rpc answers it with an error
 * (WALLET_RPC_ERROR_CODE_DENIED, "Command unavailable in restricted mode.") once its params load.
 * Restricted paths are always hidden (404).
 */
export type RestrictedPolicy = "hide" | { code: number; message: string };

export const WALLET_RESTRICTED: RestrictedPolicy = { code: -7, message: "Command unavailable in restricted mode." };

export class MethodTable {
  private readonly rpc = new Map<string, AnyJsonRpc>();
  private readonly json = new Map<string, AnyJsonPath>();
  private readonly bin = new Map<string, AnyBinPath>();
  readonly errors: ErrorPolicy;
  readonly restrictedPolicy: RestrictedPolicy;

  constructor(opts: { errors?: ErrorPolicy; restricted?: RestrictedPolicy } = {}) {
    this.errors = opts.errors ?? EPEE_ERRORS;
    this.restrictedPolicy = opts.restricted ?? "hide";
  }

  private claim<T>(map: Map<string, T>, names: string[], def: T, what: string): void {
    for (const n of names) {
      if (map.has(n) || (what === "path" && (this.json.has(n) || this.bin.has(n))))
        throw new Error(`${what} ${n} is declared twice`);
    }
    for (const n of names) map.set(n, def);
  }

  addJsonRpc<P>(def: JsonRpcMethod<P>): this {
    this.claim(this.rpc, [def.name, ...(def.aliases ?? [])], def as AnyJsonRpc, "JSON-RPC method");
    return this;
  }

  addJsonPath<P>(def: JsonPath<P>): this {
    this.claim(this.json, [def.path, ...(def.aliases ?? [])], def as AnyJsonPath, "path");
    return this;
  }

  addBinPath<Req, Res>(def: BinPath<Req, Res>): this {
    this.claim(this.bin, [def.path, ...(def.aliases ?? [])], def as unknown as AnyBinPath, "path");
    return this;
  }

  /** The method by name or alias; undefined when unknown, or restricted and hidden on a restricted server. */
  jsonRpc(name: string, restricted: boolean): AnyJsonRpc | undefined {
    const d = this.rpc.get(name);
    return d && !(restricted && d.restricted && this.restrictedPolicy === "hide") ? d : undefined;
  }

  /** The error a restricted server answers instead of running `def`, if any. */
  denied(def: AnyJsonRpc, restricted: boolean): { code: number; message: string } | undefined {
    return restricted && def.restricted && this.restrictedPolicy !== "hide" ? this.restrictedPolicy : undefined;
  }

  jsonPath(path: string, restricted: boolean): AnyJsonPath | undefined {
    const d = this.json.get(path);
    return d && !(restricted && d.restricted) ? d : undefined;
  }

  binPath(path: string, restricted: boolean): AnyBinPath | undefined {
    const d = this.bin.get(path);
    return d && !(restricted && d.restricted) ? d : undefined;
  }

  /**
   * An OpenRPC 1.2.6 document of the JSON-RPC methods, generated from the declarations; plain and
   * .bin paths are listed under "x-paths". On a restricted server, pass restricted = true to leave
   * out what it hides.
   */
  openRpc(info: { title: string; version: string; description?: string }, restricted = false): JsonWritable {
    const { jsonRpc, json, bin } = this.list();
    const paramsOf = (schema: { jsonSchema(): JsonSchema }): JsonWritable[] => {
      const js = schema.jsonSchema();
      if (js.type === "object" && js.properties) {
        const req = new Set(js.required ?? []);
        return Object.entries(js.properties).map(([name, sch]) => ({ name, required: req.has(name), schema: sch as JsonWritable }));
      }
      return [{ name: "params", required: false, schema: js as JsonWritable }];
    };
    return {
      openrpc: "1.2.6",
      info: { title: info.title, version: info.version, description: info.description },
      methods: jsonRpc
        .filter((m) => !(restricted && m.restricted))
        .map((m) => ({
          name: m.name,
          summary: m.summary,
          paramStructure: "by-name",
          params: paramsOf(m.params),
          result: { name: "result", schema: (m.result?.jsonSchema() ?? {}) as JsonWritable },
          "x-aliases": m.aliases ?? [],
          "x-restricted": m.restricted === true,
        })),
      "x-paths": [
        ...json.map((d) => ({ path: d.path, aliases: d.aliases ?? [], kind: "json", restricted: d.restricted === true, summary: d.summary, params: d.params.jsonSchema() as JsonWritable })),
        ...bin.map((d) => ({ path: d.path, aliases: d.aliases ?? [], kind: "epee", restricted: d.restricted === true, summary: d.summary })),
      ].filter((d) => !(restricted && d.restricted)),
    };
  }

  /** Every declaration once (not per alias), for docs. */
  list(): { jsonRpc: AnyJsonRpc[]; json: AnyJsonPath[]; bin: AnyBinPath[] } {
    return { jsonRpc: [...new Set(this.rpc.values())], json: [...new Set(this.json.values())], bin: [...new Set(this.bin.values())] };
  }
}
