/**
 * `npm run bench -- keys`: subaddress derivation rate, and the cost of finding which of N
 * subaddresses (default 1,000,000) an output belongs to — the work a wallet does for every output
 * of every transaction it scans: derive_subaddress_public_key, then a table lookup.
 */
import { randomBytes } from "node:crypto";
import type { FlagSpec, ParsedArgs } from "../src/cli/args.js";
import { defaultBackend } from "../src/crypto/index.js";
import { accountFromRecoveryKey } from "../src/wallet/keys/account.js";
import { SubaddressDeriver, SubaddressTable } from "../src/wallet/keys/subaddress.js";
import { formatMicros } from "./lib/stats.js";
import { type BenchSuite, flagSet, flagString, progress } from "./lib/suite.js";
import { machineLine } from "./lib/system.js";
import { markdownTable } from "./lib/table.js";
import { QUICK_TIMING, type TimingResult, timeOp } from "./lib/timing.js";

const FLAGS: readonly FlagSpec[] = [
  { name: "subaddresses", takesValue: true, help: "Size of the lookup table to build", defaultValue: "1000000" },
  { name: "quick", takesValue: false, help: "Short runs (noisier figures), and a 100,000-entry table unless --subaddresses is given" },
];

function us(t: TimingResult): number {
  if (!t.ok) throw new Error(t.error);
  return t.timing.usPerOp;
}

async function run(args: ParsedArgs): Promise<void> {
  const quick = flagSet(args, "quick");
  const n = Number(flagString(args, "subaddresses") ?? (quick ? 100_000 : 1_000_000));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error("--subaddresses must be a positive integer");
  const timing = quick ? QUICK_TIMING : {};
  const b = defaultBackend();
  const keys = accountFromRecoveryKey(b.scReduce32(randomBytes(32)), b);
  const d = new SubaddressDeriver(keys, b);
  const out = new Uint8Array(32);

  progress("keys: timing single derivations");
  const spendUs = us(timeOp((i) => d.spendPublicKey(1 + (i % 50), i, out), timing));
  const addrUs = us(timeOp((i) => d.address("mainnet", 1 + (i % 50), i), timing));

  progress(`keys: building a table of ${n.toLocaleString("en-US")} subaddresses`);
  const perAccount = 200_000; // 5 accounts × 200,000 at the default size
  const table = new SubaddressTable(keys, b, 1024);
  const heap0 = process.memoryUsage().arrayBuffers;
  const t0 = process.hrtime.bigint();
  for (let filled = 0, major = 0; filled < n; major++) {
    const count = Math.min(perAccount, n - filled);
    table.addRange(major, 0, count);
    filled += count;
  }
  const buildS = Number(process.hrtime.bigint() - t0) / 1e9;
  const tableBytes = table.byteLength;
  const heapDelta = process.memoryUsage().arrayBuffers - heap0;

  // Outputs: a derivation 8·a·R and an output key P = D + Hs(derivation ‖ i)·G for a known D (hit),
  // or an unrelated key (miss, the common case when scanning).
  progress("keys: timing output detection");
  const txPub = b.scalarMultBase(b.scReduce32(randomBytes(32)));
  const derivation = b.generateKeyDerivation(txPub, keys.viewSecretKey);
  if (!derivation) throw new Error("derivation failed");
  const target = d.spendPublicKey(Math.min(3, Math.floor((n - 1) / perAccount)), Math.min(12_345, n - 1));
  const hitKey = b.derivePublicKey(derivation, 0, target);
  if (!hitKey) throw new Error("derive_public_key failed");
  const missKeys = Array.from({ length: 64 }, () => b.scalarMultBase(b.scReduce32(randomBytes(32))));
  const dOut = new Uint8Array(32);
  if (!table.get(b.deriveSubaddressPublicKey(hitKey, derivation, 0, dOut) ?? dOut)) throw new Error("hit not found");
  const deriveUs = us(timeOp((i) => b.deriveSubaddressPublicKey(missKeys[i & 63], derivation, 0, dOut), timing));
  const lookupMissUs = us(timeOp((i) => table.get(missKeys[i & 63]), timing));
  const detectMissUs = us(
    timeOp((i) => {
      const D = b.deriveSubaddressPublicKey(missKeys[i & 63], derivation, 0, dOut);
      return D && table.get(D);
    }, timing),
  );
  const detectHitUs = us(
    timeOp(() => {
      const D = b.deriveSubaddressPublicKey(hitKey, derivation, 0, dOut);
      return D && table.get(D);
    }, timing),
  );

  const rate = (x: number) => `${Math.round(1e6 / x).toLocaleString("en-US")}/s`;
  const rows: string[][] = [
    ["subaddress spend key D (hash_to_scalar + m·G + B)", formatMicros(spendUs), rate(spendUs)],
    ["subaddress address string (D, C = a·D, base58)", formatMicros(addrUs), rate(addrUs)],
    [`table build, ${n.toLocaleString("en-US")} entries (per entry${b.subaddressSpendKeys ? "; the backend's batch, up to 2 threads" : ""})`, formatMicros((buildS * 1e6) / n), rate((buildS * 1e6) / n)],
    ["derive_subaddress_public_key (per output)", formatMicros(deriveUs), rate(deriveUs)],
    ["table lookup, miss", formatMicros(lookupMissUs), rate(lookupMissUs)],
    ["detect owner of an output: not ours (derive + lookup)", formatMicros(detectMissUs), rate(detectMissUs)],
    ["detect owner of an output: ours (derive + lookup + confirm)", formatMicros(detectHitUs), rate(detectHitUs)],
  ];
  process.stdout.write(`## keys — subaddresses (${b.name} backend)\n\n${machineLine()}\n\n`);
  process.stdout.write(
    `${markdownTable([{ header: "operation" }, { header: "µs/op", align: "right" }, { header: "rate", align: "right" }], rows)}\n`,
  );
  process.stdout.write(
    `\nTable of ${n.toLocaleString("en-US")} subaddresses: built in ${buildS.toFixed(1)} s, ` +
      `${(tableBytes / 2 ** 20).toFixed(1)} MiB of typed arrays (${(tableBytes / n).toFixed(1)} bytes/entry; ` +
      `ArrayBuffer growth ${(heapDelta / 2 ** 20).toFixed(1)} MiB). A Map keyed by 64-char hex would take ~150 bytes/entry.\n`,
  );
}

export const suite: BenchSuite = {
  name: "keys",
  summary: "subaddress derivation rate and output-owner detection among 1,000,000 subaddresses",
  flags: FLAGS,
  run,
};
