// cheapestWindows: when to run a constant load for `duration` inside [from, to) so that
// its energy costs least, from the tariff's exact price segments (schedule), DST
// included. The price is piecewise constant, so:
// - split (any number of blocks): the cheapest segments first, ties to the earliest,
//   the last one cut to its earliest part;
// - contiguous (one block): the cost of a block is piecewise linear in its start, so a
//   minimum lies where the block's start or end meets a segment boundary; every such
//   start is tried, the earliest of the cheapest wins.
// - split with minBlock (blocks each at least minBlock long): every input is cut on the
//   grid of the gcd of the boundaries, window, duration and minBlock; an optimal plan lies
//   on that grid (interval constraints are totally unimodular), found by dynamic programming
//   over cells and cells planned so far.
import { engineContext, schedule, PriceOptions, ScheduleEntry } from './price';
import { HOUR_MS, requireEpochMs } from './time';

export interface PlanOptions extends PriceOptions {
  from: number | Date | string;
  to: number | Date | string;
  /** How long the load runs, in ms. */
  duration: number;
  /** One block (true) or any number of blocks (false, the default). */
  contiguous?: boolean;
  /** Split mode: every block at least this long, in ms (absent or <= 0: no minimum; ignored when contiguous). */
  minBlock?: number;
  /** Never run where the net price is above this. */
  maxPrice?: number;
}

export interface PlanSlot {
  from: number;
  to: number;
  /** Average net price over the slot (per kWh). */
  price: number;
}

export interface PlanResult {
  slots: PlanSlot[];
  /** The slots cut where the price changes: each piece has one price. */
  pieces: PlanSlot[];
  /** Planned run time in ms: `requested` unless maxPrice or missing prices left less. */
  planned: number;
  requested: number;
  /** Why less than requested is planned; null when all of it is. */
  shortfall: string | null;
  /** Net price per kWh averaged over the planned time; null when nothing is planned. */
  averagePrice: number | null;
  /** What 1 kW for the planned time costs: Σ price × hours. */
  costPerKw: { net: number; gross: number };
  /** The same run time started at `from` in one block, and what the plan saves against it (per kW). */
  comparedToNow: { from: number; to: number; net: number; gross: number; saving: number; savingGross: number } | null;
  currency: string;
  vat: number;
  from: number;
  to: number;
}

interface Piece {
  from: number;
  to: number;
  price: number;
}

/** The cheapest times in [from, to) to run a constant load for `duration` ms. */
export function cheapestWindows(tariff: unknown, options: PlanOptions): PlanResult {
  const { ct } = engineContext(tariff, options);
  const from = requireEpochMs(options.from, 'from');
  const to = requireEpochMs(options.to, 'to');
  const duration = options.duration;
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0) {
    throw new RangeError(`duration must be a positive number of milliseconds, got ${String(duration)}`);
  }
  const maxPrice = options.maxPrice;
  if (maxPrice !== undefined && (typeof maxPrice !== 'number' || !Number.isFinite(maxPrice))) {
    throw new TypeError(`maxPrice must be a number, got ${String(maxPrice)}`);
  }
  if (to - from < duration) {
    throw new RangeError(`the window (${hours(Math.max(0, to - from))}) is shorter than the duration (${hours(duration)})`);
  }
  const minBlock = options.minBlock ?? 0;
  if (typeof minBlock !== 'number' || !Number.isFinite(minBlock)) {
    throw new TypeError(`minBlock must be a number of milliseconds, got ${String(minBlock)}`);
  }
  const blocked = !options.contiguous && minBlock > 0;
  if (blocked && minBlock > duration) {
    throw new RangeError(`the minimum block (${hours(minBlock)}) is longer than the duration (${hours(duration)})`);
  }
  const segments = schedule(tariff, from, to, options);
  const usable = usablePieces(segments, maxPrice);
  const pieces = options.contiguous
    ? cheapestBlock(usable, duration)
    : blocked
      ? cheapestBlocks(segments, usable, from, to, duration, minBlock)
      : cheapestPieces(usable, duration);
  const slots = mergeSlots(pieces);
  const planned = slots.reduce((sum, s) => sum + (s.to - s.from), 0);
  const net = pieces.reduce((sum, p) => sum + p.price * ((p.to - p.from) / HOUR_MS), 0);
  const grossOf = (x: number) => x * (1 + ct.vat / 100);
  let shortfall: string | null = null;
  if (planned < duration) {
    const why = maxPrice !== undefined ? `the price is above ${maxPrice} or no rule prices` : 'no rule prices';
    shortfall = `only ${hours(planned)} of ${hours(duration)} planned${options.contiguous ? ' in one block' : blocked ? ` in blocks of at least ${hours(minBlock)}` : ''}: ${why} in the rest of the window`;
  }
  return {
    slots,
    pieces: pieces.map((p) => ({ from: p.from, to: p.to, price: p.price })),
    planned,
    requested: duration,
    shortfall,
    averagePrice: planned > 0 ? net / (planned / HOUR_MS) : null,
    costPerKw: { net, gross: grossOf(net) },
    comparedToNow: startingNow(tariff, options, from, planned, net, grossOf),
    currency: ct.currency,
    vat: ct.vat,
    from,
    to,
  };
}

/** Running `planned` ms from `from` in one block, whatever the price; null when part of it has no price. */
function startingNow(
  tariff: unknown,
  options: PriceOptions,
  from: number,
  planned: number,
  planNet: number,
  grossOf: (x: number) => number,
): PlanResult['comparedToNow'] {
  if (planned === 0) return null;
  let net = 0;
  for (const s of schedule(tariff, from, from + planned, options)) {
    if (s.price === null) return null;
    net += s.price * ((s.to - s.from) / HOUR_MS);
  }
  return { from, to: from + planned, net, gross: grossOf(net), saving: net - planNet, savingGross: grossOf(net - planNet) };
}

function usablePieces(segments: ScheduleEntry[], maxPrice: number | undefined): Piece[] {
  const out: Piece[] = [];
  for (const s of segments) {
    if (s.price === null || (maxPrice !== undefined && s.price > maxPrice)) continue;
    out.push({ from: s.from, to: s.to, price: s.price });
  }
  return out;
}

/** Split: cheapest first, equal prices earliest first; the last piece taken from its start. */
function cheapestPieces(usable: Piece[], duration: number): Piece[] {
  const order = usable.map((_, i) => i).sort((a, b) => usable[a].price - usable[b].price || a - b);
  const chosen: Piece[] = [];
  let left = duration;
  for (const i of order) {
    if (left <= 0) break;
    const p = usable[i];
    const take = Math.min(left, p.to - p.from);
    chosen.push({ from: p.from, to: p.from + take, price: p.price });
    left -= take;
  }
  return chosen.sort((a, b) => a.from - b.from);
}

/** Most cells × planned cells the minimum-block search may visit: bounds time and memory. */
export const MAX_BLOCK_WORK = 20_000_000;

const gcd = (a: number, b: number): number => {
  while (b) [a, b] = [b, a % b];
  return a;
};

/**
 * Split with a minimum block: the cheapest cells on the common grid, every run of chosen
 * cells at least minBlock long; when the full duration cannot be planned, the most that can.
 * in/free: best cost with the last cell chosen (its block already long enough) / not chosen.
 */
function cheapestBlocks(segments: ScheduleEntry[], usable: Piece[], from: number, to: number, duration: number, minBlock: number): Piece[] {
  let g = gcd(to - from, gcd(Math.round(duration), Math.round(minBlock)));
  for (const s of segments) g = gcd(g, gcd(s.from - from, s.to - from));
  if (duration % 1 !== 0 || minBlock % 1 !== 0) g = 1;
  const n = Math.round((to - from) / g);
  const need = Math.floor(duration / g);
  const m = Math.ceil(minBlock / g);
  if (n * need > MAX_BLOCK_WORK) {
    throw new RangeError(
      `the window is too long for a minimum block at this resolution: ${n} steps of ${g} ms × ${need} planned steps ` +
        `is more than ${MAX_BLOCK_WORK}; use whole minutes for the duration, minimum block and price times, or a shorter window`,
    );
  }
  const price = new Float64Array(n).fill(Infinity);
  for (const p of usable) for (let c = (p.from - from) / g; c < (p.to - from) / g; c++) price[c] = p.price;
  // prefix sums of the finite prices, and of the unusable cells
  const sum = new Float64Array(n + 1);
  const bad = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) {
    sum[c + 1] = sum[c] + (price[c] === Infinity ? 0 : price[c]);
    bad[c + 1] = bad[c] + (price[c] === Infinity ? 1 : 0);
  }
  const width = need + 1;
  // free rows for t-m..t kept in a ring; in rows: previous and current
  const freeRing = new Float64Array((m + 1) * width).fill(Infinity);
  let inPrev = new Float64Array(width).fill(Infinity);
  let inCur = new Float64Array(width);
  freeRing[0] = 0;
  // choice bits per (t, d): for in, a new block (1) or extending (0); for free, from in (1) or free (0)
  const inNew = new Uint8Array(Math.ceil(((n + 1) * width) / 8));
  const freeFromIn = new Uint8Array(inNew.length);
  const setBit = (bits: Uint8Array, i: number) => (bits[i >> 3] |= 1 << (i & 7));
  const bit = (bits: Uint8Array, i: number) => (bits[i >> 3] >> (i & 7)) & 1;
  for (let t = 1; t <= n; t++) {
    const row = (t % (m + 1)) * width;
    const prevRow = ((t - 1) % (m + 1)) * width;
    const backRow = t >= m ? ((t - m) % (m + 1)) * width : -1;
    const block = t >= m && bad[t] - bad[t - m] === 0 ? sum[t] - sum[t - m] : Infinity;
    const cell = price[t - 1];
    for (let d = 0; d < width; d++) {
      let best = d >= 1 ? inPrev[d - 1] + cell : Infinity;
      if (backRow >= 0 && d >= m) {
        const fresh = freeRing[backRow + d - m] + block;
        if (fresh < best) {
          best = fresh;
          setBit(inNew, t * width + d);
        }
      }
      inCur[d] = best;
      const stay = freeRing[prevRow + d];
      if (inPrev[d] < stay) {
        freeRing[row + d] = inPrev[d];
        setBit(freeFromIn, t * width + d);
      } else {
        freeRing[row + d] = stay;
      }
    }
    [inPrev, inCur] = [inCur, inPrev];
  }
  const lastRow = (n % (m + 1)) * width;
  let d = need;
  while (d > 0 && Math.min(freeRing[lastRow + d], inPrev[d]) === Infinity) d--;
  const chosen = new Uint8Array(n);
  let inBlock = inPrev[d] < freeRing[lastRow + d];
  for (let t = n; t > 0 && d > 0;) {
    if (!inBlock) {
      inBlock = bit(freeFromIn, t * width + d) === 1;
      t--;
    } else if (bit(inNew, t * width + d) === 1) {
      chosen.fill(1, t - m, t);
      t -= m;
      d -= m;
      inBlock = false;
    } else {
      chosen[t - 1] = 1;
      t--;
      d--;
    }
  }
  const out: Piece[] = [];
  for (let c = 0; c < n; c++) {
    if (!chosen[c]) continue;
    const last = out[out.length - 1];
    const at = from + c * g;
    if (last && last.to === at && last.price === price[c]) last.to = at + g;
    else out.push({ from: at, to: at + g, price: price[c] });
  }
  return out;
}

/**
 * Contiguous: the cheapest block of `duration` inside one run of usable time; when no
 * run is that long, the longest run (earliest of equals), all of it.
 */
function cheapestBlock(usable: Piece[], duration: number): Piece[] {
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
    const starts: number[] = [];
    for (const p of run) {
      if (p.from + duration <= runTo) starts.push(p.from);
      if (p.to - duration >= runFrom) starts.push(p.to - duration);
    }
    starts.sort((a, b) => a - b);
    for (const start of starts) {
      const cost = costUntil(run, prefix, start + duration) - costUntil(run, prefix, start);
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

/** price × ms from the run's start to t (inside the run). */
function costUntil(run: Piece[], prefix: number[], t: number): number {
  let lo = 0;
  let hi = run.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (run[mid].from <= t) lo = mid;
    else hi = mid - 1;
  }
  return prefix[lo] + run[lo].price * (t - run[lo].from);
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

/** Pieces that touch become one slot priced by their time-weighted average. */
export function mergeSlots(pieces: Piece[]): PlanSlot[] {
  const slots: Array<PlanSlot & { priceMs: number }> = [];
  for (const p of pieces) {
    const last = slots[slots.length - 1];
    const priceMs = p.price * (p.to - p.from);
    if (last && last.to === p.from) {
      last.to = p.to;
      last.priceMs += priceMs;
    } else {
      slots.push({ from: p.from, to: p.to, price: 0, priceMs });
    }
  }
  return slots.map((s) => ({ from: s.from, to: s.to, price: s.priceMs / (s.to - s.from) }));
}

/** `3 h`, `2 h 30 min`, `45 min`, `20 s` */
export function hours(ms: number): string {
  const totalSec = Math.round(ms / 1000);
  const h = Math.floor(totalSec / 3600);
  const min = Math.floor((totalSec % 3600) / 60);
  const sec = totalSec % 60;
  const parts: string[] = [];
  if (h) parts.push(`${h} h`);
  if (min) parts.push(`${min} min`);
  if (sec || parts.length === 0) parts.push(`${sec} s`);
  return parts.join(' ');
}
