// A slow, independent reading of the billing rules (docs/semantics.md, rules 43-45) for
// the property tests: the local date of each window's start read by Intl (wallClock),
// periods named by their first local date, peaks by sorting every candidate, the billed
// kW and the amount written out per rule.
import { SlowWhen, SlowWindow, slowMatches, wallClock } from './demand-reference';

export interface SlowCharge {
  top?: number;
  distinctDays?: boolean;
  when?: SlowWhen;
  holidays?: string[];
  basis?: 'period' | 'rolling' | 'year-max';
  rollingPeriods?: number;
  floorKw?: number;
  ratchet?: { percent: number; periods: number };
  pricePerKw?: number;
  steps?: Array<{ uptoKw?: number; amount: number }>;
  blocks?: Array<{ uptoKw?: number; pricePerKw: number }>;
}

export interface SlowPeriods {
  readDay?: number;
  readDates?: string[];
  monthlyBeyond?: boolean;
}

const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
const pad = (n: number): string => String(n).padStart(2, '0');

/** The period of a local date `YYYY-MM-DD`: its index (for looking back) and its first date; null outside the read dates. */
export function slowPeriod(date: string, periods: SlowPeriods | undefined): { index: number; first: string } | null {
  if (periods?.readDates) {
    const dates = periods.readDates;
    let k = -1;
    for (let i = 0; i < dates.length; i++) if (dates[i] <= date) k = i;
    if (k >= 0 && k < dates.length - 1) return { index: k, first: dates[k] };
    if (!periods.monthlyBeyond) return null;
    // beyond the list: monthly on the end date's day of the month, indexes going on from the end date's
    const end = k < 0 ? 0 : dates.length - 1;
    const month = (first: string): number => Number(first.slice(0, 4)) * 12 + Number(first.slice(5, 7));
    const p = slowPeriod(date, { readDay: Number(dates[end].slice(8, 10)) })!;
    return { index: end + month(p.first) - month(dates[end]), first: p.first };
  }
  const d = periods?.readDay ?? 1;
  let [y, m] = date.split('-').map(Number);
  const day = Number(date.slice(8, 10));
  if (day < Math.min(d, daysIn(y, m))) [y, m] = m === 1 ? [y - 1, 12] : [y, m - 1];
  return { index: y * 12 + m, first: `${y}-${pad(m)}-${pad(Math.min(d, daysIn(y, m)))}` };
}

const localDate = (zone: string, ms: number): string => new Date(wallClock(zone, ms)).toISOString().slice(0, 10);

/** One charge's value per period: the average of its top windows (fewer early on), null with none counted. */
export function slowValues(windows: SlowWindow[], zone: string, periods: SlowPeriods | undefined, c: SlowCharge) {
  const byPeriod = new Map<number, { first: string; list: SlowWindow[] }>();
  for (const w of windows.slice().sort((a, b) => a.from - b.from)) {
    const date = localDate(zone, w.from);
    const p = slowPeriod(date, periods);
    if (!p) continue;
    if (!byPeriod.has(p.index)) byPeriod.set(p.index, { first: p.first, list: [] });
    const counts = w.complete && !(c.holidays ?? []).includes(date) && slowMatches(c.when, wallClock(zone, w.from));
    if (counts) byPeriod.get(p.index)!.list.push(w);
  }
  return [...byPeriod].map(([index, { first, list }]) => {
    let pool = list;
    if (c.distinctDays) {
      const best = new Map<string, SlowWindow>();
      for (const w of list) {
        const day = localDate(zone, w.from);
        const held = best.get(day);
        if (!held || w.kw > held.kw) best.set(day, w);
      }
      pool = [...best.values()];
    }
    const peaks = pool.sort((a, b) => b.kw - a.kw || a.from - b.from).slice(0, c.top ?? 1);
    return { index, first, peaks, value: peaks.length ? peaks.reduce((s, p) => s + p.kw, 0) / peaks.length : null };
  });
}

/** The billed kW of each period from the values of all (in order), per the charge's rule. */
export function slowBilled(values: Array<{ index: number; first: string; value: number | null }>, c: SlowCharge): number[] {
  const floor = c.floorKw ?? 0;
  return values.map((p) => {
    const before = values.filter((q) => q.index < p.index);
    let billed = Math.max(p.value ?? 0, floor);
    if (c.basis === 'rolling') {
      const n = c.rollingPeriods ?? 12;
      const inside = [...before.filter((q) => q.index > p.index - n), p];
      billed = inside.reduce((s, q) => s + Math.max(q.value ?? 0, floor), 0) / inside.length;
    }
    if (c.basis === 'year-max')
      for (const q of before) if (q.first.slice(0, 4) === p.first.slice(0, 4)) billed = Math.max(billed, q.value ?? 0);
    if (c.ratchet) {
      const prior = before.filter((q) => q.index >= p.index - c.ratchet!.periods);
      const most = prior.reduce((m, q) => Math.max(m, q.value ?? 0), 0);
      billed = Math.max(billed, (c.ratchet.percent / 100) * most);
    }
    return billed;
  });
}

/** What `kw` billed costs: per kW, the step holding it (an edge in the lower step), or per kW in blocks. */
export function slowAmount(c: SlowCharge, kw: number): number {
  if (c.pricePerKw !== undefined) return c.pricePerKw * kw;
  if (c.steps) return (c.steps.find((s) => s.uptoKw === undefined || kw <= s.uptoKw) ?? c.steps[c.steps.length - 1]).amount;
  let sum = 0;
  let lower = 0;
  for (const b of c.blocks!) {
    const upper = b.uptoKw ?? Infinity;
    if (kw > lower) sum += b.pricePerKw * (Math.min(kw, upper) - lower);
    lower = upper;
  }
  return sum;
}
