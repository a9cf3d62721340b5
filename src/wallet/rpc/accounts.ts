/**
 * Balances, addresses, subaddresses and accounts (wallet_rpc_server.cpp): get_balance, get_address,
 * get_address_index, create_address, label_address, get_accounts, create_account, label_account,
 * account tags (is_multisig is in multisig.ts).
 */
import { decodeAddress } from "../../protocol/address.js";
import { bool, str, u32, withDefault } from "../../rpc/index.js";
import { WalletRpcMessages } from "../keys/rpc.js";
import { Ledger } from "../ledger/ledger.js";
import { def, list, fail, now, obj, subaddrIndex, W, type WalletRpcDeps, withList } from "./common.js";

/** Balances, addresses, subaddresses, accounts and their tags. */
export function accountMethods(d: WalletRpcDeps) {
  const { w } = d;
  return [
    def({
      name: "get_balance",
      mirrors: "tools::wallet_rpc_server::on_getbalance",
      aliases: ["getbalance"],
      params: obj({ account_index: u32, address_indices: list(u32), all_accounts: bool, strict: bool }),
      handler: (p) => {
        const wal = w();
        const t = now();
        const ledger = wal.ledger;
        const accounts = p.all_accounts ? [...Array(wal.accountCount).keys()] : [p.account_index];
        // one pass over the transfers for every figure of the answer
        const report = ledger.balanceReport(accounts, t, p.strict);
        const total = Ledger.totalOf([]);
        const per: { account_index: number; address_index: number; address: string; balance: bigint; unlocked_balance: bigint; label: string; num_unspent_outputs: number; blocks_to_unlock: bigint; time_to_unlock: bigint }[] = [];
        for (const major of accounts) {
          const rep = report.get(major);
          const rowList = rep?.rows ?? [];
          Ledger.totalOf(rowList, total);
          const rows = new Map(rowList.map((r) => [r.minor, r]));
          const minors = !p.all_accounts && p.address_indices.length > 0 ? [...new Set(p.address_indices)].sort((a, b) => a - b) : [...rows.keys()];
          for (const minor of minors) {
            const r = rows.get(minor);
            const index = { major, minor };
            per.push({
              account_index: major,
              address_index: minor,
              address: wal.address(index),
              balance: r?.balance ?? 0n,
              unlocked_balance: r?.unlockedBalance ?? 0n,
              label: wal.label(index),
              num_unspent_outputs: rep?.unspent.get(minor) ?? 0,
              blocks_to_unlock: r?.blocksToUnlock ?? 0n,
              time_to_unlock: r?.timeToUnlock ?? 0n,
            });
          }
        }
        return withList(
          {
            balance: total.balance,
            unlocked_balance: total.unlockedBalance,
            // wallet2: multisig() && has_multisig_partial_key_images()
            multisig_import_needed: wal.multisig.multisig && ledger.hasPartialKeyImages(),
            blocks_to_unlock: total.blocksToUnlock,
            time_to_unlock: total.timeToUnlock,
          },
          "per_subaddress",
          per,
        );
      },
    }),
    def({
      name: "get_address",
      mirrors: "tools::wallet_rpc_server::on_getaddress",
      aliases: ["getaddress"],
      params: obj({ account_index: u32, address_index: list(u32) }),
      handler: (p) => {
        const wal = w();
        if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
        const n = wal.subaddressCount(p.account_index);
        const minors = p.address_index.length > 0 ? p.address_index : [...Array(n).keys()];
        const used = new Set(wal.ledger.state.transfers.filter((t) => t.subaddress.major === p.account_index).map((t) => t.subaddress.minor));
        const addresses = minors.map((minor) => {
          if (minor >= n) fail(W.ADDRESS_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.addressOutOfBound);
          const index = { major: p.account_index, minor };
          return { address: wal.address(index), label: wal.label(index), address_index: minor, used: used.has(minor) };
        });
        return withList({ address: wal.address({ major: p.account_index, minor: 0 }) }, "addresses", addresses);
      },
    }),
    def({
      name: "get_address_index",
      params: obj({ address: str }),
      handler: (p) => {
        const wal = w();
        let spend: Uint8Array;
        try {
          spend = decodeAddress(p.address, wal.network).spendPublicKey;
        } catch {
          return fail(W.WRONG_ADDRESS, "Invalid address");
        }
        const index = wal.subaddressIndexOf(spend);
        if (!index) fail(W.WRONG_ADDRESS, WalletRpcMessages.addressNotInWallet);
        return { index: { major: index?.major ?? 0, minor: index?.minor ?? 0 } };
      },
    }),
    // wallet_rpc_server::on_set_subaddr_lookahead (0.18.2+): the password unless the wallet has no file; wallet2's checks answer −1
    def({
      name: "set_subaddress_lookahead",
      summary: "Sets how many accounts and subaddresses per account ahead of the last used one the wallet watches (monero-wallet-rpc 0.18.2+)",
      params: obj({ password: str, major_idx: u32, minor_idx: u32 }),
      handler: async (p) => {
        const wal = w();
        if (!wal.inMemory && !(await wal.verifyPassword(p.password))) fail(W.INVALID_PASSWORD, "Invalid password.");
        await wal.setSubaddressLookahead(p.major_idx, p.minor_idx);
        return {};
      },
    }),
    // tsmonero's extension (no monero-wallet-rpc has it): the sizes set_subaddress_lookahead set
    def({
      name: "get_subaddress_lookahead",
      summary: "tsmonero extension: the wallet's subaddress lookahead (accounts, subaddresses per account)",
      params: obj({}),
      handler: () => {
        const l = w().subaddressLookahead;
        return { major_idx: l.major, minor_idx: l.minor };
      },
    }),
    def({
      name: "create_address",
      params: obj({ account_index: u32, count: withDefault(u32, 1), label: str }),
      handler: async (p) => {
        const wal = w();
        if (p.count < 1 || p.count > 64) fail(W.UNKNOWN_ERROR, WalletRpcMessages.countRange);
        if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
        const indices: number[] = [];
        for (let i = 0; i < p.count; i++) indices.push(await wal.addSubaddress(p.account_index, p.label));
        const addresses = indices.map((minor) => wal.address({ major: p.account_index, minor }));
        return { address: addresses[0], address_index: indices[0], addresses, address_indices: indices };
      },
    }),
    def({
      name: "label_address",
      params: obj({ index: subaddrIndex, label: str }),
      handler: (p) => {
        const wal = w();
        if (p.index.major >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
        if (p.index.minor >= wal.subaddressCount(p.index.major)) fail(W.ADDRESS_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.addressOutOfBound);
        wal.user.subaddressLabels[p.index.major][p.index.minor] = p.label;
        return {};
      },
    }),
    def({
      name: "get_accounts",
      params: obj({ tag: str, strict_balances: bool, regexp: bool }),
      handler: (p) => {
        const wal = w();
        const { descriptions, tags } = wal.accountTags();
        if (p.tag !== "" && !descriptions.has(p.tag) && !p.regexp) fail(W.UNKNOWN_ERROR, `Tag ${p.tag} is unregistered.`);
        let re: RegExp | null = null;
        if (p.regexp && p.tag !== "") {
          try {
            re = new RegExp(`^(?:${p.tag})$`);
          } catch (e) {
            fail(W.UNKNOWN_ERROR, `Invalid regular expression ${p.tag}: ${(e as Error).message}`);
          }
        }
        const t = now();
        let totalBalance = 0n;
        let totalUnlocked = 0n;
        const list: { account_index: number; base_address: string; balance: bigint; unlocked_balance: bigint; label: string; tag: string }[] = [];
        for (let major = 0; major < wal.accountCount; major++) {
          const tag = tags[major];
          if (p.tag !== "" && (re ? !re.test(tag) : tag !== p.tag)) continue;
          const b = wal.ledger.balance(major, t, p.strict_balances);
          totalBalance += b.balance;
          totalUnlocked += b.unlockedBalance;
          list.push({
            account_index: major,
            base_address: wal.address({ major, minor: 0 }),
            balance: b.balance,
            unlocked_balance: b.unlockedBalance,
            label: wal.label({ major, minor: 0 }),
            tag,
          });
        }
        if (list.length === 0 && p.regexp) fail(W.UNKNOWN_ERROR, `No matches for regex filter ${p.tag} .`);
        return withList({ total_balance: totalBalance, total_unlocked_balance: totalUnlocked }, "subaddress_accounts", list);
      },
    }),
    def({
      name: "create_account",
      params: obj({ label: str }),
      handler: async (p) => {
        const wal = w();
        const major = await wal.addAccount(p.label);
        return { account_index: major, address: wal.address({ major, minor: 0 }) };
      },
    }),
    def({
      name: "label_account",
      params: obj({ account_index: u32, label: str }),
      handler: (p) => {
        const wal = w();
        if (p.account_index >= wal.accountCount) fail(W.ACCOUNT_INDEX_OUT_OF_BOUNDS, WalletRpcMessages.accountOutOfBound);
        wal.user.subaddressLabels[p.account_index][0] = p.label;
        return {};
      },
    }),
    def({
      name: "get_account_tags",
      params: obj({}),
      handler: () => {
        const { descriptions, tags } = w().accountTags();
        const list = [...descriptions].map(([tag, label]) =>
          withList({ tag, label }, "accounts", tags.flatMap((t, i) => (t === tag ? [i] : []))),
        );
        return withList({}, "account_tags", list);
      },
    }),
    def({
      name: "tag_accounts",
      params: obj({ tag: str, accounts: list(u32) }),
      handler: (p) => {
        w().setAccountTag([...new Set(p.accounts)], p.tag);
        return {};
      },
    }),
    def({
      name: "untag_accounts",
      params: obj({ accounts: list(u32) }),
      handler: (p) => {
        w().setAccountTag([...new Set(p.accounts)], "");
        return {};
      },
    }),
    def({
      name: "set_account_tag_description",
      params: obj({ tag: str, description: str }),
      handler: (p) => {
        const wal = w();
        if (p.tag === "") fail(W.UNKNOWN_ERROR, "Tag must not be empty");
        if (!wal.accountTags().descriptions.has(p.tag)) fail(W.UNKNOWN_ERROR, "Tag is unregistered");
        wal.user.accountTagDescriptions[p.tag] = p.description;
        return {};
      },
    }),
  ];
}
