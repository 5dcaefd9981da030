import should from 'should';
import fc from 'fast-check';
import moment from 'moment-timezone';
import { priceAt, nextPriceChange, schedule } from '../../nodes/lib/engine/prices/price-source';
import type { SensorValues } from '../../nodes/lib/engine/tariff/price';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC, withProcessTz, workdayTariff, slowRuleIndex, slowPrice, tariffArb, DST_ZONES } from './engine-fixtures';

/** Epoch ms of a local wall-clock time in zone (the test computes it with moment). */
const at = (zone: string, y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) =>
  moment.tz([y, mo - 1, d, h, mi, s, ms], zone).valueOf();
const london = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => at('Europe/London', y, mo, d, h, mi, s, ms);
const LONDON = { timezone: 'Europe/London' };

const tariffOf = (...rules: Rule[]): Tariff => ({ id: 'X', name: 'x', vat: 10, currency: 'EUR', rules });
const ruleAt = (t: Tariff, when: number, timezone = 'Europe/London', sensors = {}) =>
  priceAt(t, when, { timezone, sensors })?.ruleIndex ?? null;

describe('price: priceAt', () => {
  it('returns the whole PriceResult of the first matching rule', () => {
    const monday10 = london(2024, 1, 8, 10);
    should(priceAt(workdayTariff('T9'), monday10, LONDON)).eql({
      price: 0.5,
      gross: 0.5 * 1.2,
      vat: 20,
      currency: 'GBP',
      ruleIndex: 0,
      priority: 50,
      tariffId: 'T9',
      unknownSensors: [],
    });
  });

  it('takes the instant as epoch ms, Date or ISO string (offset-less = UTC)', () => {
    const t = workdayTariff();
    // 2024-01-08 is a Monday; London is on UTC in January
    should(ruleAt(t, Date.UTC(2024, 0, 8, 8, 59, 59, 999))).equal(1);
    should(priceAt(t, new Date(Date.UTC(2024, 0, 8, 9)), LONDON)!.ruleIndex).equal(0);
    should(priceAt(t, '2024-01-08T09:00:00', LONDON)!.ruleIndex).equal(0);
    should(priceAt(t, '2024-01-08T08:59:59.999', LONDON)!.ruleIndex).equal(1);
    should(priceAt(t, '2024-01-08T10:00:00+01:00', LONDON)!.ruleIndex).equal(0);
  });

  describe('rule 1: local time in the given zone, never the process TZ', () => {
    it('prices one instant by the wall clock of the zone asked for', () => {
      const t = workdayTariff();
      const instant = Date.UTC(2024, 0, 8, 12); // Monday 12:00 UTC
      should(ruleAt(t, instant, 'Europe/London')).equal(0); // 12:00 Monday
      should(ruleAt(t, instant, 'America/New_York')).equal(1); // 07:00 Monday
      should(ruleAt(t, instant, 'Pacific/Chatham')).equal(1); // 01:45 Tuesday
      should(ruleAt(t, Date.UTC(2024, 0, 12, 12), 'Pacific/Chatham')).equal(2); // 01:45 Saturday
    });

    it('gives the same answers whatever the process TZ', () => {
      const t = workdayTariff();
      const instants = [0, 7, 9, 12, 17, 21, 23].map((h) => Date.UTC(2024, 2, 29, h, 30));
      const zones = ['Europe/London', 'Pacific/Chatham', 'America/St_Johns'];
      const answers = (tz: string) => withProcessTz(tz, () => zones.flatMap((z) => instants.map((i) => ruleAt(t, i, z))));
      const reference = answers('UTC');
      should(answers('Pacific/Chatham')).eql(reference);
      should(answers('America/St_Johns')).eql(reference);
      should(new Set(reference).size).equal(3); // the instants do exercise all three rules
    });
  });

  describe('rule 2: time ranges [start, end)', () => {
    const day = (h: number, mi = 0, s = 0, ms = 0) => london(2024, 1, 10, h, mi, s, ms);
    it('end > start: start inclusive, end exclusive, to the millisecond', () => {
      const t = tariffOf({ priority: 1, price: 1, time_start: '09:00:30', time_end: '17:00' }, { priority: 2, price: 2 });
      should(ruleAt(t, day(9, 0, 29, 999))).equal(1);
      should(ruleAt(t, day(9, 0, 30))).equal(0);
      should(ruleAt(t, day(16, 59, 59, 999))).equal(0);
      should(ruleAt(t, day(17))).equal(1);
    });

    it('end < start wraps midnight: t >= start or t < end', () => {
      const t = tariffOf({ priority: 1, price: 1, time_start: '22:00', time_end: '06:00' }, { priority: 2, price: 2 });
      should([day(21, 59, 59, 999), day(22), day(23, 59), day(0), day(5, 59, 59, 999), day(6), day(12)].map((i) => ruleAt(t, i))).eql([
        1, 0, 0, 0, 0, 1, 1,
      ]);
    });

    it('end == start and 00:00-24:00 match the whole day; 24:00 ends at midnight', () => {
      const whole = [
        tariffOf({ priority: 1, price: 1, time_start: '07:00', time_end: '07:00' }),
        tariffOf({ priority: 1, price: 1, time_start: '00:00', time_end: '24:00:00' }),
      ];
      for (const t of whole) for (const h of [0, 6, 7, 23]) should(ruleAt(t, day(h, 59, 59, 999))).equal(0);
      const evening = tariffOf({ priority: 1, price: 1, time_start: '18:00', time_end: '24:00' }, { priority: 2, price: 2 });
      should([day(17, 59, 59, 999), day(18), day(23, 59, 59, 999), day(0)].map((i) => ruleAt(evening, i))).eql([1, 0, 0, 1]);
    });
  });

  describe('rule 3: weekdays of the local date of the instant itself', () => {
    const night = (weekdays: Record<string, number[]>) =>
      tariffOf({ priority: 1, price: 1, time_start: '22:00', time_end: '06:00', ...weekdays }, { priority: 2, price: 2 });
    it('22:00-06:00 with [5] matches Friday 00:00-06:00 and 22:00-24:00, not Saturday morning', () => {
      const t = night({ weekdays: [5] }); // 2024-01-12 is a Friday
      should(ruleAt(t, london(2024, 1, 12, 0))).equal(0);
      should(ruleAt(t, london(2024, 1, 12, 5, 59))).equal(0);
      should(ruleAt(t, london(2024, 1, 12, 22))).equal(0);
      should(ruleAt(t, london(2024, 1, 12, 23, 59, 59, 999))).equal(0);
      should(ruleAt(t, london(2024, 1, 13, 0))).equal(1);
      should(ruleAt(t, london(2024, 1, 13, 3))).equal(1);
      should(ruleAt(t, london(2024, 1, 11, 23))).equal(1); // Thursday night
    });

    it('weekday is the alias; with both names weekdays wins; an empty list is every day', () => {
      should(ruleAt(night({ weekday: [5] }), london(2024, 1, 12, 23))).equal(0);
      should(ruleAt(night({ weekday: [5] }), london(2024, 1, 11, 23))).equal(1);
      should(ruleAt(night({ weekdays: [4], weekday: [5] }), london(2024, 1, 11, 23))).equal(0);
      should(ruleAt(night({ weekdays: [4], weekday: [5] }), london(2024, 1, 12, 23))).equal(1);
      for (let d = 8; d <= 14; d++) should(ruleAt(night({ weekdays: [] }), london(2024, 1, d, 23))).equal(0);
    });

    it('ISO numbering: 1 = Monday, 7 = Sunday', () => {
      for (let iso = 1; iso <= 7; iso++) {
        const t = tariffOf({ priority: 1, price: 1, weekdays: [iso] }, { priority: 2, price: 2 });
        const days = [8, 9, 10, 11, 12, 13, 14].map((d) => ruleAt(t, london(2024, 1, d, 12)));
        should(days.indexOf(0)).equal(iso - 1);
        should(days.filter((r) => r === 0)).have.length(1);
      }
    });
  });

  describe('rule 4: sensor rules', () => {
    const genset = (value: number | string, condition = 'eq') =>
      tariffOf(
        { priority: 1, price: 9, gateway_id: 'gw', sensor_id: '1', sensor_value: value, sensor_condition: condition },
        { priority: 2, price: 2 },
      );
    const noon = london(2024, 1, 10, 12);
    it('matches when the known value equals sensor_value numerically (1, 1.0, "1")', () => {
      for (const ruleValue of [1, '1', '1.0']) {
        for (const known of [1, 1.0, '1'] as unknown as number[]) {
          should(ruleAt(genset(ruleValue), noon, 'Europe/London', { gw: { 1: known } })).equal(0);
        }
        should(ruleAt(genset(ruleValue), noon, 'Europe/London', { gw: { 1: 0 } })).equal(1);
        should(ruleAt(genset(ruleValue), noon, 'Europe/London', { gw: { 1: 1.5 } })).equal(1);
      }
    });

    it('an unknown value falls through and is named in the result', () => {
      for (const sensors of [undefined, {}, { gw: {} }, { other: { 1: 1 } }, { gw: { 1: null } }, { gw: { 1: 'on' } }]) {
        const r = priceAt(genset(1), noon, { timezone: 'Europe/London', sensors: sensors as never })!;
        should(r.ruleIndex).equal(1);
        should(r.unknownSensors).eql([{ gatewayId: 'gw', sensorId: '1' }]);
      }
      should(priceAt(genset(1), noon, { timezone: 'Europe/London', sensors: { gw: { 1: 0 } } })!.unknownSensors).eql([]);
    });

    it('a condition other than eq never matches, known value or not', () => {
      should(ruleAt(genset(1, 'ne'), noon, 'Europe/London', { gw: { 1: 1 } })).equal(1);
      should(ruleAt(genset(1, 'ne'), noon, 'Europe/London', { gw: { 1: 0 } })).equal(1);
      should(priceAt(genset(1, 'ne'), noon, LONDON)!.unknownSensors).eql([]);
    });
  });

  describe('rule 5: combination and order', () => {
    it('properties of one rule combine (AND)', () => {
      const t = tariffOf(
        {
          priority: 1,
          price: 1,
          time_start: '09:00',
          time_end: '17:00',
          weekdays: [1],
          gateway_id: 'g',
          sensor_id: 's',
          sensor_value: 1,
          sensor_condition: 'eq',
        },
        { priority: 2, price: 2 },
      );
      const on = { g: { s: 1 } };
      should(ruleAt(t, london(2024, 1, 8, 10), 'Europe/London', on)).equal(0);
      should(ruleAt(t, london(2024, 1, 8, 10), 'Europe/London', { g: { s: 0 } })).equal(1); // sensor off
      should(ruleAt(t, london(2024, 1, 9, 10), 'Europe/London', on)).equal(1); // Tuesday
      should(ruleAt(t, london(2024, 1, 8, 18), 'Europe/London', on)).equal(1); // outside hours
    });

    it('tries rules by ascending priority, equal priorities in array order, and reports the original index', () => {
      const t = tariffOf(
        { priority: 9, price: 1 },
        { priority: 3, price: 2, weekdays: [7] },
        { priority: 5, price: 3 },
        { priority: 5, price: 4 },
      );
      should(priceAt(t, london(2024, 1, 8, 12), LONDON)).match({ ruleIndex: 2, price: 3, priority: 5 });
      should(priceAt(t, london(2024, 1, 14, 12), LONDON)).match({ ruleIndex: 1, price: 2, priority: 3 });
    });

    it('no match is null, never a silent zero', () => {
      const t = tariffOf({ priority: 1, price: 0, time_start: '09:00', time_end: '10:00' });
      should(priceAt(t, london(2024, 1, 8, 9, 30), LONDON)).match({ price: 0, gross: 0 });
      should(priceAt(t, london(2024, 1, 8, 10), LONDON)).be.null();
    });
  });

  describe('bad input', () => {
    it('an unknown zone is a clear Error; a missing zone a TypeError', () => {
      should(() => priceAt(workdayTariff(), 0, { timezone: 'Mars/Olympus' })).throw(/unknown time zone "Mars\/Olympus"/);
      should(() => priceAt(workdayTariff(), 0, {} as never)).throw(TypeError, { message: /timezone is required/ });
      should(() => priceAt(workdayTariff(), 0, undefined as never)).throw(TypeError, {
        message: /options must be an object with a timezone/,
      });
      should(() => priceAt(workdayTariff(), 0, undefined as never)).throw(TypeError);
    });

    it('an invalid raw tariff is a TypeError with the problem message; a valid raw one just works', () => {
      const bad = { ...workdayTariff('B'), vat: 'x' };
      should(() => priceAt(bad, 0, LONDON)).throw(TypeError, { message: parseTariffs([bad]).problems[0].message });
      const raw = JSON.parse(JSON.stringify(workdayTariff())); // never seen by parseTariffs
      should(priceAt(raw, london(2024, 1, 8, 10), LONDON)!.price).equal(0.5);
    });

    it('a window or horizon over 100 years is a RangeError, not minutes of work', () => {
      const micros = Date.UTC(2024, 0, 1) * 1000; // microseconds mistaken for milliseconds
      should(() => schedule(workdayTariff(), Date.UTC(2024, 0, 1), micros, LONDON)).throw(RangeError, { message: /longer than 100 years/ });
      should(() => nextPriceChange(workdayTariff(), 0, { ...LONDON, horizonMs: 101 * 366 * 86400000 })).throw(RangeError);
      should(schedule(workdayTariff(), Date.UTC(2000, 0, 1), Date.UTC(2099, 0, 1), LONDON).length).be.above(60000); // 12 a week
    });

    it('an instant that does not parse is a TypeError naming it', () => {
      should(() => priceAt(workdayTariff(), 'soon', LONDON)).throw(TypeError, { message: /^at must be/ });
      should(() => schedule(workdayTariff(), 0, 'later', LONDON)).throw(TypeError, { message: /^to must be/ });
      should(() => nextPriceChange(workdayTariff(), NaN, LONDON)).throw(TypeError, { message: /^from must be/ });
    });
  });
});

describe('price: nextPriceChange', () => {
  const t = workdayTariff();
  it('finds the next instant where the net price changes, with the price from then', () => {
    const next = nextPriceChange(t, london(2024, 1, 8, 8, 15), LONDON)!;
    should(next.at).equal(london(2024, 1, 8, 9));
    should(next.price).eql(priceAt(t, next.at, LONDON));
    should(nextPriceChange(t, london(2024, 1, 12, 17), LONDON)!.at).equal(london(2024, 1, 13)); // Fri 17:00 -> Sat 00:00
    should(nextPriceChange(t, london(2024, 1, 13, 10), LONDON)!.at).equal(london(2024, 1, 15)); // weekend -> Monday
  });

  it('is strictly after from: from a change instant, the following one', () => {
    should(nextPriceChange(t, london(2024, 1, 8, 9), LONDON)!.at).equal(london(2024, 1, 8, 17));
  });

  it('skips a change of rule that keeps the price, and reports a change to no price', () => {
    const same = tariffOf(
      { priority: 1, price: 1, time_start: '09:00', time_end: '10:00' },
      { priority: 2, price: 1, time_start: '10:00', time_end: '11:00' },
    );
    const next = nextPriceChange(same, london(2024, 1, 8, 9, 30), LONDON)!;
    should(next).eql({ at: london(2024, 1, 8, 11), price: null });
    should(nextPriceChange(same, london(2024, 1, 8, 11), LONDON)!.at).equal(london(2024, 1, 9, 9));
  });

  it('is null when nothing changes within the horizon (8 days by default, inclusive)', () => {
    should(nextPriceChange(tariffOf({ priority: 1, price: 1 }), 0, LONDON)).be.null();
    const from = london(2024, 1, 13, 10); // Saturday; next change Monday 00:00
    const monday = london(2024, 1, 15);
    should(nextPriceChange(t, from, { ...LONDON, horizonMs: monday - from })!.at).equal(monday);
    should(nextPriceChange(t, from, { ...LONDON, horizonMs: monday - from - 1 })).be.null();
    const weekly = tariffOf({ priority: 1, price: 1, weekdays: [3], time_start: '12:00', time_end: '12:01' }, { priority: 2, price: 2 });
    const wednesday = london(2024, 1, 10, 12, 1);
    should(nextPriceChange(weekly, wednesday, LONDON)!.at).equal(london(2024, 1, 17, 12)); // 7 days on
    should(nextPriceChange(weekly, wednesday, { ...LONDON, horizonMs: 6 * 86400000 })).be.null();
    const yearly = nextPriceChange(tariffOf({ priority: 1, price: 1, weekdays: [3] }, { priority: 2, price: 1 }), 0, {
      ...LONDON,
      horizonMs: 400 * 86400000,
    });
    should(yearly).be.null(); // same price all year, searched in several steps
  });

  it('holds sensors constant', () => {
    const genset = tariffOf(
      {
        priority: 1,
        price: 9,
        gateway_id: 'g',
        sensor_id: 's',
        sensor_value: 1,
        sensor_condition: 'eq',
        time_start: '08:00',
        time_end: '20:00',
      },
      { priority: 2, price: 1 },
    );
    const from = london(2024, 1, 8, 12);
    should(nextPriceChange(genset, from, { ...LONDON, sensors: { g: { s: 1 } } })!.at).equal(london(2024, 1, 8, 20));
    should(nextPriceChange(genset, from, { ...LONDON, sensors: { g: { s: 0 } } })).be.null();
  });
});

describe('price: schedule', () => {
  it('covers [from, to) with pieces of constant rule, merged, original rule indexes', () => {
    const t = workdayTariff();
    const from = london(2024, 1, 12, 8); // Friday 08:00
    const to = london(2024, 1, 15, 10); // Monday 10:00
    should(schedule(t, from, to, LONDON)).eql([
      { from, to: london(2024, 1, 12, 9), ruleIndex: 1, price: 0.6 },
      { from: london(2024, 1, 12, 9), to: london(2024, 1, 12, 17), ruleIndex: 0, price: 0.5 },
      { from: london(2024, 1, 12, 17), to: london(2024, 1, 13), ruleIndex: 1, price: 0.6 },
      { from: london(2024, 1, 13), to: london(2024, 1, 15), ruleIndex: 2, price: 0.7 },
      { from: london(2024, 1, 15), to: london(2024, 1, 15, 9), ruleIndex: 1, price: 0.6 },
      { from: london(2024, 1, 15, 9), to, ruleIndex: 0, price: 0.5 },
    ]);
  });

  it('shows gaps with no matching rule as null, and is empty for an empty window', () => {
    const t = tariffOf({ priority: 1, price: 1, time_start: '09:00', time_end: '10:00' });
    const day = london(2024, 1, 8);
    should(schedule(t, day, day + 86400000, LONDON).map((e) => [e.ruleIndex, e.price])).eql([
      [null, null],
      [0, 1],
      [null, null],
    ]);
    should(schedule(t, day, day, LONDON)).eql([]);
    should(schedule(t, day, day - 1, LONDON)).eql([]);
  });

  // Oracle check over random tariffs, zones and windows. Samples on a 30-second grid
  // (±1 ms) hit every boundary the random rules can have.
  it('agrees with the slow per-instant evaluation (property)', () => {
    fc.assert(
      fc.property(
        tariffArb,
        fc.constantFrom(...DST_ZONES, 'UTC'),
        fc.integer({ min: Date.UTC(2019, 0, 1) / 30000, max: Date.UTC(2031, 0, 1) / 30000 }),
        fc.integer({ min: 1, max: 3 * 2880 }),
        fc.constantFrom<SensorValues[]>({}, { gw: { 1: 0 } }, { gw: { 1: 1 } }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(-1, 0, 1)), { minLength: 20, maxLength: 20 }),
        (tariff, timezone, fromSlot, lengthSlots, sensors, picks) => {
          const from = fromSlot * 30000;
          const to = from + lengthSlots * 30000;
          const entries = schedule(tariff, from, to, { timezone, sensors });
          should(entries[0].from).equal(from);
          should(entries[entries.length - 1].to).equal(to);
          entries.forEach((e, k) => {
            should(e.to).be.greaterThan(e.from);
            if (k > 0) should(e.from).equal(entries[k - 1].to);
            if (k > 0) should(e.ruleIndex).not.equal(entries[k - 1].ruleIndex);
            should(slowRuleIndex(tariff, e.from, timezone, sensors)).equal(e.ruleIndex);
            should(slowRuleIndex(tariff, e.to - 1, timezone, sensors)).equal(e.ruleIndex);
          });
          for (const [n, nudge] of picks) {
            const sample = Math.min(to - 1, Math.max(from, from + (n % lengthSlots) * 30000 + nudge));
            const entry = entries.find((e) => e.from <= sample && sample < e.to)!;
            should(slowRuleIndex(tariff, sample, timezone, sensors)).equal(entry.ruleIndex);
          }
          // nextPriceChange is the first entry whose price differs from the first one's
          const change = entries.find((e) => e.price !== entries[0].price);
          const next = nextPriceChange(tariff, from, { timezone, sensors, horizonMs: to - from - 1 });
          should(next && next.at).equal(change ? change.from : null);
          if (next) should(next.price && next.price.price).equal(slowPrice(tariff, next.at, timezone, sensors));
        },
      ),
      { ...FC, numRuns: 1000 },
    );
  });
});
