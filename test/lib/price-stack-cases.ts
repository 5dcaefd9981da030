// The generated cases of the price-stack reference tests (price-stack-reference.test.ts,
// price-stack-plans-reference.test.ts) and their slow, obviously correct reference: the
// stacked price of every minute, found by walking the minutes, reading the local time with
// Intl (not the engine's zone code) and trying the fee rules in priority order. Every
// change of either layer lies on the minute grid here (quarter-hour lists, rule times on
// 5 minutes, whole-hour DST changes), so the price is constant within each minute and the
// minute walk is exact.
import should from 'should';
import { prng } from './engine-fixtures';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import type { PriceStack } from '../../nodes/lib/engine/prices/price-stack';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';

export const MIN = 60_000;
export const ZONES = ['Europe/Oslo', 'Europe/Brussels', 'Europe/London', 'Australia/Sydney'];
/** The zone's clock changes in 2025-2027, found by Intl alone (offset differs an hour later). */
export function clockChanges(zone: string): number[] {
  const out: number[] = [];
  for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2028, 0, 1); t += 3600e3) {
    if (offsetMinutes(zone, t) !== offsetMinutes(zone, t + 3600e3)) out.push(t + 3600e3);
  }
  return out;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/** Local wall clock by Intl: [ISO weekday 1-7, minutes since local midnight]. */
function intlClock(zone: string, at: number): [number, number] {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, f);
  }
  const parts = f.formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1;
  return [weekday, Number(get('hour')) * 60 + Number(get('minute'))];
}

const hourClocks = new Map<string, [number, number]>();
/**
 * Local wall clock by Intl, asked once per UTC hour: where Intl puts that hour's start on
 * a whole local hour (the offset is whole hours), its minutes run with the UTC minutes;
 * otherwise Intl is asked for the minute itself.
 */
function localClock(zone: string, at: number): [number, number] {
  const hour = Math.floor(at / 3600e3) * 3600e3;
  const key = `${zone} ${hour}`;
  let start = hourClocks.get(key);
  if (start === undefined) {
    start = intlClock(zone, hour);
    if (hourClocks.size > 100_000) hourClocks.clear();
    hourClocks.set(key, start);
  }
  if (start[1] % 60 !== 0) return intlClock(zone, at);
  return [start[0], start[1] + Math.floor((at - hour) / MIN)];
}

function offsetMinutes(zone: string, at: number): number {
  const [, local] = localClock(zone, at);
  const utc = Math.floor(at / MIN) % 1440;
  return (((local - utc) % 1440) + 1440 + 720) % 1440;
}

export interface Case {
  zone: string;
  from: number;
  to: number;
  entries: Array<{ start: number; end?: number; price: number }>;
  resolution: number;
  fees: Tariff | undefined;
  addOns: number;
  vat: number | 'included';
  sensors: { gw: { s: number } };
  /** Where the list has no price: none (absent) or the fees alone. */
  beyond?: 'fees';
}

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export function generate(seed: number, changes: Map<string, number[]>): Case {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const zone = pick(ZONES);
  const change = pick(changes.get(zone)!);
  const from = change - Math.floor(rnd() * 80) * 15 * MIN;
  const span = (4 + Math.floor(rnd() * 27)) * 3600e3;
  const entries: Case['entries'] = [];
  let t = from;
  let resolution = pick([15, 30, 60]) * MIN;
  while (t < from + span) {
    if (rnd() < 0.1) resolution = pick([15, 30, 60]) * MIN;
    const price = Math.round((rnd() * 0.8 - 0.2) * 20) / 100; // -0.2 .. 0.6, few values: ties
    const entry: Case['entries'][number] = { start: t, price };
    const gap = rnd() < 0.06;
    if (gap || rnd() < 0.1) entry.end = t + resolution;
    entries.push(entry);
    t += resolution + (gap ? pick([15, 30, 45, 120]) * MIN : 0);
  }
  const last = entries[entries.length - 1];
  if (last.end === undefined && rnd() < 0.5) last.end = last.start + resolution;
  let fees: Tariff | undefined;
  if (rnd() < 0.85) {
    const rules: Rule[] = [];
    for (let k = 0, n = 1 + Math.floor(rnd() * 4); k < n; k++) {
      const rule: Rule = { priority: Math.floor(rnd() * 5), price: Math.round(rnd() * 40) / 100 };
      if (rnd() < 0.8) {
        const a = Math.floor(rnd() * 288) * 5;
        const b = Math.floor(rnd() * 289) * 5;
        Object.assign(rule, { time_start: hhmm(a), time_end: b === 1440 ? '24:00' : hhmm(b) });
      }
      if (rnd() < 0.3) rule.weekdays = [1 + Math.floor(rnd() * 7), 1 + Math.floor(rnd() * 7)];
      if (rnd() < 0.15) Object.assign(rule, { gateway_id: 'gw', sensor_id: 's', sensor_value: pick([0, 1]), sensor_condition: 'eq' });
      rules.push(rule);
    }
    if (rnd() < 0.7) rules.push({ priority: 9, price: 0.05 });
    fees = { id: 'fees', name: 'fees', vat: 25, currency: 'EUR', rules };
  }
  return {
    zone,
    from,
    to: Math.max(from + span, last.end ?? last.start + resolution),
    entries,
    resolution,
    fees,
    addOns: pick([0, 0.01, 0.0125]),
    vat: pick([0, 25, 'included'] as const),
    sensors: { gw: { s: pick([0, 1]) } },
  };
}

/** The reference: the stacked net price (and its parts) of each minute of [from, to); null = none. */
export function referencePrices(c: Case): Array<{ price: number; spot: number; fee: number } | null> {
  const out: Array<{ price: number; spot: number; fee: number } | null> = [];
  const order = c.fees ? c.fees.rules.map((_, i) => i).sort((a, b) => c.fees!.rules[a].priority - c.fees!.rules[b].priority || a - b) : [];
  const ends = c.entries.map((e, k) => e.end ?? (k + 1 < c.entries.length ? c.entries[k + 1].start : e.start + c.resolution));
  let k = 0;
  for (let m = c.from; m < c.to; m += MIN) {
    while (k < ends.length && ends[k] <= m) k++;
    const spot = k < ends.length && c.entries[k].start <= m ? c.entries[k].price : null;
    if (spot === null && (c.beyond !== 'fees' || !c.fees)) {
      out.push(null);
      continue;
    }
    let fee: number | null = 0;
    if (c.fees) {
      fee = null;
      const [weekday, minute] = localClock(c.zone, m);
      for (const i of order) {
        const r = c.fees.rules[i];
        if (r.weekdays && !r.weekdays.includes(weekday)) continue;
        if (r.time_start !== undefined) {
          const toMin = (s: string) => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
          const a = toMin(r.time_start);
          const b = toMin(r.time_end!);
          const inside = a === b || (a === 0 && b === 1440) || (b > a ? minute >= a && minute < b : minute >= a || minute < b);
          if (!inside) continue;
        }
        if (r.gateway_id !== undefined && c.sensors.gw.s !== r.sensor_value) continue;
        fee = r.price;
        break;
      }
    }
    // beyond the list: the fees alone, no add-ons (rule 58)
    if (fee === null) out.push(null);
    else out.push(spot === null ? { price: fee, spot: 0, fee } : { price: spot + fee + c.addOns, spot, fee });
  }
  return out;
}

export const stackOf = (c: Case): PriceStack => ({
  list: priceList(c.entries, { resolution: c.resolution }),
  fees: c.fees,
  addOns: c.addOns,
  vat: c.vat,
  beyond: c.beyond,
});
export const close = (a: number, b: number, what: string) =>
  should(Math.abs(a - b)).be.belowOrEqual(1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
