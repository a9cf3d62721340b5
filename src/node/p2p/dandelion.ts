/**
 * Dandelion++ tx relay on the public network, as monerod 0.18 does it (src/cryptonote_protocol/
 * levin_notify.cpp, src/net/dandelionpp.cpp, tx_pool.cpp's embargo):
 *
 * - **Epochs** of 10 min + up to 30 s (CRYPTONOTE_DANDELIONPP_MIN_EPOCH, _EPOCH_RANGE). At each
 *   start the node is a fluff node with probability 20 % (_FLUFF_PROBABILITY), and picks up to 2
 *   stems (_STEMS) at random among its outgoing connections whose peer is at least as high as the
 *   chain (start_epoch, connection_map).
 * - **Stem**: a local tx, or one received with `dandelionpp_fluff` false, goes to one stem, the same
 *   one for every tx from the same source (the least used stem when the source is new; a stem that
 *   disconnected is replaced, twice at most: dandelionpp_notify). A fluff node, or a node with no
 *   stem, fluffs instead.
 * - **Fluff**: each connection but the source gets the txs after a Poisson delay, in quarter
 *   seconds, averaging 5 s for incoming and 2.5 s for outgoing connections (fluff_notify), sorted
 *   (not in receive order) in one NOTIFY_NEW_TRANSACTIONS; one timer for all (fluff_flush).
 * - **Embargo**: the pool keeps a stem tx hidden until a Poisson time averaging 39 s
 *   (_EMBARGO_AVERAGE), then the node fluffs it itself unless it was fluffed to it before
 *   (TxPool.markStem / embargoEnded; the node checks every second).
 *
 * Not here: noise channels (i2p/Tor zones, which tsmonerod does not have). `--pad-transactions`
 * pads the tx messages themselves (messages.ts newTransactionsBody).
 */
import type { Bytes } from "../../protocol/tx.js";

export const DANDELIONPP_STEMS = 2;
export const DANDELIONPP_FLUFF_PROBABILITY = 20;
export const DANDELIONPP_MIN_EPOCH_MS = 10 * 60_000;
export const DANDELIONPP_EPOCH_RANGE_MS = 30_000;
/** Seconds, the average fluff delay on incoming connections (half on outgoing ones). */
export const DANDELIONPP_FLUSH_AVERAGE = 5;
/** Seconds, the average embargo of a stem tx. */
export const DANDELIONPP_EMBARGO_AVERAGE = 39;

/** A connection as Dandelion++ sees it. */
export interface DandelionPeer {
  /** Stable for the connection's life. */
  readonly id: string;
  readonly inbound: boolean;
  /** The peer's announced chain height (current_blockchain_height). */
  readonly height: bigint;
  /** Sends NOTIFY_NEW_TRANSACTIONS; false when the connection is gone. */
  send(txs: readonly Bytes[], fluff: boolean): boolean;
}

export interface DandelionOptions {
  /** The connections past their handshake. */
  peers(): readonly DandelionPeer[];
  /** The height outgoing peers must reach to be stems (get_blockchain_height). */
  chainHeight(): bigint;
  log(m: string): void;
  /** [0, 1) (tests fix it). */
  random?: () => number;
  /** ms (tests move it). */
  now?: () => number;
  /** Percent chance an epoch fluffs; default DANDELIONPP_FLUFF_PROBABILITY (tests pin it). */
  fluffPercent?: number;
  /** Timers (tests replace them); default setTimeout / clearTimeout, unref'd. */
  setTimer?: (f: () => void, ms: number) => { cancel(): void };
}

/** A Poisson variate of mean `mean` (Knuth's product of uniforms; fine for the small means here). */
export function poisson(mean: number, random: () => number = Math.random): number {
  const l = Math.exp(-mean);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= random();
  } while (p > l);
  return k - 1;
}

/** crypto::random_poisson_seconds: a stem tx's embargo, in seconds. */
export function embargoSeconds(random: () => number = Math.random): number {
  return poisson(DANDELIONPP_EMBARGO_AVERAGE, random);
}

export class Dandelion {
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly setTimer: (f: () => void, ms: number) => { cancel(): void };
  /** Whether this epoch fluffs everything. */
  fluffing = false;
  /** The epoch's stems (connection ids; undefined where one disconnected). */
  private stems: (string | undefined)[] = [];
  private usage: number[] = [];
  /** source (connection id, "" for our own txs) → index into stems. */
  private readonly sources = new Map<string, number>();
  private epochEnds = 0;
  /** Per connection: txs waiting for its fluff time. */
  private readonly queues = new Map<string, { txs: Bytes[]; at: number }>();
  private timer: { cancel(): void; at: number } | undefined;

  constructor(private readonly o: DandelionOptions) {
    this.random = o.random ?? Math.random;
    this.now = o.now ?? Date.now;
    this.setTimer =
      o.setTimer ??
      ((f, ms) => {
        const t = setTimeout(f, ms);
        t.unref();
        return { cancel: () => clearTimeout(t) };
      });
  }

  /** The current epoch's stems (connection ids), after starting a new epoch if it is time. */
  currentStems(): string[] {
    this.epoch();
    return this.stems.filter((s): s is string => s !== undefined);
  }

  /**
   * dandelionpp_notify: sends `txs` along the stem of `source` ("" for our own); false when this
   * epoch fluffs or no stem could take them (the caller then fluffs them and marks them so).
   */
  stem(txs: readonly Bytes[], source = ""): boolean {
    this.epoch();
    if (this.fluffing || txs.length === 0) return false;
    for (let tries = 2; tries > 0; tries--) {
      const dest = this.stemOf(source);
      const peer = dest === undefined ? undefined : this.o.peers().find((p) => p.id === dest);
      if (peer?.send(txs, false)) return true;
      this.refreshStems();
    }
    this.o.log("Unable to send transaction(s) via Dandelion++ stem");
    return false;
  }

  /** fluff_notify: queues `txs` for every connection but `source`, each on its own Poisson delay. */
  fluff(txs: readonly Bytes[], source = ""): void {
    if (txs.length === 0) return;
    const now = this.now();
    let next = Infinity;
    for (const p of this.o.peers()) {
      if (p.id === source) continue;
      let q = this.queues.get(p.id);
      if (!q || q.txs.length === 0) {
        // random_poisson_subseconds: quarter seconds, mean 4 × the average (outgoing: half)
        const quarters = poisson((p.inbound ? DANDELIONPP_FLUSH_AVERAGE : DANDELIONPP_FLUSH_AVERAGE / 2) * 4, this.random);
        q = { txs: [], at: now + quarters * 250 };
        this.queues.set(p.id, q);
      }
      q.txs.push(...txs);
      next = Math.min(next, q.at);
    }
    if (next === Infinity) this.o.log("Unable to send transaction(s), no available connections");
    else this.arm(next);
  }

  /** A connection closed: its queue goes; a stem it was is replaced when next needed. */
  dropPeer(id: string): void {
    this.queues.delete(id);
    const i = this.stems.indexOf(id);
    if (i >= 0) this.stems[i] = undefined;
  }

  /** Sends every queue now (the node is stopping, or a test wants it). */
  flushAll(): void {
    this.flush(Infinity);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.queues.clear();
  }

  private arm(at: number): void {
    if (this.timer && this.timer.at <= at) return;
    this.timer?.cancel();
    const t = this.setTimer(() => {
      this.timer = undefined;
      this.flush(this.now());
    }, Math.max(0, at - this.now()));
    this.timer = { cancel: t.cancel, at };
  }

  /** fluff_flush: every queue due by `now` goes out, sorted; the timer is set for the next one. */
  private flush(now: number): void {
    const peers = new Map(this.o.peers().map((p) => [p.id, p]));
    let next = Infinity;
    for (const [id, q] of this.queues) {
      if (q.txs.length === 0) continue;
      if (q.at > now) {
        next = Math.min(next, q.at);
        continue;
      }
      const txs = q.txs.sort((a, b) => Buffer.compare(a, b)); // not in receive order
      this.queues.delete(id);
      peers.get(id)?.send(txs, true);
    }
    if (next !== Infinity) this.arm(next);
  }

  /** start_epoch, when the last one is over: fluff or stem for the next 10 min, and new stems. */
  private epoch(): void {
    const now = this.now();
    if (now < this.epochEnds) return;
    this.fluffing = Math.floor(this.random() * 100) < (this.o.fluffPercent ?? DANDELIONPP_FLUFF_PROBABILITY);
    this.epochEnds = now + DANDELIONPP_MIN_EPOCH_MS + Math.floor(this.random() * DANDELIONPP_EPOCH_RANGE_MS);
    // connection_map's constructor: a random choice of up to STEMS of the outgoing connections
    const outs = this.outgoing();
    for (let i = 0; i < Math.min(DANDELIONPP_STEMS, outs.length); i++) {
      const j = i + Math.floor(this.random() * (outs.length - i));
      [outs[i], outs[j]] = [outs[j], outs[i]];
    }
    this.stems = outs.slice(0, DANDELIONPP_STEMS);
    this.usage = new Array<number>(DANDELIONPP_STEMS).fill(0);
    this.sources.clear();
    this.o.log(`Dandelion++ epoch: ${this.fluffing ? "fluff" : `stem, ${this.stems.length} stem(s) of ${outs.length} outgoing peer(s) as high as the chain`}`);
  }

  /** get_out_connections: outgoing connections at least as high as the chain. */
  private outgoing(): string[] {
    const h = this.o.chainHeight();
    return this.o
      .peers()
      .filter((p) => !p.inbound && p.height >= h)
      .map((p) => p.id);
  }

  /** connection_map::update: stems that went away are replaced by other outgoing connections. */
  private refreshStems(): void {
    const live = new Set(this.outgoing());
    for (let i = 0; i < this.stems.length; i++) if (this.stems[i] !== undefined && !live.has(this.stems[i]!)) this.stems[i] = undefined;
    for (const s of this.stems) if (s !== undefined) live.delete(s);
    const spare = [...live];
    for (let i = 0; i < DANDELIONPP_STEMS && spare.length > 0; i++) {
      if (i < this.stems.length && this.stems[i] !== undefined) continue;
      const k = Math.floor(this.random() * spare.length);
      const [pick] = spare.splice(k, 1);
      if (i < this.stems.length) this.stems[i] = pick;
      else this.stems.push(pick);
    }
  }

  /** connection_map::get_stem: the stem of `source`, chosen once (the least used; ties at random). */
  private stemOf(source: string): string | undefined {
    const mapped = this.sources.get(source);
    if (mapped !== undefined && this.stems[mapped] !== undefined) return this.stems[mapped];
    if (mapped !== undefined) this.usage[mapped]--;
    let lowest = Infinity;
    let choices: number[] = [];
    this.stems.forEach((s, i) => {
      if (s === undefined) return;
      if (this.usage[i] < lowest) {
        lowest = this.usage[i];
        choices = [i];
      } else if (this.usage[i] === lowest) choices.push(i);
    });
    if (choices.length === 0) {
      this.sources.delete(source);
      return undefined;
    }
    const i = choices[Math.floor(this.random() * choices.length)];
    this.sources.set(source, i);
    this.usage[i]++;
    return this.stems[i];
  }
}
