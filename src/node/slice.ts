/**
 * Cooperative time slicing for long work on the node's one thread (generateblocks, big
 * distributions): the work calls `tick()` between units and awaits it only when it returns a
 * promise, i.e. once it has run `sliceMs` since the last yield; other clients' requests are then
 * answered before the work goes on.
 */
export const yieldToLoop = (): Promise<void> => new Promise((r) => setImmediate(r));

export class TimeSlice {
  private last = performance.now();

  constructor(private readonly sliceMs = 10) {}

  /** undefined while the slice lasts; a promise to await (a turn of the event loop) when it is used up. */
  tick(): Promise<void> | undefined {
    const now = performance.now();
    if (now - this.last < this.sliceMs) return undefined;
    return yieldToLoop().then(() => {
      this.last = performance.now();
    });
  }
}
