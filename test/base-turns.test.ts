import assert from "node:assert/strict";
import { test } from "node:test";
import { turnstile } from "../src/base/turns.js";

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test("turnstile: waiters woken together go on in their order, one per event-loop turn, so a timer runs between them", async () => {
  const turn = turnstile();
  const order: string[] = [];
  const waiters = Array.from({ length: 20 }, (_, i) =>
    turn().then(() => {
      busy(1);
      order.push(`w${i}`);
    }),
  );
  setTimeout(() => order.push("timer"), 0);
  await Promise.all(waiters);
  assert.deepEqual(
    order.filter((x) => x !== "timer"),
    Array.from({ length: 20 }, (_, i) => `w${i}`),
  );
  const t = order.indexOf("timer");
  assert.ok(t > 0 && t < order.length - 1, `the timer ran between two waiters: ${order.join(" ")}`);
  // a waiter that comes later, after the line has emptied, still gets its turn
  await turn();
});
