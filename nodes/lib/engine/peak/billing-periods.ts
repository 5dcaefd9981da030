// Billing periods (semantics rule 43): the calendar month, or the periods between meter
// reads, on a day of the month or on a list of dates. A period starts where its first
// local day starts (localDayStart), so periods tile time exactly across clock changes.
import { MAX_DEMAND_WINDOWS } from '../common/limits';
import { isObject } from '../tariff/tariff';
import {
  ZoneInfo,
  civilFromDays,
  daysFromCivil,
  describe,
  localDayNumber,
  localDayStart,
  localPeriodIn,
  requireEpochMs,
  zoneOption,
} from '../time/time';

/** How a bill's periods are cut: `readDay` (1-31, the last day of a shorter month) or `readDates` (`YYYY-MM-DD`); default: calendar months. */
export interface BillingPeriods {
  readDay?: number;
  readDates?: string[];
  /** With readDates: before the first date and from the last one, periods run monthly on that date's day of the month (default false: no period). */
  monthlyBeyond?: boolean;
}

/** Periods checked once: `null` is calendar months. */
export type PeriodRule = { kind: 'day'; day: number } | { kind: 'dates'; days: number[]; monthlyBeyond: boolean } | null;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local date `YYYY-MM-DD` as a day number, or an error naming it. */
export function dayOfDate(text: unknown, what: string): number {
  const m = typeof text === 'string' ? DATE.exec(text) : null;
  const day = m ? daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])) : NaN;
  const back = Number.isFinite(day) ? civilFromDays(day) : null;
  if (!m || !back || back.month !== Number(m[2]) || back.day !== Number(m[3]))
    throw new TypeError(`${what} must be a date YYYY-MM-DD, got ${describe(text)}`);
  return day;
}

/** The periods option checked: a read day, read dates (in order, at least two), or nothing (calendar months). */
export function periodRule(x: unknown): PeriodRule {
  if (x === undefined || x === null) return null;
  if (!isObject(x)) throw new TypeError(`periods must be { readDay } or { readDates }, got ${describe(x)}`);
  const { readDay, readDates, monthlyBeyond } = x as BillingPeriods;
  if ((readDay === undefined) === (readDates === undefined)) throw new TypeError('periods takes one of readDay or readDates');
  if (monthlyBeyond !== undefined && (typeof monthlyBeyond !== 'boolean' || readDates === undefined))
    throw new TypeError(`periods.monthlyBeyond must be true or false, beside readDates, got ${describe(monthlyBeyond)}`);
  if (readDay !== undefined) {
    if (!(Number.isInteger(readDay) && readDay >= 1 && readDay <= 31))
      throw new TypeError(`periods.readDay must be a day of the month from 1 to 31, got ${describe(readDay)}`);
    return readDay === 1 ? null : { kind: 'day', day: readDay };
  }
  if (!Array.isArray(readDates) || readDates.length < 2 || readDates.length > MAX_DEMAND_WINDOWS)
    throw new TypeError(`periods.readDates must be a list of at least two dates YYYY-MM-DD, got ${describe(readDates)}`);
  const days = readDates.map((d, i) => dayOfDate(d, `periods.readDates[${i}]`));
  for (let i = 1; i < days.length; i++)
    if (!(days[i] > days[i - 1])) throw new RangeError(`periods.readDates must be in order, each after the one before: ${readDates[i]}`);
  return { kind: 'dates', days, monthlyBeyond: monthlyBeyond === true };
}

/** The first day of the read-day period holding day number d, and of the next one. */
function readDayDays(readDay: number, d: number): [number, number] {
  const { year, month } = civilFromDays(d);
  const startOf = (y: number, m: number): number => {
    const next = m === 12 ? daysFromCivil(y + 1, 1, 1) : daysFromCivil(y, m + 1, 1);
    return Math.min(daysFromCivil(y, m, 1) + readDay - 1, next - 1); // day 31 in a month of 30: its last day
  };
  const shift = (y: number, m: number, by: number): [number, number] => {
    const k = y * 12 + (m - 1) + by;
    return [Math.floor(k / 12), (k % 12) + 1];
  };
  const here = startOf(year, month);
  if (d >= here) return [here, startOf(...shift(year, month, 1))];
  return [startOf(...shift(year, month, -1)), here];
}

/** The billing period holding instant ms: [from, to); null outside a list of read dates. */
export function billingPeriodIn(zone: ZoneInfo, rule: PeriodRule, ms: number): { from: number; to: number } | null {
  if (rule === null) return localPeriodIn(zone, 'month', ms);
  const d = localDayNumber(zone, ms);
  let first: number;
  let next: number;
  if (rule.kind === 'day') [first, next] = readDayDays(rule.day, d);
  else {
    const { days } = rule;
    let lo = 0;
    let hi = days.length - 1;
    if (d < days[0] || d >= days[hi]) {
      if (!rule.monthlyBeyond) return null;
      // the end date is a start of its own day-of-month periods, so these tile with the list's
      [first, next] = readDayDays(civilFromDays(d < days[0] ? days[0] : days[hi]).day, d);
    } else {
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (days[mid] <= d) lo = mid;
        else hi = mid;
      }
      [first, next] = [days[lo], days[hi]];
    }
  }
  const from = localDayStart(zone, first);
  const to = localDayStart(zone, next);
  // only where the clock is set back across midnight can ms lie outside its local date's period
  if (ms < from) return billingPeriodIn(zone, rule, from - 1);
  if (ms >= to) return billingPeriodIn(zone, rule, to);
  return { from, to };
}

/** The start of the period `n` periods before the one starting at `from` (as far back as the list goes). */
export function periodStartBefore(zone: ZoneInfo, rule: PeriodRule, from: number, n: number): number {
  let start = from;
  for (let i = 0; i < n; i++) {
    const before = billingPeriodIn(zone, rule, start - 1);
    if (before === null) break;
    start = before.from;
  }
  return start;
}

/**
 * The billing period holding instant `at` in `timezone` (semantics rule 43): `[from, to)`
 * in epoch ms; `periods` `{ readDay }` or `{ readDates }` (default: the calendar month).
 * Null outside a list of read dates.
 */
export function billingPeriodOf(at: unknown, timezone: string, periods?: BillingPeriods): { from: number; to: number } | null {
  return billingPeriodIn(zoneOption({ timezone }), periodRule(periods), requireEpochMs(at, 'at'));
}
