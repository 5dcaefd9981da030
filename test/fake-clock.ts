// A fake clock for tests of code that waits (polls, retries, refreshes): setTimeout,
// clearTimeout, Date and performance are fake, setImmediate and I/O stay real, so a 10 s
// poll interval passes in one tick while HTTP to the simulator on loopback still really
// happens. `setSystemTime` steps Date alone (timers and performance.now keep their time),
// as NTP steps a real clock: the package's clock-step check sees it within a second.

import { clockSteps } from '../nodes/lib/engine/time/clock-steps';

export interface FakeClock {
  now: number;
  tickAsync(ms: number): Promise<number>;
  setSystemTime(now: number): void;
  uninstall(): void;
}

/** Install before creating what reads the clock (the hub keeps `Date.now` as its clock). */
export function installClock(now = Date.now()): FakeClock {
  // untyped package (no @types installed)
  const clock: FakeClock = require('@sinonjs/fake-timers').install({ now, toFake: FAKED });
  // both clocks change here, and again when it goes: no step to see
  clockSteps.takeAfresh();
  const uninstall = clock.uninstall.bind(clock);
  clock.uninstall = () => {
    uninstall();
    clockSteps.takeAfresh();
  };
  return clock;
}

/** What a fake clock fakes: the wall clock and the monotonic one together, and the timers. */
export const FAKED = ['setTimeout', 'clearTimeout', 'Date', 'performance'];

/**
 * Waits in real time (setImmediate turns, however the clock is faked) until `check()`
 * holds, e.g. until a request has reached the simulator; fails after `limitMs`.
 */
export async function until(what: string, check: () => boolean, limitMs = 10_000): Promise<void> {
  const started = process.hrtime.bigint();
  while (!check()) {
    if (Number(process.hrtime.bigint() - started) / 1e6 > limitMs) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Waits until `read()` has not changed for `turns` turns of the event loop in a row (real
 * setImmediate turns, however the clock is faked), e.g. until no more messages come from
 * work that chains turns in-process (no real timers): the count that proves it is over,
 * not a guessed sleep. Fails after `limitMs`.
 */
export async function steady(what: string, read: () => unknown, turns = 50, limitMs = 10_000): Promise<void> {
  let last = read();
  let same = 0;
  await until(
    what,
    () => {
      const now = read();
      same = now === last ? same + 1 : 0;
      last = now;
      return same >= turns;
    },
    limitMs,
  );
}
