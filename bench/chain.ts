/**
 * `npm run bench -- chain`: builds or continues the large regtest chain artifact of issue 19
 * (bench/lib/big-chain.ts says what is in it) in --chain-dir, outside the repo; `scale` measures on it.
 *
 *   npm run bench -- chain [--chain-blocks N] [--chain-plan-blocks 100000] [--chain-outputs 1000000]
 *                          [--chain-coinbase-outputs 1] [--chain-dir DIR]
 *
 * The first run fixes the plan (blocks, outputs per block, timestamps ending about now at the plan's
 * last block); every run builds up to --chain-blocks (default: the whole plan) from the last
 * checkpoint, so a 100,000-block chain can be built over several runs. A prefix of the chain serves
 * as a smaller one (`scale --scale-blocks N`).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { buildChain, readMeta } from "./lib/big-chain.js";
import { type BenchSuite, flagString, progress } from "./lib/suite.js";

export const CHAIN_DIR_FLAG: FlagSpec = {
  name: "chain-dir",
  takesValue: true,
  help: "Where the chain artifact lives (default $TSMONERO_CHAIN_DIR or ~/.cache/tsmonero/chain-regtest)",
};

export function chainDir(args: ParsedArgs): string {
  return flagString(args, "chain-dir") ?? process.env.TSMONERO_CHAIN_DIR ?? join(homedir(), ".cache", "tsmonero", "chain-regtest");
}

const FLAGS: readonly FlagSpec[] = [
  CHAIN_DIR_FLAG,
  { name: "chain-blocks", takesValue: true, help: "Blocks to build up to (default: the whole plan)" },
  { name: "chain-plan-blocks", takesValue: true, help: "The plan's blocks (first run only: its timestamps end there)", defaultValue: "100000" },
  { name: "chain-outputs", takesValue: true, help: "Outputs planned at the plan's last block (first run only)", defaultValue: "1000000" },
  { name: "chain-coinbase-outputs", takesValue: true, help: "Outputs of each coinbase, P2Pool-style (first run only)", defaultValue: "1" },
];

async function run(args: ParsedArgs): Promise<void> {
  const dir = chainDir(args);
  const planBlocks = Number(flagString(args, "chain-plan-blocks") ?? 100_000);
  const blocks = Number(flagString(args, "chain-blocks") ?? (existsSync(join(dir, "meta.json")) ? readMeta(dir).plan.blocks : planBlocks));
  const outputs = Number(flagString(args, "chain-outputs") ?? 1_000_000);
  progress(`building the chain in ${dir} up to ${blocks} blocks`);
  const t0 = Date.now();
  const coinbaseOutputs = Number(flagString(args, "chain-coinbase-outputs") ?? 1);
  if (!Number.isInteger(coinbaseOutputs) || coinbaseOutputs < 1 || coinbaseOutputs > 1000) throw new Error(`--chain-coinbase-outputs must be 1 to 1000, got ${coinbaseOutputs}`);
  const meta = await buildChain({ dir, blocks, planBlocks, outputs, coinbaseOutputs, progress });
  const secs = (Date.now() - t0) / 1000;
  process.stdout.write(
    `chain in ${dir}: ${meta.blocks} blocks, ${meta.txs} txs, ${meta.inputs} inputs, ${meta.outputs} outputs (${meta.ownedOutputs} to the owner), ` +
      `${(meta.bytes / 2 ** 20).toFixed(1)} MiB; plan ${meta.plan.blocks} blocks / ${meta.plan.outputs} outputs${meta.plan.coinbaseOutputs ? ` (${meta.plan.coinbaseOutputs} per coinbase)` : ""}; this run ${secs.toFixed(0)} s\n`,
  );
}

export const suite: BenchSuite = {
  name: "chain",
  summary: "build (or continue) the large regtest chain artifact that `scale` measures on",
  flags: FLAGS,
  run,
};
