// monthlyPeaks (semantics rule 41): per local month the highest demand windows, the
// month's value their average; `when` read and matched as a tariff rule's time range
// and weekdays (rules 2, 3 and 6), by the tariff engine itself.
import { MAX_DEMAND_WINDOWS } from '../common/limits';
import { matchSlot } from '../tariff/price';
import { CompiledTariff, compileTariff, isObject } from '../tariff/tariff';
import { ZoneInfo, describe, instantText, localDayNumber, requireEpochMs, toLocalMs, zoneOption } from '../time/time';
import { BillingPeriods, billingPeriodIn, dayOfDate, PeriodRule, periodRule } from './billing-periods';

export interface PeakWindow {
  from: number;
  to: number;
  kw: number;
}

export interface MonthPeaks {
  /** The local calendar month (or billing period, with `periods`), [from, to) in epoch ms. */
  from: number;
  to: number;
  /** The highest windows counted, highest first (ties: the earlier first); at most `top`. */
  peaks: PeakWindow[];
  /** The average kw of the peaks; null when the month has none. */
  value: number | null;
}

/** The local time range and weekdays a window's start must match, written as in a tariff rule. */
export interface PeakHours {
  time_start?: string;
  time_end?: string;
  weekdays?: number[];
  weekday?: number[];
}

export interface MonthlyPeaksOptions {
  timezone: string;
  /** How many windows make a month's value (default 1). */
  top?: number;
  /** At most one window per local day: that day's highest (default false). */
  distinctDays?: boolean;
  /** Only windows whose start matches, as a tariff rule would (default: every window). */
  when?: PeakHours;
  /** Only complete windows count (default true). */
  completeOnly?: boolean;
  /** Local dates (`YYYY-MM-DD`) whose windows never count: the holidays of an on-peak rule (semantics rule 44). */
  holidays?: string[];
  /** Billing periods on meter-read dates instead of calendar months (semantics rule 43). */
  periods?: BillingPeriods;
}

/** What decides whether a window counts and where: checked once. */
export interface PeakRanking {
  zone: ZoneInfo;
  top: number;
  distinctDays: boolean;
  when: CompiledTariff | null;
  holidays: Set<number>;
  periods: PeriodRule;
}

const WHEN_FIELDS = ['time_start', 'time_end', 'weekdays', 'weekday'];
const SENSOR_FIELDS = ['gateway_id', 'sensor_id', 'sensor_value', 'sensor_condition'];
const NO_SENSORS = new Float64Array(0);

/** `when` compiled as the one rule of a tariff; its errors name the field (semantics rule 7). */
function compileWhen(when: unknown): CompiledTariff | null {
  if (when === undefined || when === null) return null;
  if (!isObject(when))
    throw new TypeError(
      `when must be an object such as { time_start: "17:00", time_end: "20:00", weekdays: [1, 2, 3, 4, 5] }, got ${describe(when)}`,
    );
  const sensorField = SENSOR_FIELDS.find((field) => Object.prototype.hasOwnProperty.call(when, field));
  if (sensorField !== undefined)
    throw new TypeError(`when.${sensorField}: peaks are chosen by time of day and weekday only, not by a sensor`);
  const rule: Record<string, unknown> = { priority: 0, price: 0 };
  for (const field of WHEN_FIELDS)
    if (Object.prototype.hasOwnProperty.call(when, field)) rule[field] = (when as Record<string, unknown>)[field];
  try {
    return compileTariff({ id: 'when', name: 'when', vat: 0, currency: '', rules: [rule] });
  } catch (e) {
    // the reason is in the message, renamed to the option; the target's lib has no Error cause
    // eslint-disable-next-line preserve-caught-error
    throw new TypeError((e as Error).message.replace(/^tariff "when" rule 0: /, 'when.'));
  }
}

export function positiveInteger(x: unknown, what: string, fallback: number): number {
  if (x === undefined) return fallback;
  if (!(typeof x === 'number' && Number.isInteger(x) && x >= 1))
    throw new TypeError(`${what} must be a whole number of at least 1, got ${describe(x)}`);
  return x;
}

export function booleanOption(x: unknown, what: string, fallback: boolean): boolean {
  if (x === undefined) return fallback;
  if (typeof x !== 'boolean') throw new TypeError(`${what} must be true or false, got ${describe(x)}`);
  return x;
}

export interface Candidate {
  from: number;
  to: number;
  kw: number;
  counted: boolean;
}

/** The windows read and checked: instants, kw a number, complete a boolean where it is read; in time order, none overlapping. */
export function readWindows(windows: unknown, completeOnly: boolean): Candidate[] {
  if (!Array.isArray(windows)) throw new TypeError('windows must be an array of { from, to, kw, complete }, as demandWindows returns');
  if (windows.length > MAX_DEMAND_WINDOWS) {
    throw new RangeError(`windows holds ${windows.length} windows, more than the ${MAX_DEMAND_WINDOWS} monthlyPeaks reads in one call`);
  }
  const out = Array.from(windows as unknown[], (w: unknown, k): Candidate => {
    if (!isObject(w)) throw new TypeError(`windows[${k}] must be an object { from, to, kw, complete }, got ${describe(w)}`);
    const from = requireEpochMs(w.from, `windows[${k}].from`);
    const to = requireEpochMs(w.to, `windows[${k}].to`);
    if (!(from < to)) throw new RangeError(`windows[${k}]: from (${instantText(from)}) must be before to (${instantText(to)})`);
    if (!(typeof w.kw === 'number' && Number.isFinite(w.kw)))
      throw new TypeError(`windows[${k}].kw must be a finite number, got ${describe(w.kw)}`);
    if (completeOnly && typeof w.complete !== 'boolean') {
      throw new TypeError(`windows[${k}].complete must be true or false (or pass completeOnly: false), got ${describe(w.complete)}`);
    }
    return { from, to, kw: w.kw, counted: !completeOnly || w.complete === true };
  });
  out.sort((a, b) => a.from - b.from); // stable
  for (let k = 1; k < out.length; k++) {
    if (out[k].from < out[k - 1].to) {
      throw new RangeError(
        `windows overlap: one starts at ${instantText(out[k].from)}, before the one before it ends (${instantText(out[k - 1].to)})`,
      );
    }
  }
  return out;
}

/** Highest kw first; equal kw: the earlier window first. */
const byPeak = (a: Candidate, b: Candidate): number => b.kw - a.kw || a.from - b.from;

/** One month's peaks among its counted windows (in time order). */
function monthPeaks(
  zone: ZoneInfo,
  month: { from: number; to: number },
  counted: Candidate[],
  top: number,
  distinctDays: boolean,
): MonthPeaks {
  let pool = counted;
  if (distinctDays) {
    const best = new Map<number, Candidate>(); // local day number -> that day's highest (the earlier on a tie)
    for (const w of counted) {
      const day = localDayNumber(zone, w.from);
      const held = best.get(day);
      if (held === undefined || byPeak(w, held) < 0) best.set(day, w);
    }
    pool = [...best.values()];
  }
  const peaks = pool
    .slice()
    .sort(byPeak)
    .slice(0, top)
    .map(({ from, to, kw }) => ({ from, to, kw }));
  let sum = 0;
  for (const p of peaks) sum += p.kw;
  return { from: month.from, to: month.to, peaks, value: peaks.length > 0 ? sum / peaks.length : null };
}

/** The holidays option checked: local dates as day numbers. */
export function holidayDays(x: unknown): Set<number> {
  if (x === undefined || x === null) return new Set();
  if (!Array.isArray(x) || x.length > MAX_DEMAND_WINDOWS)
    throw new TypeError(`holidays must be a list of dates YYYY-MM-DD, got ${describe(x)}`);
  return new Set(x.map((d: unknown, i) => dayOfDate(d, `holidays[${i}]`)));
}

/** The options that rank windows, checked (errors name the option). */
export function peakRanking(options: MonthlyPeaksOptions): PeakRanking {
  return {
    zone: zoneOption(options),
    top: positiveInteger(options.top, 'top', 1),
    distinctDays: booleanOption(options.distinctDays, 'distinctDays', false),
    when: compileWhen(options.when),
    holidays: holidayDays(options.holidays),
    periods: periodRule(options.periods),
  };
}

/** Whether a window starting at `from` may count: `when` matches its start and its local date is no holiday. */
export function windowCounts(r: PeakRanking, from: number): boolean {
  if (r.holidays.size > 0 && r.holidays.has(localDayNumber(r.zone, from))) return false;
  return r.when === null || matchSlot(r.when, toLocalMs(r.zone, from), NO_SENSORS, null) === 0;
}

/**
 * Per local calendar month of `timezone` holding a window (months in order): the `top`
 * windows with the highest kw among those counted, and their average. A window belongs to
 * the month and day of its start; see docs/semantics.md, rule 41.
 */
export function monthlyPeaks(windows: unknown, options: MonthlyPeaksOptions): MonthPeaks[] {
  const ranking = peakRanking(options);
  const completeOnly = booleanOption(options.completeOnly, 'completeOnly', true);
  return rankedPeaks(readWindows(windows, completeOnly), ranking);
}

/** monthlyPeaks on windows read and options checked. */
export function rankedPeaks(all: readonly Candidate[], ranking: PeakRanking): MonthPeaks[] {
  const { zone, top, distinctDays } = ranking;
  const months: MonthPeaks[] = [];
  for (let k = 0; k < all.length;) {
    const month = billingPeriodIn(zone, ranking.periods, all[k].from);
    if (month === null) {
      k++; // outside the list of read dates: in no period
      continue;
    }
    const counted: Candidate[] = [];
    for (; k < all.length && all[k].from < month.to; k++) {
      const w = all[k];
      if (w.counted && windowCounts(ranking, w.from)) counted.push(w);
    }
    months.push(monthPeaks(zone, month, counted, top, distinctDays));
  }
  return months;
}
