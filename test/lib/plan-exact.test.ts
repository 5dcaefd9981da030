// cheapestWindows and dearestWindows, split with and without a minimum block, against the
// cell-by-cell reference (plan-reference.ts) on generated windows that start at arbitrary
// instants (cells of a millisecond, a second or a minute), on DST nights, with negative prices and sensor rules.
import should from 'should';
import fc from 'fast-check';
import { cheapestWindows, dearestWindows, PlanResult } from '../../nodes/lib/engine/plan/plan';
import { schedule } from '../../nodes/lib/engine/prices/price-source';
import { cheapestBlock } from '../../nodes/lib/engine/plan/plan-split';
import { Piece } from '../../nodes/lib/engine/plan/plan-block-work';
import { UsablePieces } from '../../nodes/lib/engine/plan/plan-pieces';
import { FC } from './engine-fixtures';
import { cellCaseArb, cellPrices, referenceBlocks, referenceSplit, runsOf } from './plan-reference';

const HOUR = 3_600_000;
const shape = (r: PlanResult) => r.slots.map((s) => ({ from: s.from, to: s.to }));

describe('plans against a cell-by-cell reference', () => {
  const arb = fc.record({
    c: cellCaseArb(40),
    needPick: fc.nat({ max: 1000 }),
    minPick: fc.nat({ max: 1000 }),
    blocks: fc.boolean(),
    dearest: fc.boolean(),
    limit: fc.option(fc.constantFrom(0.25, 0.5, 0.75), { nil: undefined }),
  });
  const seen = { cases: 0, blocks: 0, dearest: 0, short: 0, empty: 0, overWindow: 0, msCells: 0 };
  after(() => console.log(`      plans vs cell reference: ${JSON.stringify(seen)}`));

  it('equal the reference: the most run time up to the duration, the least cost (dearest: the most); split: equal costs to the fewest blocks, then the earliest (property)', function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(arb, ({ c, needPick, minPick, blocks, dearest, limit }) => {
        const prices = cellPrices(c);
        const need = needPick % (c.cells + 4);
        const m = blocks ? 1 + (minPick % Math.max(1, need)) : 1;
        const sign = dearest ? -1 : 1;
        const cost = prices.map((p) => (p === null || (limit !== undefined && sign * p > sign * limit) ? null : sign * p));
        const expected = runsOf(blocks ? referenceBlocks(cost, Math.min(need, c.cells), m) : referenceSplit(cost, need), c.from, c.unit);
        const options = {
          timezone: c.zone,
          sensors: c.sensors,
          from: new Date(c.from).toISOString(),
          to: c.from + c.cells * c.unit,
          duration: need * c.unit,
          minBlock: blocks ? m * c.unit : undefined,
          ...(dearest ? { minPrice: limit } : { maxPrice: limit }),
        };
        const plan = dearest ? dearestWindows(c.tariff, options) : cheapestWindows(c.tariff, options);
        should(shape(plan)).eql(expected);
        should(plan.from).equal(c.from);
        should(plan.to).equal(c.from + c.cells * c.unit);
        const planned = expected.reduce((s, r) => s + r.to - r.from, 0);
        should(plan.planned).equal(planned);
        should(plan.requested).equal(need * c.unit);
        let net = 0;
        for (const r of expected) for (let t = r.from; t < r.to; t += c.unit) net += prices[(t - c.from) / c.unit]! * (c.unit / HOUR);
        should(plan.costPerKw.net).be.approximately(net, 1e-9);
        should(plan.shortfall === null).equal(planned === need * c.unit);
        for (const s of plan.slots) if (blocks) should(s.to - s.from).be.aboveOrEqual(m * c.unit);
        seen.cases++;
        if (blocks) seen.blocks++;
        if (dearest) seen.dearest++;
        if (planned < need * c.unit) seen.short++;
        if (need === 0) seen.empty++;
        if (need > c.cells) seen.overWindow++;
        if (c.unit === 1) seen.msCells++;
      }),
      { ...FC, numRuns: 3000 },
    );
  });

  it('comparedToNow is the planned time from `from` in one block as schedule() prices it, to the last bit (property)', function () {
    this.timeout(60_000);
    const arb = fc.record({
      c: cellCaseArb(40),
      needPick: fc.nat({ max: 1000 }),
      mode: fc.constantFrom('split', 'contiguous', 'dearest'),
      limit: fc.option(fc.constantFrom(0.25, 0.5, 0.75), { nil: undefined }),
    });
    let priced = 0;
    fc.assert(
      fc.property(arb, ({ c, needPick, mode, limit }) => {
        const options = {
          timezone: c.zone,
          sensors: c.sensors,
          from: c.from,
          to: c.from + c.cells * c.unit,
          duration: (needPick % (c.cells + 4)) * c.unit,
          contiguous: mode === 'contiguous',
          ...(mode === 'dearest' ? { minPrice: limit } : { maxPrice: limit }),
        };
        const plan = mode === 'dearest' ? dearestWindows(c.tariff, options) : cheapestWindows(c.tariff, options);
        if (plan.planned === 0) return void should(plan.comparedToNow).be.null();
        // the walk of [from, from + planned) on its own, as the plan once made it
        const now = schedule(c.tariff, c.from, c.from + plan.planned, { timezone: c.zone, sensors: c.sensors });
        if (now.some((s) => s.price === null)) return void should(plan.comparedToNow).be.null();
        const net = now.reduce((sum, s) => sum + s.price! * ((s.to - s.from) / HOUR), 0);
        const saving = (mode === 'dearest' ? -1 : 1) * (net - plan.costPerKw.net);
        should(plan.comparedToNow).eql({
          from: c.from,
          to: c.from + plan.planned,
          net,
          gross: net * 1.2,
          saving,
          savingGross: saving * 1.2,
        });
        priced++;
      }),
      { ...FC, numRuns: 1500 },
    );
    should(priced).be.above(500);
  });

  /**
   * One block as it was searched before the two-pointer sweep: every start where the block's
   * start or end meets a piece boundary, sorted, each costed by a binary search (the same
   * arithmetic, so the same ties to the last bit).
   */
  function blockBySearch(usable: Piece[], duration: number): Piece[] {
    const runs: Piece[][] = [];
    for (const p of usable) {
      const last = runs[runs.length - 1];
      if (last && last[last.length - 1].to === p.from) last.push(p);
      else runs.push([p]);
    }
    const maxAbs = usable.reduce((m, p) => Math.max(m, Math.abs(p.price)), 0);
    let best: { cost: number; start: number; run: Piece[] } | null = null;
    let longest: Piece[] = [];
    const span = (run: Piece[]) => (run.length ? run[run.length - 1].to - run[0].from : 0);
    for (const run of runs) {
      const [runFrom, runTo] = [run[0].from, run[run.length - 1].to];
      if (span(run) > span(longest)) longest = run;
      if (runTo - runFrom < duration) continue;
      const prefix = [0];
      for (const p of run) prefix.push(prefix[prefix.length - 1] + p.price * (p.to - p.from));
      const until = (t: number) => {
        let k = 0;
        while (k + 1 < run.length && run[k + 1].from <= t) k++;
        return prefix[k] + run[k].price * (t - run[k].from);
      };
      const tolerance = maxAbs * (runTo - runFrom) * 1e-12;
      const starts = run.flatMap((p) =>
        [p.from + duration <= runTo ? [p.from] : [], p.to - duration >= runFrom ? [p.to - duration] : []].flat(),
      );
      for (const start of starts.sort((a, b) => a - b)) {
        const cost = until(start + duration) - until(start);
        if (!best || cost < best.cost - tolerance || (cost <= best.cost + tolerance && start < best.start)) best = { cost, start, run };
      }
    }
    if (!best) return longest.map((p) => ({ ...p }));
    const [a, b] = [best.start, best.start + duration];
    return best.run.flatMap((p) =>
      Math.min(b, p.to) > Math.max(a, p.from) ? [{ from: Math.max(a, p.from), to: Math.min(b, p.to), price: p.price }] : [],
    );
  }

  it('one block: the two-pointer sweep picks what a search per start picks, ties and float noise included (property)', () => {
    const pieces = fc
      .array(
        fc.record({
          gap: fc.constantFrom(0, 0, 0, 0, 1, 900_000),
          length: fc.constantFrom(1, 7, 60_000, 900_000, 900_000, 3_600_000),
          price: fc.constantFrom(-0.1, 0.1, 0.1, 0.1, 0.2, 0.3, 0.7, 0.1 + 0.2),
        }),
        { minLength: 1, maxLength: 200 },
      )
      .map((xs) => {
        let at = Date.UTC(2026, 0, 5);
        return xs.map((x) => {
          const p = { from: at + x.gap, to: at + x.gap + x.length, price: x.price };
          at = p.to;
          return p;
        });
      });
    fc.assert(
      // the duration as a share in thousandths (fc.double in [0, 1] is mostly tiny: its doubles are drawn bit pattern by bit pattern)
      fc.property(pieces, fc.integer({ min: 1, max: 1000 }), (usable, thousandths) => {
        const total = usable[usable.length - 1].to - usable[0].from;
        const duration = Math.max(1, Math.round((thousandths / 1000) * total));
        should(cheapestBlock(UsablePieces.of(usable).window(), duration)).eql(blockBySearch(usable, duration));
      }),
      { ...FC, numRuns: 1500 },
    );
  });
});
