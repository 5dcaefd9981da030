import should from 'should';
import fc from 'fast-check';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import {
  addReading,
  IntervalCost,
  MAX_KEPT,
  newTotals,
  periodBounds,
  Reading,
  TotalsState,
  WINDOW_MS,
} from '../../nodes/lib/engine/cost/totals';
import { plainTotals, restoreTotals, StoredTotals } from '../../nodes/lib/engine/cost/stored-totals';
import { judgePeriod, MIDNIGHT_CASES } from './local-period-reference';

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
    should(results[0].change).eql({ energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0 });
    should(state.day!.energy).equal(0);
    should(iso(state.day!.from)).equal('2026-03-04T00:00:00.000Z');
    should(iso(state.week!.from)).equal('2026-03-02T00:00:00.000Z'); // the Monday
    should(iso(state.month!.from)).equal('2026-03-01T00:00:00.000Z');
    should(iso(state.total!.from)).equal('2026-03-04T10:00:00.000Z');
  });

  it('adds each interval to day, week, month and total', () => {
    const { state, results } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100],
      ['2026-03-04T11:00:00Z', 101.5],
      ['2026-03-04T12:00:00Z', 104],
    ]);
    for (const b of [state.day!, state.week!, state.month!, state.total!]) {
      should(b).match({ energy: 4, net: 8, intervals: 2 });
      should(b.gross).be.approximately(8.8, 1e-9);
    }
    should(results[2].change).match({ energy: 2.5, net: 5 });
  });

  it('resets today at local midnight of a non-UTC zone, not at UTC midnight', () => {
    // Asia/Kolkata is UTC+05:30: local midnight of 5 March is 18:30Z on 4 March.
    const { state, results } = feed(newTotals('Asia/Kolkata', 't1'), [
      ['2026-03-04T18:00:00Z', 10],
      ['2026-03-04T18:29:00Z', 12],
      ['2026-03-04T18:30:00Z', 15], // 180 kW: a rise rule 10 takes (3 kWh in 1 s would be a jump)
      ['2026-03-04T19:00:00Z', 16],
    ]);
    should(results[1].closed).eql({});
    should(results[2].closed.day).match({ energy: 5, intervals: 2 }); // the interval starting 18:29 counts for the 4th
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

  it('knows where days, weeks and months start and end where a zone changes its clock at or near midnight', () => {
    for (const c of MIDNIGHT_CASES) {
      for (const name of ['day', 'week', 'month'] as const) {
        const verdict = judgePeriod(c.zone, name, Date.parse(c.at), periodBounds(name, Date.parse(c.at), c.zone));
        should(verdict.kind).equal('ok', `${c.zone} ${name} of ${c.at}: ${JSON.stringify(verdict)}`);
      }
      if (c.day) {
        const day = periodBounds('day', Date.parse(c.at), c.zone);
        should([iso(day.from), iso(day.to)]).eql(
          c.day.map((s) => iso(Date.parse(s))),
          `${c.zone} ${c.at}`,
        );
      }
    }
  });

  it('counts nothing for an interval with which a sum would not be finite, and says so', () => {
    const flat = { id: 'f', name: 'f', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 1 }] };
    const priced = (from: Reading, to: Reading): IntervalCost => {
      const r = computeCost(
        flat,
        [
          [from.ts, from.value],
          [to.ts, to.value],
        ],
        { timezone: 'UTC', maxPowerKw: Infinity },
      );
      return { energy: r.energy, net: r.net, gross: r.gross, unpricedEnergy: r.unpricedEnergy, resets: r.resets.length };
    };
    let state = newTotals('UTC', 'f');
    const t0 = Date.parse('2026-01-01T10:00:00Z');
    const results = [0, 7e307, 1.4e308, 1.79e308].map((value, i) => {
      // jumps off (maxPowerKw Infinity): by default each of these rises is a jump (rule 10)
      const added = addReading(state, { ts: t0 + i * 60_000, value }, priced, MAX_KEPT, false, Infinity);
      state = added.state;
      return added;
    });
    should(results.map((r) => r.rejected)).eql([undefined, undefined, undefined, 'overflow']); // gross would pass 1.8e308
    for (const b of [state.day!, state.week!, state.month!, state.total!]) {
      for (const sum of [b.energy, b.net, b.gross, b.unpricedEnergy]) should(Number.isFinite(sum)).be.true();
    }
    should(state.total!.energy).equal(1.4e308);
    should(restoreTotals(JSON.parse(JSON.stringify(plainTotals(state))), 'UTC', 'f').problem).be.null(); // still restorable
  });

  it('ignores a duplicate; a reading at a kept instant with another value replaces it', () => {
    const { state } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100],
      ['2026-03-04T11:00:00Z', 101],
    ]);
    const dup = addReading(state, { ts: Date.parse('2026-03-04T11:00:00Z'), value: 101 }, flatCost);
    should(dup.ignored).equal('duplicate');
    should(dup.state).equal(state);
    const fixed = addReading(state, { ts: Date.parse('2026-03-04T11:00:00Z'), value: 103 }, flatCost);
    should(fixed).match({ replaced: true, late: true, change: { energy: 2 } });
    should(fixed.state.day).match({ energy: 3, intervals: 1 });
  });

  it('places a late reading in the interval it falls into', () => {
    const { state, results } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100],
      ['2026-03-04T12:00:00Z', 104],
      ['2026-03-04T11:00:00Z', 101],
      ['2026-03-04T09:00:00Z', 99],
    ]);
    should(results[2]).match({ late: true, change: { energy: 0 } });
    should(results[3]).match({ late: true, change: { energy: 1 } });
    should(state.day).match({ energy: 5, intervals: 3 });
    should(new Date(state.total!.from).toISOString()).equal('2026-03-04T09:00:00.000Z');
  });

  it('changes a closed day no more: a late reading of yesterday counts in week, month and total only', () => {
    const { state } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T20:00:00Z', 0],
      ['2026-03-04T22:00:00Z', 2],
      ['2026-03-05T01:00:00Z', 5],
      ['2026-03-05T02:00:00Z', 6],
    ]);
    const late = addReading(state, { ts: Date.parse('2026-03-04T23:00:00Z'), value: 3 }, flatCost);
    // 22:00 -> 01:00 counted for the 4th becomes 22:00 -> 23:00 (4th) and 23:00 -> 01:00 (4th): today is untouched
    should(late.state.day).match({ energy: 1, intervals: 1 });
    should(late.state.total).match({ energy: 6, intervals: 4 });
  });

  it('refuses a reading from before the window, keeping the state small', () => {
    const t0 = Date.parse('2026-03-04T00:00:00Z');
    let state = newTotals('UTC', 't1');
    for (let i = 0; i <= 50; i++) state = addReading(state, { ts: t0 + i * 3600e3, value: i }, flatCost).state;
    should(state.kept).have.length(50); // 48 h of hourly readings, the first of them exactly at the window's start, and the one before
    should(addReading(state, { ts: t0 + 50 * 3600e3 - WINDOW_MS - 1, value: 1.5 }, flatCost).ignored).equal('too_late');
    should(state.total).match({ energy: 50, intervals: 50 });
    let many = newTotals('UTC', 't1');
    for (let i = 0; i < 30; i++) many = addReading(many, { ts: t0 + i * 1000, value: i }, flatCost, 20).state;
    should(many.kept).have.length(20);
    should(many.total).match({ energy: 29, intervals: 29 });
    should(MAX_KEPT).be.within(2 * 24 * 60, 5000); // a reading a minute fits the window
  });

  it('never counts again a re-sent reading older than the kept ones, though inside the window (10 s cadence)', () => {
    // 3,010 readings 10 s apart: the oldest were let go (MAX_KEPT), all lie well inside WINDOW_MS
    const t0 = Date.parse('2026-03-04T00:00:00Z');
    let state = newTotals('UTC', 't1');
    for (let i = 0; i < MAX_KEPT + 10; i++) state = addReading(state, { ts: t0 + i * 10_000, value: i * 0.012 }, flatCost).state;
    should(state.kept).have.length(MAX_KEPT);
    const total = { ...state.total! };
    for (const i of [0, 5, 9]) {
      const again = addReading(state, { ts: t0 + i * 10_000, value: i * 0.012 }, flatCost);
      should(again).match({ ignored: 'too_late', state });
      should(again.change.energy).equal(0);
    }
    // the oldest kept reading itself: the same value is a duplicate, another value cannot be placed
    const [oldestTs, oldestValue] = [state.kept.ts(0), state.kept.value(0)];
    should(addReading(state, { ts: oldestTs, value: oldestValue }, flatCost).ignored).equal('duplicate');
    should(addReading(state, { ts: oldestTs, value: oldestValue + 1 }, flatCost).ignored).equal('too_late');
    // one between kept readings still splits its interval
    should(addReading(state, { ts: state.kept.ts(1) - 5000, value: state.kept.value(1) }, flatCost)).match({
      late: true,
      change: { energy: 0 },
    });
    should(state.total).eql(total);
    should(state.total!.from).equal(t0);
  });

  it('ends with the same totals whatever the order of the same readings of a meter, resets and duplicates included (property)', () => {
    const zone = 'America/New_York';
    const tariff = {
      id: 'N',
      name: 'n',
      vat: 20,
      currency: 'USD',
      rules: [
        { priority: 1, price: 0.1, time_start: '22:00', time_end: '06:00' },
        { priority: 2, price: 0.3 },
      ],
    };
    const costOf = (a: Reading, b: Reading): IntervalCost => {
      const r = computeCost(
        tariff,
        [
          [a.ts, a.value],
          [b.ts, b.value],
        ],
        { timezone: zone },
      );
      return { energy: r.energy, net: r.net, gross: r.gross, unpricedEnergy: r.unpricedEnergy, resets: r.resets.length };
    };
    const start = Date.parse('2026-03-07T12:00:00Z'); // a Saturday: crosses a local midnight, a week start and DST
    const readings = fc.uniqueArray(fc.integer({ min: 0, max: 40 * 60 }), { minLength: 2, maxLength: 30 }).map((minutes) =>
      // a counter reset every 7th reading but the last: the meter goes on 900 kWh lower, so
      // each reset is decided (a drop at the very end is held, counted nowhere yet); a single
      // low reading would be a glitch, and one that comes first is any stream's first reading
      minutes
        .sort((a, b) => a - b)
        .map((m, i, all) => ({
          ts: start + m * 60_000,
          value: 10_000 + i * 1.5 - 900 * Math.floor((Math.min(i, all.length - 2) + 1) / 7),
        })),
    );
    const arrival = readings.chain((rs) => fc.tuple(fc.constant(rs), fc.shuffledSubarray([...rs, ...rs], { minLength: 2 * rs.length })));
    const sums = (s: TotalsState) =>
      [s.day, s.week, s.month, s.total].map((b) => b && [b.from, b.to, b.energy, b.net, b.gross, b.resets, b.intervals]);
    fc.assert(
      fc.property(arrival, ([inOrder, shuffled]) => {
        const run = (rs: Reading[]) => rs.reduce((s, r) => addReading(s, r, costOf).state, newTotals(zone, 'N'));
        const a = sums(run(inOrder));
        const b = sums(run(shuffled));
        a.forEach((row, i) => row!.forEach((x, j) => should(b[i]![j]).be.approximately(x as number, 1e-9)));
      }),
      { seed: 20261121, numRuns: 150 },
    );
  });

  it('owned (stream mode): every result exactly as with a copied state, on shuffled, late, duplicate and too-old readings past the window limit', () => {
    const start = Date.parse('2026-03-28T20:00:00Z'); // London's spring-forward night
    const arrivals = fc.array(
      fc.record({ minutes: fc.integer({ min: 0, max: 3 * 24 * 60 }), value: fc.integer({ min: 0, max: 400 }), repeat: fc.boolean() }),
      { minLength: 2, maxLength: 120 },
    );
    const maxKept = fc.constantFrom(2, 5, 40, MAX_KEPT);
    fc.assert(
      fc.property(arrivals, maxKept, (list, limit) => {
        let copied = newTotals('Europe/London', 'N');
        let owned = newTotals('Europe/London', 'N');
        for (const a of list) {
          for (let times = a.repeat ? 2 : 1; times > 0; times--) {
            const r = { ts: start + a.minutes * 60_000, value: a.value / 4 };
            const before = JSON.stringify(copied);
            const x = addReading(copied, r, flatCost, limit);
            should(JSON.stringify(copied)).equal(before); // not owned: never changed
            const y = addReading(owned, r, flatCost, limit, true);
            should(JSON.stringify(y)).equal(JSON.stringify(x));
            copied = x.state;
            owned = y.state;
          }
        }
      }),
      { seed: 20261125, numRuns: 400 },
    );
  });

  it('does not change the state it was given', () => {
    const { state } = feed(newTotals('UTC', 't1'), [['2026-03-04T10:00:00Z', 100]]);
    const before = JSON.stringify(state);
    addReading(state, { ts: Date.parse('2026-03-05T10:00:00Z'), value: 105 }, flatCost);
    should(JSON.stringify(state)).equal(before);
  });

  it('counts a counter reset as 0 kWh and continues from the new value', () => {
    const { state } = feed(newTotals('UTC', 't1'), [
      ['2026-03-04T10:00:00Z', 100],
      ['2026-03-04T11:00:00Z', 3],
      ['2026-03-04T12:00:00Z', 5],
    ]);
    should(state.day).match({ energy: 2, resets: 1, intervals: 2 });
  });

  describe('restoreTotals', () => {
    const saved = plainTotals(
      feed(newTotals('Asia/Kolkata', 't1'), [
        ['2026-03-04T10:00:00Z', 1],
        ['2026-03-04T11:00:00Z', 2],
      ]).state,
    ) as StoredTotals;

    it('restores a stored state of the same tariff and zone', () => {
      const restored = restoreTotals(JSON.parse(JSON.stringify(saved)), 'Asia/Kolkata', 't1');
      should(restored.problem).be.null();
      should(plainTotals(restored.state)).eql(saved);
    });

    it('starts from zero, silently, when nothing was stored', () => {
      should(restoreTotals(undefined, 'UTC', 't1')).eql({ state: newTotals('UTC', 't1'), problem: null });
    });

    it('starts from zero and says why for unreadable, foreign or other-zone totals', () => {
      const garbage = [
        'x',
        42,
        {},
        { ...saved, version: 2 },
        { ...saved, day: { ...saved.day, net: 'NaN' } },
        { ...saved, day: null },
        { ...saved, kept: [...saved.kept].reverse() },
        { ...saved, costs: [] },
        {
          ...saved,
          kept: [
            [1, 'x'],
            [2, 3],
          ],
        },
      ];
      for (const stored of garbage) {
        should(restoreTotals(stored, 'Asia/Kolkata', 't1').problem).equal('stored totals are unreadable');
      }
      should(restoreTotals(saved, 'Asia/Kolkata', 't2').problem).equal('stored totals belong to tariff "t1"');
      should(restoreTotals(saved, 'UTC', 't1').problem).equal('stored totals were counted in Asia/Kolkata');
      should(restoreTotals(saved, 'UTC', 't1').state.kept.length).equal(0);
    });
  });
});
