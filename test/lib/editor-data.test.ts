// lib/editor-data without Node-RED: rule rows as the dialogs show them, the chart's
// lines (each exactly the engine's schedule), local days across both DST changes.
import should from 'should';
import fc from 'fast-check';
import {
  chartData,
  connectionFailed,
  connectionOk,
  editorError,
  localDayStarts,
  ruleRow,
  samePrices,
  tariffList,
} from '../../nodes/lib/editor/editor-data';
import { EasyApiError } from '../../nodes/lib/api/client';
import { schedule, ScheduleEntry } from '../../nodes/lib/engine/prices/price-source';
import { FC } from './engine-fixtures';
import { parseTariffs, Tariff } from '../../nodes/lib/engine/tariff/tariff';

const HOUR = 3600e3;

function tariff(rules: object[], extra: object = {}): Tariff {
  const parsed = parseTariffs([{ id: 'T', name: 'test', vat: 10, currency: 'EUR', rules, ...extra }]);
  should(parsed.tariffs).have.length(1);
  return parsed.tariffs[0];
}

describe('editor data', () => {
  describe('rule rows', () => {
    it('time ranges: plain, past midnight, all day (equal ends and 00:00-24:00), none', () => {
      should(ruleRow({ priority: 1, price: 1, time_start: '09:00', time_end: '17:00:30' }, 0, 0).time).eql({
        start: '09:00',
        end: '17:00:30',
        wraps: false,
        allDay: false,
      });
      should(ruleRow({ priority: 1, price: 1, time_start: '22:00', time_end: '06:00' }, 0, 0).time).match({ wraps: true, allDay: false });
      should(ruleRow({ priority: 1, price: 1, time_start: '07:00', time_end: '07:00' }, 0, 0).time).match({ wraps: false, allDay: true });
      should(ruleRow({ priority: 1, price: 1, time_start: '00:00', time_end: '24:00' }, 0, 0).time).match({ wraps: false, allDay: true });
      should(ruleRow({ priority: 1, price: 1 }, 0, 0).time).be.null();
    });

    it('days under either spelling; weekdays wins over weekday; all seven = every day', () => {
      should(ruleRow({ priority: 1, price: 1, weekday: [7, 6] }, 0, 0)).match({ days: [6, 7], daysField: 'weekday', daysConflict: false });
      should(ruleRow({ priority: 1, price: 1, weekdays: [1], weekday: [6, 7] }, 0, 0)).match({
        days: [1],
        daysField: 'weekdays',
        daysConflict: true,
      });
      should(ruleRow({ priority: 1, price: 1, weekdays: [1, 2, 3, 4, 5, 6, 7] }, 0, 0).days).be.null();
    });

    it('gross with VAT; a condition other than eq never matches', () => {
      const row = ruleRow({ priority: 3, price: 0.2, gateway_id: 'G', sensor_id: '2', sensor_value: '1', sensor_condition: 'gt' }, 4, 19);
      should(row).match({
        index: 4,
        priority: 3,
        net: 0.2,
        sensor: { gatewayId: 'G', sensorId: '2', value: '1', condition: 'gt', never: true },
      });
      should(row.gross).be.approximately(0.238, 1e-12);
    });

    it('rows in evaluation order (stable for equal priorities), warnings kept with their tariff', () => {
      const parsed = parseTariffs([
        {
          id: 'A',
          name: 'a',
          vat: 0,
          currency: 'EUR',
          rules: [
            { priority: 9, price: 3 },
            { priority: 1, price: 1, weekdays: [] },
            { priority: 1, price: 2 },
          ],
        },
        { id: 'B', name: 'b', vat: 0, currency: 'EUR', rules: [] },
      ]);
      const list = tariffList(parsed, { fetchedAt: 5 });
      should(list.tariffs.map((t) => t.id)).eql(['A']);
      should(list.tariffs[0].rules.map((r) => r.index)).eql([1, 2, 0]);
      should(list.tariffs[0].problems.length).be.above(0);
      should(list.problems.some((p) => p.tariffId === 'B' && p.severity === 'error')).be.true();
    });
  });

  describe('chart', () => {
    it('local days across both DST changes (Europe/London): 23 h and 25 h days', () => {
      const spring = localDayStarts(Date.parse('2026-03-27T12:00:00Z'), 'Europe/London', 7);
      should(spring[3] - spring[2]).equal(23 * HOUR); // Sunday 29 March
      should(spring[2] - spring[1]).equal(24 * HOUR);
      const autumn = localDayStarts(Date.parse('2026-10-23T12:00:00Z'), 'Europe/London', 7);
      should(autumn[3] - autumn[2]).equal(25 * HOUR); // Sunday 25 October
      should(autumn[7] - autumn[0]).equal(7 * 24 * HOUR + HOUR);
    });

    it('Sao Paulo 2018: midnight did not exist, the day starts at 01:00', () => {
      const days = localDayStarts(Date.parse('2018-11-03T12:00:00Z'), 'America/Sao_Paulo', 2);
      should(new Date(days[1]).toISOString()).equal('2018-11-04T03:00:00.000Z'); // 01:00 -02:00
    });

    it('Azores 2024: a day that starts at 01:00 ends at the next midnight, a repeated midnight starts the day at its first pass', () => {
      const iso = (ms: number) => new Date(ms).toISOString();
      should(localDayStarts(Date.parse('2024-03-30T12:00:00Z'), 'Atlantic/Azores', 2).map(iso)).eql([
        '2024-03-30T01:00:00.000Z',
        '2024-03-31T01:00:00.000Z',
        '2024-04-01T00:00:00.000Z',
      ]);
      should(localDayStarts(Date.parse('2024-10-26T12:00:00Z'), 'Atlantic/Azores', 2).map(iso)).eql([
        '2024-10-26T00:00:00.000Z',
        '2024-10-27T00:00:00.000Z',
        '2024-10-28T01:00:00.000Z',
      ]);
    });

    it('two sensors: base with both at 0, a line per other value that changes a price', () => {
      const t = tariff([
        { priority: 1, price: 0.5, gateway_id: 'G', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' },
        { priority: 2, price: 0.3, gateway_id: 'G', sensor_id: '2', sensor_value: 2, sensor_condition: 'eq' },
        // same price as the fallback: its line would draw over the base one, so it is left out
        { priority: 3, price: 0.1, gateway_id: 'H', sensor_id: '9', sensor_value: 1, sensor_condition: 'eq' },
        { priority: 4, price: 0.1 },
      ]);
      const zone = 'Asia/Kolkata';
      const d = chartData(t, Date.parse('2026-03-27T12:00:00Z'), zone);
      // G/2=1 matches no rule and H/9=1 gives the fallback's price: neither changes the chart
      should(d.lines.map((l) => l.key)).eql(['base', 'G/1=1', 'G/2=2']);
      const base = { G: { '1': 0, '2': 0 }, H: { '9': 0 } };
      should(d.lines[0].segments).eql(schedule(t, d.from, d.to, { timezone: zone, sensors: base }));
      should(JSON.parse(JSON.stringify(d.lines[2].sensors))).eql({ G: { '1': 0, '2': 2 }, H: { '9': 0 } });
      should(d.lines[2].segments).eql(schedule(t, d.from, d.to, { timezone: zone, sensors: d.lines[2].sensors! }));
      should(d).match({ minPrice: 0.1, maxPrice: 0.5, timezone: zone });
    });

    it('no rule ever matches: no prices at all', () => {
      const d = chartData(
        tariff([{ priority: 1, price: 1, gateway_id: 'G', sensor_id: '1', sensor_value: 5, sensor_condition: 'lt' }]),
        0,
        'UTC',
      );
      should(d).match({ minPrice: null, maxPrice: null });
      should(d.lines).have.length(1);
    });
  });

  describe('same prices', () => {
    /** The obvious check: the price of each schedule at every instant where either changes. */
    const slowSame = (a: ScheduleEntry[], b: ScheduleEntry[]) => {
      const cuts = new Set(a.map((s) => s.from).concat(b.map((s) => s.from)));
      const at = (list: ScheduleEntry[], t: number) => list.find((s) => s.from <= t && t < s.to)?.price ?? null;
      return [...cuts].every((t) => at(a, t) === at(b, t));
    };
    /** A schedule of [0, 100) cut at the given points, with prices from a small set. */
    const entriesArb = fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { maxLength: 12 }).chain((cuts) => {
      const points = [0, ...cuts.sort((x, y) => x - y), 100];
      return fc
        .array(fc.constantFrom(null, 0.1, 0.2), { minLength: points.length - 1, maxLength: points.length - 1 })
        .map((prices) => prices.map((price, k): ScheduleEntry => ({ from: points[k], to: points[k + 1], ruleIndex: null, price })));
    });

    it('agrees with comparing the prices at every cut of either schedule (property)', () => {
      fc.assert(
        fc.property(entriesArb, entriesArb, fc.boolean(), (a, b, same) => {
          const other = same ? a.map((e) => ({ ...e })) : b;
          should(samePrices(a, other)).equal(slowSame(a, other));
        }),
        FC,
      );
    });
  });

  describe('errors and outcomes in words', () => {
    it('client errors map to the dialog codes; others keep their first line only', () => {
      should(editorError(new EasyApiError('unauthorized', 'the access token was rejected (401)'))).eql({
        code: 'token_rejected',
        message: 'the access token was rejected (401)',
      });
      should(editorError(new EasyApiError('timeout', 'slow')).code).equal('unreachable');
      should(editorError(new TypeError('bad thing\n    at x.ts:1:1'))).eql({ code: 'bad_request', message: 'bad thing' });
      should(connectionFailed(new EasyApiError('forbidden', 'no'))).match({ ok: false, outcome: 'no_access', tariffs: 0 });
      should(
        connectionOk(parseTariffs([{ id: 'A', name: 'a', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 1 }] }, { id: 'B' }])),
      ).match({ ok: true, tariffs: 1, invalid: 1, message: 'connected: 1 tariff' });
    });
  });
});
