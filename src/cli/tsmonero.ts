/**
 * `tsmonero`: the embedded devnet, a private regtest node and a wallet RPC in one process, with
 * data under ./data. This is what `npm start` runs. The services arrive with the node and wallet
 * issues; until then it reports which crypto backend and proof-of-work support this machine has.
 */
import { defaultBackend } from "../crypto/index.js";
import { randomxStatus } from "../crypto/randomx.js";
import { type FlagSpec, runCli } from "./args.js";
import { VERSION } from "./version.js";

/** The devnet's flags. */
export const DEVNET_FLAGS: readonly FlagSpec[] = [
  { name: "version", takesValue: false, help: "Print the version and exit" },
  { name: "data-dir", takesValue: true, help: "Where the chain and wallets live", defaultValue: "./data" },
  { name: "rpc-bind-port", takesValue: true, help: "Node RPC port", defaultValue: "18081" },
  { name: "wallet-rpc-bind-port", takesValue: true, help: "Wallet RPC port", defaultValue: "18083" },
  { name: "log-level", takesValue: true, help: "Log level (0-4)", defaultValue: "0" },
];

await runCli(
  "tsmonero",
  `tsmonero ${VERSION}: a private Monero regtest devnet (node + wallet RPC in one process).`,
  DEVNET_FLAGS,
  async (args) => {
    if (args.has("version")) {
      console.log(`tsmonero ${VERSION}`);
      return 0;
    }
    console.log(`tsmonero ${VERSION}`);
    console.log(`crypto backend: ${defaultBackend().name}`);
    const rx = randomxStatus();
    console.log(`proof of work: ${rx.available ? `RandomX via ${rx.library}` : `RandomX unavailable (${rx.reason})`}`);
    console.error("tsmonero: the devnet node and wallet services are not available in this version yet.");
    return 1;
  },
);
