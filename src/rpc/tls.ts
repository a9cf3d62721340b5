/**
 * TLS for the RPC servers and the node client, as epee does it (contrib/epee/src/net_ssl.cpp,
 * src/rpc/rpc_args.cpp, wallet2::init_options' --daemon-ssl* flags):
 *
 * - support `enabled` (TLS only: a plain request fails the handshake and is dropped), `disabled`
 *   (plain only: a connection opening with a TLS record is closed at once, as monerod does, so a
 *   client that tries TLS first falls back without waiting) or `autodetect` (both on one port: a connection whose
 *   first byte is 0x16, a TLS handshake record, is served over TLS, anything else as plain HTTP);
 * - the certificate: `--rpc-ssl-certificate` + `--rpc-ssl-private-key` (PEM, both or neither), or
 *   a self-signed one generated at start (epee: RSA 4096, 182 days; here ECDSA P-256 signed with
 *   SHA-256 by the `selfsigned` package, in the background: a TLS client arriving first waits for
 *   it). P-256 because an RSA key costs 0.1–0.3 s of CPU to make (on one core, that time is taken
 *   from the wallet's first scan) and more per handshake; epee's cipher list puts the ECDSA suites
 *   first, and a pinned fingerprint is a fingerprint whatever the key;
 * - peer verification (ssl_options_t::configure): `none`; `system_ca` (the default: the system's
 *   CAs, with the host name checked on the client side; a server then asks for no client
 *   certificate); `user_certificates` (given fingerprints and/or CA file: the peer's own
 *   certificate must be in the CA file, or its SHA-256 among the fingerprints); `user_ca`
 *   (`--…-allow-chained`: a chain up to a certificate in the CA file will do). A peer that fails
 *   verification is dropped, except in autodetect mode, where epee only warns. A server that
 *   verifies requires a client certificate (verify_fail_if_no_peer_cert).
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import { checkServerIdentity, createSecureContext, type PeerCertificate, type SecureContext, TLSSocket } from "node:tls";

export type SslSupport = "enabled" | "disabled" | "autodetect";
export type SslVerification = "none" | "system_ca" | "user_certificates" | "user_ca";

/** epee's ssl_options_t, paths unread. */
export interface SslOptions {
  readonly support: SslSupport;
  readonly verification: SslVerification;
  /** SHA-256 fingerprints of allowed peer certificates, lower-case hex without separators. */
  readonly fingerprints: readonly string[];
  /** PEM file of CA certificates replacing the system's ("" = none). */
  readonly caPath: string;
  /** Our own certificate and key (PEM files, "" = none: a server generates one, a client sends none). */
  readonly privateKeyPath: string;
  readonly certificatePath: string;
}

/** A bad TLS flag or file; the message names it and says how to fix it. */
export class SslConfigError extends Error {
  override readonly name = "SslConfigError";
}

export const SSL_SUPPORT: readonly SslSupport[] = ["enabled", "disabled", "autodetect"];

/** from_hex_locale::to_vector: hex digits, spaces and colons ignored; a SHA-256 must be 32 bytes. */
export function parseFingerprint(text: string, flag: string): string {
  const hex = text.replace(/[\s:]/g, "");
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex))
    throw new SslConfigError(`${flag}: '${text}' is not hexadecimal (give the SHA-256 of the certificate, e.g. AB:CD:… as openssl x509 -fingerprint -sha256 prints it)`);
  if (hex.length !== 64) throw new SslConfigError(`${flag}: SHA-256 fingerprint should be 32 bytes long (got ${hex.length / 2} in '${text}')`);
  return hex.toLowerCase();
}

/** The TLS flags of one service, as given (names are the flag prefix: "rpc-ssl" or "daemon-ssl"). */
export interface SslFlags {
  readonly prefix: "rpc-ssl" | "daemon-ssl";
  readonly support?: string;
  readonly privateKey?: string;
  readonly certificate?: string;
  readonly caCertificates?: string;
  readonly allowedFingerprints?: readonly string[];
  readonly allowChained?: boolean;
  readonly allowAnyCert?: boolean;
}

function supportOf(text: string, flag: string): SslSupport {
  if (!(SSL_SUPPORT as readonly string[]).includes(text)) throw new SslConfigError(`--${flag} needs one of enabled|disabled|autodetect (got '${text}')`);
  return text as SslSupport;
}

/**
 * The options the flags ask for (rpc_args::do_process_ssl for servers, wallet2's init for
 * --daemon-ssl*). Fingerprints or a CA file imply `enabled` unless the mode is given
 * on the server side; on the wallet side only with user certificates (not --daemon-ssl-allow-chained)
 * and unless --daemon-ssl is given.
 */
export function sslOptionsFromFlags(f: SslFlags): SslOptions {
  const p = f.prefix;
  const fingerprints = (f.allowedFingerprints ?? []).map((x) => parseFingerprint(x, `--${p}-allowed-fingerprints`));
  const caPath = f.caCertificates ?? "";
  const privateKeyPath = f.privateKey ?? "";
  const certificatePath = f.certificate ?? "";
  if ((privateKeyPath === "") !== (certificatePath === ""))
    throw new SslConfigError(`--${p}-private-key and --${p}-certificate must be given together (got only --${p}-${privateKeyPath === "" ? "certificate" : "private-key"})`);
  let support: SslSupport = "enabled";
  let verification: SslVerification = "system_ca";
  if (f.allowAnyCert === true) verification = "none";
  else if (fingerprints.length > 0 || caPath !== "") verification = f.allowChained === true ? "user_ca" : "user_certificates";
  const userGiven = verification === "user_ca" || verification === "user_certificates";
  if (p === "rpc-ssl") {
    // the server: fingerprints or a CA file force TLS on, whatever --rpc-ssl says
    if (!userGiven) support = supportOf(f.support ?? "autodetect", "rpc-ssl");
  } else if (verification !== "user_certificates" || f.support !== undefined) support = supportOf(f.support ?? "autodetect", "daemon-ssl");
  if (support === "disabled") verification = "none";
  return { support, verification, fingerprints, caPath, privateKeyPath, certificatePath };
}

/** Plain HTTP, no TLS at all. */
export const SSL_DISABLED: SslOptions = { support: "disabled", verification: "none", fingerprints: [], caPath: "", privateKeyPath: "", certificatePath: "" };
/** epee's default for both ends: autodetect, certificates not enforced. */
export const SSL_AUTODETECT: SslOptions = { ...SSL_DISABLED, support: "autodetect", verification: "system_ca" };

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, "latin1");
  } catch (e) {
    throw new SslConfigError(`cannot read ${what} '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** SHA-256 of each certificate in a PEM bundle, lower-case hex. */
function bundleFingerprints(pem: string): Set<string> {
  const out = new Set<string>();
  for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)) {
    try {
      out.add(new X509Certificate(m[0]).fingerprint256.replace(/:/g, "").toLowerCase());
    } catch {
      // not a certificate: the TLS layer's own loading reports it
    }
  }
  return out;
}

/** Files read once: what the handshake and the verification need. */
interface Loaded {
  readonly ca: string | undefined;
  readonly caFingerprints: Set<string>;
  readonly key: string | undefined;
  readonly cert: string | undefined;
}

function load(o: SslOptions, prefix: string): Loaded {
  let ca: string | undefined;
  let caFingerprints = new Set<string>();
  if (o.caPath !== "" && o.verification !== "none") {
    ca = readPem(o.caPath, `--${prefix}-ca-certificates`);
    caFingerprints = bundleFingerprints(ca);
    if (caFingerprints.size === 0) throw new SslConfigError(`--${prefix}-ca-certificates '${o.caPath}' holds no PEM certificate`);
  }
  let key: string | undefined;
  let cert: string | undefined;
  if (o.privateKeyPath !== "") {
    key = readPem(o.privateKeyPath, `--${prefix}-private-key`);
    cert = readPem(o.certificatePath, `--${prefix}-certificate`);
    try {
      createSecureContext({ key, cert });
    } catch (e) {
      throw new SslConfigError(`--${prefix}-private-key / --${prefix}-certificate do not load as a PEM key and its certificate: ${(e as Error).message}`);
    }
  }
  return { ca, caFingerprints, key, cert };
}

const fingerprintOf = (c: PeerCertificate): string => (c.fingerprint256 ?? "").replace(/:/g, "").toLowerCase();

/**
 * ssl_options_t::configure's verify callback, after the handshake: whether the peer passes. `ok`
 * false means drop the connection; `warning` is set when autodetect lets a failing peer through.
 */
function verdict(o: SslOptions, l: Loaded, s: TLSSocket, host: string | undefined): { ok: boolean; why?: string } {
  if (o.verification === "none") return { ok: true };
  // a resumed TLS session carries no certificate: it was verified on the handshake that made it
  // (Node's agents resume sessions, so new connections of a busy client often are resumptions)
  if (s.isSessionReused()) return { ok: true };
  const peer = s.getPeerCertificate();
  if (!peer || Object.keys(peer).length === 0) return { ok: false, why: "the peer sent no certificate" };
  let verified: boolean;
  if (o.verification === "user_certificates") verified = l.caFingerprints.has(fingerprintOf(peer));
  else verified = s.authorized && (o.verification !== "system_ca" || host === undefined || checkServerIdentity(host, peer) === undefined);
  if (verified || o.fingerprints.includes(fingerprintOf(peer))) return { ok: true };
  const why = `certificate ${peer.fingerprint256} is not in the allowed list${s.authorizationError ? ` (${String(s.authorizationError)})` : ""}`;
  if (o.support === "autodetect") return { ok: true, why };
  return { ok: false, why };
}

// ---- server side ------------------------------------------------------------------------------

/** A server's TLS, ready to take connections. */
export class ServerTls {
  private context: SecureContext | Promise<SecureContext> | undefined;

  private constructor(
    readonly options: SslOptions,
    private readonly loaded: Loaded,
    private readonly log: (msg: string) => void,
    private readonly handshakeTimeoutMs: number,
  ) {}

  /**
   * Reads the files the options name (errors name the flag), and starts generating a self-signed
   * certificate when none is given (about 0.1 s, off the main path); the first TLS connection waits for it.
   */
  static create(o: SslOptions, opts: { log?: (msg: string) => void; handshakeTimeoutMs?: number; prefix?: string } = {}): ServerTls {
    const loaded = o.support === "disabled" ? { ca: undefined, caFingerprints: new Set<string>(), key: undefined, cert: undefined } : load(o, opts.prefix ?? "rpc-ssl");
    const t = new ServerTls(o, loaded, opts.log ?? (() => undefined), opts.handshakeTimeoutMs ?? 30_000);
    if (o.support !== "disabled") t.context = t.makeContext();
    return t;
  }

  /** The certificate in use, PEM (awaits generation); undefined when TLS is disabled. */
  async certificate(): Promise<string | undefined> {
    if (this.options.support === "disabled") return undefined;
    await (this.context ??= this.makeContext());
    return this.generatedCert ?? this.loaded.cert;
  }

  private generatedCert: string | undefined;

  private makeContext(): SecureContext | Promise<SecureContext> {
    const base = { minVersion: "TLSv1.2" as const, ...(this.loaded.ca !== undefined ? { ca: this.loaded.ca } : {}) };
    if (this.loaded.key !== undefined) return createSecureContext({ ...base, key: this.loaded.key, cert: this.loaded.cert });
    // create_rsa_ssl_certificate: a self-signed certificate valid for half a year (P-256: see the top)
    const p = import("selfsigned").then(async ({ generate }) => {
      const r = await generate([{ name: "commonName", value: "tsmonero" }], {
        keyType: "ec",
        curve: "P-256",
        algorithm: "sha256",
        notBeforeDate: new Date(),
        notAfterDate: new Date(Date.now() + 182 * 86_400_000),
      });
      this.generatedCert = r.cert;
      const ctx = createSecureContext({ ...base, key: r.private, cert: r.cert });
      this.context = ctx;
      return ctx;
    });
    p.catch((e: unknown) => this.log(`rpc: cannot generate a TLS certificate: ${e instanceof Error ? e.message : String(e)}`));
    return p;
  }

  /** A server verifies clients only with fingerprints or a CA file (ssl_options_t::configure). */
  private get verifiesClients(): boolean {
    return this.options.verification !== "none" && (this.options.fingerprints.length > 0 || this.options.caPath !== "");
  }

  /**
   * Takes an accepted socket: hands `ready` the socket to speak HTTP on (the TLS socket once the
   * handshake and verification pass, or the plain socket), or closes it.
   */
  accept(raw: Socket, ready: (s: Socket) => void): void {
    const mode = this.options.support;
    if (mode === "enabled") {
      this.handshake(raw, ready);
      return;
    }
    // autodetect / disabled: look at the first bytes; nothing in time → close
    const timer = setTimeout(() => raw.destroy(), this.handshakeTimeoutMs);
    timer.unref();
    const onData = (d: Buffer): void => {
      clearTimeout(timer);
      raw.pause();
      raw.unshift(d);
      // net_ssl.cpp is_ssl: a handshake record; HTTP never starts with 0x16
      if (d[0] !== 0x16) {
        ready(raw);
        raw.resume();
      } else if (mode === "disabled") raw.destroy();
      else this.handshake(raw, ready);
    };
    raw.once("data", onData);
    raw.once("close", () => clearTimeout(timer));
  }

  private handshake(raw: Socket, ready: (s: Socket) => void): void {
    const timer = setTimeout(() => raw.destroy(), this.handshakeTimeoutMs);
    timer.unref();
    raw.once("close", () => clearTimeout(timer));
    const start = (ctx: SecureContext): void => {
      if (raw.destroyed) return;
      // on the TCP socket itself: a TLSSocket's own setNoDelay does not reach a wrapped socket's
      // handle, and each answer's records must leave without waiting for the client's ACK
      raw.setNoDelay(true);
      const s = new TLSSocket(raw, { isServer: true, secureContext: ctx, requestCert: this.verifiesClients, rejectUnauthorized: false });
      s.on("error", () => raw.destroy());
      s.once("secure", () => {
        clearTimeout(timer);
        const v = verdict(this.options, this.loaded, s, undefined);
        if (!this.verifiesClients || v.ok) {
          if (v.why) this.log(`rpc: TLS client ${raw.remoteAddress ?? "?"} not verified, accepted in autodetect mode: ${v.why}`);
          ready(s);
        } else {
          this.log(`rpc: TLS client ${raw.remoteAddress ?? "?"} refused: ${v.why ?? "not verified"}`);
          s.destroy();
        }
      });
    };
    const ctx = (this.context ??= this.makeContext());
    if (ctx instanceof Promise) ctx.then(start, () => raw.destroy());
    else start(ctx);
  }
}

// ---- client side ------------------------------------------------------------------------------

/** What a TLS client connection needs: node:tls connect options plus the check after the handshake. */
export interface ClientTls {
  readonly options: SslOptions;
  /** For tls.connect / https.request. */
  readonly connect: { key?: string; cert?: string; ca?: string; rejectUnauthorized: false; minVersion: "TLSv1.2" };
  /** After the handshake: whether to go on; `why` says what failed (or what autodetect let through). */
  check(s: TLSSocket, host: string): { ok: boolean; why?: string };
}

/** Reads the client's files (errors name the --daemon-ssl-* flag). */
export function clientTls(o: SslOptions, prefix = "daemon-ssl"): ClientTls {
  const l = load(o, prefix);
  return {
    options: o,
    connect: {
      rejectUnauthorized: false,
      minVersion: "TLSv1.2",
      ...(l.key !== undefined ? { key: l.key, cert: l.cert } : {}),
      ...(l.ca !== undefined ? { ca: l.ca } : {}),
    },
    check: (s, host) => verdict(o, l, s, host),
  };
}

/**
 * wallet2's rule for the node connection: TLS `enabled` needs a way to verify the node
 * (allow-any-cert, a CA file or fingerprints), or a .onion/.i2p host.
 */
export function checkDaemonSsl(o: SslOptions, host: string): void {
  const strong = host.endsWith(".onion") || host.endsWith(".i2p") || o.verification === "user_certificates" || o.verification === "user_ca";
  if (o.support === "enabled" && o.verification !== "none" && !strong)
    throw new SslConfigError("Enabling --daemon-ssl requires --daemon-ssl-allow-any-cert or --daemon-ssl-ca-certificates or --daemon-ssl-allowed-fingerprints or use of a .onion/.i2p domain");
}

/**
 * set_daemon's ssl_* params (wallet_rpc_server::on_set_daemon): allow-any-cert, else fingerprints
 * or a CA file select user certificates; the mode is `ssl_support` (default autodetect). Throws
 * SslConfigError with monero-wallet-rpc's messages. Fingerprints are read as hex here (monero-wallet-rpc
 * takes the string's bytes, which never equal a 32-byte digest).
 */
export function sslOptionsFromSetDaemon(p: {
  ssl_support: string;
  ssl_private_key_path: string;
  ssl_certificate_path: string;
  ssl_ca_file: string;
  ssl_allowed_fingerprints: readonly string[];
  ssl_allow_any_cert: boolean;
}): SslOptions {
  const fingerprints = p.ssl_allowed_fingerprints.map((x) => parseFingerprint(x, "ssl_allowed_fingerprints"));
  let verification: SslVerification = "system_ca";
  if (p.ssl_allow_any_cert) verification = "none";
  else if (fingerprints.length > 0 || p.ssl_ca_file !== "") verification = "user_certificates";
  if (!(SSL_SUPPORT as readonly string[]).includes(p.ssl_support)) throw new SslConfigError("Invalid ssl support mode");
  const support = p.ssl_support as SslSupport;
  if (verification === "system_ca" && support === "enabled") throw new SslConfigError("SSL is enabled but no user certificate or fingerprints were provided");
  if ((p.ssl_private_key_path === "") !== (p.ssl_certificate_path === ""))
    throw new SslConfigError("ssl_private_key_path and ssl_certificate_path must be given together");
  return {
    support,
    verification: support === "disabled" ? "none" : verification,
    fingerprints,
    caPath: p.ssl_ca_file,
    privateKeyPath: p.ssl_private_key_path,
    certificatePath: p.ssl_certificate_path,
  };
}
