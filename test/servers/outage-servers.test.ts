// Records through outages on the real servers (docs/records.md, "Outages"): InfluxDB stopped
// during a replay of readings (and Node-RED restarted meanwhile), then started again: every
// record made meanwhile is in the database, once, equal to its message; bursts of readings
// leave every running point at the last message's value. easy-cost and easy-peak with *Keep
// until written*, the writers' Complete and Catch wired back, nothing else between.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import easyAccount = require('../../nodes/easy-account');
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import { accountNode, FileContext, FlowNode, helper, inbox, quiet, TOKEN, withSimulator } from '../nodes/flow-support';
import * as mqtt from 'mqtt';
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
const influxNodes = require('node-red-contrib-influxdb');
const mqttNodes = require(require.resolve('@node-red/nodes/core/network/10-mqtt.js'));

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const DB = 'outage';
const ZONE = 'Europe/Oslo';
const METERS = ['e1.kwh', 'e2.kwh', 'e3.kwh', 'e4.kwh'];

type Row = Record<string, unknown>;
/** A point as a records message carries it: measurement, tags, fields, instant. */
interface SentPoint {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, unknown>;
  timestamp: number;
}

/** The points of records messages (`influxdb batch` and `influxdb out` shapes). */
function pointsOf(msgs: Array<Record<string, any>>): SentPoint[] {
  return msgs.flatMap((m) => {
    if (m.measurement) {
      const { time, ...fields } = m.payload[0];
      return [{ measurement: m.measurement, tags: m.payload[1], fields, timestamp: time }];
    }
    return m.payload as SentPoint[];
  });
}

const keyOf = (measurement: string, tags: Record<string, unknown>, time: unknown) =>
  JSON.stringify([
    measurement,
    time,
    Object.entries(tags)
      .filter(([, v]) => v !== null && v !== undefined)
      .sort(),
  ]);

/** What the records messages say the database must hold: the last value sent per point. */
function expected(msgs: Array<Record<string, any>>): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const p of pointsOf(msgs)) out.set(keyOf(p.measurement, p.tags, p.timestamp), p.fields);
  return out;
}

describe('records through outages on the real servers', function () {
  this.timeout(180_000);
  describe('InfluxDB', influxOutages);
  describe('Home Assistant', brokerOutages);
});

function influxOutages() {
  const influx = influxForSuite(DB);
  let sim: Simulator;
  let context: FileContext;
  beforeEach(async () => {
    sim = await withSimulator();
    context = new FileContext('easy-outage-');
  });
  let halted = false;
  afterEach(async () => {
    if (halted) await influx.server.resume(); // running again for the next test
    halted = false;
    await context.unload();
    await sim.close();
  });

  /** What the database holds of `measurement`, by point, with the tag keys of `tagKeys`. */
  async function stored(measurement: string): Promise<Map<string, Row>> {
    const rows = await influxQuery(influx.port, DB, `SELECT * FROM "${measurement}"`);
    const tagKeys = (await influxQuery(influx.port, DB, `SHOW TAG KEYS FROM "${measurement}"`)).map((r) => String(r.tagKey));
    const out = new Map<string, Row>();
    for (const r of rows) {
      const tags = Object.fromEntries(tagKeys.map((k) => [k, r[k]]));
      const fields = Object.fromEntries(Object.entries(r).filter(([k, v]) => k !== 'time' && !tagKeys.includes(k) && v !== null));
      should(out.has(keyOf(measurement, tags, r.time))).be.false(); // once
      out.set(keyOf(measurement, tags, r.time), fields);
    }
    return out;
  }

  /** The whole database against the records sent: the same points, each once, each with the last values sent. */
  async function databaseHolds(sent: Array<Record<string, any>>, limitMs = 90_000): Promise<void> {
    const started = Date.now();
    let got = new Map<string, Row>();
    let want: Map<string, Record<string, unknown>>;
    for (;;) {
      // what was sent so far (the rest may still be on its way), against what arrived
      want = expected(sent);
      const measurements = [...new Set(pointsOf(sent).map((p) => p.measurement))].sort();
      got = new Map();
      for (const m of measurements) for (const [k, v] of await stored(m)) got.set(k, v);
      const text = (x: Row | undefined) => JSON.stringify(Object.entries(x ?? {}).sort());
      const same = got.size === want.size && [...want].every(([k, v]) => text(got.get(k)) === text(v));
      if (same || Date.now() - started > limitMs) break;
      await quiet(250);
    }
    const missing = [...want.keys()].filter((k) => !got.has(k));
    should(missing.slice(0, 5)).eql([], `${missing.length} of ${want.size} records missing`);
    should(got.size).equal(want.size);
    for (const [k, v] of want) should(got.get(k)).eql(v, k);
  }

  function flow(): FlowNode[] {
    return [
      accountNode(sim, ZONE),
      influxConfig(influx.port, DB),
      {
        id: 'c',
        type: 'easy-cost',
        account: 'acc',
        tariff: 'DEMO-FLAT',
        mode: 'stream',
        records: 'influx-batch',
        recordsConfirm: true,
        outputs: 3,
        wires: [['out'], [], ['ifx', 'rec']],
      },
      {
        id: 'p',
        type: 'easy-peak',
        name: 'barn',
        account: 'acc',
        minutes: '15',
        limit: 'peak',
        records: 'influx-out',
        recordsConfirm: true,
        wires: [['pout'], [], [], ['ifxo', 'prec']],
      },
      { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
      { id: 'ifxo', type: 'influxdb out', influxdb: 'influx', measurement: '', precision: '' },
      // node-red-contrib-influxdb ends a message with done() once written, done(error) when not: back to the easy nodes
      ...confirmedBy(['ifx', 'ifxo'], ['c', 'p']),
      { id: 'out', type: 'helper' },
      { id: 'pout', type: 'helper' },
      { id: 'rec', type: 'helper' },
      { id: 'prec', type: 'helper' },
      // our own nodes' errors: none expected
      { id: 'ours', type: 'catch', scope: ['c', 'p'], uncaught: false, wires: [['caught']] },
      { id: 'caught', type: 'helper' },
    ];
  }

  /** Every meter read every 15 minutes from `from` for `days` days, 1–3 kW by the hour, as a replay sends them. */
  function readings(from: number, days: number, start: Map<string, number>) {
    const out: Array<Record<string, unknown>> = [];
    for (let t = from; t < from + days * DAY; t += 15 * MIN)
      METERS.forEach((topic, i) => {
        const value = (start.get(topic) ?? 100 * (i + 1)) + ((1 + ((t / 3_600_000 + i) % 3)) * 15) / 60;
        start.set(topic, value);
        out.push({ gateway: 'G', topic, payload: value, ts: t });
      });
    return out;
  }

  /** Sends readings to both nodes and waits for each one's output 1 message. */
  async function feed(list: Array<Record<string, unknown>>) {
    const [out, pout] = [inbox('out'), inbox('pout')];
    for (const r of list) {
      helper.getNode('c').receive({ ...r });
      helper.getNode('p').receive({ ...r });
    }
    const [costs] = await Promise.all([out.next(list.length, 60_000), pout.next(list.length, 60_000)]);
    return costs;
  }

  it('InfluxDB stopped during a replay and Node-RED restarted meanwhile: every closed day, window and running point reaches it once it is back, once, equal to its message', async () => {
    await loadFlowOnce([easyAccount, easyCost, easyPeak, influxNodes, context.use()], flow(), { acc: { token: TOKEN }, influx: {} });
    const sent: Array<Record<string, any>> = [];
    const collect = () => {
      for (const id of ['rec', 'prec']) helper.getNode(id).on('input', (m: Record<string, any>) => sent.push(m));
    };
    collect();
    let caught = inbox('caught');
    helper.getNode('c').receive({ records: 'send' });
    helper.getNode('p').receive({ records: 'send' });
    const from = localPeriod('day', Date.now() - 7 * DAY, { timezone: ZONE }).from;
    const values = new Map<string, number>();
    const closedDays: Array<Record<string, any>> = [];
    const keepClosed = (msgs: Array<Record<string, any>>) => {
      for (const m of msgs) if (m.payload.closed?.day) closedDays.push({ meter: m.payload.meter.topic, ...m.payload.closed.day });
    };

    keepClosed(await feed(readings(from, 2, values))); // InfluxDB there
    await databaseHolds(sent, 30_000);

    await influx.server.halt(); // InfluxDB away: two days of the replay
    halted = true;
    const closedBefore = closedDays.length;
    keepClosed(await feed(readings(from + 2 * DAY, 2, values)));
    await quiet(6_000); // the first retry fails too
    should(caught.received).be.empty();
    await context.restart(); // and Node-RED restarted while it is away
    collect();
    caught = inbox('caught');
    keepClosed(await feed(readings(from + 4 * DAY, 2, values)));
    // made meanwhile and kept: days 2 to 5 closed (and four days of windows, counted below)
    should(closedDays.slice(closedBefore).length).equal(4 * METERS.length);

    await influx.server.resume();
    halted = false;
    await databaseHolds(sent);
    // the closed days as easy cost's own output 1 said them
    const days = await influxQuery(influx.port, DB, `SELECT * FROM energy_cost WHERE period = 'day'`);
    should(days).have.length(closedDays.length);
    for (const d of closedDays) {
      const row = days.find((r) => r.meter === d.meter && r.time === d.fromMs)!;
      should(row).match({ gateway: 'G', energy: d.energy, gross: d.gross, end_ms: d.toMs });
    }
    should(caught.received).be.empty();
    // every window each meter and the site closed, once: the six days' but for the last one, still open, and the one
    // open across the restart (easy-peak's store drops a meter whose readings arrived more than a day late, as a replay's do)
    const windows = await influxQuery(influx.port, DB, 'SELECT count(average) FROM energy_peak GROUP BY scope, meter');
    for (const w of windows) should(w.count).be.within(6 * 96 - 2, 6 * 96 - 1);
    should(windows).have.length(METERS.length + 1);
  });

  it('bursts of readings leave every running point at the last message, whatever order writes complete in', async () => {
    await loadFlowOnce([easyAccount, easyCost, easyPeak, influxNodes, context.use()], flow(), { acc: { token: TOKEN }, influx: {} });
    helper.getNode('c').receive({ records: 'send' });
    const meters = Array.from({ length: 8 }, (_, i) => `m${i}.kwh`);
    const from = localPeriod('day', Date.now() - DAY, { timezone: ZONE }).from + 60 * MIN;
    const out = inbox('out');
    const burst: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 24; i++)
      for (const [k, topic] of meters.entries())
        burst.push({ gateway: 'G', topic, payload: 100 + k + i * (0.5 + k / 10), ts: from + i * MIN });
    for (const r of burst) helper.getNode('c').receive({ ...r });
    const msgs = await out.next(burst.length, 30_000);
    const last = new Map<string, Record<string, any>>();
    for (const m of msgs) last.set(m.payload.meter.topic, m.payload);
    const q = `SELECT * FROM energy_cost_running`;
    const matches = (rows: Row[]) =>
      meters.every((topic) =>
        (['day', 'week', 'month'] as const).every((period) => {
          const p = last.get(topic)![period === 'day' ? 'today' : period];
          const row = rows.find((r) => r.meter === topic && r.period === period && r.time === p.fromMs);
          return row !== undefined && row.energy === p.energy && row.gross === p.gross;
        }),
      );
    let rows: Row[] = [];
    for (let i = 0; i < 120 && !matches(rows); i++) {
      rows = await influxQuery(influx.port, DB, q);
      if (!matches(rows)) await quiet(100);
    }
    should(rows).have.length(8 * 3);
    should(matches(rows)).be.true();
  });
}

function brokerOutages() {
  const program = serverProgram('mosquitto');
  let broker: RunningServer;
  let sim: Simulator;
  before(async function () {
    if (!program) return this.skip();
    broker = await startMosquitto(program);
  });
  after(async () => broker?.stop());
  beforeEach(async () => {
    sim = await withSimulator();
  });
  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  it("a broker restarted without its retained messages has every config and the last states again: at once when the mqtt out is connected, and after HA's online", async () => {
    await loadFlowOnce(
      [easyAccount, easyCost, mqttNodes],
      [
        accountNode(sim, ZONE),
        streamCost({ records: 'homeassistant' }, ['mq']),
        { id: 'out', type: 'helper' },
        ...mqttOut(broker.port),
        // as the example wires them: the mqtt out's state and HA's birth message, back to the easy node
        { id: 'connected', type: 'status', scope: ['mq'], wires: [['c']] },
        {
          id: 'ha',
          type: 'mqtt in',
          topic: 'homeassistant/status',
          qos: '1',
          datatype: 'utf8',
          broker: 'b',
          nl: false,
          rap: true,
          rh: 0,
          inputs: 0,
          wires: [['c']],
        },
        { id: 'ours', type: 'catch', scope: ['c'], uncaught: false, wires: [['caught']] },
        { id: 'caught', type: 'helper' },
      ],
      { acc: { token: TOKEN } },
    );
    const caught = inbox('caught');
    const connected = () => (helper.getNode('b') as unknown as { connected: boolean }).connected;
    await brokerConnected();
    const out = inbox('out');
    const at = Date.now() - 3 * 3600_000;
    let n = 0;
    const read = async () => {
      for (const topic of ['e1.kwh', 'e2.kwh']) helper.getNode('c').receive({ gateway: 'G', topic, payload: 100 + n, ts: at + n * 60_000 });
      n++;
      return out.next(2, 10_000);
    };
    const topics = ['homeassistant/#', 'node-red-easy/#'];
    /** Every config and online retained, and each meter's reading state at least that of `last` (its config names its state topic). */
    const whole = (s: Map<string, string>, last: Array<Record<string, any>>) => {
      const configs = [...s].filter(([t]) => t.endsWith('/config')).map(([, text]) => JSON.parse(text));
      return (
        configs.length === 14 &&
        s.get('node-red-easy/status') === 'online' &&
        last.every((m) => {
          const config = configs.find((c) => c.name === `Meter G/${m.payload.meter.topic}`);
          const state = config && s.get(config.state_topic);
          return state !== undefined && JSON.parse(state).value >= m.payload.reading.value;
        })
      );
    };
    let last = await read();
    await read();
    last = await read();
    should(whole(await retainedWhen(broker.port, topics, (s) => whole(s, last)), last)).be.true();

    // the broker goes, readings go on (mqtt out drops what it cannot send), and it comes back with nothing retained
    await broker.halt();
    for (let i = 0; i < 30 && connected(); i++) await quiet(100);
    last = await read();
    last = await read();
    await broker.resume();
    should((await retainedWhen(broker.port, topics, () => false, 0)).size).equal(0);
    const back = await retainedWhen(broker.port, topics, (s) => whole(s, last), 20_000);
    should(whole(back, last)).be.true();
    for (const m of last) {
      const config = [...back]
        .filter(([t]) => t.endsWith('/config'))
        .map(([, text]) => JSON.parse(text))
        .find((c) => c.name === `Meter G/${m.payload.meter.topic}`);
      should(JSON.parse(back.get(config.state_topic)!)).eql({ value: m.payload.reading.value }); // the last state, not one from before
    }

    // every config gone again (as from a broker that lost them): HA's birth message brings them back
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.port}`, { reconnectPeriod: 0 });
    for (const topic of [...back.keys()].filter((t) => t.endsWith('/config')))
      await client.publishAsync(topic, '', { retain: true, qos: 1 });
    should([...(await retainedWhen(broker.port, topics, () => false, 0)).keys()].filter((t) => t.endsWith('/config'))).be.empty();
    await client.publishAsync('homeassistant/status', 'online', { qos: 1 });
    await client.endAsync();
    const again = await retainedWhen(broker.port, topics, (s) => whole(s, last), 10_000);
    should(whole(again, last)).be.true();
    should(caught.received).be.empty(); // HA's offline/online and the node's states are taken, never read as readings
  });
}
