// Records into the real InfluxDB 1.x: easy-tariff and easy-cost (stream and range) wired
// straight to node-red-contrib-influxdb's `influxdb out` and `influxdb batch` in the real
// Node-RED runtime, the simulator on loopback; what arrived is read back over InfluxDB's
// HTTP query API (docs/records.md).
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import easyAccount = require('../../nodes/easy-account');
import easyTariff = require('../../nodes/easy-tariff');
import easyCost = require('../../nodes/easy-cost');
import easyPlan = require('../../nodes/easy-plan');
import { accountNode, catchNodes, FileContext, FlowNode, GATEWAY, helper, inbox, quiet, TOKEN, withSimulator } from '../nodes/flow-support';
import { influxConfig, influxForSuite, influxQuery, influxRows } from '../servers';
const influxNodes = require('node-red-contrib-influxdb');

const HOUR = 3600_000;
const DB = 'easy';
const ZONE = 'Asia/Kolkata'; // local days start at 18:30 UTC: a day's point is at its local start, not at midnight UTC

describe('records into InfluxDB (the real server)', function () {
  this.timeout(60_000);
  const influx = influxForSuite(DB);
  let sim: Simulator;
  let context: FileContext;

  beforeEach(async () => {
    sim = await withSimulator();
    context = new FileContext('easy-influx-context-');
  });
  afterEach(async () => {
    await context.unload();
    await sim.close();
  });

  async function load(flow: FlowNode[]) {
    await helper.load(
      [easyAccount, easyTariff, easyCost, easyPlan, influxNodes, context.use()],
      [accountNode(sim, ZONE), influxConfig(influx.port, DB), ...flow, ...catchNodes()],
      {
        acc: { token: TOKEN },
        influx: {},
      },
    );
  }

  const rows = (q: string, count: number) => influxRows(influx.port, DB, q, count);

  it('writes the price through `influxdb out` at the instant it took effect, tagged by tariff', async () => {
    await load([
      { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-WORKDAY', records: 'influx-out', wires: [['price'], [], ['ifx']] },
      { id: 'price', type: 'helper' },
      { id: 'ifx', type: 'influxdb out', influxdb: 'influx', measurement: '', precision: '' },
    ]);
    const [msg] = await inbox('price').next(1, 10_000);
    const p = msg.payload;
    const [row] = await rows('SELECT * FROM energy_price', 1);
    should(row).eql({
      time: p.validFromMs,
      tariff: 'DEMO-WORKDAY',
      currency: 'GBP',
      price: p.price,
      gross: p.gross,
      vat: p.vat,
    });
    should(p.validFromMs).be.a.Number().and.belowOrEqual(Date.now());
    should(await influxQuery(influx.port, DB, 'SHOW TAG KEYS FROM energy_price')).eql([{ tagKey: 'currency' }, { tagKey: 'tariff' }]);
  });

  it('writes stream totals through `influxdb batch`: one point per meter and local period at its start, final when closed, running beside; a restart and a replay overwrite, never add', async () => {
    await load([
      {
        id: 'c',
        type: 'easy-cost',
        account: 'acc',
        tariff: 'DEMO-FLAT',
        mode: 'stream',
        records: 'influx-batch',
        outputs: 3,
        wires: [['out'], [], ['ifx']],
      },
      { id: 'out', type: 'helper' },
      { id: 'ifx', type: 'influxdb batch', influxdb: 'influx', precision: '' },
    ]);
    const day1 = localPeriod('day', Date.parse('2026-03-04T12:00:00Z'), { timezone: ZONE });
    const day2 = localPeriod('day', day1.to, { timezone: ZONE });
    const reading = (ts: number, value: number) => ({ topic: 'e1.kwh', gateway: GATEWAY, payload: value, ts });
    const history = [reading(day1.from + HOUR, 100), reading(day1.from + 5 * HOUR, 104), reading(day2.from + HOUR, 110)];
    const out = inbox('out');
    /**
     * Sends readings one at a time, each once the one before is in InfluxDB (as readings a
     * minute apart are): the batch node writes each message as it comes, so writes sent in
     * the same millisecond may land in any order (docs/records.md).
     */
    const feed = async (box: ReturnType<typeof inbox>, readings: Array<Record<string, unknown>>) => {
      const sent = [];
      for (const r of readings) {
        helper.getNode('c').receive({ ...r });
        const [msg] = await box.next(1);
        const today = msg.payload.today;
        for (let i = 0; i < 200; i++) {
          const [row] = await influxQuery(
            influx.port,
            DB,
            `SELECT energy FROM energy_cost_running WHERE period = 'day' AND time = ${today.fromMs}ms`,
          );
          if (row?.energy === today.energy) break;
          await quiet(25);
        }
        sent.push(msg);
      }
      return sent;
    };
    const msgs = await feed(out, history);
    const closedDay = msgs[2].payload.closed.day;
    should(closedDay).match({ fromMs: day1.from, energy: 10 }); // 104 → 110 is counted in the day it starts, day 1

    const q = `SELECT * FROM energy_cost WHERE period = 'day'`;
    const running = `SELECT * FROM energy_cost_running WHERE period = 'day' ORDER BY time`;
    const expectDays = async (day2Energy: number) => {
      const days = await rows(q, 1);
      should(days).have.length(1);
      should(days[0]).eql({
        time: day1.from,
        tariff: 'DEMO-FLAT',
        currency: 'GBP',
        gateway: GATEWAY,
        meter: 'e1.kwh',
        period: 'day',
        energy: 10,
        net: closedDay.net,
        gross: closedDay.gross,
        unpriced_energy: 0,
        intervals: 2,
        resets: 0,
        end_ms: day1.to,
      });
      const runs = await rows(running, 2);
      should(runs.map((r) => [r.time, r.energy])).eql([
        [day1.from, 4],
        [day2.from, day2Energy],
      ]);
    };
    await expectDays(0);

    // a restart of the runtime: the stored totals carry on, the running day's point is overwritten
    await context.restart();
    const again = inbox('out');
    await feed(again, [reading(day2.from + 3 * HOUR, 113)]);
    await expectDays(3);

    // the same history replayed from zero (totals lost): the closed day is written again onto its own point
    helper.getNode('c').receive({ reset: true });
    await again.next(1);
    await feed(again, history);
    await expectDays(0);
    const months = await rows(`SELECT * FROM energy_cost_running WHERE period = 'month'`, 1);
    should(months).have.length(1);
    should(months[0].time).equal(localPeriod('month', day1.from, { timezone: ZONE }).from);

    // every query of the Grafana dashboard in docs/ runs on what arrived; the cost per day shows the closed day
    const dashboard = JSON.parse(fs.readFileSync(path.join(__dirname, '../../docs/grafana-dashboard.json'), 'utf8'));
    const answers = new Map<string, Array<Record<string, unknown>>>();
    for (const panel of dashboard.panels)
      for (const t of panel.targets) {
        const q = String(t.query).replace('$timeFilter', 'time > 0').replace('$__interval', '1h').replace('/^$tariff$/', '/.*/');
        answers.set(panel.title, await influxQuery(influx.port, DB, q));
      }
    should(answers.get('Cost per day (with VAT)')).eql([{ gateway: GATEWAY, meter: 'e1.kwh', time: day1.from, gross: closedDay.gross }]);
    should(answers.get('Cost today so far (with VAT)')).eql([{ gateway: GATEWAY, meter: 'e1.kwh', time: day2.from, last: 0 }]);

    // docs/records.md's sum per local day: with tz() the day's bucket is its local day; cut at UTC midnight it is not
    const docs = fs.readFileSync(path.join(__dirname, '../../docs/records.md'), 'utf8');
    const perDay = docs.match(/SELECT sum\("gross"\) FROM "energy_cost" [^\n]*tz\('Europe\/Oslo'\)/)![0];
    const local = await influxQuery(influx.port, DB, perDay.replace('$timeFilter', 'time > 0').replace('Europe/Oslo', ZONE));
    should(local.filter((r) => r.sum !== null)).eql([{ time: day1.from, sum: closedDay.gross }]);
    const utc = await influxQuery(influx.port, DB, perDay.replace('$timeFilter', 'time > 0').replace(/ tz\([^)]*\)/, ''));
    should(utc.filter((r) => r.sum !== null).map((r) => r.time)).not.eql([day1.from]);
  });

  it('writes a range costed by day (range mode) as one point a local day, beside the range itself', async () => {
    await load([
      {
        id: 'c',
        type: 'easy-cost',
        account: 'acc',
        tariff: 'DEMO-FLAT',
        mode: 'range',
        records: 'influx-out',
        outputs: 2,
        wires: [['out'], ['ifx']],
      },
      { id: 'out', type: 'helper' },
      { id: 'ifx', type: 'influxdb out', influxdb: 'influx' },
    ]);
    const to = localPeriod('day', Date.now(), { timezone: ZONE }).from;
    const from = to - 3 * 24 * HOUR;
    helper.getNode('c').receive({ gateway: GATEWAY, sensor: 'e1.kwh', from, to, split: 'day' });
    const [msg] = await inbox('out').next(1, 20_000);
    const got = await rows(`SELECT * FROM energy_cost WHERE period = 'day' ORDER BY time`, 3);
    should(got.map((r) => r.time)).eql(msg.payload.days.map((d: { fromMs: number }) => d.fromMs));
    should(got.map((r) => r.gross)).eql(msg.payload.days.map((d: { gross: number }) => d.gross));
    const [range] = await rows(`SELECT * FROM energy_cost WHERE period = 'range'`, 1);
    should(range).match({ time: from, end_ms: to, gateway: GATEWAY, meter: 'e1.kwh', energy: msg.payload.energy });
  });

  it("writes easy-plan's plan at its window's start and its switch state, tagged by the node's name", async () => {
    await load([
      {
        id: 'p',
        type: 'easy-plan',
        name: 'heater',
        account: 'acc',
        tariff: 'DEMO-WORKDAY',
        durationHours: 2,
        durationMinutes: 0,
        mode: 'rolling',
        hours: 24,
        contiguous: false,
        maxPrice: '',
        records: 'influx-batch',
        outputs: 3,
        wires: [['sw'], ['plan'], ['ifx']],
      },
      { id: 'sw', type: 'helper' },
      { id: 'plan', type: 'helper' },
      { id: 'ifx', type: 'influxdb batch', influxdb: 'influx' },
    ]);
    const [plan] = await inbox('plan').next(1, 15_000);
    const [sw] = await inbox('sw').next(1, 15_000);
    const [row] = await rows('SELECT * FROM plan', 1);
    should(row).eql({
      time: plan.payload.window.fromMs,
      tariff: 'DEMO-WORKDAY',
      currency: 'GBP',
      plan: 'heater',
      request: 'plan',
      requested_hours: 2,
      planned_hours: plan.payload.planned / HOUR,
      shortfall_hours: Math.max(0, plan.payload.requested - plan.payload.planned) / HOUR, // what was asked less what was planned
      slots: plan.payload.slots.length,
      average_price: plan.payload.averagePrice,
      cost_per_kw_net: plan.payload.costPerKw.net,
      cost_per_kw_gross: plan.payload.costPerKw.gross,
      ...(plan.payload.comparedToNow
        ? { saving: plan.payload.comparedToNow.saving, saving_gross: plan.payload.comparedToNow.savingGross }
        : {}),
    });
    const [state] = await rows('SELECT * FROM plan_switch', 1);
    should(state).match({ plan: 'heater', on: sw.state === 'on' ? 1 : 0, outside: sw.state === 'outside' });
  });
});
