/**
 * monerod 0.18's flags (`monerod --help`, in its order and groups) as tsmonerod takes them: each
 * active (it has monerod's meaning), inactive (accepted and logged: P2P and ZMQ belong to the P2P
 * issue; a few features are still to come) or refused with the reason.
 */
import { commandLineOnly as cl, type FlagSpec, flag as s, inactive, option as v, refused } from "./args.js";
import { sslFlagSpecs } from "./ssl-flags.js";

const P2P = "P2P networking through a proxy or DNS (direct P2P is active)";
/** Not flags of monerod 0.18.0.0 (later releases'): accepted and logged. */
const ZMQ = "a ZMQ RPC option of later monerods (0.18.0.0's ZMQ RPC has no restricted mode)";

/** The shared RPC server flags of rpc_args.cpp (monerod and monero-wallet-rpc). */
export function rpcServerFlags(): FlagSpec[] {
  return [
    v("rpc-bind-ip", "Specify IP to bind RPC server", "127.0.0.1"),
    v("rpc-bind-ipv6-address", "Specify IPv6 address to bind RPC server", "::1"),
    v("rpc-restricted-bind-ip", "Specify IP to bind restricted RPC server", "127.0.0.1"),
    v("rpc-restricted-bind-ipv6-address", "Specify IPv6 address to bind restricted RPC server", "::1"),
    s("rpc-use-ipv6", "Allow IPv6 for RPC"),
    s("rpc-ignore-ipv4", "Ignore unsuccessful IPv4 bind for RPC"),
    v("rpc-login", "Specify username[:password] required for RPC server"),
    s("confirm-external-bind", "Confirm rpc-bind-ip value is NOT a loopback (local) IP"),
    v("rpc-access-control-origins", "Specify a comma separated list of origins to allow cross origin resource sharing"),
  ];
}

/** The connection limits of both servers (core_rpc_server / wallet_rpc_server init_options). */
export function rpcLimitFlags(): FlagSpec[] {
  return [
    v("rpc-max-connections-per-public-ip", "Max RPC connections per public IP permitted", "3"),
    v("rpc-max-connections-per-private-ip", "Max RPC connections per private and localhost IP permitted", "25"),
    v("rpc-max-connections", "Max RPC connections permitted", "100"),
    v("rpc-response-soft-limit", "Max response bytes that can be queued, enforced at next response attempt", "26214400"),
  ];
}

/** The logging flags both commands share (daemon_args / wallet_args). */
export function logFlags(defaultLog?: string): FlagSpec[] {
  return [
    v("log-file", "Specify log file", defaultLog),
    v("log-level", "0-4 or categories (e.g. 1, *:WARNING,net:DEBUG, +rpc:INFO)"),
    v("max-log-file-size", "Specify maximum log file size [B]", "104850000"),
    v("max-log-files", "Specify maximum number of rotated log files to be saved (no limit by setting to 0)", "50"),
    v("max-concurrency", "Max number of threads to use for a parallel job", "0"),
  ];
}

/** monerod's flags. */
export const NODE_FLAGS: readonly FlagSpec[] = [
  // Options (command line only)
  cl(s("version", "Output version information")),
  cl(s("os-version", "OS for which this executable was compiled")),
  cl(v("config-file", "Specify configuration file", "~/.bitmonero/bitmonero.conf, ~/.bitmonero/testnet/bitmonero.conf if 'testnet', ~/.bitmonero/stagenet/bitmonero.conf if 'stagenet'")),
  cl(s("detach", "Run as daemon")),
  cl(v("pidfile", "File path to write the daemon's PID to (optional, requires --detach)")),
  cl(s("non-interactive", "Run non-interactive")),
  // Settings
  ...logFlags("<data-dir>/tsmonerod.log"),
  inactive(v("proxy", "Network communication through proxy: <socks-ip:port> i.e. \"127.0.0.1:9050\""), P2P),
  inactive(s("proxy-allow-dns-leaks", "Allow DNS leaks outside of proxy"), P2P),
  s("public-node", "Allow other users to use the node as a remote (restricted RPC mode, view-only commands) and advertise it over P2P"),
  v("zmq-rpc-bind-ip", "IP for ZMQ RPC server to listen on", "127.0.0.1"),
  v("zmq-rpc-bind-port", "Port for ZMQ RPC server to listen on", "18082, 28082 if 'testnet', 38082 if 'stagenet'"),
  v("zmq-pub", "Address for ZMQ pub - tcp://ip:port or ipc://path", undefined, true),
  s("no-zmq", "Disable ZMQ RPC server"),
  inactive(s("confirm-zmq-rpc-external-bind", "Confirm zmq-rpc-bind-ip value is NOT a loopback (local) IP"), ZMQ),
  inactive(s("restricted-zmq-rpc", "Restrict ZMQ RPC to view only commands"), ZMQ),
  v("data-dir", "Specify data directory", "~/.bitmonero, ~/.bitmonero/testnet if 'testnet', ~/.bitmonero/stagenet if 'stagenet'"),
  inactive(s("test-drop-download", "For net tests: in download, discard ALL blocks instead checking/saving them (very fast)"), "P2P block download"),
  inactive(v("test-drop-download-height", "Like test-drop-download but discards only after around certain height", "0"), "P2P block download"),
  s("testnet", "Run on testnet. The wallet must be launched with --testnet flag."),
  s("stagenet", "Run on stagenet. The wallet must be launched with --stagenet flag."),
  s("regtest", "Run in a regression testing mode."),
  s("keep-fakechain", "Don't delete any existing database when in fakechain mode."),
  v("fixed-difficulty", "Fixed difficulty used for testing.", "0"),
  inactive(s("enforce-dns-checkpointing", "checkpoints from DNS server will be enforced"), "DNS checkpoints"),
  inactive(v("prep-blocks-threads", "Max number of threads to use when preparing block hashes in groups.", "4"), "P2P sync"),
  inactive(v("fast-block-sync", "Sync up most of the way by using embedded, known block hashes.", "1"), "fast block sync (embedded block hashes)"),
  inactive(v("show-time-stats", "Show time-stats when processing blocks/txs and disk synchronization.", "0"), "time statistics"),
  v("block-sync-size", "How many blocks to sync at once during chain synchronization (0 = adaptive).", "0"),
  v("check-updates", "Check for new versions of monero: [disabled|notify|download|update]", "notify"),
  s("fluffy-blocks", "Relay blocks as fluffy blocks (obsolete, now default)"),
  s("no-fluffy-blocks", "Relay blocks as normal blocks"),
  v("test-dbg-lock-sleep", "Sleep time in ms, defaults to 0 (off), used to debug before/after locking mutex. Values 100 to 1000 are good for tests.", "0"),
  s("offline", "Do not listen for peers, nor connect to any"),
  s("disable-dns-checkpoints", "Do not retrieve checkpoints from DNS"),
  inactive(v("block-download-max-size", "Set maximum size of block download queue in bytes (0 for default)", "0"), "P2P sync"),
  inactive(s("sync-pruned-blocks", "Allow syncing from nodes with only pruned blocks"), "P2P sync"),
  v("max-txpool-weight", "Set maximum txpool weight in bytes.", "648000000"),
  v("block-notify", "Run a program for each new block, '%s' will be replaced by the block hash"),
  s("prune-blockchain", "Prune blockchain"),
  v("reorg-notify", "Run a program for each reorg, '%s' will be replaced by the split height, '%h' will be replaced by the new blockchain height, '%n' will be replaced by the number of new blocks in the new chain, and '%d' will be replaced by the number of blocks discarded from the old chain"),
  inactive(v("block-rate-notify", "Run a program when the block rate undergoes large fluctuations. %t will be replaced by the number of minutes for the observation window, %b by the number of blocks observed within that window, and %e by the number of blocks that was expected in that window."), "the block-rate check (monerod runs it only with a sync target from its peers: P2P)"),
  s("keep-alt-blocks", "Keep alternative blocks on restart"),
  inactive(v("extra-messages-file", "Specify file for extra messages to include into coinbase transactions"), "extra coinbase messages"),
  v("start-mining", "Specify wallet address to mining for"),
  v("mining-threads", "Specify mining threads count"),
  s("bg-mining-enable", "enable background mining"),
  s("bg-mining-ignore-battery", "if true, assumes plugged in when unable to query system power status"),
  inactive(v("bg-mining-min-idle-interval", "Specify min lookback interval in seconds for determining idle state"), "background mining's idle detection"),
  inactive(v("bg-mining-idle-threshold", "Specify minimum avg idle percentage over lookback interval"), "background mining's idle detection"),
  inactive(v("bg-mining-miner-target", "Specify maximum percentage cpu use by miner(s)"), "background mining's idle detection"),
  v("db-sync-mode", "Specify sync option, using format [safe|fast|fastest]:[sync|async]:[<nblocks_per_sync>[blocks]|<nbytes_per_sync>[bytes]].", "fast:async:250000000bytes"),
  s("db-salvage", "Try to salvage a blockchain database if it seems corrupted"),
  // P2P (node_server::init_options)
  v("p2p-bind-ip", "Interface for p2p network protocol (IPv4)", "0.0.0.0"),
  v("p2p-bind-ipv6-address", "Interface for p2p network protocol (IPv6)", "::"),
  v("p2p-bind-port", "Port for p2p network protocol (IPv4)", "18080, 28080 if 'testnet', 38080 if 'stagenet'"),
  v("p2p-bind-port-ipv6", "Port for p2p network protocol (IPv6)", "18080, 28080 if 'testnet', 38080 if 'stagenet'"),
  s("p2p-use-ipv6", "Enable IPv6 for p2p"),
  s("p2p-ignore-ipv4", "Ignore unsuccessful IPv4 bind for p2p"),
  v("p2p-external-port", "External port for p2p network protocol (if port forwarding used with NAT)", "0"),
  s("allow-local-ip", "Allow local ip add to peer list, mostly in debug purposes"),
  v("add-peer", "Manually add peer to local peerlist", undefined, true),
  v("add-priority-node", "Specify list of peers to connect to and attempt to keep the connection open", undefined, true),
  v("add-exclusive-node", "Specify list of peers to connect to only. If this option is given the options add-priority-node and seed-node are ignored", undefined, true),
  v("seed-node", "Connect to a node to retrieve peer addresses, and disconnect", undefined, true),
  inactive(v("tx-proxy", "Send local txes through proxy: <network-type>,<socks-ip:port>[,max_connections][,disable_noise] i.e. \"tor,127.0.0.1:9050,100,disable_noise\"", undefined, true), "Tor/I2P tx proxies (txs are fluffed over clearnet instead)"),
  inactive(v("anonymous-inbound", "<hidden-service-address>,<[bind-ip:]port>[,max_connections] i.e. \"x.onion,127.0.0.1:18083,100\"", undefined, true), "anonymous inbound (Tor/I2P) connections"),
  v("ban-list", "Specify ban list file, one IP address per line"),
  s("hide-my-port", "Do not announce yourself as peerlist candidate"),
  s("no-sync", "Don't synchronize the blockchain with other peers"),
  inactive(s("enable-dns-blocklist", "Apply realtime blocklist from DNS"), P2P),
  inactive(s("no-igd", "Disable UPnP port mapping"), "P2P networking (UPnP)"),
  inactive(v("igd", "UPnP port mapping (disabled, enabled, delayed)", "delayed"), "P2P networking (UPnP)"),
  v("out-peers", "set max number of out peers", "-1"),
  v("in-peers", "set max number of in peers", "-1"),
  inactive(v("tos-flag", "set TOS flag", "-1"), P2P),
  v("limit-rate-up", "set limit-rate-up [kB/s]", "2048"),
  v("limit-rate-down", "set limit-rate-down [kB/s]", "8192"),
  v("limit-rate", "set limit-rate [kB/s]", "-1"),
  s("pad-transactions", "Pad relayed transactions to help defend against traffic volume analysis"),
  v("max-connections-per-ip", "Maximum number of p2p connections allowed from the same IP address", "1"),
  // RPC (core_rpc_server::init_options, rpc_args)
  v("rpc-bind-port", "Port for RPC server", "18081, 28081 if 'testnet', 38081 if 'stagenet'"),
  v("rpc-restricted-bind-port", "Port for restricted RPC server"),
  s("restricted-rpc", "Restrict RPC to view only commands and do not return privacy sensitive data in RPC calls"),
  v("bootstrap-daemon-address", "URL of a 'bootstrap' remote daemon that the connected wallets can use while this daemon is still not fully synced. Use 'auto' to enable automatic public nodes discovering and bootstrap daemon switching"),
  v("bootstrap-daemon-login", "Specify username:password for the bootstrap daemon login"),
  refused(v("bootstrap-daemon-proxy", "<ip>:<port> socks proxy to use for bootstrap daemon connections"), "SOCKS proxies are not supported: tsmonerod would connect to the bootstrap daemon directly, leaking what the proxy is meant to hide"),
  ...rpcServerFlags(),
  ...sslFlagSpecs("rpc-ssl", true),
  s("disable-rpc-ban", "Do not ban hosts on RPC errors"),
  inactive(v("rpc-payment-address", "Restrict RPC to clients sending micropayment to this address"), "RPC payment"),
  inactive(v("rpc-payment-difficulty", "Restrict RPC to clients sending micropayment at this difficulty", "1000"), "RPC payment"),
  inactive(v("rpc-payment-credits", "Restrict RPC to clients sending micropayment, yields that many credits per payment", "100"), "RPC payment"),
  inactive(s("rpc-payment-allow-free-loopback", "Allow free access from the loopback address (ie, the local host)"), "RPC payment"),
  ...rpcLimitFlags(),
  // tsmonero's own
  v("web-console-port", "Serve the web console (explorer, in a browser) on this port of --rpc-bind-ip; off when not given"),
];
