import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  bytesToWords,
  CREATABLE_LANGUAGE_FILES,
  DETECTION_ORDER,
  detectSeedLanguage,
  MnemonicError,
  wordList,
  wordsToBytes,
} from "../src/protocol/mnemonic/index.js";
import { getLanguages } from "../src/wallet/keys/rpc.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));
const languages = load("languages.json");
const created = load("create-wallets.json") as {
  wallets: { language: string; mnemonic: { result: { key: string } }; spend_key: { result: { key: string } } }[];
};
const restores = load("restores.json") as {
  restores: { label: string; restore_deterministic_wallet: { params: { seed: string }; result?: { seed: string } } }[];
};
const seedOf = (label: string) => {
  const r = restores.restores.find((x) => x.label === label);
  assert.ok(r, label);
  return r.restore_deterministic_wallet.params.seed;
};
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test("get_languages: the 12 creatable languages in Monero's order, native and English names", () => {
  assert.deepEqual(getLanguages(), languages.get_languages.result);
});

test("word lists: 1626 words each, unique prefixes, Monero's prefix lengths", () => {
  const expect: Record<string, number> = { english: 3, japanese: 3, chinese_simplified: 1 };
  for (const f of DETECTION_ORDER) {
    const l = wordList(f);
    assert.equal(l.words.length, 1626, f);
    assert.equal(l.prefixLength, expect[f] ?? 4, f);
    if (f !== "english_old") assert.equal(l.prefixIndex.size, 1626, f);
  }
  assert.equal(CREATABLE_LANGUAGE_FILES.length, 12);
});

test("create_wallet seeds in all 12 languages: decode to the wallet's spend key, re-encode to the same words", () => {
  assert.equal(created.wallets.length, 12);
  for (const w of created.wallets) {
    const d = wordsToBytes(w.mnemonic.result.key);
    assert.equal(d.language.name, w.language);
    assert.equal(hex(d.bytes), w.spend_key.result.key, w.language);
    assert.equal(d.hasChecksum, true);
    assert.equal(d.wasDeprecated, false);
    assert.equal(bytesToWords(d.bytes, w.language), w.mnemonic.result.key);
    assert.equal(bytesToWords(d.bytes, d.language.englishName), w.mnemonic.result.key);
  }
});

test("decode matches by unique prefix, folds ASCII case only, splits on ASCII whitespace", () => {
  const en = seedOf("seed English");
  const bytes = hex(wordsToBytes(en).bytes);
  assert.equal(hex(wordsToBytes(en.toUpperCase()).bytes), bytes);
  assert.equal(hex(wordsToBytes(en.split(" ").map((w) => w.slice(0, 3)).join(" ")).bytes), bytes);
  assert.equal(hex(wordsToBytes(`\t ${en.split(" ").join("\n\v\f\r ")}  `).bytes), bytes);
  const de = seedOf("seed Deutsch");
  assert.equal(hex(wordsToBytes(de.toLowerCase()).bytes), hex(wordsToBytes(de).bytes));
  // Monero lower-cases with towlower in the C locale: Ü stays Ü, so the upper-cased German seed fails.
  assert.throws(() => wordsToBytes(de.toUpperCase()), (e: unknown) => e instanceof MnemonicError && e.reason === "unknown-word" && e.position === 2);
  assert.throws(() => wordsToBytes(seedOf("seed 日本語").split(" ").join("\u3000")), (e: unknown) => e instanceof MnemonicError && e.reason === "word-count");
});

test("language detection follows Monero's order and the checksum", () => {
  for (const r of restores.restores.filter((x) => x.label.startsWith("seed ") && x.restore_deterministic_wallet.result)) {
    const lang = r.label.slice(5);
    const l = detectSeedLanguage(r.restore_deterministic_wallet.params.seed);
    assert.ok(lang === l.name || lang.startsWith(l.englishName), `${lang} detected as ${l.name}`);
  }
  const old = wordsToBytes(seedOf("English (old) 24 words, language English"));
  assert.equal(old.language.name, "EnglishOld");
  assert.equal(old.hasChecksum, false);
  assert.equal(old.wasDeprecated, true);
  const no = wordsToBytes(seedOf("seed English").split(" ").slice(0, 24).join(" "));
  assert.equal(no.hasChecksum, false);
  assert.equal(no.wasDeprecated, true);
});

test("bad seeds are refused with a message saying what is wrong", () => {
  const en = seedOf("seed English").split(" ");
  const swap = (i: number, w: string) => en.map((x, k) => (k === i ? w : x)).join(" ");
  const cases: [string, string, RegExp, number?][] = [
    ["wrong checksum word", swap(24, "abbey"), /checksum word "abbey" is wrong .* \(expected "randomly"\)/, 25],
    ["unknown word", swap(3, "qqqq"), /word 4 "qqqq" is not a seed word/, 4],
    ["typo matching another word's prefix", swap(3, "notaword"), /checksum .* not whole English words: word 4 "notaword"/, 25],
    ["24 words minus one", en.slice(0, 23).join(" "), /has 25 words \(or 24 without the checksum word\), this one has 23/],
    ["26 words", [...en, "abbey"].join(" "), /this one has 26/],
    ["12 words", en.slice(0, 12).join(" "), /12-word seeds are not accepted/],
    ["mixed languages", swap(5, "abandon"), /words mix languages: most are English, but word 6 "abandon" is French/, 6],
    ["empty", "  \t ", /no words/],
    ["NFD accents", seedOf("seed Español").normalize("NFD"), /decomposed Unicode/],
  ];
  for (const [label, seed, re, pos] of cases) {
    assert.throws(
      () => wordsToBytes(seed),
      (e: unknown) => {
        assert.ok(e instanceof MnemonicError, label);
        assert.match(e.message, re, label);
        if (pos !== undefined) assert.equal(e.position, pos, label);
        assert.equal(e.moneroMessage, "Electrum-style word list failed verification");
        return true;
      },
    );
  }
  // A triple encoding a value ≥ 2^32: Monero's "mumble mumble" check. Words 1-3 = indices (1625, 0, 1625).
  const l = wordList("english");
  const triple = [l.words[1625], l.words[0], l.words[1625]];
  const bad = [...triple, ...en.slice(3, 24)].join(" ");
  assert.throws(() => wordsToBytes(bad), (e: unknown) => e instanceof MnemonicError && e.reason === "invalid-words" && e.position === 1);
});

test("bytesToWords: 4-byte groups, checksum word, unknown language refused", () => {
  assert.equal(bytesToWords(new Uint8Array(32), "English"), Array(25).fill("abbey").join(" "));
  assert.equal(seedOf("edge seed ff"), bytesToWords(new Uint8Array(32).fill(0xff), "English"));
  assert.throws(() => bytesToWords(new Uint8Array(32), "Klingon"), MnemonicError);
  assert.throws(() => bytesToWords(new Uint8Array(3), "English"), RangeError);
});
