/**
 * The TLS flags shared by the launchers: `--rpc-ssl*` (the RPC server, rpc_args.cpp) and
 * `--daemon-ssl*` (the wallet's node connection, wallet2::init_options), with epee's names, help
 * texts and meanings (src/rpc/tls.ts).
 */
import { SslConfigError, type SslOptions, sslOptionsFromFlags } from "../rpc/tls.js";
import { type FlagSpec, flag, option, type ParsedArgs, UsageError } from "./args.js";

/** The flag table; `anyCert`: monerod and the wallet's --daemon-ssl have -allow-any-cert, monero-wallet-rpc's --rpc-ssl has not. */
export function sslFlagSpecs(prefix: "rpc-ssl" | "daemon-ssl", anyCert: boolean): FlagSpec[] {
  const rpc = prefix === "rpc-ssl";
  return [
    option(prefix, `Enable SSL on ${rpc ? "" : "daemon "}RPC connections: enabled|disabled|autodetect`, "autodetect"),
    option(`${prefix}-private-key`, "Path to a PEM format private key"),
    option(`${prefix}-certificate`, "Path to a PEM format certificate"),
    option(`${prefix}-ca-certificates`, "Path to file containing concatenated PEM format certificate(s) to replace system CA(s)."),
    option(`${prefix}-allowed-fingerprints`, rpc ? "List of certificate fingerprints to allow" : "List of valid fingerprints of allowed RPC servers", undefined, true),
    flag(`${prefix}-allow-chained`, `Allow user (via --${prefix}-ca-certificates) chain certificates`),
    ...(anyCert ? [flag(`${prefix}-allow-any-cert`, rpc ? "Allow any peer certificate" : "Allow any SSL certificate from the daemon")] : []),
  ];
}

function last(args: ParsedArgs, name: string): string | undefined {
  const x = args.get(name);
  return typeof x === "string" ? x : Array.isArray(x) ? x[x.length - 1] : undefined;
}

/** The options the flags ask for; a bad value is a UsageError naming the flag. */
export function sslFlags(args: ParsedArgs, prefix: "rpc-ssl" | "daemon-ssl"): SslOptions {
  const fps = args.get(`${prefix}-allowed-fingerprints`);
  try {
    return sslOptionsFromFlags({
      prefix,
      support: last(args, prefix),
      privateKey: last(args, `${prefix}-private-key`),
      certificate: last(args, `${prefix}-certificate`),
      caCertificates: last(args, `${prefix}-ca-certificates`),
      // epee splits nothing: each occurrence is one fingerprint
      allowedFingerprints: Array.isArray(fps) ? fps : typeof fps === "string" ? [fps] : [],
      allowChained: args.get(`${prefix}-allow-chained`) === true,
      allowAnyCert: args.get(`${prefix}-allow-any-cert`) === true,
    });
  } catch (e) {
    if (e instanceof SslConfigError) throw new UsageError(e.message);
    throw e;
  }
}
