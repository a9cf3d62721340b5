/**
 * The web console's HTTP server (issue 21): static files from assets/console (the page, its style
 * and the browser modules compiled from web/console) and a same-origin pass-through to the RPC
 * servers the clients use — /node/<path> to the node RPC, /wallet/<path> to the wallet RPC — so the
 * page needs no CORS and talks only the public JSON-RPC (no back-channel: the proxy copies bytes).
 *
 * - Static files are read once at start into a table keyed by exact URL path ("/", "/app.js", …):
 *   a request path is looked up, never joined to a file system path, so no traversal is possible.
 *   Content types by extension; anything else is 404.
 * - /console.json: what the page cannot learn from the RPC — which RPCs this console fronts and the
 *   devnet's dev wallets (names and addresses: public, fixed by the devnet).
 * - Proxied requests must carry `X-Tsmonero-Console: 1` and, when the browser sends an Origin, come
 *   from this server's own origin: a page on another site cannot add that header without a CORS
 *   preflight (which is refused), so it cannot make the local wallet send coins (CSRF). The Host
 *   must be the one the server was bound to or a loopback name (DNS rebinding).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A dev wallet the console lists (devnet only). */
export interface ConsoleDevWallet {
  readonly name: string;
  readonly address: string;
}

/** What the page reads from /console.json. */
export interface ConsoleConfig {
  /** The node RPC is proxied under /node (null: this console has no node RPC). */
  readonly node: boolean;
  /** The wallet RPC is proxied under /wallet (null: none). */
  readonly wallet: boolean;
  /** The devnet's dev wallets (empty outside the devnet). */
  readonly devWallets: readonly ConsoleDevWallet[];
  /** The dev wallets' password, for open_wallet. */
  readonly devPassword: string;
  /** "devnet" | "node" | "wallet": what serves this console. */
  readonly served: string;
}

export interface ConsoleOptions {
  readonly host: string;
  readonly port: number;
  /** Base URL of the node RPC (http://host:port), or null. */
  readonly nodeUrl: string | null;
  /** Base URL of the wallet RPC, or null. */
  readonly walletUrl: string | null;
  readonly devWallets?: readonly ConsoleDevWallet[];
  readonly devPassword?: string;
  readonly served: "devnet" | "node" | "wallet";
  /** Where the static files are; default: assets/console of this package. */
  readonly assetsDir?: string;
  readonly log?: (line: string) => void;
}

export interface WebConsole {
  readonly url: string;
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** The header a proxied request must carry (a cross-site page cannot send it without a preflight). */
export const CONSOLE_HEADER = "x-tsmonero-console";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** assets/console of this package (dist/src/console → ../../../assets, src/console → ../../assets). */
export function defaultAssetsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["../../..", "../.."]) {
    const dir = join(here, up, "assets", "console");
    try {
      if (statSync(join(dir, "index.html")).isFile()) return dir;
    } catch {
      // not here
    }
  }
  throw new Error(`web console files not found (looked for assets/console/index.html above ${here}); run npm run build`);
}

interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
}

/** Every file of `dir` with a known type, by URL path; index.html also as "/". */
function loadStatic(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type || !statSync(join(dir, name)).isFile()) continue;
    files.set(`/${name}`, { body: readFileSync(join(dir, name)), type });
  }
  const index = files.get("/index.html");
  if (!index) throw new Error(`web console: ${dir}/index.html is missing`);
  files.set("/", index);
  if (!files.has("/app.js")) throw new Error(`web console: ${dir}/app.js is missing (the browser code is built by npm run build)`);
  return files;
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "content-length": String(Buffer.byteLength(body)),
    "x-content-type-options": "nosniff",
    "cache-control": "no-cache",
    ...extra,
  });
  res.end(body);
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Starts the console's server. */
export async function startWebConsole(o: ConsoleOptions): Promise<WebConsole> {
  const files = loadStatic(o.assetsDir ?? defaultAssetsDir());
  const config: ConsoleConfig = {
    node: o.nodeUrl !== null,
    wallet: o.walletUrl !== null,
    devWallets: o.devWallets ?? [],
    devPassword: o.devPassword ?? "",
    served: o.served,
  };
  const configBody = JSON.stringify(config);
  const hostOk = (host: string | undefined): boolean => {
    if (!host) return false;
    const name = host.replace(/:\d+$/, "");
    return LOOPBACK_NAMES.has(name) || name === o.host || (o.host.includes(":") && name === `[${o.host}]`) || o.host === "0.0.0.0" || o.host === "::";
  };

  const proxy = (req: IncomingMessage, res: ServerResponse, base: string, path: string): void => {
    if (req.headers[CONSOLE_HEADER] !== "1") {
      send(res, 403, "text/plain; charset=utf-8", `the console's RPC pass-through needs the header ${CONSOLE_HEADER}: 1 (call the RPC server itself instead)\n`);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`) {
      send(res, 403, "text/plain; charset=utf-8", `cross-origin request from ${origin} refused\n`);
      return;
    }
    const target = new URL(path, base);
    const headers: Record<string, string> = { "content-type": req.headers["content-type"] ?? "application/json" };
    if (req.headers["content-length"] !== undefined) headers["content-length"] = req.headers["content-length"];
    if (req.headers.authorization !== undefined) headers.authorization = req.headers.authorization;
    const up = httpRequest(target, { method: req.method, headers }, (ur) => {
      const h: Record<string, string> = { "content-type": ur.headers["content-type"] ?? "application/json", "cache-control": "no-store" };
      if (ur.headers["content-length"] !== undefined) h["content-length"] = ur.headers["content-length"];
      if (ur.headers["www-authenticate"] !== undefined) h["www-authenticate"] = String(ur.headers["www-authenticate"]);
      res.writeHead(ur.statusCode ?? 502, h);
      ur.pipe(res);
    });
    up.on("error", (e) => {
      if (res.headersSent) res.destroy();
      else send(res, 502, "text/plain; charset=utf-8", `the console cannot reach ${base}: ${e.message}\n`);
    });
    req.pipe(up);
  };

  const server: Server = createServer((req, res) => {
    const url = req.url ?? "/";
    const path = url.split("?")[0];
    if (!hostOk(req.headers.host)) {
      send(res, 421, "text/plain; charset=utf-8", `unexpected Host ${req.headers.host ?? "(none)"}\n`);
      return;
    }
    if (path.startsWith("/node/") && o.nodeUrl) return proxy(req, res, o.nodeUrl, url.slice("/node".length));
    if (path.startsWith("/wallet/") && o.walletUrl) return proxy(req, res, o.walletUrl, url.slice("/wallet".length));
    if (req.method !== "GET" && req.method !== "HEAD") {
      send(res, 405, "text/plain; charset=utf-8", "method not allowed\n", { allow: "GET, HEAD" });
      return;
    }
    if (path === "/console.json") return send(res, 200, TYPES[".json"], configBody);
    const f = files.get(path);
    if (!f) return send(res, 404, "text/plain; charset=utf-8", "not found\n");
    if (req.method === "HEAD") {
      res.writeHead(200, { "content-type": f.type, "content-length": String(f.body.length) });
      res.end();
      return;
    }
    send(res, 200, f.type, f.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const boundPort = address.port;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  o.log?.(`web console on http://${host}:${boundPort}/`);
  return {
    url: `http://${host}:${boundPort}`,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
