// The two records examples as shipped, deployed in the real runtime with the real
// servers: "price and cost into InfluxDB" (node-red-contrib-influxdb into InfluxDB 1.x)
// and "price, cost and plan in Home Assistant" (core mqtt out into Mosquitto), read back
// over InfluxDB's query API and by an MQTT client subscribed to the broker (docs/records.md).
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyAccount = require('../../nodes/easy-account');
import easyTariff = require('../../nodes/easy-tariff');
import easyCost = require('../../nodes/easy-cost');
import easyPlan = require('../../nodes/easy-plan');
import easySensors = require('../../nodes/easy-sensors');
import { exampleFlow, FlowNode, GATEWAY, helper, inbox, quiet, TOKEN, withSimulator } from '../nodes/flow-support';
import { freePort } from '../free-port';
import { haObjectId } from '../../nodes/lib/engine/records/home-assistant';
import { influxForSuite, influxQuery, loadFlowOnce, retainedWhen, RunningServer, serverProgram, startMosquitto } from '../servers';

const influxNodes = require('node-red-contrib-influxdb');
const CORE = ['common/20-inject.js', 'function/15-change.js', 'network/10-mqtt.js'].map((file) =>
  require(require.resolve(`@node-red/nodes/core/${file}`)),
);

/** The example with our account pointed at the simulator, debug nodes as helper nodes, and `edit` applied. */
function shipped(name: string, sim: Simulator, edit: (n: FlowNode) => FlowNode): FlowNode[] {
  return exampleFlow(name).map((n) => {
    if (n.type === 'easy-account') return { ...n, id: n.id, baseUrl: sim.url, timezone: 'UTC' };
    if (n.type === 'debug') return { id: n.id, type: 'helper', z: n.z };
    return edit(n);
  });
}

async function load(flow: FlowNode[]) {
  await loadFlowOnce([easyAccount, easyTariff, easyCost, easyPlan, easySensors, influxNodes, ...CORE], flow, {
    'easy-example-account': { token: TOKEN },
    'influx-example-db': {},
  });
}

/**
 * The example's easy-sensors sends the simulator's meter reading; asked again it sends the
 * same (a duplicate easy-cost ignores). A reading one minute before it, 0.05 kWh lower, is
 * then fed to the cost node: a late reading, so today has 0.05 kWh, and the newest reading
 * stays the simulator's.
 */
async function lateReading(sensorsId: string, costId: string): Promise<{ ts: number; value: number }> {
  const polled = await new Promise<{ ts: number; value: number }>((resolve) => {
    helper.getNode(sensorsId).on('call:send', (call: { args: [Record<string, any>] }) => resolve(call.args[0].payload));
    helper.getNode(sensorsId).receive({});
  });
  helper.getNode(costId).receive({
    topic: 'e1.kwh',
    gateway: GATEWAY,
    payload: { id: 'e1.kwh', value: polled.value - 0.05, ts: polled.ts - 60_000, unit: 'kWh' },
  });
  return polled;
}

describe('the records examples on the real servers', function () {
  this.timeout(60_000);
  let sim: Simulator;
  beforeEach(async () => {
    sim = await withSimulator();
  });
  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  describe('price and cost into InfluxDB', () => {
    const influx = influxForSuite();

    it('creates its database before its first write (no "database not found" at Catch), writes the price at deploy and the meter costs as they come', async () => {
      await load(shipped('price-and-cost-into-influxdb', sim, (n) => (n.type === 'influxdb' ? { ...n, port: String(influx.port) } : n)));
      const problems = inbox('influx-error-debug');
      let price: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 200 && !price.length; i++) {
        price = await influxQuery(influx.port, 'energy', 'SELECT * FROM energy_price').catch(() => []);
        if (!price.length) await quiet(50);
      }
      should(price).have.length(1);
      should(price[0]).match({ tariff: 'DEMO-WORKDAY', currency: 'GBP' });
      await lateReading('influx-meter', 'influx-cost');
      let running: Array<Record<string, unknown>> = [];
      // the poll's reading is written first (0 kWh so far), the late one's after it
      const late = (rows: Array<Record<string, unknown>>) => rows.length === 3 && rows.every((r) => r.energy === 0.05);
      for (let i = 0; i < 200 && !late(running); i++) {
        running = await influxQuery(influx.port, 'energy', 'SELECT * FROM energy_cost_running');
        if (!late(running)) await quiet(50);
      }
      should(running.map((r) => r.period).sort()).eql(['day', 'month', 'week']);
      for (const r of running) should(r).match({ tariff: 'DEMO-WORKDAY', gateway: GATEWAY, meter: 'e1.kwh', energy: 0.05 });
      should(problems.received.map((m) => m.payload)).eql([]);
    });

    it('says why under its debug node when InfluxDB is not there', async () => {
      const closed = await freePort();
      await load(shipped('price-and-cost-into-influxdb', sim, (n) => (n.type === 'influxdb' ? { ...n, port: String(closed) } : n)));
      const [msg] = await inbox('influx-error-debug').next(1, 15_000);
      should(msg.payload)
        .startWith('InfluxDB: ')
        .and.match(/ECONNREFUSED|connect/);
    });
  });

  describe('price, cost and plan in Home Assistant', () => {
    const program = serverProgram('mosquitto');
    let broker: RunningServer;
    before(async function () {
      if (!program) return this.skip();
      broker = await startMosquitto(program);
    });
    after(async () => broker?.stop());

    /** What a new subscriber gets, retained, once `ready` holds (or after 15 s). */
    const retained = (ready: (seen: Map<string, string>) => boolean) =>
      retainedWhen(broker.port, ['homeassistant/#', 'node-red-easy/#'], ready);

    it('makes the price, costs, meter, generator run time and plan entities of one device, retained, with states and availability', async () => {
      await load(
        shipped('price-cost-and-plan-in-home-assistant', sim, (n) =>
          n.type === 'mqtt-broker' ? { ...n, broker: '127.0.0.1', port: String(broker.port) } : n,
        ),
      );
      const [priceMsg] = await new Promise<Array<Record<string, any>>>((resolve) => {
        // the first price (a `connected` from the mqtt out may come first: configs and states again, no price)
        helper.getNode('ha-price').on('call:send', (call: { args: [Array<Record<string, any>>] }) => {
          if (call.args[0][0]) resolve([call.args[0][0]]);
        });
      });
      await quiet(300);
      const polled = await lateReading('ha-meter', 'ha-cost');
      const config = (node: string, object: string) => `homeassistant/sensor/${node}/${object}/config`;
      const seen = await retained(
        (s) => [...s.keys()].filter((t) => t.endsWith('/config')).length >= 14 && s.has('node-red-easy/ha-plan/plan_state'),
      );
      const configs = new Map([...seen].filter(([t]) => t.endsWith('/config')).map(([t, text]) => [t, JSON.parse(text)]));
      for (const [node, object] of [
        ['ha-price', 'price'],
        ['ha-price', 'price_net'],
        ['ha-cost', 'generator_run_today'],
        ['ha-plan', 'plan_state'],
        ['ha-plan', 'plan_next_start'],
      ])
        should(configs.has(config(node, object))).be.true(`${config(node, object)} in ${[...configs.keys()]}`);
      const byObject = (suffix: string) => [...configs].find(([t]) => t.endsWith(`/${suffix}/config`))?.[1];

      // one device for every entity of the three nodes
      const devices = new Set([...configs.values()].map((c) => JSON.stringify(c.device)));
      should(devices.size).equal(1);
      should([...configs.values()][0].device).eql({
        identifiers: ['node-red-easy_' + haObjectId('easy energy')],
        name: 'easy energy',
        manufacturer: 'tariffkit',
        model: 'node-red-easy',
      });

      should(byObject('price')).match({
        unit_of_measurement: 'GBP/kWh',
        state_class: 'measurement',
        availability_topic: 'node-red-easy/status',
        state_topic: 'node-red-easy/ha-price/price',
      });
      should(byObject('price').device_class).be.undefined();
      const costToday = [...configs].find(([t]) => t.endsWith('_cost_today/config'))![1];
      should(costToday).match({
        unit_of_measurement: 'GBP',
        device_class: 'monetary',
        state_class: 'total',
        last_reset_value_template: '{{ value_json.last_reset }}',
      });
      const meter = [...configs].find(([t]) => t.endsWith('_meter/config'))![1];
      should(meter).match({ unit_of_measurement: 'kWh', device_class: 'energy', state_class: 'total_increasing' });
      should(byObject('generator_run_today')).match({ unit_of_measurement: 'h', device_class: 'duration', state_class: 'total' });
      should(byObject('plan_state')).match({ device_class: 'enum', options: ['on', 'off', 'outside'] });
      for (const c of configs.values()) should(c.state_class).not.equal(c.last_reset_value_template ? 'total_increasing' : 'total');

      // states, retained, as the nodes sent them
      should(JSON.parse(seen.get('node-red-easy/ha-price/price')!)).eql({ value: priceMsg.payload.gross });
      const costState = JSON.parse(seen.get(costToday.state_topic)!);
      should(costState.last_reset).equal(new Date(new Date().setUTCHours(0, 0, 0, 0)).toISOString());
      should(JSON.parse(seen.get(meter.state_topic)!)).eql({ value: polled.value }); // not the late reading's
      should(JSON.parse(seen.get(costToday.state_topic)!).value).be.above(0);
      should(['on', 'off', 'outside']).containEql(JSON.parse(seen.get('node-red-easy/ha-plan/plan_state')!).value);
      should(seen.get('node-red-easy/status')).equal('online');

      // Node-RED gone: the broker node's close message marks every entity unavailable
      await helper.unload();
      const after = await retained((s) => s.get('node-red-easy/status') === 'offline');
      should(after.get('node-red-easy/status')).equal('offline');
    });
  });
});
