/**
 * Webhook subscriptions of one wallet (.NAME.webhooks, JSON, written atomically) and their delivery:
 * each subscription gets, in outbox order, the events after its creation that match its filter, as
 * POST JSON with `X-Tsmonero-Event-Id` and `X-Tsmonero-Signature: sha256=<hex HMAC-SHA256 of the
 * body under the subscription's secret>`; a 2xx answer marks the event delivered in the outbox,
 * anything else (or no answer) is retried after a backoff doubling up to a cap, the later events
 * waiting behind it (so a receiver sees them in order).
 */
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "../files/container.js";
import type { WalletEvent } from "./derive.js";
import type { Outbox, StoredEvent } from "./outbox.js";

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly secret: string;
  /** tx_confirmed / outgoing_confirmed are sent at this many confirmations (default 1). */
  readonly confirmations: number;
  /** Only this account's events (wallet-wide ones always); null: every account. */
  readonly account_index: number | null;
  /** With account_index: only these subaddresses' (an outgoing tx: any of its spending subaddresses); []: all. */
  readonly subaddress_indices: readonly number[];
  /** The outbox position when it was added: it gets later events only. */
  readonly since: number;
}

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function matches(w: Webhook, e: WalletEvent): boolean {
  if ((e.kind === "tx_confirmed" || e.kind === "outgoing_confirmed") && e.confirmations !== w.confirmations) return false;
  if (w.account_index === null || e.account_index === undefined) return true;
  if (e.account_index !== w.account_index) return false;
  if (w.subaddress_indices.length === 0 || !e.subaddress_indices) return true;
  return e.subaddress_indices.some((i) => w.subaddress_indices.includes(i));
}

export class WebhookStore {
  private list: Webhook[] = [];
  constructor(readonly path: string) {
    if (existsSync(path)) {
      try {
        this.list = (JSON.parse(readFileSync(path, "utf8")) as { webhooks: Webhook[] }).webhooks;
      } catch (e) {
        throw new Error(`webhook file ${path} is not readable JSON (${(e as Error).message}); fix or move it away (its subscriptions are then lost)`, { cause: e });
      }
    }
  }
  all(): readonly Webhook[] {
    return this.list;
  }
  add(p: Omit<Webhook, "id">): Webhook {
    const w: Webhook = { ...p, id: randomBytes(8).toString("hex") };
    this.save([...this.list, w]);
    return w;
  }
  remove(id: string): boolean {
    const rest = this.list.filter((w) => w.id !== id);
    if (rest.length === this.list.length) return false;
    this.save(rest);
    return true;
  }
  private save(list: Webhook[]): void {
    writeFileAtomic(this.path, Buffer.from(JSON.stringify({ webhooks: list }, null, 1)));
    this.list = list;
  }
}

export interface DeliveryOptions {
  /** First retry delay, ms (default 1000); doubles per failure up to maxBackoffMs (default 60000). */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Per POST, ms (default 10000). */
  readonly timeoutMs?: number;
}

/** Sends one webhook's events from an outbox until stopped. */
export class WebhookSender {
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private readonly done: Promise<void>;
  private failures = 0;

  constructor(
    readonly hook: Webhook,
    private readonly outbox: Outbox,
    private readonly log: (m: string) => void,
    private readonly o: DeliveryOptions = {},
  ) {
    this.passed = hook.since;
    this.done = this.run();
  }

  /** New events are in the outbox. */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.done;
  }

  /** Outbox position before which every event is delivered or not this hook's (so a long outbox is walked once). */
  private passed: number;

  private next(): StoredEvent | undefined {
    for (let s = this.outbox.at(this.passed + 1); s; s = this.outbox.at(this.passed + 1)) {
      if (matches(this.hook, s.event) && !this.outbox.isDelivered(this.hook.id, s.event.id)) return s;
      this.passed = s.seq;
    }
    return undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const s = this.next();
      if (!s) {
        await this.sleep(60_000);
        continue;
      }
      if (await this.post(s.event)) {
        this.failures = 0;
        this.outbox.markDelivered(this.hook.id, s.event.id);
        continue;
      }
      this.failures++;
      const delay = Math.min(this.o.maxBackoffMs ?? 60_000, (this.o.backoffMs ?? 1000) * 2 ** Math.min(this.failures - 1, 20));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wakeUp = () => {
          if (this.stopped) {
            clearTimeout(t);
            resolve();
          }
        };
      });
    }
  }

  private async post(e: WalletEvent): Promise<boolean> {
    const body = JSON.stringify(e);
    try {
      const r = await fetch(this.hook.url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "x-tsmonero-event-id": e.id, "x-tsmonero-signature": signBody(this.hook.secret, body) },
        signal: AbortSignal.timeout(this.o.timeoutMs ?? 10_000),
      });
      await r.arrayBuffer().catch(() => undefined);
      if (r.status >= 200 && r.status < 300) return true;
      this.log(`webhook ${this.hook.id} (${this.hook.url}): event ${e.kind} ${e.id} answered HTTP ${r.status}; retrying (attempt ${this.failures + 2})`);
    } catch (err) {
      this.log(`webhook ${this.hook.id} (${this.hook.url}): event ${e.kind} ${e.id} not delivered (${err instanceof Error ? err.message : String(err)}); retrying (attempt ${this.failures + 2})`);
    }
    return false;
  }
}
