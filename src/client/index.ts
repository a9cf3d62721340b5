export * from "./node-client.js";
export * from "./wallet-client.js";
export * from "./messages.js";
