// Split plans whose blocks each last at least a minimum (semantics "Plans", minimum block),
// exact and bounded by the price changes rather than by time.
//
// Why a lattice: let h be the gcd of the minimum block m and the distances between the
// window's inner price changes (15 min for quarter-hour prices, 1 h for hourly ones). An
// optimal plan exists whose block ends lie on that lattice, except at the window's own
// ends, which may be anywhere (a window from "now"):
// - a block ends where the price changes, or m after/before such a place (its length is
//   tight), or at the window's start or end (or m after the start, m before the end);
// - at most one block has an end pinned only by the total run time: its "free" end sits
//   a remainder below h into one lattice cell.
// So the search runs over the lattice cells (plus the four odd points from, from + m,
// to − m, to) and over the planned time in units of h; the few sub-h remainders the odd
// window ends can leave are carried as residue classes. Its work is cells × planned
// units × classes, counted before it starts (MAX_PLAN_WORK).
//
// Equal costs (semantics rule 31) go to the fewest blocks, then the earliest: each state
// keeps its least cost and the fewest blocks that make it, a block counted where it
// starts. A block that ends where the next starts is one block in the plan but counts
// two; the search never takes that way: the same runs are planned by going on in the
// block (a block of m from a lattice point ends on the lattice, a block in progress may
// end at every lattice point), at the same cost and time planned, counting one, and the
// free end, then still unused, can only help. The test checks that the blocks planned
// are the blocks counted.
import { MAX_PLAN_WORK } from '../common/limits';
import { blockWork, BlockStats, BlockWorkError, gcd, MOVE_SETUP_STEPS, Piece } from './plan-block-work';

export { blockedCapacity } from './plan-block-work';
export type { BlockStats, Piece } from './plan-block-work';

const FREE = 0;
const IN = 1;

interface Lattice {
  /** ms from `from`: cell boundaries */
  q: Float64Array;
  h: number;
  /** the lattice's offset from `from` (0: `from` on the lattice) */
  r: number;
}

function lattice(segStarts: number[], W: number, m: number): { h: number; r: number } {
  let z0 = -1;
  let h = m;
  for (const b of segStarts) {
    if (b <= 0 || b >= W) continue;
    if (z0 < 0) z0 = b;
    else h = gcd(h, b - z0);
  }
  if (z0 < 0) z0 = 0;
  return { h, r: ((z0 % h) + h) % h };
}

function residues(list: number[]): number[] {
  return [...new Set(list)];
}

/**
 * The cheapest blocks of total exactly `target` ms (whole ms, reachable: see
 * blockedCapacity), each at least minBlock ms, in [from, to); equal costs (to 12
 * significant digits) go to the plan with the fewest blocks, then to the one that runs
 * earliest (first difference in time).
 * `usable`: the usable pieces, sorted, whole ms, each with one price. `runningAtFrom`: the
 * load runs just before `from`, so a block starting at `from` is no new block.
 */
export function cheapestBlocks(
  usable: Piece[],
  from: number,
  to: number,
  target: number,
  minBlock: number,
  stats?: BlockStats,
  runningAtFrom = false,
): Piece[] {
  if (target <= 0) return [];
  // positions in ms from `from`
  const W = to - from;
  const T = target;
  const m = minBlock;
  // segments over [0, W): price or NaN (unusable), equal-price neighbours merged
  const segStart: number[] = [];
  const segPrice: number[] = [];
  let at = 0;
  const push = (start: number, price: number) => {
    const k = segPrice.length - 1;
    if (k >= 0 && (segPrice[k] === price || (Number.isNaN(price) && Number.isNaN(segPrice[k])))) return;
    segStart.push(start);
    segPrice.push(price);
  };
  for (const p of usable) {
    const a = p.from - from;
    if (a > at) push(at, NaN);
    push(a, p.price);
    at = p.to - from;
  }
  if (at < W) push(at, NaN);
  const { h, r } = lattice(segStart, W, m);
  const firstLattice = r === 0 ? h : r;
  const latticeCount = firstLattice < W ? Math.floor((W - 1 - firstLattice) / h) + 1 : 0;
  const lambda1 = (((W - r) % h) + h) % h;
  const R0 = residues([0, r % h]);
  const R1 = residues([((T % h) + h) % h, (((T - lambda1) % h) + h) % h]);
  const flexAmounts = residues([0, r % h].flatMap((c0) => [0, lambda1].map((c1) => (((T - c0 - c1) % h) + h) % h)))
    .filter((x) => x > 0)
    .sort((a, b) => b - a);
  const work = blockWork(latticeCount + 4, Math.floor(T / h) + 1, R0.length, R1.length, flexAmounts.length);
  if (stats) stats.work = work;
  if (work > MAX_PLAN_WORK) throw new BlockWorkError(work, h);

  // cell boundaries: 0, the lattice points, m, W − m, W (ascending, no repeats)
  const q = new Float64Array(latticeCount + 4);
  let n = 0;
  const put = (x: number) => {
    if (n === 0 || q[n - 1] !== x) q[n++] = x;
  };
  put(0);
  const extra = [m, W - m].filter((x) => x > 0 && x < W).sort((a, b) => a - b);
  let e = 0;
  for (let k = 0; k < latticeCount; k++) {
    const x = firstLattice + k * h;
    while (e < extra.length && extra[e] < x) put(extra[e++]);
    put(x);
  }
  while (e < extra.length) put(extra[e++]);
  put(W);
  return search({ q: q.subarray(0, n), h, r }, segStart, segPrice, W, T, m, R0, R1, flexAmounts, runningAtFrom, stats).map((p) => ({
    from: from + p.from,
    to: from + p.to,
    price: p.price,
  }));
}

/** The most moves one state of the search has: a block of m, a block with a free start or end (one per amount), stay off/close. */
const MAX_MOVES = 6;

function search(
  L: Lattice,
  segStart: number[],
  segPrice: number[],
  W: number,
  T: number,
  m: number,
  R0: number[],
  R1: number[],
  flexAmounts: number[],
  runningAtFrom: boolean,
  stats: BlockStats | undefined,
) {
  const { q, h, r } = L;
  const n = q.length; // boundaries; cells 0..n-2
  const last = n - 1;
  // cell prices (NaN: unusable), prefix costs and prefix counts of unusable cells
  const price = new Float64Array(n - 1);
  let s = 0;
  for (let i = 0; i < n - 1; i++) {
    while (s + 1 < segStart.length && segStart[s + 1] <= q[i]) s++;
    price[i] = segPrice[s];
  }
  const pc = new Float64Array(n);
  const bad = new Int32Array(n);
  let maxAbs = 0;
  for (let i = 0; i < n - 1; i++) {
    const ok = !Number.isNaN(price[i]);
    pc[i + 1] = pc[i] + (ok ? price[i] * (q[i + 1] - q[i]) : 0);
    bad[i + 1] = bad[i] + (ok ? 0 : 1);
    if (ok) maxAbs = Math.max(maxAbs, Math.abs(price[i]));
  }
  const tol = maxAbs * W * 1e-12;
  const isLattice = (x: number) => (((x - r) % h) + h) % h === 0;
  const latticeAt = new Uint8Array(n);
  for (let i = 0; i < n; i++) latticeAt[i] = isLattice(q[i]) ? 1 : 0;
  /** the boundary index at or after position x (binary search; n when past the end) */
  const atOrAfter = (x: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (q[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** the boundary index of position x, or -1 when x is no boundary */
  const indexOf = (x: number): number => {
    const i = atOrAfter(x);
    return i < n && q[i] === x ? i : -1;
  };
  const fm = indexOf(m); // the end of a block of exactly m from `from`
  const tm = indexOf(W - m); // the start of a block of exactly m up to `to`
  // next boundary where a block may end (lattice or W)
  const nextClosable = new Int32Array(n).fill(last);
  for (let i = n - 2; i >= 0; i--) nextClosable[i] = latticeAt[i + 1] || i + 1 === last ? i + 1 : nextClosable[i + 1];
  const cellStart = (x: number) => r + Math.floor((x - r) / h) * h;
  const cellAt = (x: number): number => {
    let lo = 0;
    let hi = n - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (q[mid] <= x) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  /** cost of [x, y) and whether all of it is usable; x, y positions */
  const cost = (x: number, y: number): number => {
    const a = cellAt(x);
    const b = cellAt(y - 0.5);
    if (bad[b + 1] - bad[a] !== 0) return NaN;
    return pc[b + 1] - pc[a] - price[a] * (x - q[a]) - price[b] * (q[b + 1] - y);
  };
  const nK = Math.floor(T / h) + 1;
  const nR = [R0.length, R1.length];
  const R = [R0, R1];
  // state layout per boundary: [mode][flex] blocks of nK * nR[flex] (no flex-used block when no end is free)
  const flexUsed = flexAmounts.length > 0 ? 2 : 1;
  const blockSize = [nK * nR[0], flexUsed > 1 ? nK * nR[1] : 0];
  const rowSize = 2 * (blockSize[0] + blockSize[1]);
  const base = (mode: number, flex: number) => mode * (blockSize[0] + blockSize[1]) + (flex ? blockSize[0] : 0);
  // G: the least cost to finish; B: the fewest blocks still to start that make it (each
  // block lasts at least h and holds a lattice point, so blocks ≤ min(planned units,
  // cells) ≤ √(MAX_PLAN_WORK / 4): 16 bits hold it)
  const G = new Float64Array((n - 1) * rowSize).fill(Infinity);
  const B = new Uint16Array((n - 1) * rowSize);
  const slotOf = (flex: number, d: number): number => {
    if (d < 0 || d > T) return -1;
    const res = d % h;
    const list = R[flex];
    for (let ri = 0; ri < list.length; ri++) if (list[ri] === res) return ((d - res) / h) * nR[flex] + ri;
    return -1;
  };
  const value = (i: number, mode: number, flex: number, d: number): number => {
    if (i === last) return d === T ? 0 : Infinity;
    const slot = slotOf(flex, d);
    return slot < 0 ? Infinity : G[i * rowSize + base(mode, flex) + slot];
  };
  /** the blocks still to start from a state whose value is finite */
  const blocksAt = (i: number, mode: number, flex: number, d: number): number =>
    i === last ? 0 : B[i * rowSize + base(mode, flex) + slotOf(flex, d)];

  // The moves of one state, in order of preference (running earliest first), written to
  // these arrays (no object per move: the search visits millions): `step` cost, to
  // boundary j in mode/flex, running [runFrom, runTo), starting a block or not. They do
  // not depend on the time planned so far.
  const mvStep = new Float64Array(MAX_MOVES);
  const mvJ = new Int32Array(MAX_MOVES);
  const mvMode = new Uint8Array(MAX_MOVES);
  const mvFlex = new Uint8Array(MAX_MOVES);
  const mvFrom = new Float64Array(MAX_MOVES);
  const mvTo = new Float64Array(MAX_MOVES);
  const mvStarts = new Uint8Array(MAX_MOVES);
  let moveCount = 0;
  const add = (step: number, j: number, m2: number, f2: number, runFrom: number, runTo: number, starts: number) => {
    mvStep[moveCount] = step;
    mvJ[moveCount] = j;
    mvMode[moveCount] = m2;
    mvFlex[moveCount] = f2;
    mvFrom[moveCount] = runFrom;
    mvTo[moveCount] = runTo;
    mvStarts[moveCount] = starts;
    moveCount++;
  };
  const movesOf = (i: number, mode: number, flex: number): number => {
    moveCount = 0;
    const x = q[i];
    if (mode === FREE) {
      // a block starting at `from` goes on with the run before it, if any: no new block
      const startsHere = x === 0 && runningAtFrom ? 0 : 1;
      // a block of at least m starting here (at the lattice, at `from`, or exactly m before `to`)
      if (latticeAt[i] || i === 0 || i === tm) {
        const j = indexOf(x + m);
        if (j >= 0 && bad[j] - bad[i] === 0) add(pc[j] - pc[i], j, IN, flex, x, x + m, startsHere);
      }
      // the one block whose start is free
      if (flex === 0) {
        const cellEnd = cellStart(x) + h;
        for (const amount of flexAmounts) {
          const start = cellEnd - amount;
          if (start < x || start >= q[i + 1]) continue;
          let end = atOrAfter(start + m);
          while (end < last && !latticeAt[end]) end++;
          if (end > last || q[end] < start + m) continue;
          const c = cost(start, q[end]);
          if (!Number.isNaN(c)) add(c, end, IN, 1, start, q[end], start === x ? startsHere : 1);
        }
      }
      add(0, i + 1, FREE, flex, x, x, 0);
      return moveCount;
    }
    // in a block already long enough: go on to the next place a block may end
    const j = nextClosable[i];
    if (bad[j] - bad[i] === 0) add(pc[j] - pc[i], j, IN, flex, x, q[j], 0);
    if (flex === 0) {
      const cs = cellStart(x);
      for (const amount of flexAmounts) {
        const y = cs + amount;
        if (y <= x || y >= Math.min(cs + h, W)) continue;
        const c = cost(x, y);
        if (!Number.isNaN(c)) add(c, atOrAfter(y), FREE, 1, x, y, 0);
      }
    }
    add(0, i, FREE, flex, x, x, 0);
    return moveCount;
  };
  const hasIn = (i: number) => latticeAt[i] === 1 || i === fm;

  // backward: the least cost to finish from each state and the fewest blocks that make it
  // (of costs equal to tol, the fewest blocks, then the least cost); d = k·h + R[flex][ri],
  // and only the d a state can hold: no more than the time so far, no less than what can still finish
  let steps = 0;
  for (let i = n - 2; i >= 0; i--) {
    const x = q[i];
    for (let mode = 0; mode < 2; mode++) {
      if (mode === IN && !hasIn(i)) continue;
      for (let flex = 0; flex < flexUsed; flex++) {
        const moves = movesOf(i, mode, flex);
        const off = i * rowSize + base(mode, flex);
        const list = R[flex];
        const nr = nR[flex];
        for (let ri = 0; ri < nr; ri++) {
          const kLo = Math.max(0, Math.ceil((T - (W - x) - list[ri]) / h));
          const kHi = Math.min(nK - 1, Math.floor((x - list[ri]) / h));
          if (kLo > kHi) continue;
          for (let mv = 0; mv < moves; mv++) {
            steps += MOVE_SETUP_STEPS;
            const step = mvStep[mv];
            const starts = mvStarts[mv];
            const sum = list[ri] + mvTo[mv] - mvFrom[mv];
            const j = mvJ[mv];
            if (j === last) {
              const k = (T - sum) / h;
              const at = off + k * nr + ri;
              if (!Number.isInteger(k) || k < kLo || k > kHi) continue;
              const g = G[at];
              if (step < g - tol || (step <= g + tol && (starts < B[at] || (starts === B[at] && step < g)))) {
                G[at] = step;
                B[at] = starts;
              }
              continue;
            }
            const res = sum % h;
            const f2 = mvFlex[mv];
            const ri2 = R[f2].indexOf(res);
            if (ri2 < 0) continue;
            const shift = (sum - res) / h;
            const n2 = nR[f2];
            const off2 = j * rowSize + base(mvMode[mv], f2) + ri2 + shift * n2;
            const top = Math.min(kHi, nK - 1 - shift);
            if (top >= kLo) steps += top - kLo + 1;
            for (let k = kLo; k <= top; k++) {
              const from2 = off2 + k * n2;
              const v = step + G[from2];
              const at = off + k * nr + ri;
              const g = G[at];
              // (unreached states: G Infinity, B 0, so v = Infinity never replaces)
              if (v <= g + tol) {
                const b = starts + B[from2];
                if (v < g - tol || b < B[at] || (b === B[at] && v < g)) {
                  G[at] = v;
                  B[at] = b;
                }
              }
            }
          }
        }
      }
    }
  }
  if (!(value(0, FREE, 0, 0) < Infinity)) throw new Error('internal: no plan with blocks of the minimum length was found');
  if (stats) {
    stats.steps = steps;
    stats.blocks = blocksAt(0, FREE, 0, 0);
  }
  // forward: follow the most preferred move that is still optimal, in cost and in blocks
  const runs: Array<{ from: number; to: number }> = [];
  let i = 0;
  let mode = FREE;
  let flex = 0;
  let d = 0;
  const optimal = (mv: number, here: number, hereBlocks: number): boolean => {
    const d2 = d + mvTo[mv] - mvFrom[mv];
    const v = mvStep[mv] + value(mvJ[mv], mvMode[mv], mvFlex[mv], d2);
    return v <= here + tol && mvStarts[mv] + blocksAt(mvJ[mv], mvMode[mv], mvFlex[mv], d2) <= hereBlocks;
  };
  while (i !== last) {
    const here = value(i, mode, flex, d);
    const hereBlocks = blocksAt(i, mode, flex, d);
    const moves = movesOf(i, mode, flex);
    let mv = 0;
    while (mv < moves && !optimal(mv, here, hereBlocks)) mv++;
    if (mv === moves) throw new Error('internal: the minimum-block plan could not be followed');
    const runFrom = mvFrom[mv];
    const runTo = mvTo[mv];
    if (runTo > runFrom) {
      const prev = runs[runs.length - 1];
      if (prev && prev.to === runFrom) prev.to = runTo;
      else runs.push({ from: runFrom, to: runTo });
    }
    i = mvJ[mv];
    mode = mvMode[mv];
    flex = mvFlex[mv];
    d += runTo - runFrom;
  }
  // cut the runs where the price changes
  const out: Piece[] = [];
  for (const run of runs) {
    for (let c = cellAt(run.from); c < n - 1 && q[c] < run.to; c++) {
      const a = Math.max(run.from, q[c]);
      const b = Math.min(run.to, q[c + 1]);
      if (b <= a) continue;
      const prev = out[out.length - 1];
      if (prev && prev.to === a && prev.price === price[c]) prev.to = b;
      else out.push({ from: a, to: b, price: price[c] });
    }
  }
  return out;
}
