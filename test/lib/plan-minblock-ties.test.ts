// The tie rule of plans with a minimum block (semantics rule 31): of the plans of equal cost,
// the fewest blocks, then the one running at the first instant where they differ. Checked
// against every subset of a window's cells (1 ms or 1 min each), few distinct prices so
// that ties are common, negative prices, unusable gaps, price changes on a grid the window
// is off (the search's lattice, residues and free block ends all come into play).
import should from 'should';
import fc from 'fast-check';
import { BlockStats, blockedCapacity, cheapestBlocks, Piece } from '../../nodes/lib/engine/plan/plan-blocks';
import { cheapestWindows, dearestWindows, PlanResult } from '../../nodes/lib/engine/plan/plan';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC } from './engine-fixtures';
import { referenceBlocks } from './plan-reference';

const HOUR = 3_600_000;
const window = { timezone: 'Europe/London', from: '2026-01-05T00:00:00Z', to: '2026-01-05T05:00:00Z' };
const iso = (plan: PlanResult) => plan.slots.map((s) => [new Date(s.from).toISOString(), new Date(s.to).toISOString()]);

/** Runs of a cell mask (cell 0 is the highest bit), as [first, end) cell pairs. */
function runsOfMask(mask: number, n: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let k = 0; k < n; k++) {
    if (((mask >> (n - 1 - k)) & 1) === 0) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === k) last[1] = k + 1;
    else runs.push([k, k + 1]);
  }
  return runs;
}

const popcount = (x: number) => {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
};

interface CellPlan {
  mask: number;
  cost: number;
  blocks: number;
}

/**
 * Every subset of `need` cells whose runs each last at least m cells and hold no unusable
 * cell, the earliest first; `running`: the load runs before cell 0, so a run from cell 0
 * is no new block.
 */
function cellPlans(prices: Array<number | null>, need: number, m: number, running = false): CellPlan[] {
  const n = prices.length;
  const out: CellPlan[] = [];
  for (let mask = (1 << n) - 1; mask >= 0; mask--) {
    if (popcount(mask) !== need) continue;
    const runs = runsOfMask(mask, n);
    let cost = 0;
    let ok = true;
    for (const [a, b] of runs) {
      if (b - a < m) ok = false;
      for (let k = a; k < b && ok; k++) {
        if (prices[k] === null) ok = false;
        else cost += prices[k]!;
      }
      if (!ok) break;
    }
    if (ok) out.push({ mask, cost, blocks: runs.length - (running && runs.length > 0 && runs[0][0] === 0 ? 1 : 0) });
  }
  return out;
}

/**
 * The rule by brute force: the cheapest (to 1e-9: the prices differ by far more), then the
 * fewest runs, then the one on at the first cell where two differ (the greatest mask, cell
 * 0 being the highest bit; `plans` come earliest first).
 */
function bestOf(plans: CellPlan[]): CellPlan | null {
  let best: CellPlan | null = null;
  for (const p of plans) if (!best || p.cost < best.cost - 1e-9 || (p.cost <= best.cost + 1e-9 && p.blocks < best.blocks)) best = p;
  return best;
}

/** The engine's pieces as a mask of cells. */
function maskOf(pieces: Piece[], from: number, unit: number, n: number): number {
  let mask = 0;
  for (const p of pieces) for (let t = p.from; t < p.to; t += unit) mask |= 1 << (n - 1 - (t - from) / unit);
  return mask;
}

describe('minimum-block plans: equal costs go to the fewest blocks, then the earliest (rule 31)', () => {
  const arb = fc.record({
    cells: fc.integer({ min: 1, max: 14 }),
    unit: fc.constantFrom(1, 60_000),
    // prices change every `step` cells, the grid `offset` cells off the window's start
    step: fc.integer({ min: 1, max: 4 }),
    offset: fc.nat({ max: 3 }),
    prices: fc.array(fc.constantFrom(-0.5, 0.25, 0.25, 0.5, 0.5, 1, null), { minLength: 1, maxLength: 6 }),
    // sums such as 0.1 + 0.2 and 0.3 differ in their last bits: equal to 12 digits
    decimal: fc.boolean(),
    minPick: fc.nat({ max: 1000 }),
    needPick: fc.nat({ max: 1000 }),
    start: fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
    // planned while the load runs (a re-plan in a block): a block from the window's start goes on with it
    running: fc.boolean(),
  });
  const seen = { cases: 0, planned: 0, empty: 0, tiesOfCost: 0, fewerBlocksThanEarliest: 0, running: 0 };
  after(() => console.log(`      minimum-block ties vs subset brute force: ${JSON.stringify(seen)}`));

  it('equals the best of every subset of cells: least cost, fewest blocks, earliest (property)', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(arb, (c) => {
        const n = c.cells;
        const decimals: Record<string, number> = { '-0.5': -0.1, '0.25': 0.1, '0.5': 0.2, '1': 0.3 };
        const cellPrice = (k: number): number | null => {
          const p = c.prices[Math.floor((k + c.offset) / c.step) % c.prices.length];
          return p === null ? null : c.decimal ? decimals[String(p)] : p;
        };
        const prices = Array.from({ length: n }, (_, k) => cellPrice(k));
        const from = c.start;
        const pieces: Piece[] = [];
        prices.forEach((p, k) => {
          if (p !== null) pieces.push({ from: from + k * c.unit, to: from + (k + 1) * c.unit, price: p });
        });
        const m = 1 + (c.minPick % n);
        const wanted = m + (c.needPick % (n + 3 - m));
        const target = blockedCapacity(pieces, wanted * c.unit, m * c.unit);
        should(target % c.unit).equal(0);
        const need = target / c.unit;
        seen.cases++;
        if (need === 0) {
          seen.empty++;
          return;
        }
        const plans = cellPlans(prices, need, m, c.running);
        const expected = bestOf(plans)!;
        should(expected).not.be.null();
        // the engine's total is the most that runs of at least m cells hold, up to the duration
        for (let more = need + 1; more <= Math.min(wanted, n); more++) should(cellPlans(prices, more, m)).be.empty();
        const stats: BlockStats = { work: 0, steps: 0 };
        const got = maskOf(cheapestBlocks(pieces, from, from + n * c.unit, target, m * c.unit, stats, c.running), from, c.unit, n);
        should(runsOfMask(got, n)).eql(runsOfMask(expected.mask, n));
        // the search counts a block where it starts: the count is exact (two touching would be one)
        should(stats.blocks).equal(expected.blocks);
        seen.planned++;
        if (c.running) {
          seen.running++;
        } else {
          // the cell-by-cell reference that checks plans on tariffs and DST days (plan-exact) agrees
          const reference = referenceBlocks(prices, need, m);
          should(reference.map((on, k) => on === (((expected.mask >> (n - 1 - k)) & 1) === 1))).not.containEql(false);
        }
        // how often the rule decides: another plan of the same cost, the earliest of them with more blocks
        const equal = plans.filter((p) => Math.abs(p.cost - expected.cost) <= 1e-9);
        if (equal.length > 1) seen.tiesOfCost++;
        if (equal[0].mask !== expected.mask) seen.fewerBlocksThanEarliest++;
      }),
      { ...FC, numRuns: 4000 },
    );
    should(seen.fewerBlocksThanEarliest).be.above(20);
  });

  it('the worked example (rule 31): 2 h in blocks of at least 1 h, one block 02:00-04:00 rather than 00:00-01:00 and 02:00-03:00', () => {
    // 0.1, 0.2, 0.1, 0.1, 0.1 per hour from 00:00 to 05:00 (UTC = London in January)
    const tariff: Tariff = {
      id: 'W',
      name: 'worked',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.2, time_start: '01:00', time_end: '02:00' },
        { priority: 1, price: 0.1 },
      ],
    };
    const plan = cheapestWindows(tariff, { ...window, duration: 2 * HOUR, minBlock: HOUR });
    should(iso(plan)).eql([['2026-01-05T02:00:00.000Z', '2026-01-05T04:00:00.000Z']]);
    should(plan.costPerKw.net).be.approximately(0.2, 1e-12);
  });

  it('dearestWindows: of equal earnings, one block rather than two (the same search on negated prices)', () => {
    // dear 00-01, cheap 01-02, dear 02-05 (UTC = London in January): 2 h in blocks >= 1 h
    const tariff: Tariff = {
      id: 'D',
      name: 'dear',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.1, time_start: '01:00', time_end: '02:00' },
        { priority: 1, price: 0.4, time_start: '00:00', time_end: '05:00' },
      ],
    };
    const plan = dearestWindows(tariff, { ...window, duration: 2 * HOUR, minBlock: HOUR });
    should(iso(plan)).eql([['2026-01-05T02:00:00.000Z', '2026-01-05T04:00:00.000Z']]);
    should(plan.costPerKw.net).be.approximately(0.8, 1e-12);
  });
});
