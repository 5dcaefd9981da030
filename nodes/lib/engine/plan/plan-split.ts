// The split and one-block plans (semantics "Plans"): exact on the price segments in
// continuous time.
// - split (any number of blocks): the cheapest segments, and of the marginal price's time
//   what makes the fewest blocks, then the earliest (plan-split-ties.ts); work
//   O(segments × log segments);
// - one block: the cost of a block is piecewise linear in its start, so a minimum lies
//   where the block's start or end meets a segment boundary; every such start is tried in
//   time order, the earliest of the cheapest wins; work O(segments) (two pointers).
import type { Piece } from './plan-block-work';
import { largestPrice, PieceWindow } from './plan-pieces';
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
    if (p.price < marginal) chosen.push({ from: p.from, to: p.to, price: p.price });
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
 * Contiguous: the cheapest block of `duration` inside one run of the window's usable time;
 * when no run is that long, the longest run (earliest of equals), all of it. A block's
 * cost is read off the pieces' sums (plan-pieces.ts): what the pieces before its end cost
 * less what those before its start cost.
 */
export function cheapestBlock(w: PieceWindow, duration: number): Piece[] {
  const { pieces, lo, hi, from: a, to: b } = w;
  if (hi <= lo) return [];
  pieces.sum();
  const { from: F, to: T, price: P, sumHi: H, sumLo: L, runEnd, evenEnd } = pieces;
  const maxAbsPrice = largestPrice(w);
  let found = false;
  let bestCost = 0;
  let bestStart = 0;
  let bestHead = lo; // the piece holding the best block's start
  let longest = lo; // the longest run: its first piece and its span (the earliest of equals)
  let longestSpan = 0;
  for (let first = lo; first < hi;) {
    // the run of pieces that touch each other from `first` to `end` (exclusive), cut to the window
    const end = Math.min(runEnd[first], hi - 1) + 1;
    const runFrom = first === lo ? a : F[first];
    const runTo = end === hi ? b : T[end - 1];
    const run = first;
    first = end;
    if (runTo - runFrom > longestSpan) {
      longest = run;
      longestSpan = runTo - runFrom;
    }
    if (runTo - runFrom < duration) continue;
    // the costs of equal blocks differ in their last bits: equal costs must still tie (rule 31)
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
    // the pieces whose own start and end are the window's (not cut by it)
    const iWhole = run === lo && a !== F[lo] ? run + 1 : run;
    const jWhole = end === hi && b !== T[end - 1] ? end - 1 : end;
    // the first piece whose end less the duration is in the run: a binary search (ends ascend)
    for (let past = end; j < past;) {
      const mid = (j + past) >> 1;
      if ((mid === hi - 1 ? b : T[mid]) - duration < runFrom) j = mid + 1;
      else past = mid;
    }
    for (;;) {
      // where the pieces' starts and ends line up with the duration (a list's equal entries,
      // a duration of whole entries), a block from piece i's start ends at piece j's end: its
      // cost is the sums' difference (what a start or end inside a piece gives, with 0 ms
      // inside), no pointer moves
      if (i >= iWhole && i < end && j < jWhole && F[i] === T[j] - duration && !(F[i] + duration > runTo)) {
        do {
          // pieces i to j and on of one length (whole ms: exact sums) line up at every start
          // of the stretch: its starts are tried in a counted loop, with no check per start
          const lined = Math.min(evenEnd[i], jWhole - 1) - j + 1;
          if (lined > 1) {
            const span = j + 1 - i;
            let next = i; // (the first block of all is taken whatever it costs)
            if (!found) {
              found = true;
              bestCost = H[j + 1] - H[i] + (L[j + 1] - L[i]);
              bestStart = F[i];
              bestHead = next++;
            }
            const at = cheapestLined(H, L, next, i + lined, span, bestCost - tolerance, tolerance);
            if (at >= 0) {
              bestCost = linedCost;
              bestStart = F[at];
              bestHead = at;
            }
            i += lined;
            j += lined;
            continue;
          }
          const cost = H[j + 1] - H[i] + (L[j + 1] - L[i]);
          if (!found || cost < bestCost - tolerance) {
            found = true;
            bestCost = cost;
            bestStart = F[i];
            bestHead = i;
          }
          i++;
          j++;
          // (j >= i, and a whole piece j ends at runTo at the latest: i < end, and the block fits)
        } while (j < jWhole && F[i] === T[j] - duration);
        head = i - 1;
        tail = j < end ? j : j - 1;
      }
      let byStart = Infinity;
      if (i < end) {
        const at = i === lo ? a : F[i];
        if (!(at + duration > runTo)) byStart = at; // later pieces' starts are too late as well
      }
      const byEnd = j < end ? (j === hi - 1 ? b : T[j]) - duration : Infinity;
      if (byStart === Infinity && byEnd === Infinity) break;
      let start = byStart;
      if (byStart < byEnd) i++;
      else {
        if (byStart === byEnd) i++; // one candidate, tried once
        start = byEnd;
        j++;
      }
      const stop = start + duration;
      while (head + 1 < end && F[head + 1] <= start) head++;
      while (tail + 1 < end && F[tail + 1] <= stop) tail++;
      const cost = H[tail] - H[head] + (L[tail] - L[head]) + P[tail] * (stop - F[tail]) - P[head] * (start - F[head]);
      if (!found || cost < bestCost - tolerance) {
        found = true;
        bestCost = cost;
        bestStart = start;
        bestHead = head;
      }
    }
  }
  if (!found) return clip(w, longest, -Infinity, Infinity);
  return clip(w, bestHead, bestStart, bestStart + duration);
}

/** The cost of the block cheapestLined found (kept here: no object made per call). */
let linedCost = 0;

/**
 * The first of the blocks of `span` pieces starting at pieces first .. last - 1 (a stretch
 * of pieces of one length, so each block ends on a piece's end) whose cost is below
 * `threshold`, then each later one cheaper than the last found by more than `tolerance`
 * (rule 31's ties: the earliest of equal costs): its first piece, -1 when none; its cost in
 * linedCost. Four starts a step: the arrays' checks are made once for the four.
 */
function cheapestLined(
  H: Float64Array,
  L: Float64Array,
  first: number,
  last: number,
  span: number,
  threshold: number,
  tolerance: number,
): number {
  let at = -1;
  let cost = 0;
  let k = first;
  for (; k + 3 < last; k += 4) {
    const c0 = H[k + span] - H[k] + (L[k + span] - L[k]);
    const c1 = H[k + 1 + span] - H[k + 1] + (L[k + 1 + span] - L[k + 1]);
    const c2 = H[k + 2 + span] - H[k + 2] + (L[k + 2 + span] - L[k + 2]);
    const c3 = H[k + 3 + span] - H[k + 3] + (L[k + 3 + span] - L[k + 3]);
    if (c0 < threshold) {
      at = k;
      cost = c0;
      threshold = c0 - tolerance;
    }
    if (c1 < threshold) {
      at = k + 1;
      cost = c1;
      threshold = c1 - tolerance;
    }
    if (c2 < threshold) {
      at = k + 2;
      cost = c2;
      threshold = c2 - tolerance;
    }
    if (c3 < threshold) {
      at = k + 3;
      cost = c3;
      threshold = c3 - tolerance;
    }
  }
  for (; k < last; k++) {
    const c = H[k + span] - H[k] + (L[k + span] - L[k]);
    if (c < threshold) {
      at = k;
      cost = c;
      threshold = c - tolerance;
    }
  }
  linedCost = cost;
  return at;
}

/** The run of the window's pieces from `first` (those touching each other; `first` holds `a` or is the run's first) cut to [a, b), as new pieces. */
function clip(w: PieceWindow, first: number, a: number, b: number): Piece[] {
  const { from, to, price } = w.pieces;
  const { lo, hi } = w;
  const out: Piece[] = [];
  for (let k = first; k < hi && (k === first || to[k - 1] === from[k]); k++) {
    const start = k === lo ? w.from : from[k];
    const pieceFrom = start > a ? start : a;
    if (!(pieceFrom < b)) break;
    const end = k === hi - 1 ? w.to : to[k];
    const pieceTo = end < b ? end : b;
    if (pieceTo > pieceFrom) out.push({ from: pieceFrom, to: pieceTo, price: price[k] });
  }
  return out;
}
