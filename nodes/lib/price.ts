// priceAt, nextPriceChange and schedule (SPEC rules 1-6).
//
// With constant sensor values the price is a function of the local wall clock only,
// so as a function of the instant it is piecewise constant and can change only where
// the local clock crosses a rule boundary (each boundary time of each local day, taken
// within one zone period so that a gap gives no instant and a repeated hour gives
// two), or at a zone transition. Evaluating the rules at exactly those instants and
// merging equal neighbours is exact by construction, DST included.
import { compileTariff, CompiledTariff, SensorRef, Tariff, TIME_WITHIN, TIME_WRAPS, sensorNumber } from './tariff';
import { DAY_MS, ZoneInfo, periodIndex, requireEpochMs, toLocalMs, zoneInfo } from './time';
import { nestedField } from './id-map';

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
  /** Sensors whose value was unknown at rules tried before the match (SPEC rule 4). */
  unknownSensors: SensorRef[];
}

export interface ScheduleEntry {
  from: number;
  to: number;
  ruleIndex: number | null;
  price: number | null;
}

/** The compiled tariff and zone of a call; throws on a bad tariff, zone or options. */
export function engineContext(tariff: unknown, options: unknown): { ct: CompiledTariff; zone: ZoneInfo } {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object with a timezone, e.g. { timezone: "Europe/London" }');
  }
  const timezone = (options as { timezone?: unknown }).timezone;
  // No silent default: the process's zone must never be used by accident (SPEC rule 1).
  if (timezone === undefined || timezone === null) throw new TypeError('options.timezone is required (an IANA name such as Europe/London)');
  const ct = compileTariff(tariff);
  return { ct, zone: zoneInfo(timezone as string) };
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

/**
 * Position in ct.rules of the first rule matching at local time localMs, or -1.
 * Sensor slots found unknown on the way are added to `unknown` when given.
 */
export function matchSlot(ct: CompiledTariff, localMs: number, values: Float64Array, unknown: number[] | null): number {
  const day = Math.floor(localMs / DAY_MS);
  const timeOfDay = localMs - day * DAY_MS;
  const weekdayBit = 1 << (((((day + 3) % 7) + 7) % 7) + 1); // ISO weekday; 1970-01-01 was a Thursday
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
  ct: CompiledTariff, zone: ZoneInfo, values: Float64Array, a: number, b: number, out: SegmentList,
  unknown: number[] | null = null,
): void {
  const boundaries = ct.boundariesMs;
  let period = periodIndex(zone, a);
  let t = a;
  while (t < b) {
    const offset = zone.offsetMs[period];
    const periodEnd = Math.min(b, zone.untils[period]);
    out.push(t, matchSlot(ct, t + offset, values, unknown));
    if (boundaries.length > 0) {
      const localStart = t + offset;
      const localEnd = periodEnd + offset;
      for (let dayStart = Math.floor(localStart / DAY_MS) * DAY_MS; dayStart < localEnd; dayStart += DAY_MS) {
        for (let k = 0; k < boundaries.length; k++) {
          const local = dayStart + boundaries[k];
          if (local <= localStart) continue;
          if (local >= localEnd) break;
          out.push(local - offset, matchSlot(ct, local, values, unknown));
        }
      }
    }
    t = periodEnd;
    period++;
  }
}

function priceResult(ct: CompiledTariff, slot: number, unknown: number[]): PriceResult | null {
  if (slot < 0) return null;
  const rule = ct.rules[slot];
  return {
    price: rule.price,
    gross: rule.price * (1 + ct.vat / 100),
    vat: ct.vat,
    currency: ct.currency,
    ruleIndex: rule.ruleIndex,
    priority: rule.priority,
    tariffId: ct.id,
    unknownSensors: unknown.map((s) => ({ ...ct.sensors[s] })),
  };
}

function evaluateAt(ct: CompiledTariff, zone: ZoneInfo, at: number, values: Float64Array): PriceResult | null {
  const unknown: number[] = [];
  const slot = matchSlot(ct, toLocalMs(zone, at), values, unknown);
  return priceResult(ct, slot, unknown);
}

/** The price of the first matching rule at an instant, or null when no rule matches. */
export function priceAt(tariff: Tariff | unknown, at: number | Date | string, options: PriceOptions): PriceResult | null {
  const { ct, zone } = engineContext(tariff, options);
  return evaluateAt(ct, zone, requireEpochMs(at, 'at'), sensorValues(ct, options.sensors));
}

const DEFAULT_HORIZON_MS = 8 * DAY_MS;
// Longer windows are a mistake (seconds for milliseconds, a zero date) that would keep
// the process busy for minutes: refused with a RangeError.
const MAX_WINDOW_MS = 100 * 366 * DAY_MS;

function checkWindow(lengthMs: number, what: string): void {
  if (lengthMs > MAX_WINDOW_MS) throw new RangeError(`${what} is longer than 100 years (${Math.round(lengthMs / DAY_MS)} days)`);
}
const SEARCH_CHUNK_MS = 32 * DAY_MS; // how far ahead to look per step of nextPriceChange

/**
 * The first instant after `from` where the net price (or its absence) differs from the
 * price at `from`, sensors held constant; null if none within horizonMs (inclusive).
 */
export function nextPriceChange(
  tariff: Tariff | unknown,
  from: number | Date | string,
  options: PriceOptions & { horizonMs?: number },
): { at: number; price: PriceResult | null } | null {
  const { ct, zone } = engineContext(tariff, options);
  const start = requireEpochMs(from, 'from');
  const horizon = options.horizonMs ?? DEFAULT_HORIZON_MS;
  if (typeof horizon !== 'number' || !(horizon >= 0)) throw new TypeError(`horizonMs must be a non-negative number, got ${String(horizon)}`);
  checkWindow(horizon, 'horizonMs');
  const values = sensorValues(ct, options.sensors);
  const priceOf = (slot: number) => (slot < 0 ? null : ct.rules[slot].price);
  const current = priceOf(matchSlot(ct, toLocalMs(zone, start), values, null));
  const end = start + horizon;
  for (let a = start; a <= end; a += SEARCH_CHUNK_MS) {
    const segments = new SegmentList();
    appendSegments(ct, zone, values, a, Math.min(a + SEARCH_CHUNK_MS, end + 1), segments);
    const { starts, slots } = segments;
    for (let k = 0; k < segments.length; k++) {
      if (starts[k] > start && starts[k] <= end && priceOf(slots[k]) !== current) {
        return { at: starts[k], price: evaluateAt(ct, zone, starts[k], values) };
      }
    }
  }
  return null;
}

/**
 * The pieces of [from, to) with a constant matching rule, in order, neighbours with
 * the same rule merged. Empty when to <= from.
 */
export function schedule(
  tariff: Tariff | unknown,
  from: number | Date | string,
  to: number | Date | string,
  options: PriceOptions,
): ScheduleEntry[] {
  const { ct, zone } = engineContext(tariff, options);
  const a = requireEpochMs(from, 'from');
  const b = requireEpochMs(to, 'to');
  checkWindow(b - a, 'the schedule window');
  const segments = new SegmentList();
  appendSegments(ct, zone, sensorValues(ct, options.sensors), a, b, segments);
  const { starts, slots, length } = segments;
  const entries: ScheduleEntry[] = [];
  for (let k = 0; k < length; k++) {
    const rule = slots[k] < 0 ? null : ct.rules[slots[k]];
    entries.push({ from: starts[k], to: k + 1 < length ? starts[k + 1] : b, ruleIndex: rule ? rule.ruleIndex : null, price: rule ? rule.price : null });
  }
  return entries;
}
