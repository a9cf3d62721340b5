export * from "./node-client.js";
export * from "./rpc-client.js";
export * from "./wallet-client.js";
export * from "./typed-node-client.js";
export * from "./messages.js";
