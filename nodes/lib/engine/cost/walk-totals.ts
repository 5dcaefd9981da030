// What one costing pass adds up, and the intervals it reports: the types shared by the
// walk over the readings (cost-walk) and the cursor over segments of constant rule
// (cost-segments), kept apart so neither imports the other; and how a pass judges its
// readings (rule 10: JudgedReadings over meter-glitches, overflows), shared by the walk and
// the demand windows (engine/peak).
import { HOUR_MS } from '../time/time';
import { GLITCH_RUN_MAX, GlitchSink, GlitchState, judgeReading, newGlitchState, ResetKind, SuspectKind } from './meter-glitches';

export interface Interval {
  from: number;
  to: number;
  fromValue: number;
  toValue: number;
}

/** An interval that counts 0 kWh: the meter went on from `toValue`, a counter reset (a drop) or a swap (a jump). */
export interface ResetInterval extends Interval {
  kind: ResetKind;
}

/** A reading judged a glitch (dropped), or one still held at the end (pending: nothing after it decided). */
export interface SuspectReading {
  ts: number;
  value: number;
  kind: SuspectKind;
}

/**
 * An interval left out because its energy (or the sums with it, priced at the tariff's
 * highest rate with VAT) would not be a finite number.
 */
export interface RejectedInterval extends Interval {
  energy: number;
  averageKw: number;
  reason: 'overflow';
}

/** What one costing pass adds up. */
export interface Totals {
  energyBySlot: Float64Array; // [0] = unpriced, [slot + 1] = rule at slot
  usedBySlot: Uint8Array; // 1 = priced at least one interval
  // [0]. Not a number field: made as the integer 0 and later given a fraction, a field
  // changes its object's shape, which throws away the optimised code using it.
  energy: Float64Array;
  intervals: number;
  resets: ResetInterval[];
  rejected: RejectedInterval[];
  glitches: SuspectReading[];
  pending: SuspectReading[];
  unknown: number[];
}

/** Where one pass reports the intervals and readings it leaves out. */
export interface LeftOutIntervals {
  resets: ResetInterval[];
  rejected: RejectedInterval[];
  glitches: SuspectReading[];
}

/**
 * A pass's judge (rule 10): readings in time order go in; the intervals counted come out in
 * `queue` ([from, fromValue, to, toValue] each, `length` of them), resets and glitches go to
 * `out`. The walk calls it only for a reading that is suspect or comes while one is held
 * (its own loop counts the plausible ones), so clean input never reaches it.
 */
export class JudgedReadings implements GlitchSink {
  readonly state: GlitchState = newGlitchState();
  /** At most one interval a reading: the held ones and the new one. */
  readonly queue = new Float64Array(4 * (GLITCH_RUN_MAX + 1));
  length = 0;

  constructor(
    private readonly out: LeftOutIntervals,
    private readonly maxPowerKw: number,
  ) {}

  /** Judges (ts, value) after the last accepted reading (lastTs, lastValue); the number of intervals now counted. */
  judge(lastTs: number, lastValue: number, ts: number, value: number): number {
    this.length = 0;
    this.state.lastTs = lastTs;
    this.state.lastValue = lastValue;
    judgeReading(this.state, ts, value, this.maxPowerKw, this);
    return this.length;
  }

  counted(fromTs: number, fromValue: number, toTs: number, toValue: number): void {
    const k = 4 * this.length++;
    this.queue[k] = fromTs;
    this.queue[k + 1] = fromValue;
    this.queue[k + 2] = toTs;
    this.queue[k + 3] = toValue;
  }

  reset(from: number, fromValue: number, to: number, toValue: number, kind: ResetKind): void {
    this.out.resets.push({ from, to, fromValue, toValue, kind });
  }

  glitch(ts: number, value: number, kind: SuspectKind): void {
    this.out.glitches.push({ ts, value, kind });
  }

  /** The readings still held (nothing after them decided): not counted, listed as pending. */
  pending(): SuspectReading[] {
    return this.state.held.map(({ ts, value, kind }) => ({ ts, value, kind }));
  }
}

/**
 * Whether counting the interval (t0, v0) → (t1, v1), plausible by rule 10, would take the
 * counted total past `energyLimit` (then it counts nothing and is listed in `out.rejected`).
 * Tiny, so that the cost walk's optimiser inlines it (the doubles stay unboxed) at little of
 * its inlining budget: the listing is a call of its own, made only when it overflows.
 */
export function overflows(
  out: LeftOutIntervals,
  t0: number,
  v0: number,
  t1: number,
  v1: number,
  counted: number,
  energyLimit: number,
): boolean {
  return !(counted + (v1 - v0) <= energyLimit) && rejectOverflow(out, t0, v0, t1, v1);
}

function rejectOverflow(out: LeftOutIntervals, t0: number, v0: number, t1: number, v1: number): true {
  const energy = v1 - v0;
  out.rejected.push({
    from: t0,
    to: t1,
    fromValue: v0,
    toValue: v1,
    energy,
    averageKw: energy / ((t1 - t0) / HOUR_MS),
    reason: 'overflow',
  });
  return true;
}
