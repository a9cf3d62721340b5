export * from "./json.js";
export * from "./schema.js";
export * from "./methods.js";
export * from "./server.js";
export * from "./digest.js";
export * from "./error-codes.js";
export * from "./tls.js";
