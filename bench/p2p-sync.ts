/**
 * P2P sync, like for like (issue 16): a regtest chain of ≥2,000 blocks with ≥500 RingCT txs (built
 * in-process: coinbases to a test key, each later block spending one of them with a CLSAG + BP+ tx,
 * ring 16) is replayed into a real monerod, which then goes online; tsmonerod and a second real
 * monerod start at the same moment and both sync the chain from it over Levin. Reported: blocks/s
 * of each (process start to top), and the peak RSS of each (VmHWM of its process).
 *
 * Two rounds, each with a fresh monerod beside tsmonerod: by default at --fixed-difficulty 1
 * tsmonerod does not hash the PoW (every hash meets difficulty 1) while monerod computes RandomX for
 * each block, so round 1 is not like for like and says so; round 2 runs tsmonerod with
 * TSMONERO_HASH_TRIVIAL_POW=1, hashing every block as monerod does. monerod's chain RPCs answer BUSY
 * until it is synchronized, so only its start → top time is seen.
 *
 *   npm run bench -- p2p-sync [--blocks N] [--txs N]   (defaults 2000 and 500)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { defaultBackend } from "../src/crypto/index.js";
import { openNode } from "../src/node/chain/index.js";
import { serializeBlock } from "../src/protocol/block.js";
import { blockOn, buildSpend, mineTo, newKeys, ownedCoinbase } from "../test/helpers/node-spend.js";
import { type BenchSuite, flagString, progress } from "./lib/suite.js";
import { machineLine, processRssMiB } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { launch, post, type Proc, rpc, stop, waitAnswer } from "./wallet.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PORTS = { srcRpc: 19280, srcP2p: 19281, oursRpc: 19282, oursP2p: 19283, realRpc: 19284, realP2p: 19285 } as const;
const FLAGS: readonly FlagSpec[] = [
  { name: "blocks", takesValue: true, help: "chain height to sync (default 2000)" },
  { name: "txs", takesValue: true, help: "RingCT txs in the chain, one per block after the first coinbases unlock (default 500)" },
];

interface ChainBlock {
  blob: string;
  txs: string[];
}

/** The chain, built on an in-process node at fixed difficulty 1 with clock steps of 120 s ending now. */
async function buildChain(blocks: number, txs: number): Promise<ChainBlock[]> {
  const be = defaultBackend();
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-bench-p2p-build-"));
  const start = Math.floor(Date.now() / 1000) - blocks * 120;
  let clock = start;
  const node = await openNode({ dataDir: dir, network: "regtest", fixedDifficulty: 1n, syncMode: "fast", now: () => clock, verifyThreads: 1, offline: true });
  try {
    const me = newKeys(be);
    const firstSpend = blocks - txs;
    if (firstSpend < 80 || txs > firstSpend - 70) throw new Error(`${blocks} blocks cannot hold ${txs} spends of earlier coinbases`);
    for (let h = 1; h < firstSpend; h++) {
      clock = start + h * 120;
      await mineTo(node, me, 1, be, BigInt(clock));
      if (h % 200 === 0) progress(`building the chain: ${h} / ${blocks} blocks`);
    }
    for (let i = 0; node.store.height() < blocks; i++) {
      clock = start + node.store.height() * 120;
      const tx = buildSpend(node.store, ownedCoinbase(node.store, 1 + i, me, be), me, be, { now: BigInt(clock) });
      const r = await node.submitBlock(serializeBlock(blockOn(node, node.store.topHash(), [tx], me, BigInt(clock), be)), { txBlobs: [tx] });
      if (r.status !== "added") throw new Error(`block ${node.store.height()}: ${r.message ?? r.status}`);
      if (node.store.height() % 100 === 0) progress(`building the chain: ${node.store.height()} / ${blocks} blocks, ${i + 1} txs`);
    }
    const out: ChainBlock[] = [];
    for (let h = 1; h < node.store.height(); h++) {
      const b = node.store.block(h)!;
      out.push({ blob: Buffer.from(node.store.blockBlob(h)!).toString("hex"), txs: b.txHashes.map((t) => Buffer.from(node.store.txBlob(t)!).toString("hex")) });
    }
    return out;
  } finally {
    await node.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const monerodArgs = (dir: string, rpcPort: number, p2pPort: number, extra: string[]): string[] => [
  "--regtest", "--fixed-difficulty", "1", "--data-dir", dir, "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpcPort),
  "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2pPort), "--no-zmq", "--non-interactive", "--no-igd", "--log-level", "0", ...extra,
];

async function run(args: ParsedArgs): Promise<void> {
  const blocks = Number(flagString(args, "blocks") ?? 2000);
  const txs = Number(flagString(args, "txs") ?? 500);
  const dirs: string[] = [];
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), "tsmonero-bench-p2p-"));
    dirs.push(d);
    return d;
  };
  const procs: Proc[] = [];
  try {
    progress(`building a ${blocks}-block chain with ${txs} txs`);
    const chain = await buildChain(blocks, txs);
    const txCount = chain.reduce((n, b) => n + b.txs.length, 0);

    // the source: a monerod holding the chain, replayed offline then restarted online
    const srcDir = tmp();
    // (stop() removes a Proc's dir: the offline run gets a scratch one, the chain stays in srcDir)
    let src = launch("monerod", "/usr/bin/monerod", monerodArgs(srcDir, PORTS.srcRpc, PORTS.srcP2p, ["--offline"]), tmp());
    procs.push(src);
    await waitAnswer(src, PORTS.srcRpc, "get_info");
    for (const [i, b] of chain.entries()) {
      for (const t of b.txs) {
        const r = (await post(PORTS.srcRpc, "/send_raw_transaction", { tx_as_hex: t })) as { status: string; reason?: string };
        if (r.status !== "OK") throw new Error(`monerod refused a tx of block ${i + 1}: ${JSON.stringify(r)}`);
      }
      const r = await rpc(PORTS.srcRpc, "submit_block", [b.blob]);
      if (r.status !== "OK") throw new Error(`monerod refused block ${i + 1}`);
      if ((i + 1) % 500 === 0) progress(`replayed into monerod: ${i + 1} / ${chain.length}`);
    }
    const top = (await rpc(PORTS.srcRpc, "get_last_block_header")).block_header as { hash: string; height: number };
    await stop(src);
    src = launch("monerod", "/usr/bin/monerod", monerodArgs(srcDir, PORTS.srcRpc, PORTS.srcP2p, ["--keep-fakechain", "--max-connections-per-ip", "4", "--seed-node", "127.0.0.1:19289"]), srcDir);
    procs.push(src);
    await waitAnswer(src, PORTS.srcRpc, "get_info");

    // two rounds, each tsmonerod and a fresh real monerod starting together and dialling only the
    // source: first tsmonerod as it runs by default (no PoW hash at difficulty 1), then with
    // TSMONERO_HASH_TRIVIAL_POW=1, hashing every block's RandomX PoW as monerod does
    const rows: string[][] = [];
    for (const hashPow of [false, true]) {
      const peer = ["--add-exclusive-node", `127.0.0.1:${PORTS.srcP2p}`];
      const oursDir = tmp();
      const realDir = tmp();
      const t0 = Date.now();
      const ours = launch("tsmonerod", join(ROOT, "bin/tsmonerod"), [
        "--regtest", "--fixed-difficulty", "1", "--data-dir", oursDir, "--rpc-bind-port", String(PORTS.oursRpc), "--p2p-bind-ip", "127.0.0.1",
        "--p2p-bind-port", String(PORTS.oursP2p), "--no-zmq", "--non-interactive", "--log-level", "0", ...peer,
      ], oursDir, hashPow ? { TSMONERO_HASH_TRIVIAL_POW: "1" } : undefined);
      const real = launch("monerod", "/usr/bin/monerod", monerodArgs(realDir, PORTS.realRpc, PORTS.realP2p, peer), realDir);
      procs.push(ours, real);
      const subjects = [
        { name: hashPow ? "tsmonerod, PoW hashed (same work as monerod)" : "tsmonerod, default (PoW not hashed at difficulty 1: less work than monerod)", p: ours, port: PORTS.oursRpc, done: 0, rss: 0 },
        { name: "monerod (RandomX PoW hashed per block)", p: real, port: PORTS.realRpc, done: 0, rss: 0 },
      ];
      progress(`round ${hashPow ? 2 : 1}: ${subjects[0].name} and monerod sync from the source`);
      const deadline = Date.now() + 30 * 60_000;
      while (subjects.some((s) => !s.done)) {
        if (Date.now() > deadline) throw new Error("sync did not finish in 30 minutes");
        for (const s of subjects) {
          if (s.done) continue;
          if (s.p.proc.exitCode !== null) throw new Error(`${s.name} exited ${s.p.proc.exitCode}: ${s.p.output.join("").slice(-1500)}`);
          s.rss = Math.max(s.rss, processRssMiB(s.p.proc.pid).peak);
          try {
            const h = (await rpc(s.port, "get_last_block_header")).block_header as { hash: string; height: number } | undefined;
            if (h?.hash === top.hash) s.done = Date.now();
          } catch {
            // not answering yet (starting) or busy
          }
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      // blocks/s over start → top: monerod answers chain RPCs BUSY until it is synchronized, so its
      // first block is not visible; the start includes each process's own start-up
      const rate = subjects.map((s) => top.height / ((s.done - t0) / 1000));
      for (const [i, s] of subjects.entries()) {
        const secs = (s.done - t0) / 1000;
        rows.push([`${hashPow ? 2 : 1}`, s.name, secs.toFixed(1), rate[i].toFixed(1), `${(rate[i] / rate[1]).toFixed(2)}×`, s.rss.toFixed(0)]);
      }
      await stop(ours);
      await stop(real);
    }
    process.stdout.write(`# P2P sync: ${top.height + 1} blocks, ${txCount} RingCT txs, from one real monerod to tsmonerod and a second monerod at once (two rounds)\n\n${machineLine()}\n\n`);
    process.stdout.write(
      `${markdownTable(
        [
          { header: "round" },
          { header: "syncer" },
          { header: "start → top (s)", align: "right" },
          { header: "blocks/s", align: "right" },
          { header: "vs monerod", align: "right" },
          { header: "peak RSS (MiB)", align: "right" },
        ],
        rows,
      )}\n`,
    );
  } finally {
    for (const p of procs.reverse()) await stop(p);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export const suite: BenchSuite = {
  name: "p2p-sync",
  summary: "tsmonerod and a real monerod sync the same ≥2,000-block chain with txs from one monerod: blocks/s and peak RSS",
  flags: FLAGS,
  run,
};
