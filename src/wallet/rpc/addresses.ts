/**
 * Addresses that are not the wallet's own (wallet_rpc_server.cpp): validate_address, integrated
 * addresses, payment URIs and the address book.
 */
import { decodeAddress, encodeAddress } from "../../protocol/address.js";
import { bool, str, u64 } from "../../rpc/index.js";
import { makeIntegratedAddress, makeUriRpc, parseUriRpc, splitIntegratedAddress, validateAddressRpc } from "../keys/rpc.js";
import type { OpenWallet } from "../service/wallet.js";
import { def, list, fail, obj, plain, W, type WalletRpcDeps, withList } from "./common.js";

/** An address book row's address as monero-wallet-rpc prints it (integrated when it has a payment id). */
function bookAddress(wal: OpenWallet, row: { address: string; paymentId: string }): string {
  if (row.paymentId === "") return row.address;
  const a = decodeAddress(row.address, wal.network);
  return encodeAddress(wal.network, "integrated", a.spendPublicKey, a.viewPublicKey, Uint8Array.from(Buffer.from(row.paymentId, "hex")));
}

/** Parses an address for the book: its base (standard or subaddress) form and its payment id. */
function parseBookAddress(wal: OpenWallet, text: string): { base: string; pid: string } {
  try {
    const a = decodeAddress(text, wal.network);
    const kind = a.kind === "subaddress" ? "subaddress" : "standard";
    return {
      base: encodeAddress(wal.network, kind, a.spendPublicKey, a.viewPublicKey, null),
      pid: a.paymentId ? Buffer.from(a.paymentId).toString("hex") : "",
    };
  } catch {
    return fail(W.WRONG_ADDRESS, `WALLET_RPC_ERROR_CODE_WRONG_ADDRESS: ${text}`);
  }
}

/** validate_address, integrated addresses, URIs, the address book. */
export function addressMethods(d: WalletRpcDeps) {
  const { svc, w } = d;
  return [
    def({
      name: "validate_address",
      wallet: false,
      params: obj({ address: str, any_net_type: bool, allow_openalias: bool }),
      handler: (p) => {
        if (!p.any_net_type && !svc.hasWallet) fail(W.NOT_OPEN, "No wallet file");
        const net = svc.hasWallet ? w().network : undefined;
        return validateAddressRpc(net, { address: p.address, any_net_type: p.any_net_type });
      },
    }),
    def({
      name: "make_integrated_address",
      params: obj({ standard_address: str, payment_id: str }),
      handler: (p) => makeIntegratedAddress(w().keyWallet, p, () => svc.randomPaymentId()),
    }),
    def({
      name: "split_integrated_address",
      params: obj({ integrated_address: str }),
      handler: (p) => splitIntegratedAddress(w().network, p),
    }),
    def({
      name: "make_uri",
      params: obj({ address: str, payment_id: str, amount: u64, tx_description: str, recipient_name: str }),
      handler: (p) => makeUriRpc(w().network, p),
    }),
    def({
      name: "parse_uri",
      params: obj({ uri: str }),
      handler: (p) => plain(parseUriRpc(w().network, p)),
    }),
    def({
      name: "get_address_book",
      params: obj({ entries: list(u64) }),
      handler: (p) => {
        const wal = w();
        const ab = wal.user.addressBook;
        const idx = p.entries.length > 0 ? p.entries : ab.map((_, i) => BigInt(i));
        const list = idx.map((i) => {
          if (i >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${i}`);
          const row = ab[Number(i)];
          return { index: i, address: bookAddress(wal, row), description: row.description };
        });
        return withList({}, "entries", list);
      },
    }),
    def({
      name: "add_address_book",
      restricted: true,
      params: obj({ address: str, description: str }),
      handler: (p) => {
        const wal = w();
        const { base, pid } = parseBookAddress(wal, p.address);
        wal.user.addressBook.push({ address: base, description: p.description, paymentId: pid });
        return { index: wal.user.addressBook.length - 1 };
      },
    }),
    def({
      name: "edit_address_book",
      restricted: true,
      params: obj({ index: u64, set_address: bool, address: str, set_description: bool, description: str }),
      handler: (p) => {
        const wal = w();
        const ab = wal.user.addressBook;
        if (p.index >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${p.index}`);
        const old = ab[Number(p.index)];
        let address = old.address;
        let pid = old.paymentId;
        if (p.set_address) {
          const parsed = parseBookAddress(wal, p.address);
          address = parsed.base;
          if (parsed.pid !== "") pid = parsed.pid;
        }
        // as wallet2 0.18 does: the payment id stays only when the address was set and the old row had one
        const keepPid = p.set_address && old.paymentId !== "";
        ab[Number(p.index)] = { address, description: p.set_description ? p.description : old.description, paymentId: keepPid ? pid : "" };
        return {};
      },
    }),
    def({
      name: "delete_address_book",
      restricted: true,
      params: obj({ index: u64 }),
      handler: (p) => {
        const ab = w().user.addressBook;
        if (p.index >= BigInt(ab.length)) fail(W.WRONG_INDEX, `Index out of range: ${p.index}`);
        ab.splice(Number(p.index), 1);
        return {};
      },
    }),
  ];
}
