// easy-peak's records on the real servers (docs/records.md): the fourth output wired
// straight to node-red-contrib-influxdb's `influxdb batch` (points read back over InfluxDB's
// HTTP query API: tags, fields, one point per closed window after a restart and a replay)
// and to Node-RED's core `mqtt out` into Mosquitto (retained discovery and states read back
// by a subscriber), through the real Node-RED runtime.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import easyAccount = require('../../nodes/easy-account');
import easyPeak = require('../../nodes/easy-peak');
import { accountNode, catchNodes, FileContext, FlowNode, helper, inbox, TOKEN, withSimulator } from '../nodes/flow-support';
import {
  brokerConnected,
  influxConfig,
  influxForSuite,
  influxQuery,
  influxRows,
  mqttOut,
  retainedWhen,
  RunningServer,
  serverProgram,
  startMosquitto,
} from '../servers';
const influxNodes = require('node-red-contrib-influxdb');
const mqttNodes = require(require.resolve('@node-red/nodes/core/network/10-mqtt.js'));

const MIN = 60_000;
const DB = 'peaks';
const ZONE = 'Asia/Kolkata'; // windows on the local quarter hours of a +05:30 zone

/** A window start about three hours ago whose next 45 minutes lie in one local month (the readings are in the past, as a replay's are). */
function startOfReadings(): number {
  let from = demandWindowOf(Date.now() - 3 * 3600_000, ZONE, 15).from;
  if (from + 45 * MIN > localPeriod('month', from, { timezone: ZONE }).to) from -= 3600_000;
  return from;
}

/** One meter read each minute from `from` for `minutes` minutes at 6 kW (the first window) then 3 kW, from 100 kWh. */
function history(from: number, minutes: number) {
  const out: Array<Record<string, unknown>> = [];
  let value = 100;
  for (let i = 0; i <= minutes; i++) {
    if (i > 0) value += (i <= 15 ? 6 : 3) / 60;
    out.push({ gateway: 'G', topic: 'e1.kwh', payload: value, ts: from + i * MIN });
  }
  return out;
}

describe('easy-peak records on the real servers', function () {
  this.timeout(60_000);
  let sim: Simulator;
  beforeEach(async () => {
    sim = await withSimulator();
  });
  afterEach(async () => sim.close());

  describe('InfluxDB', () => {
    const influx = influxForSuite(DB);
    let context: FileContext;
    beforeEach(async () => {
      context = new FileContext('easy-peak-influx-');
    });
    afterEach(async () => context.unload());

    const rows = (q: string, count: number) => influxRows(influx.port, DB, q, count);

    it('writes each closed window at its start, meter and site, tagged by series; a restart and a replay overwrite, never add', async () => {
      const flow: FlowNode[] = [
        accountNode(sim, ZONE),
        influxConfig(influx.port, DB),
        {
          id: 'p',
          type: 'easy-peak',
          name: 'barn',
          account: 'acc',
          minutes: '15',
          limit: 'peak',
          pricePerKw: '4',
          records: 'influx-batch',
          wires: [['out'], [], [], ['ifx', 'rec']],
        },
        { id: 'out', type: 'helper' },
        { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
        { id: 'rec', type: 'helper' },
        // influxdb batch calls done() once its write is answered: a Complete node on it sees each batch written
        { id: 'written', type: 'complete', scope: ['ifx'], uncaught: false, wires: [['writes']] },
        { id: 'writes', type: 'helper' },
        ...catchNodes(),
      ];
      await helper.load([easyAccount, easyPeak, influxNodes, context.use()], flow, { acc: { token: TOKEN }, influx: {} });
      const from = startOfReadings();
      const readings = history(from, 30);
      /**
       * Sends the readings; resolves once each has its output 1 message and both batches of
       * points (the readings at +15 and +30 minutes close a window each) were written.
       */
      const feed = async (list: Array<Record<string, unknown>>) => {
        const [out, rec, writes] = [inbox('out'), inbox('rec'), inbox('writes')];
        for (const r of list) helper.getNode('p').receive({ ...r });
        await out.next(list.length, 10_000);
        await rec.next(2, 10_000);
        await writes.next(2, 10_000);
      };
      await feed(readings);
      const q = 'SELECT * FROM energy_peak ORDER BY time';
      const expect = async () => {
        const got = await rows(q, 4);
        should(got.map((r) => [r.time, r.scope, r.average, r.energy, r.complete, r.month_value, r.rank ?? null, r.end_ms])).eql([
          [from, 'meter', 6, 1.5, true, 6, 1, from + 15 * MIN],
          [from, 'site', 6, 1.5, true, 6, 1, from + 15 * MIN],
          [from + 15 * MIN, 'meter', 3, 0.75, true, 6, null, from + 30 * MIN],
          [from + 15 * MIN, 'site', 3, 0.75, true, 6, null, from + 30 * MIN],
        ]);
        for (const r of got) should(r).match({ site: 'barn', minutes: '15', unit: 'kW' });
        // the site's windows carry the bill after they closed: 6 kW billed, 6 x 4 = 24 (the 3 kW window raises nothing)
        should(got.map((r) => [r.scope, r.billed_kw ?? null, r.demand_charge ?? null])).eql([
          ['meter', null, null],
          ['site', 6, 24],
          ['meter', null, null],
          ['site', 6, 24],
        ]);
        should(got.filter((r) => r.scope === 'meter').every((r) => r.gateway === 'G' && r.meter === 'e1.kwh')).be.true();
        should(got.filter((r) => r.scope === 'site').every((r) => r.gateway === null && r.meter === null)).be.true();
      };
      await expect();
      should((await influxQuery(influx.port, DB, 'SHOW TAG KEYS FROM energy_peak')).map((r) => r.tagKey)).eql([
        'gateway',
        'meter',
        'minutes',
        'scope',
        'site',
        'unit',
      ]);
      const types = await influxQuery(influx.port, DB, 'SHOW FIELD KEYS FROM energy_peak');
      should(Object.fromEntries(types.map((r) => [r.fieldKey, r.fieldType]))).eql({
        average: 'float',
        billed_kw: 'float',
        complete: 'boolean',
        demand_charge: 'float',
        end_ms: 'float',
        energy: 'float',
        month_value: 'float',
        rank: 'float',
      });

      // the dashboard's Demand panel and docs/records.md's daily maximum per meter, on what arrived
      const dashboard = JSON.parse(fs.readFileSync(path.join(__dirname, '../../docs/grafana-dashboard.json'), 'utf8'));
      const demand = dashboard.panels.find((p: { title: string }) => p.title.startsWith('Demand'));
      const panel = await influxQuery(influx.port, DB, demand.targets[0].query.replace('$timeFilter', 'time > 0'));
      should(panel.map((r) => [r.time, r.site, r.unit, r.average, r.month_value])).eql([
        [from, 'barn', 'kW', 6, 6],
        [from + 15 * MIN, 'barn', 'kW', 3, 6],
      ]);
      const docs = fs.readFileSync(path.join(__dirname, '../../docs/records.md'), 'utf8');
      const daily = docs.match(/SELECT max\("average"\) FROM "energy_peak" [^\n]*/)![0];
      const days = await influxQuery(influx.port, DB, daily.replace('$timeFilter', 'time > 0').replace('Europe/Oslo', ZONE));
      should(days.filter((r) => r.max !== null)).eql([
        { time: localPeriod('day', from, { timezone: ZONE }).from, gateway: 'G', meter: 'e1.kwh', max: 6 },
      ]);

      // a restart, then the same history from zero (as after a store a save behind): the same points again, none added
      await context.restart();
      helper.getNode('p').receive({ reset: true });
      await inbox('out').next(1);
      await feed(readings); // written: the rows below are those after the replay
      await expect();
      should(await influxQuery(influx.port, DB, q)).have.length(4);
    });
  });

  describe('Home Assistant over MQTT', () => {
    const program = serverProgram('mosquitto');
    let broker: RunningServer;
    before(async function () {
      if (!program) return this.skip();
      broker = await startMosquitto(program);
    });
    after(async () => broker?.stop());
    afterEach(async () => helper.unload());

    it("publishes the month's peak and the projection as retained power entities with their states", async () => {
      const flow: FlowNode[] = [
        accountNode(sim, ZONE),
        {
          id: 'p',
          type: 'easy-peak',
          account: 'acc',
          minutes: '15',
          limit: 'peak',
          records: 'homeassistant',
          wires: [['out'], [], [], ['mq']],
        },
        { id: 'out', type: 'helper' },
        ...mqttOut(broker.port),
        ...catchNodes(),
      ];
      await helper.load([easyAccount, easyPeak, mqttNodes], flow, { acc: { token: TOKEN } });
      // the broker node connects after the deploy; what mqtt out gets before is not published
      await brokerConnected();
      const readings = history(startOfReadings(), 20);
      const out = inbox('out');
      for (const r of readings) helper.getNode('p').receive({ ...r });
      const msgs = await out.next(readings.length, 10_000);
      const site = msgs[msgs.length - 1].payload.site;

      // the publishes may still be on their way: fresh subscribers until the last reading's states are retained
      const seen = await retainedWhen(broker.port, ['homeassistant/#', 'node-red-easy/#'], (s) => {
        const projected = s.get('node-red-easy/p/peak_projected');
        return projected !== undefined && JSON.parse(projected).value === site.window.projectedKw;
      });
      const state = (o: string) => seen.get(`node-red-easy/p/${o}`);
      for (const object of ['peak_month', 'peak_projected', 'peak_billed']) {
        const config = JSON.parse(seen.get(`homeassistant/sensor/p/${object}/config`)!);
        should(config).match({
          unit_of_measurement: 'kW',
          device_class: 'power',
          state_class: 'measurement',
          state_topic: `node-red-easy/p/${object}`,
          availability_topic: 'node-red-easy/status',
          device: { name: 'easy energy' },
        });
        should(config.last_reset_value_template).be.undefined();
      }
      should(JSON.parse(state('peak_month')!)).eql({ value: 6 });
      should(JSON.parse(state('peak_projected')!)).eql({ value: site.window.projectedKw });
      should(JSON.parse(state('peak_billed')!)).eql({ value: site.bill.billedKw });
      should(site.window.projectedKw).be.approximately(3, 1e-9);
      should(seen.get('node-red-easy/status')).equal('online');
    });
  });
});
