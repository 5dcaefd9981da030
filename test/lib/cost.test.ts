import should from 'should';
import fc from 'fast-check';
import moment from 'moment-timezone';
import * as fs from 'fs';
import * as path from 'path';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { schedule } from '../../nodes/lib/engine/prices/price-source';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC, withProcessTz, workdayTariff, tariffArb, slowCost, DST_ZONES, Timeline, readingsWithResetsArb } from './engine-fixtures';

const LONDON = { timezone: 'Europe/London' };
const london = (y: number, mo: number, d: number, h = 0, mi = 0) => moment.tz([y, mo - 1, d, h, mi], 'Europe/London').valueOf();
const tariffOf = (...rules: Rule[]): Tariff => ({ id: 'C', name: 'c', vat: 20, currency: 'EUR', rules });
const flat = (price = 0.25) => tariffOf({ priority: 1, price });
const close = (actual: number, expected: number) =>
  should(Math.abs(actual - expected)).be.belowOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
const HOUR = 3600000;

describe('cost: readings (semantics rule 8)', () => {
  it('takes epoch ms, Date and ISO strings, as pairs or { ts, value } objects, alike', () => {
    const base = Date.UTC(2024, 0, 8, 8);
    const pairs: Array<[number, number]> = [
      [base, 10],
      [base + HOUR, 11],
      [base + 2 * HOUR, 13],
    ];
    const expected = computeCost(workdayTariff(), pairs, LONDON);
    const shapes: unknown[][] = [
      pairs.map(([t, v]) => [new Date(t), v]),
      pairs.map(([t, v]) => [new Date(t).toISOString(), v]),
      pairs.map(([t, v]) => ({ ts: t, value: v })),
      pairs.map(([t, v]) => ({ ts: new Date(t).toISOString().slice(0, 19), value: String(v) })),
    ];
    for (const rows of shapes) should(computeCost(workdayTariff(), rows, LONDON)).eql(expected);
    should(expected.net).equal(1 * 0.6 + 2 * 0.5); // 08:00 prices at 60, 09:00 at 50
  });

  it('reads an ISO string without offset as UTC, whatever the process TZ', () => {
    // London is UTC in January: 08:59 is rule 60, 09:00 rule 50
    const rows = [
      ['2024-01-08T08:59:00', 0],
      ['2024-01-08T09:00:00', 1],
      ['2024-01-08T09:01:00', 3],
    ];
    for (const tz of ['Pacific/Chatham', 'America/St_Johns']) {
      const r = withProcessTz(tz, () => computeCost(workdayTariff(), rows, LONDON));
      should(r.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
        [0, 2],
        [1, 1],
      ]);
      should(r.from).equal(Date.UTC(2024, 0, 8, 8, 59));
    }
  });
});

describe('cost: cleaning (semantics rule 9)', () => {
  const t0 = Date.UTC(2024, 0, 8, 12);
  it('drops rows whose timestamp or value does not parse, listing each', () => {
    const rows = [
      [t0, 1],
      ['yesterday', 2],
      [t0 + HOUR, 'lots'],
      42,
      null,
      [t0 + 2 * HOUR, 3],
      { ts: t0 + 3 * HOUR },
      [t0 + 4 * HOUR, NaN],
    ];
    const r = computeCost(flat(), rows, LONDON);
    should(r.dropped).eql([
      { index: 1, ts: 'yesterday', value: 2, reason: 'timestamp' },
      { index: 2, ts: t0 + HOUR, value: 'lots', reason: 'value' },
      { index: 3, ts: undefined, value: undefined, reason: 'row' },
      { index: 4, ts: undefined, value: undefined, reason: 'row' },
      { index: 6, ts: t0 + 3 * HOUR, value: undefined, reason: 'value' },
      { index: 7, ts: t0 + 4 * HOUR, value: NaN, reason: 'value' },
    ]);
    should(r).match({ energy: 2, intervals: 1, from: t0, to: t0 + 2 * HOUR });
  });

  it('sorts by time, stably, and says it did', () => {
    const sorted: Array<[number, number]> = [
      [t0, 1],
      [t0 + HOUR, 2],
      [t0 + 2 * HOUR, 4],
    ];
    const r = computeCost(workdayTariff(), [sorted[2], sorted[0], sorted[1]], LONDON);
    should(r.reordered).be.true();
    should({ ...r, reordered: false }).eql(computeCost(workdayTariff(), sorted, LONDON));
    should(computeCost(workdayTariff(), sorted, LONDON).reordered).be.false();
  });

  it('keeps the last of rows with the same timestamp, in input order, and lists the others', () => {
    const rows: Array<[number | string, number]> = [
      [t0, 1],
      [t0 + HOUR, 5],
      [new Date(t0 + HOUR).toISOString(), 3],
      [t0 + 2 * HOUR, 4],
      [t0 + HOUR, 2],
    ];
    const r = computeCost(flat(1), rows, LONDON);
    should(r.energy).equal(3); // 1 -> 2 -> 4
    should(r.dropped).eql([
      { index: 1, ts: t0 + HOUR, value: 5, reason: 'duplicate' },
      { index: 2, ts: new Date(t0 + HOUR).toISOString(), value: 3, reason: 'duplicate' },
    ]);
    should(r.intervals).equal(2);
  });
});

describe('cost: usage, resets and rejected intervals (semantics rule 10)', () => {
  const t0 = Date.UTC(2024, 0, 13, 12); // a Saturday: everything at 0.7
  it('a drop the meter goes on from is a counter reset: 0 kWh, listed; a drop at the end is pending, counted nowhere', () => {
    const r = computeCost(
      workdayTariff(),
      [
        [t0, 100],
        [t0 + HOUR, 105],
        [t0 + 2 * HOUR, 2],
        [t0 + 3 * HOUR, 4],
        [t0 + 4 * HOUR, 3.999],
      ],
      LONDON,
    );
    should(r.energy).equal(5 + 2);
    close(r.net, 7 * 0.7);
    should(r.resets).eql([{ from: t0 + HOUR, to: t0 + 2 * HOUR, fromValue: 105, toValue: 2, kind: 'reset' }]);
    should(r.pending).eql([{ ts: t0 + 4 * HOUR, value: 3.999, kind: 'low' }]);
    should(r.glitches).eql([]);
    should(r.intervals).equal(4);
  });

  it('a reading of 0 (or 10x the register) between readings every 10 s is a glitch, not a reset (the field case)', () => {
    const s = 10_000;
    for (const odd of [0, 123_450, -12_345]) {
      const rows = Array.from({ length: 12 }, (_, i): [number, number] => [t0 + i * s, i === 3 ? odd : 12_345 + (4.6 * i) / 11]);
      const r = computeCost(flat(0.2), rows, LONDON);
      close(r.energy, 4.6); // was 12,349.6 kWh (£2,469) with a 0, 111,117 with 10x
      close(r.net, 4.6 * 0.2);
      should(r.glitches).eql([{ ts: t0 + 3 * s, value: odd, kind: odd < 12_345 ? 'low' : 'high' }]);
      should(r).match({ resets: [], rejected: [], pending: [], intervals: 11 });
    }
  });

  it('maxPowerKw: a rise faster than it is a jump, a glitch when the meter goes on from before it (at the limit is usage)', () => {
    const rows: Array<[number, number]> = [
      [t0, 0],
      [t0 + HOUR / 2, 5],
      [t0 + HOUR, 10.0001],
      [t0 + 2 * HOUR, 10.5],
    ];
    const r = computeCost(workdayTariff(), rows, { ...LONDON, maxPowerKw: 10 });
    should(r.glitches).eql([{ ts: t0 + HOUR, value: 10.0001, kind: 'high' }]);
    should(r).match({ rejected: [], resets: [], pending: [] });
    close(r.energy, 10.5); // 5 kWh in half an hour is exactly 10 kW: not above the limit
    should(computeCost(workdayTariff(), rows, LONDON)).match({ energy: 10.5, glitches: [] });
  });

  it('maxPowerKw: a jump the meter goes on from is a swap (0 kWh, listed); Infinity counts it', () => {
    const rows: Array<[number, number]> = [
      [t0, 100],
      [t0 + 60_000, 80_000], // 80 MWh in a minute: no connection draws that
      [t0 + 120_000, 80_000.1],
    ];
    const r = computeCost(flat(), rows, LONDON);
    should(r.resets).eql([{ from: t0, to: t0 + 60_000, fromValue: 100, toValue: 80_000, kind: 'swap' }]);
    close(r.energy, 0.1);
    close(computeCost(flat(), rows, { ...LONDON, maxPowerKw: Infinity }).energy, 79_900.1);
  });

  it('a meter swapped for one that counts on from a low base counts what the new meter counts', () => {
    const rows: Array<[number, number]> = [0, 1, 2, 3, 4, 5].map((i) => [t0 + i * 60_000, i < 3 ? 12_345 + i / 10 : 7 + i / 10]);
    const r = computeCost(flat(), rows, LONDON);
    close(r.energy, 0.2 + 0.2);
    should(r.resets.map((x) => [x.fromValue, x.toValue, x.kind])).eql([[12_345.2, 7.3, 'reset']]);
  });
});

describe('cost: amounts that would overflow', () => {
  const finiteResult = (r: ReturnType<typeof computeCost>) => {
    for (const x of [r.net, r.gross, r.energy, r.unpricedEnergy, ...r.byRule.flatMap((b) => [b.energy, b.net])])
      should(Number.isFinite(x)).be.true();
  };

  it('rejects and lists an interval whose delta is not a finite number, never Infinity in the sums', () => {
    for (const attribution of ['start', 'prorate'] as const) {
      const r = computeCost(
        flat(),
        [
          [0, -1e308],
          [HOUR, 1e308],
        ],
        { ...LONDON, attribution, maxPowerKw: Infinity }, // jumps off: with them the rise is a jump, held
      );
      finiteResult(r);
      should(r).match({ energy: 0, net: 0, gross: 0, intervals: 1, resets: [] });
      should(r.rejected).have.length(1);
      should(r.rejected[0]).match({ from: 0, to: HOUR, fromValue: -1e308, toValue: 1e308, reason: 'overflow' });
    }
  });

  it('rejects the interval whose energy would make a sum or amount overflow, and counts the rest', () => {
    const r = computeCost(
      flat(2),
      [
        [0, 0],
        [HOUR, 1],
        [2 * HOUR, 1e308],
        [3 * HOUR, 1.5e308],
        [4 * HOUR, 1.5e308],
      ],
      { ...LONDON, maxPowerKw: Infinity },
    );
    finiteResult(r);
    should(r.energy).equal(1);
    should(r.rejected.map((x) => [x.from, x.reason])).eql([
      [HOUR, 'overflow'],
      [2 * HOUR, 'overflow'],
    ]);
    // a huge rate, and VAT, lower the energy that can be priced
    const pricey = computeCost(
      { ...tariffOf({ priority: 1, price: 1e300 }), vat: 1e6 },
      [
        [0, 0],
        [HOUR, 1e5],
        [2 * HOUR, 1e5 + 1],
      ],
      { ...LONDON, maxPowerKw: Infinity },
    );
    finiteResult(pricey);
    should(pricey.rejected.map((x) => x.from)).eql([0]);
    should(pricey.energy).equal(1);
  });

  it('keeps every sum finite and accounts for every interval, whatever the values (property)', () => {
    const extreme = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: -1e3, max: 1e3, noNaN: true }));
    fc.assert(
      fc.property(
        fc.array(extreme, { minLength: 2, maxLength: 30 }),
        extreme,
        fc.double({ min: -100, max: 1e300, noNaN: true }),
        fc.constantFrom('start', 'prorate'),
        (values, price, vat, attribution) => {
          const rows = values.map((v, i): [number, number] => [i * HOUR, v]);
          const t = { ...tariffOf({ priority: 1, price, time_start: '00:30', time_end: '01:30' }, { priority: 2, price: price / 3 }), vat };
          const r = computeCost(t, rows, { ...LONDON, attribution: attribution as 'start' | 'prorate' });
          finiteResult(r);
          should(r.intervals).equal(rows.length - 1);
          const counted = rows.length - 1 - r.resets.length - r.rejected.length;
          should(counted).be.aboveOrEqual(0);
          should(r.rejected.every((x) => x.reason === 'overflow')).be.true();
        },
      ),
      { ...FC, numRuns: 3000 },
    );
  });

  it('prorate refuses readings more than 100 years apart rather than walking every price change between them', () => {
    for (const rows of [
      [
        [0, 1],
        [1e300, 2],
      ],
      [
        [0, 1],
        [8.64e15, 2],
      ],
      [
        [-1e300, 1],
        [0, 2],
      ],
    ]) {
      should(() => computeCost(workdayTariff(), rows, { ...LONDON, attribution: 'prorate' })).throw(
        RangeError,
        /the readings span more than 100 years/,
      );
      should(computeCost(workdayTariff(), rows, LONDON).energy).equal(1); // 'start' prices each interval at its start
    }
  });
});

describe('cost: attribution (semantics rule 11)', () => {
  const straddle: Array<[number, number]> = [
    [london(2024, 1, 8, 8, 30), 0],
    [london(2024, 1, 8, 9, 30), 1],
  ];
  it('start (default): the rule at the interval start prices all of it', () => {
    const r = computeCost(workdayTariff(), straddle, LONDON);
    should(r.byRule).eql([{ ruleIndex: 1, priority: 60, price: 0.6, energy: 1, net: 0.6 }]);
    should(computeCost(workdayTariff(), straddle, { ...LONDON, attribution: 'start' })).eql(r);
  });

  it('prorate: split where the rule changes, energy in proportion to time', () => {
    const r = computeCost(workdayTariff(), straddle, { ...LONDON, attribution: 'prorate' });
    should(r.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
      [0, 0.5],
      [1, 0.5],
    ]);
    close(r.net, 0.5 * 0.5 + 0.5 * 0.6);
    // across a whole weekend night and into Monday: 70 until 00:00, 60 until 09:00, 50 after
    const long = computeCost(
      workdayTariff(),
      [
        [london(2024, 1, 14, 21), 0],
        [london(2024, 1, 15, 10), 13],
      ],
      { ...LONDON, attribution: 'prorate' },
    );
    should(long.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
      [0, 1],
      [1, 9],
      [2, 3],
    ]);
  });

  const genset = tariffOf(
    { priority: 1, price: 2, gateway_id: 'gw', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' },
    { priority: 2, price: 0.5 },
  );
  const t0 = Date.UTC(2024, 0, 8);
  const readings: Array<[number, number]> = [
    [t0, 0],
    [t0 + HOUR, 1],
    [t0 + 2 * HOUR, 2],
    [t0 + 3 * HOUR, 3],
  ];
  it('sensor timelines: an entry whose time is not an instant is a TypeError naming it', () => {
    should(() =>
      computeCost(genset, readings, {
        ...LONDON,
        sensors: {
          gw: {
            1: [
              [t0, 1],
              ['junk', 0],
            ] as Timeline,
          },
        },
      }),
    ).throw(TypeError, { message: /^sensors\.gw\.1\[1\]: timestamp must be/ });
  });

  it('sensor timelines: the value known at the interval start (last at or before it)', () => {
    const timeline = [
      [t0 + HOUR, 1],
      [t0 + 2.5 * HOUR, 0],
    ];
    const r = computeCost(genset, readings, { ...LONDON, sensors: { gw: { 1: timeline as Timeline } } });
    // interval 1 starts before any value (unknown -> fallback), 2 starts at the switch-on, 3 at 2h (still on)
    should(r.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
      [0, 2],
      [1, 1],
    ]);
    should(r.unknownSensors).eql([{ gatewayId: 'gw', sensorId: '1' }]);
    const prorated = computeCost(genset, readings, { ...LONDON, sensors: { gw: { 1: timeline as Timeline } }, attribution: 'prorate' });
    should(prorated.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
      [0, 1.5],
      [1, 1.5],
    ]);
  });

  it('sensor timelines take ISO strings, objects and out-of-order entries; a constant works too', () => {
    const timeline = [{ ts: new Date(t0 + 2.5 * HOUR).toISOString(), value: 0 }, [new Date(t0 + HOUR), 1]];
    const r = computeCost(genset, readings, { ...LONDON, sensors: { gw: { 1: timeline } } as never });
    should(r.byRule.map((b) => [b.ruleIndex, b.energy])).eql([
      [0, 2],
      [1, 1],
    ]);
    const on = computeCost(genset, readings, { ...LONDON, sensors: { gw: { 1: 1 } } });
    should(on.byRule.map((b) => [b.ruleIndex, b.energy])).eql([[0, 3]]);
    should(on.unknownSensors).eql([]);
  });
});

describe('cost: totals (semantics rule 12)', () => {
  it('net = sum of energy x price, gross = net x (1 + vat/100), full precision', () => {
    const t = { ...tariffOf({ priority: 1, price: 0.123456789 }), vat: 7.7 };
    const r = computeCost(
      t,
      [
        [0, 0],
        [HOUR, 0.001],
      ],
      LONDON,
    );
    should(r.net).equal(0.001 * 0.123456789);
    should(r.gross).equal(0.001 * 0.123456789 * 1.077);
    should(r).match({ vat: 7.7, currency: 'EUR' });
  });

  it('energy with no matching rule goes to unpricedEnergy, not into net', () => {
    const t = tariffOf({ priority: 1, price: 1, time_start: '09:00', time_end: '17:00' });
    const r = computeCost(
      t,
      [
        [london(2024, 1, 8, 8), 0],
        [london(2024, 1, 8, 9), 2],
        [london(2024, 1, 8, 10), 5],
      ],
      LONDON,
    );
    should(r).match({ net: 3, energy: 5, unpricedEnergy: 2 });
    should(r.byRule).eql([{ ruleIndex: 0, priority: 1, price: 1, energy: 3, net: 3 }]);
  });

  it('fewer than two readings cost nothing, with from/to as far as known', () => {
    should(computeCost(flat(), [], LONDON)).match({ net: 0, energy: 0, intervals: 0, from: null, to: null, byRule: [] });
    should(computeCost(flat(), [[5, 1]], LONDON)).match({ net: 0, intervals: 0, from: 5, to: 5 });
    should(computeCost(flat(), [['x', 1]], LONDON)).match({ net: 0, from: null, to: null, dropped: [{ index: 0 }] });
  });
});

describe('cost: the interface docs samples (test/fixtures)', () => {
  const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', name), 'utf8'));
  it('parses the sample tariffs cleanly and costs the sample data like the slow evaluation', () => {
    const { tariffs, problems } = parseTariffs(fixture('docs-tariffs.json'));
    should(problems).eql([]);
    const data: Array<[string, number]> = fixture('docs-data.json');
    const rows = data.map(([ts, v]): [number, number] => [Date.parse(`${ts}Z`), v]);
    for (const tariff of tariffs) {
      for (const timezone of ['Europe/London', 'Pacific/Chatham']) {
        const r = computeCost(tariff, data, { timezone });
        close(r.net, slowCost(tariff, rows, timezone).net);
        should(r).match({ from: rows[0][0], to: rows[rows.length - 1][0], dropped: [], currency: tariff.currency });
      }
    }
  });
});

describe('cost: bad input', () => {
  it('throws clear errors for a bad zone, tariff, readings or options', () => {
    should(() => computeCost(flat(), [], { timezone: 'Nowhere/Land' })).throw(/unknown time zone "Nowhere\/Land"/);
    const bad = { ...flat(), rules: [] };
    should(() => computeCost(bad, [], LONDON)).throw(TypeError, { message: parseTariffs([bad]).problems[0].message });
    should(() => computeCost(flat(), 'readings' as never, LONDON)).throw(TypeError, { message: /readings must be an array/ });
    should(() => computeCost(flat(), [], { ...LONDON, attribution: 'end' as never })).throw(TypeError, { message: /attribution/ });
    should(() => computeCost(flat(), [], { ...LONDON, maxPowerKw: -1 })).throw(TypeError, { message: /maxPowerKw/ });
    const genset = tariffOf({ priority: 1, price: 2, gateway_id: 'gw', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' });
    should(() => computeCost(genset, [], { ...LONDON, sensors: { gw: { 1: [['soon', 1]] } } as never })).throw(TypeError, {
      message: /sensors\.gw\.1\[0\]/,
    });
  });
});

// ---- properties ----------------------------------------------------------------

const MINUTE = 60000;
/** Sorted readings on a 30-second grid (tariff boundaries lie on it), with some resets. */
const readingsArb = (maxGapSlots: number) => readingsWithResetsArb(30000, maxGapSlots, 30);

/** Sensor changes anywhere (to the ms), or on the 30-second grid the prorate oracle splits on. */
const timelineArb = (rows: Array<[number, number]>, grid: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: (rows[0][0] - HOUR) / grid, max: rows[rows.length - 1][0] / grid }), fc.constantFrom(0, 1)), {
      maxLength: 4,
    })
    .map((events) => events.map(([at, v]): [number, number] => [at * grid, v]).sort((a, b) => a[0] - b[0]) as Timeline);

const costCase = (maxGapSlots: number, grid = 1) =>
  fc
    .tuple(tariffArb, fc.constantFrom(...DST_ZONES, 'UTC'), readingsArb(maxGapSlots))
    .chain(([tariff, zone, rows]) => timelineArb(rows, grid).map((timeline) => ({ tariff, zone, rows, timeline })));

describe('cost: properties (fast-check, fixed seed)', () => {
  it("'start' equals the slow per-interval evaluation", () => {
    fc.assert(
      fc.property(costCase(2 * 60 * 6), ({ tariff, zone, rows, timeline }) => {
        const r = computeCost(tariff, rows, { timezone: zone, sensors: { gw: { 1: timeline } } });
        const slow = slowCost(tariff, rows, zone, timeline);
        close(r.net, slow.net);
        close(r.energy, slow.energy);
        close(r.unpricedEnergy, slow.unpriced);
        close(r.gross, slow.net * 1.2);
        close(r.byRule.reduce((sum, b) => sum + b.energy, 0) + r.unpricedEnergy, r.energy);
      }),
      { ...FC, numRuns: 1500 },
    );
  });

  it("'prorate' equals the slow evaluation split on the 30-second grid", () => {
    fc.assert(
      fc.property(costCase(40, 30000), ({ tariff, zone, rows, timeline }) => {
        const r = computeCost(tariff, rows, { timezone: zone, sensors: { gw: { 1: timeline } }, attribution: 'prorate' });
        const slow = slowCost(tariff, rows, zone, timeline, 30000);
        close(r.net, slow.net);
        close(r.unpricedEnergy, slow.unpriced);
      }),
      { ...FC, numRuns: 1000 },
    );
  });

  it("'prorate' and 'start' agree when no interval straddles a boundary", () => {
    fc.assert(
      fc.property(
        tariffArb,
        fc.constantFrom(...DST_ZONES),
        fc.integer({ min: Date.UTC(2019, 0, 1) / MINUTE, max: Date.UTC(2031, 0, 1) / MINUTE }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.double({ min: 0, max: 3, noNaN: true }), { minLength: 200, maxLength: 200 }),
        (tariff, zone, startMinute, days, usage) => {
          const from = startMinute * MINUTE;
          // readings at every boundary of the schedule and in between
          const cuts = schedule(tariff, from, from + days * 86400000, { timezone: zone }).flatMap((e) => [e.from, (e.from + e.to) / 2]);
          let kwh = 0;
          const rows = cuts.map((t, k): [number, number] => [t, (kwh += usage[k % usage.length])]);
          const start = computeCost(tariff, rows, { timezone: zone });
          const prorate = computeCost(tariff, rows, { timezone: zone, attribution: 'prorate' });
          close(prorate.net, start.net);
          close(prorate.unpricedEnergy, start.unpricedEnergy);
        },
      ),
      { ...FC, numRuns: 1000 },
    );
  });

  it('is independent of input order and duplicated rows', () => {
    fc.assert(
      fc.property(
        costCase(2 * 60 * 6),
        fc.array(fc.nat(), { minLength: 1, maxLength: 10 }),
        fc.nat(),
        ({ tariff, zone, rows }, dupes, seed) => {
          const expected = computeCost(tariff, rows, { timezone: zone });
          const messy: unknown[] = rows.map(([t, v]) => [new Date(t).toISOString(), v]);
          for (const d of dupes) messy.push(rows[d % rows.length]); // same reading again, other shape
          for (let i = messy.length - 1; i > 0; i--) {
            // a seeded shuffle
            const j = (seed + i * 7919) % (i + 1);
            [messy[i], messy[j]] = [messy[j], messy[i]];
          }
          const r = computeCost(tariff, messy, { timezone: zone });
          close(r.net, expected.net);
          close(r.energy, expected.energy);
          should(r.dropped.length).equal(dupes.length);
          should(r.dropped.every((d) => d.reason === 'duplicate')).be.true();
          should(r.resets).eql(expected.resets);
        },
      ),
      { ...FC, numRuns: 1000 },
    );
  });

  it('total energy is the sum of the non-negative deltas', () => {
    fc.assert(
      fc.property(costCase(2 * 60 * 24), ({ tariff, zone, rows }) => {
        const r = computeCost(tariff, rows, { timezone: zone });
        let sum = 0;
        let resets = 0;
        for (let i = 1; i < rows.length; i++) {
          const delta = rows[i][1] - rows[i - 1][1];
          if (delta >= 0) sum += delta;
          else resets++;
        }
        close(r.energy, sum);
        should(r.resets).have.length(resets);
        should(r.intervals).equal(rows.length - 1);
      }),
      { ...FC, numRuns: 2000 },
    );
  });

  it('a flat tariff gives (last - first) x price on monotonic data (semantics rule 13)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.constantFrom(...DST_ZONES),
        readingsArb(10000),
        fc.constantFrom<'start' | 'prorate'>('start', 'prorate'),
        (price, zone, raw, attribution) => {
          let kwh = raw[0][1];
          const rows = raw.map(([t, v], i): [number, number] => [t, i === 0 ? kwh : (kwh += Math.abs(v - raw[i - 1][1]))]);
          const r = computeCost(flat(price), rows, { timezone: zone, attribution });
          close(r.net, (rows[rows.length - 1][1] - rows[0][1]) * price);
        },
      ),
      { ...FC, numRuns: 2000 },
    );
  });
});
