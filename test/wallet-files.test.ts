// Wallet files (src/wallet/files): round trips with exact bigints and bytes, wrong password,
// damaged files, and a writer killed with SIGKILL at random moments.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  CorruptWalletFileError,
  emptyUserData,
  type KdfParams,
  WalletFileError,
  WalletFiles,
  type WalletKeysData,
  WrongPasswordError,
} from "../src/wallet/files/index.js";
import { emptyLedgerState, type LedgerState } from "../src/wallet/ledger/ledger.js";

const FAST: KdfParams = { log2N: 10, r: 8, p: 1 }; // tests only; the default is 2^15
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "tsmonero-wallet-files-"));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const U64_MAX = (1n << 64n) - 1n;
function keysData(): WalletKeysData {
  const user = emptyUserData();
  user.txNotes["ab".repeat(32)] = "rent, March ✓";
  user.addressBook.push({ address: "4".repeat(95), description: "shop", paymentId: "0123456789abcdef" });
  user.subaddressLabels = [["Primary account", "donations"], ["Savings"]];
  user.accountTags = { "1": "cold" };
  user.accountTagDescriptions = { cold: "kept offline" };
  user.attributes = { "wallet2.description": "x", "": "empty key" };
  return {
    network: "regtest",
    spendSecretKey: Uint8Array.from({ length: 32 }, (_, i) => i),
    viewSecretKey: Uint8Array.from({ length: 32 }, (_, i) => 255 - i),
    spendPublicKey: new Uint8Array(32).fill(9),
    viewPublicKey: new Uint8Array(32).fill(10),
    seedLanguage: "English",
    restoreHeight: 1234567n,
    createdAt: 1700000000n,
    user,
  };
}

function ledgerState(n: number): LedgerState {
  const s = emptyLedgerState();
  s.height = n;
  s.lastBlockReward = U64_MAX - BigInt(n);
  s.transfers.push({
    txid: "cd".repeat(32),
    blockHeight: n,
    internalIndex: 1,
    globalIndex: 9007199254740993n, // 2^53 + 1: not representable as a JSON number
    amount: U64_MAX,
    keyImage: "ef".repeat(32),
    publicKey: "01".repeat(32),
    mask: "02".repeat(32),
    rct: true,
    subaddress: { major: 0, minor: 3 },
    unlockTime: 500000001n,
    coinbase: false,
    spent: false,
    spentHeight: 0,
    spentTxid: "",
    frozen: true,
  });
  return s;
}

test("keys and cache round-trip exactly, with the names monero-wallet-rpc uses", async () => {
  const dir = tmp();
  const files = await WalletFiles.create<LedgerState>(dir, "alice", "pässword", keysData(), FAST);
  assert.equal(files.keysPath, join(dir, "alice.keys"));
  assert.equal(files.cachePath, join(dir, "alice"));
  assert.equal(await files.loadCache(), null, "a fresh wallet has no cache");
  files.storeCache(ledgerState(7));
  assert.deepEqual(readdirSync(dir).sort(), ["alice", "alice.keys"]);
  const { files: f2, keys } = await WalletFiles.open<LedgerState>(dir, "alice", "pässword");
  assert.deepEqual(keys, keysData());
  const cache = await f2.loadCache();
  assert.deepEqual(cache, ledgerState(7));
  assert.equal(cache!.transfers[0].globalIndex, 9007199254740993n);
  // nothing readable leaks into the files
  for (const name of ["alice", "alice.keys"]) {
    const raw = readFileSync(join(dir, name));
    assert.ok(!raw.includes(Buffer.from("rent, March")) && !raw.includes(Buffer.from("Savings")) && !raw.includes(Buffer.from("cdcdcd")));
  }
  await assert.rejects(WalletFiles.create(dir, "alice", "x", keysData(), FAST), WalletFileError, "create never overwrites");
});

test("a wrong password is WrongPasswordError; a password change re-keys both files", async () => {
  const dir = tmp();
  const files = await WalletFiles.create<LedgerState>(dir, "w", "right", keysData(), FAST);
  files.storeCache(ledgerState(1));
  await assert.rejects(WalletFiles.open(dir, "w", "wrong"), WrongPasswordError);
  await assert.rejects(WalletFiles.open(dir, "w", ""), (e: unknown) => e instanceof WrongPasswordError && !(e instanceof CorruptWalletFileError));
  await files.changePassword("new", keysData(), ledgerState(2));
  await assert.rejects(WalletFiles.open(dir, "w", "right"), WrongPasswordError);
  const { files: f2 } = await WalletFiles.open<LedgerState>(dir, "w", "new");
  assert.equal((await f2.loadCache())!.height, 2);
});

test("damaged, truncated, foreign or missing files are clear errors, never crashes", async () => {
  const dir = tmp();
  const files = await WalletFiles.create<LedgerState>(dir, "w", "pw", keysData(), FAST);
  files.storeCache(ledgerState(3));
  const keysRaw = readFileSync(files.keysPath);
  const cacheRaw = readFileSync(files.cachePath);
  const expectCorrupt = async (what: string, mutate: () => void, load: "keys" | "cache") => {
    mutate();
    if (load === "keys") await assert.rejects(WalletFiles.open(dir, "w", "pw"), CorruptWalletFileError, what);
    else {
      const { files: f } = await WalletFiles.open<LedgerState>(dir, "w", "pw");
      await assert.rejects(f.loadCache(), CorruptWalletFileError, what);
    }
    writeFileSync(files.keysPath, keysRaw);
    writeFileSync(files.cachePath, cacheRaw);
  };
  // every single-byte flip of the keys file, and a sample of the cache's, is detected
  for (let i = 0; i < keysRaw.length; i++) {
    await expectCorrupt(
      `keys byte ${i}`,
      () => {
        const b = Buffer.from(keysRaw);
        b[i] ^= 0x40;
        writeFileSync(files.keysPath, b);
      },
      "keys",
    );
  }
  for (const i of [0, 9, 20, 45, 60, 65, 70, cacheRaw.length - 20, cacheRaw.length - 1]) {
    await expectCorrupt(
      `cache byte ${i}`,
      () => {
        const b = Buffer.from(cacheRaw);
        b[i] ^= 0x01;
        writeFileSync(files.cachePath, b);
      },
      "cache",
    );
  }
  for (const n of [0, 5, 69, 85, keysRaw.length - 1]) {
    await expectCorrupt(`keys truncated to ${n}`, () => writeFileSync(files.keysPath, keysRaw.subarray(0, n)), "keys");
  }
  await expectCorrupt("keys with a byte appended", () => writeFileSync(files.keysPath, Buffer.concat([keysRaw, Buffer.of(0)])), "keys");
  await expectCorrupt("a monero wallet file", () => writeFileSync(files.keysPath, Buffer.from("019a2b3c".repeat(200), "hex")), "keys");
  await expectCorrupt("the cache as keys file", () => writeFileSync(files.keysPath, cacheRaw), "keys");
  await expectCorrupt("the keys file as cache", () => writeFileSync(files.cachePath, keysRaw), "cache");
  await assert.rejects(WalletFiles.open(dir, "nobody", "pw"), (e: unknown) => e instanceof WalletFileError && /does not exist/.test((e as Error).message));
  await assert.rejects(WalletFiles.open(dir, "../w", "pw"), WalletFileError);
});

test("storeKeys leaves an unchanged keys file alone, and rewrites it when the data, the file or the password changed", async () => {
  const dir = tmp();
  const keys = keysData();
  const files = await WalletFiles.create(dir, "w", "pw", keys, FAST);
  const bytes = () => readFileSync(files.keysPath);
  const first = bytes();
  files.storeKeys(keys); // same data: same file (a fresh seal would have a new IV)
  assert.deepEqual(bytes(), first);
  keys.user.attributes.note = "changed";
  files.storeKeys(keys);
  const second = bytes();
  assert.notDeepEqual(second, first);
  assert.equal((await WalletFiles.open(dir, "w", "pw")).keys.user.attributes.note, "changed");
  // opened files know what they read: a store with nothing changed writes nothing
  const reopened = await WalletFiles.open(dir, "w", "pw");
  reopened.files.storeKeys(reopened.keys);
  assert.deepEqual(bytes(), second);
  rmSync(files.keysPath);
  files.storeKeys(keys); // the file is gone: written again
  assert.equal((await WalletFiles.open(dir, "w", "pw")).keys.user.attributes.note, "changed");
  await files.changePassword("new", keys, null, FAST); // another key: written under it
  await assert.rejects(WalletFiles.open(dir, "w", "pw"), WrongPasswordError);
  assert.equal((await WalletFiles.open(dir, "w", "new")).keys.user.attributes.note, "changed");
});

// The child stores keys and cache in a loop, printing each generation after its store returns.
const CHILD = `
import { WalletFiles, emptyUserData } from ${JSON.stringify(new URL("../src/wallet/files/index.js", import.meta.url).href)};
const [dir, start] = process.argv.slice(2);
const { files, keys } = await WalletFiles.open(dir, "w", "pw");
const pad = "x".repeat(400000);
for (let g = Number(start); ; g++) {
  keys.user.attributes.generation = String(g);
  files.storeKeys(keys);
  files.storeCache({ generation: BigInt(g), pad });
  process.stdout.write(g + "\\n");
}
`;

test("a writer killed with SIGKILL leaves old or new files, never half-written ones (20 rounds)", async () => {
  const dir = tmp();
  const keys = keysData();
  keys.user.attributes.generation = "0";
  const files = await WalletFiles.create<{ generation: bigint; pad: string }>(dir, "w", "pw", keys, FAST);
  files.storeCache({ generation: 0n, pad: "" });
  const script = join(dir, "child.mjs");
  writeFileSync(script, CHILD);
  let generation = 0;
  for (let round = 0; round < 20; round++) {
    const child = spawn(process.execPath, [script, dir, String(generation + 1)], { stdio: ["ignore", "pipe", "inherit"] });
    let printed = generation;
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const l of lines) if (l) printed = Number(l);
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on("exit", (_c, s) => r(s)));
    // wait until it has written at least once, then kill at a random moment
    while (printed === generation && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    const { files: f, keys: k } = await WalletFiles.open<{ generation: bigint; pad: string }>(dir, "w", "pw");
    const kg = Number(k.user.attributes.generation);
    const cache = await f.loadCache();
    const cg = Number(cache!.generation);
    // each file holds a complete generation: the last one reported, or the one being written
    assert.ok(kg === printed || kg === printed + 1, `round ${round}: keys generation ${kg}, last reported ${printed}`);
    assert.ok(cg === printed || cg === printed + 1, `round ${round}: cache generation ${cg}, last reported ${printed}`);
    assert.ok(cg <= kg && kg <= cg + 1, "keys are stored before the cache in each generation");
    generation = Math.max(kg, cg);
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes(".tmp-")), [], "open removed the killed writer's temporary files");
  }
  assert.ok(generation >= 20);
});
