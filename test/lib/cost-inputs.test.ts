import should from 'should';
import {
  bucketPayload,
  checkBatchSpan,
  isEnergyReading,
  isFlatTariff,
  rangeRequest,
  SensorHistory,
  streamReading,
} from '../../nodes/lib/runtime/cost/cost-inputs';
import type { CostResult } from '../../nodes/lib/engine/cost/cost';
import type { TariffSnapshot } from '../../nodes/lib/runtime/account/hub';
import { findTariff } from '../../nodes/lib/runtime/common/tariff-lookup';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';

const NOW = Date.parse('2026-03-04T10:00:00Z');
const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] };
const TIMED = {
  id: 'T',
  name: 'Timed',
  vat: 5,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.1, time_start: '22:00', time_end: '06:00' },
    { priority: 2, price: 0.3 },
  ],
};
const BROKEN = { id: 'B', name: 'Broken', vat: 5, currency: 'GBP', rules: [{ priority: 1 }] };

function snapshot(raw: unknown[], over: Partial<TariffSnapshot> = {}): TariffSnapshot {
  return { ...parseTariffs(raw), fetchedAt: NOW, error: null, stale: false, ...over };
}

describe('cost node inputs', () => {
  describe('findTariff (the one wording of every node and the editor)', () => {
    it('finds the tariff by id', () => {
      should(findTariff(snapshot([FLAT, TIMED]), 'T').name).equal('Timed');
    });

    it('says why a tariff cannot be used: rejected, missing, not fetched, or no tariffs at all', () => {
      should(() => findTariff(snapshot([FLAT, BROKEN]), 'B')).throw(/^tariff "B" was rejected: .*price/);
      should(() => findTariff(snapshot([FLAT, TIMED]), 'X')).throw('tariff "X" is not on the account (it has F, T)');
      should(() => findTariff(snapshot([]), 'X')).throw('tariff "X" is not on the account');
      const failed = snapshot([], { fetchedAt: null, error: new Error('access token is not valid') });
      should(() => findTariff(failed, 'F')).throw('tariffs could not be fetched: access token is not valid');
      should(() => findTariff(snapshot([], { fetchedAt: null }), 'F')).throw('the tariffs have not been fetched yet');
      // the parsed answer the editor's routes hold (no fetch time): found or not on the account
      should(() => findTariff(parseTariffs([FLAT]), '__proto__')).throw('tariff "__proto__" is not on the account (it has F)');
      const many = Array.from({ length: 12 }, (_, i) => ({ ...FLAT, id: `t${i}` }));
      should(() => findTariff(snapshot(many), 'X')).throw(
        'tariff "X" is not on the account (it has t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, …)',
      );
    });
  });

  it('calls a tariff flat when its first rule has no condition', () => {
    should(isFlatTariff(FLAT as never)).be.true();
    should(isFlatTariff(TIMED as never)).be.false();
    should(isFlatTariff({ ...TIMED, rules: [{ priority: 0, price: 1 }, ...TIMED.rules] } as never)).be.true();
  });

  describe('streamReading', () => {
    it('takes a number (at msg.ts, else now) or a numeric string', () => {
      should(streamReading({ payload: 12.5 }, NOW)).eql({ ts: NOW, value: 12.5 });
      should(streamReading({ payload: '7', ts: '2026-03-04T09:00:00Z' }, NOW)).eql({ ts: NOW - 3600e3, value: 7 });
    });

    it('takes an easy-sensors message', () => {
      const msg = { topic: 'e1.kwh', gateway: 'DEMO', payload: { id: 'e1.kwh', value: 1000.5, ts: NOW - 60e3, timestamp: 'ignored' } };
      should(streamReading(msg, NOW)).eql({ ts: NOW - 60e3, value: 1000.5, sensorId: 'e1.kwh', gatewayId: 'DEMO' });
      should(streamReading({ payload: { value: 3, timestamp: '2026-03-04T09:59Z' } }, NOW).ts).equal(NOW - 60e3);
    });

    it('refuses anything else with a message saying what it expected', () => {
      should(() => streamReading({ payload: 'abc' }, NOW)).throw(/one cumulative kWh reading per message .* got "abc"/);
      should(() => streamReading({ payload: [[1, 2]] }, NOW)).throw(/got an array of 1/);
      should(() => streamReading({ payload: null }, NOW)).throw(/got null/);
      should(() => streamReading({ payload: { value: 'x', ts: NOW } }, NOW)).throw(/msg.payload.value as a finite number of kWh, got "x"/);
      should(() => streamReading({ payload: { value: 1 } }, NOW)).throw(/msg.payload.ts \(or timestamp\) as an instant, got nothing/);
      should(() => streamReading({ payload: 1, ts: 'yesterday' }, NOW)).throw(/msg.ts must be/);
      should(() => streamReading({ payload: Infinity }, NOW)).throw(/finite kWh reading/);
    });

    it('knows a voltage is not an energy reading', () => {
      should(isEnergyReading({ decoded: { kind: 'modbus', quantity: 'voltage' } })).be.false();
      should(isEnergyReading({ decoded: { kind: 'digital_input' } })).be.false();
      should(isEnergyReading({ decoded: { kind: 'modbus', quantity: 'energy' } })).be.true();
      should(isEnergyReading({ value: 1 })).be.true();
      should(isEnergyReading({ value: 1, unit: 'kWh' })).be.true();
      should(isEnergyReading({ value: 1, unit: 'V', decoded: { kind: 'unknown' } })).be.false();
      should(isEnergyReading({ value: 1, unit: 'Hz' })).be.false();
    });
  });

  describe('rangeRequest', () => {
    it('reads from/to, defaulting to e1.kwh and now', () => {
      should(rangeRequest({ gateway: 'DEMO', from: '2026-03-01T00:00:00Z' }, 'UTC', NOW)).eql({
        gateway: 'DEMO',
        sensor: 'e1.kwh',
        from: Date.parse('2026-03-01T00:00:00Z'),
        to: NOW,
        period: undefined,
        split: null,
      });
      should(rangeRequest({ gateway: 'DEMO', sensor: 'e2.kwh', from: 0, to: NOW + 1e6 }, 'UTC', NOW).to).equal(NOW);
      should(rangeRequest({ gateway: 'DEMO', period: 'today', split: 'day' }, 'UTC', NOW)).match({ period: 'today', split: 'day' });
    });

    it('turns a named period into local bounds of the zone', () => {
      const r = rangeRequest({ gateway: 'DEMO', period: 'last-month' }, 'Asia/Kolkata', NOW);
      should([new Date(r.from).toISOString(), new Date(r.to).toISOString()]).eql(['2026-01-31T18:30:00.000Z', '2026-02-28T18:30:00.000Z']);
      const y = rangeRequest({ gateway: 'DEMO', period: 'yesterday' }, 'UTC', NOW);
      should(y.to - y.from).equal(24 * 3600e3);
    });

    it('refuses a missing gateway, a bad period, bad or reversed instants', () => {
      should(() => rangeRequest({ from: 0 }, 'UTC', NOW)).throw(/needs msg.gateway/);
      should(() => rangeRequest({ gateway: 'D', period: 'decade' }, 'UTC', NOW)).throw(/msg.period must be one of today, yesterday/);
      should(() => rangeRequest({ gateway: 'D', from: 'soon' }, 'UTC', NOW)).throw(/msg.from must be/);
      should(() => rangeRequest({ gateway: 'D', from: NOW, to: NOW - 1 }, 'UTC', NOW)).throw(/must be before msg.to/);
      should(() => rangeRequest({ gateway: 'D', from: 0, sensor: 5 }, 'UTC', NOW)).throw(/msg.sensor must be/);
    });

    it("lists the valid period names for any other, Object's own names included", () => {
      const all = 'today, yesterday, this-week, last-week, this-month, last-month, this-year, last-year';
      for (const period of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'TODAY', '', 3, {}, null]) {
        const err = (() => {
          try {
            rangeRequest({ gateway: 'D', period }, 'UTC', NOW);
          } catch (e) {
            return e as Error;
          }
          return null;
        })();
        should(err).be.instanceOf(TypeError);
        should(err!.message).startWith(`msg.period must be one of ${all}, got `);
      }
      should(rangeRequest({ gateway: 'D', period: 'last-year' }, 'UTC', NOW)).match({
        from: Date.UTC(2025, 0, 1),
        to: Date.UTC(2026, 0, 1),
      });
    });

    it('refuses instants more than 100 years from now with a message naming the field, never "Invalid time value"', () => {
      const far = [
        1e300,
        -1e300,
        8.64e15,
        -8.64e15,
        '9999-12-31T00:00:00Z',
        '1900-01-01',
        new Date(Date.UTC(2200, 0, 1)),
        NOW + 101 * 365.25 * 864e5,
      ];
      for (const x of far) {
        should(() => rangeRequest({ gateway: 'D', from: x }, 'UTC', NOW)).throw(/^msg.from must lie within 100 years of now, got /);
        should(() => rangeRequest({ gateway: 'D', from: 0, to: x }, 'UTC', NOW)).throw(/^msg.to must lie within 100 years of now, got /);
        should(() => streamReading({ payload: 1, ts: x }, NOW)).throw(/^msg.ts must lie within 100 years of now/);
        should(() => streamReading({ payload: 1, timestamp: x }, NOW)).throw(/^msg.timestamp must lie within 100 years of now/);
        should(() => streamReading({ payload: { value: 1, ts: x } }, NOW)).throw(/^msg.payload.ts must lie within 100 years of now/);
      }
      should(() => rangeRequest({ gateway: 'D', from: 1e300 }, 'UTC', NOW)).throw('msg.from must lie within 100 years of now, got 1e+300');
      should(() => rangeRequest({ gateway: 'D', from: new Date(Date.UTC(2200, 0, 1)) }, 'UTC', NOW)).throw(
        'msg.from must lie within 100 years of now, got the Date 2200-01-01T00:00:00.000Z',
      );
      // 99 years back is a range (an empty archive says so later), not a refusal
      should(rangeRequest({ gateway: 'D', from: NOW - 99 * 365.25 * 864e5 }, 'UTC', NOW).to).equal(NOW);
    });
  });

  describe('checkBatchSpan', () => {
    const result = (from: number | null, to: number | null) => ({ from, to }) as CostResult;
    it('passes readings within 100 years of now and none at all', () => {
      checkBatchSpan(result(0, NOW), NOW);
      checkBatchSpan(result(null, null), NOW);
    });
    it('names the first or last reading that lies further, as text a Date could not give', () => {
      should(() => checkBatchSpan(result(0, 1e300), NOW)).throw(
        'batch mode takes readings within 100 years of now; the last reading is at 1e+300',
      );
      should(() => checkBatchSpan(result(Date.UTC(1800, 0, 1), NOW), NOW)).throw(
        'batch mode takes readings within 100 years of now; the first reading is at 1800-01-01T00:00:00.000Z',
      );
    });
  });

  describe('readings from the future (docs/semantics.md)', () => {
    const AHEAD = 10 * 60_000;
    it('takes a reading up to 10 minutes ahead of the clock, refuses one a millisecond more, naming the field', () => {
      should(streamReading({ payload: 1, ts: NOW + AHEAD }, NOW).ts).equal(NOW + AHEAD);
      should(() => streamReading({ payload: 1, ts: NOW + AHEAD + 1 }, NOW)).throw(
        /^msg\.ts lies in the future: 2026-03-04T10:10:00\.001Z is 10 minutes ahead of this machine's clock \(2026-03-04T10:00:00\.000Z\); a reading may be at most 10 minutes ahead/,
      );
      should(() => streamReading({ payload: { id: 'e1.kwh', value: 1, timestamp: '2126-01-01T00:00Z' } }, NOW)).throw(
        /^msg\.payload\.timestamp lies in the future: 2126-01-01T00:00:00\.000Z is 99 years ahead/,
      );
      should(() => streamReading({ payload: 1, timestamp: NOW + 3 * 3600_000 }, NOW)).throw(/^msg\.timestamp .* is 3 hours ahead/);
    });
    it('refuses a batch of past readings with one from the future: a cost of the others alone would look complete', () => {
      const result = (from: number, to: number) => ({ from, to }) as CostResult;
      checkBatchSpan(result(0, NOW + AHEAD), NOW);
      should(() => checkBatchSpan(result(NOW - 3600_000, NOW + 2 * 24 * 3600_000), NOW)).throw(
        /^batch mode refused the readings: the last reading lies in the future: .* is 2 days ahead/,
      );
    });
  });

  it('keeps sensor timelines of the watched sensors only, forgetting what no reading needs', () => {
    const history = new SensorHistory([{ gatewayId: 'DEMO', sensorId: '1' }]);
    history.record('DEMO', '1', 1000, 0);
    history.record('DEMO', '2', 1000, 1); // not a tariff sensor
    history.record('DEMO', '1', 2000, 1);
    history.record('DEMO', '1', 1500, 0); // late answer of an older poll
    history.record('DEMO', '1', 3000, 0);
    should(JSON.parse(JSON.stringify(history.timelines()))).eql({
      DEMO: {
        1: [
          [1000, 0],
          [2000, 1],
          [3000, 0],
        ],
      },
    });
    history.forget(2500);
    should(JSON.parse(JSON.stringify(history.timelines()))).eql({
      DEMO: {
        1: [
          [2000, 1],
          [3000, 0],
        ],
      },
    });
  });

  it('shapes a period with ISO bounds and amounts formatted to the minor unit', () => {
    const bucket = { from: NOW, to: null, energy: 2, net: 0.123456, gross: 0.2, unpricedEnergy: 0, resets: 0, intervals: 3 };
    should(bucketPayload(bucket, 'BHD', 10)).match({
      from: '2026-03-04T10:00:00.000Z',
      to: null,
      net: 0.123456,
      vat: 10,
      currency: 'BHD',
      formatted: { net: { text: '0.123' }, gross: { text: '0.200' } },
    });
    should(bucketPayload(null, 'GBP', 0)).be.null();
  });
});
