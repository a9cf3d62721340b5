/**
 * `tsmonerod`: the node daemon, accepting monerod's flags with monerod's meanings.
 * The service itself arrives with the node issue; until then the command parses its flags,
 * answers --help, and says plainly that the daemon is not available yet.
 */
import { type FlagSpec, flag as s, option as v, runCli } from "./args.js";
import { VERSION } from "./version.js";

/** monerod's flags that tsmonerod accepts. */
export const NODE_FLAGS: readonly FlagSpec[] = [
  s("version", "Print the version and exit"),
  s("regtest", "Run a private regression-test chain (mainnet addresses, fast hard forks)"),
  s("testnet", "Run on testnet"),
  s("stagenet", "Run on stagenet"),
  s("offline", "Do not listen for peers nor connect to any"),
  v("fixed-difficulty", "Fixed difficulty for regtest mining", "0"),
  v("data-dir", "Directory for the blockchain database", "~/.tsmonero"),
  v("rpc-bind-ip", "IP to bind the RPC server to", "127.0.0.1"),
  v("rpc-bind-port", "Port for the RPC server", "18081"),
  s("restricted-rpc", "Restrict RPC to view-only commands"),
  v("rpc-restricted-bind-port", "Port for a second, restricted RPC server"),
  v("rpc-login", "Require HTTP digest auth, as username:password"),
  v("p2p-bind-ip", "Interface for p2p network protocol", "0.0.0.0"),
  v("p2p-bind-port", "Port for p2p network protocol", "18080"),
  v("zmq-rpc-bind-port", "Port for the ZMQ RPC server", "18082"),
  v("zmq-pub", "Address for ZMQ pub, tcp://ip:port", undefined, true),
  s("no-zmq", "Disable the ZMQ RPC server"),
  s("non-interactive", "Run non-interactive"),
  v("log-level", "Log level (0-4)", "0"),
  v("log-file", "Log file path"),
  s("disable-dns-checkpoints", "Do not retrieve checkpoints from DNS"),
  v("check-updates", "Check for updates: disabled|notify|download|update", "notify"),
  v("rpc-ssl", "Enable SSL on RPC connections: enabled|disabled|autodetect", "autodetect"),
  v("add-exclusive-node", "Connect only to this peer (ip:port)", undefined, true),
  v("add-peer", "Manually add a peer to the local peer list (ip:port)", undefined, true),
  v("add-priority-node", "Keep a connection to this peer open (ip:port)", undefined, true),
  s("no-igd", "Disable UPnP port mapping"),
  v("rpc-max-connections", "Maximum simultaneous RPC connections", "100"),
  v("rpc-max-connections-per-private-ip", "Maximum RPC connections per private IP", "100"),
  v("rpc-max-connections-per-public-ip", "Maximum RPC connections per public IP", "3"),
  s("confirm-external-bind", "Confirm binding the RPC server to a non-loopback address"),
  v("db-sync-mode", "Database sync mode: safe|fast|fastest[:sync|async[:blocks]]", "fast:async:250000000bytes"),
  v("max-txpool-weight", "Maximum transaction pool weight in bytes", "648000000"),
  s("keep-fakechain", "Keep the regtest chain between runs"),
  v("rpc-payment-address", "Restrict RPC to clients sending micropayments to this address"),
  v("rpc-payment-difficulty", "Difficulty for RPC payment", "1000"),
  v("rpc-payment-credits", "Credits per hash for RPC payment", "100"),
];

await runCli(
  "tsmonerod",
  `tsmonerod ${VERSION}: a Monero node (monerod-compatible RPC), written in TypeScript.`,
  NODE_FLAGS,
  async (args) => {
    if (args.has("version")) {
      console.log(`tsmonerod ${VERSION}`);
      return 0;
    }
    console.error("tsmonerod: the node service is not available in this version yet (flags parsed fine).");
    return 1;
  },
);
