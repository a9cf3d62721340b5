/**
 * Network parameters (src/cryptonote_config.h, namespaces config, config::testnet, config::stagenet).
 * A small table keyed by network; other modules extend it with genesis and hard-fork data later.
 * Regtest (Monero's FAKECHAIN) uses mainnet's parameters.
 */

/** Monero's network types as the RPC spells them ("fakechain" is regtest). */
export type Network = "mainnet" | "testnet" | "stagenet" | "regtest";

/** The three networks that have their own address prefixes, in Monero's order (validate_address tries them so). */
export const ADDRESS_NETWORKS = ["mainnet", "testnet", "stagenet"] as const;
export type AddressNetwork = (typeof ADDRESS_NETWORKS)[number];

export interface NetworkParams {
  /** Base58 varint tag of a standard address (CRYPTONOTE_PUBLIC_ADDRESS_BASE58_PREFIX). */
  readonly addressPrefix: number;
  /** Tag of an integrated address (…_INTEGRATED_ADDRESS_BASE58_PREFIX). */
  readonly integratedAddressPrefix: number;
  /** Tag of a subaddress (…_SUBADDRESS_BASE58_PREFIX). */
  readonly subaddressPrefix: number;
  readonly p2pPort: number;
  readonly rpcPort: number;
  readonly zmqRpcPort: number;
}

const MAINNET: NetworkParams = {
  addressPrefix: 18,
  integratedAddressPrefix: 19,
  subaddressPrefix: 42,
  p2pPort: 18080,
  rpcPort: 18081,
  zmqRpcPort: 18082,
};

export const NETWORKS: Readonly<Record<Network, NetworkParams>> = {
  mainnet: MAINNET,
  testnet: {
    addressPrefix: 53,
    integratedAddressPrefix: 54,
    subaddressPrefix: 63,
    p2pPort: 28080,
    rpcPort: 28081,
    zmqRpcPort: 28082,
  },
  stagenet: {
    addressPrefix: 24,
    integratedAddressPrefix: 25,
    subaddressPrefix: 36,
    p2pPort: 38080,
    rpcPort: 38081,
    zmqRpcPort: 38082,
  },
  regtest: MAINNET,
};

/** Parameters of `net`. */
export function networkParams(net: Network): NetworkParams {
  return NETWORKS[net];
}

/** The network whose addresses a wallet on `net` uses (regtest wallets use mainnet addresses). */
export function addressNetwork(net: Network): AddressNetwork {
  return net === "regtest" ? "mainnet" : net;
}

/** True for the strings Network allows. */
export function isNetwork(s: string): s is Network {
  return s === "mainnet" || s === "testnet" || s === "stagenet" || s === "regtest";
}
