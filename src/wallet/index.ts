/**
 * The wallet service for embedders: `WalletService` (wallets in a directory, the open wallet, refresh,
 * sends) and `startWalletRpc` (monero-wallet-rpc's JSON-RPC over it). Package subpath `tsmonero/wallet`.
 */
export { WalletService, type WalletServiceOptions } from "./service/service.js";
export { startWalletRpc, type WalletRpc, type WalletRpcOptions } from "./rpc/index.js";
