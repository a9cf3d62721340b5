/**
 * Monero's seed word lists (src/mnemonics/*.h), shipped as assets/mnemonics/*.json: each file holds
 * { language_name, english_name, unique_prefix_length, words[1626] }. Loaded lazily, once.
 *
 * Matching follows src/mnemonics/language_base.h: a word is known by its full form or by its first
 * `unique_prefix_length` code points; comparison folds ASCII letters only (Monero lower-cases with
 * towlower in the C locale, which leaves every non-ASCII letter as it is: "ÄRMEL" ≠ "Ärmel").
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const WORD_LIST_SIZE = 1626;

/** File stem of each list, in the order monero-wallet-rpc lists creatable languages (get_languages). */
export const CREATABLE_LANGUAGE_FILES = [
  "german",
  "english",
  "spanish",
  "french",
  "italian",
  "dutch",
  "portuguese",
  "russian",
  "japanese",
  "chinese_simplified",
  "esperanto",
  "lojban",
] as const;

/** The order electrum-words.cpp find_seed_language tries languages when decoding; English (old) last. */
export const DETECTION_ORDER = [
  "chinese_simplified",
  "english",
  "dutch",
  "french",
  "spanish",
  "german",
  "italian",
  "portuguese",
  "japanese",
  "russian",
  "esperanto",
  "lojban",
  "english_old",
] as const;

export type LanguageFile = (typeof DETECTION_ORDER)[number];

/** Monero's name for the old Electrum list (it cannot be used to create a seed). */
export const OLD_LANGUAGE_NAME = "EnglishOld";

/** One word list with its lookup maps. */
export interface WordList {
  readonly file: LanguageFile;
  /** Native name, as the RPC reports it ("Deutsch", "русский язык"…). */
  readonly name: string;
  /** English name ("German", "Russian"…). */
  readonly englishName: string;
  readonly prefixLength: number;
  readonly words: readonly string[];
  /** ASCII-folded full word → index. */
  readonly wordIndex: ReadonlyMap<string, number>;
  /** ASCII-folded prefix (first prefixLength code points) → index. */
  readonly prefixIndex: ReadonlyMap<string, number>;
}

/** Monero's WordEqual/WordHash canonical form: ASCII letters lower-cased, everything else kept. */
export function foldWord(w: string): string {
  return w.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** The first `n` code points of `w` (Language::utf8prefix). */
export function utf8Prefix(w: string, n: number): string {
  let out = "";
  let count = 0;
  for (const ch of w) {
    if (count++ === n) break;
    out += ch;
  }
  return out;
}

function dataDir(): string {
  // dist/src/protocol/mnemonic → package root is four levels up; src/protocol/mnemonic → three.
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["../../../..", "../../.."]) {
    const dir = join(here, up, "assets", "mnemonics");
    if (existsSync(join(dir, "english.json"))) return dir;
  }
  throw new Error(`mnemonic word lists not found (looked for assets/mnemonics above ${here})`);
}

interface WordListJson {
  language_name: string;
  english_name: string;
  unique_prefix_length: number;
  words: string[];
}

const cache = new Map<LanguageFile, WordList>();

/** The word list stored as assets/mnemonics/<file>.json, checked the way language_base.h checks it. */
export function wordList(file: LanguageFile): WordList {
  const hit = cache.get(file);
  if (hit) return hit;
  const json = JSON.parse(readFileSync(join(dataDir(), `${file}.json`), "utf8")) as WordListJson;
  if (!Array.isArray(json.words) || json.words.length !== WORD_LIST_SIZE) {
    throw new Error(`word list ${file} must have ${WORD_LIST_SIZE} words`);
  }
  const wordIndex = new Map<string, number>();
  const prefixIndex = new Map<string, number>();
  json.words.forEach((w, i) => {
    wordIndex.set(foldWord(w), i);
    const p = foldWord(utf8Prefix(w, json.unique_prefix_length));
    // Only English (old) may repeat a prefix (populate_maps(ALLOW_DUPLICATE_PREFIXES)); the later word wins.
    if (prefixIndex.has(p) && file !== "english_old") throw new Error(`duplicate prefix ${JSON.stringify(p)} in word list ${file}`);
    prefixIndex.set(p, i);
  });
  const list: WordList = {
    file,
    name: json.language_name,
    englishName: json.english_name,
    prefixLength: json.unique_prefix_length,
    words: json.words,
    wordIndex,
    prefixIndex,
  };
  cache.set(file, list);
  return list;
}

/** The 12 languages a seed can be created in, in get_languages order. */
export function creatableLanguages(): WordList[] {
  return CREATABLE_LANGUAGE_FILES.map(wordList);
}

/**
 * The creatable language called `name` — native or English name, exact match — or undefined
 * (ElectrumWords::is_valid_language; "EnglishOld" is not creatable and so not valid).
 */
export function findLanguage(name: string): WordList | undefined {
  return creatableLanguages().find((l) => l.name === name || l.englishName === name);
}
