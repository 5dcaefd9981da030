// Which time at the marginal price a split plan takes (semantics rule 31). Every cheapest
// split plan takes all the time priced below the marginal price, none priced above it, and
// exactly `needed` ms of the time priced at it; of those plans, the fewest blocks, then the
// earliest (at the first instant where two plans differ, the one that runs wins).
//
// The time at the marginal price comes in runs (touching pieces merged), each named by the
// taken time (priced below) that touches it:
// - gap  (taken time on both sides): all of it joins two blocks; a part from its start adds none;
// - tail (on its left only): any part from its start adds no block;
// - head (on its right only): all of it, or a part up to its end, adds none; a part from its start adds one;
// - lone (on neither side): any part from its start adds a block.
// Other shapes (a part in the middle, parts at both ends) run later and add as many blocks or
// more than the same amount moved to the run's start, so they never win.
//
// The penalty of a choice, counted against "every gap filled": one for each gap not filled,
// each lone run used and each head used from its start alone. For a set of runs to hold
// exactly r ms, the least penalty is, while r ≤ edges + gaps (the heads', tails' and gaps'
// time), the number of gaps less the most of them that fit in r (smallest first): the rest
// fits in the edges, or in a part of the first gap left out, which is longer than the rest
// (lengths are whole ms, a part at most g − 1); above that, the fewest lone runs (longest
// first) that hold what the edges and gaps cannot. That penalty falls, then rises with r, so
// the amounts a budget b allows are the interval
// [sum of the (gaps − b) smallest gaps, edges + gaps + sum of the b longest lone runs].
// The choice walks the runs in time order and takes the first option (in order of which runs
// earliest) and its largest amount that leaves the later runs an amount in that interval:
// O(runs × log runs) with ranked sums (Fenwick trees) of the later runs' gaps and lone runs.

/** A run of time at the marginal price (whole ms), and whether taken time touches it. */
export interface MarginalRun {
  from: number;
  to: number;
  takenBefore: boolean;
  takenAfter: boolean;
}

/**
 * What to take of each run (whole ms, in the runs' order; from === to: nothing) so that
 * exactly `needed` ms are taken (all of the runs when they hold less) with the fewest
 * blocks, then the earliest.
 */
export function takeMarginal(runs: MarginalRun[], needed: number): Array<{ from: number; to: number }> {
  const total = runs.reduce((sum, run) => sum + run.to - run.from, 0);
  if (needed >= total) return runs.map((run) => ({ from: run.from, to: run.to }));
  if (runs.length === 1) {
    // one run (the common case: one piece at the marginal price), part of it: from its start, a head's from its end
    const [{ from, to, takenBefore, takenAfter }] = runs;
    return [takenAfter && !takenBefore ? { from: to - needed, to } : { from, to: from + needed }];
  }
  const later = new LaterRuns(runs);
  let budget = later.leastPenalty(needed);
  let left = needed;
  let amount = 0;
  /** Takes the most of [least, most] ms at this penalty that leaves the later runs what they can hold; false: none. */
  const take = (least: number, most: number, penalty: number): boolean => {
    const allowed = budget - penalty;
    if (allowed < 0) return false;
    amount = Math.min(most, left - later.least(allowed));
    if (amount < Math.max(least, left - later.most(allowed))) return false;
    left -= amount;
    budget = allowed;
    return true;
  };
  const taken: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < runs.length; i++) {
    later.remove(i);
    const { from, to, takenBefore, takenAfter } = runs[i];
    const g = to - from;
    // each kind's options in order of preference (the one running earliest first), from the run's start
    let fromEnd = false;
    const found =
      takenBefore && takenAfter
        ? take(g, g, 0) || take(0, g - 1, 1) // gap: all of it, else a part
        : takenBefore
          ? take(0, g, 0) // tail: a part
          : takenAfter
            ? take(g, g, 0) || take(1, g - 1, 1) || (fromEnd = take(0, g - 1, 0)) // head: all, a block of its own, a part at its end
            : take(1, g, 1) || take(0, 0, 0); // lone: a block of its own, else nothing
    // unreachable: the budget always leaves the runs still to decide an amount they can hold (see above)
    if (!found) throw new Error('split plan: no choice fits the time at the marginal price');
    taken.push(fromEnd ? { from: to - amount, to } : { from, to: from + amount });
  }
  return taken;
}

/** The runs not yet decided: the amounts they can hold for a penalty budget. */
class LaterRuns {
  private readonly gaps: RankedSums;
  private readonly lones: RankedSums;
  private edges = 0;

  constructor(private readonly runs: MarginalRun[]) {
    const gapLengths: number[] = [];
    const loneLengths: number[] = [];
    for (const run of runs) {
      const g = run.to - run.from;
      if (run.takenBefore && run.takenAfter) gapLengths.push(g);
      else if (run.takenBefore || run.takenAfter) this.edges += g;
      else loneLengths.push(-g); // longest first
    }
    // one run at the marginal price (the common case): nothing to rank
    this.gaps = gapLengths.length ? new RankedSums(gapLengths) : NONE;
    this.lones = loneLengths.length ? new RankedSums(loneLengths) : NONE;
  }

  /** The runs from the next one on: run i is decided. */
  remove(i: number): void {
    const run = this.runs[i];
    const g = run.to - run.from;
    if (run.takenBefore && run.takenAfter) this.gaps.remove(g);
    else if (run.takenBefore || run.takenAfter) this.edges -= g;
    else this.lones.remove(-g);
  }

  /** The least amount the runs can hold exactly within the budget: the gaps left unfilled are the longest. */
  least(budget: number): number {
    return this.gaps.firstSum(Math.max(0, this.gaps.count - budget));
  }

  /** The most: every gap and edge, and the `budget` longest lone runs. */
  most(budget: number): number {
    return this.edges + this.gaps.total - this.lones.firstSum(Math.min(budget, this.lones.count));
  }

  /** The least budget within which the runs hold exactly `amount` (at most all of them). */
  leastPenalty(amount: number): number {
    let lo = 0;
    let hi = this.gaps.count + this.lones.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.least(mid) <= amount && amount <= this.most(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/**
 * Values ranked once (ascending), each removable, answering "the sum of the k first of
 * those left" in O(log n): a Fenwick tree of counts and sums over the ranks.
 */
class RankedSums {
  count: number;
  total = 0;
  private readonly sorted: Float64Array;
  private readonly counts: Int32Array;
  private readonly sums: Float64Array;
  /** The next rank to remove for each value: equal values leave in rank order. */
  private readonly nextRank = new Map<number, number>();
  /** The largest power of two within the tree: where firstSum's descent starts. */
  private readonly topStep: number;

  constructor(values: number[]) {
    const n = values.length;
    this.count = n;
    this.sorted = Float64Array.from(values).sort();
    this.counts = new Int32Array(n + 1);
    this.sums = new Float64Array(n + 1);
    this.topStep = n === 0 ? 0 : 2 ** Math.floor(Math.log2(n));
    for (let i = 1; i <= n; i++) {
      const value = this.sorted[i - 1];
      this.total += value;
      this.counts[i] += 1;
      this.sums[i] += value;
      const up = i + (i & -i);
      if (up <= n) {
        this.counts[up] += this.counts[i];
        this.sums[up] += this.sums[i];
      }
      if (!this.nextRank.has(value)) this.nextRank.set(value, i);
    }
  }

  remove(value: number): void {
    const rank = this.nextRank.get(value)!;
    this.nextRank.set(value, rank + 1);
    this.count--;
    this.total -= value;
    for (let i = rank; i < this.counts.length; i += i & -i) {
      this.counts[i] -= 1;
      this.sums[i] -= value;
    }
  }

  /** The sum of the k first values left in rank order (0 < k ≤ count, or 0). */
  firstSum(k: number): number {
    let at = 0;
    let sum = 0;
    let need = k;
    for (let step = this.topStep; step > 0; step >>= 1) {
      const next = at + step;
      if (next < this.counts.length && this.counts[next] <= need) {
        at = next;
        need -= this.counts[next];
        sum += this.sums[next];
      }
    }
    return sum;
  }
}

/** No values: never removed from, every sum 0. */
const NONE = new RankedSums([]);
