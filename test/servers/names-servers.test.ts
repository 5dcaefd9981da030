// Names are data, on the real servers (docs/records.md, "Names"): hostile meter and gateway
// names (a line break, a backslash, quotes, commas, =, spaces, emoji, 500 characters, + and #)
// reach InfluxDB intact through node-red-contrib-influxdb or are refused in words, never
// written broken; a node's name InfluxDB cannot keep is refused at deploy; in Home Assistant
// two different meters never share an entity, a unique_id or a topic, whatever their names.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easyAccount = require('../../nodes/easy-account');
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import { accountNode, helper, inbox, quiet, TOKEN, withSimulator } from '../nodes/flow-support';
import {
  brokerConnected,
  confirmedBy,
  influxConfig,
  influxForSuite,
  influxQuery,
  loadFlowOnce,
  mqttOut,
  retainedWhen,
  RunningServer,
  serverProgram,
  startMosquitto,
  streamCost,
} from '../servers';
import { HOSTILE_NAMES, REFUSED_BY_INFLUX } from '../hostile-names';
import { localPeriod } from '../../nodes/lib/engine/time/time';
const influxNodes = require('node-red-contrib-influxdb');
const mqttNodes = require(require.resolve('@node-red/nodes/core/network/10-mqtt.js'));

const DB = 'names';
const ZONE = 'Europe/Oslo';
const GATEWAY = 'gw "x", y=z ☀️';
const HOUR = 3600_000;

describe('names in records on the real servers', function () {
  this.timeout(150_000); // readEach may wait a minute after local midnight
  let sim: Simulator;
  beforeEach(async () => {
    sim = await withSimulator();
  });
  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  /**
   * Two readings up to an hour apart for each topic (of `gateway`; none: the bare default meter),
   * and their output 1 messages. Both fall in today's local day whatever the hour the test runs
   * at (two hours before 01:00 would close yesterday and write `energy_cost` too): just after
   * local midnight it waits a minute for room.
   */
  async function readEach(node: string, meters: Array<[string | null, string | null]>) {
    const out = inbox('out');
    let sinceMidnight = Date.now() - localPeriod('day', Date.now(), { timezone: ZONE }).from;
    if (sinceMidnight < 61_000) {
      await quiet(61_000 - sinceMidnight);
      sinceMidnight = Date.now() - localPeriod('day', Date.now(), { timezone: ZONE }).from;
    }
    const gap = Math.min(HOUR, Math.floor((sinceMidnight - 1000) / 2));
    const at = Date.now() - 2 * gap;
    for (const [i, [gateway, topic]] of meters.entries())
      for (const k of [0, 1])
        helper.getNode(node).receive({
          ...(gateway === null ? {} : { gateway }),
          ...(topic === null ? {} : { topic }),
          payload: 100 + i + k,
          ts: at + k * gap,
        });
    return out.next(2 * meters.length, 20_000);
  }

  describe('InfluxDB', () => {
    const influx = influxForSuite(DB);

    it('hostile meter and gateway names arrive intact as tags, or are refused in words once each; no measurement of their making', async () => {
      await loadFlowOnce(
        [easyAccount, easyCost, influxNodes],
        [
          accountNode(sim, ZONE),
          influxConfig(influx.port, DB),
          streamCost({ records: 'influx-batch', recordsConfirm: true }, ['ifx']),
          { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
          ...confirmedBy(['ifx'], ['c', 'writes'], ['c', 'failures']),
          { id: 'writes', type: 'helper' },
          { id: 'failures', type: 'helper' },
          { id: 'out', type: 'helper' },
          { id: 'ours', type: 'catch', scope: ['c'], uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'helper' },
        ],
        { acc: { token: TOKEN }, influx: {} },
      );
      const caught = inbox('caught');
      helper.getNode('c').receive({ records: 'send' });
      await readEach(
        'c',
        HOSTILE_NAMES.map((n) => [GATEWAY, n]),
      );
      const kept = HOSTILE_NAMES.filter((n) => !REFUSED_BY_INFLUX.includes(n));
      let tags: string[] = [];
      for (let i = 0; i < 100 && tags.length < kept.length; i++) {
        tags = (await influxQuery(influx.port, DB, 'SHOW TAG VALUES FROM energy_cost_running WITH KEY = "meter"')).map((r) =>
          String(r.value),
        );
        if (tags.length < kept.length) await quiet(100);
      }
      should(tags.sort()).eql([...kept].sort());
      const gateways = await influxQuery(influx.port, DB, 'SHOW TAG VALUES FROM energy_cost_running WITH KEY = "gateway"');
      should(gateways.map((r) => r.value)).eql([GATEWAY]);
      should((await influxQuery(influx.port, DB, 'SHOW MEASUREMENTS')).map((r) => r.name)).eql(['energy_cost_running']);
      should(inbox('failures').received).be.empty(); // no write was refused: nothing broken was sent
      // each refused name said once, in words, at Catch
      const said = caught.received.map((m) => String(m.error.message));
      should(said).have.length(REFUSED_BY_INFLUX.length);
      for (const n of REFUSED_BY_INFLUX) should(said.filter((t) => t.includes(`meter ${JSON.stringify(n)}`))).have.length(1);
      // the values are the messages' own
      const rows = await influxQuery(influx.port, DB, `SELECT energy FROM energy_cost_running WHERE period = 'day' GROUP BY meter`);
      should(rows.map((r) => r.energy)).eql(kept.map(() => 1));
    });

    it("the dashboard's panels keep meters of two gateways apart: one series per gateway and meter, on what arrived", async () => {
      await loadFlowOnce(
        [easyAccount, easyCost, influxNodes],
        [
          accountNode(sim, ZONE),
          influxConfig(influx.port, DB),
          streamCost({ records: 'influx-batch', recordsConfirm: true }, ['ifx']),
          { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
          ...confirmedBy(['ifx'], ['c']),
          { id: 'out', type: 'helper' },
        ],
        { acc: { token: TOKEN }, influx: {} },
      );
      helper.getNode('c').receive({ records: 'send' });
      // two gateways, each with an e1.kwh; a reading a day earlier closes yesterday for each
      const out = inbox('out');
      const at = Date.now() - 26 * HOUR;
      for (const [i, gateway] of ['north', 'south'].entries())
        for (const k of [0, 1, 2])
          helper.getNode('c').receive({ gateway, topic: 'e1.kwh', payload: 100 * (i + 1) + k, ts: at + k * 13 * HOUR });
      await out.next(6, 20_000);
      let rows: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 100 && rows.length < 2; i++) {
        rows = await influxQuery(influx.port, DB, `SELECT * FROM energy_cost WHERE period = 'day'`);
        if (rows.length < 2) await quiet(100);
      }
      const dashboard = JSON.parse(fs.readFileSync(path.join(__dirname, '../../docs/grafana-dashboard.json'), 'utf8'));
      let checked = 0;
      for (const panel of dashboard.panels)
        for (const t of panel.targets) {
          const q = String(t.query).replace('$timeFilter', 'time > 0').replace('$__interval', '1h').replace('/^$tariff$/', '/.*/');
          if (!/FROM "energy_cost(_running)?"/.test(q)) continue;
          should(q).match(/GROUP BY "gateway", "meter"/);
          should(t.alias).match(/\$tag_gateway\/\$tag_meter/);
          const got = await influxQuery(influx.port, DB, q);
          const series = [...new Set(got.map((r) => `${r.gateway}/${r.meter}`))].sort();
          // the closed month has no point yet; every other panel has both meters, apart
          const [, measurement, period] = /FROM "(\w+)" WHERE "period" = '(\w+)'/.exec(q)!;
          should(series).eql(measurement === 'energy_cost' && period === 'month' ? [] : ['north/e1.kwh', 'south/e1.kwh'], panel.title);
          checked++;
        }
      should(checked).equal(6);
    });

    it("a node's name InfluxDB cannot keep is refused at deploy, in words at Catch, and nothing is written", async () => {
      await loadFlowOnce(
        [easyAccount, easyPeak, influxNodes],
        [
          accountNode(sim, ZONE),
          influxConfig(influx.port, DB),
          {
            id: 'p',
            type: 'easy-peak',
            name: 'barn\\',
            account: 'acc',
            minutes: '15',
            limit: 'peak',
            records: 'influx-batch',
            wires: [['out'], [], [], ['ifx']],
          },
          { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
          { id: 'out', type: 'helper' },
          { id: 'ours', type: 'catch', scope: ['p'], uncaught: false, wires: [['caught']] },
          { id: 'caught', type: 'helper' },
        ],
        { acc: { token: TOKEN }, influx: {} },
      );
      const [error] = await inbox('caught').next(1, 5000);
      should(error.error.message).equal(
        `records: the node's name "barn\\\\" holds a backslash, which InfluxDB cannot keep in a name (at the end it breaks the whole write): rename the node; no records are sent`,
      );
      await readEach('p', [['G', 'e1.kwh']]);
      should(await influxQuery(influx.port, DB, 'SHOW MEASUREMENTS')).eql([]);
    });
  });

  describe('Home Assistant', () => {
    const program = serverProgram('mosquitto');
    let broker: RunningServer;
    before(async function () {
      if (!program) return this.skip();
      broker = await startMosquitto(program);
    });
    after(async () => broker?.stop());

    it('distinct meters give distinct entities, unique_ids and topics, whatever their names; names arrive intact in the configs', async () => {
      const folding: Array<[string | null, string | null]> = [
        ['G', 'a/b'],
        ['G/a', 'b'],
        [null, null], // the bare default meter
        [null, 'default'],
        ['G', 'e1.kwh'],
        ['G', null],
        ['G', 'default'],
      ];
      // a topic spelt as the id another meter's name becomes
      const { haObjectId, haMeterText } = await import('../../nodes/lib/engine/records/home-assistant');
      const meters: Array<[string | null, string | null]> = [
        ...folding,
        [null, haObjectId(haMeterText('G', 'e1.kwh'))],
        ...HOSTILE_NAMES.map((n): [string, string] => ['G', n]),
      ];
      await loadFlowOnce(
        [easyAccount, easyCost, mqttNodes],
        [accountNode(sim, ZONE), streamCost({ records: 'homeassistant' }, ['mq']), { id: 'out', type: 'helper' }, ...mqttOut(broker.port)],
        { acc: { token: TOKEN } },
      );
      await brokerConnected();
      await readEach('c', meters);
      const seen = await retainedWhen(broker.port, ['homeassistant/#'], (s) => s.size >= 7 * meters.length);
      const configs = [...seen.values()].map((text) => JSON.parse(text));
      should(configs).have.length(7 * meters.length);
      should(new Set(configs.map((c) => c.unique_id)).size).equal(7 * meters.length);
      should(new Set(configs.map((c) => c.state_topic)).size).equal(7 * meters.length);
      // each meter's own seven, named with its name as it is (a line break, emoji, 500 characters)
      for (const [gateway, topic] of meters) {
        const shown = gateway === null ? (topic ?? 'default') : `${gateway}/${topic ?? 'default'}`;
        should(configs.filter((c) => c.name === `Meter ${shown}`).length).be.aboveOrEqual(1);
      }
    });
  });
});
