// sensorRuns against the test's own minute-by-minute scan of the timeline, on generated
// flapping timelines (unsorted, duplicate instants, values that are no number, unknown
// before the first sample); additivity over local days in zones whose clocks change.
import should from 'should';
import fc from 'fast-check';
import { sensorRuns } from '../../nodes/lib/engine/reports/sensor-runs';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { FC } from './engine-fixtures';

const MINUTE = 60000;
type Sample = [number, number | string];

/** The value at ms, NaN = unknown: the last sample at or before it, of equal instants the later given. */
function valueAt(timeline: Sample[], ms: number): number {
  let best: Sample | undefined;
  for (const sample of timeline) if (sample[0] <= ms && (best === undefined || sample[0] >= best[0])) best = sample;
  if (best === undefined) return NaN;
  const v = typeof best[1] === 'number' ? best[1] : best[1].trim() === '' ? NaN : Number(best[1]);
  return Number.isFinite(v) ? v : NaN;
}

/** Minute by minute (samples and bounds lie on minutes, so the value is constant within one). */
function slowRuns(timeline: Sample[], from: number, to: number, on: number) {
  const out = { onMs: 0, offMs: 0, unknownMs: 0, starts: 0, runs: [] as Array<{ from: number; to: number }> };
  for (let t = from; t < to; t += MINUTE) {
    const v = valueAt(timeline, t);
    if (Number.isNaN(v)) out.unknownMs += MINUTE;
    else if (v === on) out.onMs += MINUTE;
    else out.offMs += MINUTE;
    const before = valueAt(timeline, t - 1);
    // a start is counted in [from, to): one exactly at `from` belongs to this range
    if (v === on && !Number.isNaN(before) && before !== on) out.starts++;
    if (v === on) {
      const last = out.runs[out.runs.length - 1];
      if (last && last.to === t) last.to = t + MINUTE;
      else out.runs.push({ from: t, to: t + MINUTE });
    }
  }
  return out;
}

const BASE = Date.UTC(2025, 2, 29); // the weekend Europe's clocks go forward
const sampleArb = fc.tuple(
  fc.integer({ min: -60, max: 24 * 60 }).map((m) => BASE + m * MINUTE),
  fc.oneof(fc.constantFrom<number | string>(0, 1, 1, 2, '1', 'x')),
);
const caseArb = fc.record({
  timeline: fc.array(sampleArb, { maxLength: 40 }),
  from: fc.integer({ min: -120, max: 12 * 60 }),
  length: fc.integer({ min: 0, max: 14 * 60 }),
  on: fc.constantFrom(1, 2, 0),
});

describe('sensorRuns: against the minute-by-minute scan (fast-check, fixed seed)', () => {
  it('time on, off and unknown, starts and runs', () => {
    fc.assert(
      fc.property(caseArb, ({ timeline, from, length, on }) => {
        const a = BASE + from * MINUTE;
        const b = a + length * MINUTE;
        should(sensorRuns(timeline, a, b, { on })).eql(slowRuns(timeline, a, b, on));
      }),
      FC,
    );
  });

  it('adds up over the local days of a week (DST and midnight-DST zones): times and starts exactly, starts at midnight included', () => {
    const zones = ['Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago', 'Europe/London', 'Pacific/Chatham'];
    const weekArb = fc.record({
      zone: fc.constantFrom(...zones),
      start: fc.integer({ min: Date.UTC(2019, 0, 1) / 3600000, max: Date.UTC(2030, 0, 1) / 3600000 }).map((h) => h * 3600000),
      samples: fc.array(fc.tuple(fc.integer({ min: -2000, max: 12000 }), fc.constantFrom(0, 1, 1)), { maxLength: 60 }),
      // some samples exactly at local midnights: a start there counts in the day it begins
      midnights: fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.constantFrom(0, 1)), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(weekArb, ({ zone, start, samples, midnights }) => {
        const week = localPeriod('week', start, { timezone: zone });
        const timeline = samples.map(([m, v]): Sample => [start + m * MINUTE, v]);
        for (const [d, v] of midnights) {
          let day = localPeriod('day', week.from, { timezone: zone });
          for (let k = 0; k < d; k++) day = localPeriod('day', day.to, { timezone: zone });
          timeline.push([day.from, v]);
        }
        const whole = sensorRuns(timeline, week.from, week.to);
        const sum = { onMs: 0, offMs: 0, unknownMs: 0, starts: 0 };
        for (
          let day = localPeriod('day', week.from, { timezone: zone });
          day.from < week.to;
          day = localPeriod('day', day.to, { timezone: zone })
        ) {
          const r = sensorRuns(timeline, day.from, day.to);
          sum.onMs += r.onMs;
          sum.offMs += r.offMs;
          sum.unknownMs += r.unknownMs;
          sum.starts += r.starts;
        }
        should(sum).eql({ onMs: whole.onMs, offMs: whole.offMs, unknownMs: whole.unknownMs, starts: whole.starts });
        should(whole.onMs + whole.offMs + whole.unknownMs).equal(week.to - week.from);
      }),
      { ...FC, numRuns: 500 },
    );
  });
});

describe('sensorRuns: worked by hand', () => {
  const t = (h: number, m = 0) => Date.UTC(2025, 0, 6, h, m);
  it('a generator: unknown until 06:00, off, on 08:00-09:30 and 17:00-, flapping at 12:00 (on for a minute)', () => {
    const timeline: Sample[] = [
      [t(6), 0],
      [t(8), 1],
      [t(9, 30), 0],
      [t(12), 1],
      [t(12, 1), 0],
      [t(17), '1'],
      [t(17, 30), 1], // still on: no start
    ];
    const r = sensorRuns(timeline, t(0), t(18));
    should(r.starts).equal(3);
    should(r.onMs).equal((90 + 1 + 60) * MINUTE);
    should(r.unknownMs).equal(6 * 60 * MINUTE);
    should(r.offMs).equal(18 * 60 * MINUTE - r.onMs - r.unknownMs);
    should(r.runs).eql([
      { from: t(8), to: t(9, 30) },
      { from: t(12), to: t(12, 1) },
      { from: t(17), to: t(18) },
    ]);
  });

  it('on at the start of the range, or first seen on, or on after unknown: no start; a run clipped to the range', () => {
    should(sensorRuns([[t(7), 1]], t(8), t(9))).eql({
      onMs: 60 * MINUTE,
      offMs: 0,
      unknownMs: 0,
      starts: 0,
      runs: [{ from: t(8), to: t(9) }],
    });
    should(sensorRuns([[t(8, 30), 1]], t(8), t(9)).starts).equal(0);
    should(
      sensorRuns(
        [
          [t(7), 0],
          [t(8), 'n/a'],
          [t(8, 10), 1],
        ],
        t(7),
        t(9),
      ).starts,
    ).equal(0);
    // a change exactly at `from` is a start of [from, to) (the SPEC: periods add up); one at `to` is outside
    should(
      sensorRuns(
        [
          [t(7), 0],
          [t(8), 1],
        ],
        t(8),
        t(9),
      ).starts,
    ).equal(1);
    // ... and not of the range before, which it ends
    should(
      sensorRuns(
        [
          [t(7), 0],
          [t(8), 1],
        ],
        t(7),
        t(8),
      ).starts,
    ).equal(0);
    // on before `from` and still on at it: no start; first seen at `from`: no start
    should(
      sensorRuns(
        [
          [t(7), 1],
          [t(8), 1],
        ],
        t(8),
        t(9),
      ).starts,
    ).equal(0);
    should(sensorRuns([[t(8), 1]], t(8), t(9)).starts).equal(0);
    should(
      sensorRuns(
        [
          [t(7), 0],
          [t(9), 1],
        ],
        t(8),
        t(9),
      ).starts,
    ).equal(0);
  });

  it('two samples at one instant: the later given wins', () => {
    const r = sensorRuns(
      [
        [t(7), 0],
        [t(8), 1],
        [t(8), 0],
      ],
      t(7),
      t(9),
    );
    should(r).eql({ onMs: 0, offMs: 2 * 60 * MINUTE, unknownMs: 0, starts: 0, runs: [] });
  });

  it('takes ISO strings, Date and { ts, value } objects, in any order', () => {
    const r = sensorRuns(
      [
        { ts: new Date(t(8)).toISOString(), value: 1 },
        { ts: new Date(t(7)), value: 0 },
      ],
      new Date(t(7)).toISOString(),
      t(9),
    );
    should(r.starts).equal(1);
    should(r.onMs).equal(60 * MINUTE);
  });

  it('bad input: clear errors', () => {
    should(() => sensorRuns('x' as never, 0, 1)).throw(TypeError, { message: /timeline must be an array/ });
    should(() => sensorRuns([], 'soon', 1)).throw(TypeError, { message: /from must be/ });
    should(() => sensorRuns([], 5, 1)).throw(RangeError, { message: /to must not be before from/ });
    should(() => sensorRuns([['when', 1]], 0, 1)).throw(TypeError, { message: /timeline\[0\]: timestamp/ });
    should(() => sensorRuns([], 0, 1, { on: 'yes' })).throw(TypeError, { message: /on must be a number/ });
  });
});
