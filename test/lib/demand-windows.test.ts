// demandWindowOf and demandWindows (docs/semantics.md, rules 39-40): hand-worked clock-change
// days, then against the slow reference (demand-reference.ts: Intl minute by minute) on
// generated histories in zones whose clocks change at midnight or by 30 minutes, then
// hostile input. Nothing here reads the process's TZ (CI runs it under several).
import should from 'should';
import fc from 'fast-check';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { localPeriod, toLocalMs, zoneInfo } from '../../nodes/lib/engine/time/time';
import { FC } from './engine-fixtures';
import { intlLocalMs } from './local-period-reference';
import { MINUTE, Row, ZONES, slowDemandWindows, slowWindowOf } from './demand-reference';

const Z = (iso: string): number => Date.parse(iso);
const span = (w: { from: number; to: number }) => [new Date(w.from).toISOString(), new Date(w.to).toISOString()];

describe('demand windows', () => {
  before(function () {
    // The reference reads Intl (ICU's zone data), the engine moment-timezone's: they must
    // agree on these changes, or the comparison would judge the databases, not the code.
    for (const [zone, changes] of Object.entries(ZONES)) {
      const info = zoneInfo(zone);
      for (const change of changes) {
        for (const ms of [Z(change) - MINUTE, Z(change), Z(change) + 6 * 3600_000]) {
          should(toLocalMs(info, ms)).equal(
            intlLocalMs(zone, ms),
            `${zone} at ${new Date(ms).toISOString()}: Intl and moment-timezone differ`,
          );
        }
      }
    }
  });

  describe('demandWindowOf on clock-change days, worked by hand', () => {
    const cases: Array<[string, string, 15 | 30 | 60, string, string, string]> = [
      // zone, instant, minutes, from, to, why
      ['Europe/London', '2024-10-27T00:30Z', 60, '2024-10-27T00:00Z', '2024-10-27T01:00Z', '01:00 BST, first pass of the repeated hour'],
      ['Europe/London', '2024-10-27T01:30Z', 60, '2024-10-27T01:00Z', '2024-10-27T02:00Z', '01:00 GMT, second pass: its own 60 minutes'],
      [
        'Europe/London',
        '2024-03-31T01:10Z',
        60,
        '2024-03-31T01:00Z',
        '2024-03-31T02:00Z',
        'the jump 01:00 → 02:00 starts the window 02:00',
      ],
      ['Europe/London', '2024-03-31T00:59Z', 15, '2024-03-31T00:45Z', '2024-03-31T01:00Z', 'the last window before the jump'],
      ['Australia/Lord_Howe', '2024-04-06T14:50Z', 60, '2024-04-06T14:00Z', '2024-04-06T15:30Z', 'set back 30 min: 01:00 lasts 90'],
      ['Australia/Lord_Howe', '2024-04-06T15:10Z', 15, '2024-04-06T15:00Z', '2024-04-06T15:15Z', 'set back onto 01:30: 15 stays 15'],
      ['Australia/Lord_Howe', '2024-10-05T15:10Z', 60, '2024-10-05T14:30Z', '2024-10-05T15:30Z', 'before the jump 02:00 → 02:30'],
      ['Australia/Lord_Howe', '2024-10-05T15:40Z', 60, '2024-10-05T15:30Z', '2024-10-05T16:00Z', 'after it: the window 02:00 lasts 30'],
      ['Atlantic/Azores', '2024-03-31T01:05Z', 15, '2024-03-31T01:00Z', '2024-03-31T01:15Z', 'midnight skipped: the day starts at 01:00'],
      ['Atlantic/Azores', '2024-03-31T00:55Z', 60, '2024-03-31T00:00Z', '2024-03-31T01:00Z', "the day before's last hour"],
      ['Atlantic/Azores', '2024-10-27T01:20Z', 30, '2024-10-27T01:00Z', '2024-10-27T01:30Z', 'midnight repeated: second pass'],
      ['Asia/Beirut', '2023-10-28T20:30Z', 60, '2023-10-28T20:00Z', '2023-10-28T21:00Z', '23:00 of the 28th, first pass'],
      ['Asia/Beirut', '2023-10-28T21:30Z', 60, '2023-10-28T21:00Z', '2023-10-28T22:00Z', '00:00 → 23:00 of the 28th: second pass'],
      ['America/Havana', '2024-03-10T05:00Z', 30, '2024-03-10T05:00Z', '2024-03-10T05:30Z', '00:00 → 01:00: the window 01:00'],
      ['America/Havana', '2024-11-03T05:10Z', 60, '2024-11-03T05:00Z', '2024-11-03T06:00Z', '01:00 → 00:00: the hour 00:00 again'],
    ];
    for (const [zone, at, minutes, from, to, why] of cases) {
      it(`${zone} ${at} (${minutes} min): ${why}`, () => {
        should(span(demandWindowOf(at, zone, minutes))).eql(span({ from: Z(from), to: Z(to) }));
      });
    }

    it('where midnight is skipped, the first window of the day starts where the local day does', () => {
      for (const [zone, day] of [
        ['Atlantic/Azores', '2024-03-31T12:00Z'],
        ['America/Havana', '2024-03-10T12:00Z'],
        ['Asia/Beirut', '2024-03-31T12:00Z'],
      ]) {
        const { from } = localPeriod('day', day, { timezone: zone });
        for (const minutes of [15, 30, 60] as const) should(demandWindowOf(from, zone, minutes).from).equal(from, zone);
      }
    });

    it('windows tile time: each ends where the next begins, and contains its instant', () => {
      const at = Z('2024-04-06T10:00Z');
      for (const minutes of [15, 30, 60] as const) {
        let w = demandWindowOf(at, 'Australia/Lord_Howe', minutes);
        for (let k = 0; k < 200; k++) {
          const next = demandWindowOf(w.to, 'Australia/Lord_Howe', minutes);
          should(next.from).equal(w.to);
          should(demandWindowOf(w.to - 1, 'Australia/Lord_Howe', minutes)).eql(w);
          w = next;
        }
      }
    });
  });

  describe('demandWindows on clock-change days, worked by hand', () => {
    /** Hourly windows of Lord Howe from two readings, as plain objects. */
    const lordHowe = (a: [string, number], b: [string, number]) =>
      demandWindows([a, b], { timezone: 'Australia/Lord_Howe', minutes: 60 }).map((w) => ({ ...w }));

    it('Lord Howe set back: the 90-minute window holds 6 kWh, 4 kW', () => {
      should(lordHowe(['2024-04-06T14:00:00Z', 100], ['2024-04-06T15:30:00Z', 106])).eql([
        { from: Z('2024-04-06T14:00Z'), to: Z('2024-04-06T15:30Z'), energy: 6, kw: 4, complete: true },
      ]);
    });

    it('Lord Howe jump: half an interval in the 30-minute window, twice the power', () => {
      should(lordHowe(['2024-10-05T15:00:00Z', 0], ['2024-10-05T16:00:00Z', 3])).eql([
        { from: Z('2024-10-05T14:30Z'), to: Z('2024-10-05T15:30Z'), energy: 1.5, kw: 1.5, complete: false },
        { from: Z('2024-10-05T15:30Z'), to: Z('2024-10-05T16:00Z'), energy: 1.5, kw: 3, complete: true },
      ]);
    });

    it('London set back, hourly: 25 windows of 60 minutes on 2024-10-27 at a steady 2 kW', () => {
      const day = localPeriod('day', '2024-10-27T12:00Z', { timezone: 'Europe/London' });
      const readings: Array<[number, number]> = [];
      for (let t = day.from; t <= day.to; t += 15 * MINUTE) readings.push([t, 1000 + ((t - day.from) / 3600_000) * 2]);
      const windows = demandWindows(readings, { timezone: 'Europe/London', minutes: 60 });
      should(windows.length).equal(25);
      for (const w of windows) {
        should(w.to - w.from).equal(3600_000);
        should(w.energy).be.approximately(2, 1e-9);
        should(w.kw).be.approximately(2, 1e-9);
        should(w.complete).be.true();
      }
    });

    it('a glitch, a reset and a jump are judged as computeCost judges them (rule 10); the array reports them', () => {
      const readings: Array<[string, number | string]> = [
        ['2024-06-01T10:00:00Z', 10],
        ['2024-06-01T10:10:00Z', 11], // 6 kW
        ['2024-06-01T10:20:00Z', 0],
        ['2024-06-01T10:20:00Z', 3], // the later of equal instants wins: a drop...
        ['2024-06-01T10:30:00Z', 4], // ...the meter goes on from: a reset (10:10-10:20 counts 0)
        ['2024-06-01T10:45:00Z', 4.5], // 2 kW from 4: the 14 before it was a glitch
        ['2024-06-01T10:40:00Z', 14], // 60 kW: a jump at maxPowerKw 50; out of order
        ['2024-06-01T10:50:00Z', 'x'], // dropped
      ];
      const windows = demandWindows(readings, { timezone: 'Europe/Brussels', minutes: 15, maxPowerKw: 50 });
      const cost = computeCost({ id: 't', name: 't', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 1 }] }, readings, {
        timezone: 'Europe/Brussels',
        maxPowerKw: 50,
      });
      should(windows.map((w) => w.energy)).eql([1, 1, 0.5]);
      should(windows.map((w) => w.complete)).eql([true, true, true]);
      should(windows.reduce((s, w) => s + w.energy, 0)).equal(cost.energy);
      should(windows.resets).eql([{ from: Z('2024-06-01T10:10Z'), to: Z('2024-06-01T10:20Z'), fromValue: 11, toValue: 3, kind: 'reset' }]);
      should(windows.glitches).eql([{ ts: Z('2024-06-01T10:40Z'), value: 14, kind: 'high' }]);
      for (const list of ['resets', 'rejected', 'glitches', 'pending', 'dropped'] as const) should(windows[list]).eql(cost[list], list);
      should(windows.reordered).be.true();
    });

    it('a 45-minute outage across an 8 kW burst: the windows it overlaps are not complete, the gap named (maxGapMinutes)', () => {
      // 1 kW, then 8 kW from 10:05 to 10:35, readings every minute but none from 10:00 to 10:45
      const kwAt = (m: number) => (m >= 5 && m < 35 ? 8 : 1);
      const rows: Array<[number, number]> = [];
      let v = 100;
      for (let m = -30; m <= 75; m++) {
        if (m > 0 && m < 45) {
          v += kwAt(m) / 60;
          continue;
        }
        rows.push([Z('2024-06-03T10:00Z') + m * MINUTE, v]);
        v += kwAt(m) / 60;
      }
      const got = demandWindows(rows, { timezone: 'UTC', minutes: 15, maxGapMinutes: 5 });
      const at = (hhmm: string) => got.find((w) => w.from === Z(`2024-06-03T${hhmm}Z`))!;
      // the 45 minutes counted 4.25 kWh (30 min at 8 kW and 15 at 1), spread evenly: 5.667 kW a window, never the 8 kW burst
      for (const hhmm of ['10:00', '10:15', '10:30']) {
        should(at(hhmm).kw).be.approximately((4.25 / 45) * 60, 1e-9);
        should(at(hhmm).complete).be.false();
        should(at(hhmm).gap).eql({ from: Z('2024-06-03T10:00Z'), to: Z('2024-06-03T10:45Z') });
      }
      should(at('09:45').complete).be.true();
      should(at('09:45').kw).be.approximately(1, 1e-9);
      should(at('09:45').gap).be.undefined();
      should(at('10:45').complete).be.true();
      // without the option the gap is covered, as before: a complete window of 5.67 kW that hides the 8 kW
      should(demandWindows(rows, { timezone: 'UTC', minutes: 15 }).find((w) => w.from === at('10:15').from)!.complete).be.true();
    });

    it('from/to choose the windows overlapping [from, to), each whole; empty readings give empty windows', () => {
      const readings = [
        ['2024-06-01T10:00:00Z', 0],
        ['2024-06-01T11:00:00Z', 4],
      ];
      const windows = demandWindows(readings, { timezone: 'UTC', minutes: 30, from: '2024-06-01T10:20Z', to: '2024-06-01T12:00Z' });
      should(windows.map((w) => [new Date(w.from).toISOString().slice(11, 16), w.energy, w.complete])).eql([
        ['10:00', 2, true],
        ['10:30', 2, true],
        ['11:00', 0, false],
        ['11:30', 0, false],
      ]);
      should(
        demandWindows([], { timezone: 'UTC', minutes: 60, from: '2024-06-01T10:00Z', to: '2024-06-01T12:00Z' }).map((w) => w.complete),
      ).eql([false, false]);
      should(demandWindows([], { timezone: 'UTC', minutes: 60 }).length).equal(0);
      should(demandWindows([['2024-06-01T10:00:00Z', 1]], { timezone: 'UTC', minutes: 60 }).length).equal(0);
    });
  });

  describe('against the slow reference (Intl minute by minute; fast-check, fixed seed)', () => {
    const zoneArb = fc.constantFrom(...Object.keys(ZONES));
    const minutesArb = fc.constantFrom<15 | 30 | 60>(15, 30, 60);
    const aroundChange = (zone: string) =>
      fc.tuple(fc.constantFrom(...ZONES[zone]), fc.integer({ min: -4 * 60, max: 4 * 60 })).map(([change, m]) => Z(change) + m * MINUTE);

    it('demandWindowOf: the window the clock says, at any instant near a change', () => {
      fc.assert(
        fc.property(
          zoneArb.chain((zone) => fc.tuple(fc.constant(zone), aroundChange(zone), fc.integer({ min: 0, max: MINUTE - 1 }), minutesArb)),
          ([zone, at, ms, minutes]) => {
            should(span(demandWindowOf(at + ms, zone, minutes))).eql(span(slowWindowOf(zone, at + ms, minutes)));
          },
        ),
        { ...FC, numRuns: 3000 },
      );
    });

    /**
     * A meter's history near a clock change: irregular intervals (seconds to hours, gaps),
     * resets, then shuffled in part, duplicate instants, garbage rows, ISO text for some.
     */
    const historyArb = (zone: string) =>
      fc
        .record({
          start: aroundChange(zone),
          steps: fc.array(
            fc.record({
              gapS: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 600, max: 3 * 3600 })),
              kwh: fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.constant(0)),
            }),
            { maxLength: 30 },
          ),
          resets: fc.array(fc.nat(40), { maxLength: 2 }),
          swaps: fc.array(fc.tuple(fc.nat(40), fc.nat(40)), { maxLength: 3 }),
          duplicates: fc.array(fc.tuple(fc.nat(40), fc.double({ min: 0, max: 100, noNaN: true })), { maxLength: 2 }),
          garbage: fc.array(fc.tuple(fc.nat(40), fc.constantFrom<Row>(['x', 1], [Z('2024-01-01T00:00Z'), 'kWh'], null, [NaN, 2], 'row')), {
            maxLength: 2,
          }),
          iso: fc.array(fc.nat(40), { maxLength: 3 }),
        })
        .map(({ start, steps, resets, swaps, duplicates, garbage, iso }) => {
          const rows: Row[] = [];
          let t = Math.floor(start / 1000) * 1000;
          let v = 1000;
          rows.push([t, v]);
          steps.forEach((step, k) => {
            t += step.gapS * 1000;
            v = resets.includes(k) ? step.kwh : v + step.kwh;
            rows.push([t, v]);
          });
          for (const k of iso)
            if (k < rows.length) rows[k] = [new Date((rows[k] as [number, number])[0]).toISOString(), (rows[k] as [number, number])[1]];
          for (const [a, b] of swaps) if (a < rows.length && b < rows.length) [rows[a], rows[b]] = [rows[b], rows[a]];
          for (const [k, value] of duplicates) if (k < rows.length) rows.splice(k + 1, 0, [(rows[k] as [unknown, number])[0], value]);
          for (const [k, row] of garbage) rows.splice(Math.min(k, rows.length), 0, row);
          return rows;
        });

    it('demandWindows: windows, energy, kW and complete on generated histories', () => {
      fc.assert(
        fc.property(
          zoneArb.chain((zone) =>
            fc.tuple(
              fc.constant(zone),
              historyArb(zone),
              minutesArb,
              fc.option(fc.constantFrom(20, 100), { nil: undefined }),
              fc.option(fc.tuple(fc.integer({ min: -90, max: 60 }), fc.integer({ min: 0, max: 5 * 60 })), { nil: undefined }),
              fc.option(fc.constantFrom(1, 5, 10, 20.5, 60, 1440), { nil: undefined }),
            ),
          ),
          ([zone, rows, minutes, maxPowerKw, range, maxGapMinutes]) => {
            const first = rows.find((r): r is [number, number] => Array.isArray(r) && Number.isFinite(r[0]));
            const from = range && first ? first[0] + range[0] * MINUTE : undefined;
            const to = range && from !== undefined ? from + range[1] * MINUTE : undefined;
            const got = demandWindows(rows, { timezone: zone, minutes, maxPowerKw, from, to, maxGapMinutes });
            const want = slowDemandWindows(rows, zone, minutes, { from, to, maxPowerKw, maxGapMinutes });
            should(got.map(span)).eql(want.map(span));
            got.forEach((w, k) => {
              const tolerance = 1e-9 * Math.max(1, Math.abs(want[k].energy));
              should(w.energy).be.approximately(want[k].energy, tolerance);
              should(w.kw).be.approximately(want[k].kw, (tolerance * 4 * 3600_000) / (w.to - w.from));
              should(w.complete).equal(want[k].complete);
              should(w.gap).eql(want[k].gap);
            });
          },
        ),
        { ...FC, numRuns: 2000 },
      );
    });
  });

  describe('hostile input gets a clear error', () => {
    const opts = { timezone: 'Europe/London', minutes: 30 as const };
    it('minutes, timezone, readings, instants', () => {
      should(() => demandWindows([], { timezone: 'Europe/London', minutes: 45 as never })).throw(TypeError, {
        message: /minutes must be 15, 30 or 60/,
      });
      should(() => demandWindows([], { minutes: 15 } as never)).throw(TypeError, { message: /timezone is required/ });
      should(() => demandWindows([], { timezone: 'Mars/Olympus', minutes: 15 })).throw(/Mars\/Olympus/);
      should(() => demandWindows('readings' as never, opts)).throw(TypeError, { message: /readings must be an array/ });
      should(() => demandWindows([], { ...opts, from: 'soon' })).throw(TypeError, { message: /options.from must be epoch milliseconds/ });
      should(() => demandWindows([], { ...opts, from: 9e15, to: 1e16 })).throw(RangeError, {
        message: /options.from must lie within the range of a Date/,
      });
      should(() => demandWindows([], { ...opts, from: 2, to: 1 })).throw(RangeError, { message: /must not be after/ });
      should(() => demandWindows([], { ...opts, maxPowerKw: -1 })).throw(TypeError, { message: /maxPowerKw/ });
      for (const bad of [0, -5, NaN, '10', null])
        should(() => demandWindows([], { ...opts, maxGapMinutes: bad as never })).throw(TypeError, {
          message: /^maxGapMinutes must be a number of minutes above 0, got /,
        });
      should(() => demandWindowOf(1e300, 'UTC', 15)).throw(RangeError, { message: /at must lie within the range of a Date/ });
      should(() => demandWindowOf(0, undefined as never, 15)).throw(TypeError, { message: /timezone is required/ });
      should(() => demandWindowOf(0, 'UTC', '15' as never)).throw(TypeError, { message: /minutes must be 15, 30 or 60/ });
    });

    it('a range of millions of windows is refused before any is made, naming the limit', () => {
      const readings = [
        [0, 0],
        [8.6e15, 1],
      ];
      should(() => demandWindows(readings, opts)).throw(RangeError, { message: /more than 100000 windows of 30 minutes/ });
      should(() => demandWindows([], { ...opts, from: '2000-01-01T00:00Z', to: '2010-01-01T00:00Z' })).throw(RangeError, {
        message: /options.from and options.to/,
      });
      // a year of 15-minute windows is well inside
      should(demandWindows([], { timezone: 'UTC', minutes: 15, from: '2024-01-01T00:00Z', to: '2025-01-01T00:00Z' }).length).equal(
        366 * 96,
      );
    });

    it('non-numbers, NaN, huge and infinite values are dropped, judged or rejected, never NaN in a window', () => {
      const rows = [
        ['2024-06-01T10:00:00Z', 0],
        ['2024-06-01T10:10:00Z', Infinity],
        ['2024-06-01T10:20:00Z', 1e308],
        ['2024-06-01T10:30:00Z', -1e308],
        ['2024-06-01T10:40:00Z', 1e308],
        [{}, 1],
        ['2024-06-01T10:50:00Z', '__proto__'],
        ['2024-06-01T11:00:00Z', 1e308],
      ];
      // by default 0 → 1e308 is a jump the meter goes on from (a swap); -1e308 a glitch
      const judged = demandWindows(rows, opts);
      // with jumps off, 0 → 1e308 would not leave a finite kW: rejected
      const unjudged = demandWindows(rows, { ...opts, maxPowerKw: Infinity });
      for (const w of [...judged, ...unjudged]) should(Number.isFinite(w.energy) && Number.isFinite(w.kw)).be.true();
      should(judged.resets.map((r) => r.kind)).eql(['swap']);
      should(judged.rejected).eql([]);
      should(unjudged.rejected.map((r) => [r.fromValue, r.reason])).eql([[0, 'overflow']]);
      should(unjudged.resets).eql([]);
      for (const windows of [judged, unjudged]) {
        should(windows.glitches).eql([{ ts: Z('2024-06-01T10:30Z'), value: -1e308, kind: 'low' }]);
        should(windows.dropped.map((d) => d.reason)).eql(['value', 'timestamp', 'value']);
      }
    });
  });
});
