// Shared by the engine tests (time, tariff, price, dst, cost).
import moment from 'moment-timezone';
import fc from 'fast-check';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import type { SensorValues } from '../../nodes/lib/engine/tariff/price';

/** mulberry32: a small seeded generator, so a generated case is its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** fast-check settings: fixed seed so a failure reproduces. */
export const FC = { seed: 20261121, numRuns: 2000 };

/** Runs fn with the process's own TZ set to zone (Node re-reads TZ on assignment). */
export function withProcessTz<T>(zone: string, fn: () => T): T {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}

/** The interface's example: 50 working hours Mon-Fri, 60 rest of Mon-Fri, 70 otherwise. */
export function workdayTariff(id = 'T1'): Tariff {
  return {
    id,
    name: 'Workday',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 50, price: 0.5, time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] },
      { priority: 60, price: 0.6, weekdays: [1, 2, 3, 4, 5] },
      { priority: 70, price: 0.7 },
    ],
  };
}

const zones = new Map<string, moment.MomentZone>();

/**
 * The local weekday (1 Monday … 7 Sunday) and seconds into the day at `ms` in `zone`:
 * moment-timezone's offset at that very instant (its zone data, not the package's search),
 * applied to the instant. A tenth of what a moment.tz per instant costs, which the oracles
 * ask on every 30 s of generated spans.
 */
function slowLocal(ms: number, zone: string): { weekday: number; timeOfDay: number } {
  let data = zones.get(zone);
  if (!data) {
    data = moment.tz.zone(zone) ?? undefined;
    if (!data) throw new RangeError(`no such zone: ${zone}`);
    zones.set(zone, data);
  }
  // utcOffset: minutes behind UTC
  const wall = new Date(ms - data.utcOffset(ms) * 60_000);
  return {
    weekday: wall.getUTCDay() || 7,
    timeOfDay: wall.getUTCHours() * 3600 + wall.getUTCMinutes() * 60 + wall.getUTCSeconds() + wall.getUTCMilliseconds() / 1000,
  };
}

const secondsOf = new Map<string, number>();
/** 'hh:mm' or 'hh:mm:ss' in seconds (each text read once: the oracles ask millions of times). */
function seconds(hhmmss: string): number {
  let s = secondsOf.get(hhmmss);
  if (s === undefined) {
    s = hhmmss.split(':').reduce((acc, part, i) => acc + Number(part) * [3600, 60, 1][i], 0);
    secondsOf.set(hhmmss, s);
  }
  return s;
}

/**
 * The test's own, obviously correct evaluation of the rules (the oracle): moment-timezone's
 * offset at every instant, the raw rules tried in sorted order. Returns the original rule index.
 */
export function slowRuleIndex(tariff: Tariff, ms: number, zone: string, sensors: SensorValues = {}): number | null {
  const { weekday, timeOfDay } = slowLocal(ms, zone);
  const order = tariff.rules.map((_, i) => i).sort((a, b) => tariff.rules[a].priority - tariff.rules[b].priority || a - b);
  for (const i of order) {
    const r = tariff.rules[i];
    const days = r.weekdays ?? r.weekday;
    if (days && days.length > 0 && !days.includes(weekday)) continue;
    if (r.time_start !== undefined && r.time_end !== undefined) {
      const start = seconds(r.time_start);
      const end = seconds(r.time_end);
      const wholeDay = start === end || (start === 0 && end === 86400);
      const inside = end > start ? timeOfDay >= start && timeOfDay < end : timeOfDay >= start || timeOfDay < end;
      if (!wholeDay && !inside) continue;
    }
    if (r.gateway_id !== undefined) {
      const value = sensors[r.gateway_id!]?.[r.sensor_id!];
      if (r.sensor_condition !== 'eq' || value === undefined || Number(value) !== Number(r.sensor_value)) continue;
    }
    return i;
  }
  return null;
}

export function slowPrice(tariff: Tariff, ms: number, zone: string, sensors: SensorValues = {}): number | null {
  const i = slowRuleIndex(tariff, ms, zone, sensors);
  return i === null ? null : tariff.rules[i].price;
}

const hhmmss = (sec: number) => {
  const two = (n: number) => String(n).padStart(2, '0');
  const text = `${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}`;
  return sec % 60 === 0 ? text : `${text}:${two(sec % 60)}`;
};

/** Times of day on a 30-second grid, so samples on that grid (±1 ms) hit every boundary. */
const timeArb = fc.integer({ min: 0, max: 2879 }).map((half) => half * 30);

const ruleArb: fc.Arbitrary<Rule> = fc
  .record({
    priority: fc.integer({ min: 0, max: 4 }),
    price: fc.constantFrom(0.1, 0.2, 0.3), // few prices, so different rules often share one
    range: fc.option(fc.tuple(timeArb, fc.oneof(timeArb, fc.constant(86400))), { nil: undefined }),
    weekdays: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { maxLength: 4 }), { nil: undefined }),
    sensor: fc.option(fc.record({ value: fc.constantFrom(0, 1, '1'), condition: fc.constantFrom('eq', 'eq', 'eq', 'ne') }), {
      nil: undefined,
    }),
  })
  .map(({ priority, price, range, weekdays, sensor }) => {
    const rule: Rule = { priority, price };
    if (range && range[0] !== 86400)
      Object.assign(rule, { time_start: hhmmss(range[0]), time_end: range[1] === 86400 ? '24:00' : hhmmss(range[1]) });
    if (weekdays) rule.weekdays = weekdays;
    if (sensor) Object.assign(rule, { gateway_id: 'gw', sensor_id: '1', sensor_value: sensor.value, sensor_condition: sensor.condition });
    return rule;
  });

/** Random valid tariffs of 1-5 rules; without a fallback rule some instants have no price. */
export const tariffArb: fc.Arbitrary<Tariff> = fc
  .array(ruleArb, { minLength: 1, maxLength: 5 })
  .map((rules) => ({ id: 'R', name: 'random', vat: 20, currency: 'EUR', rules }));

export const DST_ZONES = [
  'Europe/London',
  'America/New_York',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'America/Sao_Paulo',
  'Asia/Kolkata',
];

/** A sensor timeline as computeCost takes it: [instant, value], the value holds from then on. */
export type Timeline = Array<[number, number]>;

/** The value a timeline gives at instant ms: the last one at or before it (the test's own). */
export function valueAt(timeline: Timeline, ms: number): number | undefined {
  let value: number | undefined;
  for (const [at, v] of timeline) if (at <= ms) value = v; // sorted by the caller
  return value;
}

/**
 * The test's own cost, interval by interval: price at the interval's start (with the
 * sensor value known then), or for 'prorate' every piece between `stepMs` grid points
 * priced at its start. Readings sorted, without duplicates.
 */
export function slowCost(
  tariff: Tariff,
  readings: Array<[number, number]>,
  zone: string,
  timeline: Timeline = [],
  prorateStepMs = 0,
): { net: number; energy: number; unpriced: number } {
  let net = 0;
  let energy = 0;
  let unpriced = 0;
  const priceAt = (ms: number) => {
    const value = valueAt(timeline, ms);
    return slowPrice(tariff, ms, zone, value === undefined ? {} : { gw: { 1: value } });
  };
  for (let i = 1; i < readings.length; i++) {
    const [t0, v0] = readings[i - 1];
    const [t1, v1] = readings[i];
    const delta = v1 - v0;
    if (delta < 0) continue;
    energy += delta;
    const pieces: Array<[number, number]> = [];
    if (prorateStepMs)
      for (let s = t0; s < t1; s = Math.min(t1, (Math.floor(s / prorateStepMs) + 1) * prorateStepMs))
        pieces.push([s, Math.min(t1, (Math.floor(s / prorateStepMs) + 1) * prorateStepMs)]);
    else pieces.push([t0, t1]);
    for (const [a, b] of pieces) {
      const share = (delta * (b - a)) / (t1 - t0);
      const price = priceAt(a);
      if (price === null) unpriced += share;
      else net += share * price;
    }
  }
  return { net, energy, unpriced };
}

/**
 * Sorted cumulative readings on a grid of `gridMs`, each step 1 to `maxGapSlots` slots and
 * 0 to 5 kWh, some of them counter resets: the register drops by 45 kWh (from at least 45;
 * below, the step adds nothing). A reset's new meter then stays below the old register for
 * the next 8 steps, so rule 10 judges every drop a reset at once (a drop the meter recovers
 * from is a glitch: the glitch histories test those), as an interval-by-interval reference
 * that counts the non-negative deltas does; the last reading rises by 1 kWh, so no reset is
 * left undecided at the end (pending, counted nowhere).
 */
export const readingsWithResetsArb = (gridMs: number, maxGapSlots: number, maxSteps: number) =>
  fc
    .record({
      start: fc.integer({ min: Date.UTC(2019, 0, 1) / gridMs, max: Date.UTC(2031, 0, 1) / gridMs }),
      steps: fc.array(
        fc.tuple(fc.integer({ min: 1, max: maxGapSlots }), fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.constant(-45))),
        { minLength: 1, maxLength: maxSteps },
      ),
    })
    .map(({ start, steps }) => {
      const rows: Array<[number, number]> = [[start * gridMs, 50]];
      for (const [gap, delta] of steps) {
        const [t, v] = rows[rows.length - 1];
        rows.push([t + gap * gridMs, delta >= 0 ? v + delta : v >= 45 ? v + delta : v]);
      }
      const [t, v] = rows[rows.length - 1];
      rows.push([t + gridMs, v + 1]);
      return rows;
    });
