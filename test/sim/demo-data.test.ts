import should from 'should';
import fc from 'fast-check';
import {
  DEMO_SENSORS,
  GENERATOR_ON_MS,
  GENERATOR_PERIOD_MS,
  MAX_ARCHIVE_POINTS,
  METER_START,
  archive,
  archiveStepMs,
  energyKwh,
  findDemoSensor,
  generatorOn,
  nextGeneratorChange,
  PEAK_EVERY_MS,
  PEAK_KW,
  PEAK_OFFSET_MS,
  powerKw,
  sensorReading,
  workshopEnergyKwh,
  workshopPowerKw,
} from '../../sim/demo-data';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';
import { monthlyPeaks } from '../../nodes/lib/engine/peak/monthly-peaks';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
/** Instants from 1990 to 2100, the range tests and demos use. */
const instant = fc.integer({ min: at('1990-01-01T00:00:00Z'), max: at('2100-01-01T00:00:00Z') });

describe('simulator: demo data', () => {
  describe('generator schedule (input "1")', () => {
    it('runs for the first 5 minutes of every quarter hour UTC', () => {
      should(GENERATOR_PERIOD_MS).equal(15 * MINUTE);
      should(GENERATOR_ON_MS).equal(5 * MINUTE);
      const expected: Array<[string, boolean]> = [
        ['2024-03-06T14:00:00.000Z', true],
        ['2024-03-06T14:04:59.999Z', true],
        ['2024-03-06T14:05:00.000Z', false],
        ['2024-03-06T14:14:59.999Z', false],
        ['2024-03-06T14:15:00.000Z', true],
        ['2024-03-06T14:47:00.000Z', true],
        ['2024-03-06T14:50:00.000Z', false],
        ['1969-12-31T23:45:01.000Z', true],
        ['1969-12-31T23:55:00.000Z', false],
      ];
      for (const [iso, on] of expected) should(generatorOn(at(iso))).equal(on, iso);
    });

    it('nextGeneratorChange gives the next instant the input flips, and nothing flips before it (property)', () => {
      fc.assert(
        fc.property(instant, (t) => {
          const next = nextGeneratorChange(t);
          should(next.at).be.above(t);
          should(generatorOn(next.at)).equal(next.value === 1);
          should(generatorOn(next.at - 1)).equal(next.value === 0);
          // Nothing changes between t and the change: the input is the same at t as just before it.
          should(generatorOn(t)).equal(generatorOn(next.at - 1));
          should(next.at - t).be.belowOrEqual(GENERATOR_PERIOD_MS - GENERATOR_ON_MS);
        }),
      );
    });

    it('nextGeneratorChange from a running generator is the end of its 5 minutes', () => {
      should(nextGeneratorChange(at('2024-03-06T14:16:00Z'))).eql({ at: at('2024-03-06T14:20:00Z'), value: 0 });
      should(nextGeneratorChange(at('2024-03-06T14:20:00Z'))).eql({ at: at('2024-03-06T14:30:00Z'), value: 1 });
    });
  });

  describe('energy (e1.kwh)', () => {
    it('follows a daily profile from 0.5 kW at 02:00 UTC to 3.5 kW at 14:00 UTC', () => {
      should(powerKw(at('2024-03-06T02:00:00Z'))).be.approximately(0.5, 1e-9);
      should(powerKw(at('2024-03-06T14:00:00Z'))).be.approximately(3.5, 1e-9);
      fc.assert(fc.property(instant, (t) => powerKw(t) >= 0.5 - 1e-9 && powerKw(t) <= 3.5 + 1e-9));
    });

    it('starts at 1000 kWh and rises 48 kWh a day (2 kW on average)', () => {
      should(energyKwh(METER_START)).be.approximately(1000, 1e-9);
      fc.assert(fc.property(instant, (t) => Math.abs(energyKwh(t + 24 * HOUR) - energyKwh(t) - 48) < 1e-6));
    });

    it('is the integral of the power: its slope is powerKw (property)', () => {
      fc.assert(
        fc.property(instant, (t) => {
          const slopeKw = ((energyKwh(t + 1000) - energyKwh(t - 1000)) / 2000) * HOUR;
          return Math.abs(slopeKw - powerKw(t)) < 1e-3;
        }),
      );
    });
  });

  describe('workshop energy (e2.kwh): a compressor that sometimes sets a peak', () => {
    it('runs at 01:30, 04:30, … 22:30 UTC: up to its peak in 10 minutes, held until minute 25, over a 1 kW load', () => {
      // 2024-03-06T01:30Z is run number (days since 2020-01-01) * 8
      const day = (at('2024-03-06T00:00:00Z') - METER_START) / (24 * HOUR);
      const peak = PEAK_KW[(day * 8) % PEAK_KW.length];
      const expected: Array<[string, number]> = [
        ['2024-03-06T01:29:59.999Z', 1],
        ['2024-03-06T01:30:00.000Z', 1],
        ['2024-03-06T01:35:00.000Z', 1 + peak / 2],
        ['2024-03-06T01:40:00.000Z', 1 + peak],
        ['2024-03-06T01:54:59.999Z', 1 + peak],
        ['2024-03-06T01:55:00.000Z', 1],
        ['2024-03-06T03:00:00.000Z', 1],
        ['2024-03-06T04:45:00.000Z', 1 + PEAK_KW[(day * 8 + 1) % PEAK_KW.length]],
      ];
      for (const [iso, kw] of expected) should(workshopPowerKw(at(iso))).be.approximately(kw, 1e-9, iso);
      should(PEAK_EVERY_MS).equal(3 * HOUR);
      should(PEAK_OFFSET_MS).equal(90 * MINUTE);
    });

    it('is the exact integral of its power over any stretch (property, summed second by second)', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: at('2020-01-01T00:00:00Z') / 1000, max: at('2040-01-01T00:00:00Z') / 1000 }).map((s) => s * 1000),
          fc.integer({ min: 1, max: 4 * 3600 }),
          (t, seconds) => {
            let kwh = 0; // midpoint rule per second: exact on the linear ramp, and the steps fall on whole seconds
            for (let k = 0; k < seconds; k++) kwh += workshopPowerKw(t + k * 1000 + 500) / 3600;
            should(workshopEnergyKwh(t + seconds * 1000) - workshopEnergyKwh(t)).be.approximately(kwh, 1e-6);
          },
        ),
        { numRuns: 200 },
      );
    });

    it("demandWindows on its archive: each run's half hour averages 1 + 2/3 of its peak; monthlyPeaks finds the highest", () => {
      const sensor = findDemoSensor('e2.kwh')!;
      const from = at('2024-03-06T00:00:00Z');
      const to = from + 24 * HOUR;
      const windows = demandWindows(archive(sensor, from, to), { timezone: 'Europe/London', minutes: 30 });
      should(windows.length).equal(48);
      const day = (from - METER_START) / (24 * HOUR);
      windows.forEach((w, k) => {
        const run = (k - 3) % 6 === 0 ? PEAK_KW[(day * 8 + (k - 3) / 6) % PEAK_KW.length] : 0; // 01:30 is window 3
        should(w.kw).be.approximately(1 + (2 * run) / 3, 0.005, new Date(w.from).toISOString());
        should(w.complete).be.true();
      });
      const [march] = monthlyPeaks(windows, { timezone: 'Europe/London' });
      const highest = Math.max(...[0, 1, 2, 3, 4, 5, 6, 7].map((r) => PEAK_KW[(day * 8 + r) % PEAK_KW.length]));
      should(march.value).be.approximately(1 + (2 * highest) / 3, 0.005);
    });
  });

  describe('archive', () => {
    it('uses one minute up to MAX_ARCHIVE_POINTS rows, then the first round step that fits', () => {
      const start = at('2024-01-01T00:00:00Z');
      should(archiveStepMs(start, start + (MAX_ARCHIVE_POINTS - 1) * MINUTE)).equal(MINUTE);
      should(archiveStepMs(start, start + MAX_ARCHIVE_POINTS * MINUTE)).equal(5 * MINUTE);
      should(archiveStepMs(start, start + 7 * 24 * HOUR)).equal(5 * MINUTE);
      should(archiveStepMs(start, start + 31 * 24 * HOUR)).equal(15 * MINUTE);
      should(archiveStepMs(start, start + 366 * 24 * HOUR)).equal(120 * MINUTE);
    });

    it('never exceeds MAX_ARCHIVE_POINTS rows, on round instants inside the range, ascending (property)', () => {
      const kwh = findDemoSensor('e1.kwh')!;
      fc.assert(
        fc.property(instant, fc.integer({ min: 0, max: 40 * 365 * 24 * 60 }), (from, minutes) => {
          const to = from + minutes * MINUTE;
          const rows = archive(kwh, from, to);
          const times = rows.map(([ts]) => Date.parse(`${ts}Z`));
          should(rows.length).be.belowOrEqual(MAX_ARCHIVE_POINTS);
          const step = archiveStepMs(from, to);
          // Plain checks per row (thousands of rows per run), one assertion for all of them.
          const misplaced = times.filter(
            (t, i) => t % step !== 0 || t < Math.max(from, METER_START) || t > to || (i > 0 && t - times[i - 1] !== step),
          );
          should(misplaced).eql([]);
          // The range is covered: no room for another row before the first or after the last.
          if (times.length) {
            should(times[0] - step).be.below(Math.max(from, METER_START));
            should(times[times.length - 1] + step).be.above(to);
          }
        }),
        { numRuns: 100 },
      );
    });

    it('holds for every sensor the value its live reading had at the same instant', () => {
      const now = at('2024-03-06T14:07:30Z');
      for (const sensor of DEMO_SENSORS) {
        const live = sensorReading(sensor, now);
        const rows = archive(sensor, now - HOUR, now);
        should(rows[rows.length - 1]).eql([live.timestamp.replace('Z', ':00'), live.value], sensor.id);
      }
    });
  });

  it('floors each sensor timestamp to its own interval (GSM every 5 minutes)', () => {
    const now = at('2024-03-06T14:07:30Z');
    should(sensorReading(findDemoSensor('158')!, now).timestamp).equal('2024-03-06T14:05Z');
    should(sensorReading(findDemoSensor('e1.pf')!, now)).containEql({ timestamp: '2024-03-06T14:07Z', unit: null });
  });
});
