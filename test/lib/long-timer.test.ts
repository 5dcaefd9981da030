import should from 'should';
import { LongTimer, MAX_TIMEOUT_MS } from '../../nodes/lib/engine/time/long-timer';
import { installClock } from '../fake-clock';

describe('LongTimer', () => {
  it('reaches a far instant in chunks, re-reading the clock each time', (done) => {
    // a clock that jumps a "day" per real millisecond reaches a month away in a few chunks
    const start = Date.now();
    const now = () => start + (Date.now() - start) * 86_400_000;
    const at = start + 31 * 86_400_000;
    const timer = new LongTimer();
    timer.arm(
      at,
      () => {
        should(now()).be.aboveOrEqual(at);
        should(timer.armed).be.false();
        done();
      },
      now,
      5,
    );
  });

  it('fires asynchronously for an instant already past, and never after cancel', (done) => {
    const timer = new LongTimer();
    let fired = 0;
    timer.arm(Date.now() - 1000, () => fired++);
    should(fired).equal(0);
    const cancelled = new LongTimer();
    cancelled.arm(Date.now() + 5, () => done(new Error('cancelled timer fired')));
    cancelled.cancel();
    setTimeout(() => {
      should(fired).equal(1);
      done();
    }, 30);
  });

  it('a delay beyond 2^31-1 ms (where setTimeout fires at once) fires at its instant, not before (fake clock)', async () => {
    const clock = installClock();
    try {
      for (const delay of [MAX_TIMEOUT_MS + 1000, 2 ** 32, 40 * 86_400_000, 1e12]) {
        let fired = 0;
        const timer = new LongTimer();
        timer.arm(Date.now() + delay, () => fired++);
        await clock.tickAsync(1);
        await clock.tickAsync(MAX_TIMEOUT_MS);
        should(fired).equal(0, `${delay}`);
        await clock.tickAsync(delay - MAX_TIMEOUT_MS - 2);
        should(fired).equal(0, `${delay} one ms early`);
        await clock.tickAsync(1);
        should(fired).equal(1, `${delay}`);
        should(timer.armed).be.false();
      }
    } finally {
      clock.uninstall();
    }
  });
});
