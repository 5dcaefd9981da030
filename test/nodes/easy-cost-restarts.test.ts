// easy-cost's stream mode across restarts of the real Node-RED runtime, with a
// localfilesystem context store: held readings, every meter's totals, msg.reset, and
// stored totals that cannot be read.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import { roundAmount } from '../../nodes/lib/engine/common/format';
import { FileContext, helper, inbox, lastStatus, quiet } from './flow-support';
import { costSuite } from './cost-flows';

const HOUR = 3600_000;

describe('easy-cost node', function () {
  const { suite, load } = costSuite();

  /** Uses a localfilesystem default context store; returns the "module" that loads the stores (the helper skips that part of a start). */
  function fileContextStore() {
    suite.context = new FileContext('easy-cost-context-');
    return suite.context.use();
  }

  /** Stops as the runtime does (flows, then stores, which writes them out) and starts again. */
  async function restartRuntime() {
    await helper._redNodes.stopFlows();
    await helper._redNodes.closeContextsPlugin();
    should(fs.readdirSync(path.join(suite.context!.dir, 'context'))).not.be.empty();
    await helper._redNodes.loadContextsPlugin();
    await helper._redNodes.loadFlows();
    await helper._redNodes.startFlows();
  }

  describe('stream', () => {
    it('a held reading survives a restart of the runtime: the reading after it decides it', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC', [fileContextStore()]);
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      node.receive({ payload: 12_345, ts: t0 });
      node.receive({ payload: 12_345.01, ts: t0 + 10_000 });
      node.receive({ payload: 3, ts: t0 + 20_000 }); // a new meter, or a glitch: held
      should((await out.next(3))[2].payload.held).equal(1);
      await restartRuntime();
      const again = inbox('out');
      helper.getNode('c').receive({ payload: 3.01, ts: t0 + 30_000 }); // the new meter goes on: a reset at 3
      const [msg] = await again.next(1);
      should(msg.payload.today).match({ energy: roundAmount(0.02), resets: 1, intervals: 3 });
    });

    it("restores every meter's totals after a restart of the runtime", async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC', [fileContextStore()]);
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      for (const [topic, ts, value] of [
        ['a', t0, 1],
        ['b', t0, 10],
        ['a', t0 + HOUR, 2],
        ['b', t0 + HOUR, 14],
      ] as const)
        node.receive({ topic, payload: value, ts });
      await out.next(4);
      await restartRuntime();
      await quiet(50);
      should(lastStatus('c')).match({ text: 'today 5.00 kWh (restored) · 2 meters' });
      const again = inbox('out');
      helper.getNode('c').receive({ topic: 'b', payload: 15, ts: t0 + 2 * HOUR });
      const [msg] = await again.next(1);
      should(msg.payload).match({ today: { energy: 5, intervals: 2 }, meter: { topic: 'b' }, site: { meters: 2, today: { energy: 6 } } });
    });

    it('sets every total back to zero on msg.reset', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' });
      node.receive({ payload: 1, ts: HOUR });
      node.receive({ payload: 3, ts: 2 * HOUR });
      node.receive({ reset: true });
      node.receive({ payload: 4, ts: 3 * HOUR });
      node.receive({ payload: 6, ts: 4 * HOUR });
      const msgs = await out.next(5);
      should(msgs[1].payload.total.energy).equal(2);
      should(msgs[2].payload).match({ today: null, total: null });
      should(msgs[4].payload.total).match({ energy: 2, from: new Date(3 * HOUR).toISOString() });
    });

    it('keeps the totals in the context store across a restart of the runtime', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC', [fileContextStore()]);
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      node.receive({ payload: 100, ts: t0 });
      node.receive({ payload: 104, ts: t0 + HOUR });
      await out.next(2);
      await restartRuntime();
      const again = inbox('out');
      helper.getNode('c').receive({ payload: 105, ts: t0 + 2 * HOUR });
      const [msg] = await again.next(1);
      should(msg.payload.today).match({ energy: 5, intervals: 2 });
      should(msg.payload.total.from).equal(new Date(t0).toISOString());
    });

    it('says it started from zero when the stored totals are unreadable', async () => {
      const { node, out } = await load({ mode: 'stream', tariff: 'DEMO-FLAT' }, 'UTC', [fileContextStore()]);
      node.receive({ payload: 1, ts: HOUR });
      await out.next(1);
      await quiet(50); // the first change is saved at once; what the node saves later would replace the garbage
      node.context().set('totals', { version: 1, kept: 'garbage' });
      await restartRuntime();
      await quiet(50);
      const restarted = helper.getNode('c');
      should(restarted.warn.calledWith('running totals started from zero: stored totals are unreadable')).be.true();
      const again = inbox('out');
      restarted.receive({ payload: 5, ts: 2 * HOUR });
      should((await again.next(1))[0].payload.total).match({ energy: 0, from: new Date(2 * HOUR).toISOString() });
    });
  });
});
