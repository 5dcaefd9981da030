// The busy option of cheapestWindows / dearestWindows (one-off runs planned on top of the
// configured plan): against a minute-by-minute reference of what is free, with busy spans
// that overlap, come in any order, or are empty.
import should from 'should';
import fc from 'fast-check';
import { cheapestWindows, dearestWindows } from '../../nodes/lib/engine/plan/plan';
import { workdayTariff } from './engine-fixtures';

const MIN = 60_000;
const FROM = Date.parse('2026-03-04T00:00:00Z');
const WINDOW_MIN = 24 * 60;

describe('plans around busy times', () => {
  it('plan only free minutes, as much as is free up to the duration, in both directions (reference: minute by minute)', () => {
    const span = fc.tuple(fc.integer({ min: -60, max: WINDOW_MIN + 60 }), fc.integer({ min: -30, max: 600 }));
    fc.assert(
      fc.property(fc.array(span, { maxLength: 8 }), fc.integer({ min: 1, max: 20 * 60 }), fc.boolean(), (spans, durationMin, dearest) => {
        const busy = spans.map(([start, length]) => ({ from: FROM + start * MIN, to: FROM + (start + length) * MIN }));
        const free: boolean[] = [];
        for (let m = 0; m < WINDOW_MIN; m++) {
          const at = FROM + m * MIN;
          free.push(!busy.some((b) => b.from <= at && at < b.to));
        }
        const options = { timezone: 'UTC', from: FROM, to: FROM + WINDOW_MIN * MIN, duration: durationMin * MIN, busy };
        const plan = (dearest ? dearestWindows : cheapestWindows)(workdayTariff(), options);
        for (const p of plan.pieces) {
          for (let at = p.from; at < p.to; at += MIN) should(free[(at - FROM) / MIN]).be.true(`${new Date(at).toISOString()} is busy`);
        }
        const freeMin = free.filter(Boolean).length;
        should(plan.planned).equal(Math.min(durationMin, freeMin) * MIN);
      }),
      { numRuns: 1000 },
    );
  });
});
