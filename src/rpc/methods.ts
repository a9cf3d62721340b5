/**
 * The method table: every RPC entry point declared once — JSON-RPC methods (POST /json_rpc), plain
 * JSON paths (/get_height …) and binary epee paths (/get_blocks.bin …) — with its name, aliases,
 * params schema (validation and defaults), handler and restricted flag. The server (server.ts) only
 * routes; what a request may contain and what a failure looks like come from here.
 */
import type { EpeeObjectCodec } from "../codec/epee-map.js";
import { JSONRPC_ERROR, WALLET_RPC_ERROR } from "./error-codes.js";
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

/** An error a method can answer, for its documentation (OpenRPC `errors`). */
export interface RpcErrorDoc {
  readonly code: number;
  readonly message: string;
}

/** What every declaration may carry for its documentation (the OpenRPC document and docs/rpc-methods.md). */
export interface MethodDocs {
  /** One line. Default: the service's spec text for the name (ServiceDocs.text). */
  summary?: string;
  /** Longer text. Default: the service's spec text. */
  description?: string;
  /** The C++ function it mirrors, e.g. "core_rpc_server::on_getblockcount". Default: `<class>::on_<name>`. */
  mirrors?: string;
  /** Errors of its own it can answer (the service's common ones are added). */
  errors?: readonly RpcErrorDoc[];
}

/** How a service documents itself (the OpenRPC document it serves at rpc.discover and GET /openrpc.json). */
export interface ServiceDocs {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  /** The C++ class whose on_<name> functions the methods mirror ("core_rpc_server", "wallet_rpc_server"). */
  readonly mirrorsClass: string;
  /** Summary and description per method name or path (from the service's spec). */
  readonly text?: Readonly<Record<string, { readonly summary: string; readonly description: string }>>;
  /** Errors every JSON-RPC method of the service can answer, given its declaration. */
  readonly commonErrors?: (m: { readonly restricted: boolean }) => readonly RpcErrorDoc[];
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

export interface JsonRpcMethod<P> extends MethodDocs {
  name: string;
  aliases?: string[];
  params: Schema<P>;
  /** Hidden on restricted servers (they answer as if the method did not exist, as monerod does). */
  restricted?: boolean;
  /** The result's shape, for generated docs (results are not checked at run time). */
  result?: { jsonSchema(): JsonSchema };
  /** Answer strings hold raw bytes (one char per byte, latin1), written byte for byte as epee writes blobs in JSON. */
  rawBytes?: boolean;
  handler(params: P, ctx: RpcContext): JsonWritable | Promise<JsonWritable>;
}

export interface JsonPath<P> extends MethodDocs {
  /** e.g. "/get_height". */
  path: string;
  aliases?: string[];
  params: Schema<P>;
  restricted?: boolean;
  /** As JsonRpcMethod.rawBytes. */
  rawBytes?: boolean;
  handler(params: P, ctx: RpcContext): JsonWritable | Promise<JsonWritable>;
}

export interface BinPath<Req, Res> extends MethodDocs {
  /** e.g. "/get_blocks.bin". */
  path: string;
  aliases?: string[];
  request: EpeeObjectCodec<Req>;
  response: EpeeObjectCodec<Res>;
  restricted?: boolean;
  handler(req: Req, ctx: RpcContext): Res | Promise<Res>;
  /**
   * A quicker reading of the usual shape of the request (say, a wallet's 1,300 get_outs entries),
   * giving exactly what `request` would decode; undefined for anything else, which `request` then
   * reads (and words the errors of).
   */
  fastDecode?(body: Uint8Array): Req | undefined;
  /**
   * Answers the server may send again, byte for byte, to a request with the same bytes while
   * `stamp()` returns the same value (say, the chain's height and revision; undefined: nothing is
   * reused now): a wallet at the top asks the same thing at every refresh. Only an answer that `keep`
   * accepts is kept, and only when `stamp()` still returns, when the handler gives it (at once or
   * after a wait), the value it returned when the request came. Leave it out when the answer depends on
   * anything else (the time, the client). `ignore`: root string fields of the request that do not
   * change the answer (monero-wallet-rpc signs every call in `client`, for RPC payment).
   */
  reuse?: { stamp(): string | undefined; keep(req: Req, res: Res): boolean; ignore?: ReadonlySet<string> };
  /**
   * An answer, already encoded, straight from the request's bytes, tried before anything else
   * (no key, no decoding): for a request every synced client sends in its own bytes but with the
   * same meaning (say, get_blocks.bin from the previous top right after a block). Undefined lets
   * the usual path (`reuse`, decode, handler) answer. It must give exactly the bytes the handler's
   * answer encodes to, and must not throw.
   */
  quick?(body: Uint8Array, ctx: RpcContext): Uint8Array | undefined;
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
  invalidParams: (err) => ({ code: JSONRPC_ERROR.INVALID_PARAMS, message: `Invalid params: ${err.message}` }),
  internal: () => ({ code: JSONRPC_ERROR.INTERNAL_ERROR, message: "Internal error" }),
};

type AnyJsonRpc = JsonRpcMethod<unknown>;
type AnyJsonPath = JsonPath<unknown>;
type AnyBinPath = BinPath<unknown, unknown>;

/**
 * What a restricted server does with a restricted JSON-RPC method: monerod hides it ("Method not
 * found", as if it did not exist); monero-wallet-rpc --restricted-rpc answers it with an error
 * (WALLET_RPC_ERROR_CODE_DENIED, "Command unavailable in restricted mode.") once its params load.
 * Restricted paths are always hidden (404). "handler": the method is listed and called, its handler
 * refuses it (the wallet, which checks for an open wallet first); the flag then only documents it.
 */
export type RestrictedPolicy = "hide" | "handler" | { code: number; message: string };

export const WALLET_RESTRICTED: RestrictedPolicy = { code: WALLET_RPC_ERROR.DENIED, message: "Command unavailable in restricted mode." };

export class MethodTable {
  private readonly rpc = new Map<string, AnyJsonRpc>();
  private readonly json = new Map<string, AnyJsonPath>();
  private readonly bin = new Map<string, AnyBinPath>();
  readonly errors: ErrorPolicy;
  readonly restrictedPolicy: RestrictedPolicy;
  /** How the service documents itself; undefined: it serves no OpenRPC document. */
  readonly docs: ServiceDocs | undefined;
  private readonly documents = new Map<boolean, JsonWritable>();

  constructor(opts: { errors?: ErrorPolicy; restricted?: RestrictedPolicy; docs?: ServiceDocs } = {}) {
    this.errors = opts.errors ?? EPEE_ERRORS;
    this.restrictedPolicy = opts.restricted ?? "hide";
    this.docs = opts.docs;
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
    const p = this.restrictedPolicy;
    return restricted && def.restricted && p !== "hide" && p !== "handler" ? p : undefined;
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
   * The OpenRPC 1.2.6 document of the JSON-RPC methods, generated from the declarations and the
   * service's docs (spec text, mirrored functions, errors); plain and .bin paths are listed under
   * "x-paths". `restricted`: leave out what a restricted server hides (monerod hides restricted
   * methods; monero-wallet-rpc answers them −7, but they are not callable there either).
   * Built once per flag: the table does not change after the service starts.
   */
  openRpc(restricted = false, info?: { title: string; version: string; description?: string }): JsonWritable {
    const cached = info ? undefined : this.documents.get(restricted);
    if (cached !== undefined) return cached;
    const doc = this.buildOpenRpc(restricted, info);
    if (!info) this.documents.set(restricted, doc);
    return doc;
  }

  private buildOpenRpc(restricted: boolean, info?: { title: string; version: string; description?: string }): JsonWritable {
    const { jsonRpc, json, bin } = this.list();
    const docs = this.docs;
    const head = info ?? { title: docs?.title ?? "RPC", version: docs?.version ?? "0", description: docs?.description };
    const textOf = (key: string) => docs?.text?.[key] ?? (key.startsWith("/") ? docs?.text?.[key.slice(1).replace(/\.bin$/, "")] : undefined);
    const mirrorsOf = (d: MethodDocs, key: string): string | undefined =>
      d.mirrors ?? (docs ? `${docs.mirrorsClass}::on_${key.replace(/^\//, "").replace(/\.bin$/, "")}` : undefined);
    const texts = (d: MethodDocs, key: string): Record<string, JsonWritable> => {
      const t = textOf(key);
      const out: Record<string, JsonWritable> = {};
      const summary = d.summary ?? t?.summary;
      const description = d.description ?? t?.description;
      if (summary !== undefined && summary !== "") out.summary = summary;
      if (description !== undefined && description !== "") out.description = description;
      return out;
    };
    const paramsOf = (schema: { jsonSchema(): JsonSchema }): { structure: string; params: JsonWritable[] } => {
      const js = schema.jsonSchema();
      if (js.type === "object" && js.properties) {
        const req = new Set(js.required ?? []);
        return { structure: "by-name", params: Object.entries(js.properties).map(([name, sch]) => ({ name, required: req.has(name), schema: sch as JsonWritable })) };
      }
      // positional params (e.g. on_get_block_hash [height], submit_block [blob]): each item as one param
      if (js.type === "array") return { structure: "by-position", params: [{ name: "item", required: true, schema: (js.items ?? {}) as JsonWritable, description: "each positional param" }] };
      return { structure: "either", params: [{ name: "params", required: false, schema: js as JsonWritable }] };
    };
    const errorsOf = (d: MethodDocs & { restricted?: boolean }): JsonWritable[] => {
      const all = [...(docs?.commonErrors?.({ restricted: d.restricted === true }) ?? []), ...(d.errors ?? [])];
      const seen = new Set<string>();
      return all.filter((e) => !seen.has(`${e.code} ${e.message}`) && seen.add(`${e.code} ${e.message}`)).map((e) => ({ code: e.code, message: e.message }));
    };
    const mirrors = (d: MethodDocs, key: string): Record<string, JsonWritable> => {
      const m = mirrorsOf(d, key);
      return m === undefined ? {} : { "x-mirrors": m };
    };
    return {
      openrpc: "1.2.6",
      info: head.description === undefined ? { title: head.title, version: head.version } : { title: head.title, version: head.version, description: head.description },
      methods: jsonRpc
        .filter((m) => !(restricted && m.restricted))
        .map((m) => {
          const p = paramsOf(m.params);
          return {
            name: m.name,
            ...texts(m, m.name),
            paramStructure: p.structure,
            params: p.params,
            result: { name: "result", schema: (m.result?.jsonSchema() ?? {}) as JsonWritable },
            errors: errorsOf(m),
            "x-aliases": m.aliases ?? [],
            "x-restricted": m.restricted === true,
            ...mirrors(m, m.name),
          };
        }),
      "x-paths": [
        ...json.map((d) => ({ path: d.path, aliases: d.aliases ?? [], kind: "json", restricted: d.restricted === true, ...texts(d, d.path), ...mirrors(d, d.path), params: d.params.jsonSchema() as JsonWritable })),
        ...bin.map((d) => ({ path: d.path, aliases: d.aliases ?? [], kind: "epee", restricted: d.restricted === true, ...texts(d, d.path), ...mirrors(d, d.path) })),
      ].filter((d) => !(restricted && d.restricted)),
    };
  }

  /** Every declaration once (not per alias), for docs. */
  list(): { jsonRpc: AnyJsonRpc[]; json: AnyJsonPath[]; bin: AnyBinPath[] } {
    return { jsonRpc: [...new Set(this.rpc.values())], json: [...new Set(this.json.values())], bin: [...new Set(this.bin.values())] };
  }
}
