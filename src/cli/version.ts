/** The tsmonero release, and the Monero version it is compatible with. */
export const VERSION = "0.1.0";
/** The Monero release whose formats, rules and RPC tsmonero follows. */
export const MONERO_COMPAT = "0.18.0.0";
