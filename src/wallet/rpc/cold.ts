/**
 * monero-wallet-rpc's outputs, key images and cold-signing methods (wallet_rpc_server.cpp v0.18:
 * on_export_outputs, on_import_outputs, on_export_key_images, on_import_key_images,
 * on_describe_transfer, on_sign_transfer, on_submit_transfer) over ../cold. The view-only side of
 * transfer / sweep_all (unsigned_txset) is in send.ts. Each ColdError kind maps to the code
 * monero-wallet-rpc answers for it, here and nowhere else.
 */
import { bool, str, u32, withDefault } from "../../rpc/index.js";
import {
  ColdError,
  describeTransfers,
  exportKeyImages,
  exportOutputs,
  importKeyImages,
  importOutputs,
  readOutputsExport,
  readSignedSet,
  readUnsignedSet,
  type SignedKeyImage,
  signUnsignedSet,
} from "../cold/index.js";
import { SendError } from "../send/errors.js";
import { commitTx, pendingOfRecord } from "../send/sender.js";
import { readMultisigSet } from "../multisig/txset.js";
import { def, fail, isHex, list, obj, W, type WalletRpcDeps, withList } from "./common.js";
import { bytesToHex as hex, hexToBytes as unhex } from "../../base/bytes.js";
import { txWeight } from "../../protocol/weight.js";

/** handle_rpc_exception for the cold operations: signature failures are −9, the rest the method's default. */
function coldToRpc(e: unknown, defaultCode: number, prefix = ""): never {
  if (e instanceof ColdError) {
    if (e.kind === "bad_signature") fail(W.WRONG_SIGNATURE, e.message);
    if (e.kind === "watch_only") fail(W.WATCH_ONLY, e.message);
    if (e.kind === "no_daemon") fail(W.NO_DAEMON_CONNECTION, e.message);
    fail(defaultCode, prefix + e.message);
  }
  throw e;
}

/** The cold-signing methods of tsmonero-wallet-rpc. */
export function coldMethods({ svc, w }: WalletRpcDeps) {

  return [
  def({
    name: "export_outputs",
    restricted: true,
    params: obj({ all: withDefault(bool, false), start: withDefault(u32, 0), count: withDefault(u32, 0xffffffff) }),
    handler: async (p) => {
      try {
        const data = await w().exclusive(false, (ctx) => exportOutputs(ctx, p.all, p.start, p.count));
        return { outputs_data_hex: hex(data) };
      } catch (e) {
        return coldToRpc(e, W.UNKNOWN_ERROR);
      }
    },
  }),

  def({
    name: "import_outputs",
    restricted: true,
    params: obj({ outputs_data_hex: str }),
    handler: async (p) => {
      if (!isHex(p.outputs_data_hex)) fail(W.BAD_HEX, "Failed to parse hex.");
      try {
        const n = await w().exclusive(true, async (ctx) => importOutputs(ctx, await readOutputsExport(ctx, unhex(p.outputs_data_hex))));
        return { num_imported: BigInt(n) };
      } catch (e) {
        return coldToRpc(e, W.UNKNOWN_ERROR, "Failed to import outputs: ");
      }
    },
  }),

  def({
    name: "export_key_images",
    params: obj({ all: withDefault(bool, false) }),
    handler: async (p) => {
      try {
        const r = await w().exclusive(false, async (ctx) => exportKeyImages(ctx, p.all));
        return withList({ offset: r.offset }, "signed_key_images", r.signed.map((s) => ({ key_image: hex(s.keyImage), signature: hex(s.signature) })));
      } catch (e) {
        return coldToRpc(e, W.UNKNOWN_ERROR);
      }
    },
  }),

  def({
    name: "import_key_images",
    restricted: true,
    params: obj({ offset: withDefault(u32, 0), signed_key_images: list(obj({ key_image: str, signature: str })) }),
    handler: async (p) => {
      if (!svc.trusted) fail(W.UNKNOWN_ERROR, "This command requires a trusted daemon.");
      const ski: SignedKeyImage[] = [];
      for (const s of p.signed_key_images) {
        if (s.key_image.length !== 64 || !isHex(s.key_image)) fail(W.WRONG_KEY_IMAGE, "failed to parse key image");
        if (s.signature.length !== 128 || !isHex(s.signature)) fail(W.WRONG_SIGNATURE, "failed to parse signature");
        ski.push({ keyImage: unhex(s.key_image), signature: unhex(s.signature) });
      }
      try {
        const r = await w().exclusive(true, (ctx) => importKeyImages(ctx, ski, p.offset, true));
        return { height: BigInt(r.height), spent: r.spent, unspent: r.unspent };
      } catch (e) {
        return coldToRpc(e, W.UNKNOWN_ERROR);
      }
    },
  }),

  def({
    name: "describe_transfer",
    restricted: true,
    params: obj({ unsigned_txset: str, multisig_txset: str }),
    handler: async (p) => {
      const wal = w();
      if (wal.watchOnly) fail(W.WATCH_ONLY, "command not supported by watch-only wallet: describe the set in the full wallet that will sign it");
      if (p.unsigned_txset === "" && p.multisig_txset === "") fail(W.UNKNOWN_ERROR, "no txset provided");
      const multisig = p.unsigned_txset === "";
      if (!isHex(multisig ? p.multisig_txset : p.unsigned_txset)) fail(W.BAD_HEX, "Failed to parse hex.");
      try {
        const r = await wal.exclusive(false, async (ctx) => {
          // monerod's master (after 0.18) adds each tx's weight: the partly signed tx's
          // get_transaction_weight for a multisig set; an unsigned set has no tx yet, and its 0 is
          // left out (KV_SERIALIZE_OPT), as 0.18 answers
          if (!multisig) return { ...describeTransfers(ctx, (await readUnsignedSet(ctx, unhex(p.unsigned_txset))).txes), weights: undefined };
          if (!wal.multisig.ready) fail(W.BAD_MULTISIG_TX_DATA, "cannot load multisig_txset: this wallet is not a finalized multisig wallet");
          let set;
          try {
            set = await readMultisigSet(wal.multisigSigner(), unhex(p.multisig_txset), ctx.ledger.state.transfers.length);
          } catch (e) {
            if (e instanceof ColdError) fail(W.BAD_MULTISIG_TX_DATA, `cannot load multisig_txset: ${e.message}`);
            throw e;
          }
          return { ...describeTransfers(ctx, set.ptx.map((x) => x.constructionData)), weights: set.ptx.map((x) => txWeight(x.tx)) };
        });
        const recipient = (x: { address: string; amount: bigint }) => ({ address: x.address, amount: x.amount });
        return {
          desc: r.desc.map((d, i) => ({
            amount_in: d.amountIn,
            amount_out: d.amountOut,
            ring_size: d.ringSize,
            unlock_time: d.unlockTime,
            recipients: d.recipients.map(recipient),
            payment_id: d.paymentId,
            change_amount: d.changeAmount,
            change_address: d.changeAddress,
            fee: d.fee,
            dummy_outputs: d.dummyOutputs,
            extra: d.extra,
            ...(r.weights ? { weight: r.weights[i] } : {}),
          })),
          summary: {
            amount_in: r.summary.amountIn,
            amount_out: r.summary.amountOut,
            recipients: r.summary.recipients.map(recipient),
            change_amount: r.summary.changeAmount,
            change_address: r.summary.changeAddress,
            fee: r.summary.fee,
          },
        };
      } catch (e) {
        if (e instanceof ColdError && e.kind === "bad_data" && /^Claimed|^Change goes/.test(e.message)) fail(W.BAD_UNSIGNED_TX_DATA, e.message);
        if (e instanceof ColdError) fail(W.BAD_UNSIGNED_TX_DATA, `cannot load unsigned_txset: ${e.message}`);
        throw e;
      }
    },
  }),

  def({
    name: "sign_transfer",
    restricted: true,
    params: obj({ unsigned_txset: str, export_raw: withDefault(bool, false), get_tx_keys: withDefault(bool, false) }),
    handler: async (p) => {
      const wal = w();
      if (wal.watchOnly) fail(W.WATCH_ONLY, "command not supported by watch-only wallet: sign in the full wallet that holds the spend key");
      if (!isHex(p.unsigned_txset)) fail(W.BAD_HEX, "Failed to parse hex.");
      try {
        const r = await wal.exclusive(true, async (ctx) => {
          let set;
          try {
            set = await readUnsignedSet(ctx, unhex(p.unsigned_txset));
          } catch (e) {
            if (e instanceof ColdError) fail(W.BAD_UNSIGNED_TX_DATA, `cannot load unsigned_txset: ${e.message}`);
            throw e;
          }
          return signUnsignedSet(ctx, set);
        });
        const out = withList({ signed_txset: hex(r.data) }, "tx_hash_list", r.txs.map((t) => t.txid));
        const keys = p.get_tx_keys ? r.txs.map((t) => hex(t.txKey) + t.additionalTxKeys.map(hex).join("")) : [];
        const raws = p.export_raw ? r.txs.map((t) => hex(t.blob)) : [];
        return withList(withList(out, "tx_key_list", keys), "tx_raw_list", raws);
      } catch (e) {
        if (e instanceof ColdError) fail(W.SIGN_UNSIGNED, `Failed to sign unsigned tx: ${e.message}`);
        throw e;
      }
    },
  }),

  def({
    name: "submit_transfer",
    restricted: true,
    params: obj({ tx_data_hex: str }),
    handler: async (p) => {
      if (!isHex(p.tx_data_hex)) fail(W.BAD_HEX, "Failed to parse hex.");
      const wal = w();
      const ids: string[] = [];
      // parse_tx_from_str first (it needs no daemon, and imports the signer's key images), then commit_tx each
      let ptxs: Awaited<ReturnType<typeof readSignedSet>>;
      try {
        ptxs = await wal.exclusive(true, (ctx) => readSignedSet(ctx, unhex(p.tx_data_hex)));
      } catch (e) {
        if (e instanceof ColdError) fail(W.BAD_SIGNED_TX_DATA, `Failed to parse signed tx data: ${e.message}`);
        throw e;
      }
      try {
        await wal.spend(async (ctx) => {
          for (const r of ptxs) {
            const ptx = pendingOfRecord(ctx, r);
            await commitTx(ctx, ptx);
            ids.push(ptx.txid);
          }
        });
      } catch (e) {
        if (e instanceof SendError) fail(W.SIGNED_SUBMISSION, `Failed to submit signed tx: ${e.message}`);
        if (e instanceof ColdError) fail(W.SIGNED_SUBMISSION, `Failed to submit signed tx: ${e.message}`);
        if (e instanceof Error && e.name === "NoDaemonError") fail(W.NO_DAEMON_CONNECTION, e.message);
        throw e;
      }
      return withList({}, "tx_hash_list", ids);
    },
  }),

  ];
}
