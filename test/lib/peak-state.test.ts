// easy-peak's state without Node-RED: the month's peaks kept as peaks only against
// monthlyPeaks over every window, and the stored state read back as hostile data.
import should from 'should';
import fc from 'fast-check';
import { addClosedWindow, MonthPeaks } from '../../nodes/lib/runtime/peak-period/peak-month';
import type { DemandWindow } from '../../nodes/lib/engine/peak/demand';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import { monthlyPeaks } from '../../nodes/lib/engine/peak/monthly-peaks';
import { decodePeaks, encodePeaks } from '../../nodes/lib/runtime/peak/peak-store';
import { advanceMeter, isFresh, MeterPeaks, newMeter, WindowScope } from '../../nodes/lib/runtime/peak/peak-meter';
import { arrive } from '../../nodes/lib/runtime/peak/peak-clock';
import { newSite } from '../../nodes/lib/runtime/peak/peak-site';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { RefusedReading } from '../../nodes/lib/runtime/common/refusal-burst';
import { MAX_SENSORS_LISTED, MAX_STORED_LINE_CHARS } from '../../nodes/lib/engine/common/limits';

const MIN = 60_000;
const HOUR = 3_600_000;

describe("easy-peak month's peaks", () => {
  const zones = ['Europe/Brussels', 'Atlantic/Azores', 'Australia/Lord_Howe', 'America/Havana'];
  it('kept as peaks only, window by window, equal monthlyPeaks over every window of the month (any top, distinct days or not)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(15 as const, 30 as const, 60 as const),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.array(fc.record({ kw: fc.integer({ min: 0, max: 8 }), complete: fc.boolean() }), { minLength: 1, maxLength: 300 }),
        (timezone, minutes, top, distinctDays, loads) => {
          const rank = { timezone, top, distinctDays, when: null };
          let at = Date.parse('2026-03-27T20:00:00Z') + 7 * HOUR * (loads.length % 5);
          const windows: DemandWindow[] = [];
          let month: MonthPeaks | null = null;
          for (const l of loads) {
            const w = demandWindowOf(at, timezone, minutes);
            const window = { ...w, kw: l.kw, energy: (l.kw * (w.to - w.from)) / HOUR, complete: l.complete };
            windows.push(window);
            month = addClosedWindow(month, window, rank).month;
            at = w.to + (l.kw === 0 ? 5 * HOUR : 0); // some gaps
          }
          const all = monthlyPeaks(windows, { timezone, top, distinctDays });
          const last = all[all.length - 1];
          should(month!.from).equal(last.from);
          should(month!.peaks).eql(last.peaks.map((p) => ({ from: p.from, to: p.to, kw: p.kw })));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('easy-peak stored state', () => {
  const scope: WindowScope = {
    timezone: 'Europe/Brussels',
    minutes: 15,
    top: 2,
    distinctDays: false,
    when: null,
    maxPowerKw: 10_000,
    maxGapMs: Infinity,
  };
  const t0 = Date.parse('2026-03-04T09:00:00Z');
  /** This machine's monotonic clock at the save and at the restart (any origin: it restarts with the process). */
  const MONO = 5_000;
  const CLOCKS = { now: t0 + 41 * MIN, mono: MONO };
  const withoutClocks = (ms: MeterPeaks[]) => ms.map(({ clock: _clock, ...m }) => m);

  function meters() {
    const a = newMeter({ gateway: '__proto__', topic: 'constructor' }, 'kWh');
    const b = newMeter({ gateway: null, topic: null }, 'kWh');
    for (let i = 0; i <= 40; i++) {
      advanceMeter(a, { ts: t0 + i * MIN, value: 10 + i * 0.1 }, scope);
      advanceMeter(b, { ts: t0 + i * MIN, value: 5 + i * 0.05 * (i % 3) }, scope);
    }
    return [a, b];
  }

  it('reads back what it wrote, ids such as __proto__ included; the months before and the learned shed load too', () => {
    const site = newSite();
    const jan = Date.parse('2026-01-01T00:00:00+01:00');
    const feb = Date.parse('2026-02-01T00:00:00+01:00');
    site.history = [
      { from: jan, value: 4.25 },
      { from: feb, value: null },
    ];
    const guard = {
      state: 'shed' as const,
      changedAt: t0 + 30 * MIN,
      learnedKw: 5.9,
      shed: { window: t0 + 30 * MIN, at: t0 + 30 * MIN + 10_000, powerKw: 12.5, learned: true },
    };
    const stored = encodePeaks(meters(), site, guard, scope, CLOCKS);
    const back = decodePeaks(JSON.parse(JSON.stringify(stored)), { ...scope, maxMeters: 128 }, t0 + 41 * MIN, MONO);
    should(back.problem).equal(null);
    should(withoutClocks(back.meters)).eql(withoutClocks(meters()));
    // no clock was known: the newest reading's age is judged by its stamp, as if it arrived then
    should(back.meters.map((m) => m.clock!.arrived)).eql([MONO - MIN, MONO - MIN]);
    should(back.guard).eql(guard);
    should(back.site!.history).eql(site.history);
    // tampered: months out of order, a month that is not one, a negative value, a learned load of -1: the site or the guard dropped, said
    const line = JSON.parse(stored.site);
    for (const [at, bad, what] of [
      [6, [feb, 1, jan, 2], "the site's peaks"],
      [6, [feb + 1, 1], "the site's peaks"],
      [6, [jan, -3], "the site's peaks"],
      [7, [-1, null], "the guard's state"],
    ] as const) {
      const tampered = [...line];
      tampered[at] = bad;
      const read = decodePeaks({ ...stored, site: JSON.stringify(tampered) }, { ...scope, maxMeters: 128 }, t0 + 41 * MIN, MONO);
      should(read.problem).match(new RegExp(what));
    }
  });

  it('reads back a meter of any name the node counted; a line longer than MAX_STORED_LINE_CHARS is dropped unparsed', () => {
    const now = t0 + 41 * MIN;
    const named = (topic: string) => {
      const m = newMeter({ gateway: 'G', topic }, 'kWh');
      for (let i = 0; i <= 3; i++) advanceMeter(m, { ts: t0 + i * MIN, value: 10 + i * 0.1 }, scope);
      return m;
    };
    const long = named('t'.repeat(5_000)); // an MQTT-ish topic: counted, so stored, so read back
    const stored = encodePeaks([long], newSite(), { state: 'restore', changedAt: t0 }, scope, CLOCKS);
    const back = decodePeaks(JSON.parse(JSON.stringify(stored)), { ...scope, maxMeters: 128 }, now, MONO);
    should(back.problem).equal(null);
    should(withoutClocks(back.meters)).eql(withoutClocks([long]));
    const fits = encodePeaks(
      [named('f'.repeat(MAX_STORED_LINE_CHARS - 200))],
      newSite(),
      { state: 'restore', changedAt: t0 },
      scope,
      CLOCKS,
    );
    should(fits.meters[0].length).be.belowOrEqual(MAX_STORED_LINE_CHARS);
    should(decodePeaks(fits, { ...scope, maxMeters: 128 }, now, MONO).meters).have.length(1);
    const huge = encodePeaks([named('h'.repeat(MAX_STORED_LINE_CHARS))], newSite(), { state: 'restore', changedAt: t0 }, scope, CLOCKS);
    should(decodePeaks(huge, { ...scope, maxMeters: 128 }, now, MONO)).match({
      meters: [],
      problem: 'stored peaks: dropped meter line 1 (failed its checks)',
    });
  });

  it('drops each tampered part on its own, with one warning naming them', () => {
    const good = encodePeaks(meters(), newSite(), { state: 'restore', changedAt: t0 }, scope, CLOCKS);
    const now = t0 + 41 * MIN;
    const line = (i: number) => JSON.parse(good.meters[i]) as unknown[];
    const tamper: Array<[string, (l: unknown[]) => void]> = [
      ['a string for a number', (l) => (l[3] = '12')],
      ['a reading more than a year ahead', (l) => (l[2] = now + 2 * 366 * 24 * 3600_000)],
      ['a huge timestamp', (l) => (l[2] = 1e300)],
      ['energy NaN', (l) => (l[6] = null)],
      ['covered from after the reading', (l) => (l[7] = (l[2] as number) + 1)],
      ['a peak that is no window', (l) => ((l[9] as number[])[0] += 1)],
      ['too many peaks', (l) => (l[9] = [...(l[9] as number[]), ...(l[9] as number[]), ...(l[9] as number[])])],
      ['a negative power', (l) => (l[5] = -1)],
      ['an empty gateway name', (l) => (l[0] = '')],
      ['a line too short', (l) => l.splice(9)],
      ['a power start far back', (l) => ((l[4] = -1e15), (l[5] = 1))],
      ['a clock lag as text', (l) => (l[10] = '360000')],
      ['a clock two days slow', (l) => (l[10] = 2 * 24 * HOUR)],
      ['a clock an hour fast', (l) => (l[10] = -HOUR)],
      ['a line too long', (l) => l.push(0)],
      ['a held reading more than a year ahead', (l) => (l[11] = [[now + 2 * 366 * 24 * HOUR, 1]])],
      ['a held reading before the newest', (l) => (l[11] = [[(l[2] as number) - 1, 1]])],
      [
        'held readings out of order',
        (l) =>
          (l[11] = [
            [(l[2] as number) + 2, 1],
            [(l[2] as number) + 1, 1],
          ]),
      ],
      ['four held readings', (l) => (l[11] = [1, 2, 3, 4].map((i) => [(l[2] as number) + i, 0]))],
      ['a held value as text', (l) => (l[11] = [[(l[2] as number) + 1, '0']])],
    ];
    for (const [what, change] of tamper) {
      const bad = line(0);
      change(bad);
      const stored = { ...good, meters: [JSON.stringify(bad), good.meters[1]] };
      const back = decodePeaks(stored, { ...scope, maxMeters: 128 }, now, MONO);
      should(back.meters.map((m) => m.topic)).eql([null], what);
      should(back.problem).equal('stored peaks: dropped meter line 1 (failed its checks)', what);
    }
    const twice = decodePeaks(
      { ...good, meters: [good.meters[0], good.meters[0], 'not json', 42] },
      { ...scope, maxMeters: 128 },
      now,
      MONO,
    );
    should(twice.problem).equal(
      'stored peaks: dropped meter __proto__/constructor (twice); meter line 3 (failed its checks); meter line 4 (failed its checks)',
    );
    should(decodePeaks({ ...good, scope: '["UTC",15,2,false,null]' }, { ...scope, maxMeters: 128 }, now, MONO)).match({
      meters: [],
      problem: /other settings/,
    });
    // the site: a closedUntil far ahead would drop every later window; a pending window it covers would count twice
    const siteLine = JSON.parse(good.site) as unknown[];
    const withSite = (change: (l: unknown[]) => void) => {
      const l = JSON.parse(JSON.stringify(siteLine)) as unknown[];
      change(l);
      return decodePeaks({ ...good, site: JSON.stringify(l) }, { ...scope, maxMeters: 128 }, now, MONO);
    };
    should(withSite(() => undefined).problem).be.null();
    for (const [what, change] of [
      ['closedUntil huge', (l: unknown[]) => (l[3] = 1e15)],
      ['closedUntil far back', (l: unknown[]) => (l[3] = -1e15)],
      ['a pending window already closed', (l: unknown[]) => ((l[2] = [t0, 1, 1, 1]), (l[3] = t0 + 15 * MIN))],
    ] as const) {
      const back = withSite(change);
      should(back.site === null).be.true(what);
      should(back.problem).equal("stored peaks: dropped the site's peaks (failed their checks)", what);
    }
    should(decodePeaks('garbage', { ...scope, maxMeters: 128 }, now, MONO)).match({ meters: [], problem: /unreadable/ });
    const over = decodePeaks(good, { ...scope, maxMeters: 1 }, now, MONO);
    should(over.meters).have.length(1);
    should(over.problem).match(/meter line 2 \(over the meter limit\)/);
  });

  it('keeps the held suspects: replayed through advanceMeter from the restored meter, they are held again', () => {
    const [a] = meters();
    const newest = a.last!;
    should(advanceMeter(a, { ts: newest.ts + 10_000, value: 0 }, scope).held).equal('low');
    should(advanceMeter(a, { ts: newest.ts + 20_000, value: -1 }, scope).held).equal('low');
    const stored = encodePeaks([a], newSite(), { state: 'restore', changedAt: t0 }, scope, CLOCKS);
    should(JSON.parse(stored.meters[0])[11]).eql([
      [newest.ts + 10_000, 0],
      [newest.ts + 20_000, -1],
    ]);
    const back = decodePeaks(JSON.parse(JSON.stringify(stored)), { ...scope, maxMeters: 128 }, t0 + 41 * MIN, MONO);
    should(back.problem).equal(null);
    should(back.held).have.length(1);
    const m = back.held[0].meter;
    should(m.judge).eql({ lastTs: newest.ts, lastValue: newest.value, held: [] });
    for (const [ts, value] of back.held[0].rows) should(advanceMeter(m, { ts, value }, scope).held).equal('low');
    should(m.judge).eql(a.judge);
    // the next reading back at the level: both were glitches, nothing counted twice
    const next = advanceMeter(m, { ts: newest.ts + 30_000, value: newest.value + 0.05 }, scope);
    should(next.glitches!.map((g) => g.value)).eql([0, -1]);
    should(m.power!.kw).be.approximately(0.05 / (30_000 / HOUR), 1e-9);
  });

  it("keeps a slow gateway clock's lag: after a restart the newest reading's age is judged as its arrival was", () => {
    const m = newMeter({ gateway: 'G', topic: 'e1.kwh' }, 'kWh');
    const SLOW = 6 * MIN;
    let mono = 0;
    // readings every 10 s for 10 minutes, stamped 6 minutes behind this machine's clock, arriving as sent
    for (let i = 0; i <= 60; i++) {
      const ts = t0 + i * 10_000;
      mono = 1_000 + i * 10_000;
      advanceMeter(m, { ts, value: 10 + i * 0.01 }, scope);
      m.clock = arrive(m.clock, ts, mono);
    }
    const now = t0 + 10 * MIN + SLOW; // the wall clock at the last arrival
    should(isFresh(m, mono, 5 * MIN)).be.true();
    const stored = encodePeaks([m], newSite(), { state: 'restore', changedAt: t0 }, scope, { now, mono });
    should(JSON.parse(stored.meters[0])[10]).equal(SLOW);
    // restarted a minute later (the monotonic clock starts again, here at 7): fresh for 4 more minutes
    const read = (s: typeof stored) => decodePeaks(JSON.parse(JSON.stringify(s)), { ...scope, maxMeters: 128 }, now + MIN, 7);
    const back = read(stored).meters[0];
    should(back.clock!.arrived).equal(7 - MIN);
    should(isFresh(back, 7 + 4 * MIN, 5 * MIN)).be.true();
    should(isFresh(back, 7 + 4 * MIN + 1, 5 * MIN)).be.false();
    // a line of before (10 fields, no lag): judged by its stamp, 7 minutes old, stale
    const before = read({ ...stored, meters: [JSON.stringify(JSON.parse(stored.meters[0]).slice(0, 10))] });
    should(before.problem).equal(null);
    should(isFresh(before.meters[0], 7, 5 * MIN)).be.false();
  });
});

describe('easy-peak stream: 20,000 meters', () => {
  it('counts 128, refuses the rest with one error for the burst, and the counted ones lose nothing', async () => {
    const t0 = Date.parse('2026-03-04T09:00:00Z');
    const stream = new PeakStream({
      timezone: 'Europe/Brussels',
      settings: peakSettings({}),
      store: { load: async () => undefined, save: async () => undefined },
      warn: () => undefined,
      onGuard: () => undefined,
    });
    await stream.restore();
    const bursts: Array<Promise<Error | null>> = [];
    let counted = 0;
    for (let m = 0; m < 20_000; m++) {
      try {
        if (await stream.handle({ topic: m === 3 ? '__proto__' : `e${m}.kwh`, gateway: 'constructor', payload: 5, ts: t0 }, t0)) counted++;
      } catch (err) {
        should(err).be.instanceOf(RefusedReading);
        bursts.push((err as RefusedReading).burst);
      }
    }
    should(counted).equal(128);
    await stream.close(); // ends the burst
    const errors = (await Promise.all(bursts)).filter((e): e is Error => e !== null);
    should(errors).have.length(1);
    should(errors[0].message).match(/^meter limit reached: 19,872 sensors ignored, "constructor\/e128.kwh" the first/);
    const again = await stream.handle({ topic: '__proto__', gateway: 'constructor', payload: 5.2, ts: t0 + MIN }, t0 + MIN);
    should(again!.payload.meter).match({ name: 'constructor/__proto__', window: { energy: 0.2 } });
  });

  it('sensors that are no meter, 20,000 of them twice: one warning each for the first 1,000, then one for the rest', async () => {
    const t0 = Date.parse('2026-03-04T09:00:00Z');
    const warnings: string[] = [];
    const stream = new PeakStream({
      timezone: 'Europe/Brussels',
      settings: peakSettings({}),
      store: { load: async () => undefined, save: async () => undefined },
      warn: (w) => warnings.push(w),
      onGuard: () => undefined,
    });
    await stream.restore();
    for (let round = 0; round < 2; round++)
      for (let m = 0; m < 20_000; m++) {
        const payload = { id: `e${m}.v1`, value: 230, ts: t0 + round * MIN, unit: 'V' };
        should(await stream.handle({ topic: `e${m}.v1`, gateway: 'G', payload }, t0 + MIN)).be.null();
      }
    await stream.close();
    should(warnings).have.length(MAX_SENSORS_LISTED + 1);
    should(new Set(warnings).size).equal(MAX_SENSORS_LISTED + 1);
    should(warnings[0]).equal(
      'easy-peak ignores sensor G/e0.v1: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
    );
    should(warnings[MAX_SENSORS_LISTED]).match(/^easy-peak ignores more than 1,000 sensors that are not energy meters in kWh/);
  });
});
