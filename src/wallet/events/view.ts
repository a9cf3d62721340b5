/** The deriver's view of a wallet's ledger (./derive.ts): incoming per tx and subaddress, outgoing per tx. */
import { DEFAULT_TX_SPENDABLE_AGE, type Ledger } from "../ledger/ledger.js";
import type { IncomingView, LedgerView, OutgoingView } from "./derive.js";

export function ledgerView(ledger: Ledger, synced: boolean, now: bigint = BigInt(Math.floor(Date.now() / 1000))): LedgerView {
  const s = ledger.state;
  const hashAt = (h: number): string => (h > 0 && h >= s.hashTailStart && h < s.hashTailStart + s.hashTail.length ? s.hashTail[h - s.hashTailStart] : "");
  const incoming = new Map<string, IncomingView>();
  const add = (v: IncomingView): void => {
    const key = `${v.txid}:${v.account}:${v.minor}`;
    const old = incoming.get(key);
    incoming.set(key, old ? { ...old, amount: old.amount + v.amount, unlocked: old.unlocked && v.unlocked } : v);
  };
  for (const p of s.payments) {
    const unlocked = p.unlockTime === 0n ? p.blockHeight + DEFAULT_TX_SPENDABLE_AGE <= s.height : ledger.isUnlocked(p.unlockTime, p.blockHeight, now);
    add({ txid: p.txid, account: p.subaddress.major, minor: p.subaddress.minor, amount: p.amount, height: p.blockHeight, blockHash: hashAt(p.blockHeight), unlocked, doubleSpendSeen: false });
  }
  for (const p of s.pool) add({ txid: p.txid, account: p.subaddress.major, minor: p.subaddress.minor, amount: p.amount, height: 0, blockHash: "", unlocked: false, doubleSpendSeen: p.doubleSpendSeen });
  const sent = (amountOut: bigint, change: bigint): bigint => (change >= 0n ? amountOut - change : amountOut);
  const outgoing: OutgoingView[] = [
    ...s.outgoing.map((o) => ({ txid: o.txid, account: o.account, subaddrIndices: o.subaddrIndices, amount: sent(o.amountOut, o.change), height: o.blockHeight, blockHash: hashAt(o.blockHeight), failed: false })),
    ...s.pending.map((o) => ({ txid: o.txid, account: o.account, subaddrIndices: o.subaddrIndices, amount: sent(o.amountOut, o.change), height: 0, blockHash: "", failed: o.failed })),
  ];
  const topHash = s.hashTail.length > 0 && s.hashTailStart + s.hashTail.length === s.height ? s.hashTail[s.hashTail.length - 1] : "";
  return { height: s.height, topHash, synced, incoming: [...incoming.values()], outgoing };
}
