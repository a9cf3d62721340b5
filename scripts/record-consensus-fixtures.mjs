#!/usr/bin/env node
// Records what monerod computes about chain state (fee estimates, weight median/limit, hard-fork
// info) after every block of the recorded regtest chain (test/fixtures/chain), as the fixtures of
// test/consensus-state.test.ts. Run: node scripts/record-consensus-fixtures.mjs [outFile]
//
// It starts `monerod --regtest --offline --fixed-difficulty 1` on ports 28601/28602 in a temporary
// directory and replays the recorded chain into it: for each block, send_raw_transaction of its
// transactions, then submit_block of its blob. Before each block and after the last it records
// get_fee_estimate (grace 0 and 10), get_info's block_weight_median/limit and hard_fork_info.
// At the tip it then asks monerod for a block template and submits it and variants of it that
// break one rule each (reward ±1, timestamp around the median and the future limit, versions,
// coinbase height/unlock/output type/version), recording whether monerod accepted each (an
// accepted variant is popped again). Tampering uses our own parser (run `npm run build` first).
// Then it stops the monerod it started and removes the temporary directory.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseBlock, serializeBlock } from "../dist/src/protocol/block.js";
import { parseTransaction, serializeTransaction } from "../dist/src/protocol/tx.js";
import { txHash } from "../dist/src/protocol/tx-hash.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const chainDir = join(root, "test", "fixtures", "chain");
const outFile = process.argv[2] ?? join(root, "test", "fixtures", "consensus", "chain-state.json");
const RPC = 28601;
const P2P = 28602;

const load = (name) => JSON.parse(gunzipSync(readFileSync(join(chainDir, name))).toString("utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = mkdtempSync(join(tmpdir(), "tsmonero-consensus-"));
let child;
let stopping = false;

async function post(path, body) {
  const res = await fetch(`http://127.0.0.1:${RPC}${path}`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/json" },
    signal: AbortSignal.timeout(120000),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}
async function rpc(method, params = {}) {
  const j = await post("/json_rpc", JSON.stringify({ jsonrpc: "2.0", id: "0", method, params }));
  if (j.error) throw new Error(`${method}: ${j.error.message} (${j.error.code})`);
  return j.result;
}

async function snapshot() {
  const info = await rpc("get_info");
  const f0 = await rpc("get_fee_estimate", { grace_blocks: 0 });
  const f10 = await rpc("get_fee_estimate", { grace_blocks: 10 });
  const hf = await rpc("hard_fork_info");
  return {
    height: info.height,
    block_weight_median: info.block_weight_median,
    block_weight_limit: info.block_weight_limit,
    fee_estimate_0: { fee: f0.fee, fees: f0.fees, quantization_mask: f0.quantization_mask },
    fee_estimate_10: { fee: f10.fee, fees: f10.fees, quantization_mask: f10.quantization_mask },
    hard_fork_info: {
      earliest_height: hf.earliest_height,
      enabled: hf.enabled,
      state: hf.state,
      threshold: hf.threshold,
      version: hf.version,
      votes: hf.votes,
      voting: hf.voting,
      window: hf.window,
    },
  };
}

const hex = (b) => Buffer.from(b).toString("hex");

/**
 * Before the last block's transactions enter the pool: send_raw_transaction of variants of its
 * first transaction that break one rule each; returns [{ name, blob, response }] with monerod's
 * flags and reason. An accepted variant is flushed from the pool again.
 */
async function txVerdicts(txHex, blocks, txs) {
  const base = () => parseTransaction(Buffer.from(txHex, "hex"));
  const key = (tx, i = 0) => tx.vin[i];
  const spent = txs.get(blocks.find((b) => b.tx_hashes.length > 0).tx_hashes[0]);
  const spentKi = parseTransaction(Buffer.from(spent.as_hex, "hex")).vin[0].keyImage;
  const torsion = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0xec : i === 31 ? 0x7f : 0xff));
  const variants = {
    original: () => {},
    "ring-15": (tx) => {
      tx.vin.forEach((i) => i.keyOffsets.pop());
      tx.rct.prunable.CLSAGs.forEach((c) => c.s.pop());
    },
    "ring-17": (tx) => {
      tx.vin.forEach((i) => i.keyOffsets.push(1n));
      tx.rct.prunable.CLSAGs.forEach((c) => c.s.push(c.s[0]));
    },
    "duplicate-ring-member": (tx) => void (key(tx).keyOffsets[3] = 0n),
    "one-output": (tx) => {
      tx.vout.pop();
      tx.rct.outPk.pop();
      tx.rct.ecdhInfo.pop();
    },
    "untagged-output": (tx) => void (tx.vout[0].target = { type: "key", key: tx.vout[0].target.key }),
    "bad-output-key": (tx) => void (tx.vout[0].target.key = Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 2 : 0))),
    "nonzero-output-amount": (tx) => void (tx.vout[1].amount = 5n),
    "rct-type-5": (tx) => void (tx.rct.type = 5),
    "torsion-key-image": (tx) => void (key(tx).keyImage = torsion),
    "spent-key-image": (tx) => void (key(tx).keyImage = spentKi),
    "missing-ring-member": (tx) => void (key(tx).keyOffsets[15] += 1000000n),
    "shifted-ring-member": (tx) => {
      key(tx).keyOffsets[0] -= 1n;
      key(tx).keyOffsets[1] += 1n;
    },
    "low-fee": (tx) => void (tx.rct.fee = tx.rct.fee / 4n),
    "unsorted-key-images": (tx) => {
      if (tx.vin.length >= 2) [tx.vin[0], tx.vin[1]] = [tx.vin[1], tx.vin[0]];
    },
  };
  const out = [];
  for (const [name, mutate] of Object.entries(variants)) {
    const tx = base();
    mutate(tx);
    const blob = serializeTransaction(tx);
    const response = await post("/send_raw_transaction", JSON.stringify({ tx_as_hex: hex(blob), do_not_relay: true }));
    if (response.status === "OK") {
      const r = await rpc("flush_txpool", { txids: [hex(txHash(tx))] });
      if (r.status !== "OK") throw new Error(`flush_txpool after ${name}`);
    }
    delete response.credits;
    delete response.top_hash;
    delete response.untrusted;
    out.push({ name, inputs: tx.vin.length, blob: hex(blob), response });
    console.log(`${name}: ${response.status} ${response.reason ?? ""}`);
  }
  return out;
}

/**
 * Submits the template and one-rule-broken variants; returns [{ name, blob, now, status, accepted }]:
 * `status` is submit_block's answer ("OK", or the error message), `accepted` whether the chain grew
 * (submit_block answers OK for a block it keeps as an orphan too).
 */
async function blockVerdicts(blocks, address) {
  const t = await rpc("get_block_template", { wallet_address: address, reserve_size: 0 });
  const base = () => parseBlock(Buffer.from(t.blocktemplate_blob, "hex"));
  const ts = blocks.slice(-60).map((b) => BigInt(JSON.parse(b.json).timestamp)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const median = (ts[29] + ts[30]) / 2n;
  const variants = {
    template: () => {},
    "reward+1": (b) => void (b.minerTx.vout[0].amount += 1n),
    "reward-1": (b) => void (b.minerTx.vout[0].amount -= 1n),
    "timestamp=median-1": (b) => void (b.timestamp = median - 1n),
    "timestamp=median": (b) => void (b.timestamp = median),
    "timestamp=now+7300": (b) => void (b.timestamp = BigInt(Math.floor(Date.now() / 1000)) + 7300n),
    "timestamp=now+7000": (b) => void (b.timestamp = BigInt(Math.floor(Date.now() / 1000)) + 7000n),
    "major=15": (b) => void (b.majorVersion = 15),
    "minor=15": (b) => void (b.minorVersion = 15),
    "minor=17": (b) => void (b.minorVersion = 17),
    "minor=0": (b) => void (b.minorVersion = 0),
    "gen-height+1": (b) => void (b.minerTx.vin[0].height += 1n),
    "unlock+1": (b) => void (b.minerTx.unlockTime += 1n),
    "untagged-output": (b) => void (b.minerTx.vout[0].target = { type: "key", key: b.minerTx.vout[0].target.key }),
    "prev-id": (b) => void (b.prevId = new Uint8Array(32)),
  };
  const out = [];
  for (const [name, mutate] of Object.entries(variants)) {
    const b = base();
    mutate(b);
    const blob = hex(serializeBlock(b));
    const now = Math.floor(Date.now() / 1000);
    const before = (await rpc("get_info")).height;
    let status;
    try {
      status = (await rpc("submit_block", [blob])).status;
    } catch (e) {
      status = e.message;
    }
    const accepted = (await rpc("get_info")).height > before;
    if (accepted) {
      const r = await post("/pop_blocks", JSON.stringify({ nblocks: 1 }));
      if (r.status !== "OK") throw new Error(`pop_blocks after ${name}: ${JSON.stringify(r)}`);
    }
    out.push({ name, blob, now, status, accepted });
    console.log(`${name}: ${accepted ? "accepted" : "rejected"} (${status})`);
  }
  return out;
}

async function main() {
  const blocks = load("blocks.json.gz");
  const txs = new Map(load("txs.json.gz").map((t) => [t.tx_hash, t]));
  mkdirSync(join(tmp, "node"));
  child = spawn(
    "monerod",
    [
      "--regtest",
      "--offline",
      "--fixed-difficulty",
      "1",
      "--data-dir",
      join(tmp, "node"),
      "--rpc-bind-port",
      String(RPC),
      "--p2p-bind-port",
      String(P2P),
      "--no-zmq",
      "--non-interactive",
      "--log-file",
      join(tmp, "monerod.log"),
    ],
    { stdio: ["ignore", "ignore", "ignore"] },
  );
  child.on("exit", (code, sig) => {
    if (!stopping) console.error(`monerod exited early (code ${code}, signal ${sig})`);
  });
  const deadline = Date.now() + 120000;
  for (;;) {
    try {
      await rpc("get_info");
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await sleep(500);
    }
  }
  const version = await rpc("get_version");
  const states = [];
  let txVerdictList = [];
  for (const b of blocks.slice(1)) {
    states.push(await snapshot());
    if (b.height === blocks.length - 1) txVerdictList = await txVerdicts(txs.get(b.tx_hashes[0]).as_hex, blocks, txs);
    for (const h of b.tx_hashes) {
      const t = txs.get(h);
      const r = await post("/send_raw_transaction", JSON.stringify({ tx_as_hex: t.as_hex, do_not_relay: false }));
      if (r.status !== "OK") throw new Error(`send_raw_transaction ${h} at ${b.height}: ${JSON.stringify(r)}`);
    }
    const r = await rpc("submit_block", [b.blob]);
    if (r.status !== "OK") throw new Error(`submit_block ${b.height}: ${JSON.stringify(r)}`);
  }
  states.push(await snapshot());
  const last = await rpc("get_last_block_header");
  if (last.block_header.hash !== blocks[blocks.length - 1].hash) throw new Error("replayed chain differs from the recording");
  const verdicts = await blockVerdicts(blocks, JSON.parse(readFileSync(join(chainDir, "meta.json"), "utf8")).wallets.alice);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    JSON.stringify({ recorded_with: "scripts/record-consensus-fixtures.mjs", monerod_version: version.version, states, verdicts, tx_verdicts: txVerdictList }, null, 1) + "\n",
  );
  console.log(`wrote ${states.length} states to ${outFile}`);
}

try {
  await main();
} finally {
  stopping = true;
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    for (let i = 0; i < 75 && child.exitCode === null && child.signalCode === null; i++) await sleep(200);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  if (!process.env.KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
}
