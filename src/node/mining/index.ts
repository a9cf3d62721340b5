export * from "./errors.js";
export * from "./miner.js";
export * from "./pow.js";
export * from "./seed.js";
export * from "./template.js";
export * from "./service.js";
