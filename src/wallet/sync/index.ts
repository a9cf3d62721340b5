export { type RefreshResult, ReorgDepthError, shortChainHistory, type SyncProgress, WalletSync, type WalletSyncOptions, WrongDaemonResponseError } from "./sync.js";
