// The day profiles that appendSegments reads must give, at every instant the walk
// visits, exactly the rule (and the unknown sensors) that trying the rules one by one
// gives there; checked on larger random tariffs than the engine's own property tests,
// with several sensors, unknown values, and zones whose clocks change at midnight.
import fc from 'fast-check';
import should from 'should';
import { engineContext } from '../../nodes/lib/engine/prices/price-source';
import { SegmentList, appendSegments, matchSlot, sensorValues } from '../../nodes/lib/engine/tariff/price';
import type { CompiledTariff, Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { DAY_MS, ZoneInfo, periodIndex } from '../../nodes/lib/engine/time/time';
import { FC, slowRuleIndex } from './engine-fixtures';

const MIDNIGHT_ZONES = ['Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago', 'Europe/London', 'Pacific/Chatham', 'UTC'];
const SENSOR_IDS = ['1', '2', '__proto__'];

const two = (n: number) => String(n).padStart(2, '0');
const hhmmss = (sec: number) => `${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)}`;
const timeArb = fc.integer({ min: 0, max: 86399 });

const ruleArb: fc.Arbitrary<Rule> = fc
  .record({
    priority: fc.integer({ min: 0, max: 6 }),
    price: fc.constantFrom(0.1, 0.2, 0.3),
    range: fc.option(fc.tuple(timeArb, fc.oneof(timeArb, fc.constant(86400))), { nil: undefined }),
    weekdays: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { maxLength: 4 }), { nil: undefined }),
    sensor: fc.option(
      fc.record({
        id: fc.constantFrom(...SENSOR_IDS),
        value: fc.constantFrom(0, 1, 2),
        condition: fc.constantFrom('eq', 'eq', 'eq', 'ne'),
      }),
      { nil: undefined },
    ),
  })
  .map(({ priority, price, range, weekdays, sensor }) => {
    const rule: Rule = { priority, price };
    if (range) Object.assign(rule, { time_start: hhmmss(range[0]), time_end: range[1] === 86400 ? '24:00' : hhmmss(range[1]) });
    if (weekdays) rule.weekdays = weekdays;
    if (sensor)
      Object.assign(rule, { gateway_id: 'gw', sensor_id: sensor.id, sensor_value: sensor.value, sensor_condition: sensor.condition });
    return rule;
  });

const tariffArb = fc
  .array(ruleArb, { minLength: 1, maxLength: 40 })
  .map((rules): Tariff => ({ id: 'P', name: 'p', vat: 0, currency: 'EUR', rules }));
/** Each sensor unknown, 0, 1 or 2. */
const sensorsArb = fc.tuple(...SENSOR_IDS.map(() => fc.constantFrom<number | undefined>(undefined, 0, 1, 2))).map((vals) => {
  const gw: Record<string, number> = Object.create(null);
  vals.forEach((v, k) => {
    if (v !== undefined) Object.defineProperty(gw, SENSOR_IDS[k], { value: v, enumerable: true });
  });
  return { gw };
});

/**
 * The engine as it was before day profiles: every rule tried (matchSlot) at the window's
 * start and at each boundary time of each local day within each zone period.
 */
function referenceSegments(ct: CompiledTariff, zone: ZoneInfo, values: Float64Array, a: number, b: number) {
  const starts: number[] = [];
  const slots: number[] = [];
  const unknown: number[] = [];
  const push = (at: number, slot: number) => {
    if (slots.length > 0 && slots[slots.length - 1] === slot) return;
    starts.push(at);
    slots.push(slot);
  };
  const boundaries = ct.boundariesMs;
  let period = periodIndex(zone, a);
  for (let t = a; t < b; period++) {
    const offset = zone.offsetMs[period];
    const periodEnd = Math.min(b, zone.untils[period]);
    push(t, matchSlot(ct, t + offset, values, unknown));
    const localStart = t + offset;
    const localEnd = periodEnd + offset;
    for (let dayStart = Math.floor(localStart / DAY_MS) * DAY_MS; dayStart < localEnd; dayStart += DAY_MS) {
      for (const boundary of boundaries) {
        const local = dayStart + boundary;
        if (local > localStart && local < localEnd) push(local - offset, matchSlot(ct, local, values, unknown));
      }
    }
    t = periodEnd;
  }
  return { starts, slots, unknown };
}

describe('day profiles', () => {
  it('give the rule and the unknown sensors of trying every rule, at every visited instant (property)', () => {
    fc.assert(
      fc.property(
        tariffArb,
        fc.constantFrom(...MIDNIGHT_ZONES),
        fc.integer({ min: Date.UTC(2019, 0, 1) / 1000, max: Date.UTC(2031, 0, 1) / 1000 }),
        fc.integer({ min: 1, max: 3 * 86400 }),
        sensorsArb,
        (tariff, timezone, fromS, lengthS, sensors) => {
          const { ct, zone } = engineContext(tariff, { timezone });
          const values = sensorValues(ct, sensors);
          const a = fromS * 1000;
          const b = a + lengthS * 1000;
          const out = new SegmentList();
          const unknown: number[] = [];
          appendSegments(ct, zone, values, a, b, out, unknown);
          const reference = referenceSegments(ct, zone, values, a, b);
          should(Array.from(out.starts.slice(0, out.length))).eql(reference.starts);
          should(Array.from(out.slots.slice(0, out.length))).eql(reference.slots);
          should(unknown.slice().sort()).eql(reference.unknown.slice().sort());
          // and against the test's own moment-based oracle at each segment start
          for (let k = 0; k < out.length; k += Math.max(1, Math.floor(out.length / 8))) {
            const slow = slowRuleIndex(tariff, out.starts[k], timezone, sensors);
            should(out.slots[k] < 0 ? null : ct.rules[out.slots[k]].ruleIndex).equal(slow);
          }
        },
      ),
      { ...FC, numRuns: 1500 },
    );
  });
});
