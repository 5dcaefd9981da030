import should from 'should';
import { DeadlineTimer, MAX_TIMEOUT_MS, monotonicNow, PaceTimer } from '../../nodes/lib/engine/time/long-timer';
import { ClockStep, ClockSteps, clockSteps, LOOK_EVERY_MS, STEP_MS } from '../../nodes/lib/engine/time/clock-steps';
import { installClock, until } from '../fake-clock';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('DeadlineTimer and PaceTimer', () => {
  it('reaches a far instant in chunks, re-reading the clock each time', (done) => {
    // a clock that jumps a "day" per real millisecond reaches a month away in a few chunks
    const start = Date.now();
    const now = () => start + (Date.now() - start) * 86_400_000;
    const at = start + 31 * 86_400_000;
    const timer = new DeadlineTimer();
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
    const timer = new DeadlineTimer();
    let fired = 0;
    timer.arm(Date.now() - 1000, () => fired++);
    should(fired).equal(0);
    const cancelled = new DeadlineTimer();
    cancelled.arm(Date.now() + 5, () => done(new Error('cancelled timer fired')));
    cancelled.cancel();
    const paced = new PaceTimer();
    paced.after(5, () => done(new Error('cancelled pace fired')));
    paced.cancel();
    setTimeout(() => {
      should(fired).equal(1);
      done();
    }, 30);
  });

  it('a delay beyond 2^31-1 ms (where setTimeout fires at once) fires at its instant, not before (fake clock)', async () => {
    const clock = installClock();
    try {
      for (const delay of [MAX_TIMEOUT_MS + 1000, 2 ** 32, 40 * 86_400_000, 1e12]) {
        let deadline = 0;
        let paced = 0;
        const timer = new DeadlineTimer();
        timer.arm(Date.now() + delay, () => deadline++);
        const pace = new PaceTimer();
        pace.after(delay, () => paced++);
        await clock.tickAsync(1);
        await clock.tickAsync(MAX_TIMEOUT_MS);
        should([deadline, paced]).eql([0, 0], `${delay}`);
        await clock.tickAsync(delay - MAX_TIMEOUT_MS - 2);
        should([deadline, paced]).eql([0, 0], `${delay} one ms early`);
        await clock.tickAsync(1);
        should([deadline, paced]).eql([1, 1], `${delay}`);
        should(timer.armed || pace.armed).be.false();
      }
    } finally {
      clock.uninstall();
    }
  });

  describe('through a step of the wall clock (fake clock: setSystemTime moves Date alone)', () => {
    const T0 = Date.parse('2026-03-02T10:00:00Z');
    let clock: ReturnType<typeof installClock>;
    beforeEach(() => {
      clock = installClock(T0);
      clockSteps.look(); // the fake clocks' offset is the one compared from now on
    });
    afterEach(() => clock.uninstall());

    /** Steps the wall clock by `by` and has the check see it, as its heartbeat would within a second. */
    function step(by: number): ClockStep {
      clock.setSystemTime(Date.now() + by);
      const seen = clockSteps.look();
      should(seen).not.be.null();
      return seen!;
    }

    it('forward 3 days: a deadline 1 h away fires at once; a pace keeps its real time', async () => {
      const fired: string[] = [];
      const deadline = new DeadlineTimer();
      deadline.arm(T0 + HOUR, () => fired.push(`deadline ${Date.now() - T0}`));
      const pace = new PaceTimer();
      pace.after(60_000, () => fired.push('pace'));
      await clock.tickAsync(10_000);
      should(step(3 * DAY).by).be.within(3 * DAY - 5, 3 * DAY + 5);
      await clock.tickAsync(0);
      should(fired).eql([`deadline ${3 * DAY + 10_000}`]);
      await clock.tickAsync(49_999);
      should(fired).have.length(1); // the pace is 60 s of real time, the step counts nothing
      await clock.tickAsync(1);
      should(fired).eql([`deadline ${3 * DAY + 10_000}`, 'pace']);
    });

    it('back 1 hour: a deadline fires at its instant of the new clock (1 h later in real time), a pace on time', async () => {
      const fired: Array<[string, number]> = [];
      const deadline = new DeadlineTimer();
      deadline.arm(T0 + 10 * 60_000, () => fired.push(['deadline', Date.now()]));
      const pace = new PaceTimer();
      pace.after(60_000, () => fired.push(['pace', Date.now()]));
      should(step(-HOUR).by).be.within(-HOUR - 5, -HOUR + 5);
      await clock.tickAsync(60_000);
      should(fired).eql([['pace', T0 - HOUR + 60_000]]);
      await clock.tickAsync(HOUR + 10 * 60_000 - 60_000 - 1);
      should(fired).have.length(1);
      await clock.tickAsync(1);
      should(fired[1]).eql(['deadline', T0 + 10 * 60_000]);
    });

    it('a year forward and back: the deadline fires at its instant, not a year late; listeners are told each step', async () => {
      const told: number[] = [];
      const stop = clockSteps.onStep((s) => told.push(Math.round(s.by / DAY)));
      try {
        const fired: number[] = [];
        const deadline = new DeadlineTimer();
        deadline.arm(T0 + 30 * 60_000, () => fired.push(Date.now()));
        step(365 * DAY);
        await clock.tickAsync(0);
        should(fired).have.length(1); // the instant lies a year behind the clock: fired
        deadline.arm(Date.now() + 30 * 60_000, () => fired.push(Date.now())); // armed on the clock a year ahead
        await clock.tickAsync(5 * 60_000);
        step(-365 * DAY);
        // back on the real date the deadline is a year and 25 minutes away: it waits for it, never fires early
        await clock.tickAsync(30 * 60_000);
        should(fired).have.length(1);
        should(told).eql([365, -365]);
      } finally {
        stop();
      }
    });

    it('a deadline falling due after a step the heartbeat has not yet seen: the step is told first, then the deadline fires once', async () => {
      const order: string[] = [];
      const stop = clockSteps.onStep((s) => order.push(`step ${Math.round(s.by / 60_000)} min`));
      try {
        const deadline = new DeadlineTimer();
        deadline.arm(T0 + 10 * 60_000, () => order.push(`deadline at +${Math.round((Date.now() - T0) / 60_000)} min`));
        clock.setSystemTime(T0 + HOUR); // NTP steps; the next look is up to LOOK_EVERY_MS away
        await clock.tickAsync(10 * 60_000); // the deadline's own wait ends first
        await clock.tickAsync(1); // the look armed it again, at once
        should(order).eql(['step 60 min', 'deadline at +70 min']);
        should(deadline.armed).be.false();
      } finally {
        stop();
      }
    });

    it('the heartbeat sees a step within LOOK_EVERY_MS of real time while a deadline is armed', async function () {
      this.timeout(LOOK_EVERY_MS * 3 + 5000); // the wait below, in real time: the default 10 s cut it short on a loaded machine
      const fired: number[] = [];
      const deadline = new DeadlineTimer();
      deadline.arm(T0 + HOUR, () => fired.push(Date.now()));
      const before = clockSteps.seen;
      clock.setSystemTime(T0 + 2 * HOUR);
      await until('the heartbeat to see the step', () => clockSteps.seen > before, LOOK_EVERY_MS * 3);
      await clock.tickAsync(0);
      should(fired).eql([T0 + 2 * HOUR]);
    });
  });
});

describe('ClockSteps (the step check, on clocks the test moves)', () => {
  function clocks() {
    const c = { wall: 1_000_000, mono: 5000 };
    const steps = new ClockSteps(
      () => c.wall,
      () => c.mono,
    );
    steps.look();
    return { c, steps };
  }

  it('time passing on both clocks, slewing and the ms of Date.now() are no step; more than STEP_MS either way is', () => {
    const { c, steps } = clocks();
    for (let i = 0; i < 1000; i++) {
      c.mono += 1000;
      c.wall += 1000 + (i % 2 ? 1 : -1) * 0.5 + 1; // NTP slewing at 500 ppm, a ms of rounding
      should(steps.look()).be.null();
    }
    c.mono += 1000;
    c.wall += 1000 + STEP_MS; // exactly STEP_MS off: not yet a step
    should(steps.look()).be.null();
    c.mono += 1000;
    c.wall += 1000 + STEP_MS + 2;
    should(steps.look()).match({ by: STEP_MS + 2, now: c.wall });
    c.mono += 1000;
    c.wall += 1000 - 3600_000;
    should(steps.look()).match({ by: -3600_000 });
    should(steps.seen).equal(2);
  });

  it('re-arms the tracked deadlines before it tells the listeners, and a throwing listener keeps the others from nothing', () => {
    const { c, steps } = clocks();
    const order: string[] = [];
    const timer = { rearm: () => order.push('timer') };
    steps.track(timer, true);
    const stopFirst = steps.onStep(() => {
      order.push('first');
      throw new Error('a listener bug');
    });
    const stop = steps.onStep((s) => order.push(`second ${s.by}`));
    c.wall += 5000;
    steps.look();
    should(order).eql(['timer', 'first', 'second 5000']);
    stop();
    order.length = 0;
    c.wall -= 5000;
    steps.look();
    should(order).eql(['timer', 'first']);
    stopFirst();
    steps.track(timer, false); // the heartbeat stops at its next beat
  });

  it('a look whose clock reads were far apart (the process stopped between them) is not trusted', () => {
    const c = { wall: 1_000_000, mono: 5000, reads: 0 };
    const steps = new ClockSteps(
      () => c.wall,
      () => (c.reads++ % 2 ? c.mono + 500 : c.mono),
    );
    steps.look();
    c.wall += 10_000;
    should(steps.look()).be.null();
  });

  it('a look after a long silence (nothing waited on the wall clock) only takes the clocks afresh', () => {
    const { c, steps } = clocks();
    c.mono += 16 * 60_000;
    c.wall += 16 * 60_000 + 5000;
    should(steps.look()).be.null();
    c.mono += 1000;
    c.wall += 1000;
    should(steps.look()).be.null();
    c.mono -= 60_000; // a monotonic clock that went back: only a test's fake one does
    should(steps.look()).be.null();
  });

  it('monotonicNow is performance.now', () => {
    const a = performance.now();
    const b = monotonicNow();
    should(b - a).be.within(0, 50);
  });
});
