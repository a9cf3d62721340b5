/**
 * Worker-thread entry of the hub's shared scan (shared.ts): one thread holds the scanners of many
 * wallets. A batch brings groups of wallets that asked for the same blocks: each block of a group
 * is parsed and hashed once, the key derivations of all the group's wallets are made in one kernel
 * call per tx public key and their view tags checked in another (groupDerivations), then only the
 * wallets a view tag lets through look for their outputs in it (its subaddress table). The answer carries each block once,
 * as a wallet that found nothing sees it, and per wallet only the transactions where it found
 * something. Messages are plain structured-cloneable data.
 */
import { parentPort } from "node:worker_threads";
import type { LookaheadSnapshot } from "../keys/subaddress.js";
import { type Detection, groupDerivations, KeyImageBatch, type ParsedScanBlock, parseScanBlock, type ScanBlockInput, type ScanKeys, type ScannedBlock, type ScannedTx, Scanner, sharedScannedTx } from "./scan.js";

/** A request of one wallet that is not a block scan. */
export type SingleOp =
  | { readonly op: "pool"; readonly txs: readonly { blob: Uint8Array; txid: Uint8Array }[] }
  | { readonly op: "expand"; readonly major: number; readonly minor: number }
  | { readonly op: "lookahead"; readonly major: number; readonly minor: number }
  | { readonly op: "snapshot" };

/** A block of a group: its id (the main thread's, per block blob), and its data unless the thread holds it parsed already. */
export interface GroupBlock {
  readonly id: number;
  readonly input?: ScanBlockInput;
}

export interface BlockGroup {
  readonly blocks: readonly GroupBlock[];
  /** The wallets scanning these blocks (each appears once in a batch). */
  readonly wallets: readonly number[];
}

export type SharedScanMessage =
  | { readonly kind: "add"; readonly wid: number; readonly keys: ScanKeys }
  | { readonly kind: "remove"; readonly wid: number }
  | {
      readonly kind: "batch";
      readonly id: number;
      readonly groups: readonly BlockGroup[];
      readonly singles: readonly { wid: number; req: SingleOp }[];
      /** Parsed blocks to forget after this batch (the main thread decides, so both sides agree on what is held). */
      readonly evict: readonly number[];
    };

/** A wallet's findings in block `b`, transaction `t` of its group. */
export interface Hit {
  readonly wid: number;
  readonly b: number;
  readonly t: number;
  readonly d: Detection;
}

export type GroupResult =
  | { readonly ok: true; readonly blocks: ScannedBlock[]; readonly hits: Hit[]; readonly failed: { wid: number; error: string }[] }
  | { readonly ok: false; readonly error: string };

export type SingleResult = { readonly ok: true; readonly result: ScannedTx[] | LookaheadSnapshot | null } | { readonly ok: false; readonly error: string };

export interface BatchReply {
  readonly id: number;
  readonly groups: GroupResult[];
  readonly singles: SingleResult[];
  /** Blocks this batch parsed (each block once per thread, whatever the wallets and groups scanning it). */
  readonly parsed: number;
  /** Key derivations this batch made (wallets × tx public keys): the work no sharing removes. */
  readonly derived: number;
}

const why = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

if (parentPort) {
  const port = parentPort;
  const scanners = new Map<number, Scanner>();
  /** Wallets whose scanner could not be made, with the reason (their requests fail with it). */
  const broken = new Map<number, string>();
  const scannerOf = (wid: number): Scanner => {
    const s = scanners.get(wid);
    if (s) return s;
    throw new Error(broken.get(wid) ?? `no scanner for wallet ${wid}`);
  };

  /** Blocks parsed here, by the main thread's id: each is parsed once whatever the wallets and groups that scan it. */
  const held = new Map<number, { parsed: ParsedScanBlock; shared: ScannedBlock }>();
  const parseOnce = (b: GroupBlock): { parsed: ParsedScanBlock; shared: ScannedBlock; fresh: boolean } => {
    const h = held.get(b.id);
    if (h) return { ...h, fresh: false };
    if (!b.input) throw new Error(`block ${b.id} is neither sent nor held`);
    const p = parseScanBlock(b.input);
    const shared: ScannedBlock = {
      height: p.height,
      hash: p.hash,
      prevHash: p.prevHash,
      timestamp: p.timestamp,
      majorVersion: p.majorVersion,
      reward: p.reward,
      txs: p.txs.map((t) => sharedScannedTx(t)),
    };
    held.set(b.id, { parsed: p, shared });
    return { parsed: p, shared, fresh: true };
  };

  const runGroup = (g: BlockGroup): { r: GroupResult; parsed: number; derived: number } => {
    let got;
    try {
      got = g.blocks.map(parseOnce);
    } catch (e) {
      return { r: { ok: false, error: why(e) }, parsed: 0, derived: 0 };
    }
    const parsed = got.map((x) => x.parsed);
    const blocks = got.map((x) => x.shared);
    const hits: Hit[] = [];
    const failed: { wid: number; error: string }[] = [];
    // every wallet's derivations, one kernel call per tx public key for the whole group
    const ready = g.wallets.filter((wid) => scanners.has(wid));
    const viewKeys = new Uint8Array(32 * ready.length);
    ready.forEach((wid, k) => viewKeys.set(scannerOf(wid).keys.viewSecretKey, 32 * k));
    const derivations = parsed.map((p) => p.txs.map((tx) => groupDerivations(tx, viewKeys)));
    const slot = new Map(ready.map((wid, k) => [wid, k]));
    for (const wid of g.wallets) {
      const mine: Hit[] = [];
      try {
        const s = scannerOf(wid);
        const k = slot.get(wid) ?? 0;
        const images = new KeyImageBatch(); // this wallet's key images of the group, computed together
        try {
          parsed.forEach((p, b) =>
            p.txs.forEach((tx, t) => {
              const g = derivations[b][t];
              if (!g.candidates[k]) return; // every output's view tag rules this wallet out
              const d = s.detect(tx, p.majorVersion, g.of(k), images);
              if (d.received.length > 0 || d.rejected > 0 || d.paymentId !== null) mine.push({ wid, b, t, d });
            }),
          );
          images.flush(s.backend);
        } finally {
          images.discard();
        }
        hits.push(...mine);
      } catch (e) {
        failed.push({ wid, error: why(e) });
      }
    }
    let derived = 0;
    for (const b of derivations) for (const t of b) derived += t.derived;
    return { r: { ok: true, blocks, hits, failed }, parsed: got.filter((x) => x.fresh).length, derived };
  };

  const runSingle = (wid: number, req: SingleOp): SingleResult => {
    try {
      const s = scannerOf(wid);
      if (req.op === "pool") return { ok: true, result: req.txs.map((t) => s.scanPoolTx(t.blob, t.txid)) };
      if (req.op === "snapshot") return { ok: true, result: s.lookahead.snapshot() };
      if (req.op === "lookahead") s.setLookahead(req.major, req.minor);
      else s.expand(req.major, req.minor);
      return { ok: true, result: null };
    } catch (e) {
      return { ok: false, error: why(e) };
    }
  };

  port.on("message", (m: SharedScanMessage) => {
    if (m.kind === "add") {
      try {
        scanners.set(m.wid, new Scanner(m.keys));
      } catch (e) {
        broken.set(m.wid, why(e));
      }
    } else if (m.kind === "remove") {
      scanners.delete(m.wid);
      broken.delete(m.wid);
    } else {
      let parsed = 0;
      let derived = 0;
      const groups = m.groups.map((g) => {
        const x = runGroup(g);
        parsed += x.parsed;
        derived += x.derived;
        return x.r;
      });
      const singles = m.singles.map((x) => runSingle(x.wid, x.req));
      for (const id of m.evict) held.delete(id);
      const reply: BatchReply = { id: m.id, groups, singles, parsed, derived };
      port.postMessage(reply);
    }
  });
}
