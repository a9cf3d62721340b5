export * from "./node-client.js";
export * from "./messages.js";
