/**
 * The HTTP RPC server shared by the node and the wallet service, answering as epee's
 * http_server + handlers map do (contrib/epee/include/net/http_server_handlers_map2.h), as
 * checked against monerod v0.18 with curl:
 * - POST (or GET) /json_rpc: one JSON-RPC 2.0 request per body (epee has no batches: a JSON array
 *   body answers -32700 "Parse error"); the id is echoed whatever its JSON type, and is 0 when
 *   absent or null; parse errors and a missing method answer with id 0 (-32700 / -32600
 *   "Invalid Request"); unknown methods -32601 "Method not found"; JSON written as epee writes it.
 *   HTTP status is 200 for all of these.
 * - plain JSON paths: a body that does not load → 400 "Bad request"; a handler failure → 500.
 * - .bin paths: epee portable storage in and out, content type application/octet-stream.
 * - unknown path → 404; restricted servers hide restricted methods (same answers as unknown ones).
 * - digest auth (--rpc-login): 401 with epee's two challenges before anything else is looked at.
 * - rpc.discover (JSON-RPC) and GET /openrpc.json: the OpenRPC document of a table declared with
 *   docs (neither monerod nor monero-wallet-rpc has them; both names are free there).
 * Plus limits monerod leaves to its socket layer: body size, slow clients, connections per IP.
 */
import type { AddressInfo } from "node:net";
import { appendFileSync } from "node:fs";
import { constants as perfConstants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { decodeEpee, encodeEpee, EpeeTypeError } from "../codec/epee-map.js";
import { EPEE_HTTP_LIMITS, epeeKeyWithout } from "../codec/epee.js";
import { DEFAULT_REALM, DigestAuthenticator, type Login } from "./digest.js";
import { type HttpAnswer, type HttpRequest, HttpServer } from "./http.js";
import { JSONRPC_ERROR } from "./error-codes.js";
import { isJsonObject, JsonParseError, parseJson, stringifyJsonParts, type JsonValue, type JsonWritable } from "./json.js";
import { type MethodTable, RpcError, type RpcContext } from "./methods.js";
import { SchemaError } from "./schema.js";
import type { ServerTls } from "./tls.js";

/** A JSON-RPC endpoint at another path than /json_rpc, with its own methods and login (see `RpcServerOptions.routes`). */
export interface RpcRoute {
  /** JSON-RPC methods at that path (POST); absent: a stream-only path. */
  readonly methods?: MethodTable;
  /** GET at that path: a streamed answer (HttpAnswer.stream, e.g. Server-Sent Events), after the login check. */
  readonly stream?: (req: HttpRequest) => HttpAnswer;
  /** Its own digest login; absent: the server's. */
  readonly auth?: DigestAuthenticator;
}

export interface RpcServerOptions {
  /**
   * More JSON-RPC endpoints: called with each request's path (not /json_rpc, which is always
   * `methods`); a route answers that path with its methods and login, undefined leaves the path to
   * the server's own tables (404 when none has it).
   */
  readonly routes?: (path: string) => RpcRoute | undefined;
  methods: MethodTable;
  /** Hide restricted methods (monerod --restricted-rpc, or the --rpc-restricted-bind-port instance). */
  restricted?: boolean;
  /** Require HTTP digest auth with these credentials (--rpc-login user:pass). */
  login?: Login;
  realm?: string;
  /**
   * Largest request body accepted, bytes. Default 1 MiB, monerod's MAX_RPC_CONTENT_LENGTH (monerod
   * drops the connection without an answer; we answer 413 and close). monero-wallet-rpc has no limit.
   */
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request (headers + body), ms. Default 30 s. */
  requestTimeoutMs?: number;
  /**
   * Idle keep-alive connections are closed after this, ms, whatever the peer. Default: epee's, 30 min
   * for loopback and private-network peers and 5 min for others (wallet2 keeps one connection to the
   * node open between refreshes and fails a call on a connection the server closed).
   */
  idleTimeoutMs?: number;
  /** Open connections at once, all clients. Default 100. */
  maxConnections?: number;
  /** Open connections at once from one IP. Default 100 (loopback included); the per-private-IP limit when maxConnectionsPerPublicIp is given. */
  maxConnectionsPerIp?: number;
  /** Open connections at once from one public IP (--rpc-max-connections-per-public-ip); default maxConnectionsPerIp. */
  maxConnectionsPerPublicIp?: number;
  /** A new connection from an address this refuses is closed at once (monerod: banned hosts). */
  allowConnection?: (ip: string) => boolean;
  /**
   * --rpc-access-control-origins: a request with an Origin header among these (or any, with "*")
   * gets epee's CORS headers on its answer; preflights (OPTIONS) are answered 200 without auth.
   */
  accessControlOrigins?: readonly string[];
  /** --rpc-response-soft-limit: answers queued for a connection past this many bytes hold its next request until the client reads. Default 1 MiB. */
  responseSoftLimit?: number;
  /**
   * How JSON answers are written: "epee" (default) byte for byte as monerod writes them (sorted
   * keys, CRLF, 2-space indent, inline arrays); "compact" for RFC 8259 text without whitespace.
   */
  jsonStyle?: "epee" | "compact";
  /** Where internal errors are reported (never to the client). Default console.error. */
  log?: (msg: string) => void;
  /** TLS (--rpc-ssl…, see tls.ts); absent: plain HTTP only, no look at the first byte. */
  tls?: ServerTls;
}

type Reply = HttpAnswer;

/**
 * TSMONERO_RPC_TIMING=<file>: one line per request (path, JSON-RPC method, ms from the whole
 * request received to the answer handed to the socket, bytes in and out) appended to that file, and
 * one per garbage collection of the process (its kind and pause, stamped at its start), so a slow
 * answer can be told from a collection next to it; for finding which call a client waits on
 * (bench/real-wallet.ts --trace). Unset: nothing is measured.
 */
const TIMING = process.env.TSMONERO_RPC_TIMING || undefined;
function timingLine(line: string, at = performance.now()): void {
  if (TIMING) appendFileSync(TIMING, `${(performance.timeOrigin + at).toFixed(1)}\t${line}\n`);
}
if (TIMING) {
  const kinds: Record<number, string> = {
    [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: "major",
    [perfConstants.NODE_PERFORMANCE_GC_MINOR]: "minor",
    [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
    [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
  };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = ((e as PerformanceEntry & { detail?: { kind?: number } }).detail)?.kind ?? 0;
      timingLine(`gc ${kinds[kind] ?? kind}\t${e.duration.toFixed(3)} ms`, e.startTime);
    }
  }).observe({ entryTypes: ["gc"] });
}

/** OpenRPC's service discovery method, answered with the table's document when it has docs. */
export const DISCOVER_METHOD = "rpc.discover";
/** The path serving the same document to GET. */
export const OPENRPC_PATH = "/openrpc.json";

const BAD_REQUEST = 400;

/** epee's DEFAULT_TIMEOUT_MS_REMOTE / DEFAULT_TIMEOUT_MS_LOCAL (abstract_tcp_server2.inl): idle connections. */
export const IDLE_TIMEOUT_REMOTE_MS = 300_000;
export const IDLE_TIMEOUT_LOCAL_MS = 1_800_000;

/** What a method's handler is given (a class: a getter in an object literal is slow to create per request). */
class Context implements RpcContext {
  readonly remoteAddress: string;

  constructor(
    private readonly req: HttpRequest,
    readonly restricted: boolean,
  ) {
    this.remoteAddress = req.remoteAddress;
  }

  get signal(): AbortSignal {
    return this.req.signal;
  }
}

/**
 * `answered(run())`, in the same tick when the handler is synchronous, else once it settles;
 * `failed` for what it throws or rejects with. `answered` and `failed` catch their own errors.
 */
function settle<T>(run: () => T | Promise<T>, answered: (v: T) => Reply, failed: (e: unknown) => Reply): Reply | Promise<Reply> {
  let out: T | Promise<T>;
  try {
    out = run();
  } catch (e) {
    return failed(e);
  }
  return out instanceof Promise ? out.then(answered, failed) : answered(out);
}

/** Answers kept for byte-identical requests (BinPath.reuse): at most this many, each at most KEPT_MAX_BYTES. */
const KEPT_ANSWERS = 256;
const KEPT_MAX_BYTES = 64 * 1024;
/** Requests larger than this are not looked up (their key would cost more than the answer saves). */
const KEPT_MAX_REQUEST = 16 * 1024;

/** A small LRU of encoded answers by path and request bytes, each valid under the stamp it was made with. */
class KeptAnswers {
  private readonly m = new Map<string, { stamp: string; reply: Reply }>();

  static key(path: string, body: Buffer, ignore: ReadonlySet<string> | undefined): string | undefined {
    if (body.length > KEPT_MAX_REQUEST) return undefined;
    const doc = ignore ? epeeKeyWithout(body, ignore) : body.toString("latin1");
    return doc === undefined ? undefined : `${path}\n${doc}`;
  }

  get(key: string, stamp: string): Reply | undefined {
    const e = this.m.get(key);
    if (e === undefined) return undefined;
    if (e.stamp !== stamp) {
      this.m.delete(key);
      return undefined;
    }
    // most recently used last
    this.m.delete(key);
    this.m.set(key, e);
    return e.reply;
  }

  clear(): void {
    this.m.clear();
  }

  set(key: string, stamp: string, reply: Reply): void {
    if (!(reply.body instanceof Uint8Array) || reply.body.length > KEPT_MAX_BYTES) return;
    this.m.delete(key);
    this.m.set(key, { stamp, reply });
    if (this.m.size > KEPT_ANSWERS) this.m.delete(this.m.keys().next().value as string);
  }
}

export class RpcServer {
  private readonly http: HttpServer;
  private readonly kept = new KeptAnswers();
  private readonly auth: DigestAuthenticator | undefined;
  private readonly o: Required<Omit<RpcServerOptions, "login" | "realm" | "tls" | "routes" | "maxConnectionsPerPublicIp" | "allowConnection" | "accessControlOrigins" | "responseSoftLimit">> & { idleTimeoutLocalMs: number };
  private readonly origins: ReadonlySet<string>;
  private readonly routes: RpcServerOptions["routes"];

  constructor(opts: RpcServerOptions) {
    this.o = {
      methods: opts.methods,
      restricted: opts.restricted ?? false,
      maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
      requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
      idleTimeoutMs: opts.idleTimeoutMs ?? IDLE_TIMEOUT_REMOTE_MS,
      idleTimeoutLocalMs: opts.idleTimeoutMs ?? IDLE_TIMEOUT_LOCAL_MS,
      maxConnections: opts.maxConnections ?? 100,
      maxConnectionsPerIp: opts.maxConnectionsPerIp ?? 100,
      jsonStyle: opts.jsonStyle ?? "epee",
      log: opts.log ?? ((m) => console.error(m)),
    };
    this.auth = opts.login ? new DigestAuthenticator(opts.login, opts.realm ?? DEFAULT_REALM) : undefined;
    this.origins = new Set(opts.accessControlOrigins ?? []);
    this.routes = opts.routes;
    this.http = new HttpServer(
      {
        maxBodyBytes: this.o.maxBodyBytes,
        requestTimeoutMs: this.o.requestTimeoutMs,
        idleTimeoutMs: this.o.idleTimeoutMs,
        idleTimeoutLocalMs: this.o.idleTimeoutLocalMs,
        maxConnections: this.o.maxConnections,
        maxConnectionsPerIp: this.o.maxConnectionsPerIp,
        ...(opts.maxConnectionsPerPublicIp !== undefined ? { maxConnectionsPerPublicIp: opts.maxConnectionsPerPublicIp } : {}),
        ...(opts.allowConnection ? { allowConnection: opts.allowConnection } : {}),
        ...(opts.responseSoftLimit !== undefined ? { maxQueuedBytes: opts.responseSoftLimit } : {}),
        tooLargeText: (limit) => `request body larger than the limit of ${limit} bytes\n`,
        log: this.o.log,
        ...(opts.tls ? { accept: (s, ready) => opts.tls?.accept(s, ready) } : {}),
      },
      (req) => this.onRequest(req),
    );
  }

  /** Listens on one more address (call again for an IPv6 one). */
  listen(port: number, host = "127.0.0.1"): Promise<AddressInfo> {
    return this.http.listen(port, host);
  }

  /** Stops listening, aborts running handlers and closes every connection. */
  close(): Promise<void> {
    return this.http.close();
  }

  /** Forgets every kept answer (BinPath.reuse): the next request of each is computed. */
  forgetKeptAnswers(): void {
    this.kept.clear();
  }

  get connections(): number {
    return this.http.connections;
  }

  /** The limits this server applies to each connection. */
  get limits(): { maxBodyBytes: number; requestTimeoutMs: number; idleTimeoutMs: number; idleTimeoutLocalMs: number } {
    return { maxBodyBytes: this.o.maxBodyBytes, requestTimeoutMs: this.o.requestTimeoutMs, idleTimeoutMs: this.o.idleTimeoutMs, idleTimeoutLocalMs: this.o.idleTimeoutLocalMs };
  }

  /** Bytes the HTTP layer holds for clients (input not yet parsed, bodies, answers not yet sent). */
  get heldBytes(): number {
    return this.http.heldBytes;
  }

  private onRequest(req: HttpRequest): Promise<Reply> | Reply {
    if (TIMING === undefined) return this.onRequestUntimed(req);
    const t0 = performance.now();
    const done = (r: Reply): Reply => {
      const m = req.url === "/json_rpc" ? /"method"\s*:\s*"([^"]{1,64})"/.exec(req.body.toString("latin1", 0, 512)) : null;
      const bytes = typeof r.body === "string" ? Buffer.byteLength(r.body) : Array.isArray(r.body) ? r.body.reduce((n: number, p: string) => n + Buffer.byteLength(p), 0) : (r.body as Uint8Array | undefined)?.length ?? 0;
      timingLine(`${req.url}${m ? ` ${m[1]}` : ""}\t${(performance.now() - t0).toFixed(3)} ms\t${req.body.length} B in\t${bytes} B out`);
      return r;
    };
    const r = this.onRequestUntimed(req);
    return r instanceof Promise ? r.then(done) : done(r);
  }

  private onRequestUntimed(req: HttpRequest): Promise<Reply> | Reply {
    const origin = req.headers.get("origin");
    // epee's get_response_header: the CORS headers go on every answer to an allowed Origin
    if (origin !== undefined && origin !== "" && (this.origins.has("*") || this.origins.has(origin))) {
      const cors: Record<string, string> = { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "www-authenticate" };
      if (req.method === "OPTIONS") cors["Access-Control-Allow-Headers"] = "Content-Type, Authorization, X-Requested-With";
      cors["Access-Control-Allow-Methods"] = "POST, PUT, GET, OPTIONS";
      const withCors = (r: Reply): Reply => ({ ...r, headers: { ...(r.headers ?? {}), ...cors } });
      const r = this.answer(req);
      return r instanceof Promise ? r.then(withCors) : withCors(r);
    }
    return this.answer(req);
  }

  private answer(req: HttpRequest): Promise<Reply> | Reply {
    const url = req.url;
    // epee answers every OPTIONS (a browser's CORS preflight) "200 OK" with no body and no type,
    // before any handler, so before the digest check too
    if (req.method === "OPTIONS") return { status: 200, reason: "OK", type: "", body: "" };
    const q0 = url.indexOf("?");
    const route = this.routes && url.startsWith("/") ? this.routes(q0 < 0 ? url : url.slice(0, q0)) : undefined;
    const auth = route?.auth ?? this.auth;
    if (auth) {
      const a = auth.check(req.method, url, req.headers.get("authorization"));
      if (!a.ok) {
        return {
          status: 401,
          type: "text/html",
          body: "<html><head><title>Unauthorized Access</title></head><body><h1>401 Unauthorized</h1></body></html>",
          headers: { "WWW-Authenticate": a.challenges },
        };
      }
    }
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const ctx = new Context(req, this.o.restricted);
    if (route?.stream && req.method === "GET") return route.stream(req);
    if (route) return route.methods ? this.jsonRpc(req.body, ctx, route.methods) : { status: 405, type: "text/plain", body: "use GET for this stream\n", headers: { Allow: "GET" } };
    if (path === "/json_rpc") return this.jsonRpc(req.body, ctx);
    // the service's OpenRPC document (what a restricted server hides is left out)
    if (path === OPENRPC_PATH && this.o.methods.docs && (req.method === "GET" || req.method === "HEAD"))
      return this.json(this.o.methods.openRpc(this.o.restricted));
    if (this.o.methods.jsonPath(path, this.o.restricted)) return this.jsonPath(path, req.body, ctx);
    if (this.o.methods.binPath(path, this.o.restricted)) return this.binPath(path, req.body, ctx);
    return { status: 404, type: "text/plain", body: "" };
  }

  private json(v: JsonWritable, rawBytes = false): Reply {
    const parts = stringifyJsonParts(v, { style: this.o.jsonStyle === "epee" ? "epee" : "standard" });
    // epee writes blob strings byte for byte (no UTF-8): such answers carry one char per byte
    if (rawBytes) return { status: 200, type: "application/json", body: Buffer.from(parts.length === 1 ? parts[0] : parts.join(""), "latin1") };
    return { status: 200, type: "application/json", body: parts.length === 1 ? parts[0] : parts };
  }

  private jsonRpc(body: Buffer, ctx: RpcContext, table: MethodTable = this.o.methods): Promise<Reply> | Reply {
    let root: JsonValue;
    try {
      // epee loads an empty body as an empty object (then: no method, -32600)
      root = body.toString("latin1").trim() === "" ? {} : parseJson(body);
    } catch (e) {
      const why = e instanceof JsonParseError ? `: ${e.message}` : "";
      return this.json({ error: { code: JSONRPC_ERROR.PARSE_ERROR, message: `Parse error${why}` }, id: 0, jsonrpc: "2.0" });
    }
    if (!isJsonObject(root))
      return this.json({
        error: { code: JSONRPC_ERROR.PARSE_ERROR, message: "Parse error: the body must be one JSON object (batches are not supported)" },
        id: 0,
        jsonrpc: "2.0",
      });
    const id: JsonValue = root.id === undefined || root.id === null ? 0 : root.id;
    const name = root.method;
    if (typeof name !== "string")
      return this.json({ error: { code: JSONRPC_ERROR.INVALID_REQUEST, message: "Invalid Request" }, id: 0, jsonrpc: "2.0" });
    if (name === DISCOVER_METHOD && table.docs && !table.jsonRpc(name, this.o.restricted))
      return this.json({ id, jsonrpc: "2.0", result: table.openRpc(this.o.restricted) });
    const def = table.jsonRpc(name, this.o.restricted);
    if (!def) return this.json({ error: { code: JSONRPC_ERROR.METHOD_NOT_FOUND, message: "Method not found" }, id, jsonrpc: "2.0" });
    let params: unknown;
    try {
      params = def.params.parse(root.params, "params");
    } catch (e) {
      if (!(e instanceof SchemaError)) throw e;
      return this.json({ error: table.errors.invalidParams(e, def.name), id, jsonrpc: "2.0" });
    }
    const denied = table.denied(def, this.o.restricted);
    if (denied) return this.json({ error: { code: denied.code, message: denied.message }, id, jsonrpc: "2.0" });
    const failed = (e: unknown): Reply => {
      if (e instanceof RpcError) return this.json({ error: { code: e.code, message: e.message }, id, jsonrpc: "2.0" });
      if (e instanceof SchemaError) return this.json({ error: table.errors.invalidParams(e, def.name), id, jsonrpc: "2.0" });
      this.o.log(`rpc: ${def.name} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return this.json({ error: table.errors.internal(def.name), id, jsonrpc: "2.0" });
    };
    const answered = (result: JsonWritable): Reply => {
      try {
        return this.json({ id, jsonrpc: "2.0", result }, def.rawBytes === true);
      } catch (e) {
        // a result JSON cannot hold (a non-finite number): the internal error, never an empty 500
        this.o.log(`rpc: ${def.name}: answer not writable as JSON: ${e instanceof Error ? e.message : String(e)}`);
        return this.json({ error: table.errors.internal(def.name), id, jsonrpc: "2.0" });
      }
    };
    return settle(() => def.handler(params, ctx), answered, failed);
  }

  private jsonPath(path: string, body: Buffer, ctx: RpcContext): Promise<Reply> | Reply {
    const def = this.o.methods.jsonPath(path, this.o.restricted);
    if (!def) return { status: 404, type: "text/plain", body: "" };
    let params: unknown;
    try {
      const text = body.toString("utf8").trim();
      params = def.params.parse(text === "" ? undefined : parseJson(text), "");
    } catch (e) {
      if (e instanceof JsonParseError || e instanceof SchemaError)
        return { status: BAD_REQUEST, type: "text/plain", body: `Bad request: ${e.message}\n` };
      throw e;
    }
    const failed = (e: unknown): Reply => {
      if (e instanceof RpcError) return this.json({ status: e.message, untrusted: false });
      this.o.log(`rpc: ${path} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return { status: 500, type: "text/plain", body: "" };
    };
    const answered = (v: JsonWritable): Reply => {
      try {
        return this.json(v, def.rawBytes === true);
      } catch (e) {
        return failed(e);
      }
    };
    return settle(() => def.handler(params, ctx), answered, failed);
  }

  private binPath(path: string, body: Buffer, ctx: RpcContext): Promise<Reply> | Reply {
    const def = this.o.methods.binPath(path, this.o.restricted);
    if (!def) return { status: 404, type: "text/plain", body: "" };
    if (def.quick) {
      let quick: Uint8Array | undefined;
      try {
        quick = def.quick(body, ctx);
      } catch (e) {
        // the usual path answers; the failure is logged, not swallowed
        this.o.log(`rpc: ${path}: the quick answer failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (quick !== undefined) return { status: 200, type: "application/octet-stream", body: quick };
    }
    const reuse = def.reuse;
    const stamp = reuse?.stamp();
    const key = stamp === undefined ? undefined : KeptAnswers.key(path, body, reuse?.ignore);
    if (key !== undefined) {
      const hit = this.kept.get(key, stamp as string);
      if (hit) return hit;
    }
    let req: unknown;
    try {
      req = body.length === 0 ? def.request.empty() : (def.fastDecode?.(body) ?? decodeEpee(def.request, body, EPEE_HTTP_LIMITS));
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return { status: BAD_REQUEST, type: "text/plain", body: `Bad request: ${why}\n` };
    }
    const failed = (e: unknown): Reply => {
      if (e instanceof RpcError || e instanceof EpeeTypeError) {
        this.o.log(`rpc: ${path}: ${e.message}`);
      } else this.o.log(`rpc: ${path} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      return { status: 500, type: "text/plain", body: "" };
    };
    const t0 = TIMING ? performance.now() : 0;
    // kept while the stamp is still the one the request came under: an answer given after a wait
    // may belong to another (a block may have come in between)
    const encoded = (out: unknown): Reply => {
      try {
        const t1 = TIMING ? performance.now() : 0;
        const bytes = encodeEpee(def.response, out);
        if (TIMING) timingLine(`${path} handler ${(t1 - t0).toFixed(3)} ms, encode ${(performance.now() - t1).toFixed(3)} ms`);
        const reply: Reply = { status: 200, type: "application/octet-stream", body: bytes };
        if (key !== undefined && reuse !== undefined && reuse.stamp() === stamp && reuse.keep(req, out)) this.kept.set(key, stamp as string, reply);
        return reply;
      } catch (e) {
        return failed(e);
      }
    };
    return settle(() => def.handler(req, ctx), encoded, failed);
  }
}
