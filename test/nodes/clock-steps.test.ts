// Every node through the real runtime on a fake clock that steps as NTP steps a Pi's:
// `setSystemTime` moves Date alone (timers and performance.now keep real time), the
// package's heartbeat sees it within LOOK_EVERY_MS (5 s) of real time, and then the price, the relay,
// the polls, the saves and the totals must be right within seconds of fake time.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easySensors = require('../../nodes/easy-sensors');
import easyPlan = require('../../nodes/easy-plan');
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import {
  accountNode,
  catchNodes,
  FakeClock,
  helper,
  inbox,
  installClock,
  loadFlow,
  quiet,
  startedPast,
  withSimulator,
} from './flow-support';
import { guardNode } from './peak-flows';
import { until } from '../fake-clock';
import { clockSteps, LOOK_EVERY_MS } from '../../nodes/lib/engine/time/clock-steps';

const ZONE = 'Europe/London';
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** 0.1 from 01:00 to 03:00 local, 0.3 otherwise. */
const NIGHT = {
  id: 'NIGHT',
  name: 'night',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.1, time_start: '01:00', time_end: '03:00' },
    { priority: 2, price: 0.3 },
  ],
};
const FLAT = { id: 'FLAT', name: 'flat', vat: 0, currency: 'GBP', rules: [{ priority: 1, price: 0.2 }] };

describe('clock steps through the real runtime (fake clock stepped as NTP steps it)', function () {
  this.timeout(120_000); // each step waits up to LOOK_EVERY_MS of real time for the heartbeat
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;

  afterEach(async () => {
    await helper.unload();
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  async function start(now: number, nodes: unknown[], flow: Array<Record<string, unknown>>) {
    clock = installClock(now);
    sim = await withSimulator({ tariffs: () => [NIGHT, FLAT], now: () => Date.now() });
    // hours of fake time pass in a tick: a request in flight must not time out meanwhile
    await loadFlow(nodes, [{ ...accountNode(sim, ZONE), timeoutMs: 7 * DAY }, ...(flow as any[]), ...catchNodes()]);
  }

  /**
   * Steps the wall clock by `by` ms and waits (real time) for the heartbeat to see it (it
   * looks while a deadline is armed or a node listens: `heard` false where none does).
   */
  async function step(by: number, heard = true) {
    const seen = clockSteps.seen;
    // the heartbeat looks every LOOK_EVERY_MS of real time, in which hours of fake time may pass
    // here: a look now is the one it would have taken just before the step
    clockSteps.look();
    clock!.setSystemTime(Date.now() + by);
    if (heard) await until('the heartbeat to see the step', () => clockSteps.seen > seen, LOOK_EVERY_MS * 2);
  }

  /** Moves fake time on `ms`, `stepMs` at a time (a second unless told), letting real I/O settle. */
  async function pass(ms: number, stepMs = 1000) {
    for (let t = 0; t < ms; t += stepMs) {
      await clock!.tickAsync(Math.min(stepMs, ms - t));
      await quiet(2);
    }
  }

  it('easy-tariff: the price is right within seconds of a step forward 3 days, back 1 hour, and a year forward and back', async () => {
    await start(
      Date.parse('2026-03-02T12:00:00Z'),
      [easyTariff],
      [
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'NIGHT', refresh: 60, wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    const out = inbox('out');
    should((await out.next(1))[0].payload.price).equal(0.3);
    const priceNow = async () => {
      await pass(3000);
      const last = out.received.splice(0).pop();
      return last?.payload.price;
    };
    await step(3 * DAY + 14 * HOUR); // Friday 02:00: the cheap hours
    should(await priceNow()).equal(0.1);
    await pass(5 * HOUR + 30 * MIN - 3000, MIN); // 07:30, dear again at 03:00
    out.received.splice(0);
    await step(-HOUR); // 06:30... still dear
    should(await priceNow()).be.undefined();
    await step(-5 * HOUR); // 01:30: cheap
    should(await priceNow()).equal(0.1);
    await step(YEAR + 12 * HOUR); // a year ahead, 13:30: dear
    should(await priceNow()).equal(0.3);
    await step(-YEAR - 12 * HOUR); // back: 01:30 again, cheap, and at 03:00 of the real clock dear again
    should(await priceNow()).equal(0.1);
    await pass(90 * MIN, MIN);
    should(out.received.pop()!.payload).match({ price: 0.3 });
  });

  it('easy-sensors: polls go on every 10 s after a step back of an hour, and after a step forward 3 days', async () => {
    await start(
      Date.parse('2026-03-02T12:00:00Z'),
      [easySensors],
      [
        { id: 's', type: 'easy-sensors', account: 'acc', gateway: 'DEMO', interval: 10, output: 'all', wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    const polls = () => sim!.requests.filter((r) => r.endpoint === 'sensors').length;
    await inbox('out').next(1);
    await pass(30_000);
    const before = polls();
    should(before).be.within(3, 5);
    await step(-HOUR, false); // nothing of this flow waits on the wall clock: no look is needed
    await pass(60_000);
    should(polls() - before).be.within(5, 7); // one every 10 s: none lost, no burst
    const after = polls();
    await step(3 * DAY, false);
    await pass(60_000);
    should(polls() - after).be.within(5, 7);
  });

  describe('easy-plan', () => {
    function planFlow() {
      return [
        {
          id: 'p',
          type: 'easy-plan',
          account: 'acc',
          tariff: 'NIGHT',
          durationHours: 1,
          durationMinutes: 0,
          mode: 'daily',
          from: '22:00',
          until: '07:00',
          contiguous: false,
          maxPrice: '',
          wires: [['sw'], ['plan']],
        },
        { id: 'sw', type: 'helper' },
        { id: 'plan', type: 'helper' },
      ];
    }

    /**
     * The relay's switches, each with the fake monotonic time it was sent at (the node's send,
     * not the helper's input: a delivery under load may come after the clock moved on): what
     * the load really ran.
     */
    function relay() {
      const seen: Array<{ on: boolean; wall: number; real: number }> = [];
      helper.getNode('p').on('call:send', (call: { args: unknown[] }) => {
        const out = call.args[0];
        const msg = (Array.isArray(out) ? out[0] : out) as { topic?: string; payload?: boolean } | null;
        if (msg?.topic === 'switch') seen.push({ on: msg.payload === true, wall: Date.now(), real: performance.now() });
      });
      const onFor = () => {
        let sum = 0;
        let since: number | null = null;
        for (const s of seen) {
          if (s.on && since === null) since = s.real;
          if (!s.on && since !== null) {
            sum += s.real - since;
            since = null;
          }
        }
        return sum + (since === null ? 0 : performance.now() - since);
      };
      return { seen, onFor, state: () => seen[seen.length - 1]?.on };
    }

    it('forward 3 days: the relay follows the plan of the new night within seconds (was off for the 2 h until the old slot)', async () => {
      await start(Date.parse('2026-03-02T23:00:00Z'), [easyPlan], planFlow());
      const r = relay();
      await pass(3000);
      should(r.state()).be.false();
      await step(3 * DAY + 2 * HOUR); // Friday 01:00: the slot of that night begins
      await pass(3000);
      should(r.state()).be.true();
      await pass(HOUR, MIN);
      should(r.state()).be.false();
      should(r.onFor()).be.within(HOUR - 4000, HOUR);
    });

    it('forward 30 minutes inside a slot: the skipped time did not run, so the relay runs the full hour of real time', async () => {
      await start(Date.parse('2026-03-03T00:59:00Z'), [easyPlan], planFlow());
      const r = relay();
      await pass(16 * MIN, MIN); // on at 01:00, 15 minutes run
      should(r.state()).be.true();
      await step(30 * MIN); // 01:45 by the clock, 15 minutes by the relay
      await pass(2 * HOUR, MIN);
      should(r.state()).be.false();
      should(r.onFor()).be.within(HOUR - 2000, HOUR + 2000);
    });

    it('back 1 hour inside a slot: what ran counts once and is not run again (1 h of real time in all)', async () => {
      await start(Date.parse('2026-03-03T00:59:00Z'), [easyPlan], planFlow());
      const r = relay();
      const plans = inbox('plan');
      await pass(46 * MIN, MIN); // on since 01:00: 45 minutes run, by the clock 01:45
      should(r.state()).be.true();
      await step(-HOUR); // 00:45: off until the 15 minutes still owed
      await pass(3000);
      should(r.state()).be.false();
      await pass(3 * HOUR, MIN);
      should(r.state()).be.false();
      should(r.onFor()).be.within(HOUR - 2000, HOUR + 2000);
      should(plans.received.some((m) => m.payload.cause === 'clock')).be.true();
    });

    it('a year forward and back: back on the real date the relay follows tonight’s window, not one a year ahead', async () => {
      await start(Date.parse('2026-03-03T00:59:00Z'), [easyPlan], planFlow());
      const r = relay();
      const plans = inbox('plan');
      await pass(31 * MIN, MIN); // on since 01:00
      await step(YEAR);
      await pass(10 * MIN, MIN);
      await step(-YEAR);
      await pass(3000);
      const window = plans.received[plans.received.length - 1].payload.window;
      should(window.fromMs).equal(Date.parse('2026-03-02T22:00:00Z'));
      should(r.state()).be.true(); // in tonight's cheap hours, with run time still owed
      await pass(3 * HOUR, MIN);
      should(r.state()).be.false(); // the plan of tonight ended: not on until a year from now
    });
  });

  it('easy-cost stream: readings it stamps are counted after a step back, saved within a minute, and "today" is today again after a year forward and back', async () => {
    const T0 = Date.parse('2026-03-02T12:00:00Z');
    await start(
      T0,
      [easyCost],
      [
        { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'FLAT', mode: 'stream', wires: [['out'], ['bars']] },
        { id: 'out', type: 'helper' },
        { id: 'bars', type: 'helper' },
      ],
    );
    await startedPast('c', 'stream · FLAT');
    const out = inbox('out');
    let kwh = 100;
    const read = async () => {
      kwh += 0.01;
      helper.getNode('c').receive({ topic: 'm1', payload: kwh });
      return (await out.next(1))[0].payload;
    };
    for (let i = 0; i < 6; i++) {
      await read();
      await pass(10_000);
    }
    await pass(61_000);
    const savedBefore = JSON.stringify(helper.getNode('c').context().get('totals'));
    await step(-HOUR);
    const after = await read();
    should(after.ignored).be.undefined();
    should(after.change.energy).be.approximately(0.01, 1e-9); // counted from the last value
    await pass(10_000);
    should((await read()).today.energy).be.approximately(0.07, 1e-9);
    await pass(61_000); // saved within a minute, though the clock went back an hour
    should(JSON.stringify(helper.getNode('c').context().get('totals'))).not.equal(savedBefore);
    await step(YEAR);
    await read();
    await pass(10_000);
    should((await read()).today.fromMs).be.above(T0 + YEAR - DAY);
    await step(-YEAR);
    const back = await read();
    should(back.ignored).be.undefined();
    should(back.today.fromMs).equal(Date.parse('2026-03-02T00:00:00Z'));
    // the step forward closed the real day (its bar sent, 0.08 kWh); the day of the clock a year
    // ahead (0.01) is today's again, with the reading after the step back
    should(back.today.energy).be.approximately(0.02, 1e-9);
    should(back.total.energy).be.approximately(0.1, 1e-9); // nothing counted was lost
  });

  it('easy-peak: readings it stamps are counted after a step back, in the window of the real clock', async () => {
    await start(
      Date.parse('2026-03-04T09:00:00Z'),
      [easyPeak],
      [guardNode(), { id: 'out', type: 'helper' }, { id: 'guard', type: 'helper' }, { id: 'chart', type: 'helper' }],
    );
    await startedPast('p', 'restoring the peaks…');
    const out = inbox('out');
    let kwh = 100;
    const read = async () => {
      kwh += 0.01; // 3.6 kW at a reading every 10 s
      helper.getNode('p').receive({ topic: 'm1', payload: kwh });
      return (await out.next(1))[0].payload;
    };
    for (let i = 0; i < 4; i++) {
      await read();
      await pass(10_000);
    }
    await step(-HOUR);
    const first = await read();
    should(first.ignored).be.undefined();
    // counted from the last value moved back with the clock: never an interval from the time the clock left
    should(first.meter.window.powerKw).be.approximately(3.6, 1e-6);
    should(first.meter.window.energy).be.approximately(0.01, 1e-9);
    await pass(10_000);
    const next = await read();
    should(next.ignored).be.undefined();
    should(next.site.window.fromMs).equal(Date.parse('2026-03-04T08:00:00Z'));
    should(next.meter.window.powerKw).be.approximately(3.6, 1e-6);
  });
});
