/**
 * Crypto entry point: picks the backend (C kernel when it loaded, pure TypeScript otherwise) and
 * re-exports the Monero-level helpers built on it.
 *
 * `TSMONERO_CRYPTO=ts|native` forces a backend. When the kernel is not available, one warning
 * naming the cause is printed the first time the backend is chosen.
 */
import type { BackendName, CryptoBackend } from "./backend.js";
import { loadNativeBackend } from "./native/index.js";
import { tsBackend } from "./ts/index.js";

export type { BackendName, Bytes, CryptoBackend, OutputScan, ScalarBatchOp } from "./backend.js";
export { NO_VIEW_TAG, SCAN_BAD_KEY, SCAN_SPEND_KEY, SCAN_TAG_MISMATCH } from "./backend.js";

let nativeCache: { backend: CryptoBackend } | { error: string } | undefined;

/** The C kernel backend, or the reason it is unavailable. */
export function nativeBackendStatus(): { backend: CryptoBackend } | { error: string } {
  nativeCache ??= loadNativeBackend();
  return nativeCache;
}

/** A specific backend by name; throws with the cause when the native one is unavailable. */
export function getBackend(name: BackendName): CryptoBackend {
  if (name === "ts") return tsBackend;
  const st = nativeBackendStatus();
  if ("error" in st) throw new Error(`native crypto backend unavailable: ${st.error}`);
  return st.backend;
}

/** Every backend that can run here (the TS one always). */
export function availableBackends(): CryptoBackend[] {
  const st = nativeBackendStatus();
  return "error" in st ? [tsBackend] : [st.backend, tsBackend];
}

let active: CryptoBackend | undefined;
let warned = false;

/** The backend the process uses: native when loaded, else TS (with one warning), unless TSMONERO_CRYPTO forces one. */
export function defaultBackend(): CryptoBackend {
  if (active) return active;
  const forced = process.env.TSMONERO_CRYPTO;
  if (forced === "ts" || forced === "native") {
    active = getBackend(forced);
    return active;
  }
  const st = nativeBackendStatus();
  if ("error" in st) {
    if (!warned) {
      warned = true;
      process.emitWarning(
        `C crypto kernel not loaded (${st.error}); using the pure TypeScript backend, which is roughly 10-20x slower. Run \`npm run build:native\` to see the build error.`,
        { code: "TSMONERO_NO_NATIVE" },
      );
    }
    active = tsBackend;
  } else {
    active = st.backend;
  }
  return active;
}
