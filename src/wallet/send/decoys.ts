/**
 * PLACEHOLDER (replaced by the decoy-selection branch): uniform decoys over the unlocked RingCT
 * outputs, with the interface the sender uses.
 */
import type { NodeApi } from "../../client/node-client.js";
import { type RandomSource, systemRandom } from "../../crypto/random.js";

export interface RingMember {
  globalIndex: bigint;
  key: Uint8Array;
  mask: Uint8Array;
}
export interface Ring {
  members: RingMember[];
  realIndex: number;
}
export interface RealOutput {
  globalIndex: bigint;
  key: Uint8Array;
  mask: Uint8Array;
  blockHeight: number;
}

export async function pickRings(node: NodeApi, reals: readonly RealOutput[], ringSize: number, opts: { rng?: RandomSource } = {}): Promise<Ring[]> {
  const rng = opts.rng ?? systemRandom;
  const info = await node.getInfo();
  const height = BigInt(info.height);
  const dist = await node.getOutputDistributionBin({ amounts: [0n], cumulative: true, from_height: 0n, to_height: 0n });
  const d = dist.distributions[0];
  const cum = d.distribution;
  const unlockedTop = cum.length > 60 ? cum[cum.length - 61] : 0n;
  void height;
  const out: Ring[] = [];
  for (const real of reals) {
    const chosen = new Set<bigint>([real.globalIndex]);
    const buf = new Uint8Array(8);
    let guard = 0;
    while (chosen.size < ringSize) {
      if (++guard > 100000 || unlockedTop < BigInt(ringSize)) throw new Error("not enough outputs to use");
      rng.fill(buf);
      chosen.add(new DataView(buf.buffer).getBigUint64(0, true) % unlockedTop);
    }
    const idx = [...chosen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const r = await node.getOutsBin(idx.map((index) => ({ amount: 0n, index })), false);
    const members = idx.map((globalIndex, i) => ({ globalIndex, key: r.outs[i].key, mask: r.outs[i].mask }));
    out.push({ members, realIndex: idx.indexOf(real.globalIndex) });
  }
  return out;
}
