import should from 'should';
import fc from 'fast-check';
import { CostRow, ReadingWindow } from '../../nodes/lib/engine/cost/reading-window';

// The compact window against plain lists of [ts, value] and cost rows (what totals.ts kept
// before): the same readings and costs back, exactly, after any sequence of what addReading
// does (a reading inserted anywhere, a value replaced, the oldest let go) with costs of every
// kind (the step, all unpriced, counter resets, rejected, partly unpriced, -0).
describe('ReadingWindow: the late-reading window in columns', () => {
  const costKind = fc.integer({ min: 0, max: 5 });
  const ops = fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          op: fc.constant('insert' as const),
          at: fc.nat(),
          gap: fc.integer({ min: 1, max: 9 }),
          value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
          costs: fc.array(fc.tuple(costKind, fc.double({ min: -1e3, max: 1e3, noNaN: true })), { minLength: 2, maxLength: 2 }),
        }),
      },
      {
        weight: 2,
        arbitrary: fc.record({
          op: fc.constant('replace' as const),
          at: fc.nat(),
          value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
          costs: fc.array(fc.tuple(costKind, fc.double({ min: -1e3, max: 1e3, noNaN: true })), { minLength: 2, maxLength: 2 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), count: fc.integer({ min: 0, max: 40 }) }) },
    ),
    { maxLength: 400 },
  );
  /** A cost row of interval from -> to of the given kind. */
  const rowOf = (kind: number, x: number, from: number, to: number): CostRow => {
    const step = to - from;
    switch (kind) {
      case 0:
        return [step, x, x * 1.2, 0, 0];
      case 1:
        return [step, 0, 0, step, 0];
      case 2:
        return [0, 0, 0, 0, 1]; // a counter reset
      case 3:
        return [step, x, x, step / 3, 0]; // partly unpriced
      case 4:
        return [-0, -0, -0, -0, 0];
      default:
        return [x, x, x, x, 0]; // not the step
    }
  };

  it('gives back exactly the readings and costs that plain lists hold, after any inserts, replaced values and drops', () => {
    fc.assert(
      fc.property(ops, (list) => {
        const w = new ReadingWindow();
        const kept: Array<[number, number]> = [];
        const costs: CostRow[] = [];
        const price = (i: number, [kind, x]: [number, number]) => {
          if (i < 0 || i >= kept.length - 1) return;
          const row = rowOf(kind, x, kept[i][1], kept[i + 1][1]);
          costs[i] = row;
          w.setCost(i, row);
        };
        for (const o of list) {
          if (o.op === 'drop') {
            const n = Math.min(o.count, kept.length);
            kept.splice(0, n);
            costs.splice(0, n);
            w.dropOldest(n);
          } else if (o.op === 'insert') {
            const at = o.at % (kept.length + 1);
            // instants between the neighbours: ts spaced by 10 so a gap always exists
            const ts =
              at === 0
                ? (kept.length ? kept[0][0] : 0) - 10 * o.gap
                : at === kept.length
                  ? kept[at - 1][0] + 10 * o.gap
                  : kept[at - 1][0] + (kept[at][0] - kept[at - 1][0]) / 2;
            if (at > 0 && at < kept.length && (ts === kept[at - 1][0] || ts === kept[at][0])) continue;
            kept.splice(at, 0, [ts, o.value]);
            if (kept.length > 1) costs.splice(Math.min(at, costs.length), 0, [0, 0, 0, 0, 0]);
            w.insert(at, ts, o.value);
            price(at - 1, o.costs[0]);
            price(at, o.costs[1]);
          } else if (kept.length) {
            const at = o.at % kept.length;
            kept[at] = [kept[at][0], o.value];
            w.setValue(at, o.value);
            price(at - 1, o.costs[0]);
            price(at, o.costs[1]);
          }
          should(w.length).equal(kept.length);
        }
        should(w.readings()).eql(kept);
        const rows = w.costRows();
        should(rows.length).equal(costs.length);
        rows.forEach((row, i) =>
          row.forEach((x, k) => should(Object.is(x, costs[i][k])).be.true(`cost ${i}.${k}: ${x} vs ${costs[i][k]}`)),
        );
        should(ReadingWindow.of(kept, costs).costRows()).eql(rows);
        should(w.copy().readings()).eql(kept);
        if (kept.length) should(w.newestTs()).equal(kept[kept.length - 1][0]);
        for (const [ts] of kept) should(w.ts(w.firstAtOrAfter(ts))).equal(ts);
      }),
      { seed: 20261126, numRuns: 300 },
    );
  });

  it('a window at its limit keeps its buffers: 3,000 readings moved on 20,000 times grow nothing', () => {
    const w = new ReadingWindow();
    for (let i = 0; i < 23_000; i++) {
      w.insert(w.length, i * 10_000, i * 0.005);
      if (w.length > 1) w.setCost(w.length - 2, [0.005 + (i % 3) * 1e-18, 0.001, 0.0012, 0, 0]);
      if (w.length > 3000) w.dropOldest(1);
    }
    should(w.length).equal(3000);
    should(w.readings()[0]).eql([20_000 * 10_000, 20_000 * 0.005]);
    // the buffers' size: 33 bytes a reading, 1/16 room
    should((w as unknown as { capacity: number }).capacity).be.below(3000 * (1 + 1 / 16) + 9);
  });
});
