// Running energy and cost totals for the cost node's stream mode: today, this week (ISO,
// Monday first), this month in one IANA zone, and a total since counting began. Pure
// state in, state out; the node stores `state` in its context so totals survive a
// restart. Pricing an interval is the caller's (computeCost), so this file only knows
// about periods and the order of readings.
//
// Readings may arrive late, twice or out of order (a gateway re-sending its buffer after
// a link outage). The readings of the last WINDOW_MS are kept with the cost of each
// interval between them (in the compact columns of reading-window.ts), so a late one
// splits the interval it falls into, and the totals end up the same whatever order the
// same readings came in.
import { assertTimeZone, localPeriod } from '../time/time';
import { CostRow, ReadingWindow } from './reading-window';

export { ReadingWindow } from './reading-window';
export type { CostRow } from './reading-window';

export type PeriodName = 'day' | 'week' | 'month';
export const PERIODS: readonly PeriodName[] = ['day', 'week', 'month'];

/** How far behind the newest reading a late reading is still placed (48 h). */
export const WINDOW_MS = 48 * 3600_000;
/** At most this many readings are kept, so a flood of readings cannot grow the stored state without bound. */
export const MAX_KEPT = 3000;

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
  /**
   * Readings of the last WINDOW_MS (plus the one before, where intervals start), ascending,
   * with the cost of the interval from each to the next (kept.cost(i): kept i -> i + 1).
   */
  kept: ReadingWindow;
  day: Bucket | null;
  week: Bucket | null;
  month: Bucket | null;
  total: Bucket | null;
}

/**
 * Why a reading was not counted; it is reported, never silently lost. `too_late`: it lies
 * before what the state still holds (more than WINDOW_MS behind the newest reading, or
 * before the oldest kept one once older ones were let go), so counting it could only
 * count again what is already in the totals.
 */
export type Ignored = 'duplicate' | 'too_late';

export interface AddResult {
  state: TotalsState;
  /** Set when the reading changed nothing. */
  ignored?: Ignored;
  /** The reading came before the newest one and was placed where it belongs. */
  late?: boolean;
  /** A reading at the same instant as a kept one but with another value replaced it (the last one wins, as in batch mode). */
  replaced?: boolean;
  /** An interval of this reading counts nothing: with it a sum would not be a finite number. */
  rejected?: 'overflow';
  /** Periods that ended with this reading, with their final sums (e.g. yesterday). */
  closed: Partial<Record<PeriodName, Bucket>>;
  /** What this reading changed in the total (its interval, or the net effect of splitting one). */
  change: IntervalCost;
}

/** The period of `name` containing instant `ms` in `timezone`: localPeriod's. */
export function periodBounds(name: PeriodName, ms: number, timezone: string): { from: number; to: number } {
  return localPeriod(name, ms, { timezone });
}

function emptyBucket(from: number, to: number | null): Bucket {
  return { from, to, energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0, intervals: 0 };
}

const toRow = (c: IntervalCost): CostRow => [c.energy, c.net, c.gross, c.unpricedEnergy, c.resets];
const ZERO: CostRow = [0, 0, 0, 0, 0];

/** Adds (sign 1) or takes away (sign -1) one interval's cost. */
function apply(bucket: Bucket, row: CostRow, sign: 1 | -1): void {
  bucket.energy += sign * row[0];
  bucket.net += sign * row[1];
  bucket.gross += sign * row[2];
  bucket.unpricedEnergy += sign * row[3];
  bucket.resets += sign * row[4];
  bucket.intervals += sign;
}

export function newTotals(timezone: string, tariffId: string): TotalsState {
  assertTimeZone(timezone);
  return { version: 1, timezone, tariffId, kept: new ReadingWindow(), day: null, week: null, month: null, total: null };
}

/** The first instant a reading may have and still be counted: WINDOW_MS before the newest. */
export function windowStart(state: TotalsState): number {
  return state.kept.length ? state.kept.newestTs() - WINDOW_MS : -Infinity;
}

/**
 * Counts reading `r`. Each interval between consecutive readings is priced by `costOf`
 * and counted in the periods in which it *starts* (the "start" attribution of semantics rule
 * 11). A reading after the newest adds its interval and moves every period on to the one
 * containing it, closing the ones that ended. A late reading splits the interval it falls
 * into (in the periods still open, and in the total); one at the instant of a kept
 * reading replaces its value, or is a duplicate if the value is the same; one before
 * what is still kept is too late (see Ignored). The state given is never changed, unless
 * `owned`: a caller that replaces its state with the result (stream mode) lets the lists of
 * readings and costs be updated in place, so a reading costs the same with a full 48 h
 * window as with an empty one (copying 3,000 readings per reading doubled its cost). An
 * ignored reading changes nothing either way.
 */
export function addReading(
  state: TotalsState,
  r: Reading,
  costOf: (from: Reading, to: Reading) => IntervalCost,
  maxKept = MAX_KEPT,
  owned = false,
): AddResult {
  const next = copyState(state, owned);
  const { kept } = next;
  const unchanged = { state, closed: {}, change: rowCost(ZERO) };
  if (kept.length > 0 && r.ts < windowStart(next)) return { ...unchanged, ignored: 'too_late' };
  // Once readings were let go (the total began before the oldest kept one), the interval
  // that ends at the oldest kept reading is in the totals but no longer known: a reading
  // before it, or a new value for it, cannot be placed without counting something twice.
  if (kept.length > 0 && next.total !== null && next.total.from < kept.ts(0)) {
    if (r.ts < kept.ts(0)) return { ...unchanged, ignored: 'too_late' };
    if (r.ts === kept.ts(0) && r.value !== kept.value(0)) return { ...unchanged, ignored: 'too_late' };
  }

  const at = kept.firstAtOrAfter(r.ts);
  const isNewest = at === -1;
  if (!isNewest && kept.ts(at) === r.ts && kept.value(at) === r.value) return { ...unchanged, ignored: 'duplicate' };
  const before = next.total ? { ...next.total } : emptyBucket(r.ts, null);
  /** Interval i (kept i -> i + 1) now costs what costOf says instead of `old` (null: a new interval), in every open period it starts in and the total. */
  let overflow = false;
  const price = (i: number, old: CostRow | null) => {
    let row = toRow(costOf({ ts: kept.ts(i), value: kept.value(i) }, { ts: kept.ts(i + 1), value: kept.value(i + 1) }));
    const from = kept.ts(i);
    const buckets = [next.day, next.week, next.month, next.total].filter(
      (b): b is Bucket => !!b && from >= b.from && (b.to === null || from < b.to),
    );
    // each interval is finite (computeCost), but a sum of them may not be: such an interval counts nothing
    const finiteWith = (b: Bucket) =>
      [b.energy, b.net, b.gross, b.unpricedEnergy].every((sum, k) => Number.isFinite(sum - (old ? old[k] : 0) + row[k]));
    if (!row.every(Number.isFinite) || !buckets.every(finiteWith)) {
      row = [...ZERO];
      overflow = true;
    }
    for (const bucket of buckets) {
      if (old) apply(bucket, old, -1);
      apply(bucket, row, 1);
    }
    kept.setCost(i, row);
  };

  let replaced = false;
  if (!isNewest && kept.ts(at) === r.ts) {
    // the old costs of its intervals are read before the value changes (an interval's energy may be its step)
    const oldBefore = at > 0 ? kept.cost(at - 1) : null;
    const oldAfter = at < kept.length - 1 ? kept.cost(at) : null;
    kept.setValue(at, r.value);
    replaced = true;
    if (oldBefore) price(at - 1, oldBefore);
    if (oldAfter) price(at, oldAfter);
  } else if (kept.length === 0) {
    kept.insert(0, r.ts, r.value);
    next.total = emptyBucket(r.ts, null);
  } else if (isNewest) {
    kept.insert(kept.length, r.ts, r.value);
    price(kept.length - 2, null);
  } else if (at === 0) {
    // before the very first reading: a new first interval, and the total starts earlier
    kept.insert(0, r.ts, r.value);
    next.total!.from = r.ts;
    price(0, null);
  } else {
    // inside the interval at-1 -> at, which becomes two
    const old = kept.cost(at - 1);
    kept.insert(at, r.ts, r.value);
    price(at - 1, old);
    price(at, null);
  }

  const closed: AddResult['closed'] = {};
  if (isNewest) {
    for (const name of PERIODS) {
      const bucket = next[name];
      if (bucket && r.ts < bucket.to!) continue;
      if (bucket) closed[name] = bucket;
      const { from, to } = periodBounds(name, r.ts, next.timezone);
      next[name] = emptyBucket(from, to);
    }
  }
  forgetOld(next, maxKept);
  const after = next.total!;
  return {
    state: next,
    closed,
    change: {
      energy: after.energy - before.energy,
      net: after.net - before.net,
      gross: after.gross - before.gross,
      unpricedEnergy: after.unpricedEnergy - before.unpricedEnergy,
      resets: after.resets - before.resets,
    },
    ...(isNewest ? {} : { late: true }),
    ...(replaced ? { replaced } : {}),
    ...(overflow ? { rejected: 'overflow' as const } : {}),
  };
}

/**
 * A meter after a step back of the wall clock by `by` (< 0) ms (docs/semantics.md, "Clock
 * steps"): when its newest reading lies ahead of `now` (stamped by the clock that was
 * ahead), it counts on from its last value, moved back with the clock (no later than
 * `now`). The readings kept for late ones are let go (one before the new start is too
 * late), a period that lies ahead becomes the one holding the moved reading, with its sums
 * (what was counted while the clock was ahead stays counted), and the total starts no
 * later. Null when the newest reading is not ahead of `now`.
 */
export function rebaseTotals(state: TotalsState, by: number, now: number): TotalsState | null {
  const { kept } = state;
  if (kept.length === 0 || kept.newestTs() <= now) return null;
  const ts = Math.min(kept.newestTs() + by, now - 1); // before any reading stamped from now on
  const next = copyState(state, true);
  next.kept = ReadingWindow.of([[ts, kept.value(kept.length - 1)]], []);
  for (const name of PERIODS) {
    const bucket = next[name];
    if (bucket && bucket.from > ts) next[name] = { ...bucket, ...periodBounds(name, ts, next.timezone) };
  }
  if (next.total && next.total.from > ts) next.total.from = ts;
  return next;
}

function copyState(s: TotalsState, keepWindow: boolean): TotalsState {
  const bucket = (b: Bucket | null) => (b ? { ...b } : null);
  return {
    ...s,
    kept: keepWindow ? s.kept : s.kept.copy(),
    day: bucket(s.day),
    week: bucket(s.week),
    month: bucket(s.month),
    total: bucket(s.total),
  };
}

function rowCost(row: CostRow): IntervalCost {
  return { energy: row[0], net: row[1], gross: row[2], unpricedEnergy: row[3], resets: row[4] };
}

/** Lets the oldest readings go (and those a late one can no longer reach) as counting does: the totals keep them. */
export function trimKept(state: TotalsState, maxKept: number): void {
  forgetOld(state, maxKept);
}

/** Drops readings a late one can no longer reach, keeping the last one before the window (where an interval starts). */
function forgetOld(state: TotalsState, maxKept: number): void {
  const start = windowStart(state);
  const { kept } = state;
  let drop = 0;
  while (drop + 1 < kept.length && kept.ts(drop + 1) < start) drop++;
  kept.dropOldest(Math.max(drop, kept.length - maxKept));
}

/**
 * The state restored from storage, or why it cannot be used (then counting starts from
 * zero). Totals of another tariff or zone would mix prices or periods, so they are not
 * carried over.
 */
export function restoreTotals(stored: unknown, timezone: string, tariffId: string): { state: TotalsState; problem: string | null } {
  const fresh = newTotals(timezone, tariffId);
  if (stored === undefined || stored === null) return { state: fresh, problem: null };
  const plain = plainTotals(stored);
  if (!isStoredTotals(plain)) return { state: fresh, problem: 'stored totals are unreadable' };
  if (plain.tariffId !== tariffId) return { state: fresh, problem: `stored totals belong to tariff "${plain.tariffId}"` };
  if (plain.timezone !== timezone) return { state: fresh, problem: `stored totals were counted in ${plain.timezone}` };
  const { costs, ...rest } = plain;
  return { state: { ...rest, kept: ReadingWindow.of(plain.kept, costs) }, problem: null };
}

/** Totals as plain JSON: readings as [ts, value] rows, costs[i] the interval kept[i] -> kept[i + 1] (what version 1 stored). */
export interface StoredTotals extends Omit<TotalsState, 'kept'> {
  kept: Array<[number, number]>;
  costs: CostRow[];
}

/** `state` as plain JSON (StoredTotals), e.g. to check or cut it as stored totals are. */
export function plainTotals<T>(state: T): T | StoredTotals {
  const s = state as unknown as TotalsState;
  if (typeof s !== 'object' || s === null || !(s.kept instanceof ReadingWindow)) return state;
  return { ...s, kept: s.kept.readings(), costs: s.kept.costRows() };
}

const finite = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);

function isBucket(x: unknown, openEnded: boolean): x is Bucket {
  if (x === null) return true;
  if (typeof x !== 'object') return false;
  const b = x as Record<string, unknown>;
  const numbers = ['from', 'energy', 'net', 'gross', 'unpricedEnergy', 'resets', 'intervals'];
  if (!numbers.every((k) => finite(b[k]))) return false;
  return openEnded ? b.to === null : finite(b.to) && (b.to as number) > (b.from as number);
}

function isStoredTotals(x: unknown): x is StoredTotals {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Record<string, unknown>;
  const kept = s.kept as unknown[];
  const costs = s.costs as unknown[];
  if (!Array.isArray(kept) || !Array.isArray(costs)) return false;
  const rows = (list: unknown[], width: number) => list.every((row) => Array.isArray(row) && row.length === width && row.every(finite));
  const ascending = kept.every((row, i) => i === 0 || (row as number[])[0] > (kept[i - 1] as number[])[0]);
  const shapeOk = rows(kept, 2) && ascending && rows(costs, 5) && costs.length === Math.max(kept.length - 1, 0);
  return (
    s.version === 1 &&
    typeof s.timezone === 'string' &&
    typeof s.tariffId === 'string' &&
    shapeOk &&
    PERIODS.every((p) => isBucket(s[p], false)) &&
    isBucket(s.total, true) &&
    // with readings, the total is open; with two or more, every period is
    (kept.length === 0 || s.total !== null) &&
    (kept.length < 2 || PERIODS.every((p) => s[p] !== null))
  );
}
