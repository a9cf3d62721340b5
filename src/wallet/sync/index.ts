export { type RefreshResult, shortChainHistory, WalletSync, type WalletSyncOptions } from "./sync.js";
