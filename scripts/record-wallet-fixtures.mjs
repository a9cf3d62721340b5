#!/usr/bin/env node
/**
 * Records wallet-keys fixtures from a real monero-wallet-rpc (Debian package `monero`, 0.18), run
 * offline on ports 28100–28102 (mainnet, testnet, stagenet), and writes test/fixtures/wallet-keys/*.json.
 *
 * Every exchange is stored as { method, params, result } or { method, params, error } exactly as the
 * wallet answered, so tests compare our answers field by field and can return Monero's error messages
 * verbatim. Restores use fixed seeds (below) so those fixtures are stable; create_wallet is random
 * and is recorded as it came (the tests restore from the recorded seed and compare).
 *
 * Usage: node scripts/record-wallet-fixtures.mjs [--out test/fixtures/wallet-keys] [--bin /usr/bin/monero-wallet-rpc]
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { keccak_256 } from "@noble/hashes/sha3.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const OUT = resolve(root, opt("--out", "test/fixtures/wallet-keys"));
const BIN = opt("--bin", "/usr/bin/monero-wallet-rpc");
const PORTS = { mainnet: 28100, testnet: 28101, stagenet: 28102 };

// ---- fixed seeds (each accepted by monero-wallet-rpc 0.18.0.0) ----
const SEEDS = {
  English:
    "sequence atlas unveil summon pebbles tuesday beer rudely snake rockets different fuselage woven tagged bested dented vegan hover rapid fawns obvious muppet randomly seasons randomly",
  English2:
    "jackets pistons wetsuit hoisting second tender behind blip army pairing blender observant ammo having cadets amidst lukewarm saxophone anybody sadness eden circle jaunt kiosk army",
  Deutsch:
    "Hubraum Grünalge Relevanz Erosion Fixpunkt Tierart Garage Tempo Fellpony Rapsöl Luchs Lineal Arche Maulkorb Hafen Hocker Konzept Pubertät Merkmal Hocker abfragen Curry wärmen abfragen abfragen",
  Español:
    "ladrón papá nación detener audio lejano filtro hebra flota herir asunto chapa rifa gemir pecera litera exponer reír quitar logro disfraz aplicar radical raspa audio",
  Français:
    "exposer observer naissance retard couteau crin vaste gagner valser prince givre remuer service ternir arbre cartel yeti balai arche roche ramasser micro favori forger prince",
  Italiano:
    "uffa oceano dito bassista megafono segare acciaio candore ribadire filetto moneta rapporto errore vulcano speranza regalare vento notare gruppo pedalare insulto squillo pianeta pizza segare",
  Nederlands:
    "decibel kruid azuur hotelbed berechten kompaan sjaak likdoorn piscine purmerend topvrouw heil gehucht entstof ijsbox ypsilon troebel pitchen wendbaar limburg dwaal oublie hobo impuls entstof",
  Português:
    "hostilizar nublar ansioso pastoso irascivel oviparo rasurar xistoso urbano bonzo etiquetar ilustrissimo gaguejo codorniz gueto espirito ajoelhar simultaneo objetos beocio cupula chovido epoxi esmurrar nublar",
  "русский язык":
    "арабский магазин шаблон тыкать сюжет шейка оригинал чужой птица гильза манера вязать туфля вежливый всадник злак дебют изучать куча койка проблема оценка сидеть судьба манера",
  日本語:
    "ちきゅう なまいき きつえん うつる ねぶそく せんせい ねんまつ けおりもの とっきゅう げんそう ぎしき うすぎ ちゃんこなべ おくりがな いつか おとしもの ごうせい きくばり きぞん くしょう しごと すける くろう けつえき きぞん",
  "简体中文 (中国)": "自 继 桂 齿 献 匀 作 奔 买 脱 纱 般 只 库 纪 燥 仲 这 方 邦 食 轴 严 死 死",
  Esperanto:
    "sparkado etradio godetio duuma frua tombolo juneca observi pridemandi diplomo duzo kredi ciumi ajuto reakcio mukozo lingvo tiparo dujare odori bieno fanatiko ceceo cetera etradio",
  Lojban:
    "ckunu friko lanka pinca ckaji tcana jikru patlu carvi jbocre bevri frili bunda gapci jvajvo jenmi cnegau sonci latna skuro ci'izra tasmi nanvi penbi skuro",
};
// Seeds of edge keys: all-zero bytes, all-0xff bytes and ℓ itself (both ≥ ℓ, so reduced on restore).
const EDGE_SEEDS = {
  zero: "abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey abbey",
  ff: "foamy solved soggy foamy solved soggy foamy solved soggy foamy solved soggy foamy solved soggy foamy solved soggy foamy solved soggy foamy solved soggy soggy",
  l: "large hemlock royal beware woozy gather slackens vain nanny tumbling gained identity abbey abbey abbey abbey abbey abbey abbey abbey abbey justice yearbook annoyed nanny",
};

// ---- a tiny independent base58 (Monero's block scheme) for crafting bad addresses ----
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ENC_SIZES = [0, 2, 3, 5, 6, 7, 9, 10, 11];
function b58encode(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8) {
    const block = bytes.subarray(i, Math.min(i + 8, bytes.length));
    let num = 0n;
    for (const b of block) num = (num << 8n) | BigInt(b);
    let s = "";
    for (let k = 0; k < ENC_SIZES[block.length]; k++) {
      s = ALPHABET[Number(num % 58n)] + s;
      num /= 58n;
    }
    out += s;
  }
  return out;
}
function b58decode(str) {
  const out = [];
  for (let i = 0; i < str.length; i += 11) {
    const chunk = str.slice(i, i + 11);
    const size = ENC_SIZES.indexOf(chunk.length);
    let num = 0n;
    for (const c of chunk) num = num * 58n + BigInt(ALPHABET.indexOf(c));
    const bytes = [];
    for (let k = 0; k < size; k++) {
      bytes.unshift(Number(num & 0xffn));
      num >>= 8n;
    }
    out.push(...bytes);
  }
  return Uint8Array.from(out);
}
function varint(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
/** base58(varint(tag) ‖ data ‖ keccak[0..4]) with an optional checksum corruption. */
function craftAddress(tag, data, { badChecksum = false } = {}) {
  const body = Uint8Array.from([...varint(tag), ...data]);
  const h = keccak_256(body).slice(0, 4);
  if (badChecksum) h[0] ^= 1;
  return b58encode(Uint8Array.from([...body, ...h]));
}
/** The data bytes of a base58 address (without tag and checksum). */
function addressData(addr) {
  const raw = b58decode(addr);
  let off = 0;
  while (raw[off] & 0x80) off++;
  return raw.subarray(off + 1, raw.length - 4);
}

// ---- monero-wallet-rpc processes ----
const children = [];
async function startWallet(net) {
  const dir = mkdtempSync(join(tmpdir(), `tsmonero-fixtures-${net}-`));
  const args = [
    "--offline",
    "--disable-rpc-login",
    "--non-interactive",
    "--wallet-dir",
    dir,
    "--rpc-bind-port",
    String(PORTS[net]),
    "--log-file",
    join(dir, "wallet-rpc.log"),
    "--shared-ringdb-dir",
    join(dir, "ringdb"),
  ];
  if (net !== "mainnet") args.push(`--${net}`);
  const child = spawn(BIN, args, { stdio: ["ignore", "ignore", "pipe"] });
  children.push({ child, dir });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const url = `http://127.0.0.1:${PORTS[net]}/json_rpc`;
  const call = async (method, params = {}) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }),
    });
    // u64 values above 2^53 (amounts) are kept exact by storing them as decimal strings.
    const text = await res.text();
    const body = JSON.parse(
      text.replace(/(:\s*)(\d{16,})(?=\s*[,}\]\n])/g, (m, p, d) => (BigInt(d) > BigInt(Number.MAX_SAFE_INTEGER) ? `${p}"${d}"` : m)),
    );
    return "error" in body ? { method, params, error: body.error } : { method, params, result: body.result };
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`monero-wallet-rpc (${net}) exited: ${stderr}`);
    try {
      await call("get_languages");
      return call;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`monero-wallet-rpc (${net}) did not answer on port ${PORTS[net]}`);
}
async function stopAll() {
  for (const { child, dir } of children) {
    if (child.exitCode === null) {
      const done = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 10000);
      await done;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

let fileCounter = 0;
const fname = (p) => `${p}-${++fileCounter}`;

/** Keys and primary address of the open wallet. */
async function walletKeys(call) {
  return {
    mnemonic: await call("query_key", { key_type: "mnemonic" }),
    spend_key: await call("query_key", { key_type: "spend_key" }),
    view_key: await call("query_key", { key_type: "view_key" }),
    get_address: await call("get_address", { account_index: 0 }),
  };
}

function write(name, data) {
  writeFileSync(join(OUT, name), `${JSON.stringify(data, null, 2)}\n`);
  console.log(`wrote ${join(OUT, name)}`);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const main = await startWallet("mainnet");
  const test = await startWallet("testnet");
  const stage = await startWallet("stagenet");
  const recordedBy = (await main("get_version")).result;

  // ---- languages ----
  write("languages.json", { recordedBy, get_languages: await main("get_languages") });

  // ---- create_wallet in every language (random) + bad language names ----
  const langs = (await main("get_languages")).result.languages_local;
  const created = [];
  for (const language of langs) {
    const create = await main("create_wallet", { filename: fname("create"), password: "", language });
    created.push({ language, create_wallet: create, ...(await walletKeys(main)) });
  }
  const createErrors = [];
  for (const language of ["german", "Klingon", "", "EnglishOld", "English (old)", "German"]) {
    createErrors.push(await main("create_wallet", { filename: fname("create"), password: "", language }));
  }
  write("create-wallets.json", { recordedBy, wallets: created, errors: createErrors });

  // ---- restores: fixed seeds in all languages, offsets, odd forms, old English, bad seeds ----
  const restores = [];
  const restore = async (call, net, label, params) => {
    const r = await call("restore_deterministic_wallet", { filename: fname("restore"), password: "", ...params });
    const entry = { label, net, restore_deterministic_wallet: r };
    if (r.result) Object.assign(entry, await walletKeys(call));
    restores.push(entry);
    return entry;
  };
  for (const [label, seed] of Object.entries(SEEDS)) await restore(main, "mainnet", `seed ${label}`, { seed });
  for (const [label, seed] of Object.entries(EDGE_SEEDS)) await restore(main, "mainnet", `edge seed ${label}`, { seed });
  for (const seed_offset of ["a", "test passphrase", "пароль", " spaced ", "x".repeat(100)]) {
    await restore(main, "mainnet", `seed_offset ${JSON.stringify(seed_offset)}`, { seed: SEEDS.English, seed_offset });
  }
  await restore(main, "mainnet", "seed_offset on a Japanese seed", { seed: SEEDS.日本語, seed_offset: "ひみつ" });
  await restore(test, "testnet", "testnet English", { seed: SEEDS.English });
  await restore(stage, "stagenet", "stagenet English", { seed: SEEDS.English });
  await restore(test, "testnet", "testnet seed_offset", { seed: SEEDS.English2, seed_offset: "tsmonero" });
  const en = SEEDS.English.split(" ");
  const en2 = SEEDS.English2.split(" ");
  await restore(main, "mainnet", "upper-case English", { seed: SEEDS.English.toUpperCase() });
  await restore(main, "mainnet", "English prefixes only", { seed: en.map((w) => w.slice(0, 3)).join(" ") });
  await restore(main, "mainnet", "English prefixes plus junk", { seed: en.map((w) => `${w.slice(0, 3)}zzz`).join(" ") });
  await restore(main, "mainnet", "extra whitespace", { seed: `  ${en.slice(0, 10).join("\t")}\n${en.slice(10).join("   ")}  ` });
  await restore(main, "mainnet", "German lower-case", { seed: SEEDS.Deutsch.toLowerCase() });
  await restore(main, "mainnet", "German upper-case (non-ASCII letters)", { seed: SEEDS.Deutsch.toUpperCase() });
  await restore(main, "mainnet", "Spanish NFD accents", { seed: SEEDS.Español.normalize("NFD") });
  await restore(main, "mainnet", "Japanese ideographic spaces", { seed: SEEDS.日本語.split(" ").join("\u3000") });
  await restore(main, "mainnet", "English with language ignored", { seed: SEEDS.English, language: "Deutsch" });
  await restore(main, "mainnet", "24 words (no checksum word)", { seed: en.slice(0, 24).join(" ") });
  await restore(main, "mainnet", "12 words", { seed: en.slice(0, 12).join(" ") });
  await restore(main, "mainnet", "12 words, second", { seed: en2.slice(0, 12).join(" ") });
  // English (old): Electrum's list; 24/25/12 words, with and without a new language.
  const oldWords = ["like", "just", "love", "know", "never", "want", "time", "out", "there", "make", "look", "eye"];
  const old24 = Array.from({ length: 24 }, (_, i) => oldWords[(i * 7) % 12]).join(" ");
  await restore(main, "mainnet", "English (old) 24 words without language", { seed: old24 });
  await restore(main, "mainnet", "English (old) 24 words, language English", { seed: old24, language: "English" });
  await restore(main, "mainnet", "English (old) 24 words, bad language", { seed: old24, language: "Klingon" });
  await restore(main, "mainnet", "English (old) 12 words, language Deutsch", { seed: oldWords.join(" "), language: "Deutsch" });
  // bad seeds
  const swap = (words, i, w) => words.map((x, k) => (k === i ? w : x)).join(" ");
  await restore(main, "mainnet", "wrong checksum word", { seed: swap(en, 24, en[0] === "abbey" ? "zoom" : "abbey") });
  await restore(main, "mainnet", "checksum word from another position", { seed: swap(en, 24, en[3]) });
  await restore(main, "mainnet", "unknown word", { seed: swap(en, 3, "notaword") });
  await restore(main, "mainnet", "23 words", { seed: en.slice(0, 23).join(" ") });
  await restore(main, "mainnet", "26 words", { seed: [...en, en[0]].join(" ") });
  await restore(main, "mainnet", "mixed languages", { seed: swap(en, 5, "abandon") });
  await restore(main, "mainnet", "mixed languages, whole French word list half", {
    seed: [...en.slice(0, 12), ...SEEDS.Français.split(" ").slice(12)].join(" "),
  });
  await restore(main, "mainnet", "empty seed", { seed: "" });
  await restore(main, "mainnet", "whitespace seed", { seed: "   " });
  await restore(main, "mainnet", "invalid word triple", { seed: swap(en, 1, "zoom") });
  write("restores.json", { recordedBy, restores });

  // ---- generate_from_keys ----
  const base = restores.find((r) => r.label === "seed English");
  const spend = base.spend_key.result.key;
  const view = base.view_key.result.key;
  const addr = base.get_address.result.address;
  const sub = restores.find((r) => r.label === "seed English2");
  const fromKeys = [];
  const gfk = async (call, net, label, params) => {
    const r = await call("generate_from_keys", { filename: fname("keys"), password: "", ...params });
    const entry = { label, net, generate_from_keys: r };
    if (r.result) Object.assign(entry, await walletKeys(call), { get_address_0_0_to_4: await call("get_address", { account_index: 0, address_index: [0] }) });
    fromKeys.push(entry);
  };
  await gfk(main, "mainnet", "spend + view", { address: addr, spendkey: spend, viewkey: view });
  await gfk(main, "mainnet", "spend + view + language", { address: addr, spendkey: spend, viewkey: view, language: "Italiano" });
  await gfk(main, "mainnet", "view-only", { address: addr, viewkey: view });
  await gfk(main, "mainnet", "view-only + language", { address: addr, viewkey: view, language: "English" });
  await gfk(main, "mainnet", "spend key not matching the address", { address: sub.get_address.result.address, spendkey: spend, viewkey: view });
  await gfk(main, "mainnet", "view key not derived from spend key", { address: addr, spendkey: spend, viewkey: sub.view_key.result.key, language: "English" });
  await gfk(main, "mainnet", "bad view key hex", { address: addr, viewkey: "zz" });
  await gfk(main, "mainnet", "short view key", { address: addr, viewkey: view.slice(0, 62) });
  await gfk(main, "mainnet", "bad spend key hex", { address: addr, spendkey: "00", viewkey: view });
  await gfk(main, "mainnet", "missing view key", { address: addr, spendkey: spend });
  await gfk(main, "mainnet", "missing address", { viewkey: view });
  await gfk(main, "mainnet", "bad address", { address: `${addr.slice(0, -1)}1`, viewkey: view });
  await gfk(main, "mainnet", "bad language", { address: addr, spendkey: spend, viewkey: view, language: "Klingon" });
  const testAddr = restores.find((r) => r.label === "testnet English").get_address.result.address;
  await gfk(main, "mainnet", "testnet address on mainnet", { address: testAddr, viewkey: view });
  await gfk(test, "testnet", "testnet spend + view", { address: testAddr, spendkey: spend, viewkey: view });
  write("from-keys.json", { recordedBy, cases: fromKeys });

  // ---- subaddresses: accounts and many addresses on a fixed seed ----
  await main("restore_deterministic_wallet", { filename: fname("sub"), password: "", seed: SEEDS.English });
  const subExchanges = [];
  for (let i = 0; i < 6; i++) subExchanges.push(await main("create_account", { label: `acct ${i + 1}` }));
  for (let i = 0; i < 5; i++) subExchanges.push(await main("create_address", { account_index: 0, count: 64 }));
  subExchanges.push(await main("create_address", { account_index: 3, count: 64 }));
  subExchanges.push(await main("create_address", { account_index: 6, count: 10, label: "x" }));
  subExchanges.push(await main("create_address", { account_index: 1, count: 0 }));
  subExchanges.push(await main("create_address", { account_index: 1, count: 65 }));
  subExchanges.push(await main("create_address", { account_index: 99, count: 1 }));
  const getAddresses = [];
  for (let a = 0; a <= 6; a++) getAddresses.push(await main("get_address", { account_index: a }));
  getAddresses.push(await main("get_address", { account_index: 7 }));
  getAddresses.push(await main("get_address", { account_index: 0, address_index: [5, 1, 300] }));
  getAddresses.push(await main("get_address", { account_index: 0, address_index: [400] }));
  // get_address_index: created ones, ones inside the lookahead (50 accounts × 200), and beyond it.
  const created0 = getAddresses[0].result.addresses;
  const indexQueries = [];
  for (const i of [0, 1, 63, 200, 319]) indexQueries.push(await main("get_address_index", { address: created0[i].address }));
  indexQueries.push(await main("get_address_index", { address: getAddresses[3].result.addresses[64].address }));
  // Addresses from a second wallet of the same seed which has more subaddresses, to probe the lookahead.
  await main("restore_deterministic_wallet", { filename: fname("sub-far"), password: "", seed: SEEDS.English });
  for (let i = 0; i < 60; i++) await main("create_account", {});
  const farAccounts = [];
  for (const a of [10, 55, 56, 60]) farAccounts.push(await main("get_address", { account_index: a, address_index: [0] }));
  for (let i = 0; i < 8; i++) await main("create_address", { account_index: 1, count: 64 });
  const farMinor = await main("get_address", { account_index: 1, address_index: [199, 200, 300, 512] });
  await main("restore_deterministic_wallet", { filename: fname("sub-probe"), password: "", seed: SEEDS.English });
  for (const r of [...farAccounts, farMinor]) {
    for (const a of r.result.addresses) indexQueries.push(await main("get_address_index", { address: a.address }));
  }
  indexQueries.push(await main("get_address_index", { address: restores.find((r) => r.label === "seed English2").get_address.result.address }));
  indexQueries.push(await main("get_address_index", { address: "notanaddress" }));
  write("subaddresses.json", {
    recordedBy,
    seed: SEEDS.English,
    spend_key: spend,
    view_key: view,
    creates: subExchanges,
    get_address: getAddresses,
    far: { accounts: farAccounts, minor: farMinor },
    get_address_index: indexQueries,
  });

  // ---- addresses of every network, crafted bad ones, validate_address ----
  const nets = { mainnet: main, testnet: test, stagenet: stage };
  const samples = {};
  for (const [net, call] of Object.entries(nets)) {
    await call("restore_deterministic_wallet", { filename: fname(`v-${net}`), password: "", seed: SEEDS.English });
    await call("create_account", {});
    const standard = (await call("get_address", { account_index: 0 })).result.address;
    const subaddress = (await call("create_address", { account_index: 0 })).result.address;
    const subaddressAcct = (await call("get_address", { account_index: 1 })).result.address;
    const integrated = (await call("make_integrated_address", { payment_id: "0123456789abcdef" })).result.integrated_address;
    samples[net] = { standard, subaddress, subaddressAcct, integrated };
  }
  const m = samples.mainnet;
  const d = addressData(m.standard);
  const badPoint = new Uint8Array(32).fill(0xff); // y = 2^255−1 … does not decompress
  const tamper = (s, i) => s.slice(0, i) + (s[i] === "2" ? "3" : "2") + s.slice(i + 1);
  const addrCases = {
    ...Object.fromEntries(Object.entries(samples).flatMap(([net, s]) => Object.entries(s).map(([k, v]) => [`${net} ${k}`, v]))),
    "bad checksum (crafted)": craftAddress(18, d, { badChecksum: true }),
    "one character changed": tamper(m.standard, 50),
    "first character changed": tamper(m.standard, 0),
    "last character changed": tamper(m.standard, 94),
    "truncated by one": m.standard.slice(0, -1),
    "truncated by eleven": m.standard.slice(0, -11),
    "one character appended": `${m.standard}1`,
    "invalid base58 character 0": `${m.standard.slice(0, 10)}0${m.standard.slice(11)}`,
    "invalid base58 character l": `${m.standard.slice(0, 10)}l${m.standard.slice(11)}`,
    "empty string": "",
    "spaces around": ` ${m.standard} `,
    "unknown prefix 17": craftAddress(17, d),
    "unknown prefix 0": craftAddress(0, d),
    "large prefix 300": craftAddress(300, d),
    "standard prefix with 72 bytes": craftAddress(18, Uint8Array.from([...d, 1, 2, 3, 4, 5, 6, 7, 8])),
    "integrated prefix with 64 bytes": craftAddress(19, d),
    "standard prefix with 63 bytes": craftAddress(18, d.subarray(0, 63)),
    "subaddress prefix with 65 bytes": craftAddress(42, Uint8Array.from([...d, 0])),
    "spend key not on curve": craftAddress(18, Uint8Array.from([...badPoint, ...d.subarray(32)])),
    "view key not on curve": craftAddress(18, Uint8Array.from([...d.subarray(0, 32), ...badPoint])),
    "non-canonical y (p+1) view key": craftAddress(
      18,
      Uint8Array.from([...d.subarray(0, 32), 0xee, ...new Uint8Array(30).fill(0xff), 0x7f]),
    ),
    "identity keys": craftAddress(18, Uint8Array.from([1, ...new Uint8Array(31), 1, ...new Uint8Array(31)])),
    "old hex format (132 hex chars)": (() => {
      const blob = Uint8Array.from([0, ...d, 0]);
      blob[65] = blob.subarray(0, 65).reduce((a, b) => (a + b) & 0xff, 0);
      return Buffer.from(blob).toString("hex");
    })(),
    "old hex format bad checksum": Buffer.from(Uint8Array.from([0, ...d, 7])).toString("hex"),
    "old hex format version 1": (() => {
      const blob = Uint8Array.from([1, ...d, 0]);
      blob[65] = blob.subarray(0, 65).reduce((a, b) => (a + b) & 0xff, 0);
      return Buffer.from(blob).toString("hex");
    })(),
    "lower-cased": m.standard.toLowerCase(),
    "integrated address with zero payment id": craftAddress(19, Uint8Array.from([...d, ...new Uint8Array(8)])),
  };
  const validate = [];
  for (const [label, address] of Object.entries(addrCases)) {
    for (const [net, call] of Object.entries(nets)) {
      validate.push({ label, net, ...(await call("validate_address", { address })) });
    }
    validate.push({ label, net: "mainnet", ...(await main("validate_address", { address, any_net_type: true })) });
  }
  write("addresses.json", { recordedBy, samples, cases: addrCases, validate_address: validate });

  // ---- integrated addresses and payment ids ----
  await main("restore_deterministic_wallet", { filename: fname("integ"), password: "", seed: SEEDS.English });
  const other = restores.find((r) => r.label === "seed English2").get_address.result.address;
  const integ = [];
  for (const payment_id of ["0123456789abcdef", "0000000000000000", "FFFFFFFFFFFFFFFF", "ffffffffffffffff"]) {
    integ.push(await main("make_integrated_address", { payment_id }));
    integ.push(await main("make_integrated_address", { payment_id, standard_address: other }));
  }
  const bads = ["0123", "0123456789abcdeg", "0123456789abcdef00", `${"ab".repeat(32)}`, " 0123456789abcdef", "0x23456789abcdef"];
  for (const payment_id of bads) integ.push(await main("make_integrated_address", { payment_id }));
  integ.push(await main("make_integrated_address", { payment_id: "0123456789abcdef", standard_address: samples.mainnet.subaddress }));
  integ.push(await main("make_integrated_address", { payment_id: "0123456789abcdef", standard_address: samples.mainnet.integrated }));
  integ.push(await main("make_integrated_address", { payment_id: "0123456789abcdef", standard_address: samples.testnet.standard }));
  integ.push(await main("make_integrated_address", { payment_id: "0123456789abcdef", standard_address: "bad" }));
  const randomPid = await main("make_integrated_address", {});
  const split = [];
  for (const a of [...integ.filter((x) => x.result).map((x) => x.result.integrated_address), addrCases["integrated address with zero payment id"]]) {
    split.push(await main("split_integrated_address", { integrated_address: a }));
  }
  for (const a of [samples.mainnet.standard, samples.mainnet.subaddress, samples.testnet.integrated, "bad", ""]) {
    split.push(await main("split_integrated_address", { integrated_address: a }));
  }
  const testInteg = await test("make_integrated_address", { payment_id: "0123456789abcdef" });
  const stageSplit = await stage("split_integrated_address", { integrated_address: samples.stagenet.integrated });
  write("integrated.json", {
    recordedBy,
    wallet_address: samples.mainnet.standard,
    make_integrated_address: integ,
    random_payment_id: randomPid,
    split_integrated_address: split,
    testnet: { make_integrated_address: testInteg, split_integrated_address: stageSplit, stagenet_wallet_address: samples.stagenet.standard },
  });

  // ---- payment URIs ----
  const uri = [];
  const mk = async (params) => uri.push(await main("make_uri", params));
  const A = samples.mainnet.standard;
  await mk({ address: A });
  await mk({ address: A, amount: 1 });
  await mk({ address: A, amount: 1000000000000 });
  await mk({ address: A, amount: 123456789012345 });
  await mk({ address: A, amount: 9007199254740991 });
  await mk({ address: A, recipient_name: "Alice Smith", tx_description: "Lunch & coffee: 50% off? #1 <b> \"quoted\" 'single' é 日本 ~{}|" });
  await mk({ address: A, amount: 250000000000, recipient_name: "Bob", tx_description: "donation" });
  await mk({ address: A, tx_description: "a=b&c=d/e?f+g$h,i@j;k!l" });
  await mk({ address: A, tx_description: "\t\n\r\u007f" });
  await mk({ address: samples.mainnet.integrated, amount: 5 });
  await mk({ address: samples.mainnet.subaddress, recipient_name: "sub" });
  await mk({ address: A, payment_id: "0123456789abcdef" });
  await mk({ address: A, payment_id: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" });
  await mk({ address: samples.mainnet.integrated, payment_id: "0123456789abcdef" });
  await mk({ address: "bad" });
  await mk({ address: samples.testnet.standard });
  await mk({ address: "" });
  const pu = [];
  const parse = async (u) => pu.push(await main("parse_uri", { uri: u }));
  for (const made of uri.filter((x) => x.result)) await parse(made.result.uri);
  await parse(`monero:${A}`);
  await parse(`monero:${A}?`);
  await parse(`monero:${A}?tx_amount=1.5`);
  await parse(`monero:${A}?tx_amount=0.000000000001`);
  await parse(`monero:${A}?tx_amount=0.0000000000001`);
  await parse(`monero:${A}?tx_amount=0.0000000000010000`);
  await parse(`monero:${A}?tx_amount=18446744.073709551615`);
  await parse(`monero:${A}?tx_amount=18446744.073709551616`);
  await parse(`monero:${A}?tx_amount=.5`);
  await parse(`monero:${A}?tx_amount=5.`);
  await parse(`monero:${A}?tx_amount=.`);
  await parse(`monero:${A}?tx_amount=`);
  await parse(`monero:${A}?tx_amount=-1`);
  await parse(`monero:${A}?tx_amount=1e3`);
  await parse(`monero:${A}?tx_amount=%201`);
  await parse(`monero:${A}?tx_amount= 1 `);
  await parse(`monero:${A}?tx_amount=1.2.3`);
  await parse(`monero:${A}?tx_amount=0012`);
  await parse(`monero:${A}?tx_amount=1&tx_amount=2`);
  await parse(`monero:${A}?tx_payment_id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`);
  await parse(`monero:${A}?tx_payment_id=0123456789abcdef`);
  await parse(`monero:${A}?tx_payment_id=zz`);
  await parse(`monero:${samples.mainnet.integrated}?tx_payment_id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef`);
  await parse(`monero:${A}?recipient_name=A%20B%2x%41%4&tx_description=%E6%97%A5%e6%9c%ac`);
  await parse(`monero:${A}?recipient_name=a+b%`);
  await parse(`monero:${A}?tx_description=x%41`);
  await parse(`monero:${A}?tx_description=x%4`);
  await parse(`monero:${A}?foo=bar&tx_amount=2&baz=&qux=1`);
  await parse(`monero:${A}?foo`);
  await parse(`monero:${A}?a=b=c`);
  await parse(`monero:${A}?tx_amount=1&&x=1`);
  await parse(`monero:${A}?=`);
  await parse(`monero:${A}&tx_amount=1`);
  await parse(`monero:${A}?tx_description=a?b`);
  await parse(`MONERO:${A}`);
  await parse(`monero://${A}`);
  await parse("monero:");
  await parse("monero:bad?tx_amount=1");
  await parse(`monero:${samples.testnet.standard}`);
  await parse(`bitcoin:${A}`);
  await parse("");
  write("uri.json", { recordedBy, make_uri: uri, parse_uri: pu });
}

try {
  await main();
} finally {
  await stopAll();
}
