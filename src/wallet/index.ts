/**
 * The wallet service for embedders: `WalletService` (wallets in a directory, the open wallet, refresh,
 * sends), `startWalletRpc` (monero-wallet-rpc's JSON-RPC over it) and `walletClient` (the typed client
 * of any wallet RPC: WalletApi's params and results per method). Package subpath `tsmonero/wallet`.
 */
export { WalletService, type WalletServiceOptions } from "./service/service.js";
export { startWalletRpc, type WalletRpc, type WalletRpcOptions } from "./rpc/index.js";
export { hubClient, type HubApi, type HubMethod, hubWalletClient, walletClient, type WalletApi, type WalletMethod } from "./rpc/api.js";
