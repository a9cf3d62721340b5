/** The pure consensus layer: rules over protocol/ types and a read-only ChainView (no I/O). */
export * from "./block-rules.js";
export * from "./chain-view.js";
export * from "./checkpoints.js";
export * from "./constants.js";
export * from "./difficulty.js";
export * from "./errors.js";
export * from "./fees.js";
export * from "./reward.js";
export * from "./tx-rules.js";
export * from "./tx-sanity.js";
export * from "./weight.js";
