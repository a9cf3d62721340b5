import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { AddressError, decodeAddress, encodeAddress, validateAddress } from "../src/protocol/address.js";
import { NETWORKS, type Network } from "../src/protocol/network.js";
import { validateAddressRpc } from "../src/wallet/keys/rpc.js";

const fixtures = new URL("../../test/fixtures/wallet-keys/", import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), "utf8"));

interface Exchange<P = Record<string, unknown>> {
  method: string;
  params: P;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}
const addresses = load("addresses.json") as {
  samples: Record<Network, Record<string, string>>;
  cases: Record<string, string>;
  validate_address: (Exchange<{ address: string; any_net_type?: boolean }> & { label: string; net: Network })[];
};

test("network table: Monero's prefixes; regtest uses mainnet's", () => {
  assert.deepEqual(
    [NETWORKS.mainnet, NETWORKS.testnet, NETWORKS.stagenet].map((p) => [p.addressPrefix, p.integratedAddressPrefix, p.subaddressPrefix]),
    [
      [18, 19, 42],
      [53, 54, 63],
      [24, 25, 36],
    ],
  );
  assert.equal(NETWORKS.regtest, NETWORKS.mainnet);
});

test("validate_address answers match monero-wallet-rpc field by field (3 networks, with and without any_net_type)", () => {
  assert.ok(addresses.validate_address.length > 100);
  for (const v of addresses.validate_address) {
    const ours = validateAddressRpc(v.net, v.params);
    assert.deepEqual(ours, v.result, `${v.label} on ${v.net}${v.params.any_net_type ? " (any_net_type)" : ""}`);
  }
});

test("every recorded address decodes and re-encodes to itself, on its own network", () => {
  for (const [net, s] of Object.entries(addresses.samples) as [Network, Record<string, string>][]) {
    for (const [label, text] of Object.entries(s)) {
      const a = decodeAddress(text, net);
      assert.equal(a.network, net);
      assert.equal(a.kind, label === "standard" ? "standard" : label === "integrated" ? "integrated" : "subaddress", label);
      assert.equal(encodeAddress(net, a.kind, a.spendPublicKey, a.viewPublicKey, a.paymentId), text);
      if (net === "mainnet") assert.equal(encodeAddress("regtest", a.kind, a.spendPublicKey, a.viewPublicKey, a.paymentId), text);
    }
  }
});

test("bad addresses are refused with the precise reason", () => {
  const c = addresses.cases;
  const reason = (text: string, net?: Network) => {
    try {
      decodeAddress(text, net);
      return "accepted";
    } catch (e) {
      assert.ok(e instanceof AddressError);
      return `${e.reason}: ${e.message}`;
    }
  };
  const expect: [string, RegExp, Network?][] = [
    ["bad checksum (crafted)", /^checksum:/],
    ["one character changed", /^checksum:/],
    ["last character changed", /^(checksum|base58):/],
    ["truncated by one", /^base58: .*block at position 88 .* too large for 4 bytes/],
    ["truncated by eleven", /^checksum:/],
    ["one character appended", /^(base58|checksum):/],
    ["invalid base58 character 0", /^base58: .*"0" at position 10/],
    ["invalid base58 character l", /^base58: .*"l" at position 10/],
    ["empty string", /^empty:/],
    ["spaces around", /^base58:/],
    ["unknown prefix 17", /^prefix: address prefix 17 is not/],
    ["unknown prefix 0", /^prefix: address prefix 0 is not/],
    ["large prefix 300", /^prefix: address prefix 300/],
    ["standard prefix with 72 bytes", /^length: a standard address must carry 64 bytes .* carries 72/],
    ["integrated prefix with 64 bytes", /^length: an integrated address must carry 72 bytes .* carries 64/],
    ["standard prefix with 63 bytes", /^length: .* carries 63/],
    ["subaddress prefix with 65 bytes", /^length: a subaddress must carry 64 bytes .* carries 65/],
    ["spend key not on curve", /^key: address spend public key/],
    ["view key not on curve", /^key: address view public key/],
    ["non-canonical y (p+1) view key", /^key: address view public key/],
    ["old hex format bad checksum", /^checksum: old-format/],
    ["old hex format version 1", /^old-format: .*version 1/],
    ["lower-cased", /^(base58|checksum):/],
    ["testnet standard", /^network: a standard address of testnet, not mainnet/, "mainnet"],
    ["stagenet subaddress", /^network: a subaddress of stagenet, not testnet/, "testnet"],
    ["mainnet integrated", /^network: an integrated address of mainnet, not stagenet/, "stagenet"],
  ];
  for (const [label, re, net] of expect) {
    const text = c[label] ?? (() => {
      const [n, k] = label.split(" ") as [Network, string];
      return addresses.samples[n][k];
    })();
    assert.match(reason(text, net ?? "mainnet"), re, label);
  }
  // Our own validateAddress carries that reason alongside Monero's fields.
  const v = validateAddress(c["bad checksum (crafted)"], { walletNetwork: "mainnet" });
  assert.equal(v.valid, false);
  assert.match(v.error ?? "", /checksum/);
});

test("old 132-hex-character format: valid on every network, as Monero treats it", () => {
  const text = addresses.cases["old hex format (132 hex chars)"];
  for (const net of ["mainnet", "testnet", "stagenet"] as const) {
    const a = decodeAddress(text, net);
    assert.equal(a.network, net);
    assert.equal(a.kind, "standard");
    assert.equal(encodeAddress(net, "standard", a.spendPublicKey, a.viewPublicKey), addresses.samples[net].standard);
  }
});
