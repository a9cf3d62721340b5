export * from "./service.js";
export * from "./wallet.js";
