/**
 * The web console's page (issue 21): an explorer over the node RPC and the wallets over the wallet
 * RPC, routed by the URL's hash:
 *   #/  or #/chain?top=H   latest blocks, 20 a page, by height (never the whole chain)
 *   #/block/<height|hash>  a block's header and transactions
 *   #/tx/<hash>            inputs (key images, ring members' global indices), outputs, fee, extra
 *   #/pool                 the transaction pool
 *   #/wallets              the dev wallets' balances per account and subaddress
 *   #/wallet/<name>        one wallet: subaddresses, transfers, the send form
 * The wallet RPC serves one open wallet: to read dev wallet N the console opens it (open_wallet)
 * and afterwards reopens the wallet that was open before, so a curl user's open wallet is left as
 * it was; wallet calls are queued, one at a time.
 */
import { hex, parseExtra } from "./extra.js";
import { atomic, node, nodePath, wallet, xmr } from "./rpc.js";

interface DevWallet {
  name: string;
  address: string;
}
interface Config {
  node: boolean;
  wallet: boolean;
  devWallets: DevWallet[];
  devPassword: string;
  served: string;
}

const PAGE = 20;
let config: Config = { node: false, wallet: false, devWallets: [], devPassword: "", served: "" };

// ---- DOM helpers: text goes in as text, never as HTML ----
type Child = Node | string | number | bigint | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
const link = (href: string, text: Child, attrs: Record<string, string> = {}): HTMLAnchorElement => h("a", { href, ...attrs }, text);
const code = (text: string, cls = ""): HTMLElement => h("code", cls ? { class: cls } : {}, text);
function table(head: string[], rows: Child[][], attrs: Record<string, string> = {}, rowAttrs: Record<string, string>[] = []): HTMLTableElement {
  return h(
    "table",
    attrs,
    h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows.map((r, i) => h("tr", rowAttrs[i] ?? {}, ...r.map((c) => h("td", {}, c))))),
  );
}
function dl(pairs: [string, Child][]): HTMLDListElement {
  const d = h("dl");
  for (const [k, v] of pairs) d.append(h("dt", {}, k), h("dd", {}, v));
  return d;
}
const time = (t: number | bigint): string => (Number(t) > 0 ? new Date(Number(t) * 1000).toISOString().replace("T", " ").replace(".000Z", " UTC") : "—");

const view = (): HTMLElement => document.getElementById("view") as HTMLElement;
function showError(e: unknown): void {
  const box = document.getElementById("error") as HTMLElement;
  box.textContent = e instanceof Error ? e.message : String(e);
  box.hidden = false;
}
function clearError(): void {
  const box = document.getElementById("error") as HTMLElement;
  box.textContent = "";
  box.hidden = true;
}

// ---- the wallet RPC's one open wallet ----
let walletQueue: Promise<unknown> = Promise.resolve();
/** Runs `f` with dev wallet `name` open (null: whatever is open), then reopens the wallet open before. Calls are queued. */
function withWallet<T>(name: string | null, f: () => Promise<T>): Promise<T> {
  const run = async (): Promise<T> => {
    if (name === null || config.devWallets.length === 0) return f();
    const want = config.devWallets.find((w) => w.name === name);
    if (!want) throw new Error(`no dev wallet named ${name}`);
    let before: DevWallet | null;
    try {
      const a = await wallet<{ address: string }>("get_address", { account_index: 0 });
      before = config.devWallets.find((w) => w.address === a.address) ?? null;
    } catch {
      before = null; // no wallet open
    }
    if (before?.name !== name) await wallet("open_wallet", { filename: name, password: config.devPassword });
    try {
      return await f();
    } finally {
      if (before && before.name !== name) await wallet("open_wallet", { filename: before.name, password: config.devPassword }).catch(showError);
    }
  };
  const p = walletQueue.then(run, run);
  walletQueue = p.catch(() => undefined);
  return p;
}

// ---- explorer ----
interface Header {
  height: number;
  hash: string;
  timestamp: number;
  num_txes: number;
  block_size: number;
  reward: number | bigint;
  difficulty: number | bigint;
  major_version: number;
  minor_version: number;
  nonce: number;
  prev_hash: string;
  miner_tx_hash?: string;
  depth: number;
  orphan_status: boolean;
  block_weight: number;
}

async function chainPage(params: URLSearchParams): Promise<void> {
  const info = await node<{ height: number; tx_pool_size: number }>("get_info");
  const tip = info.height - 1;
  const topText = params.get("top");
  const top = topText !== null && /^\d+$/.test(topText) ? Math.min(Number(topText), tip) : tip;
  const start = Math.max(0, top - PAGE + 1);
  const r = await node<{ headers: Header[] }>("get_block_headers_range", { start_height: start, end_height: top });
  const headers = [...r.headers].reverse();
  const nav = h(
    "p",
    { class: "pager" },
    top < tip ? link(`#/chain?top=${Math.min(tip, top + PAGE)}`, "← newer") : "",
    " ",
    `blocks ${start}–${top} of ${info.height}`,
    " ",
    start > 0 ? link(`#/chain?top=${start - 1}`, "older →", { id: "older" }) : "",
  );
  view().replaceChildren(
    h("h2", {}, "Chain"),
    h("p", {}, `height ${info.height}, `, link("#/pool", `${info.tx_pool_size} transaction${info.tx_pool_size === 1 ? "" : "s"} in the pool`)),
    nav,
    table(
      ["height", "hash", "time", "txs", "size", "reward"],
      headers.map((b) => [link(`#/block/${b.height}`, b.height), link(`#/block/${b.hash}`, code(b.hash.slice(0, 16) + "…")), time(b.timestamp), b.num_txes, b.block_size, xmr(b.reward)]),
      { id: "blocks" },
      headers.map((b) => ({ "data-height": String(b.height) })),
    ),
    nav.cloneNode(true),
  );
}

async function blockPage(id: string): Promise<void> {
  const params = /^\d+$/.test(id) ? { height: Number(id) } : { hash: id };
  const b = await node<{ block_header: Header; miner_tx_hash: string; tx_hashes?: string[] }>("get_block", params);
  const hd = b.block_header;
  const txs = b.tx_hashes ?? [];
  view().replaceChildren(
    h("h2", {}, `Block ${hd.height}`),
    h("p", { class: "pager" }, hd.height > 0 ? link(`#/block/${hd.height - 1}`, "← previous") : "", " ", link(`#/block/${hd.height + 1}`, "next →")),
    dl([
      ["hash", code(hd.hash)],
      ["previous", link(`#/block/${hd.prev_hash}`, code(hd.prev_hash))],
      ["time", time(hd.timestamp)],
      ["version", `${hd.major_version}.${hd.minor_version}`],
      ["nonce", hd.nonce],
      ["difficulty", String(hd.difficulty)],
      ["size / weight", `${hd.block_size} / ${hd.block_weight} bytes`],
      ["reward", `${xmr(hd.reward)} XMR`],
      ["depth", hd.depth],
      ["orphan", hd.orphan_status ? "yes" : "no"],
      ["miner tx", link(`#/tx/${b.miner_tx_hash}`, code(b.miner_tx_hash))],
    ]),
    h("h3", {}, `Transactions (${txs.length})`),
    txs.length === 0 ? h("p", {}, "none but the miner transaction") : table(["hash"], txs.map((t) => [link(`#/tx/${t}`, code(t))]), { id: "block-txs" }),
  );
}

interface TxJson {
  version: number;
  unlock_time: number | bigint;
  vin: ({ key: { amount: number | bigint; key_offsets: (number | bigint)[]; k_image: string } } | { gen: { height: number } })[];
  vout: { amount: number | bigint; target: { key?: string; tagged_key?: { key: string; view_tag: string } } }[];
  extra: number[];
  rct_signatures?: { type: number; txnFee?: number | bigint; ecdhInfo?: { amount?: string; mask?: string }[]; outPk?: string[] };
}

async function txPage(hash: string): Promise<void> {
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new Error(`'${hash}' is not a transaction hash (64 hex digits)`);
  const [r, info] = await Promise.all([
    nodePath<{ txs?: { tx_hash: string; as_json: string; block_height: number; block_timestamp: number; in_pool: boolean; double_spend_seen: boolean }[]; missed_tx?: string[] }>(
      "/get_transactions",
      { txs_hashes: [hash], decode_as_json: true },
    ),
    node<{ height: number }>("get_info"),
  ]);
  const t = r.txs?.[0];
  if (!t) throw new Error(`transaction ${hash} not found, neither in the chain nor in the pool`);
  const tx = JSON.parse(t.as_json) as TxJson;
  const coinbase = tx.vin.length > 0 && "gen" in tx.vin[0];
  const rct = tx.rct_signatures;
  const fee = rct?.txnFee;
  const status = t.in_pool ? h("span", { class: "pool" }, "in the pool") : h("span", {}, "in block ", link(`#/block/${t.block_height}`, t.block_height), ` (${info.height - t.block_height} confirmations)`);
  const inputs = tx.vin.map((v, i): Child[] => {
    if ("gen" in v) return [i, "coinbase", `height ${v.gen.height}`];
    let acc = 0n;
    const abs = v.key.key_offsets.map((o) => (acc += BigInt(o)).toString());
    return [i, code(v.key.k_image, "key-image"), h("span", { class: "ring" }, abs.join(" "))];
  });
  const outputs = tx.vout.map((o, i): Child[] => [
    i,
    code(o.target.tagged_key?.key ?? o.target.key ?? "?", "out-key"),
    o.target.tagged_key ? code(o.target.tagged_key.view_tag) : "—",
    coinbase || !rct?.outPk ? `${xmr(o.amount)} XMR` : code(rct.outPk[i] ?? "?"),
    rct?.ecdhInfo?.[i]?.amount ? code(rct.ecdhInfo[i].amount ?? "") : "—",
  ]);
  const extra = parseExtra(tx.extra);
  view().replaceChildren(
    h("h2", {}, "Transaction"),
    dl([
      ["hash", code(t.tx_hash, "tx-hash")],
      ["status", h("span", { id: "tx-status", "data-in-pool": String(t.in_pool), "data-height": t.in_pool ? "" : String(t.block_height) }, status)],
      ["time", time(t.block_timestamp)],
      ["version", tx.version],
      ["unlock time", String(tx.unlock_time)],
      ["type", coinbase ? "coinbase" : `RingCT type ${rct?.type ?? "?"}`],
      ["fee", fee !== undefined ? `${xmr(fee)} XMR` : "—"],
      ["double spend seen", t.double_spend_seen ? "yes" : "no"],
    ]),
    h("h3", {}, `Inputs (${tx.vin.length})`),
    table(["#", "key image", "ring members (global output indices)"], inputs, { id: "tx-inputs" }),
    h("h3", {}, `Outputs (${tx.vout.length})`),
    table(["#", "one-time key", "view tag", coinbase ? "amount" : "amount commitment", "encrypted amount"], outputs, { id: "tx-outputs" }),
    h("h3", {}, "Extra"),
    table(
      ["field", "value"],
      extra.map((f): Child[] => {
        switch (f.kind) {
          case "pubkey":
            return ["tx public key", code(f.key, "extra-pubkey")];
          case "additional":
            return [`additional public keys (${f.keys.length})`, h("span", {}, ...f.keys.flatMap((k) => [code(k), h("br")]))];
          case "payment-id":
            return ["payment id (unencrypted nonce)", code(f.id)];
          case "encrypted-payment-id":
            return ["payment id (encrypted nonce)", code(f.id)];
          case "nonce":
            return ["nonce", code(f.hex)];
          case "merge-mining":
            return ["merge mining tag", code(f.hex)];
          case "padding":
            return ["padding", `${f.bytes} bytes`];
          case "unparsed":
            return [`unknown tag 0x${f.tag.toString(16)}`, code(f.hex)];
        }
      }),
      { id: "tx-extra" },
    ),
    h("p", { class: "raw" }, "raw extra: ", code(hex(tx.extra))),
  );
}

async function poolPage(): Promise<void> {
  const r = await nodePath<{ transactions?: { id_hash: string; fee: number | bigint; blob_size: number; weight: number; receive_time: number; double_spend_seen: boolean }[] }>("/get_transaction_pool");
  const txs = r.transactions ?? [];
  view().replaceChildren(
    h("h2", {}, `Pool (${txs.length})`),
    txs.length === 0
      ? h("p", { id: "pool-empty" }, "The pool is empty.")
      : table(
          ["hash", "fee", "size", "received"],
          txs.map((t) => [link(`#/tx/${t.id_hash}`, code(t.id_hash)), `${xmr(t.fee)} XMR`, `${t.blob_size} bytes`, time(t.receive_time)]),
          { id: "pool" },
        ),
  );
}

// ---- wallets ----
interface Accounts {
  subaddress_accounts: { account_index: number; balance: number | bigint; unlocked_balance: number | bigint; base_address: string; label: string }[];
  total_balance: number | bigint;
  total_unlocked_balance: number | bigint;
}
interface Balance {
  balance: number | bigint;
  unlocked_balance: number | bigint;
  per_subaddress?: { account_index: number; address_index: number; address: string; balance: number | bigint; unlocked_balance: number | bigint; label: string }[];
}
interface WalletState {
  name: string;
  address: string;
  accounts: Accounts;
  balance: Balance;
}

/** The open wallet's address and balances (call inside withWallet: the queue is not re-entrant). */
async function readOpen(name: string): Promise<WalletState> {
  const [a, accounts, balance] = await Promise.all([
    wallet<{ address: string }>("get_address", { account_index: 0 }),
    wallet<Accounts>("get_accounts"),
    wallet<Balance>("get_balance", { all_accounts: true }),
  ]);
  return { name, address: a.address, accounts, balance };
}

const readWallet = (name: string | null): Promise<WalletState> => withWallet(name, () => readOpen(name ?? "open wallet"));

function balanceTables(s: WalletState): HTMLElement {
  return h(
    "div",
    {},
    table(
      ["account", "label", "balance", "unlocked", "address"],
      s.accounts.subaddress_accounts.map((a) => [a.account_index, a.label, `${xmr(a.balance)} XMR`, `${xmr(a.unlocked_balance)} XMR`, code(a.base_address, "addr")]),
      { class: "accounts" },
    ),
    h("h4", {}, "Subaddresses holding coins"),
    (s.balance.per_subaddress ?? []).length === 0
      ? h("p", {}, "none")
      : table(
          ["account", "subaddress", "label", "balance", "unlocked", "address"],
          (s.balance.per_subaddress ?? []).map((p) => [p.account_index, p.address_index, p.label, `${xmr(p.balance)} XMR`, `${xmr(p.unlocked_balance)} XMR`, code(p.address, "addr")]),
          { class: "subaddresses" },
        ),
  );
}

async function walletsPage(): Promise<void> {
  if (!config.wallet) throw new Error("this console has no wallet RPC");
  const names = config.devWallets.length > 0 ? config.devWallets.map((w) => w.name) : [null];
  const states: WalletState[] = [];
  for (const n of names) states.push(await readWallet(n));
  view().replaceChildren(
    h("h2", {}, "Wallets"),
    config.devWallets.length > 0
      ? h("p", { class: "note" }, "The devnet's dev wallets. The wallet RPC serves one open wallet: the console opens each in turn (open_wallet) and then reopens the one that was open.")
      : h("p", { class: "note" }, "The wallet the wallet RPC has open."),
    table(
      ["wallet", "balance", "unlocked", "address"],
      states.map((s) => [link(`#/wallet/${s.name}`, s.name), h("span", { class: "balance" }, `${xmr(s.accounts.total_balance)} XMR`), h("span", { class: "unlocked" }, `${xmr(s.accounts.total_unlocked_balance)} XMR`), code(s.address, "addr")]),
      { id: "wallets" },
      states.map((s) => ({ "data-wallet": s.name })),
    ),
    ...states.flatMap((s) => [h("h3", {}, s.name), balanceTables(s)]),
  );
}

interface Transfer {
  txid: string;
  type: string;
  amount: number | bigint;
  fee: number | bigint;
  height: number;
  timestamp: number;
  confirmations?: number;
  subaddr_index: { major: number; minor: number };
  address: string;
}

async function walletPage(name: string): Promise<void> {
  if (!config.wallet) throw new Error("this console has no wallet RPC");
  const devName = config.devWallets.length > 0 ? name : null;
  const { state, transfers } = await withWallet(devName, async () => {
    const state = await readOpen(name);
    const t = await wallet<Partial<Record<"in" | "out" | "pending" | "failed" | "pool", Transfer[]>>>("get_transfers", { in: true, out: true, pending: true, failed: true, pool: true, all_accounts: true });
    const transfers = [...(t.pending ?? []), ...(t.pool ?? []), ...(t.failed ?? []), ...[...(t.in ?? []), ...(t.out ?? [])].sort((a, b) => b.height - a.height || b.timestamp - a.timestamp)];
    return { state, transfers };
  });
  const others = config.devWallets.filter((w) => w.name !== name);
  const form = h(
    "form",
    { id: "send-form" },
    h("label", {}, "to address ", h("input", { id: "send-address", size: "100", required: "", value: others[0]?.address ?? "" })),
    h("label", {}, "amount (XMR) ", h("input", { id: "send-amount", size: "16", required: "", value: "1" })),
    h("button", { id: "send-submit", type: "submit" }, "Send"),
    h("output", { id: "send-result" }),
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void send(devName, form);
  });
  view().replaceChildren(
    h("h2", {}, `Wallet ${name}`),
    h("p", {}, "address ", code(state.address, "addr")),
    balanceTables(state),
    h("h3", {}, "Send"),
    others.length > 0 ? h("p", { class: "note" }, "dev wallets: ", ...others.flatMap((w) => [h("button", { type: "button", class: "pick", "data-address": w.address }, w.name), " "])) : "",
    form,
    h("h3", {}, `Transfers (${transfers.length})`),
    transfers.length === 0
      ? h("p", {}, "none")
      : table(
          ["type", "tx", "amount", "fee", "height", "confirmations", "subaddress"],
          transfers.map((t) => [t.type, link(`#/tx/${t.txid}`, code(t.txid.slice(0, 16) + "…")), `${xmr(t.amount)} XMR`, `${xmr(t.fee)} XMR`, t.height || "—", t.confirmations ?? "—", `${t.subaddr_index.major}/${t.subaddr_index.minor}`]),
          { id: "transfers" },
          transfers.map((t) => ({ "data-txid": t.txid, "data-type": t.type })),
        ),
  );
  for (const b of view().querySelectorAll<HTMLButtonElement>("button.pick"))
    b.addEventListener("click", () => ((document.getElementById("send-address") as HTMLInputElement).value = b.dataset.address ?? ""));
}

async function send(devName: string | null, form: HTMLFormElement): Promise<void> {
  const out = form.querySelector("#send-result") as HTMLOutputElement;
  const button = form.querySelector("#send-submit") as HTMLButtonElement;
  clearError();
  out.textContent = "sending…";
  button.disabled = true;
  try {
    const address = (form.querySelector("#send-address") as HTMLInputElement).value.trim();
    if (address === "") throw new Error("enter an address to send to");
    const amount = atomic((form.querySelector("#send-amount") as HTMLInputElement).value);
    const r = await withWallet(devName, () => wallet<{ tx_hash: string; fee: number | bigint; amount: number | bigint }>("transfer", { destinations: [{ amount, address }], account_index: 0 }));
    out.replaceChildren("sent ", link(`#/tx/${r.tx_hash}`, code(r.tx_hash), { id: "sent-tx", "data-txid": r.tx_hash }), ` (${xmr(r.amount)} XMR, fee ${xmr(r.fee)} XMR)`);
  } catch (e) {
    out.textContent = "not sent";
    showError(e);
  } finally {
    button.disabled = false;
  }
}

async function mine(): Promise<void> {
  const button = document.getElementById("mine") as HTMLButtonElement;
  clearError();
  button.disabled = true;
  try {
    let address = config.devWallets[0]?.address;
    if (!address) address = (await wallet<{ address: string }>("get_address", { account_index: 0 })).address;
    const r = await node<{ height: number }>("generateblocks", { amount_of_blocks: 1, wallet_address: address });
    (document.getElementById("mined") as HTMLElement).textContent = `mined block ${r.height}`;
    await route();
  } catch (e) {
    showError(e);
  } finally {
    button.disabled = false;
  }
}

// ---- routing ----
let routing = 0;
async function route(): Promise<void> {
  const mine = ++routing;
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter((x) => x !== "");
  const params = new URLSearchParams(query);
  document.body.dataset.loading = "1";
  clearError();
  try {
    if (parts.length === 0 || parts[0] === "chain") await (config.node ? chainPage(params) : walletsPage());
    else if (parts[0] === "block" && parts[1]) await blockPage(decodeURIComponent(parts[1]));
    else if (parts[0] === "tx" && parts[1]) await txPage(decodeURIComponent(parts[1]));
    else if (parts[0] === "pool") await poolPage();
    else if (parts[0] === "wallets") await walletsPage();
    else if (parts[0] === "wallet" && parts[1]) await walletPage(decodeURIComponent(parts[1]));
    else throw new Error(`no page ${location.hash}`);
  } catch (e) {
    if (mine === routing) {
      view().replaceChildren();
      showError(e);
    }
  } finally {
    if (mine === routing) delete document.body.dataset.loading;
  }
}

async function search(q: string): Promise<void> {
  const s = q.trim();
  if (/^\d+$/.test(s)) location.hash = `#/block/${s}`;
  else if (/^[0-9a-fA-F]{64}$/.test(s)) {
    try {
      await node("get_block_header_by_hash", { hash: s });
      location.hash = `#/block/${s}`;
    } catch {
      location.hash = `#/tx/${s}`;
    }
  } else showError(`search for a block height, a block hash or a transaction hash (64 hex digits), not '${s}'`);
}

async function main(): Promise<void> {
  const r = await fetch("/console.json");
  if (!r.ok) throw new Error(`/console.json: HTTP ${r.status}`);
  config = (await r.json()) as Config;
  for (const id of ["nav-chain", "nav-pool", "search"]) (document.getElementById(id) as HTMLElement).hidden = !config.node;
  (document.getElementById("nav-wallets") as HTMLElement).hidden = !config.wallet;
  (document.getElementById("mine") as HTMLElement).hidden = !config.node;
  (document.getElementById("mine") as HTMLElement).addEventListener("click", () => void mine());
  const form = document.getElementById("search") as HTMLFormElement;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void search((form.querySelector("input") as HTMLInputElement).value);
  });
  window.addEventListener("hashchange", () => void route());
  document.body.dataset.ready = "1";
  await route();
}

main().catch(showError);

