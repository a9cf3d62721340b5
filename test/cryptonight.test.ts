import assert from "node:assert/strict";
import { createCipheriv, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import {
  aesEncLastRound,
  aesEncRound,
  aesPseudoRoundWords,
  expandKey256,
  expandKey256Words,
  SBOX,
} from "../src/crypto/cryptonight/aes.js";
import { blake256 } from "../src/crypto/cryptonight/blake256.js";
import { variant2Sqrt } from "../src/crypto/cryptonight/cryptonight.js";
import { v4Compile, v4RandomMath, v4RandomMathInit } from "../src/crypto/cryptonight/random-math.js";
import { PowHasher } from "../src/node/mining/pow.js";
import { groestl256 } from "../src/crypto/cryptonight/groestl256.js";
import { jh256 } from "../src/crypto/cryptonight/jh256.js";
import { skein512_256 } from "../src/crypto/cryptonight/skein512-256.js";
import { type CnVariant, closeSlowHashWorker, cnSlowHash, cnSlowHashSync } from "../src/crypto/slow-hash.js";
import { MONERO_TESTDATA, needPackage } from "./helpers/packages.js";

const HASH_DIR = `${MONERO_TESTDATA}/hash`;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => Uint8Array.from(Buffer.from(s, "hex"));

/** Monero's hash test files: `expected_hex input_hex` per line, "x" for the empty input. */
function vectors(file: string): { line: number; expected: string; input: Uint8Array }[] {
  return readFileSync(`${HASH_DIR}/${file}`, "utf8")
    .split("\n")
    .map((l, i) => ({ l: l.trim(), line: i + 1 }))
    .filter(({ l }) => l.length > 0)
    .map(({ l, line }) => {
      const [expected, input] = l.split(/\s+/);
      return { line, expected, input: input === "x" ? new Uint8Array(0) : unhex(input) };
    });
}

after(() => closeSlowHashWorker());

// ---------------------------------------------------------------------------------------------
// AES pieces

test("AES S-box: computed from GF(2^8) inverses and the affine map (FIPS-197 figure 7 spot values)", () => {
  assert.equal(SBOX[0x00], 0x63);
  assert.equal(SBOX[0x01], 0x7c);
  assert.equal(SBOX[0x53], 0xed);
  assert.equal(SBOX[0xff], 0x16);
  assert.equal(new Set(SBOX).size, 256, "a permutation");
});

/** Full AES-256 built from the round functions: AddRoundKey, 13 × aesenc, aesenclast. */
function aes256Encrypt(key: Uint8Array, block: Uint8Array): Uint8Array {
  const rk = expandKey256(key, 15);
  const roundKey = (r: number) => rk.subarray(16 * r, 16 * r + 16);
  let s: Uint8Array = block.map((b, i) => b ^ rk[i]);
  for (let r = 1; r < 14; r++) s = aesEncRound(s, roundKey(r));
  return aesEncLastRound(s, roundKey(14));
}

test("AES-256 from our rounds: FIPS-197 appendix C.3 vector", () => {
  const key = unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const pt = unhex("00112233445566778899aabbccddeeff");
  assert.equal(hex(aes256Encrypt(key, pt)), "8ea2b7ca516745bfeafc49904b496089");
});

test("AES-256 from our rounds equals node:crypto aes-256-ecb on random keys and blocks", () => {
  for (let i = 0; i < 200; i++) {
    const key = new Uint8Array(randomBytes(32));
    const block = new Uint8Array(randomBytes(16));
    const c = createCipheriv("aes-256-ecb", key, null).setAutoPadding(false);
    const want = Buffer.concat([c.update(block), c.final()]);
    assert.equal(hex(aes256Encrypt(key, block)), want.toString("hex"), `key ${hex(key)} block ${hex(block)}`);
  }
});

test("pseudo round (CryptoNight's ten aesenc rounds) equals ten single rounds with round keys 0..9", () => {
  for (let i = 0; i < 20; i++) {
    const key = new Uint8Array(randomBytes(32));
    const block = new Uint8Array(randomBytes(16));
    const rk = expandKey256(key, 10);
    let want: Uint8Array = block;
    for (let r = 0; r < 10; r++) want = aesEncRound(want, rk.subarray(16 * r, 16 * r + 16));
    const words = new Int32Array(block.buffer.slice(0));
    aesPseudoRoundWords(words, 0, expandKey256Words(key, 10));
    assert.equal(hex(new Uint8Array(words.buffer)), hex(want));
  }
});

// ---------------------------------------------------------------------------------------------
// The four final hashes: every line of Monero's tests-extra-*.txt

const EXTRA: [string, (d: Uint8Array) => Uint8Array][] = [
  ["blake", blake256],
  ["groestl", groestl256],
  ["jh", jh256],
  ["skein", skein512_256],
];
for (const [name, fn] of EXTRA) {
  const file = `tests-extra-${name}.txt`;
  test(`${file}: every vector`, { skip: needPackage("monero-tests", [`${HASH_DIR}/${file}`]) }, (t) => {
    const vs = vectors(file);
    assert.ok(vs.length > 0);
    for (const v of vs) assert.equal(hex(fn(v.input)), v.expected, `${file} line ${v.line} (${v.input.length} bytes)`);
    t.diagnostic(`${vs.length} vectors`);
  });
}

// ---------------------------------------------------------------------------------------------
// CryptoNight: every line of tests-slow.txt (v0), tests-slow-1.txt (v1), tests-slow-2.txt (v2)

const SLOW: [string, CnVariant][] = [
  ["tests-slow.txt", 0],
  ["tests-slow-1.txt", 1],
  ["tests-slow-2.txt", 2],
];
for (const [file, variant] of SLOW) {
  const skip = needPackage("monero-tests", [`${HASH_DIR}/${file}`]);
  test(`${file}: cn_slow_hash variant ${variant}, every vector`, { skip }, (t) => {
    const vs = vectors(file);
    assert.ok(vs.length > 0);
    for (const v of vs) assert.equal(hex(cnSlowHashSync(v.input, variant)), v.expected, `${file} line ${v.line}`);
    t.diagnostic(`${vs.length} vectors`);
  });
}

// CryptoNight-R: tests-slow-4.txt lines are `expected input height`
{
  const file = "tests-slow-4.txt";
  const skip = needPackage("monero-tests", [`${HASH_DIR}/${file}`]);
  test(`${file}: cn_slow_hash variant 4 (CryptoNight-R) at each vector's height, here and in the worker, and as the PoW of hard forks 10 and 11`, { skip }, async (t) => {
    const vs = readFileSync(`${HASH_DIR}/${file}`, "utf8")
      .trim()
      .split("\n")
      .map((l) => {
        const [expected, input, height] = l.trim().split(/\s+/);
        return { expected, input: unhex(input), height: BigInt(height) };
      });
    assert.equal(vs.length, 10);
    for (const v of vs.slice(0, 7)) assert.equal(hex(cnSlowHashSync(v.input, 4, v.height)), v.expected, `height ${v.height}`);
    const [a, b] = vs.slice(7);
    assert.equal(hex(await cnSlowHash(a.input, 4, a.height)), a.expected, `worker, height ${a.height}`);
    // the program depends on the height: another height gives another hash
    assert.notEqual(hex(cnSlowHashSync(b.input, 4, b.height + 1n)), b.expected);
    // get_block_longhash: major versions 10 and 11 hash as CryptoNight-R at the block's height
    const hasher = new PowHasher();
    t.after(() => hasher.close());
    assert.equal(hex(await hasher.hash(10, Number(b.height), b.input, undefined)), b.expected);
    assert.equal(hex(await hasher.hash(11, Number(vs[9].height), vs[9].input, undefined)), vs[9].expected);
  });
}

test("CryptoNight-R programs: 60..70 instructions using r8, and the compiled program computes what the interpreter does", () => {
  const heights = [0n, 1n, 1806260n, 1978433n, (1n << 64n) - 1n, ...Array.from({ length: 300 }, () => BigInt(Math.floor(Math.random() * 10_000_000)))];
  for (const h of heights) {
    const code = v4RandomMathInit(h);
    assert.ok(code.length >= 60 && code.length <= 70, `height ${h}: ${code.length} instructions`);
    assert.ok(code.some((op) => op.src === 8), `height ${h}: r8 is read`);
    assert.ok(code.every((op) => op.dst < 4 && op.src < 9));
    const regs = new Uint32Array(randomBytes(36).buffer.slice(0, 36));
    const viaInterp = Uint32Array.from(regs);
    const viaJit = Uint32Array.from(regs);
    v4RandomMath(code, viaInterp);
    v4Compile(code)(viaJit);
    assert.deepEqual([...viaJit.subarray(0, 4)], [...viaInterp.subarray(0, 4)], `height ${h}`);
  }
  // the generator is deterministic
  assert.deepEqual(v4RandomMathInit(1806260n), v4RandomMathInit(1806260n));
});

/** Exact floor(sqrt(n)) on BigInt (test only). */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

test("variant 2 square root is exactly floor(sqrt(2^64 + n)·2 − 2^33), including next to exact squares", () => {
  // floor(2·sqrt(2^64 + n)) = isqrt(4·(2^64 + n)), so the expected value is exact integer math.
  const want = (n: bigint) => isqrt(4n * ((1n << 64n) + n)) - (1n << 33n);
  const cases: bigint[] = [0n, 1n, 2n, 3n, (1n << 64n) - 1n, (1n << 64n) - 2n, 1n << 32n, (1n << 63n) + 12345n];
  // n where 4·(2^64 + n) is at or next to a perfect square: the estimate's hardest cases.
  for (let i = 0; i < 200; i++) {
    const r = (1n << 33n) + BigInt(Math.floor(Math.random() * 3558067407));
    const base = (r * r) / 4n - (1n << 64n);
    for (const d of [-2n, -1n, 0n, 1n, 2n]) {
      const n = base + d;
      if (n >= 0n && n < 1n << 64n) cases.push(n);
    }
  }
  for (let i = 0; i < 2000; i++) cases.push(BigInt.asUintN(64, BigInt(`0x${randomBytes(8).toString("hex")}`)));
  for (const n of cases) {
    const lo = Number(n & 0xffffffffn);
    const hi = Number(n >> 32n);
    assert.equal(BigInt(variant2Sqrt(lo, hi)), want(n), `n = ${n}`);
  }
});

test("cn_slow_hash argument checks", async () => {
  assert.throws(() => cnSlowHashSync(new Uint8Array(42), 1), RangeError, "variant 1 needs 43 bytes");
  assert.throws(() => cnSlowHashSync(new Uint8Array(64), 3 as CnVariant), RangeError, "variant 3 is not a variant of its own (it hashes as 2)");
  await assert.rejects(cnSlowHash(new Uint8Array(42), 1), RangeError);
});

// ---------------------------------------------------------------------------------------------
// The worker-backed version

test("cnSlowHash in a worker gives the sync bytes, several requests at once", async () => {
  const inputs: [Uint8Array, CnVariant][] = [
    [Buffer.from("de omnibus dubitandum"), 0],
    [new Uint8Array(0), 0],
    [Uint8Array.from({ length: 76 }, (_, i) => i), 1],
    [Buffer.from("This is a test This is a test This is a test"), 2],
  ];
  const got = await Promise.all(inputs.map(([d, v]) => cnSlowHash(d, v)));
  for (let i = 0; i < inputs.length; i++) {
    assert.ok(got[i] instanceof Uint8Array);
    assert.equal(hex(got[i]), hex(cnSlowHashSync(...inputs[i])), `input ${i}`);
  }
  // A known answer too, so the comparison is not only with ourselves.
  assert.equal(hex(got[0]), "2f8e3df40bd11f9ac90c743ca8e32bb391da4fb98612aa3b6cdc639ee00b31f5");
});

test("cnSlowHash does not block the event loop: a timer keeps ticking during the hashes", async () => {
  // Three hashes queue up in the worker: hundreds of milliseconds of CPU off this thread.
  let ticks = 0;
  let maxGap = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    ticks++;
  }, 2);
  const start = performance.now();
  try {
    await Promise.all([1, 2, 3].map((n) => cnSlowHash(Buffer.from(`tick ${n}`))));
  } finally {
    clearInterval(timer);
  }
  const elapsed = performance.now() - start;
  // A blocked loop would tick about once; a free one about elapsed / 2 times.
  assert.ok(ticks >= 10, `only ${ticks} ticks in ${elapsed.toFixed(0)} ms`);
  assert.ok(maxGap < elapsed / 2, `the loop stalled for ${maxGap.toFixed(0)} ms of ${elapsed.toFixed(0)} ms`);
});
