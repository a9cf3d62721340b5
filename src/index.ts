/**
 * tsmonero's public entry point. The services (node, wallet) will be exported here as they land;
 * today it exposes the crypto layer.
 */
export * from "./crypto/index.js";
export { treeHash } from "./crypto/hash.js";
export { generateKeys, generateRingSignature, generateSignature, type KeyPair } from "./crypto/keys.js";
export { MoneroTestRandom, type RandomSource, randomScalar, systemRandom } from "./crypto/random.js";
export { VERSION, MONERO_COMPAT } from "./cli/version.js";
