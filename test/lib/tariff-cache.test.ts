// The compiled-tariff cache: a tariff is compiled once and recognised by identity, the
// fields the engine ignores are never read again, and a tariff changed in place (as a
// function node may do between two calls) is priced as a fresh copy of it would be.
import should from 'should';
import fc from 'fast-check';
import { compileTariff, parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import { cachedCompile } from '../../nodes/lib/engine/tariff/compiled-tariffs';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { nextPriceChange, priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { FC, slowPrice, tariffArb, workdayTariff } from './engine-fixtures';

type Json = Record<string, unknown>;
const ZONE = 'Europe/Berlin';
const NOW = Date.UTC(2026, 2, 27, 10, 30); // a Friday, two days before the change to summer time
const HOUR = 3_600_000;
const READINGS: Array<[number, number]> = Array.from({ length: 49 }, (_, k) => [NOW + k * 1_800_000, k * 0.5]);

/** Every engine entry point once on `t`. */
function everyCall(t: unknown): void {
  priceAt(t, NOW, { timezone: ZONE });
  nextPriceChange(t, NOW, { timezone: ZONE });
  schedule(t, NOW, NOW + 48 * HOUR, { timezone: ZONE });
  computeCost(t, READINGS, { timezone: ZONE });
  computeCost(t, READINGS, { timezone: ZONE, attribution: 'prorate' });
  cheapestWindows(t, { timezone: ZONE, from: NOW, to: NOW + 24 * HOUR, duration: 2 * HOUR });
}

/** Defines an enumerable extra field on `target` whose every read is counted. */
function countedField(target: object, name: string, counter: { reads: number }): void {
  Object.defineProperty(target, name, {
    enumerable: true,
    get() {
      counter.reads++;
      return { history: [1, 2, 3] };
    },
  });
}

describe('tariff cache: compiled once, extra fields never read again', () => {
  it('parseTariffs compiles a tariff once; the engine finds that compiled form by identity', () => {
    const t = workdayTariff();
    const { tariffs } = parseTariffs([t]);
    const compiled = compileTariff(tariffs[0]);
    everyCall(tariffs[0]);
    should(compileTariff(tariffs[0])).equal(compiled);
  });

  it('no engine call reads an extra field of the tariff or of a rule, however often it is called', () => {
    for (const viaParse of [true, false]) {
      const counter = { reads: 0 };
      const t = workdayTariff();
      countedField(t, 'history', counter);
      t.rules.forEach((rule) => countedField(rule, 'note', counter));
      const tariff = viaParse ? parseTariffs([t]).tariffs[0] : t;
      for (let k = 0; k < 5; k++) everyCall(tariff);
      should(counter.reads).equal(0, `extra fields read ${counter.reads} times (${viaParse ? 'from parseTariffs' : 'a raw object'})`);
    }
  });

  it('a tariff with cyclic or BigInt extra fields is compiled once as well', () => {
    const t = workdayTariff() as Tariff & Json;
    t.self = t;
    t.big = 10n;
    const compiled = compileTariff(t);
    everyCall(t);
    should(compileTariff(t)).equal(compiled);
  });
});

describe('tariff cache: the check of a hit', () => {
  /** A tariff whose rules use every field the compile reads (sensors, both weekday spellings). */
  function fullTariff(): Json {
    return {
      id: 'F',
      name: 'full',
      vat: 20,
      currency: 'EUR',
      rules: [
        {
          priority: 1,
          price: 0.1,
          time_start: '01:00',
          time_end: '05:00',
          gateway_id: 'gw',
          sensor_id: '1',
          sensor_value: 1,
          sensor_condition: 'eq',
        },
        { priority: 2, price: 0.2, time_start: '22:00', time_end: '06:00', weekdays: [1, 2, 3], weekday: [4] },
        { priority: 3, price: 0, weekday: [6, 7] },
        { priority: 4, price: 0.3 },
      ],
    };
  }
  type Edit = [string, (t: Json) => void];
  const rule = (t: Json, k: number) => (t.rules as Json[])[k];
  const days = (t: Json, k: number, field: string) => rule(t, k)[field] as number[];
  const edits: Edit[] = [
    ...['id', 'name', 'vat', 'currency'].map((f): Edit => [`the tariff's ${f}`, (t) => (t[f] = f === 'vat' ? 7 : 'x')]),
    ['the rules list', (t) => (t.rules = (t.rules as Json[]).slice())],
    ['a rule object', (t) => ((t.rules as Json[])[3] = { priority: 4, price: 0.3 })],
    ['the rule count', (t) => (t.rules as Json[]).push({ priority: 5, price: 0.4 })],
    ...['priority', 'price', 'time_start', 'time_end', 'gateway_id', 'sensor_id', 'sensor_value', 'sensor_condition'].map((f): Edit => [
      `a rule's ${f}`,
      (t) => (rule(t, 0)[f] = f === 'priority' || f === 'price' || f === 'sensor_value' ? 9 : '02:00'),
    ]),
    ['a price 0 made -0', (t) => (rule(t, 2).price = -0)],
    ['a weekdays list', (t) => (rule(t, 1).weekdays = [1, 2, 3])],
    ['a weekdays entry', (t) => (days(t, 1, 'weekdays')[2] = 5)],
    ['a weekdays list grown', (t) => days(t, 1, 'weekdays').push(5)],
    ['a weekdays list cut', (t) => (days(t, 1, 'weekdays').length = 2)],
    ['a weekday entry beside weekdays', (t) => (days(t, 1, 'weekday')[0] = 5)],
    ['a weekday list added', (t) => (rule(t, 3).weekday = [1])],
    ['a weekday entry', (t) => (days(t, 2, 'weekday')[1] = 5)],
  ];
  for (const [what, edit] of edits) {
    it(`misses when ${what} changed in place`, () => {
      const t = fullTariff();
      const compiled = compileTariff(t);
      should(cachedCompile(t)).equal(compiled);
      edit(t);
      should(cachedCompile(t)).be.null();
    });
  }

  it('hits after any number of calls, with fields the compile does not read added or changed', () => {
    const t = fullTariff();
    const compiled = compileTariff(t);
    t.note = 'x';
    rule(t, 0).comment = { big: [1, 2, 3] };
    for (let k = 0; k < 3; k++) should(cachedCompile(t)).equal(compiled);
    t.note = 'y';
    should(cachedCompile(t)).equal(compiled);
    should(compileTariff(t)).equal(compiled);
  });

  it('a NaN the compile read (an ignored weekday list) still hits: NaN is the same NaN', () => {
    const t = fullTariff();
    rule(t, 1).weekday = NaN; // ignored (weekdays is given): a warning, not an error
    const compiled = compileTariff(t);
    should(cachedCompile(t)).equal(compiled);
  });
});

describe('tariff cache: a tariff changed in place is priced as its fresh copy', () => {
  const at = (day: number, minute: number) => NOW + day * 86_400_000 + minute * 60_000;

  const cases: Array<[string, (t: Tariff) => void]> = [
    ['a price', (t) => (t.rules[0].price = 0.55)],
    ['a priority', (t) => (t.rules[2].priority = 10)],
    ['a start time', (t) => (t.rules[0].time_start = '11:00')],
    ['an end time', (t) => (t.rules[0].time_end = '10:45')],
    ['a weekday list entry', (t) => (t.rules[0].weekdays![4] = 6)],
    ['a weekday list cut short', (t) => (t.rules[0].weekdays!.length = 4)],
    ['the weekday alias added', (t) => (t.rules[2].weekday = [5])],
    ['a rule pushed', (t) => t.rules.push({ priority: 1, price: 0.01 })],
    ['a rule removed', (t) => t.rules.splice(0, 1)],
    ['a rule replaced', (t) => (t.rules[0] = { priority: 50, price: 0.9, time_start: '09:00', time_end: '17:00' })],
    ['the rules list replaced', (t) => (t.rules = [{ priority: 1, price: 0.3 }])],
    ['the vat', (t) => (t.vat = 7)],
    ['the currency', (t) => (t.currency = 'EUR')],
    ['the id', (t) => (t.id = 'renamed')],
    [
      'a sensor condition added',
      (t) => Object.assign(t.rules[0], { gateway_id: 'gw', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' }),
    ],
    ['a time range removed', (t) => (delete t.rules[0].time_start, delete t.rules[0].time_end)],
  ];
  for (const [what, edit] of cases) {
    it(`notices ${what} changed between two calls`, () => {
      const live = workdayTariff();
      const sensors = { gw: { '1': 1 } };
      for (const via of [live, parseTariffs([live]).tariffs[0]]) should(via).equal(live);
      everyCall(live);
      const before = priceAt(live, NOW, { timezone: ZONE, sensors });
      edit(live);
      const fresh = structuredClone(live);
      for (const instant of [NOW, at(0, 90), at(1, 0), at(1, 30), at(2, 600)]) {
        should(priceAt(live, instant, { timezone: ZONE, sensors })).eql(priceAt(fresh, instant, { timezone: ZONE, sensors }));
      }
      should(nextPriceChange(live, NOW, { timezone: ZONE, sensors })).eql(nextPriceChange(fresh, NOW, { timezone: ZONE, sensors }));
      should(computeCost(live, READINGS, { timezone: ZONE })).eql(computeCost(fresh, READINGS, { timezone: ZONE }));
      should(compileTariff(live)).not.equal(compileTariff(fresh)); // fresh is its own object
      should(before).be.an.Object(); // the first call did price (and cache) the old tariff
    });
  }

  it('a tariff made invalid in place is refused, and priced again once it is repaired', () => {
    const live = workdayTariff();
    everyCall(live);
    (live.rules[0] as Json).price = '0.6';
    should(() => priceAt(live, NOW, { timezone: ZONE })).throw(TypeError, { message: /rule 0: price must be a number/ });
    live.rules[0].price = 0.65;
    should(priceAt(live, NOW, { timezone: ZONE })!.price).equal(0.65);
  });

  /** Turns `live` into `target` in place: rule objects and weekday lists kept where they exist. */
  function morph(live: Tariff, target: Tariff): void {
    const copy = structuredClone(target);
    live.vat = copy.vat;
    live.currency = copy.currency;
    copy.rules.forEach((rule, k) => {
      const old = live.rules[k];
      if (old === undefined) return void live.rules.push(rule);
      for (const key of Object.keys(old)) if (!(key in rule)) delete old[key];
      for (const [key, value] of Object.entries(rule) as Array<[keyof Rule, unknown]>) {
        const oldDays = old[key];
        if (Array.isArray(oldDays) && Array.isArray(value)) {
          oldDays.length = value.length; // the same list object, edited entry by entry
          value.forEach((day, d) => (oldDays[d] = day));
        } else old[key] = value;
      }
    });
    live.rules.length = copy.rules.length;
  }

  it('random tariffs edited in place price as the test oracle says, call after call', () => {
    const variant = fc.record({ tariff: tariffArb, vat: fc.constantFrom(0, 5, 20), currency: fc.constantFrom('EUR', 'GBP') });
    fc.assert(
      fc.property(
        fc.array(variant, { minLength: 2, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 7 * 48 - 1 }), { minLength: 3, maxLength: 6 }),
        (steps, halfHours) => {
          const live: Tariff = structuredClone(steps[0].tariff);
          const sensors = { gw: { '1': 1 } };
          for (const step of steps) {
            const target = { ...step.tariff, vat: step.vat, currency: step.currency };
            morph(live, target);
            for (const h of halfHours) {
              const instant = NOW + h * 1_800_000 + 60_000;
              const result = priceAt(live, instant, { timezone: ZONE, sensors });
              should(result?.price ?? null).equal(slowPrice(target, instant, ZONE, sensors));
              if (result) should([result.vat, result.currency]).eql([step.vat, step.currency]);
            }
            should(schedule(live, NOW, NOW + 48 * HOUR, { timezone: ZONE, sensors })).eql(
              schedule(structuredClone(target), NOW, NOW + 48 * HOUR, { timezone: ZONE, sensors }),
            );
          }
        },
      ),
      { ...FC, numRuns: 300 },
    );
  });
});
