// easy-peak's guard on generated inputs and its settings' errors, without Node-RED.
import should from 'should';
import fc from 'fast-check';
import { GUARD_CHANGE_MS, PeakGuard } from '../../nodes/lib/runtime/peak/peak-guard';
import { limitOf, peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';

const MIN = 60_000;

describe('easy-peak guard', () => {
  it('on any sequence of projections: never sheds on stale data, changes at most once a minute, keeps its state inside the hysteresis band', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ dt: fc.integer({ min: 1, max: 90_000 }), kw: fc.double({ min: 0, max: 20, noNaN: true }), fresh: fc.boolean() }),
          {
            minLength: 1,
            maxLength: 200,
          },
        ),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        (steps, margin, hysteresis) => {
          const guard = new PeakGuard({ marginPercent: margin, hysteresisPercent: hysteresis });
          let now = 0;
          let lastChange = -Infinity;
          for (const s of steps) {
            now += s.dt;
            const before = guard.state;
            const d = guard.evaluate({ projectedKw: s.kw, limitKw: 10, fresh: s.fresh, now });
            const shedAbove = 10 * (1 - margin / 100);
            const restoreBelow = shedAbove - 10 * (hysteresis / 100);
            if (d.changed) {
              should(now - lastChange).be.aboveOrEqual(GUARD_CHANGE_MS);
              lastChange = now;
            }
            if (d.state === 'shed' && before === 'restore') should(s.fresh && s.kw > shedAbove).be.true();
            if (d.state === 'restore' && before === 'shed') should(!s.fresh || s.kw <= restoreBelow).be.true();
            if (s.kw > restoreBelow && s.kw <= shedAbove && s.fresh) should(d.state).equal(before);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('without a limit it restores and says why', () => {
    const guard = new PeakGuard({ marginPercent: 5, hysteresisPercent: 5 }, { state: 'shed', changedAt: 0 });
    should(guard.evaluate({ projectedKw: 50, limitKw: null, fresh: true, now: MIN })).match({
      state: 'restore',
      changed: true,
      reason: 'no limit yet',
    });
  });
});

describe('easy-peak guard: the shed load', () => {
  const W = { from: 0, to: 15 * MIN };
  it('learns it from the drop at shed; then restores only when it fits in the rest of the window', () => {
    const guard = new PeakGuard({ marginPercent: 0, hysteresisPercent: 0 });
    // 8 kW against 6: shed (no load known: on the projection)
    should(guard.evaluate({ projectedKw: 8, limitKw: 6, fresh: true, now: 10_000, window: W, at: 10_000, powerKw: 8 })).match({
      state: 'shed',
      changed: true,
      shedKw: null,
    });
    // 30 s later the power is 2.1 kW: 5.9 kW learned; 2 kW projected, but 5.9 back on for 14 min does not fit under 6
    const d = guard.evaluate({ projectedKw: 2.4, limitKw: 6, fresh: true, now: 80_000, window: W, at: 80_000, powerKw: 2.1 });
    should(d).match({ state: 'shed', changed: false, reason: 'projected near the limit with the shed load' });
    should(d.shedKw).be.approximately(5.9, 1e-9);
    // near the end it fits: 2.4 + 5.9 * 60 / 900 = 2.79 <= 6
    should(guard.evaluate({ projectedKw: 2.4, limitKw: 6, fresh: true, now: 14 * MIN, window: W, at: 14 * MIN, powerKw: 2.1 })).match({
      state: 'restore',
      changed: true,
      reason: 'the shed load fits in the window',
    });
    // with the load known it sheds at the latest safe moment: 7 kW projected 10 minutes before the end is not yet due
    const late = { window: { from: 15 * MIN, to: 30 * MIN }, fresh: true, limitKw: 6, powerKw: 7 };
    should(guard.evaluate({ ...late, projectedKw: 7, now: 20 * MIN, at: 20 * MIN }).state).equal('restore');
    // …but 80 s before the end it is: 7 - 5.9 * 5 / 900 > 6
    should(guard.evaluate({ ...late, projectedKw: 7, now: 28 * MIN + 40_000, at: 28 * MIN + 40_000 }).state).equal('shed');
  });

  it('unknown (no drop: the heater was off), it restores at the next window’s start, not before', () => {
    const guard = new PeakGuard({ marginPercent: 0, hysteresisPercent: 0 });
    guard.evaluate({ projectedKw: 8, limitKw: 6, fresh: true, now: 10_000, window: W, at: 10_000, powerKw: 8 });
    should(guard.evaluate({ projectedKw: 1, limitKw: 6, fresh: true, now: 5 * MIN, window: W, at: 5 * MIN, powerKw: 8 })).match({
      state: 'shed',
      reason: 'shed until the window ends',
    });
    const next = { from: 15 * MIN, to: 30 * MIN };
    should(guard.evaluate({ projectedKw: 1, limitKw: 6, fresh: true, now: 15 * MIN, window: next, at: 15 * MIN, powerKw: 1 })).match({
      state: 'restore',
      changed: true,
      reason: 'a new window',
    });
  });

  it('a window that cannot raise the bill: restores, never sheds', () => {
    const guard = new PeakGuard({ marginPercent: 0, hysteresisPercent: 0, shedKw: 6 }, { state: 'shed', changedAt: 0 });
    const d = guard.evaluate({
      projectedKw: 50,
      limitKw: null,
      fresh: true,
      now: MIN,
      window: W,
      at: MIN,
      noLimit: 'this window cannot raise the bill',
    });
    should(d).match({ state: 'restore', changed: true, reason: 'this window cannot raise the bill' });
  });
});

describe('easy-peak settings', () => {
  it('reads the bill, and names what is wrong', () => {
    should(peakSettings({ basis: 'rolling', billFloorKw: '2.5', pricePerKw: '4.44', holidays: '2026-12-25, 2026-12-26' }).bill).eql({
      readDay: 1,
      readDates: [],
      holidays: ['2026-12-25', '2026-12-26'],
      basis: 'rolling',
      rollingPeriods: 12,
      floorKw: 2.5,
      ratchet: null,
      pricePerKw: 4.44,
      steps: null,
      more: [],
    });
    should(peakSettings({ priceSteps: '2:275, 5:375, *:450', ratchetPercent: '80' }).bill).match({
      steps: [{ uptoKw: 2, amount: 275 }, { uptoKw: 5, amount: 375 }, { amount: 450 }],
      ratchet: { percent: 80, periods: 11 },
    });
    should(peakSettings({ shedKw: '6' }).shedKw).equal(6);
    should(peakSettings({ readDay: '15' }).bill.readDay).equal(15);
    should(() => peakSettings({ readDay: '32' })).throw(/^the read day must be a number from 1 to 31/);
    should(peakSettings({ readDates: ' 2026-01-14, 2026-02-12 2026-03-16 ' }).bill.readDates).eql([
      '2026-01-14',
      '2026-02-12',
      '2026-03-16',
    ]);
    // hostile read dates: each said with the date or the rule it breaks
    should(() => peakSettings({ readDates: '2026-01-14, 2026-02-30' })).throw(
      /^the bill: read date 2 must be a date YYYY-MM-DD, got "2026-02-30"/,
    );
    should(() => peakSettings({ readDates: '2026-02-12, 2026-01-14' })).throw(
      /^the bill: read dates must be in order, each after the one before: 2026-01-14/,
    );
    should(() => peakSettings({ readDates: '2026-02-12, 2026-02-12' })).throw(/^the bill: read dates must be in order/);
    should(() => peakSettings({ readDates: '14/01/2026, 2026-02-12' })).throw(
      /^the bill: read date 1 must be a date YYYY-MM-DD, got "14\/01\/2026"/,
    );
    should(() => peakSettings({ readDates: '2026-01-14' })).throw(
      /^read dates need at least two dates YYYY-MM-DD \(one date: use the read day\)/,
    );
    const many = Array.from({ length: 400 }, (_, i) => new Date(Date.UTC(2000, i, 1)).toISOString().slice(0, 10)).join(', ');
    should(() => peakSettings({ readDates: many })).throw(/^read dates: at most 366 dates, got 400/);
    should(() => peakSettings({ readDates: '2026-01-14, 2026-02-12', readDay: '15' })).throw(
      /^the month runs from a read day or from read dates, not both \(read day 15; clear one of them\)/,
    );
    should(() => peakSettings({ priceSteps: '2:275, 5' })).throw(/^price steps must read "up to kW: amount"/);
    should(() => peakSettings({ priceSteps: '5:275, 2:375, *:1' })).throw(/^the bill: steps\[1\]\.uptoKw must be above/);
    should(() => peakSettings({ priceSteps: '5:275' })).throw(/^the bill: steps: the last one has no uptoKw/);
    should(() => peakSettings({ priceSteps: '*:275', pricePerKw: '3' })).throw(/a price per kW or price steps, not both/);
    should(() => peakSettings({ holidays: '2026-02-30' })).throw(/^the bill: holidays\[0\] must be a date YYYY-MM-DD/);
    should(() => peakSettings({ basis: 'avg' })).throw(/^the billed kW must be "period", "rolling" or "year-max"/);
    should(() => peakSettings({ ratchetPercent: '120' })).throw(/^the ratchet \(%\) must be a number from 0 to 100/);
    should(() => peakSettings({ shedKw: '0' })).throw(/^the shed load \(kW\) must be a number/);
  });

  it('reads the dialog, and names the setting that is wrong', () => {
    should(peakSettings({})).match({
      minutes: 15,
      top: 1,
      limit: 'peak',
      marginPercent: 5,
      hysteresisPercent: 5,
      staleMs: 5 * MIN,
      maxPowerKw: DEFAULT_MAX_POWER_KW,
      shedValue: 'shed',
    });
    should(peakSettings({ maxPowerKw: ' 50 ' }).maxPowerKw).equal(50);
    should(
      peakSettings({
        minutes: '60',
        top: '3',
        distinctDays: true,
        shedValue: 'false',
        shedType: 'bool',
        restoreValue: '1',
        restoreType: 'num',
      }),
    ).match({
      minutes: 60,
      top: 3,
      distinctDays: true,
      shedValue: false,
      restoreValue: 1,
    });
    should(peakSettings({ timeStart: '07:00', timeEnd: '22:00', weekdays: '1, 2,3' }).when).eql({
      time_start: '07:00',
      time_end: '22:00',
      weekdays: [1, 2, 3],
    });
    for (const minutes of ['20', '7', '90', '15.5', 'x', '1e1'])
      should(() => peakSettings({ minutes })).throw(`the window must be 15, 30 or 60 minutes, got "${minutes}"`);
    for (const minutes of ['', ' 30 ', '60.0', 15]) should(peakSettings({ minutes }).minutes).equal(Number(minutes) || 15);
    should(() => peakSettings({ top: '11' })).throw(/^peaks per month must be a number from 1 to 10/);
    should(() => peakSettings({ limit: 'fixed' })).throw(/^a fixed limit needs its kW$/);
    should(() => peakSettings({ limit: 'fixed', limitKw: '0x10' })).throw(/^the fixed limit \(kW\) must be a number/);
    should(() => peakSettings({ marginPercent: '-1' })).throw(/^the margin \(%\) must be a number from 0 to 50/);
    should(() => peakSettings({ timeStart: '07:00' })).throw(/needs both times/);
    should(() => peakSettings({ weekdays: '8' })).throw(/^weekdays must be ISO weekdays/);
    should(() => peakSettings({ timeStart: '25:00', timeEnd: '07:00' })).throw(/^count only: .*time_start/);
    should(() => peakSettings({ shedType: 'num', shedValue: 'x' })).throw(/^the shed value must be a number/);
    for (const maxPowerKw of ['0', '-5', '1e7', 'lots', 'Infinity'])
      should(() => peakSettings({ maxPowerKw })).throw(
        `the highest power of a meter (kW) must be a number from 0.001 to 1000000, got ${JSON.stringify(maxPowerKw)}`,
      );
  });

  it("keeps under the month's value but at least the floor, or the fixed kW", () => {
    should(limitOf({ limit: 'peak', limitKw: null, floorKw: 2.5 }, null)).equal(2.5);
    should(limitOf({ limit: 'peak', limitKw: null, floorKw: 2.5 }, 4)).equal(4);
    should(limitOf({ limit: 'peak', limitKw: null, floorKw: 0 }, null)).equal(null);
    should(limitOf({ limit: 'fixed', limitKw: 7, floorKw: 0 }, 40)).equal(7);
  });
});
