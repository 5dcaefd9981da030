// The price segments of a plan's window: walked one price change at a time and refused
// past MAX_PLAN_SEGMENTS before the rest is built (the plans' work grows with them, and a
// window of years at quarter-hour prices would hold the event loop for seconds); for a
// price stack read from its walk over the whole list, kept per zone, instead of a walk per
// plan (a plan re-planned every few minutes on the same list walks it once).
import { sensorValues, walkSegments, PriceOptions, SegmentList } from '../tariff/price';
import type { CompiledTariff, ListVisits } from '../tariff/tariff';
import type { ZoneInfo } from '../time/time';
import { MAX_PLAN_SEGMENTS } from '../common/limits';
import { groupDigits } from '../common/format';
import { hours } from './plan-text';

/** The most segments whose arrays are kept between plans (2 × 8 bytes each). */
const KEPT_SEGMENTS = 2048;

/**
 * A window's segments as two parallel arrays: segment k from starts[k] to starts[k + 1]
 * (the last to the window's end) at net price prices[k] (NaN: no price). Plans run one at
 * a time: one set of arrays is reused while small, a larger window gets its own.
 */
export class WindowSegments {
  readonly starts: Float64Array;
  readonly prices: Float64Array;
  length = 0;

  private static kept: WindowSegments | null = null;

  private constructor(capacity: number) {
    this.starts = new Float64Array(capacity);
    this.prices = new Float64Array(capacity);
  }

  /** Empty arrays for at most `count` segments. */
  static forCount(count: number): WindowSegments {
    if (count > KEPT_SEGMENTS) return new WindowSegments(count);
    const kept = (WindowSegments.kept ??= new WindowSegments(KEPT_SEGMENTS));
    kept.length = 0;
    return kept;
  }

  push(at: number, price: number): void {
    const n = this.length++;
    this.starts[n] = at;
    this.prices[n] = price;
  }
}

/** The segments of [from, to) (from < to) for a plan: a stack's kept walk where it has one, else the walk. */
export function windowSegments(ct: CompiledTariff, zone: ZoneInfo, from: number, to: number, options: PriceOptions): WindowSegments {
  const kept = ct.listVisits !== undefined ? ct.listVisits(zone) : null;
  if (kept !== null) return keptSegments(kept, from, to);
  const walked = walkedSegments(ct, zone, from, to, options);
  const { starts, slots, length } = walked;
  const out = WindowSegments.forCount(length);
  for (let k = 0; k < length; k++) out.push(starts[k], slots[k] < 0 ? NaN : ct.rules[slots[k]].price);
  return out;
}

/** The walk's segments over [from, to): starts and rule slots (-1: none), the last ending at `to`. */
export function walkedSegments(ct: CompiledTariff, zone: ZoneInfo, from: number, to: number, options: PriceOptions): SegmentList {
  const segments = new SegmentList();
  let visited = 0;
  walkSegments(ct, zone, sensorValues(ct, options.sensors), from, to, null, (at, slot) => {
    if (++visited > MAX_PLAN_SEGMENTS) throw tooManyChanges(from, to);
    segments.push(at, slot);
    return true;
  });
  return segments;
}

const tooManyChanges = (from: number, to: number): RangeError =>
  new RangeError(
    `the prices change more than ${groupDigits(MAX_PLAN_SEGMENTS)} times in this window ` +
      `(${hours(to - from)} from ${new Date(from).toISOString()}): plan a shorter window`,
  );

/**
 * A stack's segments over [from, to) read from its walk over the whole list: the visits
 * its walk over the window makes (the window's start, then every visit of the kept walk
 * inside it: the instants where the fees or the list's entry change), counted against
 * MAX_PLAN_SEGMENTS as the walk counts them. Outside the list nothing is priced (a stack
 * that falls back to its fees there keeps no walk). Consecutive visits share a slot only
 * where there is no price, so the segments price the same time as the walk's.
 */
function keptSegments(kept: ListVisits, from: number, to: number): WindowSegments {
  const a = Math.max(from, kept.from);
  const b = Math.min(to, kept.to);
  if (!(a < b)) {
    const out = WindowSegments.forCount(1);
    out.push(from, NaN);
    return out;
  }
  const { starts, prices } = kept;
  // the visits inside (a, b) are first .. end - 1; the one before first gives a's price
  const first = firstAbove(starts, kept.length, a, false);
  const end = firstAbove(starts, kept.length, b, true);
  const count = (from < a ? 1 : 0) + 1 + (end - first) + (b < to ? 1 : 0);
  if (count > MAX_PLAN_SEGMENTS) throw tooManyChanges(from, to);
  const out = WindowSegments.forCount(count);
  if (from < a) out.push(from, NaN);
  const k0 = out.length;
  out.starts.set(starts.subarray(first - 1, end), k0);
  out.prices.set(prices.subarray(first - 1, end), k0);
  out.starts[k0] = a;
  out.length = k0 + 1 + (end - first);
  if (b < to) out.push(b, NaN);
  return out;
}

/** The index of the first of starts[0 .. length) above `at` (or at it, orEqual), length when none: binary search. */
function firstAbove(starts: Float64Array, length: number, at: number, orEqual: boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] < at || (!orEqual && starts[mid] === at)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
