// cheapestWindows with a minimum block against a brute force: every subset of half-hour
// cells (the algorithm's grid is often a whole hour, so this also checks that an optimum
// lies on its coarser grid), each cell priced by the test's own rule evaluation.
import should from 'should';
import fc from 'fast-check';
import moment from 'moment-timezone';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { MAX_PLAN_WORK } from '../../nodes/lib/engine/common/limits';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { dataRecord } from '../../nodes/lib/engine/common/id-map';
import type { SensorValues } from '../../nodes/lib/engine/tariff/price';
import { FC, slowPrice, workdayTariff } from './engine-fixtures';
import { planSettings } from '../../nodes/lib/runtime/plan/plan-settings';
import { planPreview } from '../../nodes/lib/runtime/plan/plan-planner';

const HALF = 1_800_000;
const HOUR = 3_600_000;
const ZONES = ['Europe/London', 'Atlantic/Azores', 'America/Santiago'];
/** Days with a clock change 2024-2027 in the zones above (their changes fall on whole UTC hours). */
const CHANGES = ZONES.flatMap((zone) => {
  const z = moment.tz.zone(zone)!;
  const out: Array<{ zone: string; at: number }> = [];
  for (let i = 0; i + 1 < z.untils.length; i++) {
    if (z.untils[i] >= Date.UTC(2024, 0, 1) && z.untils[i] < Date.UTC(2028, 0, 1)) out.push({ zone, at: z.untils[i] });
  }
  return out;
});

/** Fewest cells short of `need` and cheapest among those, over every subset whose runs are all >= m cells. */
function brute(prices: Array<number | null>, need: number, m: number): { count: number; cost: number } {
  let best = { count: 0, cost: 0 };
  for (let mask = 1; mask < 1 << prices.length; mask++) {
    let count = 0;
    let cost = 0;
    let run = 0;
    let ok = true;
    for (let c = 0; c <= prices.length && ok; c++) {
      if (c < prices.length && (mask >> c) & 1) {
        if (prices[c] === null) ok = false;
        else {
          count++;
          cost += prices[c]!;
          run++;
        }
      } else {
        if (run > 0 && run < m) ok = false;
        run = 0;
      }
    }
    if (!ok || count > need) continue;
    if (count > best.count || (count === best.count && cost < best.cost - 1e-9)) best = { count, cost };
  }
  return best;
}

describe('cheapestWindows with minBlock', () => {
  const caseArb = fc
    .record({
      change: fc.nat({ max: CHANGES.length - 1 }),
      shiftHours: fc.integer({ min: -4, max: 1 }),
      cells: fc.integer({ min: 2, max: 13 }),
      needShare: fc.double({ min: 0, max: 1, noNaN: true }),
      minShare: fc.double({ min: 0, max: 1, noNaN: true }),
      wholeHours: fc.boolean(),
      rules: fc.array(
        fc.record({
          price: fc.constantFrom(-0.05, 0.1, 0.24, 0.3, 0.5),
          priority: fc.integer({ min: 0, max: 3 }),
          at: fc.tuple(fc.integer({ min: -2, max: 8 }), fc.integer({ min: -2, max: 8 })),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      fallback: fc.boolean(),
      maxPrice: fc.option(fc.constantFrom(0.1, 0.3), { nil: undefined }),
    })
    .map((c) => {
      const { zone, at } = CHANGES[c.change];
      const from = Math.floor(at / HOUR) * HOUR + c.shiftHours * HOUR;
      const cells = c.wholeHours ? c.cells - (c.cells % 2) : c.cells;
      const to = from + cells * HALF;
      const unit = c.wholeHours ? 2 : 1;
      const need = Math.max(unit, Math.round((c.needShare * cells) / unit) * unit);
      const m = Math.max(1, Math.min(need, Math.round(c.minShare * need)));
      const rules: Rule[] = c.rules.map((r) => ({
        priority: r.priority,
        price: r.price,
        time_start: moment.tz(from + r.at[0] * HOUR, zone).format('HH:mm'),
        time_end: moment.tz(from + r.at[1] * HOUR, zone).format('HH:mm'),
      }));
      if (c.fallback) rules.push({ priority: 9, price: 0.7 });
      const tariff: Tariff = { id: 'P', name: 'plan', vat: 20, currency: 'EUR', rules };
      return { zone, from, to, need: Math.min(need, cells), m, tariff, maxPrice: c.maxPrice };
    });

  it('plans as cheaply and as much as every subset of half-hour cells allows, each block >= minBlock (property, DST days)', function () {
    this.timeout(120_000);
    let runs = 0;
    let short = 0;
    fc.assert(
      fc.property(caseArb, ({ zone, from, to, need, m, tariff, maxPrice }) => {
        const sensors = dataRecord<Record<string, number>>() as SensorValues;
        const prices: Array<number | null> = [];
        for (let t = from; t < to; t += HALF) {
          const p = slowPrice(tariff, t, zone, sensors);
          prices.push(p === null || (maxPrice !== undefined && p > maxPrice) ? null : p);
        }
        const plan = cheapestWindows(tariff, { timezone: zone, from, to, duration: need * HALF, minBlock: m * HALF, maxPrice, sensors });
        const expected = brute(prices, need, m);
        should(plan.planned).equal(expected.count * HALF);
        should(plan.costPerKw.net).be.approximately(expected.cost / 2, 1e-9);
        for (const s of plan.slots) {
          should(s.to - s.from).be.aboveOrEqual(m * HALF);
          for (let t = s.from; t < s.to; t += HALF) should(prices[(t - from) / HALF]).not.be.null();
        }
        should(plan.shortfall === null).equal(expected.count === need);
        if (expected.count < need) short++;
        runs++;
      }),
      { ...FC, numRuns: 400 },
    );
    console.log(`      minBlock vs subset brute force: ${runs} runs, ${short} short`);
  });

  it('the worked example: 3 h in blocks of at least 1 h 30 min', () => {
    // 00-02 0.1, 02-03 0.5, 03-04 0.1, 04-06 0.3 (UTC = London in January)
    const tariff: Tariff = {
      id: 'W',
      name: 'w',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.1, time_start: '00:00', time_end: '02:00' },
        { priority: 0, price: 0.5, time_start: '02:00', time_end: '03:00' },
        { priority: 0, price: 0.1, time_start: '03:00', time_end: '04:00' },
        { priority: 0, price: 0.3, time_start: '04:00', time_end: '06:00' },
      ],
    };
    const base = { timezone: 'Europe/London', from: '2026-01-05T00:00:00Z', to: '2026-01-05T06:00:00Z', duration: 3 * HOUR };
    // without a minimum: 00-02 and 03-04 at 0.1
    should(cheapestWindows(tariff, base).costPerKw.net).be.approximately(0.3, 1e-12);
    const plan = cheapestWindows(tariff, { ...base, minBlock: 1.5 * HOUR });
    // 03-04 alone is too short: 1.5 h of 00-02 and 03:00-04:30 (0.15 + 0.25) beat 00-03 (0.7)
    should(plan.slots.length).equal(2);
    should(plan.slots[0].to - plan.slots[0].from).equal(1.5 * HOUR);
    should(plan.slots[0].to).be.belowOrEqual(Date.parse('2026-01-05T02:00:00Z'));
    should(plan.slots[1]).containDeep({ from: Date.parse('2026-01-05T03:00:00Z'), to: Date.parse('2026-01-05T04:30:00Z') });
    should(plan.costPerKw.net).be.approximately(0.1 * 1.5 + 0.1 + 0.3 * 0.5, 1e-12);
    should(plan.shortfall).be.null();
    // contiguous ignores the minimum block
    should(cheapestWindows(tariff, { ...base, contiguous: true, minBlock: 5 * HOUR }).planned).equal(3 * HOUR);
  });

  it('refuses bad input, and a search beyond its work cap, with messages that say why', () => {
    const tariff = workdayTariff();
    const base = { timezone: 'Europe/London', from: '2026-01-01T00:00:00Z', to: '2026-01-01T07:00:00Z', duration: HOUR };
    should(() => cheapestWindows(tariff, { ...base, minBlock: 2 * HOUR })).throw(
      'the minimum block (2 h) is longer than the duration (1 h)',
    );
    should(() => cheapestWindows(tariff, { ...base, minBlock: 'long' as unknown as number })).throw(
      'minBlock must be 0 or a positive number of milliseconds, got the string "long"',
    );
    should(() => cheapestWindows(tariff, { ...base, minBlock: '3600000' as unknown as number })).throw(/got the string "3600000"$/);
    // a negative or infinite minimum is a mistake, not "no minimum"
    should(() => cheapestWindows(tariff, { ...base, minBlock: -1 })).throw(
      /minBlock must be 0 or a positive number of milliseconds, got -1$/,
    );
    should(() => cheapestWindows(tariff, { ...base, minBlock: -Infinity })).throw(/got -Infinity$/);
    // the duration as it is, not rounded to seconds
    should(() => cheapestWindows(tariff, { ...base, duration: 1, minBlock: HOUR })).throw(
      'the minimum block (1 h) is longer than the duration (0.001 s)',
    );
    // an instant between two ms: the window is taken inside it, whole ms, and plans as any other
    const fractional = { ...base, from: Date.parse(base.from) + 0.5, to: Date.parse(base.to) - 0.25, minBlock: HOUR };
    should(cheapestWindows(tariff, fractional)).match({ from: Date.parse(base.from) + 1, to: Date.parse(base.to) - 1, planned: HOUR });
    should(cheapestWindows(tariff, { ...base, minBlock: 0 }).planned).equal(HOUR);
    // a window from an arbitrary instant plans on the grid of price changes, exact to the millisecond
    const odd = { ...base, from: '2026-01-01T00:17:23.456Z', to: '2026-01-02T12:00:00.001Z', duration: 20 * HOUR, minBlock: HOUR };
    const plan = cheapestWindows(tariff, odd);
    should(plan).match({ from: Date.parse('2026-01-01T00:17:23.456Z'), to: Date.parse('2026-01-02T12:00:00.001Z'), planned: 20 * HOUR });
    // values below the resolution are errors, not a search on a finer grid
    should(() => cheapestWindows(tariff, { ...base, duration: 0.6 })).throw("duration (0.6 ms) is below the plan's resolution of 1 ms");
    should(() => cheapestWindows(tariff, { ...base, minBlock: 0.6 })).throw("minBlock (0.6 ms) is below the plan's resolution of 1 ms");
    // a minimum block that lines up with the hourly prices only every second: refused before any work, saying why
    const week = { ...base, from: '2026-01-05T00:00:00Z', to: '2026-01-13T00:00:00Z', duration: 100 * HOUR, minBlock: HOUR + 7000 };
    should(() => cheapestWindows(tariff, week)).throw(
      /^this plan needs [\d,]+ search steps, more than 8,000,000: prices and the minimum block line up only every 1 s/,
    );
    // nor can a tiny minimum: 1 ms blocks over a day of 20 h are refused at once, a few ms planned exactly
    should(() => cheapestWindows(tariff, { ...odd, minBlock: 1 })).throw(/line up only every 1 ms/);
    const second = { ...odd, to: Date.parse(odd.from) + 1000, duration: 7, minBlock: 2 };
    should(cheapestWindows(tariff, second).slots).eql([{ from: Date.parse(odd.from), to: Date.parse(odd.from) + 7, price: 0.6 }]);
    should(MAX_PLAN_WORK).equal(8_000_000);
  });
});

describe('easy-plan settings with a minimum block', () => {
  it('reads minBlockHours/Minutes for split plans, ignores them in one block, refuses one longer than the run', () => {
    const base = { durationHours: 3, durationMinutes: 0, mode: 'daily', from: '22:00', until: '07:00' };
    should(planSettings({ ...base, minBlockHours: 1, minBlockMinutes: 30 }).minBlockMs).equal(90 * 60_000);
    should(planSettings({ ...base }).minBlockMs).equal(0);
    // a node saved before the field existed, or the dialog's emptied inputs
    should(planSettings({ ...base, minBlockHours: '', minBlockMinutes: '' }).minBlockMs).equal(0);
    should(planSettings({ ...base, minBlockHours: null, minBlockMinutes: undefined }).minBlockMs).equal(0);
    should(planSettings({ ...base, contiguous: true, minBlockHours: 5 }).minBlockMs).equal(0);
    should(() => planSettings({ ...base, minBlockHours: 4 })).throw(/minimum block \(4 h\) is longer than the duration \(3 h\)/);
    should(() => planSettings({ ...base, minBlockMinutes: 75 })).throw(/minimum block \(minutes\)/);
  });

  it('the dialog preview plans with the minimum: split slots of half an hour become one block of at least an hour', () => {
    const tariff = {
      id: 'HALF-HOURS',
      name: 'two cheap half hours',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 1, price: 0.1, time_start: '01:00', time_end: '01:30' },
        { priority: 1, price: 0.1, time_start: '04:00', time_end: '04:30' },
        { priority: 2, price: 0.3 },
      ],
    };
    const now = Date.parse('2026-03-02T00:00:00Z');
    const config = { durationHours: 1, durationMinutes: 0, mode: 'rolling', hours: 24 };
    const free = planPreview(tariff, config, now, now + 86_400_000, { timezone: 'UTC' });
    should(free.error).be.null();
    should(free.slots.map((x) => (x.to - x.from) / 60_000)).eql([30, 30]);
    const blocked = planPreview(tariff, { ...config, minBlockHours: 1 }, now, now + 86_400_000, { timezone: 'UTC' });
    should(blocked.error).be.null();
    // one block of an hour, half of it in a cheap half hour (0.2 per kW): 00:30, 01:00, 03:30 and 04:00 tie
    should(blocked.slots).have.length(1);
    const [only] = blocked.slots;
    should(only.to - only.from).equal(3_600_000);
    should(only.price).be.approximately(0.2, 1e-12);
  });
});
