// compareTariffs: every valid tariff costed on the same readings, cheapest first within
// a currency; each row against the slow evaluation, the order checked as a property.
import should from 'should';
import fc from 'fast-check';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import { compareChart } from '../../nodes/lib/runtime/cost/cost-compare';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC, tariffArb, slowCost, DST_ZONES, Timeline, readingsWithResetsArb } from './engine-fixtures';

const close = (actual: number, expected: number) =>
  should(Math.abs(actual - expected)).be.belowOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
const ZONES = [...DST_ZONES, 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago'];

const readingsArb = readingsWithResetsArb(30000, 720, 20);

const caseArb = fc.record({
  tariffs: fc
    .array(fc.tuple(tariffArb, fc.constantFrom('EUR', 'GBP'), fc.integer({ min: 0, max: 25 }), fc.boolean()), { maxLength: 6 })
    .map((list) => list.map(([t, currency, vat, broken], k) => ({ ...t, id: `T${k}`, currency, vat, ...(broken ? { rules: [] } : {}) }))),
  zone: fc.constantFrom(...ZONES),
  rows: readingsArb,
  timeline: fc.array(
    fc.tuple(fc.integer({ min: Date.UTC(2019, 0, 1) / 60000, max: Date.UTC(2031, 0, 1) / 60000 }), fc.constantFrom(0, 1)),
    {
      maxLength: 5,
    },
  ),
});

describe('compareTariffs: against the slow evaluation (fast-check, fixed seed)', () => {
  it('one row per valid tariff with its own cost; currencies in order of first appearance, gross ascending in each', () => {
    fc.assert(
      fc.property(caseArb, ({ tariffs, zone, rows, timeline }) => {
        const sensorTimeline: Timeline = timeline.map(([m, v]): [number, number] => [m * 60000, v]).sort((a, b) => a[0] - b[0]);
        const table = compareTariffs(tariffs, rows, { timezone: zone, sensors: { gw: { 1: sensorTimeline } } });
        const valid = tariffs.filter((t) => t.rules.length > 0);
        should(table.map((r) => r.tariffId).sort()).eql(valid.map((t) => t.id).sort());
        should(table.problems.filter((p) => p.severity === 'error').map((p) => p.tariffId)).eql(
          tariffs.filter((t) => t.rules.length === 0).map((t) => t.id),
        );
        for (const row of table) {
          const tariff = valid.find((t) => t.id === row.tariffId) as Tariff;
          const slow = slowCost(tariff, rows, zone, sensorTimeline);
          close(row.net, slow.net);
          close(row.gross, slow.net * (1 + tariff.vat / 100));
          close(row.energy, slow.energy);
          close(row.unpricedEnergy, slow.unpriced);
          should(row.currency).equal(tariff.currency);
          should(row.name).equal(tariff.name);
        }
        const currencies: string[] = [...new Set(valid.map((t) => t.currency))];
        should([...new Set(table.map((r) => r.currency))]).eql(currencies);
        for (let k = 1; k < table.length; k++) {
          const [a, b] = [table[k - 1], table[k]];
          if (a.currency === b.currency) should(a.gross).be.belowOrEqual(b.gross);
          else should(currencies.indexOf(a.currency)).be.below(currencies.indexOf(b.currency));
        }
      }),
      { ...FC, numRuns: 400 },
    );
  });
});

describe('compareTariffs: worked by hand', () => {
  const rows: Array<[number, number]> = [
    [Date.UTC(2024, 0, 8, 6), 0], // Monday, London = UTC in January
    [Date.UTC(2024, 0, 8, 8), 4], // 4 kWh night
    [Date.UTC(2024, 0, 8, 18), 14], // 10 kWh day
  ];
  const flat: Tariff = { id: 'flat', name: 'Flat', vat: 5, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] };
  const night: Tariff = {
    id: 'night',
    name: 'Night saver',
    vat: 5,
    currency: 'GBP',
    rules: [
      { priority: 1, price: 0.1, time_start: '00:00', time_end: '07:00' },
      { priority: 2, price: 0.3 },
    ],
  };
  const euro: Tariff = { id: 'eu', name: 'Euro', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.01 }] };

  it('night 4 × 0.10 + 10 × 0.30 = 3.40 beats flat 14 × 0.25 = 3.50 (the 06:00 interval priced at its start); the euro tariff is ranked on its own', () => {
    const table = compareTariffs([night, euro, flat, { id: 'bad', rules: [] }], rows, { timezone: 'Europe/London' });
    should(table.map((r) => r.tariffId)).eql(['night', 'flat', 'eu']);
    close(table[0].net, 3.4);
    close(table[0].gross, 3.57);
    close(table[1].net, 3.5);
    close(table[2].gross, 0.14);
    should(table[0]).have.keys('tariffId', 'name', 'currency', 'vat', 'net', 'gross', 'energy', 'unpricedEnergy');
    should(table.problems.length).be.above(0);
    should(table.problems.every((p) => p.tariffId === 'bad' && p.severity === 'error')).be.true();
  });

  it('takes the API answer as JSON text; equal gross keeps the given order', () => {
    const twin = { ...flat, id: 'twin' };
    should(compareTariffs(JSON.stringify([twin, flat]), rows, { timezone: 'UTC' }).map((r) => r.tariffId)).eql(['twin', 'flat']);
  });

  it('bad input: the same clear errors as computeCost; no tariffs: an empty table with the problem', () => {
    should(() => compareTariffs([flat], 'x' as never, { timezone: 'UTC' })).throw(TypeError, { message: /readings must be an array/ });
    should(() => compareTariffs([flat], rows, { timezone: 'Mars/Base' })).throw(/unknown time zone/);
    const none = compareTariffs('not json', rows, { timezone: 'UTC' });
    should(none.length).equal(0);
    should(none.problems[0].message).match(/not JSON/);
  });
});

describe("compare mode's bars (compareChart)", () => {
  const row = (tariffId: string, name: string | null, currency: string, gross: number) => ({
    tariffId,
    name,
    currency,
    vat: 0,
    net: gross,
    gross,
    energy: 1,
    unpricedEnergy: 0,
  });

  it("one series per currency, each saying its currency; a bar per tariff named by its name, its id where the name is missing or shared; the user's own marked", () => {
    const chart = compareChart(
      [row('A', 'Night', 'GBP', 1.234), row('B', 'Saver', 'GBP', 2), row('C', 'Saver', 'GBP', 3), row('D', null, 'EUR', 4.5)],
      'B',
    );
    should(chart).eql([
      {
        topic: 'gross cost (GBP)',
        currency: 'GBP',
        action: 'replace',
        payload: [
          { x: 'Night', y: 1.23 },
          { x: 'Yours: Saver (B)', y: 2 },
          { x: 'Saver (C)', y: 3 },
        ],
      },
      { topic: 'gross cost (EUR)', currency: 'EUR', action: 'append', payload: [{ x: 'D', y: 4.5 }] },
    ]);
    // without a tariff of its own nothing is marked
    should(JSON.stringify(compareChart([row('A', 'Night', 'GBP', 1)]))).not.match(/yours/i);
  });
});
