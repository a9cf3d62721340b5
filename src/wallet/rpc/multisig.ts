/**
 * Multisig methods of monero-wallet-rpc (wallet_rpc_server.cpp v0.18.0.0 on_is_multisig,
 * on_prepare_multisig, on_make_multisig, on_exchange_multisig_keys, on_finalize_multisig,
 * on_export_multisig, on_import_multisig), over
 * wallet/multisig. Each checks what monero-wallet-rpc checks, in its order, with its codes: −28
 * already multisig, −29 watch-only, −31 not multisig, −33 too few infos, −48 multisig disabled, −1
 * with wallet2's reason when a message is refused. A wallet that becomes multisig (or moves a round
 * on) is reopened under its new keys (OpenWallet.rekeyed), its keys file rewritten at once.
 */
import { bool, str, u32, withDefault } from "../../rpc/index.js";
import { primaryAddress } from "../keys/account.js";
import { firstKexMessage } from "../multisig/kex.js";
import { type KexRequest, runKexStep } from "../multisig/kex-worker.js";
import { MultisigError } from "../multisig/kex-msg.js";
import { OpenWallet } from "../service/wallet.js";
import { def, fail, isHex, list, obj, W, type WalletRpcDeps, withList } from "./common.js";
import { ColdError } from "../cold/errors.js";
import { readMultisigSet, saveMultisigSet, signMultisigSet } from "../multisig/txset.js";
import { commitTx, pendingOfRecord } from "../send/sender.js";
import { SendError } from "../send/errors.js";
import { bytesToHex } from "../../base/bytes.js";

/** A multisig_txset from its hex, or monero-wallet-rpc's −34 with why it does not read (sign and submit alike). */
async function readSet(signer: Parameters<typeof readMultisigSet>[0], txDataHex: string, transfers: number): Promise<Awaited<ReturnType<typeof readMultisigSet>>> {
  try {
    return await readMultisigSet(signer, Uint8Array.from(Buffer.from(txDataHex, "hex")), transfers);
  } catch (e) {
    if (e instanceof ColdError) fail(W.BAD_MULTISIG_TX_DATA, `Failed to parse multisig tx data: ${e.message}`);
    throw e;
  }
}

/** CHECK_MULTISIG_ENABLED's answer. */
export const MULTISIG_DISABLED_MSG =
  "This wallet is multisig, and multisig is disabled. Multisig is an experimental feature and may have bugs. Things that could go wrong include: funds sent to a multisig wallet can't be spent at all, can only be spent with the participation of a malicious group member, or can be stolen by a malicious group member. You can enable it by running this once in monero-wallet-cli: set enable-multisig-experimental 1";

/** CHECK_MULTISIG_ENABLED: a multisig wallet whose owner did not opt in (prepare_multisig's enable_multisig_experimental). */
export function checkMultisigEnabled(wal: OpenWallet): void {
  if (wal.multisig.multisig && wal.keysData.enableMultisig !== true) fail(W.DISABLED, MULTISIG_DISABLED_MSG);
}

export function multisigMethods({ svc, w }: WalletRpcDeps) {
  /** Runs a kex step (in a worker thread) with the ledger held still, then installs the wallet under its new keys. */
  const step = async (wal: OpenWallet, req: KexRequest, prefix: string) => {
    const r = await wal.exclusive(false, async () => {
      try {
        return await runKexStep(req);
      } catch (e) {
        if (e instanceof MultisigError) fail(W.UNKNOWN_ERROR, prefix + e.message);
        throw e;
      }
    });
    const next = OpenWallet.rekeyed(wal, r.keys);
    await svc.replaceWallet(next);
    return { r, next };
  };

  /** export/import's checks: a multisig wallet (−31), finalized (−31), opted in (−48). */
  const readyWallet = (): OpenWallet => {
    const wal = w();
    const s = wal.multisig;
    if (!s.multisig) fail(W.NOT_MULTISIG, "This wallet is not multisig");
    if (!s.ready) fail(W.NOT_MULTISIG, "This wallet is multisig, but not yet finalized");
    checkMultisigEnabled(wal);
    return wal;
  };

  return [
    def({
      name: "is_multisig",
      params: obj({}),
      handler: () => {
        const s = w().multisig;
        return { multisig: s.multisig, ready: s.ready, threshold: s.threshold, total: s.total };
      },
    }),
    def({
      name: "prepare_multisig",
      restricted: true,
      params: obj({ enable_multisig_experimental: withDefault(bool, false) }),
      handler: (p) => {
        const wal = w();
        if (wal.multisig.multisig) fail(W.ALREADY_MULTISIG, "This wallet is already multisig");
        if (p.enable_multisig_experimental) wal.setEnableMultisig(true);
        checkMultisigEnabled(wal);
        if (wal.watchOnly) fail(W.WATCH_ONLY, "wallet is watch-only and cannot be made multisig");
        return { multisig_info: firstKexMessage(wal.backend, wal.keysData) };
      },
    }),
    def({
      name: "make_multisig",
      restricted: true,
      params: obj({ multisig_info: list(str), threshold: u32, password: withDefault(str, "") }),
      handler: async (p) => {
        const wal = w();
        if (wal.multisig.multisig) fail(W.ALREADY_MULTISIG, "This wallet is already multisig");
        checkMultisigEnabled(wal);
        if (wal.watchOnly) fail(W.WATCH_ONLY, "wallet is watch-only and cannot be made multisig");
        const { r, next } = await step(wal, { op: "make", backend: wal.backend.name, keys: wal.keysData, msgs: p.multisig_info, threshold: p.threshold }, "");
        return { address: primaryAddress(next.keys, next.network, next.backend), multisig_info: r.message };
      },
    }),
    def({
      name: "exchange_multisig_keys",
      restricted: true,
      params: obj({ password: withDefault(str, ""), multisig_info: list(str), force_update_use_with_caution: withDefault(bool, false) }),
      handler: async (p) => {
        const wal = w();
        const s = wal.multisig;
        if (!s.multisig) fail(W.NOT_MULTISIG, "This wallet is not multisig");
        if (s.ready) fail(W.ALREADY_MULTISIG, "This wallet is multisig, and already finalized");
        checkMultisigEnabled(wal);
        if (p.multisig_info.length + 1 < s.total) fail(W.THRESHOLD_NOT_REACHED, `Needs multisig info from more participants: ${p.multisig_info.length} given, one from each of the ${s.total - 1} other signers needed`);
        const { r, next } = await step(wal, { op: "exchange", backend: wal.backend.name, keys: wal.keysData, msgs: p.multisig_info }, "Error calling exchange_multisig_info: ");
        return { address: r.ready ? primaryAddress(next.keys, next.network, next.backend) : "", multisig_info: r.message };
      },
    }),
    def({
      name: "export_multisig_info",
      restricted: true,
      params: obj({}),
      handler: async () => {
        const wal = readyWallet();
        try {
          return { info: Buffer.from(await wal.exportMultisig()).toString("hex") };
        } catch (e) {
          if (e instanceof MultisigError) fail(W.UNKNOWN_ERROR, e.message);
          throw e;
        }
      },
    }),
    def({
      name: "import_multisig_info",
      restricted: true,
      params: obj({ info: list(str) }),
      handler: async (p) => {
        const wal = readyWallet();
        const s = wal.multisig;
        if (p.info.length < s.threshold - 1)
          fail(W.THRESHOLD_NOT_REACHED, `Needs multisig export info from more participants: ${p.info.length} given, at least ${s.threshold - 1} other signers' needed`);
        if (!p.info.every(isHex)) fail(W.BAD_HEX, "Failed to parse hex.");
        try {
          return { n_outputs: await wal.importMultisig(p.info.map((h) => Uint8Array.from(Buffer.from(h, "hex")))) };
        } catch (e) {
          if (e instanceof MultisigError) fail(W.UNKNOWN_ERROR, `Error calling import_multisig: ${e.message}`);
          throw e;
        }
      },
    }),
    def({
      name: "sign_multisig",
      restricted: true,
      params: obj({ tx_data_hex: str }),
      handler: async (p) => {
        const wal = readyWallet();
        if (!isHex(p.tx_data_hex)) fail(W.BAD_HEX, "Failed to parse hex.");
        const signer = wal.multisigSigner();
        const r = await wal.exclusive(true, async (ctx) => {
          const set = await readSet(signer, p.tx_data_hex, ctx.ledger.state.transfers.length);
          const st = ctx.ledger.state;
          const nonces = (st.multisigNonces ??= {});
          const t = st.transfers;
          try {
            const frozen = (ki: string): boolean => {
              const i = ctx.ledger.transferIndexByKeyImage(ki);
              return i !== undefined && t[i].frozen;
            };
            const res = signMultisigSet(signer, set, nonces, (i) => t[i].publicKey, frozen);
            for (const k of res.txKeys) ctx.ledger.setTxKeys(k.txid, { txKey: bytesToHex(k.txKey), additional: k.additionalTxKeys.map(bytesToHex) });
            return { data: await saveMultisigSet(signer, res.set), txids: res.txids };
          } catch (e) {
            if (e instanceof MultisigError) fail(W.MULTISIG_SIGNATURE, `Failed to sign multisig tx: ${e.message}`);
            throw e;
          }
        });
        return withList({ tx_data_hex: bytesToHex(r.data) }, "tx_hash_list", r.txids);
      },
    }),
    def({
      name: "submit_multisig",
      restricted: true,
      params: obj({ tx_data_hex: str }),
      handler: async (p) => {
        const wal = readyWallet();
        if (!isHex(p.tx_data_hex)) fail(W.BAD_HEX, "Failed to parse hex.");
        const signer = wal.multisigSigner();
        return wal.spend(async (ctx) => {
          const set = await readSet(signer, p.tx_data_hex, ctx.ledger.state.transfers.length);
          if (set.signers.length < signer.threshold) fail(W.THRESHOLD_NOT_REACHED, `Not enough signers signed this transaction: ${set.signers.length} of ${signer.threshold}; pass it to sign_multisig of another member first`);
          const ids: string[] = [];
          try {
            for (const ptx of set.ptx) {
              const pending = pendingOfRecord(ctx, ptx);
              ctx.ledger.setTxKeys(pending.txid, { txKey: bytesToHex(ptx.txKey), additional: ptx.additionalTxKeys.map(bytesToHex) });
              await commitTx(ctx, pending);
              ids.push(pending.txid);
            }
          } catch (e) {
            if (e instanceof SendError) fail(W.MULTISIG_SUBMISSION, `Failed to submit multisig tx: ${e.message}`);
            throw e;
          }
          return { tx_hash_list: ids };
        });
      },
    }),
    def({
      name: "finalize_multisig",
      params: obj({ password: withDefault(str, ""), multisig_info: list(str) }),
      handler: () => {
        // v0.18.0.0 keeps the method but answers an error of code 0 with no message: finalizing is
        // exchange_multisig_keys' last round now. Same code here, with a message saying so.
        const wal = w();
        checkMultisigEnabled(wal);
        return fail(0, "finalize_multisig is gone since 0.18 (multisig kex v2): call exchange_multisig_keys until is_multisig says ready");
      },
    }),
  ];
}
