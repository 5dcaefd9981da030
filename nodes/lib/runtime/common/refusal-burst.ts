// One error per burst of refused messages, not one per message: an unfiltered gateway of
// 19,000 meters wired into easy-cost must give Catch one message that says what happened
// and how often, not 19,000 copies of it.
//
// A burst is the refused messages that come less than QUIET_MS apart (a poll's messages
// arrive back to back; polls are 10 s or more apart), closed at the latest MAX_BURST_MS
// after its first one, so a steady trickle is still said every MAX_BURST_MS. The first
// message of a burst carries the error (its done(err) waits for the burst to end, so the
// count is known); every other one ends at once without an error.

import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';

export const QUIET_MS = 1000;
export const MAX_BURST_MS = 10_000;

export class RefusalBurst {
  /** What was refused in this burst (distinct), and the first of it. */
  private readonly refused = new Set<string>();
  private firstKey = '';
  private started = 0;
  private first: ((err: Error) => void) | null = null;
  private readonly timer = new PaceTimer();

  /** @param describe the burst's error from how many distinct things were refused, and the first */
  constructor(private readonly describe: (count: number, first: string) => Error) {}

  /** One refused message about `key`: resolves to the burst's error for the first of a burst, to null for the rest (at once). */
  refuse(key: string): Promise<Error | null> {
    const now = monotonicNow();
    if (this.first && now - this.started >= MAX_BURST_MS) this.end();
    if (this.refused.size === 0) this.firstKey = key;
    this.refused.add(key);
    this.timer.arm(now + QUIET_MS, () => this.end());
    if (this.first) return Promise.resolve(null);
    this.started = now;
    return new Promise((resolve) => (this.first = resolve));
  }

  /** Ends the burst now (also when the node closes), handing its error to its first message. */
  end(): void {
    this.timer.cancel();
    const first = this.first;
    const count = this.refused.size;
    this.first = null;
    this.refused.clear();
    first?.(this.describe(count, this.firstKey));
  }
}

/**
 * Thrown for a message refused in a burst (a reading of one meter more than the node
 * counts). Its message ends when the burst it came in ends: with the burst's error for the
 * first of a burst, without one for the others.
 */
export class RefusedReading extends Error {
  constructor(readonly burst: Promise<Error | null>) {
    super('meter limit reached');
  }
}
