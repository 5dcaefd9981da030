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

describe('easy-peak settings', () => {
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
