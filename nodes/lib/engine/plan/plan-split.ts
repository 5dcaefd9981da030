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
  const runs: MarginalRun[] = [];
  const runOf = new Int32Array(n);
  let below = 0;
  for (let i = 0; i < n; i++) {
    const p = usable[i];
    const touchesLast = i > 0 && usable[i - 1].to === p.from;
    if (p.price < marginal) {
      below += p.to - p.from;
      if (touchesLast && usable[i - 1].price === marginal) runs[runs.length - 1].takenAfter = true;
    } else if (p.price === marginal) {
      if (touchesLast && usable[i - 1].price === marginal) runs[runs.length - 1].to = p.to;
      else runs.push({ from: p.from, to: p.to, takenBefore: touchesLast && usable[i - 1].price < marginal, takenAfter: false });
      runOf[i] = runs.length - 1;
    }
  }
  const taken = takeMarginal(runs, duration - below);
  const chosen: Piece[] = [];
  for (let i = 0; i < n; i++) {
    const p = usable[i];
    if (p.price < marginal) chosen.push({ ...p });
    else if (p.price === marginal) {
      const { from, to } = taken[runOf[i]];
      if (Math.min(to, p.to) > Math.max(from, p.from))
        chosen.push({ from: Math.max(from, p.from), to: Math.min(to, p.to), price: p.price });
    }
  }
  return chosen;
}

/**
 * Contiguous: the cheapest block of `duration` inside one run of usable time; when no
 * run is that long, the longest run (earliest of equals), all of it.
 */
export function cheapestBlock(usable: Piece[], duration: number): Piece[] {
  let best: { cost: number; start: number; run: Piece[] } | null = null;
  let longest: Piece[] = [];
  const maxAbsPrice = usable.reduce((m, p) => Math.max(m, Math.abs(p.price)), 0);
  for (const run of runs(usable)) {
    const runFrom = run[0].from;
    const runTo = run[run.length - 1].to;
    if (runTo - runFrom > spanOf(longest)) longest = run;
    if (runTo - runFrom < duration) continue;
    const prefix = prefixCosts(run);
    // differences of prefix sums are off in the last bits: equal costs must still tie
    const tolerance = maxAbsPrice * (runTo - runFrom) * 1e-12;
    // every candidate start in ascending order: the pieces' starts and their ends less the
    // duration (two ascending lists, merged); the block's ends then only move forward, so
    // the pieces holding them are found by two pointers, not a search per start
    const n = run.length;
    let i = 0; // the next piece whose start is a candidate
    let j = 0; // the next piece whose end less the duration is a candidate
    let head = 0; // the piece holding the block's start
    let tail = 0; // the piece holding the block's end
    for (;;) {
      if (i < n && run[i].from + duration > runTo) i = n; // so is every later piece's
      while (j < n && run[j].to - duration < runFrom) j++;
      if (i === n && j === n) break;
      const start = j === n || (i < n && run[i].from <= run[j].to - duration) ? run[i++].from : run[j++].to - duration;
      const end = start + duration;
      while (head + 1 < n && run[head + 1].from <= start) head++;
      while (tail + 1 < n && run[tail + 1].from <= end) tail++;
      const cost = costAt(run, prefix, tail, end) - costAt(run, prefix, head, start);
      if (!best || cost < best.cost - tolerance || (cost <= best.cost + tolerance && start < best.start)) {
        best = { cost, start, run };
      }
    }
  }
  if (!best) return longest.map((p) => ({ ...p }));
  return clip(best.run, best.start, best.start + duration);
}

/** Maximal stretches of usable pieces that touch each other. */
function runs(usable: Piece[]): Piece[][] {
  const out: Piece[][] = [];
  for (const p of usable) {
    const last = out[out.length - 1];
    if (last && last[last.length - 1].to === p.from) last.push(p);
    else out.push([p]);
  }
  return out;
}

const spanOf = (run: Piece[]) => (run.length ? run[run.length - 1].to - run[0].from : 0);

/** prefix[k]: price × ms of run[0..k) */
function prefixCosts(run: Piece[]): number[] {
  const prefix = [0];
  for (const p of run) prefix.push(prefix[prefix.length - 1] + p.price * (p.to - p.from));
  return prefix;
}

/** price × ms from the run's start to t, t inside run[k] (the last piece starting at or before t). */
function costAt(run: Piece[], prefix: number[], k: number, t: number): number {
  return prefix[k] + run[k].price * (t - run[k].from);
}

function clip(run: Piece[], a: number, b: number): Piece[] {
  const out: Piece[] = [];
  for (const p of run) {
    const from = Math.max(a, p.from);
    const to = Math.min(b, p.to);
    if (to > from) out.push({ from, to, price: p.price });
  }
  return out;
}
