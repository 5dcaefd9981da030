// easy-cost's reports through the real Node-RED runtime and the simulator over loopback:
// compare mode, the generator report (range and stream), the month-end projection and
// the daily charge, and bad input reaching Catch in words.
import should from 'should';
import { demoTariffs, GENERATOR_ON_MS, GENERATOR_PERIOD_MS } from '../../sim/demo-data';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { sensorRuns } from '../../nodes/lib/engine/reports/sensor-runs';
import { namedPeriod } from '../../nodes/lib/engine/time/time';
import { roundAmount } from '../../nodes/lib/engine/common/format';
import { GATEWAY, helper, inbox, lastStatus, quiet, simulatorHooks, statusSettled } from './flow-support';
import { archived, costNode, loadCost } from './cost-flows';

const lastStatusText = (id: string) => lastStatus(id)?.text ?? '';

const HOUR = 3600_000;
const LEAD = HOUR; // range mode fetches sensors this long before the range

describe('easy-cost reports', function () {
  this.timeout(20_000);
  const suite = simulatorHooks();

  async function load(over: Record<string, unknown>, timezone = 'Europe/London') {
    const nodes = [
      costNode({ tariff: 'DEMO-GENERATOR', mode: 'range', wires: [['out'], ['chart']], ...over }),
      { id: 'chart', type: 'helper' },
    ];
    const loaded = await loadCost(suite.sim, {}, { timezone, nodes });
    return { ...loaded, chart: inbox('chart') };
  }

  describe('compare', () => {
    it('costs the readings of the message under every valid tariff, cheapest first per currency, with a bar chart', async () => {
      const { node, out, chart } = await load({ mode: 'compare', tariff: 'DEMO-NIGHT' });
      const to = Math.floor(Date.now() / 60_000) * 60_000 - 24 * HOUR;
      const readings = archived('e1.kwh', to - 12 * HOUR, to);
      const sensors = { [GATEWAY]: { 1: archived('1', to - 13 * HOUR, to) } };
      node.receive({ payload: readings, sensors });
      const [msg] = await out.next(1);
      const expected = compareTariffs(demoTariffs(), readings, { timezone: 'Europe/London', sensors });
      should(msg.payload.rows.map((r: { tariffId: string }) => r.tariffId)).eql(expected.map((r) => r.tariffId));
      for (const [k, row] of msg.payload.rows.entries()) {
        should(row.gross).equal(roundAmount(expected[k].gross));
        should(row.net).equal(roundAmount(expected[k].net));
        should(row.current).equal(row.tariffId === 'DEMO-NIGHT');
        should(row.complete).be.true();
      }
      // ranks restart in each currency; the cheapest of a currency is 0 more than itself
      const gbp = msg.payload.rows.filter((r: { currency: string }) => r.currency === 'GBP');
      should(gbp.map((r: { rank: number }) => r.rank)).eql(gbp.map((_: unknown, i: number) => i + 1));
      should(gbp[0].moreThanCheapest).equal(0);
      should(msg.payload.cheapest).equal(expected[0].tariffId);
      should(msg.payload.readings).equal(readings.length);
      // the generator tariff saw the sensor: its price is not the grid price all day
      const generator = computeCost(demoTariffs()[3], readings, { timezone: 'Europe/London', sensors });
      should(generator.byRule).have.length(2);
      const bars = await chart.next(2); // GBP and EUR
      should(bars[0]).match({ topic: 'gross cost (GBP)', currency: 'GBP', action: 'replace' });
      should(bars[1]).match({ topic: 'gross cost (EUR)', currency: 'EUR', action: 'append' });
      should(bars[0].payload.length + bars[1].payload.length).equal(expected.length);
      // a bar is named by its tariff's name alone (the names differ); the node's own is marked
      const label = (row: { name?: string | null; tariffId: string }) => `${row.tariffId === 'DEMO-NIGHT' ? 'Yours: ' : ''}${row.name}`;
      should([...bars[0].payload, ...bars[1].payload].map((b: { x: string }) => b.x).sort()).eql(expected.map(label).sort());
      should([...bars[0].payload, ...bars[1].payload].filter((b: { x: string }) => b.x.startsWith('Yours: '))).have.length(1);
    });

    it('fetches a named period of the archive, with the sensors of every tariff, and needs no tariff of its own', async () => {
      const { node, out } = await load({ mode: 'compare', tariff: '' }, 'America/New_York');
      suite.sim.resetRequests();
      node.receive({ gateway: GATEWAY, period: 'yesterday' });
      const [msg] = await out.next(1);
      const { from, to } = namedPeriod('yesterday', Date.now(), { timezone: 'America/New_York' });
      const readings = archived('e1.kwh', from, to);
      const sensors = { [GATEWAY]: { 1: archived('1', from - LEAD, to) } };
      const expected = compareTariffs(demoTariffs(), readings, { timezone: 'America/New_York', sensors });
      should(msg.payload.rows.map((r: { gross: number }) => r.gross)).eql(expected.map((r) => roundAmount(r.gross)));
      should(msg.payload.range).match({ fromMs: from, toMs: to });
      should(msg.payload.rows.every((r: { current: boolean }) => !r.current)).be.true();
      // the meter once, the generator's input once (two tariffs reading one sensor fetch it once)
      should(suite.sim.requests.filter((r) => r.endpoint === 'data')).have.length(2);
    });

    it('hands bad input to Catch in words: nothing to compare, one reading, a bad period', async () => {
      const { node, caught, out } = await load({ mode: 'compare', tariff: '' });
      node.receive({ payload: 'readings' });
      node.receive({ payload: [[Date.now() - HOUR, 5]] });
      node.receive({ gateway: GATEWAY, period: 'last-decade' });
      const errs = (await caught.next(3)).map((e) => e.error.message);
      should(errs[0]).match(/^Compare mode needs readings in msg.payload/);
      should(errs[1]).match(/^Compare mode needs at least two readings/);
      should(errs[2]).match(/^Msg.period must be one of|^msg.period must be one of/);
      await quiet(50);
      should(out.received).have.length(0);
    });
  });

  describe('generator report (range)', () => {
    it("follows the tariff's sensor rule: run time, starts and the cost while running and not", async () => {
      const { node, out } = await load({ mode: 'range', generator: true });
      const to = Math.floor(Date.now() / GENERATOR_PERIOD_MS) * GENERATOR_PERIOD_MS - 24 * HOUR + 2 * 60_000; // inside a run
      const from = to - 6 * HOUR;
      node.receive({ gateway: GATEWAY, from, to });
      const [msg] = await out.next(1);
      const g = msg.payload.generator;
      const timeline = archived('1', from - LEAD, to);
      const runs = sensorRuns(timeline, from, to);
      should(g).match({ gatewayId: GATEWAY, sensorId: '1', on: 1, runMs: runs.onMs, starts: runs.starts });
      // from and to lie 2 minutes into a run: the first run's last 3 minutes (on at `from`,
      // so no start), 23 whole runs, and 2 minutes of the last (24 starts)
      should(g.starts).equal(24);
      should(g.runMs).equal(3 * 60_000 + 23 * GENERATOR_ON_MS + 2 * 60_000);
      const cost = computeCost(demoTariffs()[3], archived('e1.kwh', from, to), {
        timezone: 'Europe/London',
        sensors: { [GATEWAY]: { 1: timeline } },
        splitBy: { gatewayId: GATEWAY, sensorId: '1' },
      });
      const on = cost.bySensorValue!.find((e) => e.value === 1)!;
      const off = cost.bySensorValue!.find((e) => e.value === 0)!;
      should(g.running).match({ energy: roundAmount(on.energy), gross: roundAmount(on.gross) });
      should(g.notRunning).match({ energy: roundAmount(off.energy), gross: roundAmount(off.gross) });
      should(roundAmount(g.running.gross + g.notRunning.gross + g.unknown.gross)).equal(msg.payload.gross);
      should(g.runs[0]).have.keys('from', 'to', 'fromMs', 'toMs');
      should(g.runsCount).equal(runs.runs.length);
    });

    it('a chosen sensor and running value; a tariff without a sensor rule and no sensor chosen is an error at Catch', async () => {
      const { node, caught } = await load({ mode: 'range', tariff: 'DEMO-NIGHT', generator: true });
      const to = Math.floor(Date.now() / 60_000) * 60_000 - 24 * HOUR;
      node.receive({ gateway: GATEWAY, from: to - HOUR, to });
      const [err] = await caught.next(1);
      should(err.error.message).match(/tariff "DEMO-NIGHT" has none: choose the generator's sensor in the node/);
      await helper.unload();
      const again = await load({
        mode: 'range',
        tariff: 'DEMO-NIGHT',
        generator: true,
        generatorGateway: GATEWAY,
        generatorSensor: '1',
        generatorOn: '0',
      });
      again.node.receive({ gateway: GATEWAY, from: to - HOUR, to });
      const [msg] = await again.out.next(1);
      // running means 0 here: 10 of every 15 minutes
      should(msg.payload.generator.on).equal(0);
      should(msg.payload.generator.runMs).equal(40 * 60_000);
      should(msg.payload.fetched.shortcut).equal(false);
    });
  });

  describe('stream', () => {
    const meter = (ts: number, value: number) => ({
      topic: 'e1.kwh',
      gateway: GATEWAY,
      payload: { id: 'e1.kwh', value, ts, decoded: { kind: 'modbus', quantity: 'energy' } },
    });
    // a generator input the simulator does not know: only wired messages tell its state
    const gen = (ts: number, value: number) => ({
      topic: 'gen',
      gateway: 'YARD',
      payload: { id: 'gen', value, ts, decoded: { kind: 'digital_input', channel: 1 } },
    });

    it('reports the generator live: run time and starts from its values, energy and cost by its value at each interval start', async () => {
      const { node, out, caught } = await load(
        { mode: 'stream', tariff: 'DEMO-FLAT', generator: true, generatorGateway: 'YARD', generatorSensor: 'gen' },
        'UTC',
      );
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      const min = 60_000;
      node.receive(gen(t0 - 30 * min, 0));
      node.receive(meter(t0, 100));
      node.receive(gen(t0 + HOUR, 1)); // a start
      node.receive(meter(t0 + HOUR, 101)); // [t0, +1h) not running: 1 kWh
      node.receive(meter(t0 + 2 * HOUR, 103)); // [+1h, +2h) running: 2 kWh
      node.receive(gen(t0 + 2 * HOUR + 30 * min, 0));
      node.receive(meter(t0 + 3 * HOUR, 104)); // [+2h, +3h) running at its start: 1 kWh
      const msgs = await out.next(4);
      const g = msgs[3].payload.generator;
      should(g).match({ gatewayId: 'YARD', sensorId: 'gen', on: 1 });
      should(g.today).match({
        from: '2026-03-04T00:00:00.000Z',
        runMs: 90 * min,
        starts: 1,
        offMs: 120 * min, // 90 minutes before the start, 30 after the stop (up to the newest reading)
        unknownMs: 0, // before its first value the generator is not counted at all
        running: { energy: 3, net: 0.75, gross: 0.9 },
        notRunning: { energy: 1, net: 0.25, gross: 0.3 },
      });
      should(g.month).match({ runMs: 90 * min, starts: 1 });
      should(g.today.runHours).equal(1.5);
      // a day later: today starts again, yesterday is in closed
      node.receive(meter(t0 + 24 * HOUR, 110));
      const [next] = await out.next(1);
      should(next.payload.generator.today).match({ from: '2026-03-05T00:00:00.000Z', starts: 0, runMs: 0 });
      should(next.payload.generator.closed.day).match({ from: '2026-03-04T00:00:00.000Z', runMs: 90 * min, starts: 1 });
      should(caught.received).be.empty();
    });

    it('projects the month to its end (a 743-hour March in London) and adds the daily charge apart and in the totals', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT', dailyCharge: '0.5' }, 'Europe/London');
      node.receive({ payload: 0, ts: '2026-03-01T00:00:00Z' });
      node.receive({ payload: 12, ts: '2026-03-01T12:00:00Z' });
      node.receive({ payload: 24, ts: '2026-03-02T00:00:00Z' });
      const msgs = await out.next(3);
      const p = msgs[2].payload;
      // 24 kWh in the first 24 hours at 0.25 + 20 %: 7.20; over 743 hours 222.90; 31 daily charges of 0.60
      should(p.projection).match({
        from: '2026-03-01T00:00:00.000Z',
        to: '2026-03-31T23:00:00.000Z',
        method: 'month-so-far',
        basisMs: 24 * HOUR,
        days: 31,
        soFar: { energy: 24, gross: 7.2 + 2 * 0.6 },
        projected: { energy: roundAmount((24 * 743) / 24), gross: roundAmount(7.2 * (743 / 24) + 31 * 0.6) },
      });
      should(p.dailyCharge.perDay).eql({ net: 0.5, gross: 0.6 });
      should(p.dailyCharge.today).match({ days: 1, net: 0.5, gross: 0.6, withChargeGross: 0.6 });
      should(p.dailyCharge.month).match({ days: 2, gross: 1.2, withChargeGross: roundAmount(7.2 + 1.2) });
      await statusSettled();
      should(lastStatusText('c')).match(/month → GBP 241\.50$/);
      // the first reading alone: no basis for a projection yet
      should(msgs[0].payload.projection.projected).be.null();
    });

    it('a bad daily charge: at Catch; a generator with no sensor to follow: said in the message and status, the readings still counted', async () => {
      const { node, caught } = await load({ mode: 'stream', tariff: 'DEMO-FLAT', dailyCharge: '-1' });
      node.receive({ payload: 5 });
      const [bad] = await caught.next(1);
      should(bad.error.message).match(/daily charge must be an amount of 0 or more, got "-1"/);
      await helper.unload();
      // the readings still count: a report set up wrong must not cost a total
      const again = await load({ mode: 'stream', tariff: 'DEMO-FLAT', generator: true }, 'UTC');
      again.node.receive({ payload: 5, ts: '2026-03-04T10:00:00Z' });
      again.node.receive({ payload: 7, ts: '2026-03-04T11:00:00Z' });
      const [, second] = await again.out.next(2);
      should(second.payload.today.energy).equal(2);
      should(second.payload.generator).be.null();
      should(second.payload.generatorProblem).match(/tariff "DEMO-FLAT" has none: choose the generator's sensor in the node/);
      await statusSettled();
      should(lastStatus('c')).match({ fill: 'yellow', text: /no generator report$/ });
      should(again.caught.received).be.empty();
    });
  });
});
