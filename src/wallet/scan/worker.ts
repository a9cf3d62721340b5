/**
 * Worker-thread entry for scanning: holds one wallet's `Scanner` and scans the block batches the
 * main thread posts (see pool.ts). Messages are plain structured-cloneable data.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type ScanBlockInput, type ScanKeys, type ScannedBlock, Scanner } from "./scan.js";

export type ScanRequest =
  | { readonly id: number; readonly op: "blocks"; readonly blocks: readonly ScanBlockInput[] }
  | { readonly id: number; readonly op: "pool"; readonly txs: readonly { blob: Uint8Array; txid: Uint8Array }[] }
  | { readonly id: number; readonly op: "expand"; readonly major: number; readonly minor: number }
  | { readonly id: number; readonly op: "lookahead"; readonly major: number; readonly minor: number }
  | { readonly id: number; readonly op: "snapshot" };

/** A "blocks" answer: the blocks, and the subaddress table's size before and after scanning them. */
export interface SizedScan {
  readonly blocks: ScannedBlock[];
  readonly tableBefore: number;
  readonly tableAfter: number;
}

if (parentPort) {
  const port = parentPort;
  const scanner = new Scanner(workerData as ScanKeys);
  port.on("message", (req: ScanRequest) => {
    try {
      let result: unknown = null;
      if (req.op === "blocks") {
        const tableBefore = scanner.lookahead.table.size;
        const blocks = scanner.scanBlocks(req.blocks);
        result = { blocks, tableBefore, tableAfter: scanner.lookahead.table.size } satisfies SizedScan;
      }
      else if (req.op === "pool") result = req.txs.map((t) => scanner.scanPoolTx(t.blob, t.txid));
      else if (req.op === "lookahead") scanner.setLookahead(req.major, req.minor);
      else if (req.op === "snapshot") result = scanner.lookahead.snapshot();
      else scanner.expand(req.major, req.minor);
      port.postMessage({ id: req.id, ok: true, result });
    } catch (e) {
      port.postMessage({ id: req.id, ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  });
}
