// What the clock-step check holds (clock-steps.ts) is released when the nodes close: its
// listeners and armed deadline timers are those of the nodes deployed now, whatever was
// deployed before, and with none deployed its heartbeat stops at once (a process whose flows
// are stopped exits; a redeploy leaves nothing waking the process every look).
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easyPlan = require('../../nodes/easy-plan');
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import { accountNode, helper, inbox, loadFlow, quiet, TOKEN, withSimulator } from './flow-support';
import { guardNode } from './peak-flows';
import { until } from '../fake-clock';
import { clockSteps } from '../../nodes/lib/engine/time/clock-steps';
import { CostStream } from '../../nodes/lib/runtime/cost/cost-stream';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';

/** A store whose load answers when the test says: the node closes while it restores. */
function slowStore() {
  let answer: (v: unknown) => void = () => undefined;
  const loaded = new Promise<unknown>((resolve) => (answer = resolve));
  return { answer: () => answer(undefined), load: () => loaded, save: async () => undefined };
}

describe('clock-step check released when the nodes close', function () {
  this.timeout(120_000);
  let sim: Simulator | null = null;

  afterEach(async () => {
    await helper.unload();
    await sim?.close();
    sim = null;
  });

  it('easy-cost stream and easy-peak closed while their store still loads: no listener is left once it answers', async () => {
    const before = clockSteps.watching.listeners;
    const costStore = slowStore();
    const cost = new CostStream({ timezone: 'UTC', tariffId: 'F', store: costStore, warn: () => undefined });
    const costRestored = cost.restore();
    const peakStore = slowStore();
    const settings = peakSettings({ minutes: '15', limit: 'fixed', limitKw: '10', marginPercent: '0', hysteresisPercent: '10' });
    const peak = new PeakStream({ timezone: 'UTC', settings, store: peakStore, warn: () => undefined, onGuard: () => undefined });
    const peakRestored = peak.restore();
    await Promise.all([cost.close(), peak.close()]);
    costStore.answer();
    peakStore.answer();
    await Promise.all([costRestored, peakRestored]);
    should(clockSteps.watching.listeners).equal(before);
  });

  it('50 redeploys of every node that waits on the wall clock: the listeners and timers are those of one deploy; none once stopped, the heartbeat too', async () => {
    sim = await withSimulator();
    const flow = [
      accountNode(sim, 'Europe/London'),
      { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-NIGHT', refresh: 60, wires: [['out']] },
      { id: 'out', type: 'helper' },
      {
        id: 'p',

        type: 'easy-plan',
        account: 'acc',
        tariff: 'DEMO-NIGHT',
        durationHours: 2,
        durationMinutes: 0,
        mode: 'daily',
        from: '00:00',
        until: '23:59',
        contiguous: false,
        maxPrice: '',
        wires: [[], []],
      },
      { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [[], []] },
      guardNode({ id: 'k', wires: [[], [], []] }),
    ];
    const base = clockSteps.watching;
    await loadFlow([easyTariff, easyPlan, easyCost, easyPeak], flow);
    await inbox('out').next(1);
    await quiet(200);
    const one = clockSteps.watching;
    // easy-tariff, easy-plan and the prices it follows, easy-cost's stream and easy-peak listen;
    // the price change, the plan's next instant and the peak's window end are armed
    should(one.listeners - base.listeners).equal(5);
    should(one.timers - base.timers).be.within(1, 8);
    for (let i = 0; i < 50; i++) {
      // every other redeploy comes before the last one's nodes have restored
      await (helper as any).setFlows(
        flow.map((n) => ({ ...n, name: `deploy ${i}` })),
        'full',
        { acc: { token: TOKEN } },
      );
      if (i % 2 === 1) await quiet(20);
    }
    await until('the last deploy restored', () => clockSteps.watching.listeners - base.listeners === 5, 60_000);
    await quiet(200);
    should(clockSteps.watching.listeners - base.listeners).equal(5);
    should(clockSteps.watching.timers - base.timers).be.within(1, one.timers - base.timers);
    await helper.unload();
    should(clockSteps.watching).eql(base);
  });
});
