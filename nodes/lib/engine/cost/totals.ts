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
import { DEFAULT_MAX_POWER_KW } from '../common/limits';
import { CostRow, ReadingWindow } from './reading-window';
import { GlitchSink, GlitchState, isPlausible, judgeReading, lateFit, SuspectKind } from './meter-glitches';

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

/**
 * Told of every interval a reading changes (semantics rule 48's netting in stream mode): one
 * that counts no longer (`sign` -1, its old span and row), one that counts now (+1).
 */
export type IntervalObserver = (from: number, to: number, row: CostRow, sign: 1 | -1) => void;

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
  /**
   * Suspect readings after the newest kept one (rule 10), [ts, value] ascending, at most
   * GLITCH_RUN_MAX: counted nowhere until a later reading decides them. Replayed through the
   * judge from the newest kept reading with each newer reading, so they are all it needs.
   */
  held: Array<[number, number]>;
  /**
   * Set by rebaseTotals: the newest reading's instant was moved with the clock, so the time
   * to the next reading says nothing about the meter's power; that reading is judged for
   * drops only (maxPowerKw Infinity). Not stored.
   */
  gapUnknown?: true;
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
export type Ignored = 'duplicate' | 'too_late' | 'glitch';

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
  /** Readings this one showed to be glitches (rule 10; itself, when it came late and fits nowhere): dropped. */
  glitches?: Array<{ ts: number; value: number; kind: SuspectKind }>;
  /** Suspect readings now held (this one among them, or before it), waiting for a later reading to decide. */
  held?: number;
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
  return { version: 1, timezone, tariffId, kept: new ReadingWindow(), held: [], day: null, week: null, month: null, total: null };
}

/** The first instant a reading may have and still be counted: WINDOW_MS before the newest. */
export function windowStart(state: TotalsState): number {
  return state.kept.length ? state.kept.newestTs() - WINDOW_MS : -Infinity;
}

/**
 * Counts reading `r`. Each interval between consecutive accepted readings is priced by
 * `costOf` and counted in the periods in which it *starts* (the "start" attribution of
 * semantics rule 11); readings are judged by rule 10 (meter-glitches.ts, `maxPowerKw`): a
 * suspect one is held (`state.held`) until a later reading decides it, a glitch is dropped,
 * the interval into a reset's or swap's new base counts 0 kWh with a reset (costOf never
 * sees it). An accepted reading after the newest adds its interval and moves every period
 * on to the one containing it, closing the ones that ended. A late reading splits the
 * interval it falls into where it fits (lateFit; else it is a glitch), in the periods still
 * open and in the total; one at the instant of a kept reading replaces its value, or is a
 * duplicate if the value is the same; one before what is still kept is too late (see
 * Ignored). The state given is never changed, unless `owned`: a caller that replaces its
 * state with the result (stream mode) lets the lists of readings and costs be updated in
 * place, so a reading costs the same with a full 48 h window as with an empty one (copying
 * 3,000 readings per reading doubled its cost). An ignored reading changes nothing either way.
 */
export function addReading(
  state: TotalsState,
  r: Reading,
  costOf: (from: Reading, to: Reading) => IntervalCost,
  maxKept = MAX_KEPT,
  owned = false,
  maxPowerKw = DEFAULT_MAX_POWER_KW,
  observe?: IntervalObserver,
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
  const held = next.held.find(([ts]) => ts === r.ts);
  if (held && held[1] === r.value) return { ...unchanged, ignored: 'duplicate' };
  const at = kept.firstAtOrAfter(r.ts);
  if (at !== -1 && kept.ts(at) === r.ts && kept.value(at) === r.value) return { ...unchanged, ignored: 'duplicate' };
  if (next.gapUnknown) {
    // the first reading after a clock step back: its interval's length is not known (rebaseTotals)
    maxPowerKw = Infinity;
    delete next.gapUnknown;
  }
  const count = new Counting(next, costOf, maxPowerKw, observe);
  const before = next.total ? { ...next.total } : emptyBucket(r.ts, null);
  const glitch = (kind: SuspectKind): AddResult => ({ ...unchanged, ignored: 'glitch', glitches: [{ ts: r.ts, value: r.value, kind }] });
  let late = true;
  let replaced = false;
  if (kept.length === 0) {
    kept.insert(0, r.ts, r.value);
    next.total = emptyBucket(r.ts, null);
    count.movePeriods(r.ts);
    late = false;
  } else if (
    at === -1 &&
    next.held.length === 0 &&
    (!RULE_10.on || isPlausible(kept.newestTs(), kept.value(kept.length - 1), r.ts, r.value, maxPowerKw))
  ) {
    // the usual reading: plausible from the newest, nothing held; counted at once, as the judge would (no allocation for it)
    count.append(r.ts, r.value, r.value < kept.value(kept.length - 1));
    late = false;
  } else if (at === -1) {
    // after the newest kept reading: judged with the held ones, in time order (a late one among them too)
    late = next.held.length > 0 && r.ts < next.held[next.held.length - 1][0];
    replaced = held !== undefined;
    count.judge([...next.held.filter(([ts]) => ts !== r.ts), [r.ts, r.value] as [number, number]].sort((x, y) => x[0] - y[0]));
  } else if (kept.ts(at) === r.ts) {
    // a new value for a kept reading: each of its intervals must still fit (a reset's new base may be any)
    const fits =
      (at === 0 || kept.cost(at - 1)[4] > 0 || isPlausible(kept.ts(at - 1), kept.value(at - 1), r.ts, r.value, maxPowerKw)) &&
      (at === kept.length - 1 || kept.cost(at)[4] > 0 || isPlausible(r.ts, r.value, kept.ts(at + 1), kept.value(at + 1), maxPowerKw));
    if (!fits) return glitch(at > 0 && r.value < kept.value(at - 1) ? 'low' : 'high');
    // the old costs of its intervals are read before the value changes (an interval's energy may be its step)
    const oldBefore = at > 0 ? kept.cost(at - 1) : null;
    const oldAfter = at < kept.length - 1 ? kept.cost(at) : null;
    kept.setValue(at, r.value);
    replaced = true;
    if (oldBefore) count.price(at - 1, oldBefore, oldBefore[4] > 0);
    if (oldAfter) count.price(at, oldAfter, oldAfter[4] > 0);
    if (at === kept.length - 1 && next.held.length > 0) count.judge(next.held); // judged again from the new value
  } else if (at === 0) {
    // before the very first reading: a new first interval (a reset if the first is not plausible from it), the total starts earlier
    kept.insert(0, r.ts, r.value);
    next.total!.from = r.ts;
    count.price(0, null, !isPlausible(r.ts, r.value, kept.ts(1), kept.value(1), maxPowerKw));
  } else {
    // inside the interval at-1 -> at, which becomes two where the reading fits
    const old = kept.cost(at - 1);
    const a = { ts: kept.ts(at - 1), value: kept.value(at - 1) };
    const fit = lateFit(a, r, { ts: kept.ts(at), value: kept.value(at) }, old[4] > 0, maxPowerKw);
    if (fit === null) return glitch(r.value < a.value ? 'low' : 'high');
    kept.insert(at, r.ts, r.value);
    count.price(at - 1, old, fit === 'resetBefore', kept.ts(at + 1));
    count.price(at, null, fit === 'resetAfter');
  }
  forgetOld(next, maxKept);
  const after = next.total!;
  return {
    state: next,
    closed: count.closed,
    change: {
      energy: after.energy - before.energy,
      net: after.net - before.net,
      gross: after.gross - before.gross,
      unpricedEnergy: after.unpricedEnergy - before.unpricedEnergy,
      resets: after.resets - before.resets,
    },
    ...(late ? { late: true } : {}),
    ...(replaced ? { replaced } : {}),
    ...(count.overflow ? { rejected: 'overflow' as const } : {}),
    ...(count.glitches.length ? { glitches: count.glitches } : {}),
    ...(next.held.length ? { held: next.held.length } : {}),
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
  // held readings (rule 10) were stamped ahead too, and counted nowhere: let go, the next reading is judged from the moved one
  next.held = [];
  next.gapUnknown = true;
  for (const name of PERIODS) {
    const bucket = next[name];
    if (bucket && bucket.from > ts) next[name] = { ...bucket, ...periodBounds(name, ts, next.timezone) };
  }
  if (next.total && next.total.from > ts) next.total.from = ts;
  return next;
}

const RESET_ROW: CostRow = [0, 0, 0, 0, 1];

/**
 * Internal, for bench/stream-bench.ts only (never exported from the package): `on: false`
 * counts every newest reading as the rule before rule 10 did (a drop a reset at once, any
 * rise usage), so the bench measures what judging costs in the same run.
 */
export const RULE_10 = { on: true };

/** One reading's work on a state it may change: intervals priced, accepted readings appended, periods moved on. */
class Counting implements GlitchSink {
  readonly closed: AddResult['closed'] = {};
  readonly glitches: NonNullable<AddResult['glitches']> = [];
  overflow = false;

  constructor(
    private readonly next: TotalsState,
    private readonly costOf: (from: Reading, to: Reading) => IntervalCost,
    private readonly maxPowerKw: number,
    private readonly observe?: IntervalObserver,
  ) {}

  /**
   * Interval i (kept i -> i + 1) now costs what costOf says (a reset: 0 kWh) instead of `old`
   * (null: a new interval; it ended at `oldTo` when a late reading split it), in every open
   * period it starts in and the total.
   */
  price(i: number, old: CostRow | null, reset: boolean, oldTo?: number): void {
    const { kept } = this.next;
    let row = reset
      ? RESET_ROW
      : toRow(this.costOf({ ts: kept.ts(i), value: kept.value(i) }, { ts: kept.ts(i + 1), value: kept.value(i + 1) }));
    const from = kept.ts(i);
    const buckets = [this.next.day, this.next.week, this.next.month, this.next.total].filter(
      (b): b is Bucket => !!b && from >= b.from && (b.to === null || from < b.to),
    );
    // each interval is finite (computeCost), but a sum of them may not be: such an interval counts nothing
    const finiteWith = (b: Bucket) =>
      [b.energy, b.net, b.gross, b.unpricedEnergy].every((sum, k) => Number.isFinite(sum - (old ? old[k] : 0) + row[k]));
    if (!row.every(Number.isFinite) || !buckets.every(finiteWith)) {
      row = [...ZERO];
      this.overflow = true;
    }
    for (const bucket of buckets) {
      if (old) apply(bucket, old, -1);
      apply(bucket, row, 1);
    }
    kept.setCost(i, row);
    if (this.observe) {
      if (old) this.observe(from, oldTo ?? kept.ts(i + 1), old, -1);
      this.observe(from, kept.ts(i + 1), row, 1);
    }
  }

  /** Readings after the newest kept one, ascending, judged from it (rule 10): what is still suspect stays held. */
  judge(readings: ReadonlyArray<readonly [number, number]>): void {
    const { kept } = this.next;
    const state: GlitchState = { lastTs: kept.newestTs(), lastValue: kept.value(kept.length - 1), held: [] };
    for (const [ts, value] of readings) judgeReading(state, ts, value, this.maxPowerKw, this);
    this.next.held = state.held.map((h): [number, number] => [h.ts, h.value]);
  }

  counted(_fromTs: number, _fromValue: number, toTs: number, toValue: number): void {
    this.append(toTs, toValue, false);
  }

  reset(_fromTs: number, _fromValue: number, toTs: number, toValue: number): void {
    this.append(toTs, toValue, true);
  }

  glitch(ts: number, value: number, kind: SuspectKind): void {
    this.glitches.push({ ts, value, kind });
  }

  /** An accepted reading after the newest: its interval counted in the periods it starts in, then the periods moved on to it. */
  append(ts: number, value: number, reset: boolean): void {
    const { kept } = this.next;
    kept.insert(kept.length, ts, value);
    this.price(kept.length - 2, null, reset);
    this.movePeriods(ts);
  }

  /** Every period moves on to the one containing `ts`, closing the ones that ended (of one kind closed twice, the later is told). */
  movePeriods(ts: number): void {
    for (const name of PERIODS) {
      const bucket = this.next[name];
      if (bucket && ts < bucket.to!) continue;
      if (bucket) this.closed[name] = bucket;
      const { from, to } = periodBounds(name, ts, this.next.timezone);
      this.next[name] = emptyBucket(from, to);
    }
  }
}

function copyState(s: TotalsState, keepWindow: boolean): TotalsState {
  const bucket = (b: Bucket | null) => (b ? { ...b } : null);
  return {
    ...s,
    kept: keepWindow ? s.kept : s.kept.copy(),
    held: keepWindow ? s.held : s.held.map(([ts, value]): [number, number] => [ts, value]),
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
