import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { checkRefused, parseArgs, parseConfigFile, resolveArgs, UsageError } from "../src/cli/args.js";
import { defaultNodeConfigFile, nodeConfig } from "../src/cli/node-config.js";
import { NODE_FLAGS } from "../src/cli/node-flags.js";
import { WALLET_FLAGS } from "../src/cli/wallet-flags.js";

test("a config file in monerod's format: name=value, # comments, switches as 1/0, repeatable flags accumulate", () => {
  const text = [
    "# a comment line",
    "data-dir = /var/lib/monero   # trailing comment",
    "rpc-bind-port=18089",
    "offline=1",
    "regtest=0",
    "no-zmq=true",
    "add-peer=1.2.3.4:18080",
    "add-peer=5.6.7.8:18080",
    "",
  ].join("\n");
  const a = parseConfigFile(text, NODE_FLAGS, "x.conf");
  assert.equal(a.get("data-dir"), "/var/lib/monero");
  assert.equal(a.get("rpc-bind-port"), "18089");
  assert.equal(a.get("offline"), true);
  assert.equal(a.has("regtest"), false);
  assert.equal(a.get("no-zmq"), true);
  assert.deepEqual(a.get("add-peer"), ["1.2.3.4:18080", "5.6.7.8:18080"]);
});

test("config file errors say what is wrong: unknown names, command-line-only flags, lines without =, bad switch values, duplicates", () => {
  assert.throws(() => parseConfigFile("bogus=1\n", NODE_FLAGS, "x.conf"), /Error parsing config file x.conf: unrecognised option 'bogus'/);
  // no prefix guessing in a config file (boost's parse_config_file has none)
  assert.throws(() => parseConfigFile("data-d=/x\n", NODE_FLAGS, "x.conf"), /unrecognised option 'data-d'/);
  assert.throws(() => parseConfigFile("detach=1\n", NODE_FLAGS, "x.conf"), /unrecognised option 'detach' \(line 1; it is allowed on the command line only/);
  assert.throws(() => parseConfigFile("offline\n", NODE_FLAGS, "x.conf"), /the options configuration file contains an invalid line 'offline'/);
  assert.throws(() => parseConfigFile("offline=maybe\n", NODE_FLAGS, "x.conf"), /offline=1 or offline=0/);
  assert.throws(() => parseConfigFile("data-dir=/a\ndata-dir=/b\n", NODE_FLAGS, "x.conf"), /option '--data-dir' cannot be specified more than once in config file x.conf/);
  // the wallet allows --detach in its config file (wallet_args adds it to its parameters)
  assert.equal(parseConfigFile("detach=1\n", WALLET_FLAGS, "w.conf").get("detach"), true);
});

test("the command line overrides the config file, repeatable flags included", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsm-conf-"));
  const conf = join(dir, "node.conf");
  writeFileSync(conf, "rpc-bind-port=29711\nadd-peer=1.1.1.1:1\noffline=1\ndata-dir=" + dir + "\n");
  const a = resolveArgs(["--config-file", conf, "--rpc-bind-port", "29712", "--add-peer", "2.2.2.2:2"], NODE_FLAGS, {});
  assert.equal(a.get("rpc-bind-port"), "29712");
  assert.deepEqual(a.get("add-peer"), ["2.2.2.2:2"]);
  assert.equal(a.get("offline"), true);
  assert.equal(nodeConfig(a).daemon.rpcBindPort, 29712);
  assert.throws(() => resolveArgs(["--config-file", join(dir, "missing.conf")], NODE_FLAGS, {}), /Can't find config file .*missing.conf/);
  // a missing default config file is no error
  assert.equal(resolveArgs(["--offline"], NODE_FLAGS, { defaultPath: () => join(dir, "none.conf") }).get("offline"), true);
});

test("monerod's default config file is ~/.bitmonero[/testnet|/stagenet]/bitmonero.conf, whatever --data-dir says", () => {
  assert.match(defaultNodeConfigFile(parseArgs(["--data-dir", "/elsewhere"], NODE_FLAGS)), /\.bitmonero\/bitmonero\.conf$/);
  assert.match(defaultNodeConfigFile(parseArgs(["--testnet"], NODE_FLAGS)), /\.bitmonero\/testnet\/bitmonero\.conf$/);
  assert.match(defaultNodeConfigFile(parseArgs(["--stagenet"], NODE_FLAGS)), /\.bitmonero\/stagenet\/bitmonero\.conf$/);
});

test("command-line syntax as boost's: unambiguous prefixes stand for a flag, ambiguous ones and repeats are errors", () => {
  assert.equal(parseArgs(["--data-d", "/x"], NODE_FLAGS).get("data-dir"), "/x");
  assert.throws(() => parseArgs(["--rpc-ssl-allow", ""], NODE_FLAGS), /ambiguous.*--rpc-ssl-allow-chained/);
  assert.throws(() => parseArgs(["--data-dir", "/a", "--data-dir=/b"], NODE_FLAGS), /cannot be specified more than once/);
  // an exact name wins over longer names it prefixes
  assert.equal(parseArgs(["--rpc-ssl", "disabled"], NODE_FLAGS).get("rpc-ssl"), "disabled");
});

test("refused flags are refused with their reason, from the command line or a config file", () => {
  assert.throws(() => checkRefused(parseArgs(["--hw-device", "Ledger"], WALLET_FLAGS), WALLET_FLAGS), (e: Error) => e instanceof UsageError && /--hw-device is not supported: hardware wallets/.test(e.message));
  assert.throws(() => checkRefused(parseConfigFile("bitmessage-address=http://x/\n", WALLET_FLAGS, "w.conf"), WALLET_FLAGS), /--bitmessage-address is not supported: the multisig messaging system/);
});
