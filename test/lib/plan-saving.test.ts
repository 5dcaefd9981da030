// savingOffWindows against a brute force over every on/off assignment of small windows
// (plan-reference.ts), on DST nights, negative prices, sensor rules and windows from
// arbitrary instants; then the worked example and bad input.
import should from 'should';
import fc from 'fast-check';
import { savingOffWindows } from '../../nodes/lib/engine/plan/plan-saving';
import moment from 'moment-timezone';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC } from './engine-fixtures';
import { cellCaseArb, cellPrices, referenceSaving, runsOf } from './plan-reference';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** A price for every step of a grid from `levels`: many drops to switch off before. */
const gridCaseArb = (levels: number[], steps: number[], long?: [number, number], units = [1000, 60_000]) =>
  fc
    .record({
      base: cellCaseArb(12, [-6, 3]),
      step: fc.constantFrom(...steps),
      prices: fc.array(fc.constantFrom(...levels), { minLength: 16, maxLength: 16 }),
      unit: fc.constantFrom(...units),
      cells: fc.integer({ min: long?.[0] ?? 1, max: long?.[1] ?? 12 }),
    })
    .map(({ base, step, prices, unit, cells }) => {
      // a long window of whole seconds or minutes (the rules' clock times have no finer unit), or the case's own
      const c = long === undefined ? base : { ...base, unit, cells, from: Math.floor(base.from / unit) * unit };
      const anchor = c.from; // the window starts on this grid, or (below) off it
      const clock = (k: number) => moment.tz(anchor + (k - 3) * step * c.unit, c.zone).format('HH:mm:ss');
      const rules: Rule[] = prices.map((price, k) => ({ priority: 0, price, time_start: clock(k), time_end: clock(k + 1) }));
      return {
        ...c,
        from: anchor + (c.cells % 2) * c.unit,
        tariff: { ...c.tariff, rules: [...rules, { priority: 9, price: 0.75 }] },
      };
    });

describe('savingOffWindows', () => {
  const settings = {
    maxOff: fc.integer({ min: 1, max: 8 }),
    minOff: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    minOn: fc.integer({ min: 1, max: 4 }),
    minSaving: fc.constantFrom<number>(0, 0, 0.25, 0.5),
    percent: fc.constantFrom(0, 0, 50, 100, 150),
    recoveryMax: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  };
  const arb = fc.record({
    c: fc.oneof(gridCaseArb([-0.125, 0.25, 0.5, 1, 1.5], [1, 2, 3]), gridCaseArb([0.5, 1], [1], [8, 12]), cellCaseArb(12, [-6, 3])),
    ...settings,
  });
  type Case = typeof arb extends fc.Arbitrary<infer T> ? T : never;
  const seen = {
    cases: 0,
    withOff: 0,
    twoOrMore: 0,
    recovery: 0,
    minutes: 0,
    minOffBinds: 0,
    recoveryAtEnd: 0,
    fewerPeriods: 0,
    averageDiffers: 0,
  };
  after(() => console.log(`      savingOffWindows vs brute force: ${JSON.stringify(seen)}`));

  /** A case's rules in ms and savingOffWindows' plan of it. */
  const planCase = ({ c, maxOff, minOff, minOn, minSaving, percent, recoveryMax }: Case, minSavingOf?: 'average') => {
    const rules = {
      maxOff: maxOff * c.unit,
      minOff: minOff === undefined ? undefined : Math.min(minOff, maxOff) * c.unit,
      minOn: minOn * c.unit,
      minSaving,
      minSavingOf,
      percent,
      recoveryMax: recoveryMax === undefined ? Infinity : recoveryMax * c.unit,
    };
    const plan = savingOffWindows(c.tariff, {
      timezone: c.zone,
      sensors: c.sensors,
      from: c.from,
      to: c.from + c.cells * c.unit,
      maxOffInRow: rules.maxOff,
      minOffInRow: rules.minOff,
      minOnBetween: rules.minOn,
      minSaving,
      minSavingOf,
      recoveryPercent: percent,
      recoveryMax: recoveryMax === undefined ? undefined : rules.recoveryMax,
    });
    return { rules, plan };
  };

  /** What off runs save per kW, on prices of cells `unit` long from `from`. */
  const runsSaving = (runs: Array<{ from: number; to: number }>, prices: Array<number | null>, from: number, unit: number) => {
    let net = 0;
    for (const r of runs) {
      const resume = prices[(r.to - from) / unit]!;
      for (let t = r.from; t < r.to; t += unit) net += (prices[(t - from) / unit]! - resume) * (unit / HOUR);
    }
    return net;
  };

  /** The plan against the brute force; counts the cases the rules before issue 29 decide otherwise. */
  const checkCase = (x: Case, minSavingOf?: 'average'): void => {
    const { c, percent } = x;
    const prices = cellPrices(c);
    const { rules, plan } = planCase(x, minSavingOf);
    const expected = runsOf(referenceSaving(prices, c.unit, rules), c.from, c.unit);
    should(plan.slots.map((s) => ({ from: s.from, to: s.to }))).eql(expected);
    // each slot says until when the load stays on after it: the recovery, inside the window
    const gap = (s: { from: number; to: number }) =>
      Math.max(rules.minOn, Math.min(Math.ceil(((s.to - s.from) * percent) / 100 / MINUTE) * MINUTE, rules.recoveryMax));
    for (const s of plan.slots) should(s.recoveryEnd).equal(s.to + gap(s));
    if (plan.slots.length) should(plan.slots[plan.slots.length - 1].recoveryEnd).be.belowOrEqual(plan.to);
    const same = (other: Parameters<typeof referenceSaving>[2]) =>
      JSON.stringify(runsOf(referenceSaving(prices, c.unit, other), c.from, c.unit)) === JSON.stringify(expected);
    if (rules.minOff !== undefined && !same({ ...rules, minOff: undefined })) seen.minOffBinds++;
    if (!same({ ...rules, recoveryPastEnd: true })) seen.recoveryAtEnd++;
    if (!same({ ...rules, earliestOfEquals: true })) seen.fewerPeriods++;
    if (minSavingOf && !same({ ...rules, minSavingOf: undefined })) seen.averageDiffers++;
    const net = runsSaving(expected, prices, c.from, c.unit);
    should(plan.saving.net).be.approximately(net, 1e-9);
    should(plan.offTime).equal(expected.reduce((sum, r) => sum + r.to - r.from, 0));
    seen.cases++;
    if (expected.length) seen.withOff++;
    if (expected.length > 1) seen.twoOrMore++;
    if (percent > 0 && expected.length > 0) seen.recovery++;
    if (c.unit === MINUTE) seen.minutes++;
  };

  it('switches off exactly where the brute force over every on/off assignment saves most, with a minimum time off and the recovery inside the window (property)', function () {
    this.timeout(180_000);
    fc.assert(
      fc.property(arb, (x) => checkCase(x)),
      { ...FC, numRuns: 2500 },
    );
    should(seen.minOffBinds).be.above(100);
    should(seen.recoveryAtEnd).be.above(100);
  });

  it('of equal savings, the plan with the fewest off periods, then the earliest, as the brute force (property)', function () {
    this.timeout(180_000);
    // three prices a step, minute by minute: one off period often saves what two do
    const ties = fc.record({
      ...settings,
      c: gridCaseArb([0.5, 1, 1.5], [1], [12, 12], [MINUTE]),
      minOff: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, fc.integer({ min: 1, max: 3 })),
      minSaving: fc.constant(0),
      percent: fc.constantFrom(0, 0, 0, 100),
      recoveryMax: fc.constant(undefined),
    });
    const before = seen.fewerPeriods;
    fc.assert(
      fc.property(ties, (x) => checkCase(x)),
      { ...FC, numRuns: 1500 },
    );
    should(seen.fewerPeriods - before).be.above(50);
  });

  it("with the least saving of each off period's average (power-saver's rule), exactly where the brute force saves most (property)", function () {
    this.timeout(60_000);
    const before = seen.averageDiffers;
    // a least saving that binds: most off periods of the instant rule would be refused or cut short
    const averaged = fc.record({
      ...settings,
      // a price a minute, often apart: runs that mix cells saving more and less than asked
      c: fc.oneof({ arbitrary: gridCaseArb([-0.125, 0.25, 0.5, 1, 1.5], [1], [8, 12], [MINUTE]), weight: 3 }, cellCaseArb(12, [-6, 3])),
      maxOff: fc.integer({ min: 2, max: 8 }),
      minSaving: fc.constantFrom(0, 0.25, 0.5, 0.75),
    });
    fc.assert(
      fc.property(averaged, (x) => checkCase(x, 'average')),
      { ...FC, numRuns: 400 },
    );
    should(seen.averageDiffers - before).be.above(40);
  });

  it("with the average rule, no better plan switches between the lattice's points: the brute force on half cells saves no more (property)", function () {
    this.timeout(60_000);
    // recoveries that grow a minute every whole minute off (rule 38's caveat aside); 7 cells at most, 14 half cells
    const halves = fc.record({
      ...settings,
      c: fc.oneof(
        { arbitrary: gridCaseArb([-0.125, 0.25, 0.5, 1, 1.5], [1], [4, 7], [MINUTE]), weight: 3 },
        cellCaseArb(7, [-6, 3]).filter((c) => c.unit >= 1000),
      ),
      minSaving: fc.constantFrom(0, 0.25, 0.5, 0.75),
      percent: fc.constantFrom(0, 0, 50, 100),
    });
    let withOff = 0;
    let offBetween = 0;
    fc.assert(
      fc.property(halves, (x) => {
        const { c } = x;
        const { rules, plan } = planCase(x, 'average');
        const half = c.unit / 2;
        const prices = cellPrices(c).flatMap((p) => [p, p]);
        const runs = runsOf(referenceSaving(prices, half, rules), c.from, half);
        const net = runsSaving(runs, prices, c.from, half);
        offBetween += runs.filter((r) => (r.from - c.from) % c.unit !== 0 || (r.to - c.from) % c.unit !== 0).length;
        should(plan.saving.net).be.approximately(net, 1e-9);
        if (runs.length) withOff++;
      }),
      { ...FC, numRuns: 300 },
    );
    // equal savings go to the earliest plan: a start half a cell later would be one
    should(offBetween).equal(0);
    should(withOff).be.above(60);
  });

  it('a saving of at least minSaving holds for prices whose differences are not exact in binary (0.3 − 0.2 saves 0.1)', () => {
    // hourly decimal prices and a decimal minSaving; the reference counts whole cents, exactly
    const decimal = fc.array(fc.integer({ min: 0, max: 130 }), { minLength: 3, maxLength: 9 });
    let atThreshold = 0;
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 3 }), (cents, minCents, maxOff) => {
        const hourly = (k: number) => `${String(k).padStart(2, '0')}:00`;
        const rules: Rule[] = cents.map((c, k) => ({ priority: 0, price: c / 100, time_start: hourly(k), time_end: hourly(k + 1) }));
        const tariff: Tariff = { id: 'D', name: 'decimal', vat: 0, currency: 'EUR', rules: [...rules, { priority: 1, price: 9 }] };
        const from = Date.parse('2026-01-05T00:00:00Z');
        const rulesOf = { maxOff: maxOff * HOUR, minOn: HOUR, minSaving: minCents, percent: 0, recoveryMax: Infinity };
        const expected = runsOf(referenceSaving(cents, HOUR, rulesOf), from, HOUR);
        const plan = savingOffWindows(tariff, {
          timezone: 'Europe/London',
          from,
          to: from + cents.length * HOUR,
          maxOffInRow: maxOff * HOUR,
          minOnBetween: HOUR,
          minSaving: minCents / 100,
        });
        should(plan.slots.map((x) => ({ from: x.from, to: x.to }))).eql(expected);
        if (cents.some((c, k) => k > 0 && cents[k - 1] - c === minCents && minCents > 0)) atThreshold++;
      }),
      { ...FC, numRuns: 1500 },
    );
    should(atThreshold).be.above(20);
    // the cases: 0.30 → 0.20 and 1.1 → 1.0 with at least 0.10 saved both switch off
    for (const [dear, cheap] of [
      [0.3, 0.2],
      [1.1, 1.0],
      [0.7, 0.6],
    ]) {
      const tariff: Tariff = {
        id: 'T',
        name: 'two',
        vat: 0,
        currency: 'EUR',
        rules: [
          { priority: 0, price: dear, time_start: '00:00', time_end: '01:00' },
          { priority: 1, price: cheap },
        ],
      };
      const plan = savingOffWindows(tariff, {
        timezone: 'UTC',
        from: '2026-01-05T00:00:00Z',
        to: '2026-01-05T02:00:00Z',
        maxOffInRow: HOUR,
        minSaving: 0.1,
      });
      should(plan.slots.map(iso)).eql([['00:00', '01:00']], `${dear} → ${cheap}`);
    }
  });

  // 16:00-17:00 0.5, 17:00-19:00 0.9, 19:00-20:00 0.3, 20:00-21:00 0.6, then 0.2 (London in January = UTC)
  const evening: Tariff = {
    id: 'E',
    name: 'evening',
    vat: 25,
    currency: 'NOK',
    rules: [
      { priority: 0, price: 0.5, time_start: '16:00', time_end: '17:00' },
      { priority: 0, price: 0.9, time_start: '17:00', time_end: '19:00' },
      { priority: 0, price: 0.3, time_start: '19:00', time_end: '20:00' },
      { priority: 0, price: 0.6, time_start: '20:00', time_end: '21:00' },
      { priority: 1, price: 0.2 },
    ],
  };
  const base = { timezone: 'Europe/London', from: '2026-01-05T16:00:00Z', to: '2026-01-05T22:00:00Z' };
  const iso = (x: { from: number; to: number }) => [
    new Date(x.from).toISOString().slice(11, 16),
    new Date(x.to).toISOString().slice(11, 16),
  ];

  it("rule 36's example of the average rule: 1, 0.9, 1, then 0.5 and a least saving of 0.45", () => {
    const hourly = (k: number) => `${String(k).padStart(2, '0')}:00`;
    const rules: Rule[] = [1, 0.9, 1].map((price, k) => ({ priority: 0, price, time_start: hourly(k), time_end: hourly(k + 1) }));
    const tariff: Tariff = { id: 'A', name: 'average', vat: 0, currency: 'EUR', rules: [...rules, { priority: 1, price: 0.5 }] };
    const options = { timezone: 'UTC', from: '2026-01-05T00:00:00Z', to: '2026-01-05T05:00:00Z', maxOffInRow: 3 * HOUR, minSaving: 0.45 };
    const average = savingOffWindows(tariff, { ...options, minSavingOf: 'average' });
    should(average.slots.map(iso)).eql([['00:00', '03:00']]);
    should(average.saving.net).be.approximately(1.4, 1e-12);
    // every instant: 0.9 saves 0.4, and 1 before it saves 0.1 against 0.9
    should(savingOffWindows(tariff, options).slots.map(iso)).eql([['02:00', '03:00']]);
  });

  it('the worked example: off in the dearest hours, at most 1 h in a row, at least 30 min on between', () => {
    const plan = savingOffWindows(evening, { ...base, maxOffInRow: HOUR, minOnBetween: 30 * MINUTE, minSaving: 0.1 });
    // 18:00-19:00 saves 0.6 (back on at 0.3); 20:00-21:00 saves 0.4 (back on at 0.2); 17:00-18:00 would resume at 0.9
    should(plan.slots.map(iso)).eql([
      ['18:00', '19:00'],
      ['20:00', '21:00'],
    ]);
    should(plan.slots[0]).match({ price: 0.9, resumePrice: 0.3 });
    should(plan.saving.net).be.approximately(1.0, 1e-12);
    should(plan.saving.gross).be.approximately(1.25, 1e-12);
    should(plan.offTime).equal(2 * HOUR);
    // 2 h in a row: 17:00-19:00 saves 1.2, but then the 1 h 30 min on (75 %) rules out 20:00
    const long = savingOffWindows(evening, { ...base, maxOffInRow: 2 * HOUR, recoveryPercent: 75 });
    should(long.slots.map(iso)).eql([
      ['17:00', '19:00'],
      ['20:30', '21:00'],
    ]);
    // a saving of at least 0.5 a kWh: only 17:00-19:00 against 0.3
    should(savingOffWindows(evening, { ...base, maxOffInRow: 3 * HOUR, minSaving: 0.5 }).slots.map(iso)).eql([['17:00', '19:00']]);
    // from "now", to the millisecond
    const now = savingOffWindows(evening, { ...base, from: '2026-01-05T18:40:00.500Z', maxOffInRow: HOUR });
    should(now.slots.map((s) => new Date(s.from).toISOString())).eql(['2026-01-05T18:40:00.500Z', '2026-01-05T20:00:00.000Z']);
  });

  it("the issue's example: the recovery after the last off period must fit in the window, and the saving is the one the load can make", () => {
    // dear all day, cheap from 23:00; off 09:00-23:00 would need 168 min of recovery (20 %), 60 remain
    const day: Tariff = {
      id: 'R',
      name: 'recovery',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.38, time_start: '09:00', time_end: '10:00' },
        { priority: 0, price: 0.4, time_start: '10:00', time_end: '18:00' },
        { priority: 0, price: 1.9, time_start: '18:00', time_end: '22:00' },
        { priority: 0, price: 2.07, time_start: '22:00', time_end: '23:00' },
        { priority: 1, price: 0.2 },
      ],
    };
    const window = { timezone: 'Europe/London', from: '2026-01-05T09:00:00Z', to: '2026-01-06T00:00:00Z', maxOffInRow: 14 * HOUR };
    // off 5 h: 60 min of recovery, 23:00-00:00
    const plan = savingOffWindows(day, { ...window, recoveryPercent: 20 });
    should(plan.slots.map(iso)).eql([['18:00', '23:00']]);
    should(plan.slots[0].recoveryEnd).equal(Date.parse('2026-01-06T00:00:00Z'));
    should(plan.saving.net).be.approximately(8.67, 1e-9);
    // without a recovery the whole dear time is off, back on for the last hour
    const free = savingOffWindows(day, window);
    should(free.slots.map(iso)).eql([['09:00', '23:00']]);
    should(free.saving.net).be.approximately(10.45, 1e-9);
    should(free.slots[0].recoveryEnd).equal(Date.parse('2026-01-05T23:01:00Z'));
  });

  it('a minimum time off: no off period shorter, even where a short one would save', () => {
    const ok = { ...base, maxOffInRow: 2 * HOUR, minOnBetween: 30 * MINUTE, minSaving: 0.2 };
    // 17:00-19:00 saves 1.2 and 20:00-21:00 0.4 (19:30-20:00 at 0.3 saves only 0.1 against 0.2)
    should(savingOffWindows(evening, ok).slots.map(iso)).eql([
      ['17:00', '19:00'],
      ['20:00', '21:00'],
    ]);
    // at least 90 min off: 20:00-21:00 is too short and cannot start earlier
    const long = savingOffWindows(evening, { ...ok, minOffInRow: 90 * MINUTE });
    should(long.slots.map(iso)).eql([['17:00', '19:00']]);
    should(long.saving.net).be.approximately(1.2, 1e-12);
    // 16:00-19:00 saves at least 0.2 too (1.4 in all); at least 3 h 30 min: nothing
    should(savingOffWindows(evening, { ...ok, maxOffInRow: 4 * HOUR, minOffInRow: 3 * HOUR }).slots.map(iso)).eql([['16:00', '19:00']]);
    should(savingOffWindows(evening, { ...ok, maxOffInRow: 4 * HOUR, minOffInRow: 210 * MINUTE }).slots).eql([]);
  });

  it('of equal savings, one off period rather than two, though the two start earlier', () => {
    const seesaw: Tariff = {
      id: 'S',
      name: 'seesaw',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 1, time_start: '10:00', time_end: '11:00' },
        { priority: 0, price: 1, time_start: '12:00', time_end: '14:00' },
        { priority: 1, price: 0.5 },
      ],
    };
    // 10:00-11:00 and 13:00-14:00 (2 h on between) save 1.0, as 12:00-14:00 does in one
    const plan = savingOffWindows(seesaw, {
      timezone: 'Europe/London',
      from: '2026-01-05T10:00:00Z',
      to: '2026-01-05T16:00:00Z',
      maxOffInRow: 2 * HOUR,
      minOnBetween: 2 * HOUR,
    });
    should(plan.slots.map(iso)).eql([['12:00', '14:00']]);
    should(plan.saving.net).be.approximately(1, 1e-12);
  });

  it('refuses bad input and a search beyond its work cap with messages that say why', () => {
    const ok = { ...base, maxOffInRow: HOUR };
    should(() => savingOffWindows(evening, { ...ok, maxOffInRow: 0 })).throw(
      /maxOffInRow must be a positive number of milliseconds|maxOffInRow \(0 ms\) is below/,
    );
    should(() => savingOffWindows(evening, { ...ok, maxOffInRow: 0.5 })).throw(
      "maxOffInRow (0.5 ms) is below the plan's resolution of 1 ms",
    );
    should(() => savingOffWindows(evening, { ...ok, minSaving: -1 })).throw('minSaving must be a number of at least 0, got -1');
    should(() => savingOffWindows(evening, { ...ok, minSavingOf: 'run' as never })).throw(
      "minSavingOf must be 'instant' or 'average', got run",
    );
    should(() => savingOffWindows(evening, { ...ok, recoveryPercent: NaN })).throw(/recoveryPercent must be a number of at least 0/);
    should(() => savingOffWindows(evening, { ...ok, minOnBetween: -5 })).throw(/minOnBetween must be a positive number/);
    should(() => savingOffWindows(evening, { ...ok, minOnBetween: 0 })).throw(/minOnBetween must be a positive number/);
    should(() => savingOffWindows(evening, { ...ok, minOffInRow: -1 })).throw(/minOffInRow must be 0 or a positive number/);
    should(() => savingOffWindows(evening, { ...ok, minOffInRow: 2 * HOUR })).throw(
      'minOffInRow (7200000 ms) is longer than maxOffInRow (3600000 ms): nothing could be switched off',
    );
    should(() => savingOffWindows(evening, { ...ok, to: '2026-01-05T15:00:00Z' })).throw('the window ends (to) before it starts (from)');
    const week = { timezone: 'Europe/London', from: '2026-01-05T00:00:00Z', to: '2026-01-13T00:00:00Z' };
    should(() => savingOffWindows(evening, { ...week, maxOffInRow: 24 * HOUR + 1000 })).throw(
      /^this plan needs [\d,]+ search steps, more than 8,000,000/,
    );
    // an empty window: nothing to switch off
    should(savingOffWindows(evening, { ...ok, to: base.from })).match({ slots: [], offTime: 0, saving: { net: 0, gross: 0 } });
  });
});
