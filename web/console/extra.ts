/**
 * tx_extra decoded for the explorer (cryptonote_basic/tx_extra.h): the tx public key (tag 0x01),
 * the nonce (0x02: an unencrypted 32-byte payment id after 0x00, an encrypted 8-byte one after
 * 0x01), additional public keys (0x04), merge-mining tags (0x03), padding (0x00). Parsing stops
 * at an unknown tag; what is left is shown raw.
 */

export type ExtraField =
  | { kind: "pubkey"; key: string }
  | { kind: "additional"; keys: string[] }
  | { kind: "payment-id"; id: string }
  | { kind: "encrypted-payment-id"; id: string }
  | { kind: "nonce"; hex: string }
  | { kind: "merge-mining"; hex: string }
  | { kind: "padding"; bytes: number }
  | { kind: "unparsed"; tag: number; hex: string };

export function hex(bytes: ArrayLike<number>): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, "0");
  return s;
}

/** Decodes a tx_extra given as the byte array of a transaction's as_json. */
export function parseExtra(extra: readonly number[]): ExtraField[] {
  const out: ExtraField[] = [];
  let i = 0;
  const varint = (): number => {
    let v = 0;
    let shift = 0;
    for (;;) {
      if (i >= extra.length) throw new Error("truncated varint");
      const b = extra[i++];
      v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
      shift += 7;
    }
  };
  const take = (n: number): number[] => {
    if (i + n > extra.length) throw new Error("truncated field");
    const s = extra.slice(i, i + n);
    i += n;
    return s;
  };
  while (i < extra.length) {
    const start = i;
    const tag = extra[i++];
    try {
      if (tag === 0x00) {
        out.push({ kind: "padding", bytes: extra.length - start });
        i = extra.length;
      } else if (tag === 0x01) out.push({ kind: "pubkey", key: hex(take(32)) });
      else if (tag === 0x02) {
        const n = take(varint());
        if (n[0] === 0x00 && n.length === 33) out.push({ kind: "payment-id", id: hex(n.slice(1)) });
        else if (n[0] === 0x01 && n.length === 9) out.push({ kind: "encrypted-payment-id", id: hex(n.slice(1)) });
        else out.push({ kind: "nonce", hex: hex(n) });
      } else if (tag === 0x03) out.push({ kind: "merge-mining", hex: hex(take(varint())) });
      else if (tag === 0x04) {
        const count = varint();
        const keys: string[] = [];
        for (let k = 0; k < count; k++) keys.push(hex(take(32)));
        out.push({ kind: "additional", keys });
      } else {
        out.push({ kind: "unparsed", tag, hex: hex(extra.slice(start)) });
        break;
      }
    } catch {
      out.push({ kind: "unparsed", tag, hex: hex(extra.slice(start)) });
      break;
    }
  }
  return out;
}
