export * from "./alt.js";
export * from "./node.js";
export * from "./template.js";
export * from "./seed.js";
