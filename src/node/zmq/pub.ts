/**
 * The ZMQ pub socket (monerod's ZmqServer::init_pub and listener::zmq_pub): an XPUB socket bound to
 * every --zmq-pub address. Subscriptions arrive on it as frames (1 or 0, then the prefix) and are
 * counted per topic as zmq_pub::sub_request does, so a topic nobody asked for is never serialized;
 * libzmq itself then filters each message by the subscribers' prefixes. Sends never wait: past the
 * high-water mark libzmq drops, as monerod's ZMQ_DONTWAIT sends do.
 */
import { XPublisher } from "zeromq";
import type { PoolEntry } from "../core.js";
import { bindErrorMessage, checkPubAddress } from "./address.js";
import { CHAIN_TOPICS, type ChainEvent, chainMessage, MINER_TOPICS, type MinerData, minerMessage, type Topic, topicsMatching, TXPOOL_TOPICS, txpoolMessage } from "./topics.js";

/** zmq_server.cpp: 10 MiB incoming limit, 2 s linger for pending messages at close. */
const MAX_MESSAGE_SIZE = 10 * 1024 * 1024;
const LINGER_MS = 2000;

export class ZmqPubError extends Error {
  override name = "ZmqPubError";
}

export class ZmqPublisher {
  private readonly subs = new Map<Topic, number>();
  private sending: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly reading: Promise<void>;

  private constructor(
    private readonly socket: XPublisher,
    readonly addresses: readonly string[],
    private readonly log: (msg: string) => void,
  ) {
    this.reading = this.readSubscriptions();
  }

  /** Binds every address; the first that fails closes the socket and throws with the reason. */
  static async open(addresses: readonly string[], log: (msg: string) => void): Promise<ZmqPublisher> {
    for (const a of addresses) checkPubAddress(a);
    const socket = new XPublisher({ linger: LINGER_MS, maxMessageSize: MAX_MESSAGE_SIZE });
    for (const a of addresses) {
      try {
        await socket.bind(a);
      } catch (e) {
        socket.close();
        throw new ZmqPubError(bindErrorMessage("--zmq-pub", a, e));
      }
      log(`ZMQ now listening at ${a}`);
    }
    return new ZmqPublisher(socket, addresses, log);
  }

  /** zmq_pub::sub_request. */
  private async readSubscriptions(): Promise<void> {
    try {
      for await (const [frame] of this.socket) {
        if (frame.length === 0 || (frame[0] !== 0 && frame[0] !== 1)) {
          this.log("ZMQ pub: invalid ZMQ/Sub message");
          continue;
        }
        const topics = topicsMatching(frame.subarray(1).toString("utf8"));
        if (topics.length === 0) {
          this.log("ZMQ pub: invalid ZMQ/Sub message");
          continue;
        }
        for (const t of topics) this.subs.set(t, Math.max(0, (this.subs.get(t) ?? 0) + (frame[0] === 1 ? 1 : -1)));
      }
    } catch (e) {
      if (!this.closed) this.log(`ZMQ pub: reading subscriptions failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Whether anyone is subscribed to `topic` (exposed for tests and for skipping work). */
  subscribed(topic: Topic): boolean {
    return (this.subs.get(topic) ?? 0) > 0;
  }

  private send(messages: string[]): void {
    if (this.closed || messages.length === 0) return;
    // zeromq.js allows one send at a time: chain them, in order
    this.sending = this.sending.then(async () => {
      for (const m of messages) {
        if (this.closed) return;
        try {
          await this.socket.send(m);
        } catch (e) {
          this.log(`ZMQ pub: failed to send ZMQ/Pub message: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    });
  }

  /** send_chain_main: one event per block (a reorg sends each new block on its own). */
  chainMain(e: ChainEvent): void {
    if (e.blocks.length === 0) return;
    this.send(CHAIN_TOPICS.filter((t) => this.subscribed(t)).map((t) => chainMessage(t, e)));
  }

  /** send_miner_data; `data` is only computed when someone listens. */
  minerData(data: () => MinerData): void {
    const topics = MINER_TOPICS.filter((t) => this.subscribed(t));
    if (topics.length === 0) return;
    const m = data();
    this.send(topics.map((t) => minerMessage(t, m)));
  }

  /** send_txpool_add: the txs one submission added to the pool. */
  txpoolAdd(entries: readonly PoolEntry[]): void {
    if (entries.length === 0) return;
    this.send(TXPOOL_TOPICS.filter((t) => this.subscribed(t)).map((t) => txpoolMessage(t, entries)));
  }

  /** Sends what is queued (libzmq lingers up to 2 s for slow subscribers), then closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.sending;
    this.closed = true;
    this.socket.close();
    await this.reading;
  }
}
