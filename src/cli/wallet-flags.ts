/**
 * monero-wallet-rpc 0.18's flags (`monero-wallet-rpc --help`, wallet2::init_options, rpc_args,
 * wallet_args, wallet_rpc_server) as tsmonero-wallet-rpc takes them: active, inactive (accepted and
 * logged) or refused with the reason.
 */
import { commandLineOnly as cl, type FlagSpec, flag as s, inactive, option as v, refused } from "./args.js";
import { logFlags, rpcLimitFlags, rpcServerFlags } from "./node-flags.js";
import { sslFlagSpecs } from "./ssl-flags.js";

const HW = "hardware wallets (Ledger, Trezor) are not supported by tsmonero: it has no device layer, every key is held in software";
const BITMESSAGE = "the multisig messaging system (MMS) and its PyBitmessage transport do not exist in tsmonero-wallet-rpc";

/** monero-wallet-rpc's flags. */
export const WALLET_FLAGS: readonly FlagSpec[] = [
  cl(s("version", "Output version information")),
  // Wallet options (wallet2::init_options)
  v("daemon-address", "Use daemon instance at <host>:<port>"),
  v("daemon-host", "Use daemon instance at host <arg> instead of localhost", "localhost"),
  refused(v("proxy", "[<ip>:]<port> socks proxy to use for daemon connections"), "a SOCKS proxy for the daemon connection is not implemented yet, and connecting directly instead would bypass the proxy you asked for; use a local tunnel (e.g. torsocks, ssh -L) and point --daemon-address at it"),
  s("trusted-daemon", "Enable commands which rely on a trusted daemon"),
  s("untrusted-daemon", "Disable commands which rely on a trusted daemon"),
  v("password", "Wallet password (escape/quote as needed)"),
  v("password-file", "Wallet password file"),
  v("daemon-port", "Use daemon instance at port <arg> instead of 18081", "0"),
  v("daemon-login", "Specify username[:password] for daemon RPC client"),
  ...sslFlagSpecs("daemon-ssl", true),
  s("testnet", "For testnet. Daemon must also be launched with --testnet flag"),
  s("stagenet", "For stagenet. Daemon must also be launched with --stagenet flag"),
  inactive(v("shared-ringdb-dir", "Set shared ring database path", "~/.shared-ringdb"), "the shared ring database (decoys are picked afresh for each tx)"),
  v("kdf-rounds", "Number of rounds for the key derivation function", "1"),
  refused(v("bitmessage-address", "Use PyBitmessage instance at URL <arg>", "http://localhost:8442/"), BITMESSAGE),
  refused(v("bitmessage-login", "Specify <arg> as username:password for PyBitmessage API", "username:password"), BITMESSAGE),
  refused(v("hw-device", "HW device to use"), HW),
  refused(v("hw-device-deriv-path", "HW device wallet derivation path (e.g., SLIP-10)"), HW),
  v("tx-notify", "Run a program for each new incoming transaction, '%s' will be replaced by the transaction hash"),
  s("no-dns", "Do not use DNS"),
  s("offline", "Do not connect to a daemon, nor use DNS"),
  v("extra-entropy", "File containing extra entropy to initialize the PRNG (any data, aim for 256 bits of entropy to be useful, which typically means more than 256 bits of data)"),
  s("allow-mismatched-daemon-version", "Allow communicating with a daemon that uses a different version"),
  // wallet_rpc_server
  v("rpc-bind-port", "Sets bind port for server"),
  s("disable-rpc-login", "Disable HTTP authentication for RPC connections served by this process"),
  s("restricted-rpc", "Restricts to view-only commands"),
  ...rpcServerFlags(),
  ...sslFlagSpecs("rpc-ssl", false),
  s("disable-rpc-ban", "Do not ban hosts on RPC errors"),
  v("wallet-file", "Use wallet <arg>"),
  refused(v("generate-from-json", "Generate wallet from JSON format file"), "not implemented yet: create the wallet through the RPC instead (restore_deterministic_wallet, generate_from_keys) with --wallet-dir"),
  v("wallet-dir", "Directory for newly created wallets"),
  s("prompt-for-password", "Prompts for password when not provided"),
  inactive(v("rpc-client-secret-key", "Set RPC client secret key for RPC payments"), "RPC payment"),
  s("no-initial-sync", "Skip the initial sync before the RPC server starts"),
  ...rpcLimitFlags(),
  // daemonizer and wallet_args
  s("detach", "Run as daemon"),
  v("pidfile", "File path to write the daemon's PID to (optional, requires --detach)"),
  s("non-interactive", "Run non-interactive"),
  ...logFlags(),
  v("config-file", "Config file"),
  // tsmonero's own
  v("web-console-port", "Serve the web console (the open wallet and, with a daemon, the explorer) on this port of --rpc-bind-ip; needs --disable-rpc-login"),
  s("detect-pool-spends", "A pool tx spending the wallet's outputs that it did not send (the same seed elsewhere, a multisig peer) lowers the balance and is listed as pending at once, as monero-wallet-rpc's master does; without it, as every 0.18 release: only once mined"),
  s("wallet-hub", "Also serve many wallets of --wallet-dir by name: /wallets/json_rpc opens, creates and closes them, /wallets/NAME/json_rpc is each one's RPC (one shared block stream from the daemon)"),
];
