/**
 * `tsmonero`: the embedded devnet, what `npm start` runs. One process holds a private regtest node
 * (monerod's `--regtest --offline --fixed-difficulty 1`, chain kept between runs in
 * <data-dir>/fake/lmdb) and a wallet RPC service whose wallets live in <data-dir>/wallets and which
 * talks to that node. SIGTERM/SIGINT (or /stop_daemon) store the open wallet, then close the chain.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { NodeClient } from "../client/node-client.js";
import { defaultBackend } from "../crypto/index.js";
import { randomxStatus } from "../crypto/randomx.js";
import { startDaemon } from "../node/daemon.js";
import { startWalletRpc } from "../wallet/rpc/index.js";
import { WalletService } from "../wallet/service/index.js";
import { type FlagSpec, type ParsedArgs, runCli, UsageError } from "./args.js";
import { VERSION } from "./version.js";

/** The devnet's flags. */
export const DEVNET_FLAGS: readonly FlagSpec[] = [
  { name: "version", takesValue: false, help: "Print the version and exit" },
  { name: "data-dir", takesValue: true, help: "Where the chain and wallets live", defaultValue: "./data" },
  { name: "rpc-bind-ip", takesValue: true, help: "IP both RPC servers bind to", defaultValue: "127.0.0.1" },
  { name: "rpc-bind-port", takesValue: true, help: "Node RPC port", defaultValue: "18081" },
  { name: "wallet-rpc-bind-port", takesValue: true, help: "Wallet RPC port", defaultValue: "18083" },
  { name: "log-level", takesValue: true, help: "Log level (0-4)", defaultValue: "0" },
];

/** A value flag's text, or its default. */
function str(args: ParsedArgs, name: string): string {
  const v = args.get(name);
  if (typeof v === "string") return v;
  return DEVNET_FLAGS.find((f) => f.name === name)?.defaultValue ?? "";
}

function port(args: ParsedArgs, name: string): number {
  const text = str(args, name);
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new UsageError(`--${name} must be a port number 0-65535 (got '${text}')`);
  return n;
}

async function main(args: ParsedArgs): Promise<number> {
  if (args.has("version")) {
    console.log(`tsmonero ${VERSION}`);
    return 0;
  }
  const dataDir = resolve(str(args, "data-dir"));
  const bindIp = str(args, "rpc-bind-ip");
  const nodePort = port(args, "rpc-bind-port");
  const walletPort = port(args, "wallet-rpc-bind-port");
  const logLevelText = str(args, "log-level");
  if (!/^[0-4]$/.test(logLevelText)) throw new UsageError(`--log-level must be 0-4 (got '${logLevelText}')`);

  console.log(`tsmonero ${VERSION} devnet (crypto: ${defaultBackend().name}; ${randomxStatus().available ? "RandomX available" : "RandomX unavailable"})`);
  let daemon: Awaited<ReturnType<typeof startDaemon>>;
  try {
    daemon = await startDaemon({
      network: "regtest",
      dataDir,
      fixedDifficulty: 1n,
      offline: true,
      keepFakechain: true,
      rpcBindIp: bindIp,
      rpcBindPort: nodePort,
      logLevel: Number(logLevelText),
      logToConsole: false,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") console.error(`tsmonero: node RPC port ${bindIp}:${nodePort} is in use; choose another with --rpc-bind-port`);
    else console.error(`tsmonero: cannot start the node: ${err.message ?? String(e)}`);
    return 1;
  }

  const walletDir = join(dataDir, "wallets");
  mkdirSync(walletDir, { recursive: true, mode: 0o700 });
  // regtest uses mainnet addresses (as monerod --regtest); the wallet talks to the node over its RPC
  const service = new WalletService({
    network: "mainnet",
    walletDir,
    node: new NodeClient({ url: daemon.rpcUrl }),
    trusted: true,
    log: (m) => daemon.log(1, `wallet: ${m}`),
  });
  let wallet: Awaited<ReturnType<typeof startWalletRpc>>;
  try {
    wallet = await startWalletRpc({ service, port: walletPort, host: bindIp, log: (m) => daemon.log(1, `wallet rpc: ${m}`) });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    console.error(
      err.code === "EADDRINUSE"
        ? `tsmonero: wallet RPC port ${bindIp}:${walletPort} is in use; choose another with --wallet-rpc-bind-port`
        : `tsmonero: cannot start the wallet RPC: ${err.message ?? String(e)}`,
    );
    await daemon.stop("wallet RPC failed to start");
    return 1;
  }
  service.start();
  console.log(`node RPC (monerod-compatible):                 ${daemon.rpcUrl}/json_rpc`);
  console.log(`wallet RPC (monero-wallet-rpc-compatible):    ${wallet.url}/json_rpc`);
  console.log(`data: ${dataDir} (chain in fake/lmdb, wallets in wallets/)`);
  console.log(`mine blocks: curl -s ${daemon.rpcUrl}/json_rpc -d '{"jsonrpc":"2.0","id":"0","method":"generateblocks","params":{"amount_of_blocks":10,"wallet_address":"<address>"}}'`);

  let stopping: Promise<void> | null = null;
  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      try {
        await service.stop();
      } catch (e) {
        console.error(`tsmonero: storing the open wallet failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      await wallet.close().catch(() => undefined);
      await daemon.stop(why);
    })();
    return stopping;
  };
  service.onStop = () => void stop("stop_wallet");
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
  await daemon.stopped;
  // /stop_daemon stops the node first; the wallet is stored all the same
  await stop("node stopped");
  console.log("tsmonero: stopped (wallet stored, database closed)");
  return 0;
}

await runCli("tsmonero", `tsmonero ${VERSION}: a private Monero regtest devnet (node + wallet RPC in one process).`, DEVNET_FLAGS, main);
