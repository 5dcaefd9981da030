// monthlyPeaks (docs/semantics.md, rule 41): worked cases (ties, one a day, a month
// boundary on a clock-change day, when), then against the slow reference
// (demand-reference.ts: Intl for the local month, day, weekday and clock) on generated
// histories, then hostile options.
import should from 'should';
import fc from 'fast-check';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';
import { monthlyPeaks } from '../../nodes/lib/engine/peak/monthly-peaks';
import { FC } from './engine-fixtures';
import { MINUTE, ZONES, slowMonthlyPeaks, wallClock } from './demand-reference';

const Z = (iso: string): number => Date.parse(iso);
const H = 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Hourly windows of UTC with the given kW, from `start`. */
function hourly(start: string, kws: number[], complete = true) {
  return kws.map((kw, k) => ({ from: Z(start) + k * H, to: Z(start) + (k + 1) * H, kw, energy: kw, complete }));
}

describe('monthlyPeaks', () => {
  describe('worked cases', () => {
    it('the highest windows, highest first, ties the earlier first; value their average', () => {
      const months = monthlyPeaks(hourly('2024-05-31T20:00Z', [3, 5, 5, 1, 9, 2, 9, 4]), { timezone: 'UTC', top: 3 });
      should(months.map((m) => [iso(m.from), m.peaks.map((p) => [iso(p.from).slice(8, 13), p.kw]), m.value])).eql([
        [
          '2024-05-01T00:00:00.000Z',
          [
            ['31T21', 5],
            ['31T22', 5],
            ['31T20', 3],
          ],
          13 / 3,
        ],
        [
          '2024-06-01T00:00:00.000Z',
          [
            ['01T00', 9],
            ['01T02', 9],
            ['01T03', 4],
          ],
          22 / 3,
        ],
      ]);
    });

    it('distinctDays: one window a day, that day’s highest; fewer than top averages what there is', () => {
      const windows = [...hourly('2024-06-01T10:00Z', [7, 8, 6]), ...hourly('2024-06-02T10:00Z', [5, 5])];
      const [june] = monthlyPeaks(windows, { timezone: 'UTC', top: 3, distinctDays: true });
      should(june.peaks.map((p) => [iso(p.from), p.kw])).eql([
        ['2024-06-01T11:00:00.000Z', 8],
        ['2024-06-02T10:00:00.000Z', 5],
      ]);
      should(june.value).equal(6.5);
    });

    it('incomplete windows count only with completeOnly: false; a month with none counted has value null', () => {
      const windows = hourly('2024-06-01T10:00Z', [7, 8], false);
      should(monthlyPeaks(windows, { timezone: 'UTC' })).eql([
        { from: Z('2024-06-01T00:00Z'), to: Z('2024-07-01T00:00Z'), peaks: [], value: null },
      ]);
      should(monthlyPeaks(windows, { timezone: 'UTC', completeOnly: false })[0].value).equal(8);
    });

    it('when: a tariff rule’s range and weekdays, matched at the window’s start in the zone', () => {
      // 2024-06-03 is a Monday; 17:00-20:00 Brussels (UTC+2) is 15:00-18:00Z
      const windows = hourly('2024-06-03T14:00Z', [9, 1, 2, 3, 8]);
      const [june] = monthlyPeaks(windows, {
        timezone: 'Europe/Brussels',
        top: 5,
        when: { time_start: '17:00', time_end: '20:00', weekdays: [1, 2, 3, 4, 5] },
      });
      should(june.peaks.map((p) => p.kw)).eql([3, 2, 1]);
      const [sunday] = monthlyPeaks(hourly('2024-06-02T15:00Z', [4]), {
        timezone: 'Europe/Brussels',
        when: { time_start: '17:00', time_end: '20:00', weekdays: [1, 2, 3, 4, 5] },
      });
      should(sunday.value).equal(null);
      // wrapping midnight, as a tariff rule: 22:00-06:00
      const [night] = monthlyPeaks(hourly('2024-06-03T19:00Z', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), {
        timezone: 'Europe/Brussels',
        top: 12,
        when: { time_start: '22:00', time_end: '06:00' },
      });
      should(night.peaks.map((p) => iso(p.from).slice(11, 13)).sort()).eql(['00', '01', '02', '03', '20', '21', '22', '23']);
    });

    it('Beirut: the hour repeated when 00:00 goes back to 23:00 belongs to the day and month before', () => {
      // 2023-10-29 00:00 (+3) → 2023-10-28 23:00 (+2) at 21:00Z; not a month boundary, but a day one
      const windows = demandWindows(
        [
          ['2023-10-28T19:00:00Z', 0],
          ['2023-10-28T20:00:00Z', 1],
          ['2023-10-28T21:00:00Z', 3],
          ['2023-10-28T22:00:00Z', 4],
          ['2023-10-28T23:00:00Z', 6],
        ],
        { timezone: 'Asia/Beirut', minutes: 60 },
      );
      const [oct] = monthlyPeaks(windows, { timezone: 'Asia/Beirut', top: 2, distinctDays: true });
      // 23:00 first pass 2 kW and second pass 1 kW are both the 28th; 00:00 of the 29th is 2 kW
      should(oct.peaks.map((p) => [iso(p.from), p.kw])).eql([
        ['2023-10-28T20:00:00.000Z', 2],
        ['2023-10-28T22:00:00.000Z', 2],
      ]);
    });

    it('Lord Howe: windows on either side of local midnight of 1 April (13:00Z) go to their own months', () => {
      const windows = demandWindows(
        [
          ['2024-03-31T12:00:00Z', 0],
          ['2024-03-31T14:00:00Z', 4],
        ],
        { timezone: 'Australia/Lord_Howe', minutes: 30 },
      );
      const months = monthlyPeaks(windows, { timezone: 'Australia/Lord_Howe' });
      should(months.map((m) => [iso(m.from), m.peaks.length])).eql([
        ['2024-02-29T13:00:00.000Z', 1],
        ['2024-03-31T13:00:00.000Z', 1],
      ]);
    });
  });

  describe('against the slow reference (fast-check, fixed seed)', () => {
    const whenArb = fc.option(
      fc
        .record(
          {
            time_start: fc.constantFrom('00:00', '06:30', '17:00', '22:00', '01:00', '23:30'),
            time_end: fc.constantFrom('00:00', '07:00', '20:00', '24:00', '02:15', '06:00'),
            weekdays: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { maxLength: 7 }),
          },
          { requiredKeys: [] },
        )
        .filter((w) => (w.time_start === undefined) === (w.time_end === undefined)),
      { nil: undefined },
    );
    const caseArb = fc.constantFrom(...Object.keys(ZONES)).chain((zone) =>
      fc.record({
        zone: fc.constant(zone),
        // near a clock change or a month's end (months in several zones)
        start: fc
          .tuple(fc.constantFrom(...ZONES[zone], '2024-04-01T00:00Z', '2024-11-01T00:00Z'), fc.integer({ min: -6 * 24, max: 2 * 24 }))
          .map(([c, h]) => Z(c) + h * H),
        steps: fc.array(fc.tuple(fc.integer({ min: 5, max: 240 }), fc.double({ min: 0, max: 10, noNaN: true })), {
          minLength: 1,
          maxLength: 80,
        }),
        minutes: fc.constantFrom<15 | 30 | 60>(15, 30, 60),
        top: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        distinctDays: fc.option(fc.boolean(), { nil: undefined }),
        completeOnly: fc.option(fc.boolean(), { nil: undefined }),
        when: whenArb,
        shuffle: fc.boolean(),
      }),
    );

    it('months, peaks and value on generated histories (zones changing at midnight, by 30 min; 15/30/60; top 3 distinct days; when)', () => {
      const seen = { severalPeaks: 0, twoMonths: 0, whenPeaks: 0 };
      fc.assert(
        fc.property(caseArb, ({ zone, start, steps, minutes, top, distinctDays, completeOnly, when, shuffle }) => {
          const readings: Array<[number, number]> = [[start, 0]];
          let t = start;
          let v = 0;
          for (const [gap, kwh] of steps) {
            t += gap * MINUTE;
            v += kwh;
            readings.push([t, v]);
          }
          const windows = [...demandWindows(readings, { timezone: zone, minutes, from: start - 2 * H, to: t + 2 * H })];
          if (shuffle) windows.reverse();
          const options = { top, distinctDays, completeOnly, when };
          const got = monthlyPeaks(windows, { timezone: zone, ...options });
          const want = slowMonthlyPeaks(windows, zone, options);
          should(got.map((m) => ({ peaks: m.peaks, value: m.value }))).eql(want.map((m) => ({ peaks: m.peaks, value: m.value })));
          // each month's bounds: the clock reads that month inside them, another just outside
          const month = (ms: number) => new Date(wallClock(zone, ms)).toISOString().slice(0, 7);
          got.forEach((m, k) => {
            should([month(m.from - 1), month(m.from), month(m.to - 1), month(m.to)].map((x) => x === want[k].month)).eql([
              false,
              true,
              true,
              false,
            ]);
          });
          if (got.some((m) => m.peaks.length > 1)) seen.severalPeaks++;
          if (got.length > 1) seen.twoMonths++;
          if (when && got.some((m) => m.peaks.length > 0)) seen.whenPeaks++;
        }),
        { ...FC, numRuns: 1500 },
      );
      // the generated cases reach what they are meant to test
      should(seen.severalPeaks).be.above(300);
      should(seen.twoMonths).be.above(100);
      should(seen.whenPeaks).be.above(200);
    });
  });

  describe('hostile input gets a clear error', () => {
    const windows = hourly('2024-06-01T10:00Z', [1, 2]);
    const opts = { timezone: 'UTC' };
    it('options', () => {
      should(() => monthlyPeaks(windows, { ...opts, top: 0 })).throw(TypeError, { message: /top must be a whole number of at least 1/ });
      should(() => monthlyPeaks(windows, { ...opts, top: 1.5 })).throw(TypeError, { message: /top/ });
      should(() => monthlyPeaks(windows, { ...opts, distinctDays: 'yes' as never })).throw(TypeError, {
        message: /distinctDays must be true or false/,
      });
      should(() => monthlyPeaks(windows, { ...opts, completeOnly: 1 as never })).throw(TypeError, {
        message: /completeOnly must be true or false/,
      });
      should(() => monthlyPeaks(windows, {} as never)).throw(TypeError, { message: /timezone is required/ });
    });

    it('when: each malformed field named, as a tariff rule’s would be', () => {
      const when = (w: unknown) => () => monthlyPeaks(windows, { ...opts, when: w as never });
      should(when({ time_start: '25:00', time_end: '20:00' })).throw(TypeError, { message: /^when\.time_start must be HH:mm/ });
      should(when({ time_start: '17:00', time_end: '20:60' })).throw(TypeError, { message: /^when\.time_end must be HH:mm/ });
      should(when({ time_start: '17:00' })).throw(TypeError, { message: /^when\.time_end is missing/ });
      should(when({ time_start: '17:00', time_end: '20:00', weekdays: [0] })).throw(TypeError, {
        message: /^when\.weekdays entry 0 must be an ISO weekday/,
      });
      should(when({ weekdays: 'Mon' })).throw(TypeError, { message: /^when\.weekdays must be a list/ });
      should(when({ sensor_id: 'x' })).throw(TypeError, { message: /when\.sensor_id: peaks are chosen by time of day and weekday only/ });
      should(when('17:00-20:00')).throw(TypeError, { message: /when must be an object/ });
      // the alias and an empty list, as in a tariff rule
      should(monthlyPeaks(windows, { ...opts, when: { weekday: [6] } })[0].value).equal(2); // 2024-06-01 was a Saturday
      should(monthlyPeaks(windows, { ...opts, when: { weekdays: [] } })[0].value).equal(2);
    });

    it('windows: not a list, fields that are no number, overlaps, too many', () => {
      should(() => monthlyPeaks('w' as never, opts)).throw(TypeError, { message: /windows must be an array/ });
      should(() => monthlyPeaks([null], opts)).throw(TypeError, { message: /windows\[0\] must be an object/ });
      // eslint-disable-next-line no-sparse-arrays
      should(() => monthlyPeaks([windows[0], , windows[1]], opts)).throw(TypeError, { message: /windows\[1\] must be an object/ });
      should(() => monthlyPeaks([{ ...windows[0], kw: '3' }], opts)).throw(TypeError, {
        message: /windows\[0\]\.kw must be a finite number/,
      });
      should(() => monthlyPeaks([{ ...windows[0], kw: NaN }], opts)).throw(TypeError, { message: /windows\[0\]\.kw/ });
      should(() => monthlyPeaks([{ ...windows[0], from: 'then' }], opts)).throw(TypeError, {
        message: /windows\[0\]\.from must be epoch milliseconds/,
      });
      should(() => monthlyPeaks([{ ...windows[0], to: windows[0].from }], opts)).throw(RangeError, {
        message: /windows\[0\]: from .* must be before to/,
      });
      should(() => monthlyPeaks([{ ...windows[0], complete: 'yes' }], opts)).throw(TypeError, {
        message: /windows\[0\]\.complete must be true or false/,
      });
      should(() => monthlyPeaks([windows[0], windows[0]], opts)).throw(RangeError, { message: /windows overlap/ });
      should(() => monthlyPeaks({ length: 1e6 } as never, opts)).throw(TypeError);
      const many = new Array(100_001).fill(windows[0]);
      should(() => monthlyPeaks(many, opts)).throw(RangeError, { message: /more than the 100000 monthlyPeaks reads/ });
      // ids and fields from outside are data: an own __proto__ field is not read
      should(
        monthlyPeaks(
          [JSON.parse(`{"__proto__": {"kw": 5}, "from": ${windows[0].from}, "to": ${windows[0].to}, "kw": 1, "complete": true}`)],
          opts,
        )[0].value,
      ).equal(1);
    });
  });
});
