// Every timer of the package, of two kinds named apart (docs/semantics.md, "Clock steps"):
// - DeadlineTimer: an instant of the wall clock (a price change, a plan's slot, a window's
//   end). Armed again from the new clock at once when the clock steps (clock-steps.ts).
// - PaceTimer: a wait measured on the monotonic clock (saves at most once a minute, a
//   status a second, polls every N s, retries, request deadlines). A step changes nothing.
// Node's setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days), so a far
// target is reached in chunks below that limit, re-reading the clock each time.

import { clockSteps, monotonicNow, SteppedTimer } from './clock-steps';

export { monotonicNow } from './clock-steps';

/** The longest delay setTimeout honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Calls fn once `now()` has reached `at`, in chunks. */
class ChunkedWait {
  private handle: NodeJS.Timeout | null = null;

  /** `stepped` is asked as each chunk ends: true when the clock stepped and the wait was armed again (it then goes on from there). */
  constructor(
    private readonly at: number,
    private readonly fn: () => void,
    private readonly now: () => number,
    private readonly chunkMs: number,
    private readonly onFire: () => void,
    private readonly stepped: () => boolean = () => false,
  ) {}

  wait(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = setTimeout(() => this.step(), Math.min(Math.max(this.at - this.now(), 0), this.chunkMs));
  }

  cancel(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
  }

  private step(): void {
    this.handle = null;
    if (this.stepped()) return;
    if (this.at - this.now() > 0) return this.wait();
    this.onFire();
    this.fn();
  }
}

/** An instant of the wall clock, however far: armed again from the new clock when it steps. */
export class DeadlineTimer implements SteppedTimer {
  private current: ChunkedWait | null = null;

  /**
   * Calls fn once `now()` (the wall clock, epoch ms) has reached `at`. Replaces any earlier
   * arming. Always asynchronous, even for an instant already past, so the caller never
   * re-enters itself. `chunkMs` exists so tests can exercise the chunking without waiting weeks.
   */
  arm(at: number, fn: () => void, now: () => number = Date.now, chunkMs = MAX_TIMEOUT_MS): void {
    this.cancel();
    const current = new ChunkedWait(
      at,
      fn,
      now,
      chunkMs,
      () => {
        this.current = null;
        clockSteps.track(this, false);
      },
      // a step the heartbeat has not seen yet (it looks every LOOK_EVERY_MS) is seen here first:
      // the listeners judge it before anything acts on the new clock (look() re-arms this wait)
      () => clockSteps.look() !== null,
    );
    this.current = current;
    current.wait();
    clockSteps.track(this, true);
  }

  /** The clock stepped: the wait is measured again from the new clock. */
  rearm(): void {
    this.current?.wait();
  }

  cancel(): void {
    this.current?.cancel();
    this.current = null;
    clockSteps.track(this, false);
  }

  get armed(): boolean {
    return this.current !== null;
  }
}

/** A wait on the monotonic clock: a step of the wall clock neither shortens nor stretches it. */
export class PaceTimer {
  private current: ChunkedWait | null = null;

  /** Calls fn once `at` (monotonicNow()'s ms) is reached; replaces any earlier arming. Always asynchronous. */
  arm(at: number, fn: () => void, chunkMs = MAX_TIMEOUT_MS): void {
    this.cancel();
    const current = new ChunkedWait(at, fn, monotonicNow, chunkMs, () => (this.current = null));
    this.current = current;
    current.wait();
  }

  /** Calls fn `ms` from now. */
  after(ms: number, fn: () => void): void {
    this.arm(monotonicNow() + ms, fn);
  }

  cancel(): void {
    this.current?.cancel();
    this.current = null;
  }

  get armed(): boolean {
    return this.current !== null;
  }
}
