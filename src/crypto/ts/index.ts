// Placeholder until the TypeScript backend lands.
import type { CryptoBackend } from "../backend.js";
export const tsBackend: CryptoBackend = new Proxy({ name: "ts" } as CryptoBackend, {
  get(t, k) {
    if (k === "name") return "ts";
    throw new Error(`ts backend: ${String(k)} not implemented yet`);
  },
});
