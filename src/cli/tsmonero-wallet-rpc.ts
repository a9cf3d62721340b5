/**
 * `tsmonero-wallet-rpc`: the wallet RPC service, accepting monero-wallet-rpc's flags.
 * The service itself arrives with the wallet issue; until then the command parses its flags,
 * answers --help, and says plainly that the service is not available yet.
 */
import { type FlagSpec, flag as s, option as v, runCli } from "./args.js";
import { VERSION } from "./version.js";

/** monero-wallet-rpc's flags that tsmonero-wallet-rpc accepts. */
export const WALLET_FLAGS: readonly FlagSpec[] = [
  s("version", "Print the version and exit"),
  v("rpc-bind-ip", "IP to bind the RPC server to", "127.0.0.1"),
  v("rpc-bind-port", "Port for the RPC server"),
  v("rpc-login", "Require HTTP digest auth, as username:password"),
  s("disable-rpc-login", "Disable HTTP authentication for RPC connections"),
  v("wallet-dir", "Directory for newly created wallets"),
  v("wallet-file", "Use this wallet file"),
  v("password", "Wallet password"),
  v("password-file", "Wallet password file"),
  v("daemon-address", "Use daemon instance at host:port", "127.0.0.1:18081"),
  v("daemon-host", "Use daemon instance at host", "localhost"),
  v("daemon-port", "Use daemon instance at port", "18081"),
  v("daemon-login", "Daemon RPC login, as username:password"),
  s("trusted-daemon", "Treat the daemon as trusted"),
  s("untrusted-daemon", "Treat the daemon as untrusted"),
  v("daemon-ssl", "Enable SSL to the daemon: enabled|disabled|autodetect", "autodetect"),
  v("rpc-ssl", "Enable SSL on RPC connections: enabled|disabled|autodetect", "autodetect"),
  s("offline", "Do not connect to a daemon"),
  s("testnet", "For testnet"),
  s("stagenet", "For stagenet"),
  s("non-interactive", "Run non-interactive"),
  v("log-level", "Log level (0-4)", "0"),
  v("log-file", "Log file path"),
  s("allow-mismatched-daemon-version", "Allow communicating with a daemon of another version"),
  s("confirm-external-bind", "Confirm binding the RPC server to a non-loopback address"),
  v("max-concurrency", "Maximum worker threads (0 = all cores)", "0"),
  v("tx-notify", "Run a program for each new incoming transaction, %s replaced by the txid"),
  s("no-initial-sync", "Skip the initial sync before the RPC server starts"),
  v("shared-ringdb-dir", "Directory for the shared ring database"),
  v("rpc-max-connections", "Maximum simultaneous RPC connections", "100"),
  v("rpc-max-connections-per-private-ip", "Maximum RPC connections per private IP", "100"),
];

await runCli(
  "tsmonero-wallet-rpc",
  `tsmonero-wallet-rpc ${VERSION}: a Monero wallet RPC service (monero-wallet-rpc-compatible), written in TypeScript.`,
  WALLET_FLAGS,
  async (args) => {
    if (args.has("version")) {
      console.log(`tsmonero-wallet-rpc ${VERSION}`);
      return 0;
    }
    console.error("tsmonero-wallet-rpc: the wallet service is not available in this version yet (flags parsed fine).");
    return 1;
  },
);
