/**
 * Fuzz of the P2P input path: the Levin framing (codec/levin.ts), every P2P message decoder
 * (node/p2p/messages.ts) and the connection's stream reader (node/p2p/connection.ts), over
 * monero-tests' levin corpus and over mutations of one valid message of every command. Nothing
 * may throw but our format errors (FormatError, EpeeTypeError), and nothing may hang: each input
 * is timed, the stream fuzz runs on a real socket with the event loop free between chunks.
 * Finally a live tsmonerod takes mutated messages after good handshakes and must keep serving RPC
 * with its chain unchanged.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, test } from "node:test";
import { decodeEpee, encodeEpee, type EpeeObjectCodec, EpeeTypeError } from "../src/codec/epee-map.js";
import { EPEE_LEVIN_LIMITS } from "../src/codec/epee.js";
import { LEVIN_PACKET_REQUEST, LEVIN_PACKET_RESPONSE, parseLevinMessage, serializeLevinMessage } from "../src/codec/levin.js";
import { FormatError } from "../src/codec/reader.js";
import { LevinConnection } from "../src/node/p2p/connection.js";
import * as M from "../src/node/p2p/messages.js";
import { fromHex, recordedBlocks, recordedTxs, toHex } from "./helpers/chain.js";
import { MONERO_TESTDATA, needPackage } from "./helpers/packages.js";
import { Net, top, up } from "./helpers/p2p.js";
import { nodeCall } from "./helpers/node-rpc.js";

const CORPUS = join(MONERO_TESTDATA, "fuzz", "levin");
const skipCorpus = needPackage("monero-tests", [CORPUS]);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const BUDGET_MS = Number(process.env.FUZZ_MS ?? 1500);

/** What node.ts decodes a request or notification of each command with, and the answers of invokes. */
const REQUESTS: Record<number, EpeeObjectCodec<unknown>> = {
  [M.COMMAND_HANDSHAKE]: M.handshakeRequest as EpeeObjectCodec<unknown>,
  [M.COMMAND_TIMED_SYNC]: M.timedSyncRequest as EpeeObjectCodec<unknown>,
  [M.COMMAND_PING]: M.emptyMessage as EpeeObjectCodec<unknown>,
  [M.COMMAND_REQUEST_SUPPORT_FLAGS]: M.emptyMessage as EpeeObjectCodec<unknown>,
  [M.NOTIFY_NEW_BLOCK]: M.newBlock as EpeeObjectCodec<unknown>,
  [M.NOTIFY_NEW_TRANSACTIONS]: M.newTransactions as EpeeObjectCodec<unknown>,
  [M.NOTIFY_REQUEST_GET_OBJECTS]: M.requestGetObjects as EpeeObjectCodec<unknown>,
  [M.NOTIFY_RESPONSE_GET_OBJECTS]: M.responseGetObjects as EpeeObjectCodec<unknown>,
  [M.NOTIFY_REQUEST_CHAIN]: M.requestChain as EpeeObjectCodec<unknown>,
  [M.NOTIFY_RESPONSE_CHAIN_ENTRY]: M.responseChainEntry as EpeeObjectCodec<unknown>,
  [M.NOTIFY_NEW_FLUFFY_BLOCK]: M.newBlock as EpeeObjectCodec<unknown>,
  [M.NOTIFY_REQUEST_FLUFFY_MISSING_TX]: M.requestFluffyMissingTx as EpeeObjectCodec<unknown>,
  [M.NOTIFY_GET_TXPOOL_COMPLEMENT]: M.getTxpoolComplement as EpeeObjectCodec<unknown>,
};
const RESPONSES: Record<number, EpeeObjectCodec<unknown>> = {
  [M.COMMAND_HANDSHAKE]: M.handshakeResponse as EpeeObjectCodec<unknown>,
  [M.COMMAND_TIMED_SYNC]: M.timedSyncResponse as EpeeObjectCodec<unknown>,
  [M.COMMAND_PING]: M.pingResponse as EpeeObjectCodec<unknown>,
  [M.COMMAND_REQUEST_SUPPORT_FLAGS]: M.supportFlagsResponse as EpeeObjectCodec<unknown>,
};
const ALL_CODECS = [...Object.values(REQUESTS), ...Object.values(RESPONSES)];

/** One valid message of every command (request side, then invoke answers), as whole Levin frames. */
function samples(): { command: number; response: boolean; body: Uint8Array }[] {
  const blocks = recordedBlocks();
  const txs = recordedTxs().filter((t) => !t.coinbase && t.as_hex.length < 8000).slice(0, 3).map((t) => fromHex(t.as_hex));
  const id = (i: number): Uint8Array => fromHex(blocks[i].hash);
  const sync: M.CoreSyncData = { current_height: 334n, cumulative_difficulty: 334n, cumulative_difficulty_top64: 0n, top_id: id(blocks.length - 1), top_version: 16, pruning_seed: 0 };
  const nodeData: M.BasicNodeData = { network_id: M.NETWORK_IDS.regtest, my_port: 18080, rpc_port: 18081, rpc_credits_per_hash: 0, peer_id: 0x1234567890abcdefn, support_flags: 1 };
  const peers: M.PeerlistEntry[] = [
    { adr: { type: "ipv4", host: "10.1.2.3", port: 18080 }, id: 7n, last_seen: 1_700_000_000n, pruning_seed: 0, rpc_port: 0, rpc_credits_per_hash: 0 },
    { adr: { type: "ipv6", host: "2001:db8::1", port: 18080 }, id: 8n, last_seen: 1_700_000_001n, pruning_seed: 0x181, rpc_port: 18089, rpc_credits_per_hash: 0 },
  ];
  const entry = { pruned: false, block: fromHex(blocks[12].blob), block_weight: 0n, txs: txs.map((blob) => ({ blob, prunable_hash: new Uint8Array(32) })) };
  const req = (command: number, codec: EpeeObjectCodec<never>, v: unknown): { command: number; response: boolean; body: Uint8Array } => ({ command, response: false, body: encodeEpee(codec, v as never) });
  const rsp = (command: number, codec: EpeeObjectCodec<never>, v: unknown): { command: number; response: boolean; body: Uint8Array } => ({ command, response: true, body: encodeEpee(codec, v as never) });
  return [
    req(M.COMMAND_HANDSHAKE, M.handshakeRequest as EpeeObjectCodec<never>, { node_data: nodeData, payload_data: sync }),
    req(M.COMMAND_TIMED_SYNC, M.timedSyncRequest as EpeeObjectCodec<never>, { payload_data: sync }),
    req(M.COMMAND_PING, M.emptyMessage as EpeeObjectCodec<never>, {}),
    req(M.NOTIFY_NEW_FLUFFY_BLOCK, M.newBlock as EpeeObjectCodec<never>, { b: { ...entry, txs: [] }, current_blockchain_height: 13n }),
    req(M.NOTIFY_NEW_BLOCK, M.newBlock as EpeeObjectCodec<never>, { b: entry, current_blockchain_height: 13n }),
    req(M.NOTIFY_NEW_TRANSACTIONS, M.newTransactions as EpeeObjectCodec<never>, { txs, _: new Uint8Array(0), dandelionpp_fluff: false }),
    req(M.NOTIFY_REQUEST_GET_OBJECTS, M.requestGetObjects as EpeeObjectCodec<never>, { blocks: [id(5), id(6), id(7)], prune: false }),
    req(M.NOTIFY_RESPONSE_GET_OBJECTS, M.responseGetObjects as EpeeObjectCodec<never>, { blocks: [entry], missed_ids: [id(9)], current_blockchain_height: 334n }),
    req(M.NOTIFY_REQUEST_CHAIN, M.requestChain as EpeeObjectCodec<never>, { block_ids: [id(20), id(10), id(0)], prune: true }),
    req(M.NOTIFY_RESPONSE_CHAIN_ENTRY, M.responseChainEntry as EpeeObjectCodec<never>, {
      start_height: 10n,
      total_height: 334n,
      cumulative_difficulty: 334n,
      cumulative_difficulty_top64: 0n,
      m_block_ids: [id(10), id(11), id(12)],
      m_block_weights: [M.u64Pod(100), M.u64Pod(200), M.u64Pod(300)],
      first_block: fromHex(blocks[11].blob),
    }),
    req(M.NOTIFY_REQUEST_FLUFFY_MISSING_TX, M.requestFluffyMissingTx as EpeeObjectCodec<never>, { block_hash: id(12), current_blockchain_height: 13n, missing_tx_indices: [M.u64Pod(0), M.u64Pod(2)] }),
    req(M.NOTIFY_GET_TXPOOL_COMPLEMENT, M.getTxpoolComplement as EpeeObjectCodec<never>, { hashes: [id(1), id(2)] }),
    rsp(M.COMMAND_HANDSHAKE, M.handshakeResponse as EpeeObjectCodec<never>, { node_data: nodeData, payload_data: sync, local_peerlist_new: peers }),
    rsp(M.COMMAND_TIMED_SYNC, M.timedSyncResponse as EpeeObjectCodec<never>, { payload_data: sync, local_peerlist_new: peers }),
    rsp(M.COMMAND_PING, M.pingResponse as EpeeObjectCodec<never>, { status: "OK", peer_id: 5n }),
    rsp(M.COMMAND_REQUEST_SUPPORT_FLAGS, M.supportFlagsResponse as EpeeObjectCodec<never>, { support_flags: 1 }),
  ];
}

const isOurs = (e: unknown): boolean => e instanceof FormatError || e instanceof EpeeTypeError;

/** Decodes `body` with `codec`: it decodes, or fails with one of our format errors, within 2 s. */
function decodeOrRefuse(what: string, codec: EpeeObjectCodec<unknown>, body: Uint8Array): "decoded" | "refused" {
  const t0 = performance.now();
  try {
    // (no re-encoding invariant: a peer list entry of a tor/i2p address decodes as "other", which
    // the node skips and never writes back)
    decodeEpee(codec, body, EPEE_LEVIN_LIMITS);
    return "decoded";
  } catch (e) {
    if (isOurs(e)) return "refused";
    throw new Error(`${what}: ${toHex(body.subarray(0, 48))}…: not a format error: ${(e as Error)?.stack ?? String(e)}`, { cause: e });
  } finally {
    assert.ok(performance.now() - t0 < 2000, `${what}: took ${(performance.now() - t0).toFixed(0)} ms`);
  }
}

/** xorshift32: the same mutations for the same seed. */
function rng(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

function mutate(b: Uint8Array, rand: (n: number) => number): Uint8Array {
  const out = [...b];
  const n = 1 + rand(4);
  for (let k = 0; k < n; k++) {
    const at = rand(out.length + 1);
    switch (rand(6)) {
      case 0:
        if (out.length) out[at % out.length] ^= 1 << rand(8);
        break;
      case 1:
        if (out.length) out[at % out.length] = [0, 0xff, 0x7f, 0x80, 1][rand(5)];
        break;
      case 2:
        out.splice(at, 1 + rand(8));
        break;
      case 3:
        out.splice(at, 0, ...randomBytesFrom(rand, 1 + rand(8)));
        break;
      case 4:
        out.length = at;
        break;
      default: {
        // repeat a slice (nested sections and arrays grow)
        const from = rand(out.length + 1);
        out.splice(at, 0, ...out.slice(from, from + 1 + rand(32)));
      }
    }
  }
  return Uint8Array.from(out);
}
const randomBytesFrom = (rand: (n: number) => number, n: number): number[] => Array.from({ length: n }, () => rand(256));

test("monero-tests' levin corpus: framing, and the body under every P2P decoder", { skip: skipCorpus }, () => {
  const files = readdirSync(CORPUS);
  assert.ok(files.length > 0, "the corpus has files");
  const seen = { framed: 0, unframed: 0 };
  const bodies = { decoded: 0, refused: 0 };
  for (const f of files) {
    const bytes = new Uint8Array(readFileSync(join(CORPUS, f)));
    let msg;
    try {
      msg = parseLevinMessage(bytes);
      seen.framed++;
    } catch (e) {
      assert.ok(isOurs(e), `${f}: ${String(e)}`);
      seen.unframed++;
      continue;
    }
    for (const codec of ALL_CODECS) bodies[decodeOrRefuse(f, codec, msg.body)]++;
    // and as a stream prefix: a header alone, then byte by byte
    for (let i = 0; i <= bytes.length; i++) {
      try {
        parseLevinMessage(bytes.subarray(0, i));
      } catch (e) {
        assert.ok(isOurs(e), `${f}[0..${i}]: ${String(e)}`);
      }
    }
  }
  assert.equal(seen.framed + seen.unframed, files.length);
  assert.equal(bodies.decoded + bodies.refused, seen.framed * ALL_CODECS.length);
});

test(`every P2P message decoder under mutation (${BUDGET_MS} ms each)`, () => {
  const all = samples();
  for (const s of all) {
    const codec = (s.response ? RESPONSES : REQUESTS)[s.command];
    assert.equal(decodeOrRefuse(`valid ${M.COMMAND_NAMES[s.command]}`, codec, s.body), "decoded");
    const rand = rng(SEED ^ (s.command * 31 + (s.response ? 7 : 0)));
    const deadline = performance.now() + BUDGET_MS / 4;
    const outcomes = { decoded: 0, refused: 0 };
    let runs = 0;
    while (performance.now() < deadline) {
      outcomes[decodeOrRefuse(`${M.COMMAND_NAMES[s.command]} mutated`, codec, mutate(s.body, rand))]++;
      runs++;
    }
    assert.ok(runs > 20, `${M.COMMAND_NAMES[s.command]}: only ${runs} runs`);
    assert.ok(outcomes.refused > 0, `${M.COMMAND_NAMES[s.command]}: no mutation was refused`);
  }
});

test("the connection's stream reader: mutated frames in random chunks close it or are handled, nothing else", { timeout: 60_000 }, async () => {
  const all = samples();
  const rand = rng(SEED);
  const strange: string[] = [];
  const server = createServer();
  const accepted: Socket[] = [];
  server.on("connection", (s) => accepted.push(s));
  await new Promise<void>((r) => server.listen(19262, "127.0.0.1", r));
  try {
    let closedByReader = 0;
    let handled = 0;
    const deadline = Date.now() + BUDGET_MS * 2;
    let rounds = 0;
    while (Date.now() < deadline || rounds < 20) {
      rounds++;
      const client = connect({ host: "127.0.0.1", port: 19262 });
      client.on("error", () => undefined);
      await new Promise<void>((r) => client.once("connect", () => r()));
      while (accepted.length === 0) await new Promise((r) => setImmediate(r));
      const sock = accepted.shift()!;
      const conn = new LevinConnection(sock, true, async (cmd, body) => {
        const codec = REQUESTS[cmd];
        if (!codec) return undefined;
        try {
          decodeEpee(codec, body, EPEE_LEVIN_LIMITS);
          handled++;
        } catch (e) {
          if (!isOurs(e)) strange.push(String(e));
          throw e; // as node.ts: a decode failure drops the peer
        }
        return undefined;
      });
      if (rounds % 2 === 0) conn.handshakeDone();
      let closed = false;
      conn.on("close", () => (closed = true));
      conn.on("misbehaved", () => closedByReader++);
      // a stream of frames: some whole and valid, some with a mutated body, some with a mutated header
      const parts: Uint8Array[] = [];
      for (let i = 0, n = 1 + rand(4); i < n; i++) {
        const s = all[rand(all.length)];
        const frame = serializeLevinMessage({ haveToReturnData: false, command: s.command, returnCode: 0, flags: s.response ? LEVIN_PACKET_RESPONSE : LEVIN_PACKET_REQUEST, protocolVersion: 1 }, rand(3) === 0 ? s.body : mutate(s.body, rand));
        parts.push(rand(4) === 0 ? mutate(frame.subarray(0, 33), rand) : frame.subarray(0, 33), frame.subarray(33));
      }
      if (rand(5) === 0) parts.push(randomBytes(1 + rand(64)));
      const stream = Buffer.concat(parts);
      for (let at = 0; at < stream.length && !closed; ) {
        const n = 1 + rand(Math.max(1, Math.min(4096, stream.length - at)));
        client.write(stream.subarray(at, at + n));
        at += n;
        await new Promise((r) => setImmediate(r));
      }
      await new Promise((r) => setTimeout(r, 5));
      client.destroy();
      conn.close("round over");
    }
    assert.deepEqual(strange, [], "only format errors from the decoders");
    assert.ok(closedByReader > 0 && handled > 0, `${rounds} rounds: ${closedByReader} closed for bad input, ${handled} messages handled`);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

const net = new Net();
after(() => net.close());

test("a live tsmonerod takes mutated messages after good handshakes and serves on, its chain unchanged", { timeout: 120_000 }, async () => {
  const t = net.tsmonerod(19260, 19261, net.tmp(), ["--seed-node", "127.0.0.1:19263"]);
  await up(t);
  const before = await top(t.url);
  const all = samples().filter((s) => !s.response && s.command !== M.COMMAND_HANDSHAKE);
  const rand = rng(SEED + 1);
  const genesis = before.hash;
  let rounds = 0;
  let dropped = 0;
  for (; rounds < 120; rounds++) {
    const s = connect({ host: "127.0.0.1", port: 19261 });
    s.on("error", () => undefined);
    let closed = false;
    s.on("close", () => (closed = true));
    await new Promise<void>((r) => s.once("connect", () => r()));
    const hs = encodeEpee(M.handshakeRequest, {
      node_data: { network_id: M.NETWORK_IDS.regtest, my_port: 0, rpc_port: 0, rpc_credits_per_hash: 0, peer_id: randomBytes(8).readBigUInt64LE(0), support_flags: 1 },
      payload_data: { current_height: 1n, cumulative_difficulty: 1n, cumulative_difficulty_top64: 0n, top_id: fromHex(genesis), top_version: 1, pruning_seed: 0 },
    });
    s.write(serializeLevinMessage({ haveToReturnData: true, command: M.COMMAND_HANDSHAKE, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: 1 }, hs));
    for (let i = 0, n = 1 + rand(3); i < n; i++) {
      const m = all[rand(all.length)];
      s.write(serializeLevinMessage({ haveToReturnData: m.command < 2000, command: m.command, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: 1 }, mutate(m.body, rand)));
    }
    await new Promise((r) => setTimeout(r, 30));
    if (closed) dropped++;
    s.destroy();
    // a ban would refuse the rest of the rounds: lift it (set_bans with ban false), as an operator would
    if (rounds % 5 === 4 && ((await nodeCall(t.url, "get_bans")).bans as unknown[] | undefined)?.length)
      await nodeCall(t.url, "set_bans", { bans: [{ host: "127.0.0.1", ban: false }] });
  }
  assert.equal(t.proc.exitCode, null, "tsmonerod still runs");
  assert.deepEqual(await top(t.url), before, "chain unchanged");
  assert.ok(dropped > 0, `${dropped} of ${rounds} hostile connections dropped`);
  // and it still speaks P2P: a good handshake is answered
  const ok = await new Promise<boolean>((resolve) => {
    const s = connect({ host: "127.0.0.1", port: 19261 });
    s.on("error", () => resolve(false));
    s.once("connect", () => {
      const hs = encodeEpee(M.handshakeRequest, {
        node_data: { network_id: M.NETWORK_IDS.regtest, my_port: 0, rpc_port: 0, rpc_credits_per_hash: 0, peer_id: 99n, support_flags: 1 },
        payload_data: { current_height: 1n, cumulative_difficulty: 1n, cumulative_difficulty_top64: 0n, top_id: fromHex(genesis), top_version: 1, pruning_seed: 0 },
      });
      s.write(serializeLevinMessage({ haveToReturnData: true, command: M.COMMAND_HANDSHAKE, returnCode: 0, flags: LEVIN_PACKET_REQUEST, protocolVersion: 1 }, hs));
    });
    s.once("data", () => (s.destroy(), resolve(true)));
    setTimeout(() => (s.destroy(), resolve(false)), 5000);
  });
  assert.ok(ok, "a good handshake is still answered");
});
