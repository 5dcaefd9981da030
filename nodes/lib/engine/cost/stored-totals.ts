// A stream meter's totals read back from a store, checked against what the node could have
// written before they are used (docs/semantics.md, "Readings from the future" and "Stored
// state"): instants near now and none more than a year ahead (stored under a later clock is
// kept: this one is behind), no more readings than the node keeps. What fails is dropped and
// named; the rest carries on.
import { isBeyondStoredAhead, isStoredInstant, storedInstantText } from '../common/stored-checks';
import { Bucket, PERIODS, periodBounds, plainTotals, ReadingWindow, StoredTotals, TotalsState, trimKept } from './totals';

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
