// The split and one-block plans (semantics "Plans"): exact on the price segments in
// continuous time.
// - split (any number of blocks): the cheapest segments, and of the marginal price's time
//   what makes the fewest blocks, then the earliest (plan-split-ties.ts); work
//   O(segments × log segments);
// - one block: the cost of a block is piecewise linear in its start, so a minimum lies
//   where the block's start or end meets a segment boundary; every such start is tried in
//   time order, the earliest of the cheapest wins; work O(segments) (two pointers).
import type { Piece } from './plan-block-work';
import { MarginalRun, takeMarginal } from './plan-split-ties';

/**
 * Split: all the time priced below the marginal price, and of the time at it what the
 * fewest blocks, then the earliest, need (plan-split-ties.ts). The marginal price is found
 * by bisection over the sorted prices (a native numeric sort and log n linear passes: no
 * comparator called n log n times), then one pass in time order.
 */
export function cheapestPieces(usable: Piece[], duration: number): Piece[] {
  const n = usable.length;
  const prices = new Float64Array(n);
  for (let i = 0; i < n; i++) prices[i] = usable[i].price;
  prices.sort();
  /** the time of the pieces priced at most p */
  const upTo = (p: number): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) if (usable[i].price <= p) sum += usable[i].to - usable[i].from;
    return sum;
  };
  // the least price whose pieces and the cheaper ones hold the duration (all of them when none does)
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (upTo(prices[mid]) >= duration) hi = mid;
    else lo = mid + 1;
  }
  const marginal = n > 0 ? prices[lo] : 0;
  // the runs at the marginal price (touching pieces merged), and the taken time that touches them
  const continuesRun = (i: number) => i > 0 && usable[i - 1].to === usable[i].from && usable[i - 1].price === marginal;
  const runs: MarginalRun[] = [];
  let below = 0;
  for (let i = 0; i < n; i++) {
    const p = usable[i];
    if (p.price < marginal) {
      below += p.to - p.from;
      if (continuesRun(i)) runs[runs.length - 1].takenAfter = true;
    } else if (p.price === marginal) {
      if (continuesRun(i)) runs[runs.length - 1].to = p.to;
      else {
        const takenBefore = i > 0 && usable[i - 1].to === p.from && usable[i - 1].price < marginal;
        runs.push({ from: p.from, to: p.to, takenBefore, takenAfter: false });
      }
    }
  }
  const taken = takeMarginal(runs, duration - below);
  const chosen: Piece[] = [];
  for (let i = 0, run = -1; i < n; i++) {
    const p = usable[i];
    if (p.price < marginal) chosen.push({ ...p });
    else if (p.price === marginal) {
      if (!continuesRun(i)) run++;
      const from = Math.max(taken[run].from, p.from);
      const to = Math.min(taken[run].to, p.to);
      if (to > from) chosen.push({ from, to, price: p.price });
    }
  }
  return chosen;
}

/**
 * Contiguous: the cheapest block of `duration` inside one run of usable time; when no
 * run is that long, the longest run (earliest of equals), all of it.
 */
export function cheapestBlock(usable: Piece[], duration: number): Piece[] {
  const n = usable.length;
  let maxAbsPrice = 0;
  for (let k = 0; k < n; k++) maxAbsPrice = Math.max(maxAbsPrice, Math.abs(usable[k].price));
  // prefix[k]: price × ms from the start of k's run to usable[k].from
  const prefix = new Float64Array(n);
  let bestCost = 0;
  let bestStart = -1; // none yet
  let bestRun = 0; // the first piece of the best block's run
  let longest = 0; // the longest run: its first piece and its span (the earliest of equals)
  let longestSpan = 0;
  for (let first = 0, end: number; first < n; first = end) {
    // the run of usable pieces that touch each other from `first`, to `end` (exclusive)
    end = first + 1;
    while (end < n && usable[end - 1].to === usable[end].from) end++;
    const runFrom = usable[first].from;
    const runTo = usable[end - 1].to;
    if (runTo - runFrom > longestSpan) [longest, longestSpan] = [first, runTo - runFrom];
    if (runTo - runFrom < duration) continue;
    prefix[first] = 0;
    for (let k = first + 1; k < end; k++) {
      const p = usable[k - 1];
      prefix[k] = prefix[k - 1] + p.price * (p.to - p.from);
    }
    // differences of prefix sums are off in the last bits: equal costs must still tie
    const tolerance = maxAbsPrice * (runTo - runFrom) * 1e-12;
    // every candidate start in ascending order: the pieces' starts and their ends less the
    // duration (two ascending lists, merged); the block's ends then only move forward, so
    // the pieces holding them are found by two pointers, not a search per start. Starts come
    // in time order (runs too), so the first of equal costs is the earliest.
    let i = first; // the next piece whose start is a candidate
    let j = first; // the next piece whose end less the duration is a candidate
    let head = first; // the piece holding the block's start
    let tail = first; // the piece holding the block's end
    for (;;) {
      if (i < end && usable[i].from + duration > runTo) i = end; // so is every later piece's
      while (j < end && usable[j].to - duration < runFrom) j++;
      if (i === end && j === end) break;
      const start = j === end || (i < end && usable[i].from <= usable[j].to - duration) ? usable[i++].from : usable[j++].to - duration;
      const stop = start + duration;
      while (head + 1 < end && usable[head + 1].from <= start) head++;
      while (tail + 1 < end && usable[tail + 1].from <= stop) tail++;
      const cost = costAt(usable, prefix, tail, stop) - costAt(usable, prefix, head, start);
      if (bestStart < 0 || cost < bestCost - tolerance) [bestCost, bestStart, bestRun] = [cost, start, first];
    }
  }
  if (bestStart < 0) return clip(usable, longest, -Infinity, Infinity);
  return clip(usable, bestRun, bestStart, bestStart + duration);
}

/** price × ms from the run's start to t, t inside usable[k] (the run's last piece starting at or before t). */
function costAt(usable: Piece[], prefix: Float64Array, k: number, t: number): number {
  return prefix[k] + usable[k].price * (t - usable[k].from);
}

/** The run of pieces from usable[first] (those touching each other) cut to [a, b), as new pieces. */
function clip(usable: Piece[], first: number, a: number, b: number): Piece[] {
  const out: Piece[] = [];
  for (let k = first; k < usable.length && (k === first || usable[k - 1].to === usable[k].from) && usable[k].from < b; k++) {
    const p = usable[k];
    const from = Math.max(a, p.from);
    const to = Math.min(b, p.to);
    if (to > from) out.push({ from, to, price: p.price });
  }
  return out;
}
