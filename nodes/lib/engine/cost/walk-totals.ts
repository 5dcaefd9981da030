// What one costing pass adds up, and the intervals it reports: the types shared by the
// walk over the readings (cost-walk) and the cursor over segments of constant rule
// (cost-segments), kept apart so neither imports the other.

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
