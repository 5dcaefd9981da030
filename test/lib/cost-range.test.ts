import should from 'should';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { CostRange, FLAT_WINDOW_MS, SENSOR_LEAD_MS } from '../../nodes/lib/runtime/cost/cost-range';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../../sim/demo-data';

const HOUR = 3600_000;
const NOW = Date.parse('2026-03-04T12:00:00Z');
/** The interface's example: 0.42 on weekdays 09:00-17:00, 0.31 other weekday hours, 0.24 at weekends. */
const WORKDAY = DEMO_TARIFFS.find((t) => t.id === 'DEMO-WORKDAY') as Tariff;
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
    // every reading of both hours (one a minute, both ends included), so rule 10 judges a glitch at either end
    should(payload).match({ fetched: { readings: 2 * 61, requests: 2, shortcut: true } });
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

  describe('split by day (msg.split = "day")', () => {
    /** A meter whose load changes every hour (so days differ), one reading a minute, a swap on 2 March. */
    const SERIES: Array<[number, number]> = [];
    const NOW_MAX = Date.parse('2026-09-10T00:00:00Z');
    let kwh = 0;
    for (let ts = Date.parse('2026-01-01T00:00:00Z'); ts <= Date.parse('2026-09-10T00:00:00Z'); ts += 60_000) {
      kwh += 0.01 + ((ts / HOUR) % 7) * 0.003;
      if (ts === Date.parse('2026-03-02T10:00:00Z')) kwh = 1;
      SERIES.push([ts, kwh]);
    }
    function meter() {
      return {
        fetchData: async (_gateway: string, _sensor: string, from: number, to = Infinity) => {
          // rows in [from, to], both inclusive, as the archive answers
          const first = Math.max(0, Math.ceil((from - SERIES[0][0]) / 60_000));
          const last = Math.min(SERIES.length - 1, Math.floor((Math.min(to, NOW_MAX) - SERIES[0][0]) / 60_000));
          return SERIES.slice(first, last + 1);
        },
      };
    }
    const TIMED = WORKDAY;

    for (const [zone, msg, now] of [
      // London's clock goes forward on 29 March: a 23-hour day
      ['Europe/London', { period: 'last-month' }, Date.parse('2026-04-02T12:00:00Z')],
      // Santiago's goes back at midnight on 5 April (a 25-hour day) and forward at midnight on 6 September (a day from 01:00)
      ['America/Santiago', { from: '2026-04-02T12:00:00Z', to: '2026-04-08T12:00:00Z' }, Date.parse('2026-04-09T00:00:00Z')],
      ['America/Santiago', { from: '2026-09-04T00:00:00Z', to: '2026-09-08T03:00:00Z' }, Date.parse('2026-09-09T00:00:00Z')],
      ['Asia/Kolkata', { period: 'this-month' }, Date.parse('2026-03-04T12:00:00Z')],
    ] as const) {
      it(`in ${zone}: each local day as its own range would cost it, adding up to the whole (${JSON.stringify(msg)})`, async () => {
        const archive = meter();
        const range = new CostRange(archive, zone);
        const payload = (await range.cost({ gateway: 'GW', ...msg, split: 'day' }, TIMED, now)).payload as Record<string, any>;
        const days = payload.days as Array<Record<string, any>>;
        should(days.length).be.above(3);
        // the reference: the days of the zone by Intl, each costed as a range of its own
        for (const [i, day] of days.entries()) {
          const local = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
          should(day.date).equal(local.format(day.fromMs));
          should(local.format(day.toMs - 1)).equal(day.date);
          if (i > 0) should(day.fromMs).equal(days[i - 1].toMs);
          const alone = await new CostRange(meter(), zone).cost({ gateway: 'GW', from: day.fromMs, to: day.toMs }, TIMED, now);
          should(day.energy).be.approximately(alone.result.energy, 1e-9);
          should(day.net).be.approximately(alone.result.net, 1e-9);
          should(day.gross).be.approximately(alone.result.gross, 1e-9);
          should(day.formatted.gross.text).match(/^\d+\.\d\d$/);
        }
        should(days[0].from).equal(payload.range.from);
        should(days[days.length - 1].to).equal(payload.range.to);
        const sum = (k: string) => days.reduce((a, d) => a + d[k], 0);
        should(sum('energy')).be.approximately(payload.energy, 1e-6);
        should(sum('net')).be.approximately(payload.net, 1e-6);
      });
    }

    it('fetches every reading of a flat tariff (no two-ends shortcut) and refuses a bad split or over a year of days before any request', async () => {
      const archive = fakeArchive();
      const { payload } = await new CostRange(archive, 'UTC').cost({ gateway: 'GW', from: NOW - 3 * 24 * HOUR, split: 'day' }, FLAT, NOW);
      should(payload.fetched).match({ shortcut: false, requests: 1 });
      should(payload.days).have.length(4);
      const quiet = fakeArchive();
      const range = new CostRange(quiet, 'UTC');
      await should(range.cost({ gateway: 'GW', period: 'today', split: 'week' }, FLAT, NOW)).be.rejectedWith(
        /msg.split must be "day" .* got "week"/,
      );
      await should(range.cost({ gateway: 'GW', from: NOW - 400 * 24 * HOUR, split: 'day' }, FLAT, NOW)).be.rejectedWith(/at most 366 days/);
      should(quiet.calls).eql([]);
    });
  });
});
