// Monero's crypto and hash vectors on each backend (see test/vectors/).
import assert from "node:assert/strict";
import { test } from "node:test";
import { availableBackends, nativeBackendStatus } from "../src/crypto/index.js";
import { needPackage } from "./helpers/packages.js";
import { formatSuite, runVectorSuite } from "./vectors/suite.js";

const skip = needPackage("monero-tests");

test("the C kernel is built (CI builds it)", { skip: process.env.CI ? false : "only enforced in CI" }, () => {
  const st = nativeBackendStatus();
  assert.ok(!("error" in st), "error" in st ? st.error : "");
});

for (const be of availableBackends()) {
  test(`Monero crypto + hash vectors, ${be.name} backend`, { skip }, () => {
    const runs = runVectorSuite(be);
    for (const line of formatSuite(be.name, runs)) console.log(line);
    const total = runs.reduce((n, r) => n + r.result.passed + r.result.failed, 0);
    assert.equal(total, 5545 + 321 + 16, "every vector line ran");
    for (const { name, result } of runs) assert.equal(result.failed, 0, `${name}: ${result.failures.join("; ")}`);
  });
}
