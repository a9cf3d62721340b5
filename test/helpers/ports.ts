/** Free loopback ports for processes that must be told a port number (other engineers' tests run at the same time). */
import { createServer } from "node:net";

/** A port nothing listens on right now (the OS picks it); the caller binds it soon after. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
