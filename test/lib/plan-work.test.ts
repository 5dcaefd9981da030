// The work caps count what the searches really do: the minimum-block and switch-off
// searches count their inner-loop steps (and each move's and point's set-up) while they
// run, and that count never exceeds the work counted before they start, which is what
// MAX_PLAN_WORK caps. Generated windows from arbitrary instants, price changes on odd
// grids, minimum blocks and off times on and off them. The windows' price changes are
// capped too (MAX_PLAN_SEGMENTS), as the tariff is walked.
import should from 'should';
import fc from 'fast-check';
import { BlockStats, blockedCapacity, cheapestBlocks, Piece } from '../../nodes/lib/engine/plan/plan-blocks';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { savingOffWindows } from '../../nodes/lib/engine/plan/plan-saving';
import { MAX_PLAN_SEGMENTS, MAX_PLAN_WORK } from '../../nodes/lib/engine/common/limits';
import { FC } from './engine-fixtures';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Pieces on a grid of `step` ms from `anchor`, some missing (no price), over [from, to). */
function piecesOf(from: number, to: number, anchor: number, step: number, prices: number[]): Piece[] {
  const out: Piece[] = [];
  let k = Math.floor((from - anchor) / step);
  for (let at = from; at < to; k++) {
    const end = Math.min(to, anchor + (k + 1) * step);
    const price = prices[((k % prices.length) + prices.length) % prices.length];
    if (!Number.isNaN(price)) out.push({ from: at, to: end, price });
    at = end;
  }
  return out;
}

/** A tariff of 96 quarter-hour rules, priced by `priceOf(quarter)`. */
function quarterHourTariff(priceOf: (quarter: number) => number) {
  const clock = (q: number) => `${String(Math.floor(q / 4) % 24).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
  return {
    id: 'Q',
    name: 'quarters',
    vat: 0,
    currency: 'EUR',
    rules: Array.from({ length: 96 }, (_, q) => ({ priority: 1, price: priceOf(q), time_start: clock(q), time_end: clock(q + 1) })),
  };
}

/**
 * Runs a search with its counters: refused before any step on its count (false), or it
 * took steps, never more than it counted (true).
 */
function withinCount(search: (stats: BlockStats) => unknown): boolean {
  const stats: BlockStats = { work: 0, steps: 0 };
  try {
    search(stats);
  } catch {
    should(stats.work).be.above(MAX_PLAN_WORK);
    should(stats.steps).equal(0);
    return false;
  }
  should(stats.steps).be.above(0);
  should(stats.steps).be.belowOrEqual(stats.work);
  return true;
}

describe('plan work: the counted work bounds what the search does', function () {
  // searches run up to their work cap on generated windows, CPU-bound: 2-5 s idle, near 10 s on a loaded machine
  this.timeout(60_000);
  it('cheapestBlocks takes no more steps than it counted, and counts them (and counts the blocks it plans)', () => {
    const arb = fc.record({
      from: fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
      hours: fc.integer({ min: 1, max: 72 }),
      extraMs: fc.integer({ min: 0, max: HOUR - 1 }),
      step: fc.constantFrom(15 * MINUTE, HOUR, 30 * MINUTE + 7000, 1000, 10 * MINUTE),
      minBlock: fc.constantFrom(15 * MINUTE, HOUR, 7 * MINUTE, 61 * MINUTE, 90_000, 20 * MINUTE + 500),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
      prices: fc.array(fc.constantFrom(-0.1, 0.1, 0.2, 0.3, 0.5, NaN), { minLength: 1, maxLength: 9 }),
    });
    let searched = 0;
    fc.assert(
      fc.property(arb, (c) => {
        const to = c.from + c.hours * HOUR + c.extraMs;
        const usable = piecesOf(c.from, to, Date.parse('2026-01-01T00:00:00Z'), c.step, c.prices);
        const wanted = Math.max(c.minBlock, Math.round((to - c.from) * c.share));
        const target = blockedCapacity(usable, wanted, c.minBlock);
        if (target === 0) return;
        const counted = (stats: BlockStats) => {
          const plan = cheapestBlocks(usable, c.from, to, target, c.minBlock, stats);
          // the blocks it counted (rule 31's fewest) are the blocks it plans: touching pieces are one block
          should(plan.filter((p, k) => k === 0 || plan[k - 1].to !== p.from).length).equal(stats.blocks);
        };
        if (withinCount(counted)) searched++;
      }),
      { ...FC, numRuns: 150 },
    );
    should(searched).be.above(50);
  });

  it('savingOffWindows takes no more steps than it counted', () => {
    const arb = fc.record({
      from: fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2026-12-31T00:00:00Z') }),
      hours: fc.integer({ min: 1, max: 72 }),
      prices: fc.array(fc.constantFrom(-0.1, 0.1, 0.2, 0.3, 0.5), { minLength: 2, maxLength: 8 }),
      maxOff: fc.constantFrom(15 * MINUTE, HOUR, 2 * HOUR + 7000, 1000, 20 * HOUR),
      minOn: fc.constantFrom(undefined, 15 * MINUTE, 5000),
      minOff: fc.constantFrom(undefined, 5 * MINUTE, 30 * MINUTE + 3000),
      recoveryPercent: fc.constantFrom(0, 50),
    });
    let searched = 0;
    fc.assert(
      fc.property(arb, (c) => {
        const tariff = quarterHourTariff((q) => c.prices[q % c.prices.length]);
        const options = {
          timezone: 'Europe/Berlin',
          from: c.from,
          to: c.from + c.hours * HOUR,
          maxOffInRow: c.maxOff,
          minOffInRow: c.minOff === undefined ? undefined : Math.min(c.minOff, c.maxOff),
          minOnBetween: c.minOn,
          recoveryPercent: c.recoveryPercent,
        };
        if (withinCount((stats) => savingOffWindows(tariff, options, stats))) searched++;
      }),
      { ...FC, numRuns: 200 },
    );
    should(searched).be.above(100);
  });

  it('a window with more price changes than MAX_PLAN_SEGMENTS is refused as the tariff is walked, in every mode', () => {
    const tariff = quarterHourTariff((q) => 0.1 + (q % 5) / 10);
    const from = Date.parse('2026-03-23T10:07:13.456Z');
    const decade = { timezone: 'Europe/London', from, to: from + 3650 * DAY };
    const refused = new RegExp(`^the prices change more than ${MAX_PLAN_SEGMENTS.toLocaleString('en-US')} times in this window`);
    should(() => cheapestWindows(tariff, { ...decade, duration: 5 * HOUR })).throw(refused);
    should(() => cheapestWindows(tariff, { ...decade, duration: 5 * HOUR, contiguous: true })).throw(refused);
    should(() => cheapestWindows(tariff, { ...decade, duration: 5 * HOUR, minBlock: HOUR })).throw(refused);
    should(() => savingOffWindows(tariff, { ...decade, maxOffInRow: 2 * HOUR })).throw(refused);
    // a year of quarter-hour prices is within it
    should(cheapestWindows(tariff, { ...decade, to: from + 365 * DAY, duration: 5 * HOUR }).planned).equal(5 * HOUR);
  });
});
