// 100 full redeploys of a flow with every node type, some while requests hang: nothing
// is left behind (timers, sockets, listeners), every close is quick, and every input
// message is finished (done) exactly once, even those a redeploy interrupted.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easySensors = require('../../nodes/easy-sensors');
import easyCost = require('../../nodes/easy-cost');
import { FlowNode, helper, quiet } from '../nodes/flow-support';
import { canarySimulator, CANARY, fastAccount, loadWithCanary, shouldNotLeakAnywhere } from './support';

const CYCLES = 100;
const HOUR = 3600_000;

/** Active handles and requests by type (Timeout, TCPSocketWrap, …). */
function resources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of (process as any).getActiveResourcesInfo() as string[]) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

function processListeners(): number {
  return process.eventNames().reduce((n, name) => n + process.listenerCount(name), 0);
}

describe('reliability: 100 deploy/redeploy cycles', function () {
  this.timeout(60000);
  let sim: Simulator;
  after(async () => {
    await helper.unload();
    await sim?.close();
  });

  it('leave no timers, sockets or listeners, close quickly, and finish every message once', async () => {
    await quiet(200);
    const baseline = resources();
    const baselineListeners = processListeners();
    sim = await canarySimulator();
    const withSimulator = resources();
    const flow = (k: number): FlowNode[] => [
      fastAccount(sim, { name: `cycle ${k}` }), // a changed account restarts every node using it
      { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 0.05, wires: [['out']] },
      { id: 's', type: 'easy-sensors', account: 'acc', gateway: 'DEMO', interval: 10, output: 'each', wires: [['out']] },
      { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['out']] },
      { id: 'out', type: 'helper' },
    ];
    await loadWithCanary([easyTariff, easySensors, easyCost], flow(0), false);
    // every _complete (the runtime's side of done) by node and message
    const finished = new Map<string, number>();
    const proto = (helper as any)._NodePrototype;
    const complete = proto._complete;
    proto._complete = function (this: { id: string }, msg: { _msgid: string }, err: unknown) {
      const key = `${this.id} ${msg._msgid}`;
      finished.set(key, (finished.get(key) ?? 0) + 1);
      return complete.call(this, msg, err);
    };
    const sent: string[] = [];
    const closes: number[] = [];
    try {
      for (let k = 1; k <= CYCLES; k++) {
        if (k === 40) sim.setFaults({ latencyMs: 3000 }); // requests hang across these redeploys
        if (k === 60) sim.clearFaults();
        for (const id of ['t', 's', 'c']) {
          const node = helper.getNode(id);
          const _msgid = `m${k}-${id}`;
          sent.push(`${id} ${_msgid}`);
          node.receive(
            id === 't'
              ? { _msgid, payload: 'schedule' }
              : id === 'c'
                ? { _msgid, payload: k, ts: Date.parse('2026-03-04T00:00Z') + k * HOUR }
                : { _msgid },
          );
        }
        if (k % 7 === 0) await quiet(30); // now and then the requests get going
        const started = Date.now();
        await (helper as any).setFlows(flow(k), 'full', { acc: { token: CANARY } });
        closes.push(Date.now() - started);
      }
      await quiet(300);
    } finally {
      proto._complete = complete;
    }
    // stopping and starting every node, a hanging request included, is quick
    should(Math.max(...closes)).be.below(2000);

    // every message finished exactly once, interrupted or not
    await quiet(200);
    for (const key of sent) should(finished.get(key)).equal(1, `${key} finished ${finished.get(key) ?? 0} times`);

    await helper.unload();
    await quiet(300);
    // no socket to the simulator is left open (the client keeps none alive)
    should(resources().TCPSocketWrap ?? 0).be.belowOrEqual(withSimulator.TCPSocketWrap ?? 0);
    // the simulator's own latency timers die with it; then everything is as before
    await sim.close();
    await quiet(1100); // Node's HTTP date cache timer lives a second
    const after = resources();
    for (const type of new Set([...Object.keys(after), ...Object.keys(baseline)])) {
      should(after[type] ?? 0).be.belowOrEqual(baseline[type] ?? 0, `${type}: ${baseline[type] ?? 0} before, ${after[type] ?? 0} after`);
    }
    should(processListeners()).equal(baselineListeners);
    shouldNotLeakAnywhere();
  });

  it('closes within a second while requests hang (15 s deadline)', async () => {
    sim = await canarySimulator();
    sim.setFaults({ latencyMs: 10000 });
    await loadWithCanary(
      [easyTariff, easySensors],
      [
        fastAccount(sim, { timeoutMs: 15000 }),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 60, wires: [] },
        { id: 's', type: 'easy-sensors', account: 'acc', gateway: 'DEMO', interval: 10, output: 'all', wires: [] },
      ],
      false,
    );
    await quiet(200);
    should(sim.requests.length).be.above(0);
    const started = Date.now();
    await helper.unload();
    should(Date.now() - started).be.below(1000);
    const count = sim.requests.length;
    await quiet(300);
    should(sim.requests.length).equal(count);
  });
});
