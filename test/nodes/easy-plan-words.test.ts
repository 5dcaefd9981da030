// easy-plan's words through the real runtime on a fake clock (issue 29, points 4, 9 and
// 10): every plan with nothing ahead says why in its mode's words (the saving example
// never says "the duration is 0"), a plan that could plan nothing says so rather than
// "only 0 s", and the plan message reads in a person's units: slots first, run times in
// minutes and as text to the minute beside the ms, the cost per kW in the currency's cents.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyPlan = require('../../nodes/easy-plan');
import easyAccount = require('../../nodes/easy-account');
import {
  catchNodes,
  exampleFlow,
  FakeClock,
  FlowNode,
  helper,
  inbox,
  installClock,
  lastStatus,
  quiet,
  TOKEN,
  withSimulator,
} from './flow-support';

const ZONE = 'Europe/London';

/** One price all day: nothing to gain by waiting, nothing cheaper than anything else. */
const FLAT = { id: 'FLAT', name: 'flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.3 }] };
/** Prices that fall by 0.02 at 12:00 and 18:00: switching off saves, but never 0.05 a kWh. */
const SMOOTH = {
  id: 'SMOOTH',
  name: 'smooth',
  vat: 0,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.32, time_start: '06:00', time_end: '12:00' },
    { priority: 1, price: 0.3, time_start: '12:00', time_end: '18:00' },
    { priority: 2, price: 0.28 },
  ],
};
const NIGHT = {
  id: 'NIGHT',
  name: 'night',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.1, time_start: '22:00', time_end: '07:00' },
    { priority: 2, price: 0.3 },
  ],
};

/** The plan node of a shipped example, in this test's flow, with other settings. */
function shippedPlan(example: string, over: Record<string, unknown>): FlowNode {
  const shipped = exampleFlow(example).find((n) => n.type === 'easy-plan')!;
  // without its tab: the helper's flow has none, and a node placed (x, y) on no tab would not start
  const { z: _tab, x: _x, y: _y, ...node } = shipped;
  return { ...node, id: 'p', account: 'acc', wires: [['sw'], ['plan']], ...over };
}
/** "switch the heater off where that saves most": 06:00-23:00, off at most 90 min, saving at least 0.05 a kWh. */
const savingExample = (over: Record<string, unknown>) => shippedPlan('switch-the-heater-off-where-that-saves-most', over);
/** "run the heater in the cheapest hours", here 2 h in 22:00-07:00 of NIGHT. */
const cheapestNode = (over: Record<string, unknown>) =>
  shippedPlan('run-the-heater-in-the-cheapest-hours', { tariff: 'NIGHT', durationHours: 2, durationMinutes: 0, ...over });

describe('easy-plan words', function () {
  this.timeout(20_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;

  afterEach(async () => {
    await helper.unload();
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  /** Deploys one plan node at `now` (fake clock) against the simulator serving `tariffs`; its first plan message. */
  async function firstPlan(now: string, node: FlowNode, tariffs: unknown[]) {
    clock = installClock(Date.parse(now));
    sim = await withSimulator({ tariffs: () => tariffs, now: () => Date.now() });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 86_400_000 };
    await helper.load(
      [easyAccount, easyPlan],
      [account, node, { id: 'sw', type: 'helper' }, { id: 'plan', type: 'helper' }, ...catchNodes()],
      {
        acc: { token: TOKEN },
      },
    );
    const [plan] = await inbox('plan').next(1);
    await quiet(10);
    return plan.payload;
  }

  it('the saving example with prices that never fall by "Save at least": no off time saves it, never "the duration is 0"', async () => {
    const payload = await firstPlan('2026-01-12T10:00:00Z', savingExample({ tariff: 'SMOOTH' }), [SMOOTH]);
    should(payload).match({ strategy: 'save', slots: [], reason: 'no off time saves 0.05/kWh before the window ends' });
    should(lastStatus('p')).match({ fill: 'yellow', text: 'no plan: no off time saves 0.05/kWh before the window ends' });
  });

  it('the same with the least saving on average over each off period: the words say so', async () => {
    const payload = await firstPlan('2026-01-12T10:00:00Z', savingExample({ tariff: 'SMOOTH', minSavingOf: 'average' }), [SMOOTH]);
    should(payload).match({ slots: [], reason: 'no off time saves 0.05/kWh on average in the window' });
    should(lastStatus('p')!.text).equal('no plan: no off time saves 0.05/kWh on average in the window');
  });

  it('the saving example with flat prices and no least saving: no off time saves', async () => {
    const payload = await firstPlan('2026-01-12T10:00:00Z', savingExample({ tariff: 'FLAT', minSaving: '' }), [FLAT]);
    should(payload).match({ slots: [], reason: 'no off time saves before the window ends' });
    should(lastStatus('p')!.text).equal('no plan: no off time saves before the window ends');
  });

  it('the cheapest hours with a run time of 0 say "the duration is 0" (their own words)', async () => {
    const payload = await firstPlan('2026-01-12T10:00:00Z', cheapestNode({ durationHours: 0 }), [NIGHT]);
    should(payload).match({ slots: [], requested: 0, requestedText: '0 s', shortfall: null, reason: 'the duration is 0' });
    should(lastStatus('p')!.text).equal('no plan: the duration is 0');
  });

  it('a plan that can plan nothing says so, not "only 0 s of 2 h planned"', async () => {
    const payload = await firstPlan('2026-01-12T23:00:00Z', cheapestNode({ maxPrice: '0.05' }), [NIGHT]);
    const why = 'the configured plan: nothing of 2 h could be planned: the price is above 0.05 or no rule prices in the rest of the window';
    should(payload).match({ slots: [], planned: 0, plannedText: '0 s', shortfall: why, reason: why });
    should(lastStatus('p')!.text).startWith('no plan: the configured plan: nothing of 2 h could be');
  });

  it("the plan message in a person's units: slots first, minutes and texts to the minute beside the ms, cents per kW", async () => {
    // 1 h 19 min 56.769 s of the window is left for 2 h
    const payload = await firstPlan('2026-01-13T05:40:03.231Z', cheapestNode({}), [NIGHT]);
    should(Object.keys(payload)[0]).equal('slots');
    should(payload).match({
      requested: 7_200_000,
      planned: 4_796_769,
      requestedMinutes: 120,
      plannedMinutes: 79.95,
      requestedText: '2 h',
      plannedText: '1 h 20 min',
      shortfall: 'the configured plan: only 1 h 20 min of the window is left for 2 h',
      reason: null,
      costPerKw: { net: 0.133243583, gross: 0.1598923 },
      costPerKwText: 'GBP 0.13',
    });
    should(payload.slots).have.length(1);
    should(lastStatus('p')!.text).equal('on until 07:00');
  });
});
