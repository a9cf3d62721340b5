/**
 * monero-wallet-rpc's proof and message methods (src/wallet/wallet_rpc_server.cpp v0.18.0.0: on_sign,
 * on_verify, on_get_tx_proof, on_check_tx_proof, on_get_spend_proof, on_check_spend_proof,
 * on_get_reserve_proof, on_check_reserve_proof) over wallet/proofs. Field names and defaults from
 * wallet_rpc_server_commands_defs.h; each method checks what monero-wallet-rpc checks, in its order,
 * and answers wallet2's exception text with −1 (handle_rpc_exception of a std::exception), followed
 * by what to do.
 */
import { type Address, AddressError, decodeAddress } from "../../protocol/address.js";
import { addressNetwork } from "../../protocol/network.js";
import { bool, str, u32, u64 } from "../../rpc/index.js";
import { SubaddressDeriver } from "../keys/subaddress.js";
import {
  checkReserveProof,
  checkSpendProof,
  checkTxProofOf,
  getReserveProof,
  getSpendProof,
  getTxProof,
  ProofError,
  type ProofWallet,
  signMessage,
  verifyMessage,
} from "../proofs/index.js";
import type { OpenWallet } from "../service/wallet.js";
import { def, fail, isHash, obj, W, type WalletRpcDeps } from "./common.js";

const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "utf8"));

/** What the proofs need of the open wallet. */
function proofWallet(wal: OpenWallet): ProofWallet {
  const keys = wal.keys;
  return {
    backend: wal.backend,
    keys,
    ledger: wal.ledger,
    deriver: new SubaddressDeriver(keys, wal.backend),
    node: wal.nodeApi(),
    subaddressIndexOf: (k) => wal.subaddressIndexOf(k),
  };
}

/** ProofErrors as monero-wallet-rpc answers them: −1 with the message (−29 for what only our wallet refuses). */
async function run<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ProofError) return fail(e.kind === "watch_only" ? W.WATCH_ONLY : W.UNKNOWN_ERROR, e.message);
    throw e;
  }
}

/** hex_to_pod of a txid, else −8 "TX ID has invalid format". */
function txidOf(s: string): string {
  if (!isHash(s)) fail(W.WRONG_TXID, "TX ID has invalid format: give the 64 hex characters of the transaction id");
  return s.toLowerCase();
}

/** get_account_address_from_str, else −2 "Invalid address". */
function addressOf(wal: OpenWallet, s: string): Address {
  try {
    return decodeAddress(s, wal.network, wal.backend);
  } catch (e) {
    const why = e instanceof AddressError ? ` (${e.message})` : "";
    return fail(W.WRONG_ADDRESS, `Invalid address${why}: give a ${addressNetwork(wal.network)} address`);
  }
}

const proofAddress = (a: Address) => ({ spendPublicKey: a.spendPublicKey, viewPublicKey: a.viewPublicKey, isSubaddress: a.kind === "subaddress" });

/** sign, verify, and the tx, spend and reserve proofs of tsmonero-wallet-rpc. */
export function proofMethods({ w }: WalletRpcDeps) {

  return [
  def({
    name: "sign",
    restricted: true,
    params: obj({ data: str, account_index: u32, address_index: u32, signature_type: str }),
    handler: (p) => {
      if (p.signature_type !== "" && p.signature_type !== "spend" && p.signature_type !== "view")
        fail(W.INVALID_SIGNATURE_TYPE, `Invalid signature type requested: "${p.signature_type}"; use "spend" (the default) or "view"`);
      const wal = w();
      const pw = proofWallet(wal);
      const type = p.signature_type === "view" ? "view" : "spend";
      return run(() => ({ signature: signMessage(pw.backend, pw.keys, pw.deriver, utf8(p.data), type, { major: p.account_index, minor: p.address_index }) }));
    },
  }),

  def({
    name: "verify",
    restricted: true,
    params: obj({ data: str, address: str, signature: str }),
    handler: (p) => {
      const wal = w();
      const a = addressOf(wal, p.address);
      const r = verifyMessage(wal.backend, utf8(p.data), a, p.signature);
      return { good: r.good, old: r.old, signature_type: r.signatureType, version: r.version };
    },
  }),

  def({
    name: "get_tx_proof",
    params: obj({ txid: str, address: str, message: str }),
    handler: async (p) => {
      const txid = txidOf(p.txid);
      const wal = w();
      const a = addressOf(wal, p.address);
      return { signature: await run(() => getTxProof(proofWallet(wal), txid, proofAddress(a), utf8(p.message))) };
    },
  }),

  def({
    name: "check_tx_proof",
    params: obj({ txid: str, address: str, message: str, signature: str }),
    handler: async (p) => {
      const txid = txidOf(p.txid);
      const wal = w();
      const a = addressOf(wal, p.address);
      const r = await run(() => checkTxProofOf(proofWallet(wal), txid, proofAddress(a), utf8(p.message), p.signature));
      return { confirmations: r.confirmations, good: r.good, in_pool: r.inPool, received: r.received };
    },
  }),

  def({
    name: "get_spend_proof",
    params: obj({ txid: str, message: str }),
    handler: async (p) => {
      const txid = txidOf(p.txid);
      return { signature: await run(() => getSpendProof(proofWallet(w()), txid, utf8(p.message))) };
    },
  }),

  def({
    name: "check_spend_proof",
    params: obj({ txid: str, message: str, signature: str }),
    handler: async (p) => {
      const txid = txidOf(p.txid);
      return { good: await run(() => checkSpendProof(proofWallet(w()), txid, utf8(p.message), p.signature)) };
    },
  }),

  def({
    name: "get_reserve_proof",
    params: obj({ all: bool, account_index: u32, amount: u64, message: str }),
    handler: (p) => {
      const wal = w();
      if (!p.all && p.account_index >= wal.accountCount)
        fail(W.UNKNOWN_ERROR, `Account index is out of bound: the wallet has ${wal.accountCount} account(s); use an index below that, or all: true`);
      const req = p.all ? null : { account: p.account_index, amount: p.amount };
      return run(() => ({ signature: getReserveProof(proofWallet(wal), req, utf8(p.message)) }));
    },
  }),

  def({
    name: "check_reserve_proof",
    params: obj({ address: str, message: str, signature: str }),
    handler: async (p) => {
      const wal = w();
      const a = addressOf(wal, p.address);
      if (a.kind === "subaddress") fail(W.UNKNOWN_ERROR, "Address must not be a subaddress: a reserve proof is checked against the wallet's primary address");
      const r = await run(() => checkReserveProof(proofWallet(wal), a, utf8(p.message), p.signature));
      return { good: r.good, spent: r.spent, total: r.total };
    },
  }),

  ];
}
