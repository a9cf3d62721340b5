/**
 * TCP_QUICKACK for the RPC servers' connections (native/net/addon.c says why: epee's HTTP client
 * sends a request's head and body in two writes with Nagle on, so a server that delays its ACK of
 * the head stalls every plain-HTTP request by the kernel's delayed-ACK time, ~40 ms on Linux).
 *
 * Optional: without the addon (no C compiler at install, or `TSMONERO_SKIP_NATIVE=1`) or off Linux,
 * `quickAck` does nothing and the server behaves as monerod's does.
 */
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface NetAddon {
  quickAck(fd: number): boolean;
}

/** What net.Socket keeps of its libuv handle: on Linux a TCP handle's file descriptor. */
interface WithHandle {
  _handle?: { fd?: number } | null;
}

// Compiled JS lives in dist/src/rpc/, so the package root is three levels up.
const ADDON_PATH = join(fileURLToPath(new URL("../../../", import.meta.url)), "build", "Release", "tsmonero_net.node");

let addon: NetAddon | null | undefined;

function load(): NetAddon | null {
  if (addon !== undefined) return addon;
  try {
    addon = process.platform === "linux" ? (createRequire(import.meta.url)(ADDON_PATH) as NetAddon) : null;
  } catch {
    addon = null; // not built: plain delayed ACKs, as monerod
  }
  return addon;
}

/** Whether quickAck can act here (the addon is built and the platform has TCP_QUICKACK). */
export function quickAckAvailable(): boolean {
  return load() !== null;
}

/** Times quickAck has asked the kernel (a system call each) in this process: for tests. */
let setCount = 0;
export const quickAckCalls = (): number => setCount;

/**
 * Asks the kernel to acknowledge the next segments of `socket` at once (and to send an ACK it
 * holds now). Call it when HTTP starts on a connection (after TLS's handshake) and after each
 * answer written: the kernel drops back to delayed ACKs by itself.
 * Returns whether the option was set.
 */
export function quickAck(socket: Socket): boolean {
  const a = load();
  if (a === null) return false;
  const fd = (socket as unknown as WithHandle)._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return false;
  setCount++;
  return a.quickAck(fd);
}
