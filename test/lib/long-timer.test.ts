import should from 'should';
import { LongTimer } from '../../nodes/lib/long-timer';

describe('LongTimer', () => {
  it('reaches a far instant in chunks, re-reading the clock each time', (done) => {
    // a clock that jumps a "day" per real millisecond reaches a month away in a few chunks
    const start = Date.now();
    const now = () => start + (Date.now() - start) * 86_400_000;
    const at = start + 31 * 86_400_000;
    const timer = new LongTimer();
    timer.arm(at, () => {
      should(now()).be.aboveOrEqual(at);
      should(timer.armed).be.false();
      done();
    }, now, 5);
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
});
