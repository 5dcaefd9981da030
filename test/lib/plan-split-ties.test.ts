// Split plans' ties (semantics rule 31): of the plans of least cost, the fewest blocks, then
// the earliest. cheapestPieces against every subset of the cells of small windows of 1-ms
// cells, and against the cell reference (plan-reference.ts referenceSplit) on hundreds of pieces;
// that reference against the same enumeration;
// cheapestWindows / dearestWindows on hourly and quarter-hour tariffs over DST days against
// that reference on a minute grid; the example.
import should from 'should';
import fc from 'fast-check';
import { cheapestPieces } from '../../nodes/lib/engine/plan/plan-split';
import { cheapestWindows, dearestWindows, PlanResult } from '../../nodes/lib/engine/plan/plan';
import type { Piece } from '../../nodes/lib/engine/plan/plan-block-work';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC, slowPrice } from './engine-fixtures';
import { offsetChanges, referenceSplit, runsOf } from './plan-reference';

const MINUTE = 60_000;

/**
 * Every plan of exactly `need` cells (all usable ones when fewer), the least cost (equal to
 * 12 significant digits of the window's largest cost, rule 31), then the fewest blocks,
 * then the one running at the first cell where two plans differ.
 */
function everySubset(cells: Array<number | null>, need: number): boolean[] {
  const n = cells.length;
  const usable = cells.map((_, k) => k).filter((k) => cells[k] !== null);
  const count = Math.min(need, usable.length);
  const tolerance = cells.reduce<number>((m, p) => Math.max(m, Math.abs(p ?? 0)), 0) * n * 1e-12;
  let best: { cost: number; blocks: number; on: boolean[] } | null = null;
  const on: boolean[] = new Array<boolean>(n).fill(false);
  const runsFirst = (a: boolean[], b: boolean[]) => {
    const k = a.findIndex((x, i) => x !== b[i]);
    return k >= 0 && a[k];
  };
  const visit = (next: number, left: number): void => {
    if (left === 0) {
      let cost = 0;
      let blocks = 0;
      on.forEach((x, k) => {
        if (x) cost += cells[k]!;
        if (x && (k === 0 || !on[k - 1])) blocks++;
      });
      if (
        !best ||
        cost < best.cost - tolerance ||
        (cost <= best.cost + tolerance && (blocks < best.blocks || (blocks === best.blocks && runsFirst(on, best.on))))
      )
        best = { cost, blocks, on: [...on] };
      return;
    }
    for (let j = next; j <= usable.length - left; j++) {
      on[usable[j]] = true;
      visit(j + 1, left - 1);
      on[usable[j]] = false;
    }
  };
  visit(0, count);
  return best!.on;
}

/** The rule before issue 29: the cheapest cells, equal prices earliest first. */
function earliestOfEquals(cells: Array<number | null>, need: number): boolean[] {
  const usable = cells.map((_, k) => k).filter((k) => cells[k] !== null);
  usable.sort((a, b) => cells[a]! - cells[b]! || a - b);
  const on = cells.map(() => false);
  for (const k of usable.slice(0, need)) on[k] = true;
  return on;
}

const blocksOf = (on: boolean[]) => on.filter((x, k) => x && (k === 0 || !on[k - 1])).length;

/**
 * Cells of 1 ms from an arbitrary instant: holes (no price, busy, above the limit), few
 * prices so that ties are common (0.1 + 0.2 is not 0.3 in binary), negative ones; touching
 * cells of one price are one piece or, where `cut`, two (two rules of the same price).
 */
const someCells = fc.record({
  from: fc.integer({ min: 0, max: 2_000_000_000_000 }),
  cells: fc.array(fc.option(fc.constantFrom(-0.1, 0.1, 0.2, 0.3, 0.3), { freq: 4, nil: null }), { minLength: 1, maxLength: 14 }),
  cuts: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
  need: fc.integer({ min: 1, max: 16 }),
  dearest: fc.boolean(),
});
// fast-check's bias favours small and repeated values (many ties); without it, more mixed windows
const cellsArb = fc.oneof(someCells, fc.noBias(someCells));

function piecesOf(from: number, cells: Array<number | null>, cuts: boolean[]): Piece[] {
  const pieces: Piece[] = [];
  cells.forEach((price, k) => {
    if (price === null) return;
    const last = pieces[pieces.length - 1];
    if (last && last.to === from + k && last.price === price && !cuts[k]) last.to++;
    else pieces.push({ from: from + k, to: from + k + 1, price });
  });
  return pieces;
}

describe('split plans: equal costs to the fewest blocks, then the earliest', () => {
  const seen = { cases: 0, fewerBlocksThanBefore: 0, otherThanBefore: 0, twoOrMoreBlocks: 0 };
  after(() => console.log(`      cheapestPieces vs every subset: ${JSON.stringify(seen)}`));

  it('cheapestPieces equals the best of every subset of 1-ms cells (property)', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(cellsArb, ({ from, cells: raw, cuts, need, dearest }) => {
        const cells = raw.map((p) => (p === null ? null : dearest ? -p : p));
        const expected = everySubset(cells, need);
        const chosen = cheapestPieces(piecesOf(from, cells, cuts), need);
        const on = cells.map(() => false);
        for (const p of chosen) {
          should(Number.isInteger(p.from) && Number.isInteger(p.to) && p.to > p.from).be.true();
          for (let t = p.from; t < p.to; t++) {
            should(on[t - from]).be.false('a cell taken twice');
            on[t - from] = true;
            should(p.price).equal(cells[t - from]);
          }
        }
        should(on).eql(expected);
        const before = earliestOfEquals(cells, need);
        seen.cases++;
        if (blocksOf(before) > blocksOf(expected)) seen.fewerBlocksThanBefore++;
        else if (before.some((x, k) => x !== expected[k])) seen.otherThanBefore++;
        if (blocksOf(expected) > 1) seen.twoOrMoreBlocks++;
      }),
      { ...FC, numRuns: 5000 },
    );
    // the rule before (equal prices earliest first) made more blocks than needed in many cases
    should(seen.fewerBlocksThanBefore).be.above(seen.cases / 50);
  });

  it('cheapestPieces equals the cell reference on hundreds of pieces of 1-20 ms (property: many runs of many lengths)', function () {
    this.timeout(120_000); // as the test above: CPU-bound, 3-4 s idle, past 10 s on a loaded machine
    const arb = fc.noBias(
      fc.record({
        pieces: fc.array(
          fc.tuple(fc.integer({ min: 1, max: 20 }), fc.option(fc.constantFrom(-0.1, 0.1, 0.2, 0.2, 0.3), { freq: 6, nil: null })),
          {
            minLength: 1,
            maxLength: 300,
            size: 'max',
          },
        ),
        needPermille: fc.integer({ min: 1, max: 1000 }),
      }),
    );
    const seenLarge = { pieces: 0, cells: 0 };
    fc.assert(
      fc.property(arb, ({ pieces: spans, needPermille }) => {
        const cells: Array<number | null> = spans.flatMap(([length, price]) => new Array<number | null>(length).fill(price));
        const pieces: Piece[] = [];
        let at = 0;
        for (const [length, price] of spans) {
          if (price !== null) pieces.push({ from: at, to: at + length, price });
          at += length;
        }
        const need = Math.max(1, Math.round((needPermille * cells.length) / 1000));
        const on = cells.map(() => false);
        for (const p of cheapestPieces(pieces, need)) for (let t = p.from; t < p.to; t++) on[t] = true;
        should(on).eql(referenceSplit(cells, need));
        seenLarge.pieces = Math.max(seenLarge.pieces, spans.length);
        seenLarge.cells = Math.max(seenLarge.cells, cells.length);
      }),
      { ...FC, numRuns: 200 },
    );
    console.log(`      hundreds of pieces, the largest case: ${JSON.stringify(seenLarge)}`);
    should(seenLarge.pieces).be.above(250);
  });

  it('the cell reference (referenceSplit) equals the best of every subset (property)', () => {
    fc.assert(
      fc.property(cellsArb, ({ cells, need }) => {
        should(referenceSplit(cells, need)).eql(everySubset(cells, need));
      }),
      { ...FC, numRuns: 3000 },
    );
  });

  it("the issue's example: 07:51-08:41 in one block, not 07:00-07:09 and 08:00-08:41", () => {
    const tariff: Tariff = {
      id: 'T',
      name: 'ties',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.2, time_start: '08:00', time_end: '08:41' },
        { priority: 1, price: 0.3, time_start: '07:00', time_end: '09:00' },
        { priority: 2, price: 0.5 },
      ],
    };
    const base = { timezone: 'UTC', from: '2026-01-05T06:00:00Z', to: '2026-01-05T12:00:00Z', duration: 50 * MINUTE };
    const plan = cheapestWindows(tariff, base);
    should(shape(plan)).eql([{ from: '2026-01-05T07:51:00.000Z', to: '2026-01-05T08:41:00.000Z' }]);
    should(plan.costPerKw.net).be.approximately((0.3 * 9 + 0.2 * 41) / 60, 1e-12);
    // the dearest 50 minutes of the same prices negated: the same block
    const negated: Tariff = { ...tariff, rules: tariff.rules.map((r) => ({ ...r, price: -r.price })) };
    should(shape(dearestWindows(negated, base))).eql(shape(plan));
  });

  it('a head run alone is taken at its end, a lone run only when the rest cannot hold the time', () => {
    // 0.1 at 02:00-03:00; 0.2 at 01:00-02:00 and 04:00-06:00: 90 min → 01:30-03:00
    const tariff: Tariff = {
      id: 'T',
      name: 'runs',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.1, time_start: '02:00', time_end: '03:00' },
        { priority: 0, price: 0.2, time_start: '01:00', time_end: '02:00' },
        { priority: 0, price: 0.2, time_start: '04:00', time_end: '06:00' },
        { priority: 1, price: 0.9 },
      ],
    };
    const base = { timezone: 'UTC', from: '2026-01-05T00:00:00Z', to: '2026-01-05T08:00:00Z' };
    should(shape(cheapestWindows(tariff, { ...base, duration: 90 * MINUTE }))).eql([
      { from: '2026-01-05T01:30:00.000Z', to: '2026-01-05T03:00:00.000Z' },
    ]);
    // 3 h 30 min: all of 01:00-03:00, and 90 min of the lone 04:00-06:00 from its start
    should(shape(cheapestWindows(tariff, { ...base, duration: 210 * MINUTE }))).eql([
      { from: '2026-01-05T01:00:00.000Z', to: '2026-01-05T03:00:00.000Z' },
      { from: '2026-01-05T04:00:00.000Z', to: '2026-01-05T05:30:00.000Z' },
    ]);
  });
});

const shape = (r: PlanResult) => r.slots.map((s) => ({ from: new Date(s.from).toISOString(), to: new Date(s.to).toISOString() }));

describe('split plans on hourly and quarter-hour tariffs against a minute grid, DST days', () => {
  const ZONES = ['Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'Europe/London'];
  const CHANGES = offsetChanges(ZONES);
  const clock = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  /** one rule per hour or per quarter hour, from a few prices (many ties), some slots unpriced */
  const tariffOf = (step: number, levels: Array<number | null>): Tariff => {
    const rules: Rule[] = [];
    levels.forEach((price, k) => {
      if (price !== null)
        rules.push({
          priority: 0,
          price,
          time_start: clock(k * step),
          time_end: k * step + step === 1440 ? '24:00' : clock(k * step + step),
        });
    });
    return { id: 'Q', name: `every ${step} min`, vat: 20, currency: 'EUR', rules };
  };
  // without fast-check's bias: it would give mostly windows of one price and durations near 0 or all of it
  const arb = fc
    .noBias(
      fc.record({
        step: fc.constantFrom(60, 15),
        prices: fc.noBias(
          fc.array(fc.option(fc.constantFrom(-0.05, 0.1, 0.2, 0.2, 0.3), { freq: 8, nil: null }), { minLength: 96, maxLength: 96 }),
        ),
        change: fc.nat({ max: CHANGES.length - 1 }),
        shiftMin: fc.integer({ min: -20 * 60, max: 4 * 60 }),
        lengthMin: fc.integer({ min: 1, max: 26 * 60 }),
        needPermille: fc.integer({ min: 0, max: 1000 }),
        dearest: fc.boolean(),
      }),
    )
    .map((c) => {
      const levels = c.prices.slice(0, 1440 / c.step);
      const { zone, at } = CHANGES[c.change];
      const from = Math.floor(at / MINUTE) * MINUTE + c.shiftMin * MINUTE;
      return { ...c, tariff: tariffOf(c.step, levels), zone, from, need: Math.max(1, Math.round((c.needPermille * c.lengthMin) / 1000)) };
    });
  const seen = { cases: 0, dearest: 0, twoOrMoreBlocks: 0, fewerBlocksThanBefore: 0 };
  after(() => console.log(`      split plans vs minute reference: ${JSON.stringify(seen)}`));

  it('cheapestWindows and dearestWindows equal the reference; one block stays one block (property)', function () {
    this.timeout(300_000);
    fc.assert(
      fc.property(arb, ({ tariff, zone, from, lengthMin, need, dearest }) => {
        const to = from + lengthMin * MINUTE;
        const cost: Array<number | null> = [];
        for (let t = from; t < to; t += MINUTE) {
          const p = slowPrice(tariff, t, zone);
          cost.push(p === null ? null : dearest ? -p : p);
        }
        const expected = referenceSplit(cost, need);
        const options = { timezone: zone, from, to, duration: need * MINUTE };
        const plan = (dearest ? dearestWindows : cheapestWindows)(tariff, options);
        should(plan.slots.map((s) => ({ from: s.from, to: s.to }))).eql(runsOf(expected, from, MINUTE));
        let net = 0;
        expected.forEach((on, k) => (net += on ? (dearest ? -cost[k]! : cost[k]!) / 60 : 0));
        should(plan.costPerKw.net).be.approximately(net, 1e-9);
        const block = (dearest ? dearestWindows : cheapestWindows)(tariff, { ...options, contiguous: true });
        should(block.slots.length).be.belowOrEqual(1);
        seen.cases++;
        if (dearest) seen.dearest++;
        if (blocksOf(expected) > 1) seen.twoOrMoreBlocks++;
        if (blocksOf(earliestOfEquals(cost, need)) > blocksOf(expected)) seen.fewerBlocksThanBefore++;
      }),
      { ...FC, numRuns: 300 },
    );
    should(seen.fewerBlocksThanBefore).be.above(seen.cases / 10);
  });
});
