/**
 * HTTP digest authentication (RFC 2617) as epee implements it for `--rpc-login`
 * (contrib/epee/src/http_auth.cpp): realm "monero-rpc", qop="auth", MD5 and MD5-sess, a random
 * 128-bit base64 nonce, and a 401 carrying two WWW-authenticate challenges (MD5, then MD5-sess)
 * with `stale=true` when the response was right but the nonce or nonce count was not.
 *
 * One difference from epee: epee keeps one nonce per connection and wants nc to count up by exactly
 * one. Here nonces live in a bounded table shared by all connections and each nc may be used once,
 * so a client that spreads requests over several keep-alive connections does not get bounced.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const DEFAULT_REALM = "monero-rpc";

export interface Login {
  username: string;
  password: string;
}

/** Parses `user:pass` (the password may contain ':'; a missing one is ""). */
export function parseLogin(s: string): Login {
  const k = s.indexOf(":");
  return k < 0 ? { username: s, password: "" } : { username: s.slice(0, k), password: s.slice(k + 1) };
}

const md5 = (s: string): string => createHash("md5").update(s, "utf8").digest("hex");

/** Parses `Digest a="b", c=d, ...` into lower-cased keys; undefined when not a digest header. */
export function parseDigestHeader(h: string): Map<string, string> | undefined {
  const m = /^\s*Digest\s+/i.exec(h);
  if (!m) return undefined;
  const out = new Map<string, string>();
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/gy;
  re.lastIndex = m[0].length;
  let mm: RegExpExecArray | null;
  while (re.lastIndex < h.length && (mm = re.exec(h)) !== null) {
    out.set(mm[1].toLowerCase(), mm[2] !== undefined ? mm[2].replace(/\\(.)/g, "$1") : mm[3]);
    if (mm[0].length === 0) break;
  }
  return out;
}

function responseFor(
  p: { algorithm: string; nonce: string; cnonce: string; nc: string; qop: string; method: string; uri: string },
  login: Login,
  realm: string,
): string {
  let ha1 = md5(`${login.username}:${realm}:${login.password}`);
  if (/-sess$/i.test(p.algorithm)) ha1 = md5(`${ha1}:${p.nonce}:${p.cnonce}`);
  const ha2 = md5(`${p.method}:${p.uri}`);
  return p.qop ? md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`) : md5(`${ha1}:${p.nonce}:${ha2}`);
}

interface NonceState {
  created: number;
  used: Set<number>;
}

export type AuthResult = { ok: true } | { ok: false; challenges: string[] };

/** Server side: checks Authorization headers and issues challenges. */
export class DigestAuthenticator {
  private readonly nonces = new Map<string, NonceState>();
  constructor(
    private readonly login: Login,
    private readonly realm = DEFAULT_REALM,
    private readonly opts: { maxNonces?: number; nonceLifetimeMs?: number; maxNcPerNonce?: number } = {},
  ) {}

  private challenge(stale: boolean): string[] {
    const nonce = randomBytes(16).toString("base64");
    const max = this.opts.maxNonces ?? 4096;
    while (this.nonces.size >= max) {
      const oldest = this.nonces.keys().next().value as string;
      this.nonces.delete(oldest);
    }
    this.nonces.set(nonce, { created: Date.now(), used: new Set() });
    return ["MD5", "MD5-sess"].map(
      (alg) => `Digest qop="auth",algorithm=${alg},realm="${this.realm}",nonce="${nonce}",stale=${stale}`,
    );
  }

  /** `method` is the HTTP method, `url` the request-target exactly as received. */
  check(method: string, url: string, authorization: string | undefined): AuthResult {
    if (authorization === undefined) return { ok: false, challenges: this.challenge(false) };
    const p = parseDigestHeader(authorization);
    const get = (k: string): string => p?.get(k) ?? "";
    if (!p || get("username") !== this.login.username || get("uri") !== url || get("realm") !== this.realm)
      return { ok: false, challenges: this.challenge(false) };
    const algorithm = get("algorithm") || "MD5";
    const qop = get("qop");
    if (!/^MD5(-sess)?$/i.test(algorithm) || (qop !== "" && qop.toLowerCase() !== "auth"))
      return { ok: false, challenges: this.challenge(false) };
    const fields = { algorithm, nonce: get("nonce"), cnonce: get("cnonce"), nc: get("nc"), qop, method, uri: url };
    const expect = Buffer.from(responseFor(fields, this.login, this.realm), "latin1");
    const got = Buffer.from(get("response").toLowerCase(), "latin1");
    if (got.length !== expect.length || !timingSafeEqual(got, expect)) return { ok: false, challenges: this.challenge(false) };
    // right password: now the nonce must be ours, fresh, and the count unused
    const st = this.nonces.get(fields.nonce);
    const lifetime = this.opts.nonceLifetimeMs ?? 10 * 60_000;
    if (!st || Date.now() - st.created > lifetime) return { ok: false, challenges: this.challenge(true) };
    const nc = qop ? parseInt(fields.nc, 16) : 1; // RFC 2069 form (no qop): one use per nonce
    if (!Number.isSafeInteger(nc) || nc <= 0 || st.used.has(nc) || st.used.size >= (this.opts.maxNcPerNonce ?? 100_000))
      return { ok: false, challenges: this.challenge(true) };
    st.used.add(nc);
    return { ok: true };
  }
}

/** Client side: answers a server's challenge, counting nc per nonce. */
export class DigestClient {
  private server: { realm: string; nonce: string; algorithm: string; qop: string; opaque?: string } | undefined;
  private nc = 0;
  constructor(private readonly login: Login) {}

  /** Takes the WWW-Authenticate header values of a 401. Returns false when none is a usable digest challenge. */
  onChallenge(headers: string[]): boolean {
    let best: DigestClient["server"];
    for (const h of headers) {
      const p = parseDigestHeader(h);
      if (!p) continue;
      const alg = p.get("algorithm") ?? "MD5";
      if (!/^MD5(-sess)?$/i.test(alg)) continue;
      const qops = (p.get("qop") ?? "").split(",").map((s) => s.trim().toLowerCase());
      const cand = { realm: p.get("realm") ?? "", nonce: p.get("nonce") ?? "", algorithm: alg, qop: qops.includes("auth") ? "auth" : "", opaque: p.get("opaque") };
      // prefer plain MD5 with qop=auth, as epee's client does
      if (!best || (/^MD5$/i.test(alg) && !/^MD5$/i.test(best.algorithm))) best = cand;
    }
    if (!best) return false;
    this.server = best;
    this.nc = 0;
    return true;
  }

  get ready(): boolean {
    return this.server !== undefined;
  }

  /** The Authorization header for the next request, or undefined before any challenge. */
  header(method: string, uri: string): string | undefined {
    const s = this.server;
    if (!s) return undefined;
    this.nc++;
    const nc = this.nc.toString(16).padStart(8, "0");
    const cnonce = randomBytes(16).toString("base64");
    const response = responseFor({ algorithm: s.algorithm, nonce: s.nonce, cnonce, nc, qop: s.qop, method, uri }, this.login, s.realm);
    const parts = [`username="${this.login.username}"`, `realm="${s.realm}"`, `nonce="${s.nonce}"`, `uri="${uri}"`, `algorithm=${s.algorithm}`, `response="${response}"`];
    if (s.qop) parts.push(`qop=${s.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
    if (s.opaque !== undefined) parts.push(`opaque="${s.opaque}"`);
    return `Digest ${parts.join(", ")}`;
  }
}
