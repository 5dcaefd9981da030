import should from 'should';
import { addReading, IntervalCost, newTotals, periodBounds, Reading, restoreTotals, TotalsState } from '../../nodes/lib/totals';

// A stand-in for computeCost: 2 per kWh, VAT 10 %, counter resets count 0 kWh.
function flatCost(from: Reading, to: Reading): IntervalCost {
  const delta = to.value - from.value;
  const energy = delta < 0 ? 0 : delta;
  return { energy, net: energy * 2, gross: energy * 2.2, unpricedEnergy: 0, resets: delta < 0 ? 1 : 0 };
}

function feed(state: TotalsState, readings: Array<[string, number]>) {
  const results = [];
  for (const [iso, value] of readings) {
    const result = addReading(state, { ts: Date.parse(iso), value }, flatCost);
    results.push(result);
    state = result.state;
  }
  return { state, results };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('totals: running totals by local period', () => {
  it('opens every period with the first reading and counts nothing for it', () => {
    const { state, results } = feed(newTotals('UTC', 't1'), [['2026-03-04T10:00:00Z', 100]]);
    should(results[0].interval).be.undefined();
    should(state.day!.energy).equal(0);
    should(iso(state.day!.from)).equal('2026-03-04T00:00:00.000Z');
    should(iso(state.week!.from)).equal('2026-03-02T00:00:00.000Z'); // the Monday
    should(iso(state.month!.from)).equal('2026-03-01T00:00:00.000Z');
    should(iso(state.total!.from)).equal('2026-03-04T10:00:00.000Z');
  });

  it('adds each interval to day, week, month and total', () => {
    const { state, results } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100], ['2026-03-04T11:00:00Z', 101.5], ['2026-03-04T12:00:00Z', 104],
    ]);
    for (const b of [state.day!, state.week!, state.month!, state.total!]) {
      should(b).match({ energy: 4, net: 8, intervals: 2 });
      should(b.gross).be.approximately(8.8, 1e-9);
    }
    should(results[2].interval).match({ energy: 2.5, from: Date.parse('2026-03-04T11:00:00Z') });
  });

  it('resets today at local midnight of a non-UTC zone, not at UTC midnight', () => {
    // Asia/Kolkata is UTC+05:30: local midnight of 5 March is 18:30Z on 4 March.
    const { state, results } = feed(newTotals('Asia/Kolkata', 't1'), [
      ['2026-03-04T18:00:00Z', 10], ['2026-03-04T18:29:59Z', 12], ['2026-03-04T18:30:00Z', 15], ['2026-03-04T19:00:00Z', 16],
    ]);
    should(results[1].closed).eql({});
    should(results[2].closed.day).match({ energy: 5, intervals: 2 }); // the interval starting 18:29:59 counts for the 4th
    should(iso(results[2].closed.day!.to)).equal('2026-03-04T18:30:00.000Z');
    should(state.day).match({ energy: 1, intervals: 1, from: Date.parse('2026-03-04T18:30:00Z') });
    should(state.week!.energy).equal(6); // a Thursday: same week and month
    should(state.total!.energy).equal(6);
  });

  it('starts the week on Monday and the month on the 1st, each closing once', () => {
    const { results, state } = feed(newTotals('Europe/Berlin', 't1'), [
      ['2026-03-29T12:00:00Z', 0], // Sunday
      ['2026-03-30T12:00:00Z', 1], // Monday: new day and week
      ['2026-04-01T12:00:00Z', 3], // Wednesday the 1st: new day and month
    ]);
    should(Object.keys(results[1].closed).sort()).eql(['day', 'week']);
    should(Object.keys(results[2].closed).sort()).eql(['day', 'month']);
    should(results[2].closed.month).match({ energy: 3 });
    should(state.week!.energy).equal(2);
    should(iso(state.week!.from)).equal('2026-03-29T22:00:00.000Z'); // Monday 00:00 CEST
  });

  it('knows a local day can be 23 hours long (spring forward)', () => {
    const day = periodBounds('day', Date.parse('2026-03-29T12:00:00Z'), 'Europe/London');
    should(day.to - day.from).equal(23 * 3600e3);
    should(iso(day.from)).equal('2026-03-29T00:00:00.000Z');
  });

  it('ignores and reports a duplicate or an older reading, leaving totals as they were', () => {
    const { state } = feed(newTotals('UTC', 't1'), [['2026-03-04T10:00:00Z', 100], ['2026-03-04T11:00:00Z', 101]]);
    const dup = addReading(state, { ts: Date.parse('2026-03-04T11:00:00Z'), value: 200 }, flatCost);
    should(dup.ignored).equal('duplicate');
    should(dup.state).equal(state);
    const old = addReading(state, { ts: Date.parse('2026-03-04T10:30:00Z'), value: 50 }, flatCost);
    should(old.ignored).equal('out_of_order');
    should(old.state.day!.energy).equal(1);
  });

  it('does not change the state it was given', () => {
    const { state } = feed(newTotals('UTC', 't1'), [['2026-03-04T10:00:00Z', 100]]);
    const before = JSON.stringify(state);
    addReading(state, { ts: Date.parse('2026-03-05T10:00:00Z'), value: 105 }, flatCost);
    should(JSON.stringify(state)).equal(before);
  });

  it('counts a counter reset as 0 kWh and continues from the new value', () => {
    const { state } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100], ['2026-03-04T11:00:00Z', 3], ['2026-03-04T12:00:00Z', 5],
    ]);
    should(state.day).match({ energy: 2, resets: 1, intervals: 2 });
  });

  describe('restoreTotals', () => {
    const saved = feed(newTotals('Asia/Kolkata', 't1'), [['2026-03-04T10:00:00Z', 1], ['2026-03-04T11:00:00Z', 2]]).state;

    it('restores a stored state of the same tariff and zone', () => {
      const restored = restoreTotals(JSON.parse(JSON.stringify(saved)), 'Asia/Kolkata', 't1');
      should(restored.problem).be.null();
      should(restored.state).eql(saved);
    });

    it('starts from zero, silently, when nothing was stored', () => {
      should(restoreTotals(undefined, 'UTC', 't1')).eql({ state: newTotals('UTC', 't1'), problem: null });
    });

    it('starts from zero and says why for unreadable, foreign or other-zone totals', () => {
      for (const garbage of ['x', 42, {}, { ...saved, version: 2 }, { ...saved, day: { ...saved.day, net: 'NaN' } }, { ...saved, day: null }]) {
        should(restoreTotals(garbage, 'Asia/Kolkata', 't1').problem).equal('stored totals are unreadable');
      }
      should(restoreTotals(saved, 'Asia/Kolkata', 't2').problem).equal('stored totals belong to tariff "t1"');
      should(restoreTotals(saved, 'UTC', 't1').problem).equal('stored totals were counted in Asia/Kolkata');
      should(restoreTotals(saved, 'UTC', 't1').state.last).be.null();
    });
  });
});
