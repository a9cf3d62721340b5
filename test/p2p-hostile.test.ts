/**
 * Misbehaving peers (ports 19240–19259): a raw TCP client sends tsmonerod and a real monerod the
 * same bad input side by side (a malformed Levin header, an oversized frame, garbage after a
 * handshake, a block that fails verification, handshakes with the wrong network id) and checks
 * both drop the connection, score and ban the host alike (get_bans), and keep serving RPC with
 * their chain unchanged.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { encodeEpee } from "../src/codec/epee-map.js";
import { LEVIN_PACKET_REQUEST, readLevinMessage, serializeLevinHeader, serializeLevinMessage } from "../src/codec/levin.js";
import * as M from "../src/node/p2p/messages.js";
import { parseBlock, serializeBlock } from "../src/protocol/block.js";
import type { Daemon } from "./helpers/monerod.js";
import { fromHex } from "./helpers/chain.js";
import { MINER_ADDRESS, Net, top, up } from "./helpers/p2p.js";
import { nodeCall } from "./helpers/node-rpc.js";

const net = new Net();
after(() => net.close());

/** A raw P2P client: bytes out, whether the node closed us, the Levin messages it sent. */
class RawPeer {
  private buf: Uint8Array = new Uint8Array(0);
  private waiting: (() => void)[] = [];
  closed = false;
  readonly messages: { command: number; body: Uint8Array }[] = [];

  private constructor(readonly sock: Socket) {
    sock.on("data", (d: Buffer) => {
      const b = new Uint8Array(this.buf.length + d.length);
      b.set(this.buf);
      b.set(d, this.buf.length);
      this.buf = b;
      for (let m = readLevinMessage(this.buf); m; m = readLevinMessage(this.buf)) {
        this.messages.push({ command: m.message.header.command, body: m.message.body });
        this.buf = m.rest;
      }
      this.wake();
    });
    sock.on("error", () => undefined);
    sock.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  static open(port: number): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port });
      s.once("connect", () => resolve(new RawPeer(s)));
      s.once("error", reject);
    });
  }

  send(b: Uint8Array): void {
    this.sock.write(b);
  }

  /** Waits until `cond` holds (checked on every event) or `ms` pass; returns whether it holds. */
  async until(cond: () => boolean, ms: number): Promise<boolean> {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, end - Date.now()));
        this.waiting.push(() => (clearTimeout(t), r()));
      });
    }
    return cond();
  }

  dropped(ms = 5000): Promise<boolean> {
    return this.until(() => this.closed, ms);
  }

  end(): Promise<boolean> {
    this.sock.end();
    return this.dropped();
  }
}

const frame = (command: number, body: Uint8Array, request: boolean): Uint8Array =>
  serializeLevinMessage({ haveToReturnData: request, command, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: 1 }, body);

interface Node {
  kind: string;
  d: Daemon;
  p2p: number;
}
let nodes: Node[] = [];
let genesis = { hash: "", version: 1 };

function handshake(networkId: Uint8Array): Uint8Array {
  return frame(
    M.COMMAND_HANDSHAKE,
    encodeEpee(M.handshakeRequest, {
      node_data: { network_id: networkId, my_port: 0, rpc_port: 0, rpc_credits_per_hash: 0, peer_id: randomBytes(8).readBigUInt64LE(0), support_flags: 1 },
      payload_data: { current_height: 1n, cumulative_difficulty: 1n, cumulative_difficulty_top64: 0n, top_id: fromHex(genesis.hash), top_version: genesis.version, pruning_seed: 0 },
    }),
    true,
  );
}

/** Opens a connection and completes a handshake (regtest's network id); the handshake answer must come. */
async function handshaken(n: Node): Promise<RawPeer> {
  const p = await RawPeer.open(n.p2p);
  p.send(handshake(M.NETWORK_IDS.regtest));
  assert.ok(await p.until(() => p.messages.some((m) => m.command === M.COMMAND_HANDSHAKE), 5000), `${n.kind} answers a good handshake`);
  assert.equal(p.closed, false);
  return p;
}

const bans = async (n: Node): Promise<{ host: string; seconds: number }[]> => ((await nodeCall(n.d.url, "get_bans")).bans ?? []) as { host: string; seconds: number }[];

before(async () => {
  const dead = ["--seed-node", "127.0.0.1:19259"];
  const m = net.monerod(19240, 19241, net.tmp(), dead);
  const t = net.tsmonerod(19242, 19243, net.tmp(), dead);
  await up(m);
  await up(t);
  nodes = [
    { kind: "monerod", d: m, p2p: 19241 },
    { kind: "tsmonerod", d: t, p2p: 19243 },
  ];
  const g = (await nodeCall(m.url, "get_block_header_by_height", { height: 0 })).block_header as { hash: string; major_version: number };
  genesis = { hash: g.hash, version: g.major_version };
  // a fresh monerod alone is not synchronized and answers chain RPCs BUSY; a peer as high as it
  // (our good handshake at the genesis) makes it so
  for (const n of nodes) assert.ok(await (await handshaken(n)).end());
  for (const n of nodes) assert.equal((await top(n.d.url)).hash, genesis.hash);
});

/** Runs `attack` on both nodes; each must drop us; no ban yet, and the chain is as before. */
async function bothDrop(what: string, attack: (n: Node) => Promise<RawPeer>): Promise<void> {
  for (const n of nodes) {
    const before = await top(n.d.url);
    const p = await attack(n);
    assert.ok(await p.dropped(), `${n.kind} drops a peer that sends ${what}`);
    assert.deepEqual(await bans(n), [], `${n.kind}: ${what} alone bans no one`);
    assert.deepEqual(await top(n.d.url), before, `${n.kind}: chain unchanged after ${what}`);
  }
}

test("a malformed Levin header is dropped without a ban", async () => {
  await bothDrop("a header with a bad signature", async (n) => {
    const p = await RawPeer.open(n.p2p);
    const h = frame(M.COMMAND_HANDSHAKE, new Uint8Array(10), true);
    h[0] ^= 0xff;
    p.send(h);
    return p;
  });
});

test("an oversized frame before the handshake is dropped without a ban", async () => {
  await bothDrop("a 300 KiB frame before its handshake (the limit is 256 KiB)", async (n) => {
    const p = await RawPeer.open(n.p2p);
    p.send(serializeLevinHeader({ cb: 300 * 1024, haveToReturnData: true, command: M.COMMAND_HANDSHAKE, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: 1 }));
    return p;
  });
});

test("garbage after a good handshake is dropped without a ban", async () => {
  await bothDrop("garbage after its handshake", async (n) => {
    const p = await handshaken(n);
    p.send(randomBytes(64));
    return p;
  });
});

test("a block that fails verification is dropped with a score of 1, no ban", async () => {
  await bothDrop("a fluffy block whose coinbase pays itself 1 piconero too much", async (n) => {
    const tpl = await nodeCall(n.d.url, "get_block_template", { wallet_address: MINER_ADDRESS, reserve_size: 0 });
    const b = parseBlock(fromHex(tpl.blocktemplate_blob as string));
    b.minerTx.vout[0].amount += 1n;
    const p = await handshaken(n);
    p.send(frame(M.NOTIFY_NEW_FLUFFY_BLOCK, encodeEpee(M.newBlock, { b: { pruned: false, block: serializeBlock(b), block_weight: 0n, txs: [] }, current_blockchain_height: 2n }), false));
    return p;
  });
});

test("handshakes with the wrong network id: each dropped, the host banned for a day once its score passes 10; RPC serves on, chain unchanged", { timeout: 120_000 }, async () => {
  const wrong = Uint8Array.from(M.NETWORK_IDS.regtest);
  wrong[15] ^= 1;
  const counts: number[] = [];
  for (const n of nodes) {
    const before = await top(n.d.url);
    let attempts = 0;
    while ((await bans(n)).length === 0 && attempts < 15) {
      attempts++;
      const p = await RawPeer.open(n.p2p).catch(() => undefined);
      if (!p) continue;
      p.send(handshake(wrong));
      assert.ok(await p.dropped(), `${n.kind} drops a peer of another network (attempt ${attempts})`);
      assert.equal(p.messages.length, 0, `${n.kind} does not answer a handshake of another network`);
    }
    counts.push(attempts);
    const b = await bans(n);
    assert.equal(b.length, 1, `${n.kind} banned the host after ${attempts} handshakes`);
    assert.equal(b[0].host, "127.0.0.1");
    assert.ok(b[0].seconds > 86_000 && b[0].seconds <= 86_400, `${n.kind}: banned for a day (${b[0].seconds} s left)`);
    assert.equal((await nodeCall(n.d.url, "banned", { address: "127.0.0.1" })).banned, true);
    // a banned host's new connections are refused: closed before any answer
    const p = await RawPeer.open(n.p2p).catch(() => undefined);
    if (p) {
      p.send(handshake(M.NETWORK_IDS.regtest));
      assert.ok(await p.dropped(), `${n.kind} refuses a banned host`);
      assert.equal(p.messages.length, 0);
    }
    assert.deepEqual(await top(n.d.url), before, `${n.kind}: chain unchanged`);
    assert.ok(((await nodeCall(n.d.url, "get_info")).height as number) >= 1, `${n.kind} serves RPC`);
  }
  // the invalid block of the test before scored 1, so both ban on the same 10th handshake (1 + 10 > 10)
  assert.equal(counts[0], counts[1], `monerod banned after ${counts[0]}, tsmonerod after ${counts[1]}`);
  assert.equal(counts[1], 10);
});
