/**
 * The built-in miner behind start_mining / stop_mining / mining_status (monerod's
 * cryptonote::miner, src/cryptonote_basic/miner.cpp).
 *
 * "Threads" are concurrent asynchronous hash loops, not worker threads: each loop keeps one
 * RandomX hash in flight on libuv's thread pool (src/crypto/randomx.ts), so `threads` loops hash
 * on up to `threads` pool threads at once, all sharing one 256 MiB light-mode cache per seed. Worker
 * threads would each need their own RandomX instance and cache for the same work, and the event
 * loop only ever waits on a promise here (it never hashes itself).
 *
 * The template is fetched from the host when mining starts, on every new block (`onNewBlock`,
 * which the core calls from its "block" event) and every 5 s (monerod's
 * m_update_block_template_interval), so new pool transactions get in.
 */
import { availableParallelism } from "node:os";
import { checkHash } from "../../consensus/difficulty.js";
import type { Bytes } from "../../protocol/tx.js";
import type { BlockTemplate, MinerStatus } from "../core.js";
import { MiningError } from "./errors.js";
import { powAlgorithm, setNonce } from "./pow.js";
import { nonceOffset } from "./template.js";

/** What the miner needs from the node. */
export interface MinerHost {
  /** A template paying `address` on the current tip, without reserved bytes (monerod's miner uses none). */
  template(address: string): Promise<BlockTemplate>;
  /** Submits a mined block blob; true when the node added it. */
  submit(blob: Bytes): Promise<boolean>;
  /** The PoW hash of a hashing blob of `template` (RandomX with its seed). */
  powHash(hashingBlob: Bytes, template: BlockTemplate): Promise<Bytes>;
  /** Validates a mining address (throws MiningError: wrong address, subaddress). */
  checkAddress(address: string): void;
}

export interface MinerOptions {
  /** monerod refuses more than 4 × the hardware threads (default availableParallelism() × 4). */
  maxThreads?: number;
  /** Template refresh interval in ms (default 5000). */
  refreshMs?: number;
  /** Hash-rate window in ms (default 10000). */
  speedWindowMs?: number;
  /**
   * Called with errors the loops hit (template, PoW or submit failures) and, after
   * `maxConsecutiveFailures` PoW failures in a row, with the MiningError that stopped the miner.
   * Default: none (a service should log them: NodeChain emits them as "warning" events).
   */
  onError?: (e: unknown) => void;
  /** PoW hash failures in a row after which the miner stops instead of retrying (default 20, ~2 s). */
  maxConsecutiveFailures?: number;
  /** Random 32-bit starting nonce (monerod: crypto::rand<uint32_t>()). */
  randomNonce?: () => number;
}

/** miner.h's background-mining defaults. */
export const BACKGROUND_MINING_DEFAULTS = Object.freeze({ idleThreshold: 90, minIdleSeconds: 10, target: 40 });

/** /mining_status as monerod fills it (core_rpc_server on_mining_status). */
export interface MiningStatusReport {
  active: boolean;
  speed: number;
  threadsCount: number;
  address: string;
  powAlgorithm: string;
  isBackgroundMiningEnabled: boolean;
  bgIdleThreshold: number;
  bgMinIdleSeconds: number;
  bgIgnoreBattery: boolean;
  bgTarget: number;
  blockTarget: number;
  blockReward: bigint;
  difficulty: bigint;
}

interface Job {
  template: BlockTemplate;
  hashingBlob: Uint8Array;
  hashOffset: number;
  blobOffset: number;
  nextNonce: number;
  /** Set once a block was found on it (other loops stop using it). */
  done: boolean;
}

export class Miner {
  private running = false;
  private address = "";
  private threads = 0;
  private background = false;
  private ignoreBattery = false;
  private blockReward = 0n;
  private job: Job | undefined;
  private jobWaiters: (() => void)[] = [];
  private loops: Promise<void>[] = [];
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private totalHashes = 0;
  private samples: { t: number; hashes: number }[] = [];
  private found = 0;
  /** PoW hash failures in a row (reset by a hash that succeeds). */
  private failures = 0;
  private readonly maxThreads: number;
  private readonly refreshMs: number;
  private readonly speedWindowMs: number;

  constructor(
    private readonly host: MinerHost,
    private readonly opts: MinerOptions = {},
  ) {
    this.maxThreads = opts.maxThreads ?? Math.max(1, availableParallelism()) * 4;
    this.refreshMs = opts.refreshMs ?? 5000;
    this.speedWindowMs = opts.speedWindowMs ?? 10_000;
  }

  /**
   * start_mining: `threads` hash loops (0 = 1, monerod's autodetect starts with one) paying
   * `address`. Throws MiningError with monerod's status text: wrong address, subaddress, too many
   * threads, already mining.
   */
  start(address: string, threads: number, opts: { background?: boolean; ignoreBattery?: boolean } = {}): Promise<void> {
    // the checks throw synchronously, so NodeCore.startMining (void) can report them
    this.host.checkAddress(address);
    if (!Number.isInteger(threads) || threads < 0 || threads > this.maxThreads) {
      throw new MiningError("bad-request", `Failed, too many threads relative to CPU cores. (at most ${this.maxThreads})`);
    }
    if (this.running) throw new MiningError("bad-request", "Already mining");
    this.running = true;
    this.address = address;
    this.threads = threads === 0 ? 1 : threads;
    this.background = opts.background ?? false;
    this.ignoreBattery = opts.ignoreBattery ?? false;
    this.blockReward = 0n;
    this.totalHashes = 0;
    this.samples = [{ t: Date.now(), hashes: 0 }];
    const startNonce = (this.opts.randomNonce ?? (() => Math.floor(Math.random() * 0x100000000)))() >>> 0;
    for (let i = 0; i < this.threads; i++) this.loops.push(this.loop());
    this.refreshTimer = setInterval(() => void this.onNewBlock(), this.refreshMs);
    this.refreshTimer.unref();
    // resolves once the first template is in (the loops wait for it)
    return this.refresh(startNonce).catch((e: unknown) => {
      this.opts.onError?.(e);
      throw e;
    });
  }

  /** stop_mining: stops the loops (resolves when every in-flight hash has returned). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.background = false; // miner::stop clears it
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
    for (const w of this.jobWaiters.splice(0)) w();
    const loops = this.loops.splice(0);
    await Promise.allSettled(loops);
    if (this.refreshing) await this.refreshing.catch(() => undefined);
    this.job = undefined;
  }

  /** A new block arrived (or the pool changed): fetch a fresh template for the loops. */
  async onNewBlock(): Promise<void> {
    if (!this.running) return;
    try {
      await this.refresh();
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  get isMining(): boolean {
    return this.running;
  }

  /** Blocks this miner found and the node accepted. */
  get blocksFound(): number {
    return this.found;
  }

  /** Hashes per second over the speed window. */
  speed(now = Date.now()): number {
    this.sample(now);
    const first = this.samples[0];
    const dt = now - first.t;
    if (!this.running || dt <= 0) return 0;
    return ((this.totalHashes - first.hashes) * 1000) / dt;
  }

  /** NodeCore.minerStatus(). */
  status(): MinerStatus {
    return {
      active: this.running,
      address: this.running || this.background ? this.address : "",
      threads: this.running ? this.threads : 0,
      speed: this.running ? Math.round(this.speed()) : 0,
      background: this.background,
    };
  }

  /** /mining_status given the chain's current hard-fork version and next difficulty. */
  report(hfVersion: number, difficulty: bigint): MiningStatusReport {
    const bg = this.background;
    return {
      active: this.running,
      speed: this.running ? Math.round(this.speed()) : 0,
      threadsCount: this.running ? this.threads : 0,
      address: this.running || bg ? this.address : "",
      powAlgorithm: powAlgorithm(hfVersion),
      isBackgroundMiningEnabled: bg,
      bgIdleThreshold: bg ? BACKGROUND_MINING_DEFAULTS.idleThreshold : 0,
      bgMinIdleSeconds: bg ? BACKGROUND_MINING_DEFAULTS.minIdleSeconds : 0,
      bgIgnoreBattery: bg ? this.ignoreBattery : false,
      bgTarget: bg ? BACKGROUND_MINING_DEFAULTS.target : 0,
      blockTarget: hfVersion < 2 ? 60 : 120,
      blockReward: this.running ? this.blockReward : 0n,
      difficulty,
    };
  }

  private sample(now: number): void {
    const last = this.samples[this.samples.length - 1];
    if (!last || now - last.t >= 250) this.samples.push({ t: now, hashes: this.totalHashes });
    while (this.samples.length > 2 && now - this.samples[1].t >= this.speedWindowMs) this.samples.shift();
  }

  private refresh(startNonce?: number): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          const t = await this.host.template(this.address);
          if (!this.running) return;
          const hashingBlob = Uint8Array.from(t.hashingBlob);
          const nonce = startNonce ?? this.job?.nextNonce ?? 0;
          this.job = { template: t, hashingBlob, hashOffset: nonceOffset(hashingBlob), blobOffset: nonceOffset(t.blob), nextNonce: nonce, done: false };
          this.blockReward = t.expectedReward;
          for (const w of this.jobWaiters.splice(0)) w();
        } while (this.refreshAgain && this.running);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private async nextJob(): Promise<Job | undefined> {
    while (this.running) {
      const j = this.job;
      if (j && !j.done) return j;
      await new Promise<void>((r) => this.jobWaiters.push(r));
    }
    return undefined;
  }

  private async loop(): Promise<void> {
    for (;;) {
      const job = await this.nextJob();
      if (!job || !this.running) return;
      const nonce = job.nextNonce >>> 0;
      job.nextNonce = (nonce + 1) >>> 0;
      const input = job.hashingBlob.slice();
      setNonce(input, job.hashOffset, nonce);
      let h: Bytes;
      try {
        h = await this.host.powHash(input, job.template);
        this.failures = 0;
      } catch (e) {
        this.opts.onError?.(e);
        if (!this.running) return;
        // a hasher that keeps failing (no RandomX library, a dead worker) must not leave
        // mining_status saying "active" while nothing is hashed: stop and say why
        if (++this.failures >= (this.opts.maxConsecutiveFailures ?? 20)) {
          const why = e instanceof Error ? e.message : String(e);
          this.opts.onError?.(new MiningError("internal", `mining stopped: the PoW hash failed ${this.failures} times in a row (last: ${why})`, { cause: e }));
          this.failures = 0;
          void this.stop();
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      this.totalHashes++;
      this.sample(Date.now());
      if (!this.running || job.done || job !== this.job) continue;
      if (!checkHash(h, job.template.difficulty)) continue;
      job.done = true;
      const blob = Uint8Array.from(job.template.blob);
      setNonce(blob, job.blobOffset, nonce);
      try {
        if (await this.host.submit(blob)) this.found++;
      } catch (e) {
        this.opts.onError?.(e);
      }
      await this.onNewBlock();
    }
  }
}
