// The live generator report of stream mode against the test's own scan of the same
// sensor values and readings (fast-check, fixed seed), in zones whose clocks change at
// midnight; its stored state: small, restored only for the same sensor, saved at most
// every few minutes.
import should from 'should';
import fc from 'fast-check';
import { StreamGenerator, GeneratorState, GENERATOR_SAVE_MS } from '../../nodes/lib/runtime/generator/stream-generator';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { FC } from './engine-fixtures';

const MINUTE = 60_000;
const ZONES = ['Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago', 'Europe/London', 'Pacific/Chatham'];
const choice = { ref: { gatewayId: 'gw', sensorId: 'gen' }, on: 1 };

function memoryStore(initial?: unknown) {
  const saves: GeneratorState[] = [];
  return { saves, load: async () => initial, save: async (s: GeneratorState) => void saves.push(JSON.parse(JSON.stringify(s))) };
}

type Event = { kind: 'sample'; ts: number; value: number } | { kind: 'reading'; ts: number; kwh: number };

/** The value at ms by the test's own scan: the last sample at or before it; NaN unknown. */
function valueAt(samples: Array<{ ts: number; value: number }>, ms: number): number {
  let v = NaN;
  for (const s of samples) if (s.ts <= ms) v = s.value;
  return v;
}

const caseArb = fc.record({
  zone: fc.constantFrom(...ZONES),
  start: fc.integer({ min: Date.UTC(2019, 0, 1) / 3600_000, max: Date.UTC(2030, 0, 1) / 3600_000 }).map((h) => h * 3600_000),
  // minutes after start, distinct: a sensor value (0, 1, 2 or unreadable) or a meter reading
  events: fc.uniqueArray(
    fc.tuple(fc.integer({ min: 0, max: 3 * 24 * 60 }), fc.oneof(fc.constantFrom(0, 1, 1, 2, NaN), fc.constant('reading' as const))),
    { selector: ([m]) => m, minLength: 2, maxLength: 80 },
  ),
});

describe('stream generator report: against the scan of the same values (fast-check, fixed seed)', () => {
  it('run time, off and unknown time, starts, and energy by the value at each interval start, per day, week and month', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ zone, start, events }) => {
        const g = new StreamGenerator(choice, zone, memoryStore(), () => 0);
        const sorted: Event[] = events
          .sort((a, b) => a[0] - b[0])
          .map(([m, v], k) =>
            v === 'reading'
              ? { kind: 'reading', ts: start + m * MINUTE, kwh: k * 1.5 }
              : { kind: 'sample', ts: start + m * MINUTE, value: v },
          );
        const samples: Array<{ ts: number; value: number }> = [];
        const readings: Array<{ ts: number; kwh: number }> = [];
        for (const e of sorted) {
          if (e.kind === 'sample') {
            g.record(e.ts, e.value);
            samples.push(e);
          } else {
            const prev = readings[readings.length - 1];
            if (prev)
              g.addChange(prev.ts, {
                energy: e.kwh - prev.kwh,
                net: e.kwh - prev.kwh,
                gross: 2 * (e.kwh - prev.kwh),
                unpricedEnergy: 0,
                resets: 0,
              });
            readings.push(e);
          }
        }
        const at = sorted[sorted.length - 1].ts;
        const report = g.payload(at) as Record<string, any>;
        for (const [name, key] of [
          ['day', 'today'],
          ['week', 'week'],
          ['month', 'month'],
        ] as const) {
          const p = localPeriod(name, at, { timezone: zone });
          const r = report[key];
          should(r.fromMs).equal(p.from);
          // time: from the first sample (or the period's start) to the newest event
          const expected = { runMs: 0, offMs: 0, unknownMs: 0, starts: 0 };
          for (let k = 0; k < samples.length; k++) {
            const from = Math.max(samples[k].ts, p.from);
            const to = Math.min(k + 1 < samples.length ? samples[k + 1].ts : at, at);
            if (to > from) {
              const v = samples[k].value;
              if (Number.isNaN(v)) expected.unknownMs += to - from;
              else if (v === 1) expected.runMs += to - from;
              else expected.offMs += to - from;
            }
            const before = k > 0 ? samples[k - 1].value : NaN;
            if (samples[k].ts >= p.from && samples[k].value === 1 && !Number.isNaN(before) && before !== 1) expected.starts++;
          }
          should({ runMs: r.runMs, offMs: r.offMs, unknownMs: r.unknownMs, starts: r.starts }).eql(expected);
          // energy: each interval starting in the period, by the value at its start
          const sums = { running: 0, notRunning: 0, unknown: 0 };
          for (let k = 1; k < readings.length; k++) {
            const t0 = readings[k - 1].ts;
            if (t0 < p.from) continue;
            const v = valueAt(samples, t0);
            sums[Number.isNaN(v) ? 'unknown' : v === 1 ? 'running' : 'notRunning'] += readings[k].kwh - readings[k - 1].kwh;
          }
          for (const group of ['running', 'notRunning', 'unknown'] as const) {
            should(r[group].energy).be.approximately(sums[group], 1e-6);
            should(r[group].gross).be.approximately(2 * sums[group], 1e-6);
          }
        }
      }),
      { ...FC, numRuns: 400 },
    );
  });
});

describe('stream generator report: its stored state', () => {
  const t0 = Date.UTC(2026, 2, 4, 10);
  /** The clock the report runs at: after its readings (a stored period is checked against it). */
  const LATER = t0 + 24 * 3600_000;

  it('is about a kilobyte whatever the number of readings, and saved at most every 5 minutes', () => {
    let now = 0;
    const store = memoryStore();
    const g = new StreamGenerator(choice, 'UTC', store, () => now);
    for (let k = 0; k < 10_000; k++) {
      now = k * 10_000; // a reading and a sensor value every 10 s for 28 hours
      g.record(t0 + k * 10_000, k % 90 < 30 ? 1 : 0);
      g.addChange(t0 + k * 10_000 - 10_000, { energy: 0.01, net: 0.01, gross: 0.012, unpricedEnergy: 0, resets: 0 });
    }
    should(store.saves.length).be.belowOrEqual(Math.ceil((10_000 * 10_000) / GENERATOR_SAVE_MS) + 1);
    const bytes = Math.max(...store.saves.map((s) => JSON.stringify(s).length));
    should(bytes).be.below(1500); // three periods, the three that ended, the last value
  });

  it('a save the store refused is made again on close, even when nothing changed since', async () => {
    let failing = true;
    const saves: unknown[] = [];
    const store = {
      load: async () => undefined,
      save: async (state: GeneratorState) => {
        if (failing) throw new Error('disk full');
        saves.push(JSON.parse(JSON.stringify(state)));
      },
    };
    const g = new StreamGenerator(choice, 'UTC', store, () => GENERATOR_SAVE_MS); // the first change saves at once
    g.record(t0, 1);
    await new Promise((resolve) => setImmediate(resolve));
    should(saves).be.empty();
    failing = false;
    await g.flush(); // closing
    should(saves).have.length(1);
    should((saves[0] as GeneratorState).last).eql([t0, 1]);
  });

  it('is restored for the same sensor, running value and zone, and started afresh otherwise', async () => {
    const first = memoryStore();
    const g = new StreamGenerator(choice, 'UTC', first, () => LATER);
    g.record(t0, 0);
    g.record(t0 + MINUTE, 1);
    g.record(t0 + 11 * MINUTE, 0);
    await g.flush();
    const stored = first.saves[first.saves.length - 1];
    const again = new StreamGenerator(choice, 'UTC', memoryStore(stored), () => LATER);
    await again.restore();
    should((again.payload(t0 + 20 * MINUTE) as any).today).match({ runMs: 10 * MINUTE, starts: 1, offMs: 10 * MINUTE });
    for (const [other, zone] of [
      [{ ...choice, on: 0 }, 'UTC'],
      [{ ref: { gatewayId: 'gw', sensorId: 'other' }, on: 1 }, 'UTC'],
      [choice, 'Europe/Paris'],
    ] as const) {
      const fresh = new StreamGenerator(other, zone, memoryStore(stored), () => LATER);
      await fresh.restore();
      should((fresh.payload(t0 + 20 * MINUTE) as any).today.runMs).equal(0);
    }
    // garbage in the store: what fails is dropped with one warning naming it, no throw
    const head = { version: 1, gatewayId: 'gw', sensorId: 'gen', on: 1, timezone: 'UTC' };
    for (const [junk, runMs, said] of [
      [null, 0, null],
      ['x', 0, /^stored generator report: dropped everything: not the shape the report stores$/],
      [
        { ...head, last: null, day: { from: 'a' } },
        0,
        /^stored generator report: dropped today \(not a day of UTC near now with possible sums\)$/,
      ],
      // would make every payload throw
      [{ ...stored, closed: { day: { from: 'x', to: 'y' } } }, 10 * MINUTE, /dropped the closed day \(not a day of UTC/],
      [{ ...stored, day: { ...stored.day, from: 1e300 } }, 0, /dropped today \(not a day of UTC near now/],
      [{ ...stored, day: { ...stored.day, runMs: 1e15 } }, 0, /dropped today/],
      [{ ...stored, week: { ...stored.week!, to: stored.week!.to + 1 } }, 10 * MINUTE, /dropped this week/],
      [{ ...stored, last: [NaN, 1] }, 10 * MINUTE, /dropped the last value \(NaN\)$/],
      [{ ...stored, last: [t0 + 2 * 366 * 24 * 3600_000, 1] }, 10 * MINUTE, /dropped the last value \(2028-/],
      [{ ...stored, last: 'now' }, 10 * MINUTE, /dropped the last value \(not \[ts, value\]\)$/],
    ] as const) {
      const g2 = new StreamGenerator(choice, 'UTC', memoryStore(junk), () => LATER);
      const warned: string[] = [];
      await g2.restore((text) => warned.push(text));
      should((g2.payload(t0 + 20 * MINUTE) as any).today.runMs).equal(runMs, JSON.stringify(junk));
      should(warned).have.length(said ? 1 : 0);
      if (said) should(warned[0]).match(said);
      g2.record(t0 + 21 * MINUTE, 1); // and it counts on from there
    }
  });
});
