// Work on a big input in slices, with a turn of the event loop (timers, I/O, the other
// flows) between them, so that no answer within the size limits holds Node-RED for long.
// A piece of work is written once, as a generator that yields where a slice may end; it
// runs at once for the synchronous library API and in slices for the client. Turns come
// between slices only, so an answer of one slice is read exactly as before, in one go.

/** What a slice holds at most; each bounds work of tens of microseconds per item. */
export const SLICE = Object.freeze({
  /** Rules validated and compiled (a tariff is never cut: it has at most MAX_RULES_PER_TARIFF). */
  rules: 1000,
  /** Sensors or readings checked. */
  items: 1000,
  /** Characters of CSV text parsed (csv-parse takes tens of microseconds a line). */
  csvChars: 8 * 1024,
});

/** Work that yields where a slice may end and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** A turn of the event loop: timers and I/O run before the promise resolves. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `steps` to the end without yielding the event loop (the synchronous API). */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end with a turn of the event loop at every slice end. */
export async function runInSlices<T>(steps: Steps<T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

/**
 * Maps `items` with `fn`, yielding after every `perSlice` of them. `fn` may throw: the
 * error ends the work.
 */
export function* mapInSlices<A, B>(items: readonly A[], fn: (item: A, index: number) => B, perSlice = SLICE.items): Steps<B[]> {
  const out: B[] = new Array(items.length);
  for (let k = 0; k < items.length; k++) {
    if (k > 0 && k % perSlice === 0) yield;
    out[k] = fn(items[k], k);
  }
  return out;
}
