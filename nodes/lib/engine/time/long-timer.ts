// setTimeout to an absolute instant, however far away.
// Node's setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days), so a
// far target is reached in chunks below that limit, re-checking the clock each time.

/** The longest delay setTimeout honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class LongTimer {
  private handle: NodeJS.Timeout | null = null;

  /**
   * Calls fn once `now()` has reached `at` (epoch ms). Replaces any earlier arming.
   * Always asynchronous, even for an instant already past, so the caller never re-enters
   * itself. `chunkMs` exists so tests can exercise the chunking without waiting weeks.
   */
  arm(at: number, fn: () => void, now: () => number = Date.now, chunkMs = MAX_TIMEOUT_MS): void {
    this.cancel();
    const wait = () => {
      this.handle = setTimeout(step, Math.min(Math.max(at - now(), 0), chunkMs));
    };
    const step = () => {
      if (at - now() > 0) return wait();
      this.handle = null;
      fn();
    };
    wait();
  }

  cancel(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
  }

  get armed(): boolean {
    return this.handle !== null;
  }
}
