// checkStoredTotals: stored stream totals with readings more than a year ahead (an older
// version counted a clock that jumped) repaired against a reference that never saw them, on
// generated cases; readings less far ahead (stored under a later clock) kept whole.
import should from 'should';
import fc from 'fast-check';
import { addReading, IntervalCost, newTotals, Reading, TotalsState } from '../../nodes/lib/engine/cost/totals';
import { checkStoredTotals } from '../../nodes/lib/engine/cost/stored-totals';

const NOW = Date.parse('2026-03-04T10:00:00Z');
const MIN = 60_000;
const YEAR = 366 * 24 * 3600_000;
/** An interval's cost with a price that depends on when it starts (so a wrong attribution shows). */
const costOf = (a: Reading, b: Reading): IntervalCost => {
  const energy = Math.max(0, b.value - a.value);
  const price = 0.1 + (Math.floor(a.ts / 3600_000) % 5) / 10;
  return { energy, net: energy * price, gross: energy * price * 1.2, unpricedEnergy: 0, resets: b.value < a.value ? 1 : 0 };
};
const count = (readings: Reading[], zone: string, start = newTotals(zone, 't')): TotalsState =>
  readings.reduce((state, r) => addReading(state, r, costOf).state, start);

describe('checkStoredTotals (stored totals checked at restore)', () => {
  it('drops readings more than a year ahead with their intervals: the total is that of the real readings, and counting goes on as if they never came', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut'),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 500 })), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 366 * 1440 + 1, max: 99 * 525_600 }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 500 })), { minLength: 1, maxLength: 20 }),
        (zone, steps, aheadMinutes, after) => {
          let ts = NOW - 5000 * MIN;
          let value = 1000;
          const real = steps.map(([dt, dv]) => ({ ts: (ts += dt * MIN), value: (value += dv / 100) }));
          const future = [...new Set(aheadMinutes)]
            .sort((a, b) => a - b)
            .map((m, i) => ({ ts: NOW + m * MIN, value: value + (i + 1) / 100 }));
          const broken = count([...real, ...future], zone);
          const reference = count(real, zone);
          const checked = checkStoredTotals(broken, NOW, 3000);
          should(checked.dropped).have.length(1);
          should(checked.dropped[0]).match(/more than a year ahead/);
          if (broken.kept.ts(0) > NOW) {
            // the future readings' window let every real one go: what the total holds beyond them is not known
            should(checked.state).be.null();
            return;
          }
          const repaired = checked.state!;
          for (const k of ['energy', 'net', 'gross', 'resets', 'intervals'] as const)
            should(repaired.total![k]).be.approximately(reference.total![k], 1e-9);
          should(repaired.total!.from).equal(reference.total!.from);
          for (const p of ['day', 'week', 'month'] as const)
            should([repaired[p]!.from, repaired[p]!.to]).eql([reference[p]!.from, reference[p]!.to]);
          // the next real readings: none too late, the total as if the future never came
          const later = after.map(([dt, dv]) => ({ ts: (ts += dt * MIN), value: (value += dv / 100) }));
          for (const r of later) should(addReading(repaired, r, costOf).ignored).be.undefined();
          const a = count(later, zone, repaired);
          const b = count(later, zone, reference);
          should(a.total!.energy).be.approximately(b.total!.energy, 1e-9);
          should(a.total!.net).be.approximately(b.total!.net, 1e-9);
          should(a.day!.from).equal(b.day!.from);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps totals stored under a later clock (up to a year ahead) whole, whatever the zone', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut'),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 500 })), { minLength: 1, maxLength: 60 }),
        fc.oneof(fc.constantFrom(50, 3 * 1440, 364 * 1440, 366 * 1440), fc.integer({ min: -5000, max: 366 * 1440 })),
        (zone, steps, newestAheadMinutes) => {
          let ts = 0;
          let value = 1000;
          const offsets = steps.map(([dt, dv]) => ({ ts: (ts += dt * MIN), value: (value += dv / 100) }));
          const newest = NOW + newestAheadMinutes * MIN;
          const readings = offsets.map((r) => ({ ts: newest - ts + r.ts, value: r.value }));
          const stored = count(readings, zone);
          should(checkStoredTotals(stored, NOW, 3000)).eql({ state: stored, dropped: [] });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps totals without readings more than a year ahead whole, and drops totals that start beyond that or at no instant near now', () => {
    const real = [
      { ts: NOW - 2 * 3600_000, value: 1 },
      { ts: NOW - 3600_000, value: 2 },
    ];
    const good = count(real, 'UTC');
    should(checkStoredTotals(good, NOW, 3000)).eql({ state: good, dropped: [] });
    const startsAhead = count([{ ts: NOW + YEAR + 1, value: 1 }], 'UTC');
    should(checkStoredTotals(startsAhead, NOW, 3000)).match({
      state: null,
      dropped: [/^totals starting at 2027-.*, not an instant near now$/],
    });
    const yearAhead = count([{ ts: NOW + YEAR, value: 1 }], 'UTC');
    should(checkStoredTotals(yearAhead, NOW, 3000)).eql({ state: yearAhead, dropped: [] });
    const huge = { ...good, total: { ...good.total!, from: 1e300 } };
    should(checkStoredTotals(huge, NOW, 3000)).match({ state: null, dropped: ['totals starting at 1e+300, not an instant near now'] });
  });

  it('lets the oldest readings beyond what the node keeps go, the totals unchanged', () => {
    const real = Array.from({ length: 50 }, (_, i) => ({ ts: NOW - (50 - i) * MIN, value: i }));
    const state = count(real, 'UTC');
    const checked = checkStoredTotals(state, NOW, 8);
    should(checked.state!.kept.readings()).eql(state.kept.readings().slice(-8));
    should(checked.state!.total).eql(state.total);
    should(checked.dropped).eql(['42 of the oldest readings beyond the 8 the node keeps (the totals still count them)']);
  });
});
