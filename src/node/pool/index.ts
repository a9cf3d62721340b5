export * from "./tx-check.js";
export * from "./tx-pool.js";
export * from "./changes.js";
