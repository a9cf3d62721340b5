/**
 * Monero's 25-word seeds (src/mnemonics/electrum-words.cpp): every 4 bytes (little-endian u32 x)
 * become 3 words w1 = x mod n, w2 = (x/n + w1) mod n, w3 = (x/n² + w2) mod n with n = 1626, and a
 * checksum word — the word at index crc32(prefixes of the 24 words) mod 24 — is appended.
 *
 * Decoding splits on ASCII whitespace, finds the language by trying each list in Monero's order
 * (English (old) last), matching words by their unique prefix when a checksum word is present and by
 * the whole word otherwise, then verifies the checksum and each word triple. Where Monero only says
 * "Electrum-style word list failed verification", `MnemonicError` says what is wrong: the word count,
 * an unknown word and its position, a word from another language, the checksum word (and the one
 * expected), or a triple that encodes no 32-bit value.
 */
import {
  DETECTION_ORDER,
  findLanguage,
  foldWord,
  OLD_LANGUAGE_NAME,
  utf8Prefix,
  type WordList,
  wordList,
} from "./wordlists.js";

export {
  CREATABLE_LANGUAGE_FILES,
  creatableLanguages,
  DETECTION_ORDER,
  findLanguage,
  OLD_LANGUAGE_NAME,
  type WordList,
  wordList,
} from "./wordlists.js";

/** The error monero-wallet-rpc returns (code −1) for any seed words_to_bytes refuses. */
export const MONERO_SEED_ERROR = "Electrum-style word list failed verification";

export type MnemonicErrorReason =
  | "empty"
  | "word-count"
  | "unknown-word"
  | "mixed-languages"
  | "checksum"
  | "invalid-words"
  | "unsupported"
  | "language";

/** Why words are not a seed. `message` is ours (precise); `moneroMessage` is what monero-wallet-rpc says. */
export class MnemonicError extends Error {
  override readonly name = "MnemonicError";
  readonly moneroMessage = MONERO_SEED_ERROR;
  constructor(
    readonly reason: MnemonicErrorReason,
    message: string,
    /** 1-based position of the offending word, when one word is at fault. */
    readonly position?: number,
  ) {
    super(message);
  }
}

// ---- CRC-32 (IEEE 802.3, reflected, as boost::crc_32_type) ----
const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Index of the checksum word among `words` (create_checksum_index). */
function checksumIndex(words: readonly string[], lang: WordList): number {
  // Monero concatenates the list's own trimmed forms of the matched words, not the typed text.
  let trimmed = "";
  for (const w of words) {
    const idx = lang.prefixIndex.get(foldWord(utf8Prefix(w, lang.prefixLength)));
    if (idx === undefined) throw new MnemonicError("unknown-word", `word ${JSON.stringify(w)} is not in the ${lang.englishName} list`);
    trimmed += utf8Prefix(lang.words[idx], lang.prefixLength);
  }
  return crc32(Buffer.from(trimmed, "utf8")) % words.length;
}

function checksumMatches(words: readonly string[], lang: WordList): boolean {
  const body = words.slice(0, -1);
  const expected = body[checksumIndex(body, lang)];
  const last = words[words.length - 1];
  return foldWord(utf8Prefix(expected, lang.prefixLength)) === foldWord(utf8Prefix(last, lang.prefixLength));
}

/** Splits on ASCII whitespace as epee's wipeable_string::split (isspace in the C locale). */
export function splitSeedWords(text: string): string[] {
  return text.split(/[ \t\n\v\f\r]+/).filter((w) => w.length > 0);
}

/** Encodes bytes (a multiple of 4, not empty) as words plus the checksum word (bytes_to_words). */
export function bytesToWords(bytes: Uint8Array, language: string | WordList): string {
  if (bytes.length === 0 || bytes.length % 4 !== 0) throw new RangeError("bytesToWords: length must be a non-zero multiple of 4");
  const lang = typeof language === "string" ? findLanguage(language) : language;
  if (!lang) throw new MnemonicError("language", `unknown seed language ${JSON.stringify(language)}`);
  const n = lang.words.length;
  const words: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < bytes.length; i += 4) {
    const x = view.getUint32(i, true);
    const w1 = x % n;
    const q = Math.floor(x / n);
    const w2 = (q + w1) % n;
    const w3 = (Math.floor(q / n) + w2) % n;
    words.push(lang.words[w1], lang.words[w2], lang.words[w3]);
  }
  words.push(words[checksumIndex(words, lang)]);
  return words.join(" ");
}

/** A decoded seed. */
export interface DecodedSeed {
  readonly bytes: Uint8Array;
  readonly language: WordList;
  /** True when the checksum word was present (and correct). */
  readonly hasChecksum: boolean;
  /** monero-wallet-rpc's `was_deprecated`: English (old) words, or not 25 words. */
  readonly wasDeprecated: boolean;
}

function indicesIn(words: readonly string[], lang: WordList, byPrefix: boolean): number[] | null {
  const out: number[] = [];
  for (const w of words) {
    const idx = byPrefix ? lang.prefixIndex.get(foldWord(utf8Prefix(w, lang.prefixLength))) : lang.wordIndex.get(foldWord(w));
    if (idx === undefined) return null;
    out.push(idx);
  }
  return out;
}

/** Explains why no language holds all the words (find_seed_language failed). */
function explainNoLanguage(words: readonly string[], byPrefix: boolean): MnemonicError {
  const langs = DETECTION_ORDER.map(wordList);
  const has = (w: string, l: WordList) =>
    byPrefix ? l.prefixIndex.has(foldWord(utf8Prefix(w, l.prefixLength))) : l.wordIndex.has(foldWord(w));
  for (let i = 0; i < words.length; i++) {
    if (!langs.some((l) => has(words[i], l))) {
      const how = byPrefix ? "no word list has a word starting like it" : "it is not a whole word of any list";
      return new MnemonicError("unknown-word", `word ${i + 1} ${JSON.stringify(words[i])} is not a seed word: ${how}`, i + 1);
    }
  }
  let best = langs[0];
  let bestCount = -1;
  for (const l of langs) {
    const c = words.filter((w) => has(w, l)).length;
    if (c > bestCount) {
      best = l;
      bestCount = c;
    }
  }
  const i = words.findIndex((w) => !has(w, best));
  const other = langs.find((l) => has(words[i], l));
  const nfd = words.some((w) => w.normalize("NFC") !== w)
    ? " (the words are in decomposed Unicode form; Monero compares bytes against its NFC word lists)"
    : "";
  return new MnemonicError(
    "mixed-languages",
    `words mix languages: most are ${best.englishName}, but word ${i + 1} ${JSON.stringify(words[i])} is ${other?.englishName ?? "in no list"}${nfd}`,
    i + 1,
  );
}

/**
 * Decodes seed words to bytes as Monero's words_to_bytes does for `len` bytes (32 for wallet keys):
 * accepts len·3/4 words, or one more with a checksum word. (Monero also lets len·3/8 words through
 * the count check, but its duplication step never fires for them, so they always fail; they are
 * refused here with that reason.)
 */
export function wordsToBytes(text: string, len = 32): DecodedSeed {
  if (len <= 0 || len % 4 !== 0) throw new RangeError("wordsToBytes: len must be a positive multiple of 4");
  const words = splitSeedWords(text);
  if (words.length === 0) throw new MnemonicError("empty", "the seed has no words");
  const expected = (len * 8 * 3) / 32;
  if (words.length !== expected && words.length !== expected + 1) {
    if (words.length === expected / 2) {
      throw new MnemonicError(
        "unsupported",
        `${words.length}-word seeds are not accepted: monero-wallet-rpc 0.18 takes ${expected + 1} words (or ${expected} without the checksum word)`,
      );
    }
    throw new MnemonicError(
      "word-count",
      `a seed has ${expected + 1} words (or ${expected} without the checksum word), this one has ${words.length}`,
    );
  }
  const hasChecksum = words.length === expected + 1;
  let found: { lang: WordList; indices: number[] } | undefined;
  let badChecksum: WordList | undefined;
  for (const file of DETECTION_ORDER) {
    const lang = wordList(file);
    const indices = indicesIn(words, lang, hasChecksum);
    if (!indices) continue;
    if (hasChecksum && !checksumMatches(words, lang)) {
      badChecksum = lang; // Monero's fallback: the last list that matched but failed the checksum
      continue;
    }
    found = { lang, indices };
    break;
  }
  if (!found) {
    if (badChecksum) {
      const body = words.slice(0, -1);
      const want = badChecksum.words[badChecksum.prefixIndex.get(foldWord(utf8Prefix(body[checksumIndex(body, badChecksum)], badChecksum.prefixLength))) ?? 0];
      // Words matched only by their prefix are the likeliest typos; name them.
      const inexact = words
        .map((w, k) => ({ w, k }))
        .filter(({ w }) => !badChecksum?.wordIndex.has(foldWord(w)))
        .map(({ w, k }) => `word ${k + 1} ${JSON.stringify(w)}`);
      const hint = inexact.length ? `; not whole ${badChecksum.englishName} words: ${inexact.join(", ")}` : "; a word may be mistyped or swapped";
      throw new MnemonicError(
        "checksum",
        `checksum word ${JSON.stringify(words[words.length - 1])} is wrong for these ${badChecksum.englishName} words (expected ${JSON.stringify(want)})${hint}`,
        words.length,
      );
    }
    throw explainNoLanguage(words, hasChecksum);
  }
  const { lang, indices } = found;
  const n = lang.words.length;
  const out = new Uint8Array(len);
  const view = new DataView(out.buffer);
  for (let i = 0; i < expected / 3; i++) {
    const w1 = indices[3 * i];
    const w2 = indices[3 * i + 1];
    const w3 = indices[3 * i + 2];
    // Monero computes this in uint32 and checks x mod n == w1, which holds exactly when no wrap occurs.
    const x = w1 + n * ((n - w1 + w2) % n) + n * n * ((n - w2 + w3) % n);
    if (x > 0xffffffff) {
      throw new MnemonicError(
        "invalid-words",
        `words ${3 * i + 1}–${3 * i + 3} (${words.slice(3 * i, 3 * i + 3).join(" ")}) encode no 32-bit value; one of them is wrong`,
        3 * i + 1,
      );
    }
    view.setUint32(4 * i, x, true);
  }
  return {
    bytes: out,
    language: lang,
    hasChecksum,
    wasDeprecated: lang.name === OLD_LANGUAGE_NAME || words.length !== expected + 1,
  };
}

/** The language a seed is written in (the list words_to_bytes settles on), or throws why none fits. */
export function detectSeedLanguage(text: string): WordList {
  return wordsToBytes(text).language;
}
