// The segments of a compiled tariff: the rule of each instant and where it changes
// (semantics rules 1-6); priceAt, nextPriceChange and schedule over them are in
// engine/prices/price-source.ts, for tariffs and price stacks alike.
//
// With constant sensor values the price is a function of the local wall clock only,
// so as a function of the instant it is piecewise constant and can change only where
// the local clock crosses a rule boundary (each boundary time of each local day, taken
// within one zone period so that a gap gives no instant and a repeated hour gives
// two), or at a zone transition. Evaluating the rules at exactly those instants and
// merging equal neighbours is exact by construction, DST included. The rule at each
// boundary is read from a day profile (day-profile.ts), not found by trying every rule.
import { CompiledTariff, SensorRef, TIME_WITHIN, TIME_WRAPS, sensorNumber } from './tariff';
import { DAY_MS, ZoneInfo, periodIndex } from '../time/time';
import { nestedField } from '../common/id-map';
import { DayProfile, dayCuts, dayProfile, intervalAt, valuesKey } from './day-profile';

export type SensorValues = { [gatewayId: string]: { [sensorId: string]: number } };

export interface PriceOptions {
  timezone: string;
  sensors?: SensorValues;
}

export interface PriceResult {
  price: number;
  gross: number;
  vat: number;
  currency: string;
  ruleIndex: number;
  priority: number;
  tariffId: string;
  /** Sensors whose value was unknown at rules tried before the match (semantics rule 4). */
  unknownSensors: SensorRef[];
  /** A price stack's parts, net per kWh: price = spot + fees + addOns (vatIncluded: each part includes VAT). */
  parts?: PriceParts;
}

export interface PriceParts {
  spot: number;
  fees: number;
  addOns: number;
  vatIncluded: boolean;
}

export interface ScheduleEntry {
  from: number;
  to: number;
  ruleIndex: number | null;
  price: number | null;
  /** A price stack's: the list's price and the fee rule's in the entry (null: no price there). */
  spot?: number | null;
  fees?: number | null;
}

/** The known value of each of the tariff's sensors (NaN = unknown), by sensor slot. */
export function sensorValues(ct: CompiledTariff, sensors: unknown): Float64Array {
  const values = new Float64Array(ct.sensors.length).fill(NaN);
  if (typeof sensors !== 'object' || sensors === null) return values;
  ct.sensors.forEach((ref, slot) => {
    const value = nestedField(sensors, ref.gatewayId, ref.sensorId);
    if (value !== undefined) values[slot] = sensorNumber(value);
  });
  return values;
}

/** ISO weekday (1..7) of local day number `day` (days since 1970-01-01, a Thursday). */
const isoWeekday = (day: number): number => ((((day + 3) % 7) + 7) % 7) + 1;

/**
 * Position in ct.rules of the first rule matching at local time localMs, or -1.
 * Sensor slots found unknown on the way are added to `unknown` when given.
 */
export function matchSlot(ct: CompiledTariff, localMs: number, values: Float64Array, unknown: number[] | null): number {
  const day = Math.floor(localMs / DAY_MS);
  const timeOfDay = localMs - day * DAY_MS;
  const weekdayBit = 1 << isoWeekday(day);
  const rules = ct.rules;
  for (let slot = 0; slot < rules.length; slot++) {
    const r = rules[slot];
    if (r.weekdayMask !== 0 && (r.weekdayMask & weekdayBit) === 0) continue;
    if (r.timeKind === TIME_WITHIN) {
      if (timeOfDay < r.startMs || timeOfDay >= r.endMs) continue;
    } else if (r.timeKind === TIME_WRAPS) {
      if (timeOfDay < r.startMs && timeOfDay >= r.endMs) continue;
    }
    if (r.sensorSlot >= 0) {
      if (r.sensorNever) continue;
      const v = values[r.sensorSlot];
      if (v !== v) {
        if (unknown && unknown.indexOf(r.sensorSlot) < 0) unknown.push(r.sensorSlot);
        continue;
      }
      if (v !== r.sensorValue) continue;
    }
    return slot;
  }
  return -1;
}

/**
 * Segments of constant matching rule: starts ascending, slots[k] the rule's position in
 * ct.rules (-1 = none) from starts[k] on. `length` counts the valid entries, so a list
 * can be cleared and refilled without giving its arrays back.
 */
export class SegmentList {
  starts: number[] = [];
  slots: number[] = [];
  length = 0;

  /** Adds a segment unless it continues the last one's rule. */
  push(at: number, slot: number): void {
    const n = this.length;
    if (n > 0 && this.slots[n - 1] === slot) return;
    if (n < this.starts.length) {
      this.starts[n] = at;
      this.slots[n] = slot;
    } else {
      this.starts.push(at);
      this.slots.push(slot);
    }
    this.length = n + 1;
  }
}

/**
 * Appends to `out` the segments of constant matching rule that cover [a, b), for
 * constant sensor values. Sensor slots consulted while unknown are added to `unknown`
 * when given.
 */
export function appendSegments(
  ct: CompiledTariff,
  zone: ZoneInfo,
  values: Float64Array,
  a: number,
  b: number,
  out: SegmentList,
  unknown: number[] | null = null,
): void {
  walkSegments(ct, zone, values, a, b, unknown, (at, slot) => {
    out.push(at, slot);
    return true;
  });
}

/**
 * Calls visit(at, slot) at `a` and then, in order, at each later instant before `b`
 * where the matching rule can change (neighbours may repeat a slot), until visit
 * returns false. The rule at each instant comes from the cached day profile of its
 * local day, so the walk costs O(1) per boundary whatever the number of rules. Sensor
 * slots consulted while unknown at a visited instant are added to `unknown` when given.
 */
export function walkSegments(
  ct: CompiledTariff,
  zone: ZoneInfo,
  values: Float64Array,
  a: number,
  b: number,
  unknown: number[] | null,
  visit: (at: number, slot: number) => boolean,
): void {
  // a price stack walks its list and its fees (engine/prices/price-stack.ts)
  if (ct.walk !== undefined) return ct.walk(zone, values, a, b, unknown, visit);
  const cuts = dayCuts(ct);
  const starts = cuts.starts;
  const key = valuesKey(values);
  let reported: Uint8Array | null = null;
  const note = (profile: DayProfile, i: number): void => {
    const bits = profile.unknownBits;
    if (unknown === null || bits === null) return;
    for (let w = 0, base = i * profile.words; w < profile.words; w++) {
      for (let word = bits[base + w]; word !== 0; word &= word - 1) {
        const s = (w << 5) + 31 - Math.clz32(word & -word);
        if (reported === null) {
          reported = new Uint8Array(ct.sensors.length);
          for (const u of unknown) reported[u] = 1;
        }
        if (reported[s] === 0) {
          reported[s] = 1;
          unknown.push(s);
        }
      }
    }
  };
  let period = periodIndex(zone, a);
  let t = a;
  while (t < b) {
    const offset = zone.offsetMs[period];
    const periodEnd = Math.min(b, zone.untils[period]);
    const localEnd = periodEnd + offset;
    let day = Math.floor((t + offset) / DAY_MS);
    let profile = dayProfile(ct, values, key, isoWeekday(day));
    let i = intervalAt(cuts, t + offset - day * DAY_MS);
    note(profile, i);
    if (!visit(t, profile.slots[i])) return;
    for (i++; ; i++) {
      if (i === starts.length) {
        day++;
        i = 0;
        if (day * DAY_MS >= localEnd) break;
        profile = dayProfile(ct, values, key, isoWeekday(day));
      }
      const local = day * DAY_MS + starts[i];
      if (local >= localEnd) break;
      note(profile, i);
      if (!visit(local - offset, profile.slots[i])) return;
    }
    t = periodEnd;
    period++;
  }
}

/** A segment list as schedule entries, the last one ending at `b`. */
export function scheduleEntries(ct: CompiledTariff, { starts, slots, length }: SegmentList, b: number): ScheduleEntry[] {
  const entries: ScheduleEntry[] = [];
  const stack = ct.stack;
  for (let k = 0; k < length; k++) {
    const rule = slots[k] < 0 ? null : ct.rules[slots[k]];
    const entry: ScheduleEntry = {
      from: starts[k],
      to: k + 1 < length ? starts[k + 1] : b,
      ruleIndex: rule ? rule.ruleIndex : null,
      price: rule ? rule.price : null,
    };
    if (stack) {
      entry.spot = rule ? stack.spot[slots[k]] : null;
      entry.fees = rule ? stack.fees[slots[k]] : null;
    }
    entries.push(entry);
  }
  return entries;
}
