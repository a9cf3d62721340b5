// Differential test: the C kernel and the TypeScript backend must return identical bytes for every
// operation, on random inputs and on the edges (0, 1, ℓ−1, non-canonical scalars, invalid and
// torsioned points). Rounds per operation: TSMONERO_DIFF_ROUNDS (default 3000); the seed is printed
// and can be replayed with TSMONERO_DIFF_SEED.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { type Bytes, type CryptoBackend, NO_VIEW_TAG, SCAN_BAD_KEY, SCAN_SPEND_KEY, SCAN_TAG_MISMATCH, type ScalarBatchOp } from "../src/crypto/backend.js";
import { nativeBackendStatus } from "../src/crypto/index.js";
import { MoneroTestRandom } from "../src/crypto/random.js";
import { tsBackend } from "../src/crypto/ts/index.js";

const st = nativeBackendStatus();
const skip = "error" in st ? `C kernel not loaded: ${st.error}` : undefined;
const native = "error" in st ? undefined : st.backend;
const ts: CryptoBackend = tsBackend;

const ROUNDS = Number(process.env.TSMONERO_DIFF_ROUNDS ?? 3000);
const seedHex = process.env.TSMONERO_DIFF_SEED ?? randomBytes(16).toString("hex");
const seedState = new Uint8Array(200);
seedState.set(Buffer.from(seedHex, "hex"));
const rng = new MoneroTestRandom(seedState);

function bytes(n: number): Bytes {
  const b = new Uint8Array(n);
  rng.fill(b);
  return b;
}
function int(n: number): number {
  const b = bytes(4);
  return ((b[0] | (b[1] << 8) | (b[2] << 16)) >>> 0) % n;
}
function fromHex(h: string): Bytes {
  return Uint8Array.from(Buffer.from(h, "hex"));
}
function le(n: bigint, len = 32): Bytes {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    b[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return b;
}

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;
/** Scalars at and around the edges, canonical and not. */
const EDGE_SCALARS: Bytes[] = [0n, 1n, 2n, 8n, L - 1n, L, L + 1n, 2n * L, 15n * L, 2n ** 252n, 2n ** 253n - 1n, 2n ** 255n - 1n, 2n ** 256n - 1n].map(
  (n) => le(n),
);
/** Points of small order (the 8-torsion of ed25519) and encodings at the field's edge. */
const TORSION: Bytes[] = [
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0000000000000000000000000000000000000000000000000000000000000080",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
].map(fromHex);
const EDGE_ENCODINGS: Bytes[] = [
  le(P),
  le(P + 1n),
  le(P - 1n),
  le(2n ** 255n - 1n),
  le(P | (1n << 255n)),
  le((P + 1n) | (1n << 255n)),
  le(1n | (1n << 255n)),
  le(2n ** 256n - 1n),
];

function canonicalScalar(): Bytes {
  return ts.scReduce64(bytes(64));
}
function scalarBelow2_255(): Bytes {
  const s = bytes(32);
  s[31] &= 0x7f;
  return s;
}
/** A valid point: random multiple of G, sometimes plus a torsion component. */
function point(): Bytes {
  const p = ts.scalarMultBase(canonicalScalar());
  const r = int(4);
  if (r === 0) return ts.pointAdd(p, TORSION[1 + int(7)])!;
  if (r === 1) return TORSION[int(8)];
  return p;
}
/** Any 32 bytes: about half decompress. */
function anyPointBytes(): Bytes {
  const r = int(10);
  if (r === 0) return EDGE_ENCODINGS[int(EDGE_ENCODINGS.length)];
  if (r < 4) return point();
  return bytes(32);
}
function anyScalar(): Bytes {
  const r = int(10);
  if (r === 0) return EDGE_SCALARS[int(EDGE_SCALARS.length)];
  if (r < 7) return canonicalScalar();
  return bytes(32);
}
function index(): number {
  const r = int(6);
  if (r === 0) return 0;
  if (r === 1) return [127, 128, 16383, 16384, 0xffffffff, 2 ** 53 - 1][int(6)];
  return int(64);
}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  if (Array.isArray(v)) return `[${v.map(show).join(", ")}]`;
  return String(v);
}

/** Runs `op` on both backends for `rounds` generated inputs and requires identical results. */
function same<A extends unknown[]>(name: string, gen: () => A, op: (b: CryptoBackend, ...a: A) => unknown, rounds = ROUNDS): void {
  if (!native) return;
  for (let i = 0; i < rounds; i++) {
    const args = gen();
    const run = (b: CryptoBackend): string => {
      try {
        return show(op(b, ...args));
      } catch (e) {
        return `threw ${(e as Error).name}`;
      }
    };
    const a = run(native);
    const b = run(ts);
    if (a !== b)
      assert.fail(`${name} differs (seed ${seedHex}, round ${i})\n  args ${show(args)}\n  native ${a}\n  ts     ${b}`);
  }
}

test("differential: hashing and scalars", { skip }, () => {
  console.log(`differential seed ${seedHex}, ${ROUNDS} rounds per operation`);
  same("keccak256", () => [bytes(int(300))] as [Bytes], (b, d) => b.keccak256(d));
  same("keccak256 at rate edges", () => [bytes([135, 136, 137, 271, 272, 273][int(6)])] as [Bytes], (b, d) => b.keccak256(d), 60);
  same("hashToScalar", () => [bytes(int(200))] as [Bytes], (b, d) => b.hashToScalar(d));
  same("scReduce32", () => [anyScalar()] as [Bytes], (b, s) => b.scReduce32(s));
  same("scReduce64", () => [int(4) === 0 ? new Uint8Array(64).fill(0xff) : bytes(64)] as [Bytes], (b, s) => b.scReduce64(s));
  same("scCheck", () => [anyScalar()] as [Bytes], (b, s) => b.scCheck(s));
  same("scIsNonZero", () => [int(3) === 0 ? new Uint8Array(32) : anyScalar()] as [Bytes], (b, s) => b.scIsNonZero(s));
  const two = (): [Bytes, Bytes] => [anyScalar(), anyScalar()];
  const three = (): [Bytes, Bytes, Bytes] => [anyScalar(), anyScalar(), anyScalar()];
  same("scAdd", two, (b, x, y) => b.scAdd(x, y));
  same("scSub", two, (b, x, y) => b.scSub(x, y));
  same("scMul", two, (b, x, y) => b.scMul(x, y));
  same("scMulAdd", three, (b, x, y, z) => b.scMulAdd(x, y, z));
  same("scMulSub", three, (b, x, y, z) => b.scMulSub(x, y, z));
  same("scInvert", () => [int(10) === 0 ? le(0n) : canonicalScalar()] as [Bytes], (b, s) => b.scInvert(s), ROUNDS / 4);
});

test("differential: points", { skip }, () => {
  for (const t of TORSION) assert.ok(ts.pointCheck(t), `torsion point ${show(t)} decodes`);
  same("pointCheck", () => [anyPointBytes()] as [Bytes], (b, p) => b.pointCheck(p));
  same("pointCheck edge encodings", () => [EDGE_ENCODINGS[int(EDGE_ENCODINGS.length)]] as [Bytes], (b, p) => b.pointCheck(p), 50);
  same("pointAdd", () => [anyPointBytes(), anyPointBytes()] as [Bytes, Bytes], (b, p, q) => b.pointAdd(p, q));
  same("pointSub", () => [anyPointBytes(), anyPointBytes()] as [Bytes, Bytes], (b, p, q) => b.pointSub(p, q));
  same("pointMul8", () => [anyPointBytes()] as [Bytes], (b, p) => b.pointMul8(p));
  same("scalarMult", () => [int(5) === 0 ? EDGE_SCALARS[int(12)] : scalarBelow2_255(), anyPointBytes()] as [Bytes, Bytes], (b, s, p) =>
    b.scalarMult(s, p),
  );
  same("scalarMultBase", () => [int(5) === 0 ? EDGE_SCALARS[int(12)] : scalarBelow2_255()] as [Bytes], (b, s) => b.scalarMultBase(s));
  same("doubleScalarMultBase", () => [anyScalar(), anyPointBytes(), anyScalar()] as [Bytes, Bytes, Bytes], (b, x, p, y) =>
    b.doubleScalarMultBase(x, p, y),
  );
  same(
    "doubleScalarMult",
    () => [canonicalScalar(), anyPointBytes(), canonicalScalar(), anyPointBytes()] as [Bytes, Bytes, Bytes, Bytes],
    (b, x, p, y, q) => b.doubleScalarMult(x, p, y, q),
  );
  same("hashToPoint", () => [bytes(32)] as [Bytes], (b, h) => b.hashToPoint(h));
  same("hashToEc", () => [anyPointBytes()] as [Bytes], (b, p) => b.hashToEc(p));
});

test("differential: multi-scalar multiplication", { skip }, () => {
  const sizes = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 100, 128, 200, 256, 300];
  for (const n of sizes) {
    same(
      `multiScalarMult n=${n}`,
      () => {
        const s = new Uint8Array(n * 32);
        const p = new Uint8Array(n * 32);
        for (let i = 0; i < n; i++) {
          const r = int(12);
          s.set(r === 0 ? le(0n) : r === 1 ? le(1n) : r === 2 ? le(L - 1n) : canonicalScalar(), i * 32);
          p.set(i > 0 && int(10) === 0 ? p.subarray(0, 32) : point(), i * 32);
        }
        return [s, p] as [Bytes, Bytes];
      },
      (b, s, p) => b.multiScalarMult(s, p),
      n > 64 ? 4 : 20,
    );
  }
  // An invalid point anywhere makes the whole sum fail.
  same(
    "multiScalarMult with invalid point",
    () => {
      const n = 1 + int(40);
      const s = new Uint8Array(n * 32);
      const p = new Uint8Array(n * 32);
      for (let i = 0; i < n; i++) {
        s.set(canonicalScalar(), i * 32);
        p.set(anyPointBytes(), i * 32);
      }
      return [s, p] as [Bytes, Bytes];
    },
    (b, s, p) => b.multiScalarMult(s, p),
    40,
  );
});

test("differential: multi-scalar multiplication over prepared points", { skip }, () => {
  // a prepared set (torsioned points included) used with prefixes of every size, plus fresh points
  for (const n of [1, 2, 5, 64, 130]) {
    const set = new Uint8Array(n * 32);
    for (let i = 0; i < n; i++) set.set(point(), i * 32);
    const prepared = new Map<CryptoBackend, Bytes>();
    same(
      `multiScalarMultPrepared over ${n} prepared points`,
      () => {
        const k = int(n + 1);
        const m = int(n > 64 ? 3 : 40);
        const ps = new Uint8Array(k * 32);
        for (let i = 0; i < k; i++) ps.set(int(8) === 0 ? EDGE_SCALARS[int(EDGE_SCALARS.length)] : canonicalScalar(), i * 32);
        const sc = new Uint8Array(m * 32);
        const pts = new Uint8Array(m * 32);
        for (let i = 0; i < m; i++) {
          sc.set(anyScalar(), i * 32);
          pts.set(int(20) === 0 ? anyPointBytes() : point(), i * 32);
        }
        return [ps, sc, pts] as [Bytes, Bytes, Bytes];
      },
      (b, ps, sc, pts) => {
        let prep = prepared.get(b);
        if (!prep) {
          const made = b.preparePoints(set);
          assert.ok(made);
          prep = made;
          prepared.set(b, prep);
        }
        const r = b.multiScalarMultPrepared(prep, ps, sc, pts);
        // the same as the plain multiexp over the concatenation
        const k = ps.length / 32;
        const plain = b.multiScalarMult(Buffer.concat([ps, sc]), Buffer.concat([set.subarray(0, 32 * k), pts]));
        assert.deepEqual(r, plain);
        return r;
      },
      n > 64 ? 4 : 30,
    );
  }
  // a set holding an undecodable point cannot be prepared; a foreign buffer is refused
  same(
    "preparePoints with invalid point",
    () => {
      const n = 1 + int(10);
      const set = new Uint8Array(n * 32);
      for (let i = 0; i < n; i++) set.set(i === n - 1 ? EDGE_ENCODINGS[0] : point(), i * 32);
      return [set] as [Bytes];
    },
    (b, set) => b.preparePoints(set),
    10,
  );
  same("multiScalarMultPrepared with a foreign buffer", () => [bytes(64)] as [Bytes], (b, junk) => b.multiScalarMultPrepared(junk, new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)), 5);
});

test("differential: Monero key operations", { skip }, () => {
  same("secretKeyToPublicKey", () => [anyScalar()] as [Bytes], (b, s) => b.secretKeyToPublicKey(s));
  same("generateKeyDerivation", () => [anyPointBytes(), canonicalScalar()] as [Bytes, Bytes], (b, p, s) => b.generateKeyDerivation(p, s));
  same("derivationToScalar", () => [bytes(32), index()] as [Bytes, number], (b, d, i) => b.derivationToScalar(d, i));
  same("derivePublicKey", () => [bytes(32), index(), anyPointBytes()] as [Bytes, number, Bytes], (b, d, i, p) => b.derivePublicKey(d, i, p));
  same("deriveSecretKey", () => [bytes(32), index(), canonicalScalar()] as [Bytes, number, Bytes], (b, d, i, s) => b.deriveSecretKey(d, i, s));
  same("deriveSubaddressPublicKey", () => [anyPointBytes(), bytes(32), index()] as [Bytes, Bytes, number], (b, p, d, i) =>
    b.deriveSubaddressPublicKey(p, d, i),
  );
  same("deriveViewTag", () => [bytes(32), index()] as [Bytes, number], (b, d, i) => b.deriveViewTag(d, i));
  same("generateKeyImage", () => [anyPointBytes(), canonicalScalar()] as [Bytes, Bytes], (b, p, s) => b.generateKeyImage(p, s));
});

test("differential: signatures", { skip }, () => {
  const keyed = (): [Bytes, Bytes, Bytes, Bytes] => {
    const sec = canonicalScalar();
    return [bytes(32), ts.scalarMultBase(sec), sec, canonicalScalar()];
  };
  same("generateSignature", keyed, (b, h, pub, sec, k) => b.generateSignature(h, pub, sec, k), ROUNDS / 4);
  same(
    "checkSignature",
    () => {
      const [h, pub, sec, k] = keyed();
      const sig = ts.generateSignature(h, pub, sec, k);
      const r = int(5);
      if (r === 1) sig[int(64)] ^= 1 << int(8);
      if (r === 2) sig.set(EDGE_SCALARS[int(EDGE_SCALARS.length)], 32 * int(2));
      return [h, r === 3 ? anyPointBytes() : pub, sig] as [Bytes, Bytes, Bytes];
    },
    (b, h, pub, sig) => b.checkSignature(h, pub, sig),
    ROUNDS / 4,
  );
  const ring = (): [Bytes, Bytes, Bytes, Bytes, number, Bytes] => {
    const n = 1 + int(6);
    const sec = canonicalScalar();
    const secIndex = int(n);
    const pubs = new Uint8Array(n * 32);
    for (let i = 0; i < n; i++) pubs.set(i === secIndex ? ts.scalarMultBase(sec) : point(), i * 32);
    const image = ts.generateKeyImage(pubs.subarray(secIndex * 32, secIndex * 32 + 32), sec);
    const nonces = new Uint8Array((2 * n - 1) * 32);
    for (let j = 0; j < 2 * n - 1; j++) nonces.set(canonicalScalar(), j * 32);
    return [bytes(32), image, pubs, sec, secIndex, nonces];
  };
  same("generateRingSignature", ring, (b, h, img, pubs, sec, i, nonces) => b.generateRingSignature(h, img, pubs, sec, i, nonces), ROUNDS / 20);
  same(
    "checkRingSignature",
    () => {
      const [h, img, pubs, sec, i, nonces] = ring();
      const sigs = ts.generateRingSignature(h, img, pubs, sec, i, nonces);
      const r = int(4);
      if (r === 1) sigs[int(sigs.length)] ^= 1 << int(8);
      if (r === 2) img[int(32)] ^= 1;
      return [h, img, pubs, sigs] as [Bytes, Bytes, Bytes, Bytes];
    },
    (b, h, img, pubs, sigs) => b.checkRingSignature(h, img, pubs, sigs),
    ROUNDS / 20,
  );
});

test("differential: out buffers receive the result", { skip }, () => {
  if (!native) return;
  const s = canonicalScalar();
  const out = new Uint8Array(32);
  const r = native.scalarMultBase(s, out);
  assert.equal(r, out);
  assert.deepEqual(out, ts.scalarMultBase(s));
});

/** The 32-byte slices of a concatenation. */
function slices(buf: Bytes, unit = 32): Bytes[] {
  return Array.from({ length: buf.length / unit }, (_, i) => buf.subarray(unit * i, unit * i + unit));
}

test("differential: batches equal their single calls on both backends", { skip }, () => {
  const ops: ScalarBatchOp[] = ["reduce32", "add", "sub", "mul"];
  const single = (b: CryptoBackend, op: ScalarBatchOp, x: Bytes, y: Bytes): Bytes =>
    op === "reduce32" ? b.scReduce32(x) : op === "add" ? b.scAdd(x, y) : op === "sub" ? b.scSub(x, y) : b.scMul(x, y);
  same(
    "scBatch",
    () => {
      const n = int(40);
      const op = ops[int(4)];
      const a = Buffer.concat(Array.from({ length: n }, () => anyScalar()));
      const bc = int(3) === 0; // one b for all
      const bb = bc ? anyScalar() : Buffer.concat(Array.from({ length: n }, () => anyScalar()));
      return [op, new Uint8Array(a), new Uint8Array(bb), bc] as [ScalarBatchOp, Bytes, Bytes, boolean];
    },
    (b, op, a, bb, bc) => {
      const r = b.scBatch(op, a, op === "reduce32" ? null : bb);
      slices(a).forEach((x, i) => assert.deepEqual(r.subarray(32 * i, 32 * i + 32), single(b, op, x, bc ? bb : bb.subarray(32 * i, 32 * i + 32)), `${b.name} ${op} ${i}`));
      return r;
    },
    ROUNDS / 10,
  );
  // in place: out = a
  same("scBatch in place", () => [new Uint8Array(Buffer.concat([anyScalar(), anyScalar(), anyScalar()])), anyScalar()] as [Bytes, Bytes], (b, a, y) => {
    const copy = a.slice();
    const r = b.scBatch("mul", copy, y, copy);
    assert.equal(r, copy);
    return r;
  }, 50);
  same(
    "scCheckBatch",
    () => [new Uint8Array(Buffer.concat(Array.from({ length: int(20) }, () => (int(6) === 0 ? anyScalar() : canonicalScalar()))))] as [Bytes],
    (b, s) => {
      const r = b.scCheckBatch(s);
      assert.equal(r, slices(s).findIndex((x) => !b.scCheck(x)), `${b.name} scCheckBatch`);
      return r;
    },
    ROUNDS / 10,
  );
  same(
    "hashToScalars",
    () => {
      const n = 1 + int(20);
      return [bytes(n * int(150)), n] as [Bytes, number];
    },
    (b, data, n) => {
      const r = b.hashToScalars(data, n);
      slices(data, data.length / n).forEach((x, i) => assert.deepEqual(r.subarray(32 * i, 32 * i + 32), b.hashToScalar(x)));
      return r;
    },
    ROUNDS / 10,
  );
  same(
    "deriveViewTags",
    () => {
      const n = int(30);
      return [bytes(32 * n), Uint32Array.from({ length: n }, () => Math.min(index(), 0xffffffff))] as [Bytes, Uint32Array];
    },
    (b, d, idx) => {
      const r = b.deriveViewTags(d, idx);
      assert.deepEqual([...r], slices(d).map((x, i) => b.deriveViewTag(x, idx[i])));
      return r;
    },
    ROUNDS / 10,
  );
  // A transaction-like set: some outputs really are D + Hs(d‖i)·G for a known D (their tag right or
  // wrong), some untagged, some keys that do not decode; probes over every derivation and output.
  same(
    "scanOutputs",
    () => {
      const m = 1 + int(3);
      const n = 1 + int(12);
      const ds = new Uint8Array(32 * m);
      for (let j = 0; j < m; j++) ds.set(int(4) === 0 ? bytes(32) : point(), 32 * j);
      const keys = new Uint8Array(32 * n);
      const tags = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        const j = int(m);
        const d = ds.subarray(32 * j, 32 * j + 32);
        const r = int(5);
        keys.set(r === 0 ? anyPointBytes() : ts.derivePublicKey(d, i, point()) ?? bytes(32), 32 * i);
        tags[i] = r === 1 ? NO_VIEW_TAG : r === 2 ? int(256) : ts.deriveViewTag(d, i);
      }
      const probes: number[] = [];
      for (let k = int(2 * m * n + 1); k > 0; k--) probes.push(int(m), int(n));
      return [ds, keys, tags, Uint32Array.from(probes)] as [Bytes, Bytes, Uint16Array, Uint32Array];
    },
    (b, ds, keys, tags, probes) => {
      const { status, keys: out } = b.scanOutputs(ds, keys, tags, probes);
      for (let k = 0; k < status.length; k++) {
        const d = ds.subarray(32 * probes[2 * k], 32 * probes[2 * k] + 32);
        const i = probes[2 * k + 1];
        if (tags[i] !== NO_VIEW_TAG && b.deriveViewTag(d, i) !== tags[i]) {
          assert.equal(status[k], SCAN_TAG_MISMATCH);
          continue;
        }
        const D = b.deriveSubaddressPublicKey(keys.subarray(32 * i, 32 * i + 32), d, i);
        assert.equal(status[k], D === null ? SCAN_BAD_KEY : SCAN_SPEND_KEY, `${b.name} probe ${k}`);
        if (D) assert.deepEqual(out.subarray(32 * k, 32 * k + 32), D);
      }
      return [status, ...slices(out).map((x, k) => (status[k] === SCAN_SPEND_KEY ? x : null))];
    },
    ROUNDS / 20,
  );
  // a chunk of transactions in one call: their outputs one after the other, each hashed at its index
  // in its own transaction (`indices`), as Scanner.scanBlocks probes a chunk of blocks
  same(
    "scanOutputs with indices",
    () => {
      const ds: Bytes[] = [];
      const keys: Bytes[] = [];
      const tags: number[] = [];
      const idx: number[] = [];
      const probes: number[] = [];
      for (let t = 1 + int(4); t > 0; t--) {
        const m = 1 + int(3);
        const n = 1 + int(12);
        const d0 = ds.length;
        const k0 = keys.length;
        for (let j = 0; j < m; j++) ds.push(int(4) === 0 ? bytes(32) : point());
        for (let i = 0; i < n; i++) {
          const d = ds[d0 + int(m)];
          const r = int(5);
          keys.push(r === 0 ? anyPointBytes() : (ts.derivePublicKey(d, i, point()) ?? bytes(32)));
          tags.push(r === 1 ? NO_VIEW_TAG : r === 2 ? int(256) : ts.deriveViewTag(d, i));
          idx.push(i);
        }
        for (let k = int(2 * m * n + 1); k > 0; k--) probes.push(d0 + int(m), k0 + int(n));
      }
      const cat = (xs: Bytes[]): Bytes => {
        const o = new Uint8Array(32 * xs.length);
        xs.forEach((x, i) => o.set(x, 32 * i));
        return o;
      };
      return [cat(ds), cat(keys), Uint16Array.from(tags), Uint32Array.from(probes), Uint32Array.from(idx)] as [Bytes, Bytes, Uint16Array, Uint32Array, Uint32Array];
    },
    (b, ds, keys, tags, probes, idx) => {
      const { status, keys: out } = b.scanOutputs(ds, keys, tags, probes, idx);
      for (let k = 0; k < status.length; k++) {
        const d = ds.subarray(32 * probes[2 * k], 32 * probes[2 * k] + 32);
        const o = probes[2 * k + 1];
        const i = idx[o];
        if (tags[o] !== NO_VIEW_TAG && b.deriveViewTag(d, i) !== tags[o]) {
          assert.equal(status[k], SCAN_TAG_MISMATCH);
          continue;
        }
        const D = b.deriveSubaddressPublicKey(keys.subarray(32 * o, 32 * o + 32), d, i);
        assert.equal(status[k], D === null ? SCAN_BAD_KEY : SCAN_SPEND_KEY, `${b.name} probe ${k}`);
        if (D) assert.deepEqual(out.subarray(32 * k, 32 * k + 32), D);
      }
      return [status, ...slices(out).map((x, k) => (status[k] === SCAN_SPEND_KEY ? x : null))];
    },
    ROUNDS / 20,
  );
  // many wallets' derivations of one tx (rows × wallets × 32) against tagged, untagged and matching outputs
  same(
    "viewTagCandidates",
    () => {
      const w = 1 + int(9);
      const rows = 1 + int(3);
      const n = 1 + int(8);
      const ds = bytes(32 * rows * w);
      const tags = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        const r = int(6);
        const at = 32 * (int(rows) * w + int(w));
        tags[i] = r === 0 ? NO_VIEW_TAG : r < 3 ? ts.deriveViewTag(ds.subarray(at, at + 32), i) : int(256);
      }
      const probes: number[] = [];
      for (let k = int(2 * n + 1); k > 0; k--) probes.push(int(rows), int(n));
      return [ds, w, tags, Uint32Array.from(probes)] as [Bytes, number, Uint16Array, Uint32Array];
    },
    (b, ds, w, tags, probes) => {
      const flags = b.viewTagCandidates(ds, w, tags, probes);
      for (let k = 0; k < w; k++) {
        let want = 0;
        for (let j = 0; j < probes.length; j += 2) {
          const i = probes[j + 1];
          const at = 32 * (probes[j] * w + k);
          if (tags[i] === NO_VIEW_TAG || b.deriveViewTag(ds.subarray(at, at + 32), i) === tags[i]) want = 1;
        }
        assert.equal(flags[k], want, `${b.name} wallet ${k}`);
      }
      return flags;
    },
    ROUNDS / 10,
  );
  // wrong shapes throw the same error class on both
  same("scanOutputs probe outside the outputs", () => [new Uint32Array([0, 3])] as [Uint32Array], (b, probes) => b.scanOutputs(new Uint8Array(32), new Uint8Array(96), new Uint16Array(3), probes), 3);
  same("viewTagCandidates probe outside the rows", () => [new Uint32Array([2, 0])] as [Uint32Array], (b, probes) => b.viewTagCandidates(new Uint8Array(128), 2, new Uint16Array(1), probes), 3);
  same("viewTagCandidates with a ragged matrix", () => [bytes(96)] as [Bytes], (b, d) => b.viewTagCandidates(d, 2, new Uint16Array(1), new Uint32Array(0)), 3);
  same("deriveViewTags with a short buffer", () => [bytes(31)] as [Bytes], (b, d) => b.deriveViewTags(d, new Uint32Array(1)), 3);
});

test("differential: the kernel's commit (fixed tables of G and H) equals mask·G + amount·H of the TypeScript backend", { skip }, () => {
  const b = native as CryptoBackend;
  assert.ok(b.commit, "the C kernel has commit");
  const H = fromHex("8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94");
  const U64 = 2n ** 64n - 1n;
  const amounts = [0n, 1n, 8n, 15n, 16n, 0x8888888888888888n, 0x7fffffffffffffffn, 0xf000000000000000n, U64];
  for (let i = 0; i < ROUNDS; i++) amounts.push(BigInt(`0x${Buffer.from(bytes(8)).toString("hex")}`) >> BigInt(int(64)));
  // masks below 2^255, canonical or not (the radix-16 walk takes any such integer)
  const masks = [...EDGE_SCALARS.filter((s) => s[31] < 0x80), ...Array.from({ length: 32 }, () => ts.scReduce32(bytes(32)))];
  amounts.forEach((amount, k) => {
    const mask = k < masks.length ? masks[k] : ts.scReduce32(bytes(32));
    const want = ts.doubleScalarMultBase(le(amount), H, mask);
    assert.ok(want);
    assert.deepEqual(b.commit?.(amount, mask), want, `amount ${amount}, mask ${Buffer.from(mask).toString("hex")} (seed ${seedHex})`);
  });
  assert.throws(() => b.commit?.(U64 + 1n, masks[0]), RangeError);
  assert.throws(() => b.commit?.(-1n, masks[0]), RangeError);
});
