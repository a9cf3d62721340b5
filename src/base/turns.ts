/**
 * A turnstile: callers wait in line and each is let through in its own turn of the event loop
 * (a setImmediate chain), in the order they came.
 *
 * Many callers woken by one event (a thousand wallets sharing one fetch, or one scan reply) would
 * otherwise run their continuations as one chain of microtasks, and the event loop could answer
 * nothing until the last had finished. `await turn()` before the work of each caller gives the loop
 * a turn, and its I/O, between them.
 */
export function turnstile(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  const next = (): void => {
    const go = waiting.shift();
    if (go) go();
    if (waiting.length > 0) setImmediate(next);
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 1) setImmediate(next);
    });
}
