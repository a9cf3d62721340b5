/**
 * A real monerod for interop tests (Debian package `monero`): regtest, offline, fixed difficulty 1,
 * loopback only, a temporary data dir removed on stop. Callers pick ports from their own range.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NoDaemonConnectionError, type NodeClient } from "../../src/client/node-client.js";

/** A started monerod and the tail of what it printed. */
export interface Daemon {
  proc: ChildProcess;
  dir: string;
  url: string;
  output: string[];
}

/**
 * Monero's own binaries with plain-HTTP RPC unless a test asks for TLS: with the default
 * `autodetect`, monerod and monero-wallet-rpc generate an RSA-4096 certificate at startup, and the
 * wallet another one for its daemon connection at every create, restore and open (epee's
 * ssl_options_t::create_context), ~3–6 s of CPU each on this machine; the suite started hundreds.
 * The TLS tests (tls-wallet-interop) spawn with the defaults on purpose and do not come through here.
 */
export function withoutMoneroTls(bin: string, args: readonly string[]): string[] {
  const out = [...args];
  const real = bin.startsWith("/usr/bin/monero");
  if (real && !out.includes("--rpc-ssl")) out.push("--rpc-ssl", "disabled");
  if (real && bin.endsWith("monero-wallet-rpc") && !out.includes("--daemon-ssl")) out.push("--daemon-ssl", "disabled");
  return out;
}

/** Spawns a Monero binary (withoutMoneroTls), keeping the last 200 chunks of its output for error messages. */
export function startProcess(bin: string, args: string[], dir: string, url: string, env?: NodeJS.ProcessEnv): Daemon {
  const proc = spawn(bin, withoutMoneroTls(bin, args), { stdio: ["ignore", "pipe", "pipe"], ...(env ? { env: { ...process.env, ...env } } : {}) });
  const output: string[] = [];
  const keep = (b: Buffer): void => {
    output.push(b.toString());
    if (output.length > 200) output.shift();
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  return { proc, dir, url, output };
}

/** Starts `/usr/bin/monerod --regtest --offline --fixed-difficulty 1` on loopback with extra flags. */
export function startMonerod(rpcPort: number, p2pPort: number, extra: string[] = []): Daemon {
  const dir = mkdtempSync(join(tmpdir(), "tsmonero-monerod-"));
  const args = [
    "--regtest", "--offline", "--fixed-difficulty", "1", "--data-dir", dir,
    "--rpc-bind-ip", "127.0.0.1", "--rpc-bind-port", String(rpcPort),
    "--p2p-bind-ip", "127.0.0.1", "--p2p-bind-port", String(p2pPort),
    "--no-zmq", "--non-interactive", "--log-level", "0", ...extra,
  ];
  // monerod's own level-2 log, kept outside its temp dir, when chasing an intermittent failure
  const logDir = process.env.TSMONERO_TEST_REAL_WALLET_LOG_DIR;
  if (logDir) args.splice(args.indexOf("--log-level"), 2, "--log-level", "2", "--log-file", `${logDir}/monerod-${rpcPort}-${Date.now()}.log`);
  return startProcess("/usr/bin/monerod", args, dir, `http://127.0.0.1:${rpcPort}`);
}

/** Waits until `probe` (by default get_height) answers; fails with the process's output if it exits. */
export async function waitReady(
  d: Daemon,
  client: NodeClient,
  ms = 30_000,
  probe = (): Promise<unknown> => client.getHeight({ timeoutMs: 1000 }),
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (d.proc.exitCode !== null) throw new Error(`${d.proc.spawnfile} exited ${d.proc.exitCode}: ${d.output.join("").slice(-2000)}`);
    try {
      await probe();
      return;
    } catch (e) {
      if (!(e instanceof NoDaemonConnectionError) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** SIGTERM (SIGKILL after 8 s), then removes the data dir. */
export async function stopDaemon(d: Daemon | undefined): Promise<void> {
  if (!d) return;
  if (d.proc.exitCode === null) {
    const gone = new Promise((r) => d.proc.once("exit", r));
    d.proc.kill("SIGTERM");
    const t = setTimeout(() => d.proc.kill("SIGKILL"), 8000);
    await gone;
    clearTimeout(t);
  }
  rmSync(d.dir, { recursive: true, force: true });
}
