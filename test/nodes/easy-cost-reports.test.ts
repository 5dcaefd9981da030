// easy-cost's reports through the real Node-RED runtime and the simulator over loopback:
// compare mode, the generator report (range and stream), the month-end projection and
// the daily charge, and bad input reaching Catch in words.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { archive, demoTariffs, findDemoSensor, GENERATOR_ON_MS, GENERATOR_PERIOD_MS } from '../../sim/demo-data';
import { compareTariffs } from '../../nodes/lib/engine/compare';
import { computeCost } from '../../nodes/lib/engine/cost';
import { sensorRuns } from '../../nodes/lib/engine/sensor-runs';
import { namedPeriod } from '../../nodes/lib/engine/time';
import { roundAmount } from '../../nodes/lib/engine/format';
import easyCost = require('../../nodes/easy-cost');
import { accountNode, catchNodes, GATEWAY, helper, inbox, loadFlow, quiet, withSimulator } from './flow-support';

const HOUR = 3600_000;
const LEAD = HOUR; // range mode fetches sensors this long before the range

/** The simulator's archive of a sensor as the client returns it: [epoch ms, value]. */
function archived(sensorId: string, from: number, to: number): Array<[number, number]> {
  return archive(findDemoSensor(sensorId)!, from, to).map(([iso, value]) => [Date.parse(`${iso}Z`), value]);
}

describe('easy-cost reports', function () {
  this.timeout(20_000);
  let sim: Simulator;

  beforeEach(async () => {
    sim = await withSimulator({});
  });

  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  async function load(over: Record<string, unknown>, timezone = 'Europe/London') {
    await loadFlow(
      [easyCost],
      [
        accountNode(sim, timezone),
        { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-GENERATOR', mode: 'range', wires: [['out'], ['chart']], ...over },
        { id: 'out', type: 'helper' },
        { id: 'chart', type: 'helper' },
        ...catchNodes(),
      ],
    );
    return { node: helper.getNode('c'), out: inbox('out'), chart: inbox('chart'), caught: inbox('caught') };
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
      should(bars[0]).match({ topic: 'gross cost (GBP)', action: 'replace' });
      should(bars[1]).match({ topic: 'gross cost (EUR)', action: 'append' });
      should(bars[0].payload.length + bars[1].payload.length).equal(expected.length);
      should(bars[0].payload[0].x).equal(`${expected[0].name} (${expected[0].tariffId})`);
    });

    it('fetches a named period of the archive, with the sensors of every tariff, and needs no tariff of its own', async () => {
      const { node, out } = await load({ mode: 'compare', tariff: '' }, 'America/New_York');
      sim.resetRequests();
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
      should(sim.requests.filter((r) => r.endpoint === 'data')).have.length(2);
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
});
