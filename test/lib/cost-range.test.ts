import should from 'should';
import { computeCost } from '../../nodes/lib/engine/cost';
import { CostRange, FLAT_WINDOW_MS, SENSOR_LEAD_MS } from '../../nodes/lib/runtime/cost-range';
import type { Tariff } from '../../nodes/lib/engine/tariff';

const HOUR = 3600_000;
const NOW = Date.parse('2026-03-04T12:00:00Z');
const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] } as Tariff;
const GENERATOR = {
  id: 'G',
  name: 'Gen',
  vat: 0,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.5, gateway_id: 'GW', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' },
    { priority: 2, price: 0.2 },
  ],
} as Tariff;

/** An archive of one reading a minute (1 kWh an hour), counting what is asked of it. */
function fakeArchive(sensors: Record<string, Array<[number, number]>> = {}) {
  const calls: Array<{ gateway: string; sensor: string; from: number; to?: number }> = [];
  return {
    calls,
    fetchData: async (gateway: string, sensor: string, from: number, to?: number) => {
      calls.push({ gateway, sensor, from, to });
      if (sensors[sensor]) return sensors[sensor].filter(([ts]) => ts >= from && ts <= (to ?? NOW));
      const rows: Array<[number, number]> = [];
      for (let ts = Math.ceil(from / 60_000) * 60_000; ts <= (to ?? NOW); ts += 60_000) rows.push([ts, ts / HOUR]);
      return rows;
    },
  };
}

describe('CostRange: easy-cost range mode without Node-RED', () => {
  it('costs a named period of the zone from the archive, like computeCost of the readings', async () => {
    const archive = fakeArchive();
    const range = new CostRange(archive, 'Asia/Kolkata');
    const { payload, result } = await range.cost({ gateway: 'GW', period: 'yesterday' }, GENERATOR, NOW);
    // yesterday in Kolkata: 3 March 00:00 +05:30 to 4 March 00:00 +05:30
    should(payload).match({
      gateway: 'GW',
      sensor: 'e1.kwh',
      range: { from: '2026-03-02T18:30:00.000Z', to: '2026-03-03T18:30:00.000Z' },
      fetched: { shortcut: false, requests: 2 },
    });
    const rows = await fakeArchive().fetchData('GW', 'e1.kwh', Date.parse('2026-03-02T18:30:00Z'), Date.parse('2026-03-03T18:30:00Z'));
    should(result.energy).be.approximately(24, 1e-9);
    should(result.net).be.approximately(computeCost(GENERATOR, rows, { timezone: 'Asia/Kolkata' }).net, 1e-9);
    // the sensor the rule reads, from an hour before the range
    should(archive.calls[1]).eql({
      gateway: 'GW',
      sensor: '1',
      from: Date.parse('2026-03-02T18:30:00Z') - SENSOR_LEAD_MS,
      to: Date.parse('2026-03-03T18:30:00Z'),
    });
  });

  it("prices a sensor rule with the sensor's archived values", async () => {
    const range = new CostRange(
      fakeArchive({
        1: [
          [NOW - 10 * HOUR, 1],
          [NOW - 5 * HOUR, 0],
        ],
      }),
      'UTC',
    );
    const { result } = await range.cost({ gateway: 'GW', from: NOW - 9 * HOUR, to: NOW - HOUR }, GENERATOR, NOW);
    should(result.net).be.approximately(4 * 0.5 + 4 * 0.2, 1e-9);
  });

  it('fetches only an hour at each end for a flat tariff', async () => {
    const archive = fakeArchive();
    const { payload, result } = await new CostRange(archive, 'UTC').cost({ gateway: 'GW', from: NOW - 48 * HOUR, to: NOW }, FLAT, NOW);
    should(payload).match({ fetched: { readings: 2, requests: 2, shortcut: true } });
    should(archive.calls.map((c) => [c.from, c.to])).eql([
      [NOW - 48 * HOUR, NOW - 48 * HOUR + FLAT_WINDOW_MS],
      [NOW - FLAT_WINDOW_MS, NOW],
    ]);
    should(result.energy).be.approximately(48, 1e-9);
  });

  it('says there is nothing to cost with fewer than two readings, and refuses a bad range', async () => {
    const range = new CostRange(fakeArchive({ 'e1.kwh': [[NOW - HOUR, 5]] }), 'UTC');
    await should(range.cost({ gateway: 'GW', from: NOW - 2 * HOUR }, FLAT, NOW)).be.rejectedWith(
      /the archive has 1 reading of e1.kwh on GW from .*: nothing to cost/,
    );
    await should(range.cost({ from: NOW - HOUR }, FLAT, NOW)).be.rejectedWith(/range mode needs msg.gateway/);
    await should(range.cost({ gateway: 'GW', period: 'constructor' }, FLAT, NOW)).be.rejectedWith(/msg.period must be one of/);
  });

  it('aborts the fetches on their way when the node closes', async () => {
    let signal: AbortSignal | undefined;
    const range = new CostRange(
      {
        fetchData: (_g: string, _s: string, _f: number, _t?: number, opts?: { signal?: AbortSignal }) =>
          new Promise((_resolve, reject) => {
            signal = opts?.signal;
            signal?.addEventListener('abort', () => reject(new Error('aborted')));
          }),
      },
      'UTC',
    );
    const pending = range.cost({ gateway: 'GW', from: NOW - HOUR }, FLAT, NOW);
    await new Promise((resolve) => setImmediate(resolve));
    range.abort();
    await should(pending).be.rejectedWith('aborted');
    should(signal!.aborted).be.true();
  });
});
