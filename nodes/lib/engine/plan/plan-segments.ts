// The price segments of a plan's window: walked one price change at a time and refused
// past MAX_PLAN_SEGMENTS before the rest is built (the plans' work grows with them, and a
// window of years at quarter-hour prices would hold the event loop for seconds); for a
// price stack read from its walk over the whole list, kept per zone, instead of a walk per
// plan (a plan re-planned every few minutes on the same list walks it once), with the
// walk's usable pieces summed once (plan-pieces.ts), which a plan's window reads in place.
import { sensorValues, walkSegments, PriceOptions, SegmentList } from '../tariff/price';
import type { CompiledTariff, ListVisits } from '../tariff/tariff';
import type { ZoneInfo } from '../time/time';
import { MAX_PLAN_SEGMENTS } from '../common/limits';
import { groupDigits } from '../common/format';
import { hours } from './plan-text';
import { PieceWindow, UsablePieces } from './plan-pieces';

/** Plans are exact to the millisecond; the searches' work depends on the price changes, not on this. */
export const PLAN_RESOLUTION_MS = 1;

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

/**
 * A kept walk's priced pieces over the whole list as plans read them (plan.ts
 * usablePieces): each visit's time with its ends at the nearest ms, the unpriced and
 * empty ones left out, summed for the one-block search. Made once per walk (some 61 bytes
 * a visit) and let go with it.
 */
const piecesOfWalk = new WeakMap<ListVisits, UsablePieces>();

function keptPieces(kept: ListVisits): UsablePieces {
  const known = piecesOfWalk.get(kept);
  if (known !== undefined) return known;
  const pieces = UsablePieces.owned(kept.length);
  pushUsable(pieces, kept.starts, kept.prices, kept.length, kept.to, undefined, 1);
  pieces.sum();
  piecesOfWalk.set(kept, pieces);
  return pieces;
}

/**
 * The priced segments within the limit onto `out` (segment k from starts[k] to starts[k +
 * 1], the last to `to`, at prices[k], NaN: none), prices multiplied by sign (the search
 * always minimises), their ends on whole ms (a zone's historic offsets may hold fractions
 * of a second, and float noise): each taken at the nearest ms, empty ones dropped.
 */
export function pushUsable(
  out: UsablePieces,
  starts: Float64Array,
  prices: Float64Array,
  length: number,
  to: number,
  signedLimit: number | undefined,
  sign: number,
): void {
  for (let k = 0; k < length; k++) {
    const price = sign * prices[k];
    if (price !== price) continue; // NaN: no price
    if (signedLimit !== undefined && price > signedLimit) continue;
    const a = onResolution(starts[k]);
    const b = onResolution(k + 1 < length ? starts[k + 1] : to);
    if (b > a) out.push(a, b, price);
  }
}

/** The bytes a walk's kept pieces take (0 when no plan has read it yet): their typed arrays. */
export function keptPiecesBytes(kept: ListVisits): number {
  const p = piecesOfWalk.get(kept);
  return p === undefined
    ? 0
    : [p.from, p.to, p.price, p.sumHi, p.sumLo, p.runEnd, p.evenEnd, p.blockMax].reduce((sum, a) => sum + a.byteLength, 0);
}

/** An instant at the nearest whole ms (the plans' resolution). */
export const onResolution = (at: number): number => Math.round(at / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS;

/**
 * A window's usable pieces read from a stack's kept walk: the pieces plan.ts usablePieces
 * makes of keptSegments' segments (prices times `sign`, none above `signedLimit`). With
 * neither (the cheapest, no limit) the window is the walk's own pieces, cut at the
 * window's ends, read in place; else they are copied. The window's segments are counted
 * against MAX_PLAN_SEGMENTS as keptSegments counts them. Null where the source keeps no
 * walk. `from` and `to` are whole ms (planWindow).
 */
export function keptUsablePieces(
  ct: CompiledTariff,
  zone: ZoneInfo,
  from: number,
  to: number,
  signedLimit: number | undefined,
  sign: number,
): { window: PieceWindow; kept: ListVisits } | null {
  const kept = ct.listVisits !== undefined ? ct.listVisits(zone) : null;
  if (kept === null) return null;
  const a = Math.max(from, kept.from);
  const b = Math.min(to, kept.to);
  // the window's segments are at most the walk's visits and one unpriced one either side
  if (a < b && kept.length + 3 > MAX_PLAN_SEGMENTS) {
    const inside = firstAbove(kept.starts, kept.length, b, true) - firstAbove(kept.starts, kept.length, a, false);
    if ((from < a ? 1 : 0) + 1 + inside + (b < to ? 1 : 0) > MAX_PLAN_SEGMENTS) throw tooManyChanges(from, to);
  }
  const all = keptPieces(kept);
  // the pieces that end after a and start before b (each is non-empty, so cut to [a, b) they still are)
  const lo = firstAbove(all.to, all.length, a, false);
  const hi = a < b ? firstAbove(all.from, all.length, b, true) : lo;
  const start = onResolution(a);
  const end = onResolution(b);
  if (hi === lo) return { window: UsablePieces.forCount(0).window(), kept };
  if (sign === 1 && signedLimit === undefined) {
    return { window: { pieces: all, lo, hi, from: Math.max(all.from[lo], start), to: Math.min(all.to[hi - 1], end) }, kept };
  }
  const usable = UsablePieces.forCount(hi - lo);
  for (let k = lo; k < hi; k++) {
    const price = sign * all.price[k];
    if (signedLimit === undefined || !(price > signedLimit)) usable.push(Math.max(all.from[k], start), Math.min(all.to[k], end), price);
  }
  return { window: usable.window(), kept };
}

/**
 * What running from `from` to `end` costs (price × hours) on a kept walk, read as
 * plan.ts startingNow reads the window's segments (the same sums in the same order); null
 * when part of it has no price. `end` is at most the window's end.
 */
export function keptCostFrom(kept: ListVisits, from: number, end: number): number | null {
  if (from < kept.from || end > kept.to || !(from < kept.to)) return null;
  return costFrom(kept.starts, kept.prices, kept.length, firstAbove(kept.starts, kept.length, from, false) - 1, from, end);
}

/**
 * What running from `from` (in segment k: starts[k] <= from) to `end` costs over segments
 * (segment k from starts[k] to starts[k + 1] at prices[k], NaN: none), price × hours
 * summed segment by segment in time order (as plan.ts startingNow and schedule() price
 * it); null when part of it has no price. `end` is at most the last segment's end.
 */
export function costFrom(starts: Float64Array, prices: Float64Array, length: number, k: number, from: number, end: number): number | null {
  // (+: the instants as plain numbers, so that the engine keeps the loop's unboxed; an
  // instant merged with an array's double was boxed at every step)
  const stop = +end;
  let at = +from;
  let net = 0;
  // the segments that end before `end`, whole, then the one `end` cuts (the hour a literal:
  // an imported constant is read from its module at every step)
  for (; k + 1 < length; k++) {
    const next = starts[k + 1];
    if (!(next < stop)) break;
    const price = prices[k];
    if (price !== price) return null; // NaN: no price
    net += price * ((next - at) / 3_600_000);
    at = next;
  }
  const price = prices[k];
  return price !== price ? null : net + price * ((stop - at) / 3_600_000);
}
