/**
 * A wallet's persistent outbox (.NAME.events): append-only JSON lines, fsync'd per append, holding
 * every event once (by id) in the order derived, and a "delivered" line for each event a webhook
 * acknowledged. On open the file is replayed; a torn last line (kill -9 mid-write) is cut off with a
 * log line. Nothing is lost between an append and a delivery: an event without its delivered line is
 * sent again.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import type { WalletEvent } from "./derive.js";

/** An event with its position in the outbox (1, 2, …). */
export interface StoredEvent {
  readonly seq: number;
  readonly event: WalletEvent;
}

type Line = { t: "event"; event: WalletEvent } | { t: "delivered"; sub: string; id: string };

export class Outbox {
  private readonly list: StoredEvent[] = [];
  private readonly byId = new Map<string, StoredEvent>();
  private readonly delivered = new Map<string, Set<string>>();
  private fd: number;

  constructor(
    readonly path: string,
    private readonly log: (m: string) => void,
  ) {
    if (existsSync(path)) this.replay();
    this.fd = openSync(path, "a", 0o600);
  }

  private replay(): void {
    const text = readFileSync(this.path, "utf8");
    const end = text.lastIndexOf("\n") + 1;
    if (end < text.length) {
      this.log(`event outbox ${this.path}: cutting off a torn last line of ${text.length - end} bytes (an interrupted write)`);
      truncateSync(this.path, Buffer.byteLength(text.slice(0, end)));
    }
    let n = 0;
    for (const raw of text.slice(0, end).split("\n")) {
      n++;
      if (raw === "") continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch (e) {
        this.log(`event outbox ${this.path}: line ${n} is not JSON (${(e as Error).message}); skipped`);
        continue;
      }
      if (line.t === "event") this.remember(line.event);
      else if (line.t === "delivered") this.deliveredSet(line.sub).add(line.id);
    }
  }

  private remember(event: WalletEvent): StoredEvent | null {
    if (this.byId.has(event.id)) return null;
    const s = { seq: this.list.length + 1, event };
    this.list.push(s);
    this.byId.set(event.id, s);
    return s;
  }

  private deliveredSet(sub: string): Set<string> {
    let s = this.delivered.get(sub);
    if (!s) this.delivered.set(sub, (s = new Set()));
    return s;
  }

  private write(lines: readonly Line[]): void {
    if (lines.length === 0) return;
    const data = Buffer.from(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    let off = 0;
    while (off < data.length) off += writeSync(this.fd, data, off, data.length - off);
    fsyncSync(this.fd);
  }

  /** Appends the events whose ids it does not hold yet; returns those. */
  append(events: readonly WalletEvent[]): StoredEvent[] {
    const fresh: StoredEvent[] = [];
    for (const e of events) {
      const s = this.remember(e);
      if (s) fresh.push(s);
    }
    this.write(fresh.map((s) => ({ t: "event", event: s.event })));
    return fresh;
  }

  markDelivered(sub: string, id: string): void {
    const set = this.deliveredSet(sub);
    if (set.has(id)) return;
    this.write([{ t: "delivered", sub, id }]);
    set.add(id);
  }

  isDelivered(sub: string, id: string): boolean {
    return this.delivered.get(sub)?.has(id) ?? false;
  }

  /** The last position (0: empty). */
  get lastSeq(): number {
    return this.list.length;
  }

  /** Events after position `seq`. */
  after(seq: number): readonly StoredEvent[] {
    return this.list.slice(Math.max(0, seq));
  }

  /** The event at position `seq` (1-based). */
  at(seq: number): StoredEvent | undefined {
    return seq >= 1 ? this.list[seq - 1] : undefined;
  }

  seqOf(id: string): number | undefined {
    return this.byId.get(id)?.seq;
  }

  close(): void {
    closeSync(this.fd);
  }
}
