/**
 * The base of tsmonero's domain errors (after viem's BaseError): a `kind` that says what failed,
 * a short `message` (the sentence a caller shows), optional `details` (figures or text that explain
 * it) and the error underneath as `cause`. It carries no transport code: each service's RPC edge
 * (node/rpc/errors.ts, wallet/rpc/errors.ts) maps kinds to Monero's codes in one place.
 */
export interface BaseErrorOptions<D> {
  /** What explains the failure beyond the message (figures, the peer's answer, …). */
  readonly details?: D;
  /** The error underneath. */
  readonly cause?: unknown;
}

export abstract class BaseError<K extends string = string, D = undefined> extends Error {
  readonly kind: K;
  readonly details: D;

  constructor(kind: K, message: string, options: BaseErrorOptions<D> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.details = options.details as D;
  }

  /** The causes under this error, outermost first (this error not included). */
  causes(): unknown[] {
    const out: unknown[] = [];
    for (let c: unknown = this.cause; c !== undefined && out.length < 32; c = c instanceof Error ? c.cause : undefined) out.push(c);
    return out;
  }
}
