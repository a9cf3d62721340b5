/**
 * wallet2's order of one tx's payments (src/wallet/ledger/hash-order.ts) against libstdc++ itself:
 * a small C++ program compiled here with g++ 12 (what Debian's monero 0.18.0.0 is built with) fills a
 * std::unordered_map<subaddress_index, uint64_t> with Monero's hash as process_new_transaction does,
 * walks it, and emplaces the entries into a std::unordered_multimap under one key as m_payments does.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { SubaddressIndex } from "../src/wallet/keys/subaddress.js";
import { unorderedMapOrder, wallet2PaymentOrder } from "../src/wallet/ledger/hash-order.js";
import { needPackage } from "./helpers/packages.js";
import { seededRandom } from "./helpers/random.js";

const PROGRAM = `
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
struct idx { uint32_t major, minor; bool operator==(const idx& o) const { return major == o.major && minor == o.minor; } };
namespace std { template <> struct hash<idx> { size_t operator()(const idx& i) const { return ((uint64_t)i.major << 32) | i.minor; } }; }
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::unordered_map<idx, uint64_t> got;
    uint32_t a, b;
    while (in >> a >> b) got[idx{a, b}] += 1;
    std::unordered_multimap<int, idx> payments;
    payments.emplace(0, idx{~0u, ~0u}); // an older payment with the same payment id
    for (auto& e : got) payments.emplace(0, e.first);
    for (auto& e : got) std::cout << e.first.major << "/" << e.first.minor << " ";
    std::cout << "|";
    for (auto& p : payments) if (p.second.major != ~0u) std::cout << " " << p.second.major << "/" << p.second.minor;
    std::cout << "\\n";
  }
}
`;


describe("wallet2's payment order within a tx equals libstdc++'s", { skip: needPackage("g++", ["/usr/bin/g++"]) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-hash-order-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("for 400 sets of 1..16 subaddresses (same buckets, several accounts, rehash at 14)", () => {
    writeFileSync(join(dir, "order.cpp"), PROGRAM);
    const cc = spawnSync("g++", ["-O1", "-o", join(dir, "order"), join(dir, "order.cpp")], { encoding: "utf8" });
    assert.equal(cc.status, 0, cc.stderr);
    const rand = seededRandom(12);
    const cases: SubaddressIndex[][] = [[{ major: 0, minor: 1 }, { major: 0, minor: 2 }, { major: 0, minor: 3 }]];
    for (let c = 0; c < 400; c++) {
      const n = 1 + Math.floor(rand() * 16);
      const seen = new Set<string>();
      const keys: SubaddressIndex[] = [];
      while (keys.length < n) {
        // small minors, minors 13 apart (one bucket of 13) and a few accounts
        const major = rand() < 0.7 ? 0 : Math.floor(rand() * 4);
        const minor = rand() < 0.3 ? 13 * Math.floor(rand() * 6) : Math.floor(rand() * 40);
        if (seen.has(`${major}/${minor}`)) continue;
        seen.add(`${major}/${minor}`);
        keys.push({ major, minor });
      }
      cases.push(keys);
    }
    const input = cases.map((k) => k.map((i) => `${i.major} ${i.minor}`).join(" ")).join("\n") + "\n";
    const run = spawnSync(join(dir, "order"), { input, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const lines = run.stdout.trimEnd().split("\n");
    assert.equal(lines.length, cases.length);
    const show = (keys: SubaddressIndex[], order: number[]) => order.map((i) => `${keys[i].major}/${keys[i].minor}`).join(" ");
    cases.forEach((keys, c) => {
      const [walk, payments] = lines[c].split("|").map((s) => s.trim());
      assert.equal(show(keys, unorderedMapOrder(keys)), walk, `walk of ${JSON.stringify(keys)}`);
      assert.equal(show(keys, wallet2PaymentOrder(keys)), payments, `m_payments order of ${JSON.stringify(keys)}`);
    });
    assert.ok(cases.some((k) => k.length >= 14), "some cases rehash");
  });
});
