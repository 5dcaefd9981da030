// The 7-day price chart of the easy-tariff and easy-plan dialogs: one line per sensor
// situation, each exactly the engine's `schedule`, days cut at local midnight.
import { compiledSchedule, engineContext, ScheduleEntry, SensorValues } from '../engine/prices/price-source';
import { sensorKey, sensorNumber, sensorsUsedBy, Tariff } from '../engine/tariff/tariff';
import { localPeriodIn, zoneInfo } from '../engine/time/time';
import { dataRecord, setNested } from '../engine/common/id-map';

export interface ChartLine {
  /** 'base': every sensor the rules read at 0 (generator off); else one sensor at another value. */
  key: string;
  /** The sensor values this line was computed with (null: the tariff reads no sensor). */
  sensors: SensorValues | null;
  /** The sensor that differs from the base line, for its legend. */
  changed: { gatewayId: string; sensorId: string; value: number } | null;
  /** Exactly `schedule(tariff, from, to, { timezone, sensors })`. */
  segments: ScheduleEntry[];
}

export interface ChartData {
  tariffId: string;
  tariffName: string;
  currency: string;
  vat: number;
  timezone: string;
  /** Local midnight of today … local midnight `days` days later (not always 24 h a day: DST). */
  from: number;
  to: number;
  now: number;
  /** Instants of each local midnight from `from` to `to` (days + 1 of them). */
  dayStarts: number[];
  today: { from: number; to: number };
  lines: ChartLine[];
  /** Lowest and highest net price over all lines; null when no rule matches anywhere. */
  minPrice: number | null;
  maxPrice: number | null;
}

export const CHART_DAYS = 7;
/** Alternative lines are capped: a tariff reading many sensors gets a legible chart. */
const MAX_ALTERNATIVES = 6;
/** Alternatives computed at most (most tried ones only repeat the base line): bounds the work. */
const MAX_TRIED_ALTERNATIVES = 2 * MAX_ALTERNATIVES;

/** Starts of the local days in `timezone` from the day containing `now`, `days` + 1 of them (localPeriod's). */
export function localDayStarts(now: number, timezone: string, days: number): number[] {
  const zone = zoneInfo(timezone);
  const out = [localPeriodIn(zone, 'day', now).from];
  for (let d = 0; d < days; d++) out.push(localPeriodIn(zone, 'day', out[d]).to);
  return out;
}

/** Whether two schedules of the same window give the same price everywhere (one pass over both). */
export function samePrices(a: ScheduleEntry[], b: ScheduleEntry[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i].price !== b[j].price) return false;
    const aTo = a[i].to;
    const bTo = b[j].to;
    if (aTo <= bTo) i++;
    if (bTo <= aTo) j++;
  }
  return i === a.length && j === b.length;
}

/**
 * The chart's data for the week from today's local midnight: one line with every sensor
 * the rules read at 0, and for each such sensor and each other value its rules compare
 * with (1 for a generator input) a line where only that sensor has that value, kept when
 * its prices differ somewhere (the first MAX_TRIED_ALTERNATIVES candidates are computed,
 * at most). Every line's segments are the engine's `schedule`.
 */
export function chartData(tariff: Tariff, now: number, timezone: string, days = CHART_DAYS, source: unknown = tariff): ChartData {
  const dayStarts = localDayStarts(now, timezone, days);
  const from = dayStarts[0];
  const to = dayStarts[dayStarts.length - 1];
  const refs = sensorsUsedBy(tariff);
  const valuesFor = (values: Array<[string, string, number]>): SensorValues | null => {
    if (refs.length === 0) return null;
    const out: SensorValues = dataRecord();
    for (const [gw, id, v] of values) setNested(out, gw, id, v);
    return out;
  };
  const base = refs.map((r): [string, string, number] => [r.gatewayId, r.sensorId, 0]);
  const baseSensors = valuesFor(base);
  // compiled once: each line is schedule(tariff, from, to, { timezone, sensors })
  const { ct, zone } = engineContext(source, { timezone });
  const run = (sensors: SensorValues | null) => compiledSchedule(ct, zone, from, to, sensors);
  const lines: ChartLine[] = [{ key: 'base', sensors: baseSensors, changed: null, segments: run(baseSensors) }];

  // the values each sensor's rules compare with, gathered in one pass over the rules
  const compared = new Map<string, Set<number>>();
  for (const rule of tariff.rules) {
    if (typeof rule.gateway_id !== 'string' || typeof rule.sensor_id !== 'string') continue;
    const key = sensorKey(rule.gateway_id, rule.sensor_id);
    const v = sensorNumber(rule.sensor_value);
    if (v === v) (compared.get(key) ?? compared.set(key, new Set()).get(key)!).add(v);
  }
  let triedLines = 0;
  for (const ref of refs) {
    if (lines.length > MAX_ALTERNATIVES || triedLines >= MAX_TRIED_ALTERNATIVES) break;
    const tried = new Set<number>([1]);
    for (const v of compared.get(sensorKey(ref.gatewayId, ref.sensorId)) ?? []) tried.add(v);
    tried.delete(0);
    for (const value of [...tried].sort((a, b) => a - b)) {
      if (lines.length > MAX_ALTERNATIVES || triedLines++ >= MAX_TRIED_ALTERNATIVES) break;
      const sensors = valuesFor(
        base.map(([gw, id, v]): [string, string, number] => (gw === ref.gatewayId && id === ref.sensorId ? [gw, id, value] : [gw, id, v])),
      );
      const segments = run(sensors);
      if (samePrices(segments, lines[0].segments)) continue;
      lines.push({ key: `${ref.gatewayId}/${ref.sensorId}=${value}`, sensors, changed: { ...ref, value }, segments });
    }
  }

  // a stack (an easy-prices node's list over the tariff): its parts as two more lines, from the base line's segments
  const stacked = lines[0].segments;
  if (source !== tariff) {
    for (const part of ['spot', 'fees'] as const) {
      const segments = stacked.map((s) => ({ ...s, price: (s as ScheduleEntry & Partial<Record<typeof part, number>>)[part] ?? null }));
      lines.push({ key: part, sensors: lines[0].sensors, changed: null, segments });
    }
  }
  let minPrice: number | null = null;
  let maxPrice: number | null = null;
  for (const line of lines) {
    for (const { price } of line.segments) {
      if (price === null) continue;
      if (minPrice === null || price < minPrice) minPrice = price;
      if (maxPrice === null || price > maxPrice) maxPrice = price;
    }
  }
  return {
    tariffId: tariff.id,
    tariffName: tariff.name,
    // the VAT and currency of what the chart prices (a stack's own VAT, 0 when included), as the engine's results say them
    currency: ct.currency,
    vat: ct.vat,
    timezone,
    from,
    to,
    now,
    dayStarts,
    today: { from: dayStarts[0], to: dayStarts[1] },
    lines,
    minPrice,
    maxPrice,
  };
}
