// easy-peak's view of a gateway clock (peak-clock.ts): a reading is fresh by when it arrived
// (this machine's monotonic clock) and by how its stamp moves against its arrivals, never by
// its stamp against this machine's wall clock alone. Generated gateways: clocks off by any
// amount, jittered deliveries, outages replayed as backlogs.
import should from 'should';
import fc from 'fast-check';
import {
  arrive,
  arrivedFresh,
  CLOCK_OFF_MS,
  CLOCK_PERIOD_MS,
  clockBehindMs,
  clockOffWarning,
  clockOffWords,
  MeterClock,
} from '../../nodes/lib/runtime/peak/peak-clock';

const MIN = 60_000;
const HOUR = 3_600_000;
const STALE = 5 * MIN;
const WALL0 = Date.parse('2026-03-04T09:00:00Z');
/** This machine's monotonic clock when its wall clock read WALL0 (any origin). */
const MONO0 = 12_345;

describe('easy-peak gateway clocks', () => {
  it('a clock off by any amount, deliveries jittered up to 30 s: every reading is fresh as it arrives, stale once silent longer than "stale after"', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10 * MIN, max: 14 * HOUR }), // how far the gateway's clock is behind (negative: ahead)
        fc.integer({ min: 1_000, max: 2 * MIN }), // its cadence
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 2, maxLength: 150 }), // each delivery's delay
        (behind, cadence, delays) => {
          let c: MeterClock | null = null;
          let arrivedWall = -Infinity;
          for (const [i, delay] of delays.entries()) {
            const sent = WALL0 + i * cadence;
            arrivedWall = Math.max(arrivedWall, sent + delay); // in order, as one gateway sends them
            const mono = arrivedWall - WALL0 + MONO0;
            c = arrive(c, sent - behind, mono);
            should(arrivedFresh(c, mono, STALE)).be.true();
            should(arrivedFresh(c, mono + STALE, STALE)).be.true();
            should(arrivedFresh(c, mono + STALE + 1, STALE)).be.false();
            const b = clockBehindMs(c, arrivedWall, mono);
            // said once a whole period of arrivals is behind it: the least lag, so within the jitter of the truth
            if (arrivedWall - WALL0 < CLOCK_PERIOD_MS) should(b).equal(null);
            if (b !== null) should(b).be.within(behind, behind + 30_000);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('after an outage the backlog replayed (within a period) is not fresh until it has caught up: fresh exactly when it arrived at most "stale after" late', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -10 * MIN, max: 2 * HOUR }), // the clock's offset
        fc.integer({ min: 1, max: 40 }), // readings before the outage, every 10 s
        // readings the outage holds back, and the ms between them as they are replayed (all within a period)
        fc
          .integer({ min: 10, max: (3 * HOUR) / 10_000 })
          .chain((held) => fc.tuple(fc.constant(held), fc.integer({ min: 1, max: Math.floor((CLOCK_PERIOD_MS - 1) / held) }))),
        (behind, before, [held, gap]) => {
          let c: MeterClock | null = null;
          let arrivedWall = 0;
          const take = (i: number, at: number) => {
            arrivedWall = at;
            const stamp = WALL0 + i * 10_000 - behind;
            c = arrive(c, stamp, at - WALL0 + MONO0);
            // how late it arrived against the gateway's steady lag
            const late = at - (WALL0 + i * 10_000);
            should(arrivedFresh(c, at - WALL0 + MONO0, STALE)).equal(late <= STALE, `reading ${i}, ${late} ms late`);
          };
          for (let i = 0; i < before; i++) take(i, WALL0 + i * 10_000);
          // the outage: nothing arrives; then its readings arrive at once, and the gateway goes on as before
          const back = WALL0 + (before + held) * 10_000;
          for (let i = before; i < before + held; i++) take(i, back + (i - before) * gap);
          for (let i = before + held; i < before + held + 40; i++) take(i, Math.max(arrivedWall + 1, WALL0 + i * 10_000));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("no step of either clock changes freshness: this machine's wall clock is not read, a gateway set right is fresh at once", () => {
    let c: MeterClock | null = null;
    for (let i = 0; i <= 60; i++) c = arrive(c, WALL0 - 6 * MIN + i * 10_000, MONO0 + i * 10_000);
    const mono = MONO0 + 600_000;
    should(clockBehindMs(c, WALL0 + 600_000, mono)).equal(6 * MIN);
    // this machine's wall clock stepped an hour back: the gateway now looks 54 minutes fast, and its readings stay fresh
    should(clockBehindMs(c, WALL0 + 600_000 - HOUR, mono)).equal(6 * MIN - HOUR);
    should(arrivedFresh(c, mono, STALE)).be.true();
    // the gateway's clock set right (6 minutes forward): its next reading lags less, fresh
    c = arrive(c, WALL0 + 610_000, mono + 10_000);
    should(arrivedFresh(c, mono + 10_000, STALE)).be.true();
    should(clockBehindMs(c, WALL0 + 610_000, mono + 10_000)).equal(0);
  });

  it('words: off by more than CLOCK_OFF_MS is said, slow or fast, in whole minutes', () => {
    should(clockOffWords(null)).equal(null);
    should(clockOffWords(CLOCK_OFF_MS)).equal(null);
    should(clockOffWords(-CLOCK_OFF_MS)).equal(null);
    should(clockOffWords(6 * MIN + 59_000)).equal('gateway clock 6 min slow');
    should(clockOffWords(-(3 * MIN))).equal('gateway clock 3 min fast');
    should(clockOffWarning('DEMO/e1.kwh', 6 * MIN)).match(
      /^the readings of DEMO\/e1\.kwh arrive 6 minutes after their time stamps: the gateway's clock is slow/,
    );
    should(clockOffWarning('kitchen', -3 * MIN)).match(
      /^the readings of kitchen are stamped 3 minutes ahead of this machine's clock: the gateway's clock is fast/,
    );
  });
});
