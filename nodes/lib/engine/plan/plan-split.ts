// The split and one-block plans (semantics "Plans"): exact on the price segments in
// continuous time.
// - split (any number of blocks): the cheapest segments, and of the marginal price's time
//   what makes the fewest blocks, then the earliest (plan-split-ties.ts); work
//   O(segments × log segments);
// - one block: the cost of a block is piecewise linear in its start, so a minimum lies
//   where the block's start or end meets a segment boundary; every such start is tried in
//   time order, the earliest of the cheapest wins; work O(segments) (two pointers).
import type { Piece, UsablePieces } from './plan-block-work';
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
export function cheapestBlock(usable: UsablePieces, duration: number): Piece[] {
  const { from: F, to: T, price: P, prefix, length: n } = usable;
  let maxAbsPrice = 0;
  for (let k = 0; k < n; k++) if (Math.abs(P[k]) > maxAbsPrice) maxAbsPrice = Math.abs(P[k]);
  let bestCost = 0;
  let bestStart = -1; // none yet
  let bestHead = 0; // the piece holding the best block's start
  let longest = 0; // the longest run: its first piece and its span (the earliest of equals)
  let longestSpan = 0;
  for (let first = 0; first < n;) {
    // the run of usable pieces that touch each other from `first`, to `end` (exclusive), and
    // prefix[k]: price × ms from the run's start to the start of piece k (prefix[end]: its end)
    let end = first + 1;
    let sum = 0; // prefix[end - 1], kept in a local: no store and load per piece
    prefix[first] = 0;
    for (; end < n && T[end - 1] === F[end]; end++) prefix[end] = sum += P[end - 1] * (T[end - 1] - F[end - 1]);
    prefix[end] = sum + P[end - 1] * (T[end - 1] - F[end - 1]);
    const runFrom = F[first];
    const runTo = T[end - 1];
    const run = first;
    first = end;
    if (runTo - runFrom > longestSpan) {
      longest = run;
      longestSpan = runTo - runFrom;
    }
    if (runTo - runFrom < duration) continue;
    // differences of prefix sums are off in the last bits: equal costs must still tie
    const tolerance = maxAbsPrice * (runTo - runFrom) * 1e-12;
    // every candidate start in ascending order: the pieces' starts and their ends less the
    // duration (two ascending lists, merged; a start in both is tried once); the block's
    // ends then only move forward, so the pieces holding them are found by two pointers, not
    // a search per start. Starts come in time order (runs too), so the first of equal costs
    // is the earliest.
    let i = run; // the next piece whose start is a candidate
    let j = run; // the next piece whose end less the duration is a candidate
    let head = run; // the piece holding the block's start
    let tail = run; // the piece holding the block's end
    while (j < end && T[j] - duration < runFrom) j++;
    for (;;) {
      // where the pieces' starts and ends line up with the duration (a list's equal entries,
      // a duration of whole entries), a block from piece i's start ends at piece j's end: its
      // cost is read off the prefix sums (what a start or end inside a piece gives, with 0 ms
      // inside), no pointer moves
      if (i < end && j < end && F[i] === T[j] - duration && !(F[i] + duration > runTo)) {
        do {
          const cost = prefix[j + 1] - prefix[i];
          if (bestStart < 0 || cost < bestCost - tolerance) {
            bestCost = cost;
            bestStart = F[i];
            bestHead = i;
          }
          i++;
          j++;
        } while (i < end && j < end && F[i] === T[j] - duration && !(F[i] + duration > runTo));
        head = i - 1;
        tail = j < end ? j : j - 1;
      }
      const byStart = i < end && !(F[i] + duration > runTo) ? F[i] : Infinity; // later pieces' starts are too late as well
      const byEnd = j < end ? T[j] - duration : Infinity;
      if (byStart === Infinity && byEnd === Infinity) break;
      let start = byStart;
      if (byStart < byEnd) i++;
      else {
        if (byStart === byEnd) i++; // one candidate, tried once
        start = T[j++] - duration;
      }
      const stop = start + duration;
      while (head + 1 < end && F[head + 1] <= start) head++;
      while (tail + 1 < end && F[tail + 1] <= stop) tail++;
      const cost = prefix[tail] + P[tail] * (stop - F[tail]) - (prefix[head] + P[head] * (start - F[head]));
      if (bestStart < 0 || cost < bestCost - tolerance) {
        bestCost = cost;
        bestStart = start;
        bestHead = head;
      }
    }
  }
  if (bestStart < 0) return clip(usable, longest, -Infinity, Infinity);
  return clip(usable, bestHead, bestStart, bestStart + duration);
}

/** The run of pieces from `first` (those touching each other; `first` holds `a` or is the run's first) cut to [a, b), as new pieces. */
function clip({ from, to, price, length }: UsablePieces, first: number, a: number, b: number): Piece[] {
  const out: Piece[] = [];
  for (let k = first; k < length && (k === first || to[k - 1] === from[k]) && from[k] < b; k++) {
    const pieceFrom = Math.max(a, from[k]);
    const pieceTo = Math.min(b, to[k]);
    if (pieceTo > pieceFrom) out.push({ from: pieceFrom, to: pieceTo, price: price[k] });
  }
  return out;
}
