/**
 * Push events of a WalletService's open wallet (issue 20): after the wallet opens and after each
 * refresh, the deriver (./derive.ts) compares the ledger with what was emitted (.NAME.events-state),
 * appends the new events to the outbox (.NAME.events, ./outbox.ts), then saves the emitted state, and
 * wakes the webhook senders (.NAME.webhooks, ./webhooks.ts) and the live streams. A kill between the
 * append and the state save derives the same events again, with the same ids, which the outbox
 * already holds; a kill before the append derives them at the next open. In-memory wallets
 * (empty filename) have no files and push nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "../files/container.js";
import { WalletError } from "../errors.js";
import type { WalletService } from "../service/service.js";
import type { OpenWallet } from "../service/wallet.js";
import type { Ledger } from "../ledger/ledger.js";
import { deriveEvents, type EmittedState, emptyEmittedState, type WalletEvent } from "./derive.js";
import { Outbox, type StoredEvent } from "./outbox.js";
import { ledgerView } from "./view.js";
import { type DeliveryOptions, type Webhook, WebhookSender, WebhookStore } from "./webhooks.js";

export interface WalletEventsOptions {
  readonly log?: (m: string) => void;
  readonly delivery?: DeliveryOptions;
}

interface Open {
  readonly wallet: OpenWallet;
  readonly outbox: Outbox;
  readonly hooks: WebhookStore;
  readonly statePath: string;
  state: EmittedState;
  readonly senders: Map<string, WebhookSender>;
  /** The ledger's `viewFingerprint` at the last derive that completed. */
  derived?: string | null;
}

/** MAX_BLOCK_NUMBER: an unlock_time at or past it is a timestamp. */
const TIMESTAMP_UNLOCK = 500_000_000n;

/**
 * What the deriver's view of a ledger depends on, cheaply: the chain (height and top hash: a
 * reorg moves the top), how many payments and outgoing txs the chain holds, the pool's and the
 * pending sends' ids and flags (few), the thresholds and `synced`. Null when a payment unlocks by
 * time (its view changes with the clock alone): derive then. Equal fingerprints, equal views.
 */
function viewFingerprint(ledger: Ledger, levels: readonly number[], synced: boolean): string | null {
  const s = ledger.state;
  for (const p of s.payments) if (p.unlockTime >= TIMESTAMP_UNLOCK) return null;
  const top = s.hashTail.length > 0 ? s.hashTail[s.hashTail.length - 1] : "";
  const pool = s.pool.map((p) => `${p.txid}:${p.subaddress.major}:${p.subaddress.minor}:${p.amount}:${p.doubleSpendSeen ? 1 : 0}`).join(",");
  const pending = s.pending.map((p) => `${p.txid}:${p.failed ? 1 : 0}`).join(",");
  return [s.height, s.hashTailStart, top, s.payments.length, s.outgoing.length, pool, pending, levels.join(","), synced ? 1 : 0].join("|");
}

export type EventListener = (e: StoredEvent) => void;

export class WalletEvents {
  private cur: Open | null = null;
  private readonly streams = new Set<EventListener>();
  private readonly log: (m: string) => void;
  private readonly off: () => void;

  constructor(
    readonly service: WalletService,
    private readonly o: WalletEventsOptions = {},
  ) {
    this.log = o.log ?? ((m) => console.error(m));
    this.off = service.onWallet((w, why) => {
      if (why === "close") {
        if (this.cur?.wallet === w) this.closeCurrent();
        return;
      }
      if (why === "open") this.openWallet(w);
      if (this.cur?.wallet === w) this.derive(why === "refresh");
    });
    if (service.hasWallet) {
      this.openWallet(service.wallet());
      this.derive(false);
    }
  }

  private openWallet(w: OpenWallet): void {
    this.closeCurrent();
    const path = w.filePath;
    if (path === null) return;
    // dot files, as the lock (.NAME.lock): the wallet dir lists what monero-wallet-rpc's would
    const side = (suffix: string) => join(dirname(path), `.${basename(path)}.${suffix}`);
    const statePath = side("events-state");
    let state = emptyEmittedState();
    if (existsSync(statePath)) {
      try {
        state = JSON.parse(readFileSync(statePath, "utf8")) as EmittedState;
      } catch (e) {
        // the outbox keeps ids: re-deriving from empty re-emits only events it holds already
        this.log(`event state ${statePath} is unreadable (${(e as Error).message}); deriving from the start, the outbox drops repeats`);
      }
    }
    const hooks = new WebhookStore(side("webhooks")); // may throw (unreadable): before the outbox opens a file
    const cur: Open = { wallet: w, outbox: new Outbox(side("events"), this.log), hooks, statePath, state, senders: new Map() };
    if (!existsSync(statePath)) {
      // the first open with events (a new wallet, or one from before them): what the ledger holds
      // already is the baseline, not news; events start from here
      cur.state = deriveEvents(w.name, state, ledgerView(w.ledger, false), this.levels(cur)).state;
      writeFileAtomic(statePath, Buffer.from(JSON.stringify(cur.state)));
    }
    this.cur = cur;
    for (const h of cur.hooks.all()) this.startSender(cur, h);
  }

  private startSender(cur: Open, h: Webhook): void {
    cur.senders.set(h.id, new WebhookSender(h, cur.outbox, this.log, this.o.delivery));
  }

  private closeCurrent(): void {
    const cur = this.cur;
    if (!cur) return;
    this.cur = null;
    // the senders finish their POST under way (marking it delivered) before the outbox closes
    Promise.all([...cur.senders.values()].map((s) => s.stop()))
      .then(() => cur.outbox.close())
      .catch((e: unknown) => this.log(`closing the event outbox of ${cur.wallet.name}: ${e instanceof Error ? e.message : String(e)}`));
  }

  private levels(cur: Open): number[] {
    return [1, ...cur.hooks.all().map((h) => h.confirmations)];
  }

  /** Derives, appends, saves the emitted state, wakes senders and streams. */
  private derive(synced: boolean): void {
    const cur = this.cur;
    if (!cur) return;
    try {
      const levels = this.levels(cur);
      // an idle refresh leaves the view as it was: nothing to derive (the deriver walks every tx)
      const fingerprint = viewFingerprint(cur.wallet.ledger, levels, synced);
      if (fingerprint !== null && fingerprint === cur.derived) return;
      const { events, state, changed } = deriveEvents(cur.wallet.name, cur.state, ledgerView(cur.wallet.ledger, synced), levels);
      const fresh = cur.outbox.append(events);
      if (changed) writeFileAtomic(cur.statePath, Buffer.from(JSON.stringify(state)));
      cur.state = state;
      cur.derived = fingerprint;
      if (fresh.length === 0) return;
      for (const s of cur.senders.values()) s.wake();
      for (const f of this.streams) for (const e of fresh) f(e);
    } catch (e) {
      this.log(`events of wallet ${cur.wallet.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private need(): Open {
    if (this.cur) return this.cur;
    throw new WalletError("not-open", this.service.hasWallet ? "An in-memory wallet (opened with an empty filename) pushes no events: it has no files to keep them" : "No wallet file");
  }

  addWebhook(p: Omit<Webhook, "id" | "since">): Webhook {
    const cur = this.need();
    const h = cur.hooks.add({ ...p, since: cur.outbox.lastSeq });
    this.startSender(cur, h);
    this.derive(false); // a new confirmations threshold may be reached already
    return h;
  }

  listWebhooks(): readonly Webhook[] {
    return this.need().hooks.all();
  }

  removeWebhook(id: string): boolean {
    const cur = this.need();
    const ok = cur.hooks.remove(id);
    const s = cur.senders.get(id);
    cur.senders.delete(id);
    void s?.stop();
    return ok;
  }

  /**
   * A live stream: the outbox's events after `lastEventId` (none: from now on; an unknown id: all
   * it holds), then each new one. Returns the function that ends it.
   */
  stream(f: EventListener, lastEventId?: string): () => void {
    const cur = this.cur;
    if (cur && lastEventId !== undefined) for (const s of cur.outbox.after(cur.outbox.seqOf(lastEventId) ?? 0)) f(s);
    this.streams.add(f);
    return () => this.streams.delete(f);
  }

  async stop(): Promise<void> {
    this.off();
    const cur = this.cur;
    this.cur = null;
    if (cur) {
      await Promise.all([...cur.senders.values()].map((s) => s.stop()));
      cur.outbox.close();
    }
  }
}

export type { WalletEvent };

const registry = new WeakMap<WalletService, WalletEvents>();

/** The WalletEvents of `svc`, made (and listening) at the first call. */
export function walletEvents(svc: WalletService, o: WalletEventsOptions = {}): WalletEvents {
  let e = registry.get(svc);
  if (!e) registry.set(svc, (e = new WalletEvents(svc, o)));
  return e;
}

/** The WalletEvents of `svc` if it has one. */
export function existingWalletEvents(svc: WalletService): WalletEvents | undefined {
  return registry.get(svc);
}
