// Running energy and cost totals for the cost node's stream mode: today, this week (ISO,
// Monday first), this month in one IANA zone, and a total since counting began. Pure
// state in, state out; the node stores `state` in its context so totals survive a
// restart. Pricing an interval is the caller's (computeCost), so this file only knows
// about periods.
import moment from 'moment-timezone';
import { assertTimeZone } from './time';

export type PeriodName = 'day' | 'week' | 'month';
export const PERIODS: readonly PeriodName[] = ['day', 'week', 'month'];
const MOMENT_UNIT: Record<PeriodName, moment.unitOfTime.StartOf> = { day: 'day', week: 'isoWeek', month: 'month' };
const MOMENT_LENGTH: Record<PeriodName, moment.unitOfTime.DurationConstructor> = { day: 'day', week: 'week', month: 'month' };

/** What one interval between two readings contributed (from computeCost). */
export interface IntervalCost {
  energy: number;
  net: number;
  gross: number;
  unpricedEnergy: number;
  /** Counter resets seen in this interval (the interval then counts 0 kWh). */
  resets: number;
}

/** Sums over one period; `from`/`to` are the period's bounds in epoch ms. */
export interface Bucket extends IntervalCost {
  from: number;
  /** End of the period (exclusive); `null` for the open-ended total. */
  to: number | null;
  intervals: number;
}

export interface Reading {
  ts: number;
  value: number;
}

export interface TotalsState {
  version: 1;
  timezone: string;
  tariffId: string;
  /** The last accepted reading: the start of the next interval. */
  last: Reading | null;
  day: Bucket | null;
  week: Bucket | null;
  month: Bucket | null;
  total: Bucket | null;
}

/** Why a reading was not counted; it is reported, never silently lost. */
export type Ignored = 'duplicate' | 'out_of_order';

export interface AddResult {
  state: TotalsState;
  /** Set when the reading was not counted. */
  ignored?: Ignored;
  /** Periods that ended with this reading, with their final sums (e.g. yesterday). */
  closed: Partial<Record<PeriodName, Bucket>>;
  /** What the interval ending at this reading added, if one was counted. */
  interval?: IntervalCost & { from: number; to: number };
}

/** The period of `name` containing instant `ms` in `timezone`, DST-correct (a local day may be 23 or 25 h). */
export function periodBounds(name: PeriodName, ms: number, timezone: string): { from: number; to: number } {
  const start = moment.tz(ms, timezone).startOf(MOMENT_UNIT[name]);
  return { from: start.valueOf(), to: start.clone().add(1, MOMENT_LENGTH[name]).valueOf() };
}

function emptyBucket(from: number, to: number | null): Bucket {
  return { from, to, energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0, intervals: 0 };
}

function addTo(bucket: Bucket, c: IntervalCost): void {
  bucket.energy += c.energy;
  bucket.net += c.net;
  bucket.gross += c.gross;
  bucket.unpricedEnergy += c.unpricedEnergy;
  bucket.resets += c.resets;
  bucket.intervals += 1;
}

export function newTotals(timezone: string, tariffId: string): TotalsState {
  assertTimeZone(timezone);
  return { version: 1, timezone, tariffId, last: null, day: null, week: null, month: null, total: null };
}

/**
 * Counts reading `r`: the interval from the last reading to `r` is priced by `costOf`
 * and added to the periods in which it *starts* (the same "start" attribution SPEC
 * rule 11 uses for prices), then every period is moved on to the one containing `r`,
 * closing the ones that ended. The first reading only opens the periods.
 *
 * Readings must come in time order: one at the same instant as the last is a
 * duplicate, an older one is out of order; both are ignored and said so.
 */
export function addReading(state: TotalsState, r: Reading, costOf: (from: Reading, to: Reading) => IntervalCost): AddResult {
  const next: TotalsState = JSON.parse(JSON.stringify(state));
  const last = next.last;
  if (last && r.ts === last.ts) return { state, ignored: 'duplicate', closed: {} };
  if (last && r.ts < last.ts) return { state, ignored: 'out_of_order', closed: {} };

  let interval: AddResult['interval'];
  if (last) {
    const cost = costOf(last, r);
    for (const name of PERIODS) addTo(next[name]!, cost);
    addTo(next.total!, cost);
    interval = { ...cost, from: last.ts, to: r.ts };
  } else if (!next.total) {
    next.total = emptyBucket(r.ts, null);
  }

  const closed: AddResult['closed'] = {};
  for (const name of PERIODS) {
    const bucket = next[name];
    if (bucket && r.ts < bucket.to!) continue;
    if (bucket) closed[name] = bucket;
    const { from, to } = periodBounds(name, r.ts, next.timezone);
    next[name] = emptyBucket(from, to);
  }
  next.last = { ts: r.ts, value: r.value };
  return { state: next, closed, interval };
}

/**
 * The state restored from storage, or why it cannot be used (then counting starts from
 * zero). Totals of another tariff or zone would mix prices or periods, so they are not
 * carried over.
 */
export function restoreTotals(stored: unknown, timezone: string, tariffId: string): { state: TotalsState; problem: string | null } {
  const fresh = newTotals(timezone, tariffId);
  if (stored === undefined || stored === null) return { state: fresh, problem: null };
  if (!isTotalsState(stored)) return { state: fresh, problem: 'stored totals are unreadable' };
  if (stored.tariffId !== tariffId) return { state: fresh, problem: `stored totals belong to tariff "${stored.tariffId}"` };
  if (stored.timezone !== timezone) return { state: fresh, problem: `stored totals were counted in ${stored.timezone}` };
  return { state: stored, problem: null };
}

function isBucket(x: unknown, openEnded: boolean): x is Bucket {
  if (x === null) return true;
  if (typeof x !== 'object') return false;
  const b = x as Record<string, unknown>;
  const numbers = ['from', 'energy', 'net', 'gross', 'unpricedEnergy', 'resets', 'intervals'];
  if (!numbers.every((k) => typeof b[k] === 'number' && Number.isFinite(b[k]))) return false;
  return openEnded ? b.to === null : typeof b.to === 'number' && (b.to as number) > (b.from as number);
}

function isTotalsState(x: unknown): x is TotalsState {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Record<string, unknown>;
  const last = s.last as Record<string, unknown> | null;
  const lastOk = last === null || (typeof last === 'object' && Number.isFinite(last.ts) && Number.isFinite(last.value));
  return s.version === 1 && typeof s.timezone === 'string' && typeof s.tariffId === 'string' && lastOk
    && PERIODS.every((p) => isBucket(s[p], false)) && isBucket(s.total, true)
    // a state with a last reading has every period open
    && (last === null || [...PERIODS, 'total'].every((p) => s[p] !== null));
}
