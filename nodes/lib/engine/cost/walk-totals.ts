// What one costing pass adds up, and the intervals it reports: the types shared by the
// walk over the readings (cost-walk) and the cursor over segments of constant rule
// (cost-segments), kept apart so neither imports the other; and which intervals count
// no energy (leftOut), shared by the walk and the demand windows (engine/peak).
import { HOUR_MS } from '../time/time';

export interface Interval {
  from: number;
  to: number;
  fromValue: number;
  toValue: number;
}

/**
 * An interval left out: its average power was above maxPowerKw (`power`), or its energy
 * (or the sums with it, priced at the tariff's highest rate with VAT) would not be a
 * finite number (`overflow`).
 */
export interface RejectedInterval extends Interval {
  energy: number;
  averageKw: number;
  reason: 'power' | 'overflow';
}

/** What one costing pass adds up. */
export interface Totals {
  energyBySlot: Float64Array; // [0] = unpriced, [slot + 1] = rule at slot
  usedBySlot: Uint8Array; // 1 = priced at least one interval
  // [0]. Not a number field: made as the integer 0 and later given a fraction, a field
  // changes its object's shape, which throws away the optimised code using it.
  energy: Float64Array;
  intervals: number;
  resets: Interval[];
  rejected: RejectedInterval[];
  unknown: number[];
}

/** Where one pass reports the intervals it leaves out. */
export interface LeftOutIntervals {
  resets: Interval[];
  rejected: RejectedInterval[];
}

/**
 * Whether the interval (t0, v0) → (t1, v1) counts no energy, reported in `out` (semantics
 * rule 10): a negative delta is a reset; an interval whose energy would take the counted
 * total past `energyLimit`, or whose average power exceeds `maxPowerKw`, is rejected.
 * Small, so that the cost walk's optimiser inlines it: the doubles stay unboxed.
 */
export function leftOut(
  out: LeftOutIntervals,
  t0: number,
  v0: number,
  t1: number,
  v1: number,
  counted: number,
  energyLimit: number,
  maxPowerKw: number,
): boolean {
  const delta = v1 - v0;
  if (delta < 0) {
    out.resets.push({ from: t0, to: t1, fromValue: v0, toValue: v1 });
    return true;
  }
  const overflow = !(counted + delta <= energyLimit);
  if (!overflow && (maxPowerKw === Infinity || !(delta / ((t1 - t0) / HOUR_MS) > maxPowerKw))) return false;
  out.rejected.push({
    from: t0,
    to: t1,
    fromValue: v0,
    toValue: v1,
    energy: delta,
    averageKw: delta / ((t1 - t0) / HOUR_MS),
    reason: overflow ? 'overflow' : 'power',
  });
  return true;
}
