/**
 * tsmonero-wallet-rpc's RPC layer: the method table over a WalletService (methods.ts) on the shared
 * RpcServer (src/rpc). One server serves one service; a process may run several.
 */
import type { AddressInfo } from "node:net";
import { type Login, type RpcRoute, RpcServer, type ServerTls } from "../../rpc/index.js";
import type { WalletHub } from "../hub/hub.js";
import type { WalletService } from "../service/service.js";
import { walletEvents } from "../events/events.js";
import { hubRoutes } from "./hub.js";
import { eventStream } from "./stream.js";
import { type WalletDef, walletMethods, type WalletMethodsOptions, type WalletRpcDeps } from "./methods.js";

export * from "./methods.js";
export { hubRoutes } from "./hub.js";
export * from "./api.js";

export interface WalletRpcOptions extends WalletMethodsOptions {
  readonly service: WalletService;
  readonly port: number;
  readonly host?: string;
  /** HTTP digest login; none = --disable-rpc-login. */
  readonly login?: Login;
  /** --restricted-rpc. */
  readonly restricted?: boolean;
  readonly maxConnections?: number;
  /** Per loopback/private IP; per public IP with maxConnectionsPerPublicIp. */
  readonly maxConnectionsPerIp?: number;
  readonly maxConnectionsPerPublicIp?: number;
  /** --rpc-access-control-origins: CORS for these origins ("*": any). */
  readonly accessControlOrigins?: readonly string[];
  /** --rpc-response-soft-limit (bytes). */
  readonly responseSoftLimit?: number;
  /** --rpc-use-ipv6: also listen on this IPv6 address; --rpc-ignore-ipv4 (requireIpv4 false) lets a failed IPv4 bind pass. */
  readonly ipv6Host?: string;
  readonly requireIpv4?: boolean;
  /** Time allowed to receive a whole request (head + body) from its first byte, ms. Default 30 s, as the node. */
  readonly requestTimeoutMs?: number;
  /** Idle keep-alive connections close after this, ms. Default: epee's (30 min local, 5 min remote), as the node. */
  readonly idleTimeoutMs?: number;
  /** "epee" (default): the text monero-wallet-rpc writes; "compact": the same JSON without whitespace, faster for big lists. */
  readonly jsonStyle?: "epee" | "compact";
  /** --rpc-ssl*: TLS of the server (src/rpc/tls.ts); absent: plain HTTP. */
  readonly tls?: ServerTls;
  /** Many wallets in one process (/wallets/json_rpc, /wallets/NAME/json_rpc; ./hub.ts). */
  readonly hub?: WalletHub;
  /** More real methods (e.g. the sending ones); each replaces the −48 stub of its name. */
  readonly extraMethods?: (d: WalletRpcDeps) => WalletDef[];
}

export interface WalletRpc {
  readonly server: RpcServer;
  readonly address: AddressInfo;
  readonly url: string;
  /** Stops the server (the service is stopped by its owner). */
  close(): Promise<void>;
}

/** /events (the drop-in wallet's stream, the server's login) and, with a hub, its /wallets/… routes. */
function walletRoutes(o: WalletRpcOptions): (path: string) => RpcRoute | undefined {
  const events: RpcRoute = { stream: eventStream(o.service, o.log) };
  const hub = o.hub ? hubRoutes(o.hub, o, o.extraMethods) : undefined;
  return (path) => (path === "/events" ? events : hub?.(path));
}

/** Starts the HTTP server for `service` (monero-wallet-rpc answers no size limit; we allow 64 MiB). */
export async function startWalletRpc(o: WalletRpcOptions): Promise<WalletRpc> {
  walletEvents(o.service, o.log ? { log: o.log } : {}); // push events of the drop-in wallet (webhooks), from its open on
  const server = new RpcServer({
    methods: walletMethods(o.service, o, o.extraMethods),
    routes: walletRoutes(o),
    restricted: o.restricted ?? false,
    login: o.login,
    maxBodyBytes: 64 * 1024 * 1024,
    // the time a handler takes (a long refresh or rescan) is not counted: only receiving the request
    requestTimeoutMs: o.requestTimeoutMs ?? 30_000,
    ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}), // default: epee's, as the node
    maxConnections: o.maxConnections,
    maxConnectionsPerIp: o.maxConnectionsPerIp,
    ...(o.maxConnectionsPerPublicIp !== undefined ? { maxConnectionsPerPublicIp: o.maxConnectionsPerPublicIp } : {}),
    ...(o.accessControlOrigins ? { accessControlOrigins: o.accessControlOrigins } : {}),
    ...(o.responseSoftLimit !== undefined ? { responseSoftLimit: o.responseSoftLimit } : {}),
    jsonStyle: o.jsonStyle,
    log: o.log,
    ...(o.tls ? { tls: o.tls } : {}),
  });
  let address: AddressInfo;
  try {
    address = await server.listen(o.port, o.host ?? "127.0.0.1");
    if (o.ipv6Host !== undefined) await server.listen(address.port, o.ipv6Host);
  } catch (e) {
    if (o.ipv6Host === undefined || o.requireIpv4 !== false) {
      await server.close();
      throw e;
    }
    address = await server.listen(o.port, o.ipv6Host);
  }
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { server, address, url: `http://${host}:${address.port}`, close: () => server.close() };
}
