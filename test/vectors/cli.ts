/**
 * `npm run test:vectors`: Monero's crypto and hash vectors on every backend that runs here, with a
 * "backend: N passed, M failed" line each. Exits non-zero on any failure or missing data.
 */
import { availableBackends, nativeBackendStatus } from "../../src/crypto/index.js";
import { needPackage } from "../helpers/packages.js";
import { formatSuite, runVectorSuite } from "./suite.js";

const skip = needPackage("monero-tests");
if (skip) {
  console.log(`skipped: ${skip}`);
  process.exit(0);
}
const st = nativeBackendStatus();
if ("error" in st) {
  console.log(`native backend unavailable (${st.error}); running the TypeScript backend only`);
  if (process.env.CI) process.exitCode = 1;
}
let bad = false;
for (const be of availableBackends()) {
  const runs = runVectorSuite(be);
  for (const line of formatSuite(be.name, runs)) console.log(line);
  if (runs.some((r) => r.result.failed > 0)) bad = true;
}
if (bad) process.exitCode = 1;
