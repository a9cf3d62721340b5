/**
 * Loader and types for the tsmonero_randomx addon (native/randomx/addon.c), which dlopen()s the
 * system librandomx at run time. Internal to src/crypto/randomx.ts.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Opaque handle to one initialised RandomX cache (a tagged napi external). */
export interface NativeCacheHandle {
  readonly __randomxCache: unique symbol;
}

/** Live counters of one native cache entry. */
export interface NativeCacheInfo {
  cacheFlags: number;
  vmFlags: number;
  vms: number;
  idleVms: number;
  inFlight: number;
}

/** What librandomx loading yielded, as the addon reports it. */
export type NativeStatus =
  | { available: true; flags: number; library: string }
  | { available: false; reason: string };

/** The functions the addon exports. */
export interface RandomXAddon {
  status(): NativeStatus;
  cacheCreate(
    key: Uint8Array,
    cacheFlags: number,
    vmFlags: number,
    largePages: boolean,
  ): Promise<NativeCacheHandle>;
  /** Re-keys an idle cache in place; `cache` is dead afterwards, the promise gives its successor. */
  cacheRecycle(cache: NativeCacheHandle, key: Uint8Array): Promise<NativeCacheHandle>;
  hash(cache: NativeCacheHandle, input: Uint8Array): Promise<Uint8Array>;
  cacheRelease(cache: NativeCacheHandle): void;
  cacheInfo(cache: NativeCacheHandle): NativeCacheInfo;
}

// Compiled JS lives in dist/src/crypto/, so the package root is three levels up.
const packageRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** Path of the compiled addon. */
export const ADDON_PATH = join(packageRoot, "build", "Release", "tsmonero_randomx.node");

let loaded: { addon: RandomXAddon } | { error: string } | undefined;

/** The addon, or why it could not be loaded (memoised). */
export function loadRandomXAddon(): { addon: RandomXAddon } | { error: string } {
  if (loaded) return loaded;
  try {
    const require = createRequire(import.meta.url);
    loaded = { addon: require(ADDON_PATH) as RandomXAddon };
  } catch (err) {
    const msg = err instanceof Error ? err.message.split("\n")[0] : String(err);
    loaded = {
      error: `the tsmonero_randomx addon is not built (${msg}); run \`npm run build:native\` (needs g++, make)`,
    };
  }
  return loaded;
}
