/**
 * Numbers drawn from a `RandomSource`: uniform doubles, unbiased indices, gamma variates and
 * shuffles — what wallet2's decoy selection takes from std::gamma_distribution,
 * crypto::rand_idx and std::shuffle. Bytes are read from the source in blocks, so a
 * deterministic source (MoneroTestRandom) gives the same draws on every run.
 */
import { type RandomSource, systemRandom } from "../../crypto/random.js";

const POOL_BYTES = 4096;
const TWO_32 = 2 ** 32;
const TWO_53 = 2 ** 53;

export class RandomDraw {
  private readonly pool = new Uint8Array(POOL_BYTES);
  private readonly view = new DataView(this.pool.buffer);
  private pos = POOL_BYTES;

  constructor(private readonly source: RandomSource = systemRandom) {}

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    if (this.pos + 4 > POOL_BYTES) {
      this.source.fill(this.pool);
      this.pos = 0;
    }
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** A uniform integer in [0, 2^53). */
  u53(): number {
    return (this.u32() >>> 11) * TWO_32 + this.u32();
  }

  /** A uniform double in [0, 1) with 53 random bits. */
  uniform(): number {
    return this.u53() / TWO_53;
  }

  /** A uniform integer in [0, n) without modulo bias (crypto::rand_idx); n ≥ 1, n ≤ 2^53. */
  index(n: number): number {
    if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`RandomDraw.index: bound must be an integer in [1, 2^53], got ${n}`);
    if (n <= TWO_32) {
      const limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        const v = this.u32();
        if (v < limit) return v % n;
      }
    }
    const limit = TWO_53 - (TWO_53 % n);
    for (;;) {
      const v = this.u53();
      if (v < limit) return v % n;
    }
  }

  /** A standard normal variate (Box–Muller). */
  normal(): number {
    let u = 0;
    while (u === 0) u = this.uniform();
    const v = this.uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /**
   * A Gamma(shape, scale) variate, shape ≥ 1 (Marsaglia and Tsang's squeeze method; the same
   * distribution as std::gamma_distribution, not the same stream).
   */
  gamma(shape: number, scale: number): number {
    if (!(shape >= 1) || !(scale > 0)) throw new RangeError(`RandomDraw.gamma: needs shape ≥ 1 and scale > 0, got ${shape}, ${scale}`);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const t = 1 + c * x;
      if (t <= 0) continue;
      const v = t * t * t;
      const u = this.uniform();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v * scale;
      if (u > 0 && Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
    }
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.index(i + 1);
      const t = xs[i];
      xs[i] = xs[j];
      xs[j] = t;
    }
    return xs;
  }
}
