/**
 * TCP_QUICKACK on the RPC servers' connections (src/rpc/quick-ack.ts, native/net/addon.c).
 *
 * epee's HTTP client (monero-wallet-rpc with --daemon-ssl disabled, or falling back to plain HTTP)
 * writes each request's head and body in two send() calls with Nagle's algorithm on: the body leaves
 * only once the head is acknowledged. A server that delays that ACK (Linux: 40 ms; monerod does)
 * stalls every such request by that much. The client below writes the same way; the check is that
 * no request waits for a delayed ACK. It asserts the absence of a 40 ms stall, not a speed: the
 * median of 15 requests stays far under it even on a loaded machine (it is well under 1 ms idle).
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { MethodTable } from "../src/rpc/methods.js";
import { quickAck, quickAckAvailable, quickAckCalls } from "../src/rpc/quick-ack.js";
import { object } from "../src/rpc/schema.js";
import { RpcServer } from "../src/rpc/server.js";

const linux = process.platform === "linux";
// the addon is optional at install; under CI (where the build must succeed) it is required
const skip = !linux ? "TCP_QUICKACK is Linux's" : !quickAckAvailable() && process.env.CI !== "true" ? "tsmonero_net addon not built (npm run build:native)" : false;

/**
 * Writes like epee's http_simple_client: the head, then (after the first write has left) the body,
 * Nagle on; with `apart` false, head and body in one write, as curl or Node's http do.
 */
function postRequest(s: Socket, path: string, body: string, apart = true): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = "";
    const t0 = performance.now();
    const onData = (d: Buffer): void => {
      got += d.toString("latin1");
      const end = got.indexOf("\r\n\r\n");
      const len = /Content-Length: (\d+)/i.exec(got);
      if (end >= 0 && len && got.length >= end + 4 + Number(len[1])) {
        s.off("data", onData);
        resolve(performance.now() - t0);
      }
    };
    s.on("data", onData);
    s.once("error", reject);
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
    if (!apart) s.write(head + body);
    else s.write(head, () => setImmediate(() => s.write(body)));
  });
}

describe("TCP_QUICKACK on RPC connections", { skip }, () => {
  let server: RpcServer;
  let port = 0;

  before(async () => {
    const methods = new MethodTable().addJsonPath({ path: "/get_height", params: object({}), handler: () => ({ height: 1, status: "OK", untrusted: false }) });
    server = new RpcServer({ methods, log: () => undefined });
    ({ port } = await server.listen(0));
  });
  after(() => server.close());

  it("the addon sets the option on a connected TCP socket and refuses a closed one", async () => {
    assert.equal(quickAckAvailable(), true);
    const s = connect(port, "127.0.0.1");
    await new Promise((r) => s.once("connect", r));
    assert.equal(quickAck(s), true);
    s.destroy();
    await new Promise((r) => s.once("close", r));
    assert.equal(quickAck(s), false);
  });

  it("requests written as epee writes them (head, then body, Nagle on) wait for no delayed ACK", async () => {
    const s = connect(port, "127.0.0.1");
    s.setNoDelay(false);
    await new Promise((r) => s.once("connect", r));
    const times: number[] = [];
    for (let i = 0; i < 16; i++) times.push(await postRequest(s, "/get_height", "{}"));
    s.destroy();
    times.shift(); // the first request of a connection is acknowledged at once by any server
    times.sort((a, b) => a - b);
    const median = times[times.length >> 1];
    assert.ok(median < 20, `median ${median.toFixed(2)} ms per request: a delayed ACK (40 ms) held the body; all: ${times.map((t) => t.toFixed(1)).join(" ")}`);
  });

  it("a client that writes head and body at once gets no ACK forced after its first answers", async () => {
    const s = connect(port, "127.0.0.1");
    s.setNoDelay(true);
    await new Promise((r) => s.once("connect", r));
    const before = quickAckCalls();
    for (let i = 0; i < 30; i++) await postRequest(s, "/get_height", "{}", false);
    s.destroy();
    // once as HTTP starts on the connection, then after its first 8 answers (a split may not show
    // at once), then never
    assert.ok(quickAckCalls() - before <= 9, `${quickAckCalls() - before} calls for 30 answers`);
  });

  it("a client that writes head and body apart gets the ACK forced after every answer", async () => {
    const s = connect(port, "127.0.0.1");
    s.setNoDelay(false);
    await new Promise((r) => s.once("connect", r));
    const before = quickAckCalls();
    for (let i = 0; i < 30; i++) await postRequest(s, "/get_height", "{}");
    s.destroy();
    assert.ok(quickAckCalls() - before >= 30, `${quickAckCalls() - before} calls for 30 answers (and the connection's start)`);
  });
});
