// Running energy and cost totals for the cost node's stream mode: today, this week (ISO,
// Monday first), this month in one IANA zone, and a total since counting began. Pure
// state in, state out; the node stores `state` in its context so totals survive a
// restart. Pricing an interval is the caller's (computeCost), so this file only knows
// about periods and the order of readings.
//
// Readings may arrive late, twice or out of order (a gateway re-sending its buffer after
// a link outage). The readings of the last WINDOW_MS are kept with the cost of each
// interval between them, so a late one splits the interval it falls into, and the
// totals end up the same whatever order the same readings came in.
import { assertTimeZone, localPeriod } from '../time/time';

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

/** A kept interval's cost as a compact row: energy, net, gross, unpricedEnergy, resets. */
type CostRow = [number, number, number, number, number];

export interface TotalsState {
  version: 1;
  timezone: string;
  tariffId: string;
  /** Readings of the last WINDOW_MS (plus the one before, where intervals start), ascending [ts, value]. */
  kept: Array<[number, number]>;
  /** costs[i] is the interval kept[i] -> kept[i + 1]. */
  costs: CostRow[];
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
  return { version: 1, timezone, tariffId, kept: [], costs: [], day: null, week: null, month: null, total: null };
}

/** The first instant a reading may have and still be counted: WINDOW_MS before the newest. */
export function windowStart(state: TotalsState): number {
  const newest = state.kept[state.kept.length - 1];
  return newest ? newest[0] - WINDOW_MS : -Infinity;
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
  const { kept, costs } = next;
  const unchanged = { state, closed: {}, change: rowCost(ZERO) };
  if (kept.length > 0 && r.ts < windowStart(next)) return { ...unchanged, ignored: 'too_late' };
  // Once readings were let go (the total began before the oldest kept one), the interval
  // that ends at the oldest kept reading is in the totals but no longer known: a reading
  // before it, or a new value for it, cannot be placed without counting something twice.
  if (kept.length > 0 && next.total !== null && next.total.from < kept[0][0]) {
    if (r.ts < kept[0][0]) return { ...unchanged, ignored: 'too_late' };
    if (r.ts === kept[0][0] && r.value !== kept[0][1]) return { ...unchanged, ignored: 'too_late' };
  }

  const at = firstAtOrAfter(kept, r.ts);
  const isNewest = at === -1;
  const before = next.total ? { ...next.total } : emptyBucket(r.ts, null);
  /** Interval i (kept[i] -> kept[i + 1]) now costs `row`, in every open period it starts in and the total. */
  let overflow = false;
  const price = (i: number, isNew: boolean) => {
    let row = toRow(costOf({ ts: kept[i][0], value: kept[i][1] }, { ts: kept[i + 1][0], value: kept[i + 1][1] }));
    const from = kept[i][0];
    const buckets = [next.day, next.week, next.month, next.total].filter(
      (b): b is Bucket => !!b && from >= b.from && (b.to === null || from < b.to),
    );
    // each interval is finite (computeCost), but a sum of them may not be: such an interval counts nothing
    const finiteWith = (b: Bucket) =>
      [b.energy, b.net, b.gross, b.unpricedEnergy].every((sum, k) => Number.isFinite(sum - (isNew ? 0 : costs[i][k]) + row[k]));
    if (!row.every(Number.isFinite) || !buckets.every(finiteWith)) {
      row = [...ZERO];
      overflow = true;
    }
    for (const bucket of buckets) {
      if (!isNew) apply(bucket, costs[i], -1);
      apply(bucket, row, 1);
    }
    costs[i] = row;
  };

  let replaced = false;
  if (!isNewest && kept[at][0] === r.ts) {
    if (kept[at][1] === r.value) return { ...unchanged, ignored: 'duplicate' };
    kept[at] = [r.ts, r.value];
    replaced = true;
    if (at > 0) price(at - 1, false);
    if (at < costs.length) price(at, false);
  } else if (kept.length === 0) {
    kept.push([r.ts, r.value]);
    next.total = emptyBucket(r.ts, null);
  } else if (isNewest) {
    kept.push([r.ts, r.value]);
    price(kept.length - 2, true);
  } else if (at === 0) {
    // before the very first reading: a new first interval, and the total starts earlier
    kept.unshift([r.ts, r.value]);
    costs.unshift([...ZERO]);
    next.total!.from = r.ts;
    price(0, true);
  } else {
    // inside the interval at-1 -> at, which becomes two
    kept.splice(at, 0, [r.ts, r.value]);
    costs.splice(at, 0, [...ZERO]);
    price(at - 1, false);
    price(at, true);
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

/** Index of the first kept reading at or after `ts` (binary search), -1 when all are before it. */
function firstAtOrAfter(kept: Array<[number, number]>, ts: number): number {
  if (kept.length === 0 || kept[kept.length - 1][0] < ts) return -1;
  let lo = 0;
  let hi = kept.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (kept[mid][0] >= ts) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function copyState(s: TotalsState, keepLists: boolean): TotalsState {
  const bucket = (b: Bucket | null) => (b ? { ...b } : null);
  return {
    ...s,
    // rows are never changed in place, only replaced: copying the lists is enough
    kept: keepLists ? s.kept : s.kept.slice(),
    costs: keepLists ? s.costs : s.costs.slice(),
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
  let drop = 0;
  while (drop + 1 < state.kept.length && state.kept[drop + 1][0] < start) drop++;
  drop = Math.max(drop, state.kept.length - maxKept);
  if (drop === 1) {
    // the usual case of a full window: V8 moves the start of a long array instead of its items
    state.kept.shift();
    state.costs.shift();
  } else if (drop > 0) {
    state.kept.splice(0, drop);
    state.costs.splice(0, drop);
  }
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

const finite = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);

function isBucket(x: unknown, openEnded: boolean): x is Bucket {
  if (x === null) return true;
  if (typeof x !== 'object') return false;
  const b = x as Record<string, unknown>;
  const numbers = ['from', 'energy', 'net', 'gross', 'unpricedEnergy', 'resets', 'intervals'];
  if (!numbers.every((k) => finite(b[k]))) return false;
  return openEnded ? b.to === null : finite(b.to) && (b.to as number) > (b.from as number);
}

function isTotalsState(x: unknown): x is TotalsState {
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
