/**
 * The encrypted container both wallet files use (our own format; only the file names follow
 * monero-wallet-rpc). Layout, all integers little-endian:
 *
 *   0   8  magic "TSMWALT\n"
 *   8   1  format version (1)
 *   9   1  kind (1 = keys, 2 = cache)
 *   10  1  KDF id (1 = scrypt)
 *   11  1  log2 N          12  1  r          13  1  p
 *   14 16  salt
 *   30 12  nonce (fresh for every write)
 *   42 16  password verifier: the first 16 bytes of SHA-256("tsmonero verifier" ‖ key)
 *   58  4  header checksum: the first 4 bytes of SHA-256(bytes 0..57)
 *   62  8  plaintext length
 *   70  …  ciphertext (ChaCha20-Poly1305, AAD = bytes 0..69), then the 16-byte tag
 *
 * The verifier tells a wrong password (verifier mismatch) from a damaged file (header checksum or
 * tag mismatch, wrong length). Every write goes to a temporary file in the same directory, is
 * fsynced, renamed over the target, and the directory is fsynced: a crash leaves the old or the
 * new file, never a mix.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt as scryptCb, type ScryptOptions } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export const MAGIC = Buffer.from("TSMWALT\n", "latin1");
export const FORMAT_VERSION = 1;
export const HEADER_SIZE = 70;
const TAG_SIZE = 16;
const KDF_SCRYPT = 1;

export type WalletFileKind = "keys" | "cache";
const KIND_ID: Record<WalletFileKind, number> = { keys: 1, cache: 2 };

/** Any problem opening or writing a wallet file. */
export class WalletFileError extends Error {
  constructor(
    message: string,
    readonly path: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "WalletFileError";
  }
}

/** The password does not open this file (the file itself is intact). */
export class WrongPasswordError extends WalletFileError {
  constructor(path: string) {
    super(`invalid password for wallet file ${path}`, path);
    this.name = "WrongPasswordError";
  }
}

/** The file is truncated, damaged, of another kind, or not a wallet file at all. */
export class CorruptWalletFileError extends WalletFileError {
  constructor(path: string, reason: string) {
    super(`wallet file ${path} is corrupt: ${reason}`, path);
    this.name = "CorruptWalletFileError";
  }
}

/** scrypt cost: N = 2^log2N, r, p. The default (2^15, 8, 1) uses 32 MiB and ~0.1 s. */
export interface KdfParams {
  readonly log2N: number;
  readonly r: number;
  readonly p: number;
}
export const DEFAULT_KDF: KdfParams = { log2N: 15, r: 8, p: 1 };

/** A key derived from a password for one salt and parameter set. */
export interface FileKey {
  readonly salt: Buffer;
  readonly kdf: KdfParams;
  readonly key: Buffer;
  readonly verifier: Buffer;
}

function checkKdf(kdf: KdfParams): void {
  if (!Number.isInteger(kdf.log2N) || kdf.log2N < 10 || kdf.log2N > 22) throw new RangeError("scrypt log2N must be 10..22");
  if (!Number.isInteger(kdf.r) || kdf.r < 1 || kdf.r > 32) throw new RangeError("scrypt r must be 1..32");
  if (!Number.isInteger(kdf.p) || kdf.p < 1 || kdf.p > 16) throw new RangeError("scrypt p must be 1..16");
}

function verifierOf(key: Buffer): Buffer {
  return createHash("sha256").update("tsmonero verifier").update(key).digest().subarray(0, 16);
}

/** Derives the file key for `password` (UTF-8) asynchronously (scrypt runs on libuv's pool). */
export function deriveFileKey(password: string, salt: Buffer = randomBytes(16), kdf: KdfParams = DEFAULT_KDF): Promise<FileKey> {
  checkKdf(kdf);
  const N = 2 ** kdf.log2N;
  const opts: ScryptOptions = { N, r: kdf.r, p: kdf.p, maxmem: 256 * N * kdf.r + 64 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCb(Buffer.from(password, "utf8"), salt, 32, opts, (err, key) => {
      if (err) reject(err);
      else resolve({ salt: Buffer.from(salt), kdf, key, verifier: verifierOf(key) });
    });
  });
}

/** What the header of a file says (without decrypting it). */
export interface ContainerHeader {
  readonly kind: WalletFileKind;
  readonly salt: Buffer;
  readonly kdf: KdfParams;
  readonly nonce: Buffer;
  readonly verifier: Buffer;
  readonly length: number;
}

/** Parses and checks a container's header; throws CorruptWalletFileError. */
export function readHeader(data: Buffer, path: string, expected: WalletFileKind): ContainerHeader {
  if (data.length < HEADER_SIZE + TAG_SIZE) {
    if (data.length >= 8 && !data.subarray(0, 8).equals(MAGIC)) throw new CorruptWalletFileError(path, "not a tsmonero wallet file");
    throw new CorruptWalletFileError(path, `truncated (${data.length} bytes)`);
  }
  if (!data.subarray(0, 8).equals(MAGIC)) throw new CorruptWalletFileError(path, "not a tsmonero wallet file");
  const sum = createHash("sha256").update(data.subarray(0, 58)).digest().subarray(0, 4);
  if (!sum.equals(data.subarray(58, 62))) throw new CorruptWalletFileError(path, "header checksum mismatch");
  if (data[8] !== FORMAT_VERSION) throw new CorruptWalletFileError(path, `unsupported format version ${data[8]}`);
  if (data[9] !== KIND_ID[expected]) throw new CorruptWalletFileError(path, `not a ${expected} file (kind ${data[9]})`);
  if (data[10] !== KDF_SCRYPT) throw new CorruptWalletFileError(path, `unknown KDF ${data[10]}`);
  const kdf = { log2N: data[11], r: data[12], p: data[13] };
  try {
    checkKdf(kdf);
  } catch (e) {
    throw new CorruptWalletFileError(path, (e as Error).message);
  }
  const length = Number(data.readBigUInt64LE(62));
  if (data.length !== HEADER_SIZE + length + TAG_SIZE) {
    throw new CorruptWalletFileError(path, `length mismatch (header says ${length} payload bytes, file has ${data.length - HEADER_SIZE - TAG_SIZE})`);
  }
  return {
    kind: expected,
    kdf,
    salt: Buffer.from(data.subarray(14, 30)),
    nonce: Buffer.from(data.subarray(30, 42)),
    verifier: Buffer.from(data.subarray(42, 58)),
    length,
  };
}

/** Encrypts `plaintext` into a container. */
export function seal(kind: WalletFileKind, key: FileKey, plaintext: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  MAGIC.copy(header, 0);
  header[8] = FORMAT_VERSION;
  header[9] = KIND_ID[kind];
  header[10] = KDF_SCRYPT;
  header[11] = key.kdf.log2N;
  header[12] = key.kdf.r;
  header[13] = key.kdf.p;
  key.salt.copy(header, 14);
  const nonce = randomBytes(12);
  nonce.copy(header, 30);
  key.verifier.copy(header, 42);
  createHash("sha256").update(header.subarray(0, 58)).digest().copy(header, 58, 0, 4);
  header.writeBigUInt64LE(BigInt(plaintext.length), 62);
  const c = createCipheriv("chacha20-poly1305", key.key, nonce, { authTagLength: TAG_SIZE });
  c.setAAD(header, { plaintextLength: plaintext.length });
  const body = Buffer.concat([c.update(plaintext), c.final()]);
  return Buffer.concat([header, body, c.getAuthTag()]);
}

/** Decrypts a container whose header was read with `readHeader`, with the matching key. */
export function open(data: Buffer, header: ContainerHeader, key: FileKey, path: string): Buffer {
  if (!key.verifier.equals(header.verifier)) throw new WrongPasswordError(path);
  const d = createDecipheriv("chacha20-poly1305", key.key, header.nonce, { authTagLength: TAG_SIZE });
  d.setAAD(data.subarray(0, HEADER_SIZE), { plaintextLength: header.length });
  d.setAuthTag(data.subarray(data.length - TAG_SIZE));
  try {
    return Buffer.concat([d.update(data.subarray(HEADER_SIZE, data.length - TAG_SIZE)), d.final()]);
  } catch {
    throw new CorruptWalletFileError(path, "authentication failed (damaged contents)");
  }
}

/** Reads a whole file, mapping a missing file to WalletFileError. */
export function readWholeFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new WalletFileError(code === "ENOENT" ? `wallet file ${path} does not exist` : `cannot read ${path}: ${(e as Error).message}`, path, {
      cause: e,
    });
  }
}

/** Writes `data` to `path` atomically: temp file in the same dir, fsync, rename, fsync the dir. */
export function writeFileAtomic(path: string, data: Uint8Array): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  let fd = openSync(tmp, "wx", 0o600);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // the temporary file may already be gone
    }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
