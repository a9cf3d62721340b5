/**
 * Free loopback ports for tests that spawn processes taking a fixed port (the real monerod and
 * monero-wallet-rpc cannot be given port 0): the OS picks a free one, we release it and hand it on.
 * Other engineers run tests on this machine at the same time, so never hard-code ports.
 */
import { createServer } from "node:net";

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => (port > 0 ? resolve(port) : reject(new Error("no port was assigned"))));
    });
  });
}
