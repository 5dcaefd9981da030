// easy-peak with export meters (semantics rule 47) through the real runtime: energy sold
// makes no demand peak unless the node counts it; a wrong direction is an error at Catch.
import should from 'should';
import { helper, quiet, simulatorHooks, warnings } from './flow-support';
import { loadPeak, peakNode } from './peak-flows';

const MIN = 60_000;
const T0 = Date.parse('2026-03-04T09:00:00Z');

describe('easy-peak with export meters', function () {
  this.timeout(30_000);
  const suite = simulatorHooks();

  const load = (over: Record<string, unknown>) =>
    loadPeak(suite.sim, 'Europe/Brussels', peakNode({ limit: 'fixed', limitKw: '10', ...over }));

  /** The grid import at 4 kW and the solar export at 30 kW, a reading of each every 5 minutes. */
  function sendDay(node: ReturnType<typeof helper.getNode>, exportDirection?: string) {
    for (let i = 0; i <= 6; i++) {
      const ts = T0 + i * 5 * MIN;
      node.receive({ topic: 'grid-in', payload: 100 + (4 * i * 5) / 60, ts });
      node.receive({ topic: 'grid-out', payload: 500 + (30 * i * 5) / 60, ts, ...(exportDirection ? { direction: exportDirection } : {}) });
    }
  }

  it('export readings make no demand: the site is the import meter alone, said once', async () => {
    const { node, out } = await load({ exportMeters: 'grid-*out' });
    sendDay(node);
    const msgs = await out.next(7);
    await quiet(100);
    should(out.received).have.length(0); // nothing for the export meter's 7 readings
    should(msgs[6].payload.meter.name).equal('grid-in');
    should(msgs[6].payload.site.meters).equal(1);
    should(msgs[6].payload.site.window.powerKw).be.approximately(4, 1e-9);
    should(msgs[6].payload.site.month.value).be.approximately(4, 1e-9);
    should(warnings('p').filter((w) => /exports/.test(w))).eql([
      'meter grid-out exports: energy sold makes no demand peak, its readings are not counted (tick count export if the tariff bills it)',
    ]);
  });

  it('msg.direction marks an export meter too; count export counts it as any meter', async () => {
    const skipping = await load({});
    sendDay(skipping.node, 'export');
    await skipping.out.next(7);
    await quiet(100);
    should(skipping.out.received).have.length(0);
    await helper.unload();
    const counting = await load({ exportMeters: 'grid-out', countExport: true });
    sendDay(counting.node);
    const msgs = await counting.out.next(14);
    should(msgs[13].payload.site.meters).equal(2);
    should(msgs[13].payload.site.window.powerKw).be.approximately(34, 1e-9);
    should(msgs[13].payload.site.month.value).be.approximately(34, 1e-9);
  });

  it('a direction that is neither import nor export is an error at Catch, naming it; the reading counts nowhere', async () => {
    const { node, out, caught } = await load({});
    node.receive({ topic: 'grid-in', payload: 100, ts: T0, direction: 'both' });
    const [err] = await caught.next(1);
    should(err.error.message).equal('msg.direction must be "import" or "export", got "both" (meter grid-in).');
    await quiet(100);
    should(out.received).have.length(0);
  });
});
