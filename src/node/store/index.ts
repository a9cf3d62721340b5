export * from "./chain-store.js";
