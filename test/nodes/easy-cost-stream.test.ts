// easy-cost's stream mode through the real Node-RED runtime and the simulator over
// loopback: local days and months, bars, easy-sensors' messages, glitches and jumps, late and
// bad readings, paced status, meters of a gateway, live sensor values, every message ended once.
import should from 'should';
import { DEMO_TARIFFS, GENERATOR_ON_MS, GENERATOR_PERIOD_MS } from '../../sim/demo-data';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { roundAmount } from '../../nodes/lib/engine/common/format';
import easyCost = require('../../nodes/easy-cost');
import {
  accountNode,
  catchNodes,
  GATEWAY,
  helper,
  inbox,
  lastStatus,
  loadFlow,
  quiet,
  withSimulator,
  statuses,
  statusSettled,
} from './flow-support';
import { costNode, costSuite } from './cost-flows';
import { until } from '../fake-clock';

const HOUR = 3600_000;
const tariff = (id: string) => DEMO_TARIFFS.find((t) => t.id === id)!;

describe('easy-cost node', function () {
  const { suite, load } = costSuite();

  /** A stream node with Catch and Complete nodes: every message must end exactly once. */
  async function loadWithComplete(timezone?: string) {
    await loadFlow(
      [easyCost],
      [
        accountNode(suite.sim, timezone),
        costNode({ mode: 'stream', tariff: 'DEMO-FLAT', wires: [['out']] }),
        { id: 'out', type: 'helper' },
        ...catchNodes(),
        { id: 'completer', type: 'complete', scope: ['c'], uncaught: false, wires: [['completed']] },
        { id: 'completed', type: 'helper' },
      ],
    );
  }

  describe('stream', () => {
    it('resets today at local midnight of the account zone and reports the day that closed', async () => {
      // Asia/Kolkata (UTC+05:30): local midnight of 5 March is 18:30Z on 4 March
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'Asia/Kolkata');
      const feed = [
        ['2026-03-04T18:00:00Z', 10],
        ['2026-03-04T18:29:00Z', 12],
        ['2026-03-04T18:31:00Z', 16],
        ['2026-03-04T19:00:00Z', 17],
      ];
      for (const [ts, value] of feed) node.receive({ payload: value, ts });
      const msgs = await out.next(4);
      should(msgs[1].payload.today).match({ energy: 2, from: '2026-03-03T18:30:00.000Z', to: '2026-03-04T18:30:00.000Z' });
      should(msgs[1].payload).not.have.property('closed');
      should(msgs[2].payload.closed.day).match({ energy: 6, to: '2026-03-04T18:30:00.000Z' }); // 18:29 -> 18:31 counts where it starts
      should(msgs[3].payload.today).match({ energy: 1, from: '2026-03-04T18:30:00.000Z' });
      should(msgs[3].payload.month.energy).equal(7);
      should(msgs[3].payload.total).match({ energy: 7, net: 7 * 0.25, from: '2026-03-04T18:00:00.000Z', to: null });
      should(msgs[3].payload.today.formatted.gross.text).equal((0.25 * 1.2).toFixed(2));
    });

    it('amounts read like typed numbers, and 200 readings later the totals have not drifted', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC');
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      // 1488.71, 1488.72, …: each a float with binary noise, as a meter's counter reads
      const feed = Array.from({ length: 201 }, (_, k) => [t0 + k * 60_000, 1488.71 + k * 0.01] as [number, number]);
      for (const [ts, value] of feed) node.receive({ payload: value, ts });
      const msgs = await out.next(feed.length, 20_000);
      const last = msgs[msgs.length - 1].payload;
      const reference = computeCost(tariff('DEMO-FLAT'), feed, { timezone: 'UTC' });
      should(last.total).match({
        energy: roundAmount(reference.energy),
        net: roundAmount(reference.net),
        gross: roundAmount(reference.gross),
      });
      should(last.total.energy).equal(2);
      should(last.total.gross).equal(0.6);
      should(last.total).match({ fromMs: t0, from: '2026-03-04T10:00:00.000Z' });
      for (const { payload } of msgs.slice(1)) {
        should(payload.change.energy).equal(0.01);
        should(payload.change.gross).equal(0.003);
        for (const bucket of [payload.today, payload.week, payload.month, payload.total]) {
          for (const amount of [bucket.energy, bucket.net, bucket.gross]) should(amount).equal(roundAmount(amount));
        }
      }
    });

    it('sends each closed day and month as a bar for Dashboard 2 on the second output', async () => {
      await loadFlow(
        [easyCost],
        [
          accountNode(suite.sim, 'Asia/Kolkata'),
          costNode({ mode: 'stream', tariff: 'DEMO-FLAT', wires: [['out'], ['bars']] }),
          { id: 'out', type: 'helper' },
          { id: 'bars', type: 'helper' },
          ...catchNodes(),
        ],
      );
      const node = helper.getNode('c');
      const bars = inbox('bars');
      // local midnight of 1 April in Kolkata is 18:30Z on 31 March: a day and a month end
      for (const [ts, value] of [
        ['2026-03-31T18:00:00Z', 10],
        ['2026-03-31T18:29:00Z', 12],
        ['2026-03-31T18:31:00Z', 16],
      ])
        node.receive({ payload: value, ts });
      await inbox('out').next(3);
      const [day, month] = await bars.next(2);
      // 6 kWh at 0.25 + 20 % VAT
      should(day).match({ topic: 'cost per day (GBP)', period: 'day', payload: [{ x: '2026-03-31', y: 1.8 }], action: 'append' });
      should(month).match({ topic: 'cost per month (GBP)', period: 'month', payload: [{ x: '2026-03', y: 1.8 }], action: 'append' });
      await quiet(100);
      should(bars.received).eql([]);
    });

    it("takes easy-sensors messages: meter readings counted, the tariff's own sensor as a live value", async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-GENERATOR' });
      const warnings: string[] = [];
      node.on('call:warn', (call: { args: [string] }) => warnings.push(call.args[0]));
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      const meter = (ts: number, value: number) => ({
        topic: 'e1.kwh',
        gateway: GATEWAY,
        payload: { id: 'e1.kwh', value, ts, decoded: { kind: 'modbus', quantity: 'energy' } },
      });
      const input1 = (ts: number, value: number) => ({
        topic: '1',
        gateway: GATEWAY,
        payload: { id: '1', value, ts, decoded: { kind: 'digital_input', channel: 1 } },
      });
      node.receive(input1(t0 - GENERATOR_PERIOD_MS, 0));
      node.receive(meter(t0, 100));
      node.receive(input1(t0 + HOUR, 1)); // the generator starts
      node.receive(meter(t0 + HOUR, 101));
      node.receive(meter(t0 + 2 * HOUR, 103));
      const volts = {
        topic: 'e1.v3p@1',
        gateway: GATEWAY,
        payload: { id: 'e1.v3p@1', value: 230, ts: t0, decoded: { kind: 'modbus', quantity: 'voltage' } },
      };
      node.receive(volts);
      node.receive(volts);
      const msgs = await out.next(3);
      should(msgs[2].payload.total.net).be.approximately(1 * 0.22 + 2 * 0.55, 1e-9);
      await quiet(100);
      should(out.received).be.empty(); // neither the input nor the voltage made a message
      should(warnings).eql([
        `stream mode ignores sensor ${GATEWAY}/e1.v3p@1: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)`,
      ]);
    });

    it('a Modbus read of 0 between readings every 10 s: held, then dropped as a glitch; the totals those of the meter', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC');
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      for (let i = 0; i < 12; i++) node.receive({ payload: i === 3 ? 0 : 12_345 + (4.6 * i) / 11, ts: t0 + i * 10_000 });
      const msgs = await out.next(12);
      should(msgs[3].payload).match({ held: 1, change: { energy: 0 }, today: { energy: roundAmount((4.6 * 2) / 11) } });
      should(msgs[3].payload).not.have.property('ignored');
      should(msgs[4].payload.glitches).eql([{ ts: t0 + 30_000, timestamp: '2026-03-04T10:00:30.000Z', value: 0, kind: 'low' }]);
      should(msgs[4].payload.change.energy).equal(roundAmount((4.6 * 2) / 11)); // 10:00:20 -> 10:00:40, nothing twice
      should(msgs[4].payload).not.have.property('held');
      should(msgs[11].payload.today).match({ energy: 4.6, resets: 0, intervals: 10, gross: roundAmount(4.6 * 0.25 * 1.2) });
    });

    it('highest power: a rise faster than the setting is a jump, a swap when the meter goes on from it', async () => {
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      const feed = [100, 100.1, 150, 150.1]; // 49.9 kWh in an hour is 49.9 kW
      const run = async (maxPowerKw: string) => {
        const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT', maxPowerKw }, 'UTC');
        feed.forEach((value, i) => node.receive({ payload: value, ts: t0 + i * HOUR }));
        const msgs = await out.next(feed.length);
        await helper.unload();
        return msgs;
      };
      const limited = await run('20');
      should(limited[2].payload).match({ held: 1, today: { energy: 0.1 } });
      should(limited[3].payload.today).match({ energy: roundAmount(0.2), resets: 1, intervals: 3 }); // 100.1 -> 150 a swap
      const byDefault = await run('');
      should(byDefault[3].payload.today).match({ energy: roundAmount(50.1), resets: 0 }); // 10,000 kW
    });

    it('a bad highest power setting: a clear error at deploy (status) and at Catch for each message', async () => {
      for (const bad of ['0', '-5', 'fast', '1e400', '2000000']) {
        const { node, caught } = await load({ mode: 'stream', tariff: 'DEMO-FLAT', maxPowerKw: bad });
        await until('the red status', () => lastStatus('c')?.fill === 'red');
        should(lastStatus('c')).match({
          fill: 'red',
          text: /^the highest power of a meter \(kW\) must be a number from 0\.001 to 1000000, got /,
        });
        node.receive({ payload: 5 });
        const [err] = await caught.next(1);
        should(err.error.message).equal(
          `The highest power of a meter (kW) must be a number from 0.001 to 1000000, got ${JSON.stringify(bad)}.`,
        );
        await helper.unload();
      }
    });

    it('places late readings, reports duplicates, too-late and garbage readings, and keeps counting', async () => {
      const { node, out, caught } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' });
      node.receive({ payload: 1, ts: 1000 * HOUR });
      node.receive({ payload: 3, ts: 1001 * HOUR });
      node.receive({ payload: 3, ts: 1001 * HOUR });
      node.receive({ payload: 0, ts: 999 * HOUR });
      node.receive({ payload: { value: 'x' } });
      node.receive({ payload: 4, ts: 1002 * HOUR });
      node.receive({ payload: 2, ts: 950 * HOUR });
      const msgs = await out.next(6);
      should(msgs.map((m) => m.payload.ignored)).eql([undefined, undefined, 'duplicate', undefined, undefined, 'too_late']);
      should(msgs[3].payload).match({ late: true, change: { energy: 1 } });
      should(msgs[5].payload.total).match({ energy: 4, intervals: 3, from: new Date(999 * HOUR).toISOString() });
      const [err] = await caught.next(1);
      should(err.error.message).match(/msg.payload.value as a finite number of kWh/);
    });

    it('hands a reading 100 years away to Catch with the field named, and keeps counting', async () => {
      const { node, out, caught } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' });
      node.receive({ payload: 1, ts: 1e300 });
      node.receive({ payload: { id: 'e1.kwh', value: 1, ts: -8.64e15 }, gateway: GATEWAY });
      const errs = (await caught.next(2)).map((e) => e.error.message);
      should(errs).eql([
        'msg.ts must lie within 100 years of now, got 1e+300.',
        'msg.payload.ts must lie within 100 years of now, got -8640000000000000.',
      ]);
      node.receive({ payload: 1, ts: Date.now() - HOUR });
      node.receive({ payload: 2, ts: Date.now() });
      const msgs = await out.next(2);
      should(msgs[1].payload.total.energy).equal(1);
    });

    it('shows at most one routine status a second during a burst of readings, and the newest total once it ends', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC');
      await quiet(50); // the restore status
      const seen = statuses('c');
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      for (let i = 0; i <= 200; i++) node.receive({ topic: `m${i % 8}`, payload: i, ts: t0 + i * 60_000 });
      const msgs = await out.next(201);
      // every total went out; the status was not redrawn 201 times (at once only if a second has
      // passed since the restore status)
      should(seen.length).be.belowOrEqual(2);
      await statusSettled();
      should(seen.length).be.within(1, 3);
      const site = msgs[200].payload.site;
      should(seen[seen.length - 1].text).startWith(
        `today GBP ${site.today.gross.toFixed(2)} · ${site.today.energy.toFixed(2)} kWh · 8 meters`,
      );
    });

    it('counts each meter of a gateway on its own and sums them for the site (easy-sensors "each" output)', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC');
      const seen = statuses('c');
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      const reading = (id: string, ts: number, value: number) => ({
        topic: id,
        gateway: GATEWAY,
        payload: { id, value, ts, unit: 'kWh', decoded: { kind: 'modbus', quantity: 'energy' } },
      });
      // e2 at the same instant as e1, then 30 s later: each counts against its own previous reading
      node.receive(reading('e1.kwh', t0, 100));
      node.receive(reading('e2.kwh', t0, 5000));
      node.receive(reading('e1.kwh', t0 + HOUR, 103));
      node.receive(reading('e2.kwh', t0 + HOUR + 30_000, 5006));
      const msgs = await out.next(4);
      should(msgs[2].payload).match({ today: { energy: 3, resets: 0 }, meter: { gateway: GATEWAY, topic: 'e1.kwh' } });
      should(msgs[3].payload).match({
        today: { energy: 6, resets: 0 },
        meter: { topic: 'e2.kwh' },
        site: { meters: 2, today: { energy: 9, resets: 0 }, total: { energy: 9 } },
      });
      await statusSettled();
      should(seen[seen.length - 1]).eql({
        fill: 'green',
        shape: 'dot',
        text: 'today GBP 2.70 · 9.00 kWh · 2 meters · month → GBP 1,992.20',
      }); // 2.70 in 60.5 minutes, over March's 744 hours
      node.receive({ reset: 'e1.kwh', gateway: GATEWAY });
      const [reset] = await out.next(1);
      should(reset.payload).match({ today: null, meter: { topic: 'e1.kwh' }, site: { meters: 1, today: { energy: 6 } } });
    });

    it('prices with the live values it polls for the sensors the tariff reads', async () => {
      // the simulator's clock sits two minutes into a generator run, so input "1" reads 1
      const running = Math.floor(Date.now() / GENERATOR_PERIOD_MS) * GENERATOR_PERIOD_MS - GENERATOR_PERIOD_MS + 2 * 60_000;
      await suite.sim.close();
      suite.sim = await withSimulator({ now: () => running });
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-GENERATOR' });
      while (!suite.sim.requests.some((r) => r.endpoint === 'sensors' && r.status === 200)) await quiet(10);
      await quiet(50);
      node.receive({ payload: 10, ts: running });
      node.receive({ payload: 12, ts: running + GENERATOR_ON_MS / 2 });
      const msgs = await out.next(2);
      should(msgs[1].payload.total).match({ energy: 2, unpricedEnergy: 0 });
      should(msgs[1].payload.total.net).be.approximately(2 * 0.55, 1e-9);
    });

    it('counts energy no rule can price as unpriced, and shows it, when the sensor is unknown', async () => {
      suite.sim.setFaults({ removedGateways: [GATEWAY] }); // the generator input cannot be read
      const { node, out } = await load({ mode: 'stream', tariff: 'GENERATOR-ONLY' }, 'UTC');
      const seen = statuses('c');
      node.receive({ payload: 10, ts: HOUR });
      node.receive({ payload: 12, ts: 2 * HOUR });
      const msgs = await out.next(2);
      should(msgs[1].payload.total).match({ energy: 2, unpricedEnergy: 2, net: 0 });
      await statusSettled();
      should(seen[seen.length - 1]).match({
        fill: 'yellow',
        text: 'today GBP 0.00 · 2.00 kWh · 1 meter · 2.00 kWh unpriced · month → GBP 0.00',
      });
    });

    it('ends every message exactly once: Complete for the counted, Catch for the refused', async () => {
      await loadWithComplete();
      const completed = inbox('completed');
      const caught = inbox('caught');
      const inputs = [1, 'x', 2, null, { value: 3 }, 3, [4], 4, { value: 5, ts: 5 * HOUR }];
      inputs.forEach((payload, i) => helper.getNode('c').receive({ payload, ts: i * HOUR }));
      await completed.next(5);
      await caught.next(4);
      await quiet(200);
      should(completed.received.length + caught.received.length).equal(0);
    });

    it('an unfiltered gateway beyond the meter limit: one Catch message per poll saying how many, every message ended once', async function () {
      this.timeout(30_000); // 600 messages through the runtime and 3 s of showing that no more come: over 10 s on a loaded machine
      await loadWithComplete('UTC');
      const completed = inbox('completed');
      const caught = inbox('caught');
      const out = inbox('out');
      const poll = (value: number) => {
        for (let m = 0; m < 300; m++) {
          const id = `e${m}.kwh`;
          helper.getNode('c').receive({ topic: id, gateway: GATEWAY, payload: { id, value, ts: Date.now(), unit: 'kWh' } });
        }
      };
      poll(1);
      await out.next(128);
      await completed.next(128 + 171, 5000);
      const [err] = await caught.next(1, 5000);
      should(err.error.message).match(
        /^Meter limit reached: 172 sensors ignored, "DEMO\/e128.kwh" the first \(stream mode counts at most 128 meters/,
      );
      await quiet(1500);
      should(caught.received).have.length(0); // 0.1.x: 172 Catch messages per poll
      poll(2);
      await out.next(128);
      should((await caught.next(1, 5000))[0].error.message).match(/172 sensors ignored/);
      await completed.next(128 + 171, 5000);
      await quiet(1500);
      should(completed.received.length + caught.received.length).equal(0);
    });
  });
});
