export * from "./alt.js";
export * from "./node.js";
