/**
 * NodeClient: talks to any Monero node (monerod, or ours) over its HTTP RPC — JSON-RPC at
 * /json_rpc, plain JSON paths, and binary epee `.bin` paths — with exact u64 JSON, HTTP digest
 * auth (answering the 401 challenge, as epee's http_client does), per-call timeouts and bounded
 * retries for idempotent reads. The wallet reaches the node only through this class.
 *
 * Failures are typed:
 * - NoDaemonConnectionError: nothing answered (refused, reset, timed out, DNS); the wallet maps it
 *   to monero-wallet-rpc's WALLET_RPC_ERROR_CODE_NO_DAEMON_CONNECTION (−38).
 * - NodeAuthError: 401 without or with wrong credentials.
 * - NodeHttpError: any other non-200 answer (400 bad request, 404 no such path — e.g. a restricted
 *   node hiding a path, 500 handler failure).
 * - NodeRpcError: a JSON-RPC error object {code, message}.
 * - NodeStatusError: a result whose `status` is not "OK" (e.g. "BUSY", "Failed").
 * - NodeResponseError: an answer that does not parse or does not match the expected shape.
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import { connect as tlsConnect, TLSSocket } from "node:tls";
import { decodeEpee, encodeEpee, type EpeeObjectCodec } from "../codec/epee-map.js";
import { EPEE_HTTP_LIMITS } from "../codec/epee.js";
import {
  type GetBlocksBinRequest,
  type GetBlocksBinResponse,
  getBlocksBinRequest,
  getBlocksBinResponse,
  type GetOutputsOut,
  type GetOutsBinResponse,
  getOutsBinRequest,
  getOutsBinResponse,
} from "../protocol/rpc-bin.js";
import { DigestClient, type Login, parseLogin } from "../rpc/digest.js";
import { WALLET_RPC_ERROR } from "../rpc/error-codes.js";
import { isJsonObject, parseJson, stringifyJson, type JsonValue, type JsonWritable } from "../rpc/json.js";
import { type Schema, SchemaError } from "../rpc/schema.js";
import { type ClientTls, clientTls, type SslOptions } from "../rpc/tls.js";

/** The TLS options of a node connection (--daemon-ssl*, set_daemon's ssl_*). */
export type { SslOptions };
import {
  type BlockHeaderResult,
  blockHeaderResult,
  type GetBlockCountResult,
  getBlockCountResult,
  type GetFeeEstimateResult,
  getFeeEstimateResult,
  type GetHeightResult,
  getHeightResult,
  type GetInfoResult,
  getInfoResult,
  type GetOutputDistributionRequest,
  getOutputDistributionBinRequest,
  getOutputDistributionBinResponse,
  type GetOutputDistributionResult,
  getOutputDistributionResult,
  type GetTransactionPoolHashesResult,
  getTransactionPoolHashesResult,
  type GetTransactionsResult,
  getTransactionsResult,
  type GetVersionResult,
  getVersionResult,
  type SendRawTransactionResult,
  sendRawTransactionResult,
} from "./messages.js";

export class NodeClientError extends Error {}

/** The node could not be reached or did not answer in time. */
export class NoDaemonConnectionError extends NodeClientError {
  override readonly name = "NoDaemonConnectionError";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`No connection to daemon at ${url}: ${reason}`);
  }
}

export class NodeAuthError extends NodeClientError {
  override readonly name = "NodeAuthError";
}

export class NodeHttpError extends NodeClientError {
  override readonly name = "NodeHttpError";
  constructor(
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${path}: HTTP ${status}${body ? `: ${body.slice(0, 200).trim()}` : ""}`);
  }
}

export class NodeRpcError extends NodeClientError {
  override readonly name = "NodeRpcError";
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
  ) {
    super(`${method}: error ${code}: ${rpcMessage}`);
  }
}

export class NodeStatusError extends NodeClientError {
  override readonly name = "NodeStatusError";
  constructor(
    readonly call: string,
    readonly status: string,
  ) {
    super(`${call}: node answered status "${status}"`);
  }
}

export class NodeResponseError extends NodeClientError {
  override readonly name = "NodeResponseError";
}

/**
 * The error monero-wallet-rpc answers when a node call fails this way (wallet_rpc_server.cpp
 * handle_rpc_exception with wallet_errors.h texts): no connection → −38 "no connection to daemon",
 * status BUSY → −3 "daemon is busy". Undefined for failures the wallet words per method.
 */
export function walletRpcErrorOf(e: unknown): { code: number; message: string } | undefined {
  if (e instanceof NoDaemonConnectionError) return { code: WALLET_RPC_ERROR.NO_DAEMON_CONNECTION, message: "no connection to daemon" };
  if (e instanceof NodeStatusError && e.status === "BUSY") return { code: WALLET_RPC_ERROR.DAEMON_IS_BUSY, message: "daemon is busy" };
  return undefined;
}

export interface NodeClientOptions {
  /** e.g. "http://127.0.0.1:18081" (a trailing path is kept as a prefix). */
  url: string;
  /** "user:pass" or {username, password}, for nodes run with --rpc-login. */
  login?: string | Login;
  /** Per-call timeout, ms (whole request and answer). Default 30 s. */
  timeoutMs?: number;
  /** Retries of idempotent reads after a connection failure. Default 2. */
  retries?: number;
  /** First retry delay, ms; doubles each time. Default 200. */
  retryDelayMs?: number;
  /** Largest answer accepted, bytes. Default 256 MiB (get_blocks.bin answers can be big). */
  maxResponseBytes?: number;
  /**
   * TLS to the node as epee's http client does it (--daemon-ssl*, set_daemon's ssl_*): `enabled`
   * speaks only TLS, `disabled` only plain HTTP, `autodetect` tries a TLS handshake on the first
   * call and falls back to plain HTTP for good if the node does not speak TLS. Absent: the url's
   * scheme decides (https:// = TLS with node's default certificate checks). Files are read here;
   * a bad one throws SslConfigError naming the flag.
   */
  ssl?: SslOptions;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface RawAnswer {
  status: number;
  body: Buffer;
  challenges: string[];
  /** Whether we sent an Authorization header. */
  sentAuth: boolean;
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "ETIMEDOUT",
  "ERR_SOCKET_CONNECTION_TIMEOUT",
]);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class NodeClient {
  readonly url: string;
  private readonly base: URL;
  private readonly login: Login | undefined;
  /** The latest challenge from any connection: used on connections that have none of their own yet. */
  private readonly digest: DigestClient | undefined;
  /** Per connection: epee keeps one nonce and nc counter per connection (http_auth.cpp). */
  private readonly digestBySocket = new WeakMap<object, DigestClient>();
  private readonly agents: { "http:"?: HttpAgent; "https:"?: HttpsAgent } = {};
  private readonly tls: ClientTls | undefined;
  /** The scheme in use; a promise while autodetect's first handshake runs. */
  private scheme: "http:" | "https:" | undefined;
  private probing: Promise<"http:" | "https:"> | undefined;
  /** TLS sockets whose peer passed the check (keep-alive reuses them). */
  private readonly verified = new WeakSet<TLSSocket>();
  private readonly o: Required<Omit<NodeClientOptions, "login" | "url" | "ssl">>;
  private nextId = 0;

  constructor(opts: NodeClientOptions) {
    this.base = new URL(opts.url);
    if (this.base.protocol !== "http:" && this.base.protocol !== "https:")
      throw new TypeError(`node url must be http:// or https://, got ${opts.url}`);
    this.url = this.base.origin + this.base.pathname.replace(/\/+$/, "");
    const login = typeof opts.login === "string" ? parseLogin(opts.login) : opts.login;
    this.login = login;
    this.digest = login ? new DigestClient(login) : undefined;
    this.tls = opts.ssl ? clientTls(opts.ssl) : undefined;
    const support = this.base.protocol === "https:" ? "enabled" : (opts.ssl?.support ?? "disabled");
    this.scheme = support === "enabled" ? "https:" : support === "disabled" ? "http:" : undefined;
    this.o = {
      timeoutMs: opts.timeoutMs ?? 30_000,
      retries: opts.retries ?? 2,
      retryDelayMs: opts.retryDelayMs ?? 200,
      maxResponseBytes: opts.maxResponseBytes ?? 256 * 1024 * 1024,
    };
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agents["http:"]?.destroy();
    this.agents["https:"]?.destroy();
  }

  /** Whether calls go over TLS (undefined until autodetect has tried). */
  get secure(): boolean | undefined {
    return this.scheme === undefined ? undefined : this.scheme === "https:";
  }

  private agent(scheme: "http:" | "https:"): HttpAgent {
    if (scheme === "http:") return (this.agents["http:"] ??= new HttpAgent({ keepAlive: true, maxSockets: 8 }));
    return (this.agents["https:"] ??= new HttpsAgent({ keepAlive: true, maxSockets: 8, ...(this.tls?.connect ?? {}) }));
  }

  /**
   * autodetect: one TLS handshake decides (epee's blocked_mode_client::connect: a failed handshake
   * on an autodetect connection → plain HTTP from then on). Nothing listening is a connection
   * error, decided again on the next call.
   */
  private detect(timeoutMs: number): Promise<"http:" | "https:"> {
    if (this.scheme) return Promise.resolve(this.scheme);
    this.probing ??= new Promise<"http:" | "https:">((resolve, reject) => {
      let tcp = false;
      const s = tlsConnect({ host: this.base.hostname.replace(/^\[|\]$/g, ""), port: Number(this.base.port || 80), ...(this.tls?.connect ?? { rejectUnauthorized: false }) });
      const timer = setTimeout(() => s.destroy(new Error("TLS handshake timed out")), Math.min(timeoutMs, 5000));
      s.once("connect", () => (tcp = true));
      s.once("secureConnect", () => {
        clearTimeout(timer);
        s.end();
        resolve("https:");
      });
      const failed = (e?: Error): void => {
        clearTimeout(timer);
        s.destroy();
        if (!tcp) reject(this.connectionError(e ?? new Error("socket hang up")));
        else resolve("http:");
      };
      s.once("error", failed);
      s.once("close", () => failed());
    }).then(
      (scheme) => {
        this.scheme = scheme;
        this.probing = undefined;
        return scheme;
      },
      (e: unknown) => {
        this.probing = undefined;
        throw e;
      },
    );
    return this.probing;
  }

  // ---- transport ----------------------------------------------------------------------------

  private async once(method: "GET" | "POST", path: string, body: Uint8Array, type: string, opts: CallOptions): Promise<RawAnswer> {
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs;
    const scheme = this.scheme ?? (await this.detect(timeoutMs));
    return this.request(scheme, method, path, body, type, opts, timeoutMs);
  }

  private request(scheme: "http:" | "https:", method: "GET" | "POST", path: string, body: Uint8Array, type: string, opts: CallOptions, timeoutMs: number): Promise<RawAnswer> {
    const fullPath = this.base.pathname.replace(/\/+$/, "") + path;
    const headers: Record<string, string | number> = { "Content-Type": type, "Content-Length": body.length, Accept: "*/*" };
    const send = scheme === "https:" ? httpsRequest : httpRequest;
    let socket: object | undefined;
    let sentAuth = false;
    return new Promise<RawAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, v?: RawAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        if (err) reject(err);
        else resolve(v as RawAnswer);
      };
      const req = send(
        { protocol: scheme, hostname: this.base.hostname, port: this.base.port || (scheme === "https:" ? 443 : 80), method, path: fullPath, headers, agent: this.agent(scheme) },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > this.o.maxResponseBytes) {
              req.destroy();
              finish(new NodeResponseError(`${path}: answer larger than ${this.o.maxResponseBytes} bytes`));
              return;
            }
            chunks.push(c);
          });
          const challenges: string[] = [];
          for (let k = 0; k + 1 < res.rawHeaders.length; k += 2)
            if (res.rawHeaders[k].toLowerCase() === "www-authenticate") challenges.push(res.rawHeaders[k + 1]);
          // record a challenge now, before the socket goes back to the pool: the agent hands it to
          // the next queued request as soon as this answer ends, and that request must use the new nonce
          if (res.statusCode === 401 && socket && this.login && challenges.length > 0) {
            const own = this.digestBySocket.get(socket) ?? new DigestClient(this.login);
            if (own.onChallenge(challenges)) this.digestBySocket.set(socket, own);
            this.digest?.onChallenge(challenges);
          }
          res.on("end", () => {
            finish(undefined, { status: res.statusCode ?? 0, body: Buffer.concat(chunks), challenges, sentAuth });
          });
          res.on("error", (e) => finish(this.connectionError(e)));
        },
      );
      const timer = setTimeout(() => {
        req.destroy();
        finish(new NoDaemonConnectionError(this.url, `no answer to ${path} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = (): void => {
        req.destroy();
        finish(new NodeClientError(`${path}: aborted`));
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      req.on("error", (e) => finish(this.connectionError(e)));
      // the Authorization header depends on the connection (see `digestFor`), so it is set once the
      // request has its socket and before the headers go out
      req.once("socket", (sock: object) => {
        socket = sock;
        const go = (): void => {
          const auth = this.digestFor(sock)?.header(method, fullPath);
          sentAuth = auth !== undefined;
          if (auth !== undefined) req.setHeader("Authorization", auth);
          req.end(body);
        };
        // a new TLS connection: nothing is sent before the node's certificate passes
        if (!this.tls || !(sock instanceof TLSSocket) || this.verified.has(sock)) return go();
        const check = (): void => {
          const v = this.tls?.check(sock, this.base.hostname) ?? { ok: true };
          if (!v.ok) {
            req.destroy();
            finish(new NoDaemonConnectionError(this.url, `TLS: ${v.why ?? "the node's certificate was refused"}`));
            return;
          }
          this.verified.add(sock);
          go();
        };
        sock.once("secureConnect", check);
      });
    });
  }

  private digestFor(sock: object): DigestClient | undefined {
    const own = this.digestBySocket.get(sock);
    return own?.ready ? own : this.digest;
  }

  private connectionError(e: Error): Error {
    const code = (e as NodeJS.ErrnoException).code;
    if ((code && CONNECTION_CODES.has(code)) || /socket hang up/i.test(e.message))
      return new NoDaemonConnectionError(this.url, code ? `${code} (${e.message})` : e.message);
    return e;
  }

  /** One HTTP exchange, answering digest challenges and retrying idempotent calls on connection loss. */
  private async exchange(path: string, body: Uint8Array, type: string, idempotent: boolean, opts: CallOptions): Promise<Buffer> {
    let attempt = 0;
    let authTries = 0;
    for (;;) {
      let ans: RawAnswer;
      try {
        ans = await this.once("POST", path, body, type, opts);
      } catch (e) {
        if (e instanceof NoDaemonConnectionError && idempotent && attempt < this.o.retries && !opts.signal?.aborted) {
          await sleep(this.o.retryDelayMs * 2 ** attempt);
          attempt++;
          continue;
        }
        throw e;
      }
      if (ans.status === 401) {
        if (!this.digest || !this.login) throw new NodeAuthError(`${path}: the node at ${this.url} requires a login (--rpc-login user:pass)`);
        // stale=true: right login, but the nonce or nc was not the one this connection expects —
        // answer again; stale=false after we sent a login: the login is wrong
        const stale = ans.challenges.some((c) => /stale\s*=\s*"?true/i.test(c));
        if (ans.sentAuth && !stale) throw new NodeAuthError(`${path}: the node at ${this.url} rejected the login`);
        if (!this.digest.ready) throw new NodeAuthError(`${path}: the node asked for an authentication scheme other than digest MD5`);
        if (++authTries > 8) throw new NodeAuthError(`${path}: the node at ${this.url} kept refusing the login (stale nonces)`);
        continue;
      }
      if (ans.status !== 200) throw new NodeHttpError(path, ans.status, ans.body.toString("utf8"));
      return ans.body;
    }
  }

  // ---- generic calls --------------------------------------------------------------------------

  /** A JSON-RPC call at /json_rpc; returns `result` exactly as parsed (u64 beyond 2^53 as bigint). */
  async jsonRpc(method: string, params?: JsonWritable, opts: CallOptions & { idempotent?: boolean } = {}): Promise<JsonValue> {
    const id = String(this.nextId++);
    const envelope: JsonWritable = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    const raw = await this.exchange("/json_rpc", Buffer.from(stringifyJson(envelope)), "application/json", opts.idempotent ?? true, opts);
    const v = this.parse(raw, `json_rpc ${method}`);
    if (!isJsonObject(v)) throw new NodeResponseError(`${method}: answer is not a JSON object`);
    const err = v.error;
    if (err !== undefined) {
      if (!isJsonObject(err)) throw new NodeResponseError(`${method}: malformed error member`);
      const code = typeof err.code === "number" ? err.code : Number(err.code ?? 0);
      throw new NodeRpcError(method, code, typeof err.message === "string" ? err.message : "");
    }
    if (!("result" in v)) throw new NodeResponseError(`${method}: answer has neither result nor error`);
    return v.result;
  }

  /** A plain JSON path (e.g. "/get_height"); returns the parsed body. */
  async json(path: string, body?: JsonWritable, opts: CallOptions & { idempotent?: boolean } = {}): Promise<JsonValue> {
    const raw = await this.exchange(path, Buffer.from(body === undefined ? "" : stringifyJson(body)), "application/json", opts.idempotent ?? true, opts);
    return this.parse(raw, path);
  }

  /** A binary epee path (e.g. "/get_blocks.bin"). */
  async bin<Req, Res>(path: string, reqCodec: EpeeObjectCodec<Req>, req: Req, resCodec: EpeeObjectCodec<Res>, opts: CallOptions & { idempotent?: boolean } = {}): Promise<Res> {
    const raw = await this.exchange(path, encodeEpee(reqCodec, req), "application/octet-stream", opts.idempotent ?? true, opts);
    try {
      return decodeEpee(resCodec, raw, EPEE_HTTP_LIMITS);
    } catch (e) {
      throw new NodeResponseError(`${path}: answer does not decode: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private parse(raw: Buffer, what: string): JsonValue {
    try {
      return parseJson(raw, { maxLength: this.o.maxResponseBytes, epeeTolerant: true });
    } catch (e) {
      throw new NodeResponseError(`${what}: answer is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private typed<T>(schema: Schema<T>, v: JsonValue, call: string, checkStatus = true): T {
    let out: T;
    try {
      out = schema.parse(v, call);
    } catch (e) {
      if (e instanceof SchemaError) throw new NodeResponseError(`unexpected answer: ${e.message}`);
      throw e;
    }
    const status = (out as { status?: unknown }).status;
    if (checkStatus && typeof status === "string" && status !== "OK") throw new NodeStatusError(call, status);
    return out;
  }

  // ---- typed calls ------------------------------------------------------------------------------

  async getInfo(opts?: CallOptions): Promise<GetInfoResult> {
    return this.typed(getInfoResult, await this.jsonRpc("get_info", undefined, opts), "get_info");
  }

  /** /get_height: height = number of blocks (top block height + 1), and the top hash. */
  async getHeight(opts?: CallOptions): Promise<GetHeightResult> {
    return this.typed(getHeightResult, await this.json("/get_height", undefined, opts), "/get_height");
  }

  async getBlockCount(opts?: CallOptions): Promise<GetBlockCountResult> {
    return this.typed(getBlockCountResult, await this.jsonRpc("get_block_count", undefined, opts), "get_block_count");
  }

  async getLastBlockHeader(fillPowHash = false, opts?: CallOptions): Promise<BlockHeaderResult> {
    const r = await this.jsonRpc("get_last_block_header", { fill_pow_hash: fillPowHash }, opts);
    return this.typed(blockHeaderResult, r, "get_last_block_header");
  }

  async getBlockHeaderByHeight(height: bigint | number, fillPowHash = false, opts?: CallOptions): Promise<BlockHeaderResult> {
    const r = await this.jsonRpc("get_block_header_by_height", { height: BigInt(height), fill_pow_hash: fillPowHash }, opts);
    return this.typed(blockHeaderResult, r, "get_block_header_by_height");
  }

  /**
   * /get_blocks.bin: blocks after the first id of `block_ids` that is on the node's main chain
   * (ids newest first, ending with genesis), or from `start_height` when that is higher.
   */
  async getBlocksBin(req: Partial<Omit<GetBlocksBinRequest, "client">> & { block_ids: Uint8Array[] }, opts?: CallOptions): Promise<GetBlocksBinResponse> {
    const full: GetBlocksBinRequest = { client: "", start_height: 0n, prune: false, no_miner_tx: false, ...req };
    const r = await this.bin("/get_blocks.bin", getBlocksBinRequest, full, getBlocksBinResponse, opts);
    if (r.status !== "OK") throw new NodeStatusError("/get_blocks.bin", r.status);
    return r;
  }

  /** /get_outs.bin: output keys, masks and unlock state by (amount, global index); amount 0 = RingCT. */
  async getOutsBin(outputs: GetOutputsOut[], getTxid = true, opts?: CallOptions): Promise<GetOutsBinResponse> {
    const r = await this.bin("/get_outs.bin", getOutsBinRequest, { client: "", outputs, get_txid: getTxid }, getOutsBinResponse, opts);
    if (r.status !== "OK") throw new NodeStatusError("/get_outs.bin", r.status);
    return r;
  }

  /** /get_transactions by hash; unknown hashes come back in missed_tx. */
  async getTransactions(
    txsHashes: string[],
    o: { decodeAsJson?: boolean; prune?: boolean; split?: boolean } = {},
    opts?: CallOptions,
  ): Promise<GetTransactionsResult> {
    const body = { txs_hashes: txsHashes, decode_as_json: o.decodeAsJson ?? false, prune: o.prune ?? false, split: o.split ?? false };
    return this.typed(getTransactionsResult, await this.json("/get_transactions", body, opts), "/get_transactions");
  }

  /** /get_transaction_pool_hashes (hex ids). */
  async getTransactionPoolHashes(opts?: CallOptions): Promise<GetTransactionPoolHashesResult> {
    const r = await this.json("/get_transaction_pool_hashes", undefined, opts);
    return this.typed(getTransactionPoolHashesResult, r, "/get_transaction_pool_hashes");
  }

  /**
   * /get_transaction_pool_hashes.bin — despite its name monerod serves it as JSON (MAP_URI_AUTO_JON2)
   * with the ids packed into one JSON string of raw bytes (32 per id), which is how wallet2 reads
   * it. The body is read byte for byte (latin1) so those raw bytes survive.
   */
  async getTransactionPoolHashesBin(opts?: CallOptions): Promise<{ status: string; untrusted: boolean; tx_hashes: Uint8Array[] }> {
    const raw = await this.exchange("/get_transaction_pool_hashes.bin", Buffer.from("{}"), "application/json", true, opts ?? {});
    let v: JsonValue;
    try {
      v = parseJson(raw.toString("latin1"), { epeeTolerant: true });
    } catch (e) {
      throw new NodeResponseError(`/get_transaction_pool_hashes.bin: answer is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!isJsonObject(v)) throw new NodeResponseError("/get_transaction_pool_hashes.bin: answer is not an object");
    const status = typeof v.status === "string" ? v.status : "";
    if (status !== "OK") throw new NodeStatusError("/get_transaction_pool_hashes.bin", status);
    const packed = typeof v.tx_hashes === "string" ? Buffer.from(v.tx_hashes, "latin1") : Buffer.alloc(0);
    if (packed.length % 32 !== 0) throw new NodeResponseError(`/get_transaction_pool_hashes.bin: ${packed.length} bytes of ids is not a multiple of 32`);
    const tx_hashes: Uint8Array[] = [];
    for (let k = 0; k < packed.length; k += 32) tx_hashes.push(new Uint8Array(packed.subarray(k, k + 32)));
    return { status, untrusted: v.untrusted === true, tx_hashes };
  }

  /**
   * /send_raw_transaction. Not retried (the caller decides), and a refusal is not thrown: the
   * answer's status ("Failed") and flags say why.
   */
  async sendRawTransaction(txAsHex: string, o: { doNotRelay?: boolean; doSanityChecks?: boolean } = {}, opts?: CallOptions): Promise<SendRawTransactionResult> {
    const body = { tx_as_hex: txAsHex, do_not_relay: o.doNotRelay ?? false, do_sanity_checks: o.doSanityChecks ?? true };
    const r = await this.json("/send_raw_transaction", body, { ...opts, idempotent: false });
    return this.typed(sendRawTransactionResult, r, "/send_raw_transaction", false);
  }

  async getFeeEstimate(graceBlocks: bigint | number = 0n, opts?: CallOptions): Promise<GetFeeEstimateResult> {
    const r = await this.jsonRpc("get_fee_estimate", { grace_blocks: BigInt(graceBlocks) }, opts);
    return this.typed(getFeeEstimateResult, r, "get_fee_estimate");
  }

  /** RPC version: major << 16 | minor. */
  async getVersion(opts?: CallOptions): Promise<GetVersionResult> {
    return this.typed(getVersionResult, await this.jsonRpc("get_version", undefined, opts), "get_version");
  }

  /** get_output_distribution over JSON-RPC (asked for in non-binary form, so it is plain JSON). */
  async getOutputDistribution(req: Partial<GetOutputDistributionRequest> & { amounts: bigint[] }, opts?: CallOptions): Promise<GetOutputDistributionResult> {
    const params = { from_height: 0n, to_height: 0n, cumulative: false, ...req, binary: false, compress: false };
    const r = this.typed(getOutputDistributionResult, await this.jsonRpc("get_output_distribution", params, opts), "get_output_distribution");
    return { ...r, distributions: r.distributions.map((d) => ({ amount: d.amount, start_height: d.start_height, base: d.base, distribution: d.distribution })) };
  }

  /** /get_output_distribution.bin (epee), the form wallet2 uses; `compress` packs the answer as varints. */
  async getOutputDistributionBin(req: Partial<GetOutputDistributionRequest> & { amounts: bigint[] }, opts?: CallOptions): Promise<GetOutputDistributionResult> {
    const full = { client: "", from_height: 0n, to_height: 0n, cumulative: false, binary: true, compress: false, ...req };
    const r = await this.bin("/get_output_distribution.bin", getOutputDistributionBinRequest, full, getOutputDistributionBinResponse, opts);
    if (r.status !== "OK") throw new NodeStatusError("/get_output_distribution.bin", r.status);
    return r;
  }
}

/**
 * The calls the wallet makes, as a type: NodeClient implements it over HTTP; the devnet process may
 * hand the wallet an in-process implementation with the same contract (same results, same errors).
 */
export type NodeApi = Pick<
  NodeClient,
  | "getInfo"
  | "getHeight"
  | "getBlockCount"
  | "getLastBlockHeader"
  | "getBlockHeaderByHeight"
  | "getBlocksBin"
  | "getOutsBin"
  | "getTransactions"
  | "getTransactionPoolHashes"
  | "getTransactionPoolHashesBin"
  | "sendRawTransaction"
  | "getFeeEstimate"
  | "getVersion"
  | "getOutputDistribution"
  | "getOutputDistributionBin"
  | "jsonRpc"
  | "json"
  | "bin"
>;
