export { type RefreshResult, ReorgDepthError, shortChainHistory, WalletSync, type WalletSyncOptions, WrongDaemonResponseError } from "./sync.js";
