/**
 * tsmonero-wallet-rpc's method table over a real WalletService and RpcServer (offline: no node), on
 * real wallet files in a temp dir: every spec method is known (never -32601), bad input of every
 * method answers the right code with a message saying what to fix, view-only wallets refuse what
 * monero-wallet-rpc refuses, a close/open round trip keeps the user's data, a wrong password is
 * refused, and SIGKILL of a process storing in a loop never leaves a wallet that does not open.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isJsonObject, type JsonValue, type JsonWritable, parseJson, stringifyJson } from "../src/rpc/json.js";
import { WalletService } from "../src/wallet/service/index.js";
import { OpenWallet } from "../src/wallet/service/wallet.js";
import { startWalletRpc, type WalletRpc } from "../src/wallet/rpc/index.js";
import { WALLET_SEEDS } from "./helpers/chain.js";
import { walletCall } from "./helpers/wallet-rpc.js";

const FAST_KDF = { log2N: 10, r: 8, p: 1 };
const PORT = 29210;
const RESTRICTED_PORT = 29211;

type Answer = { result?: Record<string, JsonValue>; error?: { code: number; message: string } };

async function call(url: string, method: string, params?: JsonWritable): Promise<Answer> {
  const body = stringifyJson(params === undefined ? { jsonrpc: "2.0", id: "1", method } : { jsonrpc: "2.0", id: "1", method, params });
  const r = await fetch(`${url}/json_rpc`, { method: "POST", body, headers: { "Content-Type": "application/json" } });
  assert.equal(r.status, 200, `${method}: HTTP ${r.status}`);
  const v = parseJson(await r.text());
  assert.ok(isJsonObject(v));
  return v as unknown as Answer;
}

/** A raw call that must succeed, for params the typed client does not take (nulls, a scalar where a list belongs); the rest go through walletCall. */
async function ok(url: string, method: string, params?: JsonWritable): Promise<Record<string, JsonValue>> {
  const a = await call(url, method, params);
  assert.equal(a.error, undefined, `${method} ${JSON.stringify(params, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))}: ${a.error?.message}`);
  assert.ok(a.result);
  return a.result;
}

/** A raw call that must fail with `code`: the server's error answers, to mistyped params among others. */
async function err(url: string, method: string, params: JsonWritable | undefined, code: number, message?: RegExp): Promise<string> {
  const a = await call(url, method, params);
  assert.ok(a.error, `${method} ${JSON.stringify(params)}: expected error ${code}, got result ${JSON.stringify(a.result, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))}`);
  assert.equal(a.error.code, code, `${method} ${JSON.stringify(params)}: ${a.error.message}`);
  if (message) assert.match(a.error.message, message, method);
  return a.error.message;
}

/** Every method of ../shared/spec/wallet-rpc.md and monero-wallet-rpc v0.18.0.0's map, with aliases. */
const SPEC_METHODS = [
  "set_daemon", "create_wallet", "open_wallet", "close_wallet", "generate_from_keys", "restore_deterministic_wallet",
  "change_wallet_password", "store", "stop_wallet", "get_languages", "query_key", "get_balance", "getbalance", "get_address",
  "getaddress", "get_address_index", "create_address", "label_address", "validate_address", "get_accounts", "create_account",
  "label_account", "get_account_tags", "tag_accounts", "untag_accounts", "set_account_tag_description", "get_height", "getheight",
  "make_integrated_address", "split_integrated_address", "transfer", "transfer_split", "sign_transfer", "submit_transfer",
  "sweep_dust", "sweep_unmixable", "sweep_all", "sweep_single", "relay_tx", "describe_transfer", "estimate_tx_size_and_weight",
  "freeze", "thaw", "frozen", "get_payments", "get_bulk_payments", "incoming_transfers", "get_transfers", "get_transfer_by_txid",
  "scan_tx", "refresh", "auto_refresh", "rescan_blockchain", "rescan_spent", "set_tx_notes", "get_tx_notes", "set_attribute",
  "get_attribute", "get_address_book", "add_address_book", "edit_address_book", "delete_address_book", "make_uri", "parse_uri",
  "get_tx_key", "check_tx_key", "get_tx_proof", "check_tx_proof", "get_spend_proof", "check_spend_proof", "get_reserve_proof",
  "check_reserve_proof", "sign", "verify", "export_outputs", "import_outputs", "export_key_images", "import_key_images",
  "is_multisig", "prepare_multisig", "make_multisig", "exchange_multisig_keys", "finalize_multisig", "export_multisig_info",
  "import_multisig_info", "sign_multisig", "submit_multisig", "start_mining", "stop_mining", "get_version", "set_log_level",
  "set_log_categories",
];
/** Methods that answer without an open wallet. */
const NO_WALLET_OK = new Set(["create_wallet", "open_wallet", "generate_from_keys", "restore_deterministic_wallet", "get_languages", "get_version", "auto_refresh", "validate_address", "set_log_level", "set_log_categories"]);

const ALICE = "alice";
const TXID = "a".repeat(64);
const ALICE_ADDRESS = "42PVxo9KFKV3fFwFsj2tD5RjWWqdvPLgtKD2PTbDSHbgDqF91eJg6bTFBy8Th3bQQaBhbjjYwrZdzKqJbGy83QU79rCUhNs";
const BOB = "484uskMavqB8o7ehUFn5Sq3Ze2Jew2Hq6LgsCZ3YzkqiZkSFcsSD5rwQshTNdRF4pJiUtUEzk4EegjCYiUGVWcsRD52LtH6";

describe("tsmonero-wallet-rpc methods (offline service, real files)", () => {
  let dir: string;
  let svc: WalletService;
  let rpc: WalletRpc;
  let restrictedRpc: WalletRpc;
  let url: string;
  /** The service's log lines (open_wallet's reasons). */
  const svcLog: string[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-rpc-"));
    svc = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: FAST_KDF, autoRefreshPeriod: 0, lookaheadMajor: 2, lookaheadMinor: 20, log: (m) => svcLog.push(m) });
    rpc = await startWalletRpc({ service: svc, port: PORT });
    restrictedRpc = await startWalletRpc({ service: svc, port: RESTRICTED_PORT, restricted: true });
    url = rpc.url;
  });
  after(async () => {
    await svc?.stop();
    await rpc?.close();
    await restrictedRpc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("knows every spec method; without a wallet they answer -13 (or work)", async () => {
    // raw: the spec's method names (aliases among them, which the typed map leaves out)
    for (const m of SPEC_METHODS) {
      const a = await call(url, m, {});
      assert.notEqual(a.error?.code, -32601, `${m} must not be "Method not found"`);
      if (!NO_WALLET_OK.has(m)) assert.deepEqual(a.error, { code: -13, message: "No wallet file" }, m);
    }
    await err(url, "no_such_method", {}, -32601, /Method not found/);
    assert.equal((await walletCall(url, "get_version")).version, 65561);
    const langs = await walletCall(url, "get_languages");
    assert.ok(Array.isArray(langs.languages) && langs.languages.includes("English"));
    await err(url, "validate_address", { address: "x" }, -13);
  });

  it("no -48 stubs are left: sign_multisig and submit_multisig are real methods, refused outside a multisig wallet", async () => {
    await walletCall(url, "restore_deterministic_wallet", { filename: "", password: "", seed: WALLET_SEEDS.alice, language: "English" });
    for (const m of ["sign_multisig", "submit_multisig"]) await err(url, m, { tx_data_hex: "00" }, -31, /^This wallet is not multisig$/);
    await walletCall(url, "close_wallet");
  });

  it("files: bad names, languages, seeds and keys answer Monero's codes", async () => {
    await err(url, "create_wallet", { filename: "a/b", password: "", language: "English" }, -1, /^Invalid filename$/);
    // an empty filename makes a wallet in memory only (monero-wallet-rpc does so): nothing is written
    await walletCall(url, "create_wallet", { filename: "", password: "", language: "English" });
    assert.match(String((await walletCall(url, "get_address")).address), /^4/);
    await walletCall(url, "store");
    await walletCall(url, "close_wallet");
    await err(url, "create_wallet", { filename: "x", password: "", language: "Klingon" }, -1, /^Unknown language: Klingon$/);
    await err(url, "create_wallet", { filename: "x", password: "" }, -1, /^Unknown language: $/);
    await err(url, "create_wallet", { filename: 5, language: "English" }, -32602, /filename: expected a string, found the number 5/);
    // monero-wallet-rpc's words, whatever the reason (the reason is in the service's log)
    await err(url, "open_wallet", { filename: "nobody", password: "" }, -1, /^Failed to open wallet$/);
    await err(url, "open_wallet", { filename: "", password: "" }, -1, /^Failed to open wallet$/);
    assert.match(svcLog.at(-1) ?? "", /^open_wallet "": Failed to open wallet: no wallet file name was given/);
    await err(url, "restore_deterministic_wallet", { filename: "r", password: "" }, -1, /field 'seed' is mandatory/);
    await err(url, "restore_deterministic_wallet", { filename: "r", password: "", seed: "not a seed" }, -1, /Electrum-style word list failed verification/);
    await err(url, "restore_deterministic_wallet", { filename: "r", seed: WALLET_SEEDS.alice, restore_height: -1 }, -32602, /restore_height: -1 is out of range/);
    await err(url, "generate_from_keys", { filename: "g" }, -1, /field 'viewkey' is mandatory/);
    await err(url, "generate_from_keys", { filename: "g", viewkey: "00" }, -1, /field 'address' is mandatory/);
    await err(url, "generate_from_keys", { filename: "g", viewkey: "00", address: "4xyz" }, -1, /^Failed to parse public address$/);
    assert.deepEqual(readdirSync(dir), [], "no refused call left a file");
  });

  it("restores alice; every wallet method's bad input answers the right code and says what to fix", async () => {
    const r = await walletCall(url, "restore_deterministic_wallet", { filename: ALICE, password: "pw", seed: WALLET_SEEDS.alice, language: "English" });
    assert.equal(r.info, "Wallet has been restored successfully.");
    assert.equal(r.was_deprecated, false);
    await err(url, "restore_deterministic_wallet", { filename: ALICE, password: "pw", seed: WALLET_SEEDS.alice }, -1, /^Wallet already exists\.$/);
    await err(url, "create_wallet", { filename: ALICE, password: "pw", language: "English" }, -21, /Cannot create wallet\. Already exists\./);
    // a null member counts as absent (epee skips nulls; Monero's Python client sends get_transfers' min_height: None)
    // raw (ok): nulls where the map has numbers and booleans
    const nulls = await ok(url, "get_transfers", { in: true, out: true, min_height: null, max_height: null, filter_by_height: null, account_index: 0 });
    assert.deepEqual(nulls, await walletCall(url, "get_transfers", { in: true, out: true }));
    assert.equal(((await ok(url, "get_address", { account_index: null, address_index: null })).addresses as unknown[]).length, 1);

    // mistyped params: -32602 naming the field, what it expects and what came
    const mistyped: [string, JsonWritable, RegExp][] = [
      ["get_balance", { account_index: "zero" }, /account_index: expected an unsigned 32-bit integer/],
      ["get_balance", { address_indices: ["a"] }, /address_indices\[0\]/],
      ["get_balance", { all_accounts: "yes" }, /all_accounts: expected true or false/],
      ["get_address", { account_index: -1 }, /account_index: -1 is out of range/],
      ["get_address", { address_index: [1, "a"] }, /address_index\[1\]/],
      ["create_address", { count: 1.5 }, /count: expected an unsigned 32-bit integer/],
      ["label_address", { index: 7 }, /index: expected an object/],
      ["label_address", { index: { major: "a" } }, /index\.major/],
      ["get_accounts", { regexp: 2 }, /regexp: expected true or false/],
      ["tag_accounts", { accounts: [-1] }, /accounts\[0\]: -1 is out of range/],
      ["get_transfers", { min_height: "x" }, /min_height: expected an unsigned 64-bit integer/],
      ["get_transfers", { subaddr_indices: [4294967296] }, /subaddr_indices\[0\]: 4294967296 is out of range/],
      ["incoming_transfers", { transfer_type: 1 }, /transfer_type: expected a string/],
      ["get_bulk_payments", { payment_ids: [1] }, /payment_ids\[0\]: expected a string/],
      ["set_tx_notes", { txids: [{}] }, /txids\[0\]: expected a string/],
      ["get_address_book", { entries: [-1] }, /entries\[0\]: -1 is out of range/],
      ["edit_address_book", { index: "one" }, /index: expected an unsigned 64-bit integer/],
      ["refresh", { start_height: true }, /start_height: expected an unsigned 64-bit integer/],
      ["auto_refresh", { period: -5 }, /period: -5 is out of range/],
      ["make_uri", { amount: "lots" }, /amount: expected an unsigned 64-bit integer/],
      ["start_mining", { threads_count: "x" }, /threads_count/],
      ["freeze", { key_image: 12 }, /key_image: expected a string/],
      ["query_key", { key_type: 7 }, /key_type: expected a string/],
    ];
    for (const [m, p, re] of mistyped) await err(url, m, p, -32602, re);
    // a list param that is not an array is ignored, as epee does (get_address {"address_index": 0} is all of them); raw (ok): the scalar where the map has a list
    assert.deepEqual(await ok(url, "get_address", { account_index: 0, address_index: 0 }), await walletCall(url, "get_address", { account_index: 0 }));
    assert.deepEqual(await ok(url, "get_balance", { address_indices: 3 }), await walletCall(url, "get_balance", {}));
    await ok(url, "tag_accounts", { tag: "t", accounts: "0" });
    // null is absent: query_key answers what monero-wallet-rpc answers for an empty key_type
    await err(url, "query_key", { key_type: null }, 0, /^key_type {2}not found$/);
    // a params value that is not an object
    await err(url, "get_balance", "nope" as JsonWritable, -32602, /expected an object/);

    // out of range and malformed values: Monero's codes and messages
    await err(url, "get_address", { account_index: 1 }, -14, /^account index is out of bound$/);
    await err(url, "get_address", { address_index: [0, 5] }, -15, /^address index is out of bound$/);
    await err(url, "create_address", { count: 0 }, -1, /^Count must be between 1 and 64\.$/);
    await err(url, "create_address", { count: 65 }, -1, /Count must be between 1 and 64/);
    await err(url, "create_address", { account_index: 3 }, -14);
    await err(url, "label_address", { index: { major: 0, minor: 9 }, label: "x" }, -15);
    await err(url, "label_address", { index: { major: 9, minor: 0 }, label: "x" }, -14);
    await err(url, "label_account", { account_index: 9, label: "x" }, -14);
    await err(url, "get_address_index", { address: "nonsense" }, -2, /^Invalid address$/);
    await err(url, "get_address_index", { address: BOB }, -2, /Address doesn't belong to the wallet/);
    await err(url, "get_accounts", { tag: "nope" }, -1, /^Tag nope is unregistered\.$/);
    await err(url, "get_accounts", { tag: "nope", regexp: true }, -1, /^No matches for regex filter nope \.$/);
    await err(url, "get_accounts", { tag: "(", regexp: true }, -1, /Invalid regular expression/);
    await err(url, "tag_accounts", { tag: "t", accounts: [0, 4] }, -1, /Account index out of bound/);
    await err(url, "set_account_tag_description", { tag: "", description: "d" }, -1, /^Tag must not be empty$/);
    await err(url, "set_account_tag_description", { tag: "zzz", description: "d" }, -1, /^Tag is unregistered$/);
    await err(url, "freeze", { key_image: "" }, -1, /^Must specify key image to freeze$/);
    await err(url, "thaw", {}, -1, /^Must specify key image to thaw$/);
    await err(url, "frozen", {}, -1, /^Must specify key image to check if frozen$/);
    await err(url, "freeze", { key_image: "zz" }, -10, /^failed to parse key image$/);
    await err(url, "freeze", { key_image: TXID }, -1, /^Key image not found$/);
    await err(url, "make_integrated_address", { payment_id: "123" }, -5, /^Invalid payment ID$/);
    await err(url, "make_integrated_address", { standard_address: "bad" }, -2, /^Invalid address$/);
    await err(url, "split_integrated_address", { integrated_address: "bad" }, -2, /^Invalid address$/);
    const primary = (await walletCall(url, "get_address")).address;
    assert.equal(primary, ALICE_ADDRESS);
    await err(url, "split_integrated_address", { integrated_address: primary }, -2, /^Address is not an integrated address$/);
    await err(url, "incoming_transfers", { transfer_type: "some" }, -6, /^Transfer type must be one of: all, available, or unavailable$/);
    await err(url, "get_payments", { payment_id: "xyz" }, -5, /^Payment ID has invalid format$/);
    await err(url, "get_payments", { payment_id: "0011" }, -5, /^Payment ID has invalid size: 0011$/);
    await err(url, "get_bulk_payments", { payment_ids: ["00"] }, -5, /^Payment ID has invalid size: 00$/);
    await err(url, "get_bulk_payments", { payment_ids: ["zz".repeat(8)] }, -5, /^Payment ID has invalid format: /);
    await err(url, "get_transfer_by_txid", { txid: "xyz" }, -8, /^Transaction ID has invalid format$/);
    await err(url, "get_transfer_by_txid", { txid: "00" }, -8, /^Transaction ID has invalid size: 00$/);
    await err(url, "get_transfer_by_txid", { txid: TXID, account_index: 4 }, -14, /Account index is out of bound/);
    await err(url, "get_transfer_by_txid", { txid: TXID }, -8, /^Transaction not found\.$/);
    await err(url, "set_tx_notes", { txids: [TXID], notes: [] }, -1, /^Different amount of txids and notes$/);
    await err(url, "set_tx_notes", { txids: ["00"], notes: ["n"] }, -8, /^TX ID has invalid format$/);
    await err(url, "get_tx_notes", { txids: ["g"] }, -8, /^TX ID has invalid format$/);
    await err(url, "scan_tx", { txids: ["00"] }, -8, /^TX ID has invalid format$/);
    await err(url, "scan_tx", { txids: [TXID] }, -38, /offline/);
    await err(url, "rescan_spent", {}, -38, /offline/);
    await err(url, "get_attribute", { key: "missing" }, -45, /^Attribute not found\.$/);
    await err(url, "get_address_book", { entries: [0] }, -12, /^Index out of range: 0$/);
    await err(url, "edit_address_book", { index: 0 }, -12, /^Index out of range: 0$/);
    await err(url, "delete_address_book", { index: 3 }, -12, /^Index out of range: 3$/);
    await err(url, "add_address_book", { address: "nonsense" }, -2, /^WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: nonsense$/);
    await err(url, "make_uri", { address: "bad" }, -11, /^Cannot make URI from supplied parameters: /);
    await err(url, "parse_uri", { uri: "http://x" }, -11, /^Error parsing URI: /);
    await err(url, "query_key", { key_type: "other" }, 0, /^key_type other not found$/);
    await err(url, "start_mining", { threads_count: 1 }, -1, /^This command requires a trusted daemon\.$/);
    await err(url, "stop_mining", {}, -1, /^Couldn't stop mining due to unknown error\.$/);
    await err(url, "set_daemon", { address: "127.0.0.1:1", ssl_support: "maybe" }, -38, /^Invalid ssl support mode$/);
    await err(url, "set_daemon", { address: "127.0.0.1:1", ssl_support: "enabled" }, -38, /SSL is enabled but no user certificate or fingerprints were provided/);
    await err(url, "set_log_level", { level: 9 }, -44, /^Error: log level not valid$/);
    await err(url, "change_wallet_password", { old_password: "wrong", new_password: "x" }, -22, /^Invalid original password\.$/);
    for (const m of ["submit_multisig", "sign_multisig"]) await err(url, m, { tx_data_hex: "00" }, -31, /^This wallet is not multisig$/);
    // outputs, key images and cold signing: bad input answers monero-wallet-rpc's codes
    await err(url, "import_outputs", { outputs_data_hex: "zz" }, -26, /^Failed to parse hex\.$/);
    await err(url, "import_outputs", { outputs_data_hex: "00" }, -1, /Bad magic from outputs/);
    await err(url, "import_key_images", { signed_key_images: [{ key_image: "00", signature: "" }] }, -1, /^This command requires a trusted daemon\.$/);
    await err(url, "sign_transfer", { unsigned_txset: "zz" }, -26, /^Failed to parse hex\.$/);
    await err(url, "sign_transfer", { unsigned_txset: "00" }, -39, /^cannot load unsigned_txset: Bad magic/);
    await err(url, "describe_transfer", {}, -1, /^no txset provided$/);
    await err(url, "submit_transfer", { tx_data_hex: "00" }, -40, /^Failed to parse signed tx data: Bad magic/);
    // spending: validate_transfer and each method's own checks, in monero-wallet-rpc's order and codes
    const own = (await walletCall(url, "get_address")).address;
    await err(url, "transfer", { destinations: [] }, -20, /^Transaction has no destination$/);
    await err(url, "transfer", { destinations: [{ address: "4nope", amount: 1 }] }, -2, /^WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: 4nope/);
    await err(url, "transfer", { destinations: [{ address: own, amount: 1 }], payment_id: "1234567812345678" }, -5, /^Standalone payment IDs are obsolete/);
    await err(url, "transfer", { destinations: [{ address: own, amount: 1 }] }, -38, /no connection to daemon/); // this service is offline
    await err(url, "sweep_all", { address: own, outputs: 0 }, -16, /^Amount of outputs should be greater than 0\.$/);
    await err(url, "sweep_single", { address: own, key_image: "zz" }, -10, /^failed to parse key image$/);
    await err(url, "get_tx_key", { txid: "00" }, -8, /^TX ID has invalid format$/);
    await err(url, "get_tx_key", { txid: "11".repeat(32) }, -24, /^No tx secret key is stored for this tx$/);
    await err(url, "check_tx_key", { txid: "11".repeat(32), tx_key: "12", address: own }, -25, /^Tx key has invalid format$/);
    await err(url, "relay_tx", { hex: "x" }, -26, /^Failed to parse hex\.$/);
    await err(url, "relay_tx", { hex: "00" }, -27, /^Failed to parse tx metadata/);
    const sw = await walletCall(url, "estimate_tx_size_and_weight", { n_inputs: 1, n_outputs: 2, ring_size: 16, rct: true });
    assert.deepEqual([Number(sw.size), Number(sw.weight)], [1536, 1536]); // what monero-wallet-rpc 0.18.0.0 answers

    // the service still answers after all that
    assert.equal((await walletCall(url, "get_height")).height, 1, "a wallet that has not refreshed answers 1 (genesis), as monero-wallet-rpc");
  });

  it("junk params never crash the service: every spec method answers a JSON-RPC error or a result", async () => {
    const junk: JsonWritable[] = [
      null,
      [1, 2],
      "x",
      12,
      { account_index: {}, address_index: [[]], index: -1, txids: [null], key_image: [], filename: {}, amount: 1e300 },
      { account_index: 4294967295, address_indices: [4294967295], count: 4294967295, subaddr_indices: [0, 0, 0], entries: [18446744073709551615n] },
      { in: true, out: true, pool: true, pending: true, failed: true, filter_by_height: true, min_height: 18446744073709551615n, max_height: 0 },
      JSON.parse('{"a":{"b":{"c":{"d":{"e":[[[[[[1]]]]]]}}}}}') as JsonWritable,
    ];
    // on a wallet of its own (the junk creates accounts and labels); set_daemon would leave offline mode
    await walletCall(url, "create_wallet", { filename: "junk", password: "", language: "English" });
    const skip = new Set(["stop_wallet", "close_wallet", "set_daemon"]);
    for (const m of SPEC_METHODS) {
      if (skip.has(m)) continue;
      for (const p of junk) {
        // raw: junk params
        const a = await call(url, m, p);
        assert.ok((a.error && typeof a.error.code === "number" && a.error.message.length > 0) || a.result, `${m}: ${JSON.stringify(a)}`);
        if (a.error) assert.notEqual(a.error.code, -32603, `${m}: an internal error (${a.error.message})`);
      }
    }
    assert.equal((await walletCall(url, "get_version")).version, 65561);
    assert.ok(svc.hasWallet, "the wallet is still open");
    await walletCall(url, "open_wallet", { filename: ALICE, password: "pw" });
  });

  it("restricted mode refuses what monero-wallet-rpc --restricted-rpc refuses, after the open-wallet check", async () => {
    const r = restrictedRpc.url;
    for (const m of ["store", "query_key", "get_transfers", "get_transfer_by_txid", "set_tx_notes", "set_attribute", "get_attribute", "refresh", "auto_refresh", "rescan_blockchain", "rescan_spent", "scan_tx", "add_address_book", "edit_address_book", "delete_address_book", "change_wallet_password", "set_daemon", "stop_wallet", "transfer"])
      await err(r, m, {}, -7, /^Command unavailable in restricted mode\.$/);
    assert.ok((await walletCall(r, "get_balance")).balance === 0);
  });

  it("user data survives close/open: labels, accounts, tags, notes, attributes, address book; a wrong password is refused", async () => {
    const sub = await walletCall(url, "create_address", { account_index: 0, label: "shop", count: 2 });
    assert.deepEqual(sub.address_indices, [1, 2]);
    const acct = await walletCall(url, "create_account", { label: "savings" });
    assert.equal(acct.account_index, 1);
    await walletCall(url, "label_address", { index: { major: 0, minor: 2 }, label: "relabelled" });
    await walletCall(url, "label_account", { account_index: 0, label: "Main" });
    await walletCall(url, "tag_accounts", { tag: "vault", accounts: [1] });
    await walletCall(url, "set_account_tag_description", { tag: "vault", description: "cold" });
    await walletCall(url, "set_tx_notes", { txids: [TXID], notes: ["rent"] });
    await walletCall(url, "set_attribute", { key: "colour", value: "blue" });
    const bobAddress = BOB;
    const book = await walletCall(url, "add_address_book", { address: bobAddress, description: "bob" });
    assert.equal(book.index, 0);
    const integ = await walletCall(url, "make_integrated_address", { standard_address: bobAddress, payment_id: "0123456789abcdef" });
    await walletCall(url, "add_address_book", { address: integ.integrated_address, description: "bob's shop" });
    await walletCall(url, "edit_address_book", { index: 0, set_description: true, description: "Bob" });
    const sub2 = (await walletCall(url, "get_address", { address_index: [2] })).addresses;
    assert.ok(sub2, "get_address: addresses");
    assert.deepEqual((await walletCall(url, "get_address_index", { address: sub2[0].address })).index, { major: 0, minor: 2 });

    const snapshot = async () => ({
      address: await walletCall(url, "get_address", { account_index: 0 }),
      accounts: await walletCall(url, "get_accounts"),
      tags: await walletCall(url, "get_account_tags"),
      notes: await walletCall(url, "get_tx_notes", { txids: [TXID, "b".repeat(64)] }),
      attr: await walletCall(url, "get_attribute", { key: "colour" }),
      book: await walletCall(url, "get_address_book"),
      balance: await walletCall(url, "get_balance", { all_accounts: true }),
    });
    const before = await snapshot();
    assert.deepEqual(before.tags.account_tags, [{ tag: "vault", label: "cold", accounts: [1] }]);
    assert.deepEqual(before.notes.notes, ["rent", ""]);
    assert.ok(before.book.entries, "get_address_book: entries");
    assert.deepEqual(
      before.book.entries.map((e) => [e.index, e.address, e.description]),
      [
        [0, bobAddress, "Bob"],
        [1, integ.integrated_address, "bob's shop"],
      ],
    );
    await walletCall(url, "close_wallet");
    await err(url, "get_balance", {}, -13);
    await err(url, "open_wallet", { filename: ALICE, password: "wrong" }, -1, /^Failed to open wallet$/);
    await walletCall(url, "open_wallet", { filename: ALICE, password: "pw" });
    assert.deepEqual(await snapshot(), before);

    // password change: the old one no longer opens the files
    await walletCall(url, "change_wallet_password", { old_password: "pw", new_password: "pw2" });
    await walletCall(url, "close_wallet");
    await err(url, "open_wallet", { filename: ALICE, password: "pw" }, -1, /^Failed to open wallet$/);
    assert.match(svcLog.at(-1) ?? "", /Failed to open wallet: invalid password$/, "the reason is in the log");
    await walletCall(url, "open_wallet", { filename: ALICE, password: "pw2" });
    assert.deepEqual(await snapshot(), before);
    await walletCall(url, "untag_accounts", { accounts: [1] });
    assert.deepEqual((await walletCall(url, "get_account_tags")).account_tags, undefined, "no tag left: the list is left out, as epee does");
    await walletCall(url, "delete_address_book", { index: 0 });
    assert.equal((await walletCall(url, "get_address_book")).entries?.length, 1);
  });

  it("view-only wallets refuse the spend key and the seed", async () => {
    const r = await walletCall(url, "generate_from_keys", {
      filename: "alice-view",
      password: "",
      address: (await walletCall(url, "get_address")).address,
      viewkey: (await walletCall(url, "query_key", { key_type: "view_key" })).key,
    });
    assert.equal(r.info, "Watch-only wallet has been generated successfully.");
    await err(url, "query_key", { key_type: "spend_key" }, -29, /^The wallet is watch-only\. Cannot retrieve spend key\.$/);
    await err(url, "query_key", { key_type: "mnemonic" }, -29, /^The wallet is watch-only\. Cannot retrieve seed\.$/);
    assert.match((await walletCall(url, "query_key", { key_type: "view_key" })).key, /^[0-9a-f]{64}$/);
    // validate_transfer runs first, as in monero-wallet-rpc; a view-only wallet signs nothing
    await err(url, "transfer", {}, -20, /^Transaction has no destination$/);
    await err(url, "sign_transfer", {}, -29, /^command not supported by watch-only wallet/);
    await err(url, "describe_transfer", { unsigned_txset: "00" }, -29, /^command not supported by watch-only wallet/);
  });
});

describe("several services in one process", () => {
  it("two WalletServices with their own servers, wallets and directories do not share state", async () => {
    const dirs = [mkdtempSync(join(tmpdir(), "tsmonero-wallet-a-")), mkdtempSync(join(tmpdir(), "tsmonero-wallet-b-"))];
    const svcs = dirs.map((d) => new WalletService({ network: "mainnet", walletDir: d, node: null, kdf: FAST_KDF, autoRefreshPeriod: 0, lookaheadMajor: 2, lookaheadMinor: 20 }));
    const servers = await Promise.all(svcs.map((service, i) => startWalletRpc({ service, port: 29212 + i })));
    try {
      const [a, b] = servers.map((s) => s.url);
      await walletCall(a, "restore_deterministic_wallet", { filename: "w", password: "", seed: WALLET_SEEDS.alice });
      await walletCall(b, "restore_deterministic_wallet", { filename: "w", password: "", seed: WALLET_SEEDS.bob });
      assert.equal((await walletCall(a, "get_address")).address, ALICE_ADDRESS);
      assert.equal((await walletCall(b, "get_address")).address, BOB);
      await walletCall(a, "set_attribute", { key: "who", value: "a" });
      await err(b, "get_attribute", { key: "who" }, -45);
      await walletCall(a, "close_wallet");
      await err(a, "get_address", {}, -13);
      assert.equal((await walletCall(b, "get_address")).address, BOB, "closing one service's wallet leaves the other's open");
    } finally {
      for (const s of svcs) await s.stop();
      for (const s of servers) await s.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});

describe("SIGKILL during store never leaves a wallet that does not open", () => {
  it("a child storing in a loop is killed at random moments; the files always open with a whole state", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsmonero-wallet-kill-"));
    try {
      const svc = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: FAST_KDF, autoRefreshPeriod: 0 });
      await svc.createWallet({ filename: "w", password: "pw", language: "English" });
      // a big enough user state that a store takes a while
      const w = svc.wallet();
      for (let i = 0; i < 3000; i++) w.user.txNotes[i.toString(16).padStart(64, "0")] = "x".repeat(100);
      w.store();
      await svc.stop();
      const child = `
        import { OpenWallet } from ${JSON.stringify(new URL("../src/wallet/service/wallet.js", import.meta.url).href)};
        const w = await OpenWallet.open({ dir: ${JSON.stringify(dir)}, name: "w", network: "mainnet", password: "pw" });
        let g = Number(w.user.attributes.generation ?? "0");
        process.stdout.write("ready\\n");
        for (;;) { g++; w.user.attributes.generation = String(g); w.ledger.state.lastBlockReward = BigInt(g); w.store(); }
      `;
      let last = 0;
      for (let round = 0; round < 8; round++) {
        const p = spawn(process.execPath, ["--input-type=module", "-e", child], { stdio: ["ignore", "pipe", "inherit"] });
        await new Promise<void>((res) => p.stdout.once("data", () => res()));
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 250)));
        const gone = new Promise((r) => p.once("exit", r));
        p.kill("SIGKILL");
        await gone;
        const o = await OpenWallet.open({ dir, name: "w", network: "mainnet", password: "pw" });
        const g = Number(o.user.attributes.generation ?? "0");
        assert.ok(g >= last, `round ${round}: generation ${g} after ${last}`);
        assert.equal(Object.keys(o.user.txNotes).length, 3000, "the keys file is whole");
        // the cache is whole and from the same or the previous store as the keys file
        const reward = Number(o.ledger.state.lastBlockReward);
        assert.ok(reward === g || reward === g - 1 || reward === g + 1, `round ${round}: cache generation ${reward}, keys ${g}`);
        last = g;
        await o.close();
      }
      assert.ok(last > 8, `the child stored many times (${last})`);

      // a wallet open in another live process is refused (wallet2 locks its keys file); once that
      // process is gone (even by SIGKILL) it opens
      const holder = `
        import { OpenWallet } from ${JSON.stringify(new URL("../src/wallet/service/wallet.js", import.meta.url).href)};
        await OpenWallet.open({ dir: ${JSON.stringify(dir)}, name: "w", network: "mainnet", password: "pw" });
        process.stdout.write("ready\\n");
        setInterval(() => undefined, 1000);
      `;
      const h = spawn(process.execPath, ["--input-type=module", "-e", holder], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((res) => h.stdout.once("data", () => res()));
      const logged: string[] = [];
      const svc2 = new WalletService({ network: "mainnet", walletDir: dir, node: null, kdf: FAST_KDF, autoRefreshPeriod: 0, log: (m) => logged.push(m) });
      await assert.rejects(svc2.openWallet({ filename: "w", password: "pw", autosave_current: true }), (e: unknown) => e instanceof Error && e.message === "Failed to open wallet");
      assert.ok(
        logged.some((m) => new RegExp(`Failed to open wallet: wallet w is open in another process \\(pid ${h.pid}\\)$`).test(m)),
        `the reason is logged: ${logged.join(" | ")}`,
      );
      const gone = new Promise((r) => h.once("exit", r));
      h.kill("SIGKILL");
      await gone;
      await svc2.openWallet({ filename: "w", password: "pw", autosave_current: true });
      await svc2.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
