/**
 * monerod's ZMQ RPC server (ZmqServer::init_rpc and serve, DaemonHandler::handle): a ZMQ_REP socket
 * bound to tcp://<--zmq-rpc-bind-ip>:<--zmq-rpc-bind-port>, one request answered at a time, each a
 * JSON text answered with one JSON text (rpc-message.ts for the envelope, rpc-methods.ts for the
 * methods). Incoming messages are limited to 10 MiB and pending answers linger 2 s at close, as
 * monerod sets its sockets.
 */
import { Reply } from "zeromq";
import type { NodeRpcDeps } from "../rpc/common.js";
import { bindErrorMessage, rpcAddress } from "./address.js";
import { badJson, badRequest, errorText, parseRequest, requestId, resultText, ZmqFailure, ZmqJsonError } from "./rpc-message.js";
import { type ZmqHandler, zmqMethods } from "./rpc-methods.js";

const MAX_MESSAGE_SIZE = 10 * 1024 * 1024;
const LINGER_MS = 2000;

/** --zmq-rpc-bind-port's defaults (regtest takes mainnet's, as monerod's fakechain). */
export const ZMQ_RPC_PORTS = { mainnet: 18082, testnet: 28082, stagenet: 38082, regtest: 18082 } as const;

export class ZmqRpcError extends Error {
  override name = "ZmqRpcError";
}

/** DaemonHandler::handle: one request text → one answer text. Never throws. */
export async function handleZmqRequest(methods: ReadonlyMap<string, ZmqHandler>, text: string | Uint8Array, log: (m: string) => void): Promise<string> {
  try {
    const req = parseRequest(text);
    const handler = methods.get(req.method);
    if (!handler) return badRequest(req.method, requestId(req));
    const id = requestId(req);
    try {
      return resultText(id, await handler(req.params));
    } catch (e) {
      if (e instanceof ZmqFailure) return errorText(id, e.status, e.message);
      throw e;
    }
  } catch (e) {
    if (e instanceof ZmqJsonError) return badJson(e.message);
    // monerod answers any std::exception as malformed; ours is logged as well, being a fault of ours
    const msg = e instanceof Error ? e.message : String(e);
    log(`ZMQ RPC: request failed: ${msg}`);
    return badJson(msg);
  }
}

export class ZmqRpcServer {
  private closed = false;
  private readonly serving: Promise<void>;
  private readonly methods: ReadonlyMap<string, ZmqHandler>;

  private constructor(
    private readonly socket: Reply,
    readonly address: string,
    deps: NodeRpcDeps,
    private readonly log: (msg: string) => void,
  ) {
    this.methods = zmqMethods(deps, log);
    this.serving = this.serve();
  }

  /** Binds tcp://ip:port; a failure closes the socket and throws with the reason in words. */
  static async open(ip: string, port: number, deps: NodeRpcDeps, log: (msg: string) => void): Promise<ZmqRpcServer> {
    const address = rpcAddress(ip === "" ? "*" : ip, port);
    const socket = new Reply({ linger: LINGER_MS, maxMessageSize: MAX_MESSAGE_SIZE });
    try {
      await socket.bind(address);
    } catch (e) {
      socket.close();
      throw new ZmqRpcError(`Failed to add TCP socket(${ip}:${port}) to ZMQ RPC Server: ${bindErrorMessage("--zmq-rpc-bind-port", address, e)}`);
    }
    log(`ZMQ now listening at ${address}`);
    return new ZmqRpcServer(socket, address, deps, log);
  }

  private async serve(): Promise<void> {
    try {
      for await (const frames of this.socket) {
        const text = frames.length === 1 ? frames[0] : Buffer.concat(frames);
        const answer = await handleZmqRequest(this.methods, text, this.log);
        if (this.closed) return;
        await this.socket.send(answer);
      }
    } catch (e) {
      if (!this.closed) this.log(`ZMQ RPC Server Error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Stops serving (a request being answered finishes first), then closes the socket. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
    await this.serving;
  }
}
