/**
 * The addresses monerod's ZMQ sockets bind (--zmq-pub tcp://ip:port or ipc://path; the RPC's
 * tcp://<--zmq-rpc-bind-ip>:<--zmq-rpc-bind-port>), checked before anything binds so that a typo
 * is reported with what to write instead of libzmq's "Invalid argument".
 */
import { isIP } from "node:net";

export class ZmqAddressError extends Error {
  override name = "ZmqAddressError";
}

/** Checks a --zmq-pub value; returns it as libzmq takes it. */
export function checkPubAddress(address: string, flag = "--zmq-pub"): string {
  if (address.startsWith("ipc://")) {
    if (address.length === "ipc://".length) throw new ZmqAddressError(`${flag} ${address}: ipc:// needs a path (e.g. ipc:///tmp/monero-pub)`);
    return address;
  }
  const m = /^tcp:\/\/(\[[^\]]*\]|[^:/]*):(\d+)$/.exec(address);
  if (!m) throw new ZmqAddressError(`${flag} '${address}' is not tcp://ip:port or ipc://path (e.g. tcp://127.0.0.1:18083)`);
  const host = m[1].startsWith("[") ? m[1].slice(1, -1) : m[1];
  if (host !== "*" && isIP(host) === 0) throw new ZmqAddressError(`${flag} '${address}': '${host}' is not an IP address (write tcp://<IPv4>:port, tcp://[<IPv6>]:port or tcp://*:port)`);
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ZmqAddressError(`${flag} '${address}': port ${m[2]} is not between 1 and 65535`);
  return address;
}

/** tcp://ip:port for the ZMQ RPC (ZmqServer::init_rpc); an IPv6 address is bracketed. */
export function rpcAddress(ip: string, port: number): string {
  return `tcp://${ip.includes(":") ? `[${ip}]` : ip}:${port}`;
}

/** libzmq's bind failure in words, with what to do about it. */
export function bindErrorMessage(what: string, address: string, e: unknown): string {
  const code = (e as { code?: string } | null)?.code;
  const msg = e instanceof Error ? e.message : String(e);
  if (code === "EADDRINUSE") return `${what}: ${address} is already in use (another monerod or tsmonerod?); stop it or choose another port`;
  if (code === "EADDRNOTAVAIL") return `${what}: cannot bind ${address}: the IP is not an address of this machine; use one of its addresses, 127.0.0.1 or *`;
  if (code === "EACCES") return `${what}: cannot bind ${address}: permission denied (ports below 1024 need privileges; an ipc:// path needs a writable directory)`;
  return `${what}: cannot bind ${address}: ${msg}`;
}
