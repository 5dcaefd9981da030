// demandWindows (semantics rule 40): energy and average power per demand window from
// cumulative readings, cleaned and judged as computeCost cleans and judges them.
import { MAX_DEMAND_WINDOWS } from '../common/limits';
import { maxPowerOption } from '../cost/cost';
import { DroppedRow, Instant, Reading, clean } from '../cost/readings';
import { JudgedReadings, LeftOutIntervals, RejectedInterval, ResetInterval, SuspectReading, overflows } from '../cost/walk-totals';
import { HOUR_MS, MINUTE_MS, describe, instantText, zoneOption } from '../time/time';
import { DemandMinutes, boundaryAfter, boundaryAtOrBefore, demandMinutes, windowInstant } from './demand-window';

export interface DemandWindow {
  from: number;
  to: number;
  /** Energy in the window (kWh; kVAh when the readings count apparent energy). */
  energy: number;
  /** Average power over the window's real length (kW; kVA from kVAh readings). */
  kw: number;
  /** Readings cover the window: one at or before `from` and one at or after `to`, and no gap (below) overlaps it. */
  complete: boolean;
  /** The longest interval between readings longer than `maxGapMinutes` that overlaps the window (absent: none). */
  gap?: { from: number; to: number };
}

export interface DemandWindowsOptions {
  timezone: string;
  minutes: DemandMinutes;
  /** The windows that overlap [from, to) are made; default: the first and the last reading. */
  from?: Instant;
  to?: Instant;
  /** As computeCost's (rule 10): a rise faster than this is a jump, judged as a glitch or a swap. */
  maxPowerKw?: number;
  /** An interval between readings longer than this (minutes) is a gap: the windows it overlaps are not complete (default: none). */
  maxGapMinutes?: number;
}

/** The windows, with what was left out of them as computeCost reports it (rules 9-10). */
export type DemandWindows = DemandWindow[] & {
  resets: ResetInterval[];
  rejected: RejectedInterval[];
  glitches: SuspectReading[];
  /** Suspect readings at the end that no later reading decided: not counted. */
  pending: SuspectReading[];
  dropped: DroppedRow[];
  /** The readings were not in time order and have been sorted. */
  reordered: boolean;
};

/**
 * The most energy counted in one call: a window's average power (energy over its length,
 * at least a millisecond) and the average of a month's peaks then stay finite numbers.
 */
const ENERGY_LIMIT = Number.MAX_VALUE / 2 / HOUR_MS;

/**
 * Energy and average power per demand window of `minutes` in `timezone` (rule 39) from
 * cumulative readings: each interval between consecutive readings is shared among the
 * windows it overlaps in proportion to time; resets and rejected intervals count no
 * energy, rows that do not parse are dropped (rules 9-10, as computeCost).
 */
export function demandWindows(readings: readonly Reading[] | readonly unknown[], options: DemandWindowsOptions): DemandWindows {
  const zone = zoneOption(options);
  const stepMs = demandMinutes(options.minutes) * MINUTE_MS;
  const maxPowerKw = maxPowerOption(options.maxPowerKw);
  const maxGapMs = maxGapOption(options.maxGapMinutes);
  if (!Array.isArray(readings)) throw new TypeError('readings must be an array of [timestamp, kWh] pairs or { ts, value } objects');
  const { ts, values, dropped, reordered } = clean(readings);
  const n = ts.length;
  const left: LeftOutIntervals = { resets: [], rejected: [], glitches: [] };
  const pending: SuspectReading[] = [];
  const out = Object.assign([] as DemandWindow[], { ...left, pending, dropped, reordered });
  const from =
    options.from !== undefined ? windowInstant(options.from, 'options.from') : n > 0 ? windowInstant(ts[0], 'the first reading') : NaN;
  const to =
    options.to !== undefined ? windowInstant(options.to, 'options.to') : n > 0 ? windowInstant(ts[n - 1], 'the last reading') : NaN;
  if (from > to) throw new RangeError(`options.from (${instantText(from)}) must not be after options.to (${instantText(to)})`);
  if (!(from < to)) return out; // nothing to cover: no readings, one, or an empty range
  if ((to - from) / stepMs > MAX_DEMAND_WINDOWS) throw tooManyWindows(from, to, options.minutes);

  // The windows overlapping [from, to), in order.
  const starts: number[] = [];
  const ends: number[] = [];
  for (let start = boundaryAtOrBefore(zone, stepMs, from); start < to; start = ends[ends.length - 1]) {
    // A window can be shorter than `minutes` only where the clock changes.
    if (starts.length >= MAX_DEMAND_WINDOWS) throw tooManyWindows(from, to, options.minutes);
    starts.push(start);
    ends.push(boundaryAfter(zone, stepMs, start));
  }
  const energy = new Float64Array(starts.length);
  const gaps = new WindowGaps(starts, ends);

  // Each counted interval shared by time among the windows it overlaps (as prorate, rule 11);
  // the readings judged as computeCost judges them (rule 10).
  const judged = new JudgedReadings(left, maxPowerKw);
  let counted = 0;
  let w = 0;
  let t0 = n > 0 ? ts[0] : NaN;
  let v0 = n > 0 ? values[0] : NaN;
  for (let i = 1; i < n; i++) {
    const count = judged.judge(t0, v0, ts[i], values[i]);
    for (let k = 0; k < count; k++) {
      const q = judged.queue;
      const a = q[4 * k];
      const av = q[4 * k + 1];
      const b = q[4 * k + 2];
      const bv = q[4 * k + 3];
      while (w < starts.length && ends[w] <= a) w++;
      if (b - a > maxGapMs) gaps.mark(a, b, w);
      if (overflows(left, a, av, b, bv, counted, ENERGY_LIMIT)) continue;
      const delta = bv - av;
      counted += delta;
      for (let j = w; j < starts.length && starts[j] < b; j++) energy[j] += windowShare(delta, a, b, starts[j], ends[j]);
    }
    t0 = judged.state.lastTs;
    v0 = judged.state.lastValue;
  }
  pending.push(...judged.pending());
  // a reset or swap covers its windows, counting nothing (rule 10): a long one is a gap as well
  for (const r of left.resets) if (r.to - r.from > maxGapMs) gaps.mark(r.from, r.to, gaps.firstEndingAfter(r.from));

  const first = n > 0 ? ts[0] : Infinity;
  const last = n > 0 ? ts[n - 1] : -Infinity;
  for (let j = 0; j < starts.length; j++) {
    const gap = gaps.at(j);
    out.push({
      from: starts[j],
      to: ends[j],
      energy: energy[j],
      kw: energy[j] / ((ends[j] - starts[j]) / HOUR_MS),
      complete: first <= starts[j] && last >= ends[j] && gap === null,
      ...(gap ? { gap } : {}),
    });
  }
  return out;
}

/** `maxGapMinutes` checked: a number of minutes above 0 (Infinity: none), in ms; none by default. */
export function maxGapOption(x: unknown): number {
  if (x === undefined) return Infinity;
  if (typeof x !== 'number' || !(x > 0)) throw new TypeError(`maxGapMinutes must be a number of minutes above 0, got ${describe(x)}`);
  return x * MINUTE_MS;
}

/** Per window, the longest gap overlapping it (the earliest of equal ones); arrays made at the first gap. */
class WindowGaps {
  private from: Float64Array | null = null;
  private to: Float64Array | null = null;

  constructor(
    private readonly starts: number[],
    private readonly ends: number[],
  ) {}

  /** The gap [a, b) over the windows from index `j` (the first ending after a) on. */
  mark(a: number, b: number, j: number): void {
    this.from ??= new Float64Array(this.starts.length).fill(NaN);
    this.to ??= new Float64Array(this.starts.length).fill(NaN);
    for (; j < this.starts.length && this.starts[j] < b; j++)
      if (!(this.to[j] - this.from[j] >= b - a)) {
        this.from[j] = a;
        this.to[j] = b;
      }
  }

  /** The index of the first window ending after `at` (binary search). */
  firstEndingAfter(at: number): number {
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid] <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(j: number): { from: number; to: number } | null {
    return this.from && !Number.isNaN(this.from[j]) ? { from: this.from[j], to: this.to![j] } : null;
  }
}

/**
 * The share of an interval's `energy` (from instant `a` to `b`) that falls in the window
 * [from, to): in proportion to the time they overlap (rule 40; 0 when they do not).
 */
export function windowShare(energy: number, a: number, b: number, from: number, to: number): number {
  const overlap = Math.min(to, b) - Math.max(from, a);
  return overlap > 0 ? energy * (overlap / (b - a)) : 0;
}

function tooManyWindows(from: number, to: number, minutes: number): RangeError {
  return new RangeError(
    `demandWindows: ${instantText(from)} to ${instantText(to)} holds more than ${MAX_DEMAND_WINDOWS} windows of ${minutes} minutes ` +
      '(the most one call makes); ask for a shorter range with options.from and options.to',
  );
}
