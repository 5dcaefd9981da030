// One month's peaks as easy-peak keeps them, for a meter or for the site: only the peaks
// themselves (at most `top`), never the month's windows. That is exact: monthlyPeaks of
// the peaks so far and one closed window gives the same peaks as monthlyPeaks of every
// window of the month so far, because windows close in order and a window that is not a
// peak now can only be outranked later, never come back (with distinctDays a day that is
// not among the peaks only changes while it is today, and then by a later window of it).
import type { DemandWindow } from '../../engine/peak/demand';
import { monthlyPeaks, PeakHours, PeakRanking, PeakWindow, windowCounts } from '../../engine/peak/monthly-peaks';
import { HOUR_MS, localDayNumber, localDayStart, localPeriod, zoneInfo } from '../../engine/time/time';
import { BillingPeriods, billingPeriodOf, dayOfDate } from '../../engine/peak/billing-periods';
import { billedKw, chargeAmount, chargeContext, ChargeRule, PeriodValue, raiseThreshold } from '../../engine/peak/billing';

export type Peak = PeakWindow;

export interface MonthPeaks {
  from: number;
  to: number;
  peaks: Peak[];
}

/** Where months are: the zone, and the meter-read day or the read dates that start them (neither, or day 1: calendar months). */
export interface PeriodScope {
  timezone: string;
  readDay?: number;
  /** Local dates `YYYY-MM-DD` (at least two, in order): before the first and from the last, monthly on that date's day. */
  readDates?: string[];
}

/** How a month's peaks are ranked (the node's peaks settings) and where its months are. */
export type RankSettings = { top: number; distinctDays: boolean; when: PeakHours | null } & PeriodScope & { holidays?: string[] };

/** The billing period as its periods option (semantics rule 43): none for calendar months; read dates never leave a window in no period. */
export const periodsOf = (where: PeriodScope): BillingPeriods | undefined =>
  where.readDates?.length
    ? { readDates: where.readDates, monthlyBeyond: true }
    : where.readDay !== undefined && where.readDay > 1
      ? { readDay: where.readDay }
      : undefined;

/** The month holding instant `at`: the local calendar month, or the billing period from a read day or read dates (a zone alone: the calendar month). */
export function monthOf(at: number, where: string | PeriodScope): { from: number; to: number } {
  if (typeof where === 'string') return localPeriod('month', at, { timezone: where });
  const periods = periodsOf(where);
  return periods ? billingPeriodOf(at, where.timezone, periods)! : localPeriod('month', at, { timezone: where.timezone });
}

/**
 * Read dates run out: at `now` from the last one on, the words saying so (the months go on
 * monthly on its day until the next dates are set); null before it, or without read dates.
 */
export function readDatesEnded(where: PeriodScope, now: number): string | null {
  const dates = where.readDates ?? [];
  if (dates.length === 0) return null;
  const last = dates[dates.length - 1];
  if (now < localDayStart(zoneInfo(where.timezone), dayOfDate(last, 'the last read date'))) return null;
  return (
    `the read dates end on ${last}: from it the months run monthly from day ${Number(last.slice(8, 10))} of the month; ` +
    "add the next read dates in the node's settings"
  );
}

/** The month's value: the average kW of its peaks, null without any. */
export function monthValue(month: MonthPeaks | null): number | null {
  if (!month || month.peaks.length === 0) return null;
  return month.peaks.reduce((sum, p) => sum + p.kw, 0) / month.peaks.length;
}

/** A peak as monthlyPeaks takes windows: complete (only complete windows become peaks). */
const asWindow = (p: Peak): DemandWindow => ({
  from: p.from,
  to: p.to,
  kw: p.kw,
  energy: (p.kw * (p.to - p.from)) / HOUR_MS,
  complete: true,
});

/**
 * The month after one more closed window: a window of a later month starts that month
 * from zero; one of an earlier month changes nothing. `newPeak` says whether the window is
 * now one of the month's peaks.
 */
export function addClosedWindow(
  month: MonthPeaks | null,
  window: DemandWindow,
  rank: RankSettings,
): { month: MonthPeaks; newPeak: boolean } {
  const bounds = monthOf(window.from, rank);
  if (month && bounds.from < month.from) return { month, newPeak: false };
  const current: MonthPeaks = month && month.from === bounds.from ? month : { ...bounds, peaks: [] };
  const ranked = monthlyPeaks([...current.peaks.map(asWindow), window], {
    timezone: rank.timezone,
    top: rank.top,
    distinctDays: rank.distinctDays,
    ...(rank.when ? { when: rank.when } : {}),
    ...(rank.holidays?.length ? { holidays: rank.holidays } : {}),
    periods: periodsOf(rank),
  });
  const mine = ranked.find((m) => m.from === bounds.from);
  const peaks = (mine?.peaks ?? []).map((p) => ({ from: p.from, to: p.to, kw: p.kw }));
  return { month: { ...bounds, peaks }, newPeak: peaks.some((p) => p.from === window.from) };
}

/** The peaks to show for the month holding `at`: the kept month's, or none when it is an older one (a new month starts from zero). */
export function monthAt(month: MonthPeaks | null, at: number, where: string | PeriodScope): MonthPeaks {
  if (month && at >= month.from && at < month.to) return month; // most readings: no zone arithmetic
  const bounds = monthOf(at, where);
  return month && month.from === bounds.from ? month : { ...bounds, peaks: [] };
}

/** The months kept for looking back: the most a bill looks back (24 periods) and the one before. */
export const MAX_HISTORY = 25;

/** A charge's month so far and the values of the months before (oldest first, at most MAX_HISTORY). */
export interface ChargeMonths {
  month: MonthPeaks | null;
  history: PeriodValue[];
}

/** One more closed window into `m`: a new month keeps the one before's value for the bill's look back. */
export function addToMonths(m: ChargeMonths, window: DemandWindow, rank: RankSettings): { newPeak: boolean } {
  const added = addClosedWindow(m.month, window, rank);
  if (m.month && added.month.from > m.month.from)
    m.history = [...m.history, { from: m.month.from, value: monthValue(m.month) }].slice(-MAX_HISTORY);
  m.month = added.month;
  return { newPeak: added.newPeak };
}

/**
 * The peaks of `peaks` (a month's, ranked by `r`) with one more window `w`: as monthlyPeaks
 * would rank them (a window `when` or the holidays leave out changes nothing; with
 * distinctDays a day's higher window replaces its lower one), without compiling anything.
 */
export function withWindow(r: PeakRanking, peaks: readonly Peak[], w: Peak): Peak[] {
  if (!windowCounts(r, w.from)) return peaks.slice();
  const pool = peaks.slice();
  if (r.distinctDays) {
    const day = localDayNumber(r.zone, w.from);
    const same = pool.findIndex((p) => localDayNumber(r.zone, p.from) === day);
    if (same >= 0 && pool[same].kw >= w.kw) return pool;
    if (same >= 0) pool.splice(same, 1);
  }
  pool.push(w);
  return pool.sort((a, b) => b.kw - a.kw || a.from - b.from).slice(0, r.top);
}

/**
 * The bill of `month` (semantics rule 45) after the months before (`history`): the billed kW
 * and the demand charge so far, the kW the window starting at `from` must beat to raise it
 * (rule 46; Infinity: it cannot), and projected to the month's end: with the window under
 * way (`under`) at its projected kW and no later window above the peaks so far (null
 * without a projection).
 */
export function monthBill(charge: ChargeRule, month: MonthPeaks, history: PeriodValue[], from: number, under?: Peak | null) {
  const ctx = chargeContext(charge, month.from, history);
  const billed = billedKw(charge, monthValue(month), ctx);
  const projected = under ? billedKw(charge, monthValue({ ...month, peaks: withWindow(charge.ranking, month.peaks, under) }), ctx) : null;
  return {
    billedKw: billed,
    amount: chargeAmount(charge, billed),
    raiseKw: raiseThreshold(charge, month.peaks, from, ctx),
    projected: projected === null ? null : { billedKw: projected, amount: chargeAmount(charge, projected) },
  };
}
