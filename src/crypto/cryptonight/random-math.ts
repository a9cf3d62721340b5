/**
 * CryptoNight-R's random math (variant 4, Monero's hard forks 10 and 11): a short program of
 * 32-bit register operations generated from the block height and run once per main-loop step
 * (Monero's src/crypto/variant4_random_math.h: v4_random_math_init and v4_random_math).
 *
 * The generator draws bytes from a 32-byte buffer (the height, little-endian, with byte 20 set to
 * 0xda) that is re-hashed with BLAKE-256 whenever it runs dry. It schedules instructions on an
 * abstract CPU (one multiplier, three ALUs, Intel latencies) until each of the four variable
 * registers has a latency of 45 cycles, then adds ROR/MUL/MUL until a wide "ASIC" also needs 45,
 * and starts over (continuing the byte stream) if register 8 went unused or the size left 60..70.
 */
import { blake256 } from "./blake256.js";

export const V4_MUL = 0;
export const V4_ADD = 1;
export const V4_SUB = 2;
export const V4_ROR = 3;
export const V4_ROL = 4;
export const V4_XOR = 5;

/** One instruction: r[dst] = r[dst] op r[src] (+ c for ADD). dst is 0..3, src 0..8. */
export interface V4Instruction {
  readonly opcode: number;
  readonly dst: number;
  readonly src: number;
  readonly c: number;
}

const TOTAL_LATENCY = 15 * 3;
const NUM_INSTRUCTIONS_MIN = 60;
const NUM_INSTRUCTIONS_MAX = 70;
const OP_LATENCY = [3, 2, 1, 2, 2, 1] as const;
const ASIC_OP_LATENCY = [3, 1, 1, 1, 1, 1] as const;
const OP_ALUS = [1, 3, 3, 3, 3, 3] as const;
const IS_ROTATION = [false, false, false, true, true, false] as const;

/** The program for `height` (v4_random_math_init), without the final RET. */
export function v4RandomMathInit(height: bigint | number): V4Instruction[] {
  const data = new Uint8Array(32);
  const view = new DataView(data.buffer);
  view.setBigUint64(0, BigInt.asUintN(64, BigInt(height)), true);
  data[20] = 0xda; // -38 as a signed byte: "change seed"
  let at = data.length; // empty: the first draw hashes
  const need = (n: number): void => {
    if (at + n > data.length) {
      data.set(blake256(data));
      at = 0;
    }
  };

  let code: V4Instruction[];
  let r8Used: boolean;
  do {
    const latency = new Array<number>(9).fill(0);
    const asicLatency = new Array<number>(9).fill(0);
    // per register: (value id, last opcode, source value id) to skip operations that fold into one
    const instData = [0, 1, 2, 3, 0xffffff, 0xffffff, 0xffffff, 0xffffff, 0xffffff];
    const aluBusy = Array.from({ length: TOTAL_LATENCY + 1 }, () => [false, false, false]);
    const rotated = [false, false, false, false];
    let rotateCount = 0;
    let numRetries = 0;
    let totalIterations = 0;
    code = [];
    r8Used = false;

    while ((latency[0] < TOTAL_LATENCY || latency[1] < TOTAL_LATENCY || latency[2] < TOTAL_LATENCY || latency[3] < TOTAL_LATENCY) && numRetries < 64) {
      if (++totalIterations > 256) break; // fail-safe
      need(1);
      const c = data[at++];
      let opcode = c & 7;
      if (opcode === 5) {
        need(1);
        opcode = data[at++] < 0x80 ? V4_ROR : V4_ROL; // the signed byte's sign picks the direction
      } else if (opcode >= 6) {
        opcode = V4_XOR;
      } else {
        opcode = opcode <= 2 ? V4_MUL : opcode - 2;
      }
      const dst = (c >> 3) & 3;
      let src = (c >> 5) & 7;
      const a = dst;
      // ADD/SUB/XOR of a register with itself use r8 instead
      if ((opcode === V4_ADD || opcode === V4_SUB || opcode === V4_XOR) && a === src) src = 8;
      const b = src;
      // a second rotation of the same register is one rotation
      if (IS_ROTATION[opcode] && rotated[a]) continue;
      // the same non-MUL operation with the same source value twice folds into one
      if (opcode !== V4_MUL && (instData[a] & 0xffff00) === (opcode << 8) + ((instData[b] & 255) << 16)) continue;

      // the first cycle an ALU for this opcode is free
      let next = Math.max(latency[a], latency[b]);
      let alu = -1;
      while (next < TOTAL_LATENCY) {
        for (let i = OP_ALUS[opcode] - 1; i >= 0; --i) {
          if (aluBusy[next][i]) continue;
          if (opcode === V4_ADD && aluBusy[next + 1][i]) continue; // ADD takes two 1-cycle slots
          if (IS_ROTATION[opcode] && next < rotateCount * OP_LATENCY[opcode]) continue;
          alu = i;
          break;
        }
        if (alu >= 0) break;
        ++next;
      }
      // no register left unchanged for more than 7 cycles
      if (next > latency[a] + 7) continue;
      next += OP_LATENCY[opcode];
      if (next > TOTAL_LATENCY) {
        ++numRetries;
        continue;
      }
      if (IS_ROTATION[opcode]) ++rotateCount;
      const start = next - OP_LATENCY[opcode];
      aluBusy[start][alu] = true;
      latency[a] = next;
      asicLatency[a] = Math.max(asicLatency[a], asicLatency[b]) + ASIC_OP_LATENCY[opcode];
      rotated[a] = IS_ROTATION[opcode];
      instData[a] = code.length + (opcode << 8) + ((instData[b] & 255) << 16);
      if (src === 8) r8Used = true;
      let k = 0;
      if (opcode === V4_ADD) {
        aluBusy[start + 1][alu] = true;
        need(4);
        k = view.getUint32(at, true);
        at += 4;
      }
      code.push({ opcode, dst, src, c: k });
      if (code.length >= NUM_INSTRUCTIONS_MIN) break;
    }

    // a wide ASIC runs independent instructions at once: lengthen the longest chain until it too
    // needs the full latency on at least one register
    const prevSize = code.length;
    const pattern = [V4_ROR, V4_MUL, V4_MUL] as const;
    while (code.length < NUM_INSTRUCTIONS_MAX && asicLatency.slice(0, 4).every((l) => l < TOTAL_LATENCY)) {
      let minIdx = 0;
      let maxIdx = 0;
      for (let i = 1; i < 4; ++i) {
        if (asicLatency[i] < asicLatency[minIdx]) minIdx = i;
        if (asicLatency[i] > asicLatency[maxIdx]) maxIdx = i;
      }
      const opcode = pattern[(code.length - prevSize) % 3];
      latency[minIdx] = latency[maxIdx] + OP_LATENCY[opcode];
      asicLatency[minIdx] = asicLatency[maxIdx] + ASIC_OP_LATENCY[opcode];
      code.push({ opcode, dst: minIdx, src: maxIdx, c: 0 });
    }
  } while (!r8Used || code.length < NUM_INSTRUCTIONS_MIN || code.length > NUM_INSTRUCTIONS_MAX);
  return code;
}

/** Runs `code` over the nine 32-bit registers `r` in place (v4_random_math with 32-bit v4_reg). */
export function v4RandomMath(code: readonly V4Instruction[], r: Uint32Array): void {
  for (const op of code) {
    const src = r[op.src];
    const d = r[op.dst];
    switch (op.opcode) {
      case V4_MUL:
        r[op.dst] = Math.imul(d, src);
        break;
      case V4_ADD:
        r[op.dst] = d + src + op.c;
        break;
      case V4_SUB:
        r[op.dst] = d - src;
        break;
      case V4_ROR: {
        const s = src & 31;
        r[op.dst] = (d >>> s) | (d << ((32 - s) & 31));
        break;
      }
      case V4_ROL: {
        const s = src & 31;
        r[op.dst] = (d << s) | (d >>> ((32 - s) & 31));
        break;
      }
      default:
        r[op.dst] = d ^ src;
    }
  }
}

const NAMES = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"] as const;

/**
 * `code` as straight-line JavaScript over nine local int32 registers: what Monero's
 * CryptonightR_JIT does in machine code, here left to V8's JIT. Same results as v4RandomMath; the
 * source is built only from our opcodes, register names and integer constants.
 */
export function v4Compile(code: readonly V4Instruction[]): (r: Uint32Array) => void {
  const lines = code.map((op) => {
    const d = NAMES[op.dst];
    const s = NAMES[op.src];
    switch (op.opcode) {
      case V4_MUL:
        return `${d} = Math.imul(${d}, ${s});`;
      case V4_ADD:
        return `${d} = (${d} + ${s} + ${op.c >>> 0}) | 0;`;
      case V4_SUB:
        return `${d} = (${d} - ${s}) | 0;`;
      case V4_ROR:
        return `t = ${s} & 31; ${d} = (${d} >>> t) | (${d} << ((32 - t) & 31));`;
      case V4_ROL:
        return `t = ${s} & 31; ${d} = (${d} << t) | (${d} >>> ((32 - t) & 31));`;
      default:
        return `${d} ^= ${s};`;
    }
  });
  const body = [
    `let t = 0; ${NAMES.map((n, i) => `let ${n} = r[${i}] | 0;`).join(" ")}`,
    ...lines,
    "r[0] = r0; r[1] = r1; r[2] = r2; r[3] = r3;",
  ].join("\n");
  // (generated from our opcodes, fixed register names and integer constants only)
  return new Function("r", body) as (r: Uint32Array) => void;
}
