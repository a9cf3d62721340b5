/**
 * The pure-TypeScript crypto backend against properties and edge cases whose expected bytes were
 * produced by Monero's crypto-ops.c (v0.18.0.0). Monero's tests.txt itself is replayed on every
 * backend by test/crypto-vectors.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { tsBackend as B } from "../src/crypto/ts/index.js";

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array | null): string => (b === null ? "null" : Buffer.from(b).toString("hex"));
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const le = (n: bigint): Uint8Array => {
  const b = new Uint8Array(32);
  let v = n;
  for (let i = 0; i < 32; i++) {
    b[i] = Number(v & 255n);
    v >>= 8n;
  }
  return b;
};
const big = (b: Uint8Array): bigint => BigInt(`0x${Buffer.from(b).reverse().toString("hex") || "0"}`);

/** Deterministic byte stream (xorshift-based) so failures reproduce. */
function rng(seed: number): (n: number) => Uint8Array {
  let s = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      out[i] = s & 255;
    }
    return out;
  };
}
const rand = rng(0x5eed);
const randScalar = (): Uint8Array => le(big(rand(32)) % L);

const IDENTITY = `01${"00".repeat(31)}`;
/** A point of order 8. */
const T8 = "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05";

// Monero's tests.txt is replayed on every backend by test/crypto-vectors.test.ts.

// ---------------------------------------------------------------------------------------------
// Edge cases with expected bytes from Monero's crypto-ops.c (compiled from v0.18.0.0 and run on
// these inputs). P3T = 3·G + T8 (a point with an order-8 torsion component).

const P3T = "528b312e93bc0c3705c89c20dcd85600e229ad3d6872b1c656d3873fbe62e6e2";
const FF = "ff".repeat(32);
const Z = "00".repeat(32);
const LHEX = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010";

test("point decompression follows ge_frombytes_vartime", () => {
  const cases: [string, boolean][] = [
    [P3T, true], // torsioned points are accepted
    [T8, true],
    [IDENTITY, true],
    [Z, true], // y = 0: x = ±√−1, a point of order 4
    [`${"00".repeat(31)}80`, true], // same y, other x (x ≠ 0, so the sign bit is fine)
    [`ec${"ff".repeat(30)}7f`, true], // y = −1, x = 0: the point of order 2
    [`ec${"ff".repeat(30)}ff`, false], // x = 0 with the sign bit set
    [`01${"00".repeat(30)}80`, false], // identity with the sign bit set
    [`ed${"ff".repeat(30)}7f`, false], // y = p (non-canonical)
    [`ee${"ff".repeat(30)}7f`, false], // y = p + 1 (non-canonical)
    [`dd${"ff".repeat(30)}7f`, true], // y = p − 16 is canonical and on the curve
  ];
  for (const [p, ok] of cases) assert.equal(B.pointCheck(hex(p)), ok, p);
  // Decoding then re-encoding is the identity on valid encodings.
  for (const [p, ok] of cases) if (ok) assert.equal(toHex(B.pointAdd(hex(p), hex(IDENTITY))), p);
});

test("scalar multiplications reproduce Monero's recoding quirks", () => {
  const golden: [string, string | null][] = [
    // ge_scalarmult drops a top radix-16 digit above 8: ff…ff acts as −1.
    [toHex(B.scalarMult(hex(FF), hex(P3T))), "528b312e93bc0c3705c89c20dcd85600e229ad3d6872b1c656d3873fbe62e662"],
    [toHex(B.scalarMult(hex(`01${"00".repeat(30)}90`), hex(P3T))), P3T],
    [
      toHex(B.scalarMult(hex(`${"ff".repeat(31)}87`), hex(P3T))),
      "e7486fb849e726bb397c91fa0aeb5a86e02c72614bb91b72098f812ec061b0fb",
    ],
    [
      toHex(B.scalarMult(hex(`${"ff".repeat(31)}88`), hex(P3T))),
      "63a7f2a19cd79ae451c180595e6bea048492aa953be1362b3f868c95dcc68262",
    ],
    // ℓ·(3G + T8) = ℓ·T8: scalars are not reduced mod ℓ.
    [toHex(B.scalarMult(hex(LHEX), hex(P3T))), "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"],
    // ge_scalarmult_base has the same top-digit rule.
    [toHex(B.scalarMultBase(hex(FF))), "58666666666666666666666666666666666666666666666666666666666666e6"],
    [toHex(B.scalarMultBase(hex(`01${"00".repeat(30)}90`))), "5866666666666666666666666666666666666666666666666666666666666666"],
    [
      toHex(B.scalarMultBase(hex(`${"ff".repeat(31)}88`))),
      "b3794e659c9466c1fc4ee556f84ecba6b4aab37711dce6dd603d286f3e3f8fec",
    ],
    // slide() loses the carry past bit 255: ff…ff acts as −1 in the vartime double multiplications.
    [
      toHex(B.doubleScalarMultBase(hex(FF), hex(P3T), hex(Z))),
      "528b312e93bc0c3705c89c20dcd85600e229ad3d6872b1c656d3873fbe62e662",
    ],
    [
      toHex(B.doubleScalarMultBase(hex(Z), hex(P3T), hex(FF))),
      "58666666666666666666666666666666666666666666666666666666666666e6",
    ],
    [
      toHex(B.doubleScalarMultBase(hex(LHEX), hex(P3T), hex(LHEX))),
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    ],
    [
      toHex(B.doubleScalarMult(hex(FF), hex(P3T), hex(FF), hex(T8))),
      "508cbc5d261a2ed21c69a3867761071d571f73943cf3fd02b8576e00e5a3c56f",
    ],
  ];
  for (const [got, want] of golden) assert.equal(got, want);
});

test("hashToPoint uses all 256 input bits mod p", () => {
  const order2 = `ec${"ff".repeat(30)}7f`;
  assert.equal(toHex(B.hashToPoint(hex(Z))), order2);
  assert.equal(toHex(B.hashToPoint(hex(`ed${"ff".repeat(30)}7f`))), order2); // p ≡ 0
  assert.equal(toHex(B.hashToPoint(hex(`da${"ff".repeat(31)}`))), order2); // 2p ≡ 0
  assert.equal(toHex(B.hashToPoint(hex(FF))), "80c90f3f23af8763b058cf5029e42f6a78a3e48dc0eeb38f31b3a6419e64fdbf");
});

test("scalar ops on unreduced inputs match sc_* (exact residues mod ℓ)", () => {
  assert.equal(toHex(B.scAdd(hex(FF), hex(FF))), "4b563bbeceffc5550b0204440abeff78fdffffffffffffffffffffffffffff0f");
  assert.equal(toHex(B.scSub(hex(Z), hex(FF))), "d13e5dcfa531268165cd792fea9def4d01000000000000000000000000000000");
  assert.equal(toHex(B.scMul(hex(FF), hex(FF))), "a28c56e32e7552a6122e79c77b57ed6b68bef517d273ecce3d9a307c1b419903");
  assert.equal(
    toHex(B.scMulAdd(hex(FF), hex(FF), hex(FF))),
    "d14df91389432c25ad60ff9791b9fd1d67bef517d273ecce3d9a307c1b419903",
  );
  assert.equal(
    toHex(B.scMulSub(hex(FF), hex(FF), hex(Z))),
    "4b479f79ebedbfb1c36e7edb62a2f1a897410ae82d8c1331c265cf83e4be660c",
  );
  assert.equal(toHex(B.scReduce32(hex(FF))), "1c95988d7431ecd670cf7d73f45befc6feffffffffffffffffffffffffffff0f");
  assert.equal(toHex(B.scReduce64(hex(FF + FF))), "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903");
  // sc_check is exactly s < ℓ, including values ≥ 2^255.
  assert.equal(B.scCheck(le(L - 1n)), true);
  assert.equal(B.scCheck(le(L)), false);
  assert.equal(B.scCheck(hex(FF)), false);
  assert.equal(B.scCheck(le(1n << 255n)), false);
  assert.equal(B.scIsNonZero(hex(Z)), false);
  assert.equal(B.scIsNonZero(le(1n << 255n)), true);
});

// ---------------------------------------------------------------------------------------------
// Properties

test("scalar arithmetic identities", () => {
  for (let i = 0; i < 50; i++) {
    const a = randScalar();
    const b = randScalar();
    const c = randScalar();
    assert.equal(toHex(B.scMulAdd(a, b, c)), toHex(B.scAdd(B.scMul(a, b), c)));
    assert.equal(toHex(B.scMulSub(a, b, c)), toHex(B.scSub(c, B.scMul(a, b))));
    assert.equal(toHex(B.scSub(B.scAdd(a, b), b)), toHex(a));
    assert.equal(toHex(B.scMul(a, B.scInvert(a))), `01${"00".repeat(31)}`);
    const wide = rand(64);
    assert.equal(big(B.scReduce64(wide)), big(wide) % L);
    const raw = rand(32);
    assert.equal(big(B.scReduce32(raw)), big(raw) % L);
    assert.equal(B.scCheck(raw), big(raw) < L);
  }
  assert.equal(toHex(B.scInvert(hex(Z))), Z);
  assert.equal(toHex(B.scInvert(le(L))), Z); // ℓ ≡ 0
});

test("point add/sub round trip, torsion included", () => {
  const t8 = hex(T8);
  // T8 has order exactly 8.
  assert.equal(toHex(B.pointMul8(t8)), IDENTITY);
  const t4 = B.pointAdd(B.pointAdd(t8, t8)!, B.pointAdd(t8, t8)!)!;
  assert.notEqual(toHex(t4), IDENTITY);
  for (let i = 0; i < 20; i++) {
    const p = B.scalarMultBase(randScalar());
    const q = i % 2 === 0 ? B.scalarMultBase(randScalar()) : B.pointAdd(B.scalarMultBase(randScalar()), t8)!;
    const pt = B.pointAdd(p, t8)!;
    assert.ok(B.pointCheck(pt));
    assert.equal(toHex(B.pointSub(B.pointAdd(p, q)!, q)), toHex(p));
    assert.equal(toHex(B.pointSub(B.pointAdd(pt, q)!, q)), toHex(pt));
    assert.equal(toHex(B.pointSub(pt, pt)), IDENTITY);
    // 8·(P + T8) = 8·P, so the derivation ignores the torsion part.
    assert.equal(toHex(B.pointMul8(pt)), toHex(B.pointMul8(p)));
    const s = randScalar();
    assert.equal(toHex(B.generateKeyDerivation(pt, s)), toHex(B.generateKeyDerivation(p, s)));
    // s·(P + T8) = s·P + (s mod 8)·T8.
    let sT8 = hex(IDENTITY);
    for (let k = 0n; k < big(s) % 8n; k++) sT8 = B.pointAdd(sT8, t8)!;
    assert.equal(toHex(B.scalarMult(s, pt)), toHex(B.pointAdd(B.scalarMult(s, p)!, sT8)));
  }
  assert.equal(B.pointAdd(hex(`ed${"ff".repeat(30)}7f`), t8), null);
  assert.equal(B.pointSub(t8, hex(`01${"00".repeat(30)}80`)), null);
  assert.equal(B.pointMul8(hex(`ec${"ff".repeat(30)}ff`)), null);
});

test("double scalar multiplications and msm agree with sums of scalarMult", () => {
  const t8 = hex(T8);
  for (let i = 0; i < 10; i++) {
    const a = randScalar();
    const b = randScalar();
    const p = B.pointAdd(B.scalarMultBase(randScalar()), t8)!;
    const q = B.pointAdd(B.scalarMultBase(randScalar()), B.pointAdd(t8, t8)!)!;
    const g = B.scalarMultBase(le(1n));
    assert.equal(toHex(B.doubleScalarMultBase(a, p, b)), toHex(B.pointAdd(B.scalarMult(a, p)!, B.scalarMult(b, g)!)));
    assert.equal(toHex(B.doubleScalarMult(a, p, b, q)), toHex(B.pointAdd(B.scalarMult(a, p)!, B.scalarMult(b, q)!)));
  }
  assert.equal(toHex(B.multiScalarMult(new Uint8Array(0), new Uint8Array(0))), IDENTITY);
  // Sizes on both sides of the Straus/Pippenger switch; scalars below 2^255 (where scalarMult is
  // plain integer multiplication) but not reduced, points with torsion.
  for (const n of [1, 2, 7, 33, 70]) {
    const scalars = new Uint8Array(32 * n);
    const points = new Uint8Array(32 * n);
    let sum = hex(IDENTITY);
    for (let i = 0; i < n; i++) {
      const s = rand(32);
      s[31] &= 0x7f;
      const p = i % 3 === 0 ? B.pointAdd(B.scalarMultBase(randScalar()), t8)! : B.scalarMultBase(randScalar());
      scalars.set(s, 32 * i);
      points.set(p, 32 * i);
      sum = B.pointAdd(sum, B.scalarMult(s, p)!)!;
    }
    assert.equal(toHex(B.multiScalarMult(scalars, points)), toHex(sum), `n = ${n}`);
  }
  const bad = new Uint8Array(64);
  bad.set(hex(`ed${"ff".repeat(30)}7f`), 32);
  assert.equal(B.multiScalarMult(new Uint8Array(64), bad), null);
});

test("derivation helpers: varint encoding and view tags", () => {
  const d = rand(32);
  const varint = (n: number): number[] => {
    const out: number[] = [];
    let v = n;
    while (v >= 128) {
      out.push((v % 128) | 128);
      v = Math.floor(v / 128);
    }
    out.push(v);
    return out;
  };
  for (const i of [0, 1, 127, 128, 300, 16384, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER]) {
    const buf = Uint8Array.from([...d, ...varint(i)]);
    assert.equal(toHex(B.derivationToScalar(d, i)), toHex(B.hashToScalar(buf)), `index ${i}`);
    const tagBuf = Uint8Array.from([...Buffer.from("view_tag"), ...buf]);
    assert.equal(B.deriveViewTag(d, i), B.keccak256(tagBuf)[0]);
  }
  // derive_subaddress_public_key undoes derive_public_key.
  const base = B.scalarMultBase(randScalar());
  const derived = B.derivePublicKey(d, 7, base)!;
  assert.equal(toHex(B.deriveSubaddressPublicKey(derived, d, 7)), toHex(base));
  // derive_secret_key matches derive_public_key.
  const sec = randScalar();
  const pub = B.secretKeyToPublicKey(sec)!;
  assert.equal(toHex(B.secretKeyToPublicKey(B.deriveSecretKey(d, 3, sec))), toHex(B.derivePublicKey(d, 3, pub)));
  assert.equal(B.secretKeyToPublicKey(le(L)), null);
  assert.equal(B.generateKeyDerivation(hex(`ed${"ff".repeat(30)}7f`), sec), null);
  assert.equal(toHex(B.keccak256(new Uint8Array(0))), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
});

test("signatures from generateSignature / generateRingSignature verify", () => {
  for (let i = 0; i < 5; i++) {
    const prefix = rand(32);
    const sec = randScalar();
    const pub = B.secretKeyToPublicKey(sec)!;
    const sig = B.generateSignature(prefix, pub, sec, randScalar());
    assert.equal(sig.length, 64);
    assert.ok(B.checkSignature(prefix, pub, sig));
    const bad = sig.slice();
    bad[40] ^= 1;
    assert.equal(B.checkSignature(prefix, pub, bad), false);
    const otherPrefix = prefix.slice();
    otherPrefix[0] ^= 1;
    assert.equal(B.checkSignature(otherPrefix, pub, sig), false);
    const nonCanonical = sig.slice();
    nonCanonical.set(le(big(sig.subarray(32)) + L), 32); // r + ℓ: same residue, rejected by sc_check
    assert.equal(B.checkSignature(prefix, pub, nonCanonical), false);
  }
  for (const n of [1, 2, 5]) {
    const prefix = rand(32);
    const secIndex = n - 1 - (n >> 1);
    const secs = Array.from({ length: n }, randScalar);
    const pubs = new Uint8Array(32 * n);
    for (let i = 0; i < n; i++) pubs.set(B.secretKeyToPublicKey(secs[i])!, 32 * i);
    const image = B.generateKeyImage(pubs.subarray(32 * secIndex, 32 * secIndex + 32), secs[secIndex]);
    const nonces = new Uint8Array(32 * (2 * n - 1));
    for (let i = 0; i < 2 * n - 1; i++) nonces.set(randScalar(), 32 * i);
    const sigs = B.generateRingSignature(prefix, image, pubs, secs[secIndex], secIndex, nonces);
    assert.equal(sigs.length, 64 * n);
    assert.ok(B.checkRingSignature(prefix, image, pubs, sigs), `ring of ${n}`);
    // Non-signer (c, r) pairs are the nonces as drawn.
    let off = 0;
    for (let i = 0; i < n; i++) {
      if (i === secIndex) {
        off += 32;
        continue;
      }
      assert.equal(toHex(sigs.subarray(64 * i, 64 * i + 64)), toHex(nonces.subarray(off, off + 64)));
      off += 64;
    }
    const bad = sigs.slice();
    bad[0] ^= 1;
    assert.equal(B.checkRingSignature(prefix, image, pubs, bad), false);
    // No subgroup check on the image (Monero does that in consensus code): I + T8 still verifies
    // exactly when every cᵢ is a multiple of 8, since then cᵢ·T8 vanishes.
    let allC8 = true;
    for (let i = 0; i < n; i++) allC8 &&= big(sigs.subarray(64 * i, 64 * i + 32)) % 8n === 0n;
    assert.equal(B.checkRingSignature(prefix, B.pointAdd(image, hex(T8))!, pubs, sigs), allC8);
    assert.equal(B.checkRingSignature(prefix, hex(`ed${"ff".repeat(30)}7f`), pubs, sigs), false);
  }
});

test("out buffers, null results and argument checks", () => {
  const s = randScalar();
  const out = new Uint8Array(32);
  const r = B.scalarMultBase(s, out);
  assert.equal(r, out);
  assert.equal(toHex(out), toHex(B.scalarMultBase(s)));
  const keep = rand(32);
  const before = toHex(keep);
  assert.equal(B.scalarMult(s, hex(`ed${"ff".repeat(30)}7f`), keep), null);
  assert.equal(toHex(keep), before, "a null result leaves out untouched");
  // Aliasing an input as out is fine.
  const a = randScalar();
  const b = randScalar();
  const expected = toHex(B.scAdd(a, b));
  assert.equal(toHex(B.scAdd(a, b, a)), expected);
  assert.throws(() => B.scAdd(new Uint8Array(31), b), TypeError);
  assert.throws(() => B.scalarMultBase(s, new Uint8Array(33)), TypeError);
  assert.throws(() => B.checkSignature(new Uint8Array(32), new Uint8Array(32), new Uint8Array(63)), TypeError);
  assert.throws(() => B.multiScalarMult(new Uint8Array(32), new Uint8Array(64)), TypeError);
  assert.throws(() => B.derivationToScalar(new Uint8Array(32), -1), TypeError);
  assert.throws(() => B.derivationToScalar(new Uint8Array(32), 1.5), TypeError);
  assert.throws(
    () => B.generateRingSignature(rand(32), hex(IDENTITY), new Uint8Array(64), s, 2, new Uint8Array(96)),
    TypeError,
  );
});
