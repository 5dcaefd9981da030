// savingOffWindows: when to switch a load OFF to save most (power-saver's "Best Save"),
// semantics in docs/semantics.md ("Switching off to save"). The energy a load does not
// use while off is used when it comes back on, at the price of that instant, so an off
// period [x, y) saves ∫ (p(s) − p(y)) ds per kW; every instant of it must save at least
// minSaving per kWh (and something), or, with minSavingOf 'average' (power-saver's rule),
// its first instant and its average must, and its last instant save something; it lasts
// at least minOffInRow and at most maxOffInRow, and the load stays on at least the
// recovery time after it, inside the window.
//
// Why a lattice: an off period ends where the price drops (else its last instants would
// save nothing) and begins where the price rose, maxOffInRow or minOffInRow before its
// end, at `from`, or where the previous recovery ends. With the average rule as well: its
// last instant saves something, so it ends at a drop; begun inside a run of one price, its
// first instant saves at least minSaving, so beginning earlier in that run adds instants
// that save as much, keeps the average and saves more. With h the gcd of the price
// changes' distances, maxOffInRow, minOffInRow, minOnBetween, recoveryMax and (with a
// recovery percentage) one minute, all of those lie on the lattice of h except `from`.
// One pass over the lattice points (the best saving from each onwards and the fewest off
// periods that make it), then a walk taking the earliest, longest switch-off that is
// still optimal. Work: lattice points × off periods that may end within maxOffInRow of
// each, counted before it starts (MAX_PLAN_WORK); minOffInRow only refines the lattice.
import { engineContext } from '../prices/price-source';
import { HOUR_MS } from '../time/time';
import { MAX_PLAN_WORK } from '../common/limits';
import { BlockStats, gcd, gridText } from './plan-block-work';
import { planLength, planSchedule, planWindow, PlanWindowOptions } from './plan';
import { groupDigits } from '../common/format';

const MINUTE = 60_000;

export interface SavingOptions extends PlanWindowOptions {
  /** Longest time off in a row, ms (at least 1 s). */
  maxOffInRow: number;
  /** Shortest time off in a row, ms (default 0: any; at most maxOffInRow). */
  minOffInRow?: number;
  /** Shortest time on between two off periods, ms (more than 0; default 1 min). */
  minOnBetween?: number;
  /** Least saving per kWh for every instant off (default 0: any saving)… */
  minSaving?: number;
  /**
   * …or ('average', power-saver's rule) for the average of each off period and its first
   * instant, its last instant saving something (default 'instant': every instant).
   */
  minSavingOf?: MinSavingOf;
  /** After an off period, stay on this percentage of its length (default 0), rounded up to whole minutes… */
  recoveryPercent?: number;
  /** …but at most this long, ms (default: no cap). */
  recoveryMax?: number;
}

/** What the least saving holds: every instant off, or each off period's average (rule 36). */
export type MinSavingOf = 'instant' | 'average';

export interface SavingSlot {
  /** When the load is off: [from, to). */
  from: number;
  to: number;
  /** Average net price per kWh while off. */
  price: number;
  /** Net price per kWh when the load is back on (at `to`). */
  resumePrice: number;
  /** What this off period saves per kW (net): Σ (price − resumePrice) × hours. */
  saving: number;
  /** The load stays on until then at least (the recovery, at least minOnBetween); never after the window's `to`. */
  recoveryEnd: number;
}

export interface SavingResult {
  /** The off periods. */
  slots: SavingSlot[];
  /** Time off in all, ms. */
  offTime: number;
  /** What the off periods save per kW. */
  saving: { net: number; gross: number };
  currency: string;
  vat: number;
  from: number;
  to: number;
}

/**
 * The time on after `off` ms off (rule 36): the recovery, `percent` of the time off rounded
 * up to whole minutes and at most `recoveryMax`, and never less than `minOnBetween`.
 */
export function onTimeAfter(off: number, minOnBetween: number, percent: number, recoveryMax: number): number {
  return Math.max(minOnBetween, Math.min(Math.ceil((off * percent) / 100 / MINUTE) * MINUTE, recoveryMax));
}

function nonNegative(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`${what} must be a number of at least 0, got ${String(value)}`);
  }
  return value;
}

/**
 * What one lattice point costs besides the off periods it looks at (its price, prefix
 * cost, the calls of the pass and the walk), in steps of that look: measured.
 */
const POINT_SETUP_STEPS = 32;

/**
 * An upper bound of the steps the search takes: the pass and the walk each look at most
 * `span` off periods from each of `points`, and each point costs its set-up. The test
 * counts the looks the search really takes against this.
 */
function savingWork(points: number, span: number): number {
  return points * (2 * span + POINT_SETUP_STEPS);
}

/** The off periods in [from, to) that save most (power-saver's "Best Save", exact). */
export function savingOffWindows(tariff: unknown, options: SavingOptions, stats?: BlockStats): SavingResult {
  const { ct } = engineContext(tariff, options);
  const { from, to } = planWindow(options);
  const maxOff = planLength(options.maxOffInRow, 'maxOffInRow', false);
  const minOff = options.minOffInRow === undefined ? 0 : planLength(options.minOffInRow, 'minOffInRow', true);
  if (minOff > maxOff) {
    throw new RangeError(`minOffInRow (${minOff} ms) is longer than maxOffInRow (${maxOff} ms): nothing could be switched off`);
  }
  // two off periods with no time on between would be one, longer than maxOffInRow allows
  const minOn = options.minOnBetween === undefined ? MINUTE : planLength(options.minOnBetween, 'minOnBetween', false);
  const minSaving = nonNegative(options.minSaving, 'minSaving', 0);
  const minSavingOf = options.minSavingOf ?? 'instant';
  if (minSavingOf !== 'instant' && minSavingOf !== 'average') {
    throw new RangeError(`minSavingOf must be 'instant' or 'average', got ${String(minSavingOf)}`);
  }
  const ofAverage = minSavingOf === 'average';
  const percent = nonNegative(options.recoveryPercent, 'recoveryPercent', 0);
  const recoveryMax = options.recoveryMax === undefined ? Infinity : planLength(options.recoveryMax, 'recoveryMax', true);
  const gapAfter = (off: number) => onTimeAfter(off, minOn, percent, recoveryMax);

  // segments in ms from `from`, equal-price neighbours merged (NaN: no price)
  const W = to - from;
  const segStart: number[] = [];
  const segPrice: number[] = [];
  for (const s of W > 0 ? planSchedule(tariff, from, to, options) : []) {
    const a = Math.round(s.from - from);
    const price = s.price === null ? NaN : s.price;
    const k = segPrice.length - 1;
    if (k >= 0 && (segPrice[k] === price || (Number.isNaN(price) && Number.isNaN(segPrice[k])))) continue;
    if (k >= 0 && segStart[k] === a) {
      segPrice[k] = price;
      continue;
    }
    segStart.push(a);
    segPrice.push(price);
  }
  // the lattice
  // times at least as long as the window never bind: they do not refine the lattice
  let h = 0;
  for (const x of [maxOff, minOff, minOn, recoveryMax, percent > 0 ? MINUTE : 0]) if (x > 0 && x < W) h = gcd(h, x);
  let z0 = -1;
  for (const b of segStart) {
    if (b <= 0 || b >= W) continue;
    if (z0 < 0) z0 = b;
    else h = gcd(h, b - z0);
  }
  if (h === 0) h = Math.max(1, W);
  const r = z0 < 0 ? 0 : ((z0 % h) + h) % h;
  const first = r === 0 ? h : r;
  const points = first < W ? Math.floor((W - 1 - first) / h) + 1 : 0;
  const n = points + 2; // 0, the lattice points, W
  const span = Math.floor(Math.min(maxOff, W) / h) + 1;
  // the pass and the walk each look at most `span` off periods from each point
  const work = savingWork(n, span);
  if (stats) stats.work = work;
  if (work > MAX_PLAN_WORK) {
    throw new RangeError(
      `this plan needs ${groupDigits(work)} search steps, more than ${groupDigits(MAX_PLAN_WORK)}: ` +
        `prices and the off/on times line up only every ${gridText(h)}; use times that are multiples of the price steps ` +
        `(such as 15 min), a shorter maxOffInRow or a shorter window`,
    );
  }
  const q = new Float64Array(n);
  for (let k = 0; k < points; k++) q[k + 1] = first + k * h;
  q[n - 1] = W;
  // cell prices, prefix costs
  const price = new Float64Array(n - 1);
  let s = 0;
  let maxAbs = 0;
  for (let i = 0; i < n - 1; i++) {
    while (s + 1 < segStart.length && segStart[s + 1] <= q[i]) s++;
    price[i] = segPrice.length ? segPrice[s] : NaN;
    if (!Number.isNaN(price[i])) maxAbs = Math.max(maxAbs, Math.abs(price[i]));
  }
  const pc = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) pc[i + 1] = pc[i] + (Number.isNaN(price[i]) ? 0 : price[i] * (q[i + 1] - q[i]));
  const tol = maxAbs * W * 1e-12;
  // a saving of at least minSaving, to 12 significant digits as the ties: 0.3 − 0.2 saves 0.1
  const leastSaving = minSaving - Math.max(maxAbs, minSaving) * 1e-12;
  /** the first boundary at or after position x (the lattice is regular after the first point) */
  const atOrAfter = (x: number): number => (x <= 0 ? 0 : x > q[n - 2] ? n - 1 : x <= first ? 1 : 1 + Math.ceil((x - first) / h));
  /** The off periods [i, j) that may start at i, shortest first: j, the saving (price × ms) and where the next may start. */
  // kept in arrays of at most `span` entries, reused: no object per period
  const foundJ = new Int32Array(span);
  const foundSaving = new Float64Array(span);
  const foundNext = new Int32Array(span);
  let steps = 0;
  const offsFrom = (i: number): number => {
    let found = 0;
    let least = Infinity; // the lowest price in [i, j)
    let sum = 0; // price × ms over [i, j), summed here: the average's rounding stays that of the period
    for (let j = i + 1; j < n - 1 && q[j] - q[i] <= maxOff; j++) {
      steps++;
      least = Math.min(least, price[j - 1]);
      if (Number.isNaN(least)) break;
      sum += price[j - 1] * (q[j] - q[j - 1]);
      const resume = price[j];
      if (Number.isNaN(resume)) continue;
      const off = q[j] - q[i];
      if (ofAverage) {
        // the first instant saves at least minSaving, the last something, the average at least minSaving and something
        const average = sum / off - resume;
        if (!(price[i] - resume >= leastSaving && price[i] > resume && price[j - 1] > resume)) continue;
        if (!(average >= leastSaving && average * off > tol)) continue;
      } else if (!(least - resume >= leastSaving && least > resume)) continue;
      // the recovery after it fits in the window (rule 36)
      const recovered = q[j] + gapAfter(off);
      if (off < minOff || recovered > W) continue;
      foundJ[found] = j;
      foundSaving[found] = pc[j] - pc[i] - resume * off;
      foundNext[found] = atOrAfter(recovered);
      found++;
    }
    return found;
  };
  // best[i]: the most saving from boundary i on, the load free to switch off at i;
  // periods[i]: the fewest off periods of a plan from i that saves that much (rule 37)
  const best = new Float64Array(n + 1);
  const periods = new Int32Array(n + 1);
  const bestAt = (i: number) => (i >= n - 1 ? 0 : best[i]);
  const periodsAt = (i: number) => (i >= n - 1 ? 0 : periods[i]);
  for (let i = n - 2; i >= 0; i--) {
    steps += POINT_SETUP_STEPS;
    const found = offsFrom(i);
    let b = bestAt(i + 1);
    for (let k = 0; k < found; k++) b = Math.max(b, foundSaving[k] + bestAt(foundNext[k]));
    let fewest = bestAt(i + 1) >= b - tol ? periodsAt(i + 1) : Infinity;
    for (let k = 0; k < found; k++) {
      if (foundSaving[k] + bestAt(foundNext[k]) >= b - tol) fewest = Math.min(fewest, 1 + periodsAt(foundNext[k]));
    }
    best[i] = b;
    periods[i] = fewest;
  }
  // the walk: at each point the longest off period that is still optimal (saving, then
  // fewest periods), else stay on: the plan off at the first instant where equals differ
  const slots: SavingSlot[] = [];
  for (let i = 0; i < n - 1;) {
    const found = offsFrom(i);
    let k = found - 1;
    while (k >= 0 && !(foundSaving[k] + bestAt(foundNext[k]) >= best[i] - tol && 1 + periodsAt(foundNext[k]) === periods[i])) k--;
    if (k < 0) {
      i++;
      continue;
    }
    const j = foundJ[k];
    slots.push({
      from: from + q[i],
      to: from + q[j],
      price: (pc[j] - pc[i]) / (q[j] - q[i]),
      resumePrice: price[j],
      saving: foundSaving[k] / HOUR_MS,
      recoveryEnd: from + q[j] + gapAfter(q[j] - q[i]),
    });
    i = foundNext[k];
  }
  if (stats) stats.steps = steps;
  const net = slots.reduce((sum, x) => sum + x.saving, 0);
  return {
    slots,
    offTime: slots.reduce((sum, x) => sum + (x.to - x.from), 0),
    saving: { net, gross: net * (1 + ct.vat / 100) },
    currency: ct.currency,
    vat: ct.vat,
    from,
    to,
  };
}
