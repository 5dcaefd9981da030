// A stream meter's totals read back from a store, checked against what the node could have
// written before they are used (docs/semantics.md, "Readings from the future" and "Stored
// state"): instants near now and none more than a year ahead (stored under a later clock is
// kept: this one is behind), no more readings than the node keeps. What fails is dropped and
// named; the rest carries on.
import { isBeyondStoredAhead, isStoredInstant, storedInstantText } from '../common/stored-checks';
import { storedHeld } from './meter-glitches';
import { Bucket, CostRow, newTotals, PERIODS, periodBounds, ReadingWindow, TotalsState, trimKept } from './totals';

export interface CheckedTotals {
  /** The totals to carry on from, or null when nothing of them can be trusted (counting starts from zero). */
  state: TotalsState | null;
  /** What was dropped, in words (empty when the totals were kept whole). */
  dropped: string[];
}

/**
 * `state` (restoreTotals' shape check passed) checked at `now`: a total or period that
 * starts at no instant near now (isStoredInstant: far back, or more than a year ahead) is
 * unusable; readings more than a year ahead (a clock that jumped: an older version counted
 * them, and moved the periods there) are dropped with the intervals that end at them, and
 * the periods are those of the newest reading left, summed from the intervals still held;
 * readings beyond `maxReadings` (the oldest) are let go as the node does itself (the totals
 * keep them, a late reading before them is too late). Readings less far ahead were stored
 * under a later clock: kept (the caller says so, StoredAhead).
 */
export function checkStoredTotals(state: TotalsState, now: number, maxReadings: number): CheckedTotals {
  const dropped: string[] = [];
  const total = state.total;
  if (total && !isStoredInstant(total.from, now)) {
    return { state: null, dropped: [`totals starting at ${storedInstantText(total.from)}, not an instant near now`] };
  }
  const { kept } = state;
  if (kept.length && !isStoredInstant(kept.ts(0), now) && !isBeyondStoredAhead(kept.ts(0), now)) {
    return { state: null, dropped: [`readings from ${storedInstantText(kept.ts(0))}, not an instant near now`] };
  }
  // the total begins at the first reading ever counted: never after one the meter still holds
  if (total && kept.length && total.from > kept.ts(0)) {
    return { state: null, dropped: [`totals starting at ${storedInstantText(total.from)}, after their readings`] };
  }
  let next = state;
  let future = 0;
  while (future < kept.length && isBeyondStoredAhead(kept.ts(kept.length - 1 - future), now)) future++;
  if (future === kept.length && future > 0) {
    return {
      state: null,
      dropped: [`every stored reading, the newest more than a year ahead (${storedInstantText(kept.newestTs())})`],
    };
  }
  if (future > 0) {
    next = withoutNewest(state, future);
    dropped.push(
      `${future === 1 ? 'a reading' : `${future} readings`} more than a year ahead (the newest ${storedInstantText(kept.newestTs())}) ` +
        'with the intervals ending at them; today, this week and this month hold what the readings left give',
    );
  } else if (PERIODS.some((name) => state[name] && !isStoredInstant(state[name]!.from, now))) {
    next = withoutNewest(state, 0);
    dropped.push('periods starting at no instant near now; today, this week and this month hold what the readings left give');
  }
  if (next.kept.length > maxReadings) {
    const extra = next.kept.length - maxReadings;
    next = next === state ? withoutNewest(state, 0) : next;
    trimKept(next, maxReadings);
    dropped.push(`${extra} of the oldest readings beyond the ${maxReadings} the node keeps (the totals still count them)`);
  }
  // held readings (rule 10) are counted nowhere yet: one further ahead than stored state may be is simply let go
  const heldNow = next.held.filter(([ts]) => !isBeyondStoredAhead(ts, now));
  if (heldNow.length < next.held.length) {
    dropped.push(`${next.held.length - heldNow.length} held (suspect) readings more than a year ahead, counted nowhere`);
    next = { ...next, held: heldNow };
  }
  return { state: next, dropped };
}

/** A copy of `state` without its `count` newest readings and the intervals ending at them, the periods those of the newest left. */
function withoutNewest(state: TotalsState, count: number): TotalsState {
  const plain = plainTotals(state) as StoredTotals;
  const keep = plain.kept.length - count;
  const kept = plain.kept.slice(0, keep);
  const costs = plain.costs.slice(0, Math.max(keep - 1, 0));
  const total = state.total ? { ...state.total } : null;
  if (total) {
    for (const row of plain.costs.slice(Math.max(keep - 1, 0))) {
      total.energy -= row[0];
      total.net -= row[1];
      total.gross -= row[2];
      total.unpricedEnergy -= row[3];
      total.resets -= row[4];
      total.intervals -= 1;
    }
  }
  const next: TotalsState = { ...state, kept: ReadingWindow.of(kept, costs), total, day: null, week: null, month: null };
  const newest = kept.length ? kept[kept.length - 1][0] : null;
  if (newest === null) return next;
  for (const name of PERIODS) {
    const { from, to } = periodBounds(name, newest, state.timezone);
    const bucket: Bucket = { from, to, energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0, intervals: 0 };
    // the intervals still held that start in the period (rule 11's `start`)
    for (let i = 0; i < costs.length; i++) {
      if (kept[i][0] < from || kept[i][0] >= to) continue;
      bucket.energy += costs[i][0];
      bucket.net += costs[i][1];
      bucket.gross += costs[i][2];
      bucket.unpricedEnergy += costs[i][3];
      bucket.resets += costs[i][4];
      bucket.intervals += 1;
    }
    next[name] = bucket;
  }
  return next;
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
  // held readings (rule 10) came with this version: none before it
  const held = storedHeld(plain.held ?? [], plain.kept.length ? plain.kept[plain.kept.length - 1][0] : Infinity);
  if (held === null) return { state: fresh, problem: 'stored totals are unreadable' };
  return { state: { ...rest, kept: ReadingWindow.of(plain.kept, costs), held: held.map(([ts, value]) => [ts, value]) }, problem: null };
}

/** Totals as plain JSON: readings as [ts, value] rows, costs[i] the interval kept[i] -> kept[i + 1] (what version 1 stored). */
export interface StoredTotals extends Omit<TotalsState, 'kept' | 'held'> {
  kept: Array<[number, number]>;
  costs: CostRow[];
  held?: Array<[number, number]>;
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
