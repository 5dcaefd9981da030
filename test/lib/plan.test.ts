// cheapestWindows against a brute force over a one-second grid: every second priced by
// the test's own per-instant rule evaluation (moment.tz), blocks and cheapest seconds
// chosen by enumeration. Short windows, placed on DST transitions half of the time,
// with rules whose times fall inside the window.
import should from 'should';
import fc from 'fast-check';
import moment from 'moment-timezone';
import { cheapestWindows, mergeSlots, PlanResult } from '../../nodes/lib/engine/plan/plan';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import type { SensorValues } from '../../nodes/lib/engine/tariff/price';
import { dataRecord, setNested } from '../../nodes/lib/engine/common/id-map';
import { FC, slowPrice, workdayTariff } from './engine-fixtures';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { offsetChanges, referenceSplit, runsOf } from './plan-reference';

const SECOND = 1000;
const HOUR = 3_600_000;
const ZONES = [
  'Europe/London',
  'Atlantic/Azores',
  'America/Havana',
  'Asia/Beirut',
  'America/Santiago',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
];
/** Every offset change 2020-2030 of the zones above, as instants. */
const CHANGES = offsetChanges(ZONES);

const hms = (zone: string, at: number) => moment.tz(at, zone).format('HH:mm:ss');

/** A slot as the test's brute force sees it: whole seconds, priced per second. */
interface Run {
  from: number;
  to: number;
}

/** The net price of each second of [from, to) (null: no price or above maxPrice). */
function pricePerSecond(
  tariff: Tariff,
  zone: string,
  from: number,
  to: number,
  sensors: SensorValues,
  maxPrice?: number,
): Array<number | null> {
  const out: Array<number | null> = [];
  for (let t = from; t < to; t += SECOND) {
    const p = slowPrice(tariff, t, zone, sensors);
    out.push(p === null || (maxPrice !== undefined && p > maxPrice) ? null : p);
  }
  return out;
}

function merge(seconds: number[], from: number): Run[] {
  const runs: Run[] = [];
  for (const s of seconds.sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last.to === from + s * SECOND) last.to += SECOND;
    else runs.push({ from: from + s * SECOND, to: from + (s + 1) * SECOND });
  }
  return runs;
}

/** Split: the cheapest seconds; equal costs to the fewest blocks, then the earliest (plan-reference.ts). */
function bruteSplit(prices: Array<number | null>, from: number, need: number): Run[] {
  return runsOf(referenceSplit(prices, need), from, SECOND);
}

/** Contiguous: every start second tried; else the longest usable run, earliest. */
function bruteBlock(prices: Array<number | null>, from: number, need: number): Run[] {
  let best: { cost: number; start: number } | null = null;
  const scale = prices.reduce<number>((m, p) => Math.max(m, Math.abs(p ?? 0)), 0) * need;
  for (let s = 0; s + need <= prices.length; s++) {
    let cost = 0;
    let ok = true;
    for (let k = s; k < s + need && ok; k++) {
      if (prices[k] === null) ok = false;
      else cost += prices[k]!;
    }
    if (ok && (!best || cost < best.cost - scale * 1e-9)) best = { cost, start: s };
  }
  if (best) return [{ from: from + best.start * SECOND, to: from + (best.start + need) * SECOND }];
  let longest: Run | null = null;
  for (const run of merge(
    prices.map((p, i) => i).filter((i) => prices[i] !== null),
    from,
  )) {
    if (!longest || run.to - run.from > longest.to - longest.from) longest = run;
  }
  return longest ? [longest] : [];
}

function totalNet(prices: Array<number | null>, from: number, runs: Run[]): number {
  let sum = 0;
  for (const r of runs) for (let t = r.from; t < r.to; t += SECOND) sum += prices[(t - from) / SECOND]!;
  return sum / 3600;
}

const shape = (r: PlanResult) => r.slots.map((s) => ({ from: s.from, to: s.to }));

describe('cheapestWindows', () => {
  // A window of up to 20 minutes on whole seconds, on a clock change half of the time;
  // rules start and end at local times inside (or near) it, some on weekdays, one on a
  // sensor whose id is "__proto__".
  const caseArb = fc
    .record({
      change: fc.nat({ max: CHANGES.length - 1 }),
      onChange: fc.boolean(),
      zone: fc.constantFrom(...ZONES),
      someInstant: fc.integer({ min: Date.UTC(2020, 0, 1) / SECOND, max: Date.UTC(2030, 11, 1) / SECOND }),
      shiftSec: fc.integer({ min: -900, max: 300 }),
      lengthSec: fc.integer({ min: 1, max: 1200 }),
      durationShare: fc.double({ min: 0, max: 1, noNaN: true }),
      rules: fc.array(
        fc.record({
          priority: fc.integer({ min: 0, max: 3 }),
          price: fc.constantFrom(-0.05, 0.1, 0.24, 0.3, 0.3, 0.5),
          at: fc.option(fc.tuple(fc.integer({ min: -300, max: 1500 }), fc.integer({ min: -300, max: 1500 })), { nil: undefined }),
          weekdays: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 5 }), { nil: undefined }),
          sensor: fc.boolean(),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      fallback: fc.boolean(),
      sensorValue: fc.constantFrom(0, 1, undefined),
      maxPrice: fc.option(fc.constantFrom(0.1, 0.24, 0.3), { nil: undefined }),
    })
    .map((c) => {
      const zone = c.onChange ? CHANGES[c.change].zone : c.zone;
      const from = (c.onChange ? Math.floor(CHANGES[c.change].at / SECOND) * SECOND : c.someInstant * SECOND) + c.shiftSec * SECOND;
      const to = from + c.lengthSec * SECOND;
      const rules: Rule[] = c.rules.map((r) => {
        const rule: Rule = { priority: r.priority, price: r.price };
        if (r.at) Object.assign(rule, { time_start: hms(zone, from + r.at[0] * SECOND), time_end: hms(zone, from + r.at[1] * SECOND) });
        if (r.weekdays) rule.weekdays = r.weekdays;
        if (r.sensor) Object.assign(rule, { gateway_id: 'gw', sensor_id: '__proto__', sensor_value: 1, sensor_condition: 'eq' });
        return rule;
      });
      if (c.fallback) rules.push({ priority: 9, price: 0.7 });
      const sensors = dataRecord<Record<string, number>>();
      if (c.sensorValue !== undefined) setNested(sensors, 'gw', '__proto__', c.sensorValue);
      const durationSec = Math.max(1, Math.round(c.durationShare * c.lengthSec));
      const tariff: Tariff = { id: 'P', name: 'plan', vat: 20, currency: 'EUR', rules };
      return { zone, from, to, durationSec, tariff, sensors: sensors as SensorValues, maxPrice: c.maxPrice };
    });

  let checked = { split: 0, contiguous: 0, onChange: 0, short: 0 };
  after(() => console.log(`      cheapestWindows vs one-second brute force: ${JSON.stringify(checked)}`));

  it('split and contiguous plans equal a brute force over a one-second grid (property, DST days)', function () {
    this.timeout(120_000);
    checked = { split: 0, contiguous: 0, onChange: 0, short: 0 };
    fc.assert(
      fc.property(caseArb, ({ zone, from, to, durationSec, tariff, sensors, maxPrice }) => {
        const prices = pricePerSecond(tariff, zone, from, to, sensors, maxPrice);
        if (CHANGES.some((c) => c.zone === zone && c.at >= from && c.at < to)) checked.onChange++;
        for (const contiguous of [false, true]) {
          const plan = cheapestWindows(tariff, { timezone: zone, from, to, duration: durationSec * SECOND, contiguous, maxPrice, sensors });
          const expected = contiguous ? bruteBlock(prices, from, durationSec) : bruteSplit(prices, from, durationSec);
          should(shape(plan)).eql(expected);
          // the pieces: one price each (the test's own, second by second), and together the slots
          for (const piece of plan.pieces) {
            for (let t = piece.from; t < piece.to; t += SECOND) should(prices[(t - from) / SECOND]).equal(piece.price);
          }
          should(mergeSlots(plan.pieces).map((x) => ({ from: x.from, to: x.to }))).eql(expected);
          const planned = expected.reduce((s, r) => s + r.to - r.from, 0);
          should(plan.planned).equal(planned);
          should(plan.requested).equal(durationSec * SECOND);
          should(plan.costPerKw.net).be.approximately(totalNet(prices, from, expected), 1e-9);
          should(plan.shortfall === null).equal(planned === durationSec * SECOND);
          if (planned < durationSec * SECOND) checked.short++;
          checked[contiguous ? 'contiguous' : 'split']++;
        }
      }),
      FC,
    );
  });

  it('the worked example: 3 h before 07:00 on the 50/60/70 tariff, across both DST nights in London', () => {
    const tariff = DEMO_TARIFFS.find((t) => t.id === 'DEMO-WORKDAY')!; // 0.42 weekdays 09-17, 0.31 other weekday hours, 0.24 weekends
    const timezone = 'Europe/London';
    const at = (iso: string) => Date.parse(iso);
    // Saturday 22:00 GMT to Sunday 07:00 BST is 8 h; all at 0.24, so the earliest 3 h: 22:00-01:00 GMT
    const spring = cheapestWindows(tariff, { timezone, from: '2026-03-28T22:00:00Z', to: '2026-03-29T06:00:00Z', duration: 3 * HOUR });
    should(spring.slots).eql([{ from: at('2026-03-28T22:00:00Z'), to: at('2026-03-29T01:00:00Z'), price: 0.24 }]);
    // from 00:30 on that night, one block: 00:30 GMT to 04:30 BST is 3 hours
    const late = cheapestWindows(tariff, {
      timezone,
      from: '2026-03-29T00:30:00Z',
      to: '2026-03-29T06:00:00Z',
      duration: 3 * HOUR,
      contiguous: true,
    });
    should(shape(late)).eql([{ from: at('2026-03-29T00:30:00Z'), to: at('2026-03-29T03:30:00Z') }]);
    should(moment.tz(late.slots[0].to, timezone).format('HH:mm Z')).equal('04:30 +01:00');
    // Sunday 22:00 BST to Monday 07:00: Sunday's last 2 h at 0.24, then Monday's first hour at 0.31
    const monday = cheapestWindows(tariff, { timezone, from: '2026-03-29T21:00:00Z', to: '2026-03-30T06:00:00Z', duration: 3 * HOUR });
    should(shape(monday)).eql([{ from: at('2026-03-29T21:00:00Z'), to: at('2026-03-30T00:00:00Z') }]);
    should(monday.averagePrice).be.approximately((2 * 0.24 + 0.31) / 3, 1e-12);
    should(monday.costPerKw.net).be.approximately(0.79, 1e-12);
    should(monday.costPerKw.gross).be.approximately(0.948, 1e-12);
    // fall back: Saturday 22:00 BST to Sunday 07:00 GMT is 10 h, and the plan starts at 22:00 BST
    const autumn = cheapestWindows(tariff, { timezone, from: '2026-10-24T21:00:00Z', to: '2026-10-25T07:00:00Z', duration: 3 * HOUR });
    should(shape(autumn)).eql([{ from: at('2026-10-24T21:00:00Z'), to: at('2026-10-25T00:00:00Z') }]);
    // Monday 07:00-20:00: 17:00-20:00 at 0.31 (0.93 per kW) against 07:00-10:00 from now (1.04); 07:00-09:00
    // and 17:00-18:00 cost the same in two blocks (rule 31: the fewest blocks, then the earliest)
    const day = cheapestWindows(tariff, { timezone, from: '2026-03-30T06:00:00Z', to: '2026-03-30T19:00:00Z', duration: 3 * HOUR });
    should(shape(day)).eql([{ from: at('2026-03-30T16:00:00Z'), to: at('2026-03-30T19:00:00Z') }]);
    should(day.costPerKw.net).be.approximately(0.93, 1e-12);
    should(day.comparedToNow!.net).be.approximately(1.04, 1e-12);
    should(day.comparedToNow!.saving).be.approximately(0.11, 1e-12);
    should(day.comparedToNow!.savingGross).be.approximately(0.132, 1e-12);
  });

  it('never runs above maxPrice and says how much less it planned', () => {
    const tariff = {
      id: 'N',
      name: 'night',
      vat: 5,
      currency: 'GBP',
      rules: [
        { priority: 1, price: 0.12, time_start: '01:00', time_end: '02:00' },
        { priority: 2, price: 0.3 },
      ],
    };
    const plan = cheapestWindows(tariff, {
      timezone: 'UTC',
      from: '2026-01-01T00:00:00Z',
      to: '2026-01-01T07:00:00Z',
      duration: 3 * HOUR,
      maxPrice: 0.2,
    });
    should(shape(plan)).eql([{ from: Date.parse('2026-01-01T01:00:00Z'), to: Date.parse('2026-01-01T02:00:00Z') }]);
    should(plan).match({
      planned: HOUR,
      requested: 3 * HOUR,
      shortfall: 'only 1 h of 3 h planned: the price is above 0.2 or no rule prices in the rest of the window',
    });
    const none = cheapestWindows(tariff, {
      timezone: 'UTC',
      from: '2026-01-01T03:00:00Z',
      to: '2026-01-01T07:00:00Z',
      duration: HOUR,
      maxPrice: 0.2,
    });
    should(none).match({ slots: [], planned: 0, averagePrice: null, comparedToNow: null });
    should(none.costPerKw).eql({ net: 0, gross: 0 });
  });

  it('uses the given sensor values; an unknown sensor does not match, whatever its id', () => {
    const tariff = {
      id: 'G',
      name: 'gen',
      vat: 0,
      currency: 'EUR',
      rules: [
        {
          priority: 1,
          price: 0.9,
          time_start: '00:00',
          time_end: '02:00',
          gateway_id: '__proto__',
          sensor_id: 'constructor',
          sensor_value: 1,
          sensor_condition: 'eq',
        },
        { priority: 2, price: 0.1, time_start: '00:00', time_end: '03:00' },
        { priority: 3, price: 0.5 },
      ],
    };
    const opts = { timezone: 'UTC', from: '2026-01-01T00:00:00Z', to: '2026-01-01T06:00:00Z', duration: 2 * HOUR };
    should(shape(cheapestWindows(tariff, opts))).eql([
      { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-01T02:00:00Z') },
    ]);
    const sensors = dataRecord<Record<string, number>>();
    setNested(sensors, '__proto__', 'constructor', 1);
    const running = cheapestWindows(tariff, { ...opts, sensors: sensors as SensorValues });
    // 0.1 from 02:00 to 03:00, then the earliest hour at 0.5 (the generator's 0.9 before 02:00 is dearer)
    should(shape(running)).eql([{ from: Date.parse('2026-01-01T02:00:00Z'), to: Date.parse('2026-01-01T04:00:00Z') }]);
    should(({} as Record<string, unknown>).constructor).equal(Object);
  });

  it('refuses bad input with messages that say what is wrong', () => {
    const tariff = workdayTariff();
    const base = { timezone: 'Europe/London', from: '2026-01-01T00:00:00Z', to: '2026-01-01T07:00:00Z', duration: HOUR };
    should(() => cheapestWindows(tariff, { ...base, duration: -HOUR })).throw(
      'duration must be 0 or a positive number of milliseconds, got -3600000',
    );
    should(() => cheapestWindows(tariff, { ...base, duration: NaN })).throw(/duration must be 0 or a positive/);
    should(() => cheapestWindows(tariff, { ...base, duration: Infinity })).throw(/duration must be 0 or a positive/);
    should(() => cheapestWindows(tariff, { ...base, duration: '1h' as unknown as number })).throw(/duration must be 0 or a positive/);
    should(() => cheapestWindows(tariff, { ...base, to: '2025-12-31T23:00:00Z' })).throw('the window ends (to) before it starts (from)');
    should(() => cheapestWindows(tariff, { ...base, maxPrice: 'cheap' as unknown as number })).throw(/maxPrice must be a number/);
    should(() => cheapestWindows(tariff, { ...base, from: 'tonight' })).throw(/from/);
    should(() => cheapestWindows(tariff, { ...base, timezone: 'Mars/Base' })).throw(/unknown time zone "Mars\/Base"/);
    should(() => cheapestWindows({ id: 'X' }, base)).throw(TypeError);
    // a window of over 100 years is a unit mistake
    should(() => cheapestWindows(tariff, { ...base, from: -100 * 366 * 86_400_000, to: 100 * 366 * 86_400_000 })).throw(RangeError);
  });

  it('plans at instants a hundred years away, and over a whole year in one call', () => {
    const tariff = workdayTariff();
    const far = Date.UTC(2125, 5, 1);
    const plan = cheapestWindows(tariff, {
      timezone: 'America/Santiago',
      from: far,
      to: far + 2 * 86_400_000,
      duration: 5 * HOUR,
      contiguous: true,
    });
    should(plan.planned).equal(5 * HOUR);
    const past = Date.UTC(1926, 5, 1);
    should(cheapestWindows(tariff, { timezone: 'Europe/London', from: past, to: past + 86_400_000, duration: HOUR }).planned).equal(HOUR);
    const year = cheapestWindows(tariff, { timezone: 'Europe/London', from: '2026-01-01', to: '2027-01-01', duration: 500 * HOUR });
    should(year.planned).equal(500 * HOUR);
    should(year.averagePrice).be.approximately(0.5, 1e-9); // some 2000 working hours at 0.5
  });
});
