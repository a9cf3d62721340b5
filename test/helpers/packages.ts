/**
 * Tests that need Debian's Monero packages skip with one line naming the package when it is absent,
 * except in CI (env CI set), where a missing package is a failure: CI installs them all.
 */
import { existsSync } from "node:fs";

/** Where Debian's monero-tests puts Monero's test data. */
export const MONERO_TESTDATA = process.env.MONERO_TESTDATA ?? "/usr/share/monero/testdata";

/** Files each Debian package provides that our tests look for. */
const PROBES: Record<string, string[]> = {
  "monero-tests": [`${MONERO_TESTDATA}/crypto/tests.txt`],
  monero: ["/usr/bin/monerod", "/usr/bin/monero-wallet-rpc"],
  "librandomx-dev": ["/usr/include/randomx.h"],
};

/**
 * Returns undefined when the package is there; otherwise a skip message for `t.skip`/`{ skip }`.
 * In CI it throws instead, so a missing package can never pass silently.
 */
export function needPackage(pkg: keyof typeof PROBES | string, files: string[] = PROBES[pkg] ?? []): string | undefined {
  const missing = files.filter((f) => !existsSync(f));
  if (missing.length === 0) return undefined;
  const msg = `needs Debian package ${pkg} (apt-get install -y ${pkg}); missing ${missing[0]}`;
  if (process.env.CI) throw new Error(`CI must not skip: ${msg}`);
  return msg;
}
