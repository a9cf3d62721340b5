/**
 * `tsmonerod`: the node daemon, accepting monerod's flags with monerod's meanings. It opens the
 * chain in --data-dir, serves monerod's RPC (src/node/rpc) and stops cleanly on SIGTERM, SIGINT or
 * /stop_daemon. Every flag of monerod 0.18 is recognised (node-flags.ts): flags of features not
 * active here (P2P, ZMQ, RPC payment, …) are accepted and logged, the flags are read from a config
 * file too (--config-file, default ~/.bitmonero/bitmonero.conf); an unknown flag is an error naming it.
 */
import { release, type } from "node:os";
import { startWebConsole, type WebConsole } from "../console/server.js";
import { startDaemon } from "../node/daemon.js";
import { inactiveNotes, runCli } from "./args.js";
import { detach, isDetachedChild, reportStart, writePidFile } from "./detach.js";
import { defaultNodeConfigFile, nodeConfig } from "./node-config.js";
import { NODE_FLAGS } from "./node-flags.js";
import { VERSION } from "./version.js";

export { NODE_FLAGS };

await runCli(
  "tsmonerod",
  `tsmonerod ${VERSION}: a Monero node (monerod-compatible RPC), written in TypeScript.`,
  NODE_FLAGS,
  async (args) => {
    if (args.has("version")) {
      console.log(`tsmonerod ${VERSION}`);
      return 0;
    }
    if (args.has("os-version")) {
      console.log(`OS: ${type()} ${release()}`);
      return 0;
    }
    const config = nodeConfig(args);
    // the flags are checked above, in the terminal; the detached copy runs the same command line
    if (config.detach && !isDetachedChild()) return detach("tsmonerod");
    const detached = isDetachedChild();
    const cfg = { ...config.daemon, ...(detached ? { logToConsole: false } : {}) };
    let removePid: (() => void) | undefined;
    let daemon: Awaited<ReturnType<typeof startDaemon>>;
    try {
      if (detached && config.pidfile !== undefined) removePid = writePidFile(config.pidfile);
      daemon = await startDaemon(cfg);
    } catch (e) {
      removePid?.();
      const err = e as NodeJS.ErrnoException & { port?: number };
      let msg: string;
      if (err.code === "EADDRINUSE" || err.code === "EACCES" || err.code === "EADDRNOTAVAIL")
        msg = `cannot serve RPC on ${cfg.rpcBindIp}:${err.port ?? cfg.rpcBindPort} (${err.code}): another process uses the port, or choose another with --rpc-bind-port / --rpc-restricted-bind-port`;
      else msg = `cannot start: ${err.message ?? String(e)}`;
      console.error(`tsmonerod: ${msg}`);
      reportStart({ ok: false, message: msg });
      return 1;
    }
    for (const n of [...inactiveNotes(args, NODE_FLAGS), ...config.notes]) daemon.log(0, `tsmonerod: ${n}`);
    let webConsole: WebConsole | null = null;
    const consolePort = args.get("web-console-port");
    if (typeof consolePort === "string") {
      const why = cfg.rpcLogin !== undefined ? "--rpc-login (the console cannot log in)" : cfg.rpcSsl?.support === "enabled" ? "--rpc-ssl enabled (the console speaks plain HTTP to the RPC)" : null;
      const port = /^[0-9]{1,5}$/.test(consolePort) && Number(consolePort) <= 65535 ? Number(consolePort) : null;
      const refuse = port === null ? `--web-console-port needs a port 0-65535 (got '${consolePort}')` : why ? `--web-console-port cannot be used with ${why}` : null;
      try {
        if (refuse) throw new Error(refuse);
        webConsole = await startWebConsole({ host: cfg.rpcBindIp ?? "127.0.0.1", port: port as number, nodeUrl: daemon.rpcUrl, walletUrl: null, served: "node" });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        const msg = err.code === "EADDRINUSE" ? `web console port ${consolePort} is in use; choose another with --web-console-port` : (err.message ?? String(e));
        console.error(`tsmonerod: ${msg}`);
        reportStart({ ok: false, message: msg });
        await daemon.stop("web console failed to start");
        removePid?.();
        return 1;
      }
      console.log(`tsmonerod: web console on ${webConsole.url}/`);
    }
    const listening = `RPC listening on ${daemon.rpcUrl}${daemon.restrictedRpcUrl ? ` (restricted RPC on ${daemon.restrictedRpcUrl})` : ""}`;
    console.log(`tsmonerod: ${listening}`);
    reportStart({ ok: true, message: listening });
    let signals = 0;
    const onSignal = (sig: string): void => {
      signals++;
      if (signals > 1) {
        console.error(`tsmonerod: second ${sig}, exiting now`);
        process.exit(1);
      }
      void daemon.stop(sig);
    };
    process.on("SIGTERM", () => onSignal("SIGTERM"));
    process.on("SIGINT", () => onSignal("SIGINT"));
    await daemon.stopped;
    await webConsole?.close();
    removePid?.();
    return 0;
  },
  { defaultPath: defaultNodeConfigFile },
);
