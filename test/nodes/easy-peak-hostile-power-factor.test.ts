// easy-peak's power factor and reactive sums under attack, through the real Node-RED runtime
// (docs/semantics.md, the peak node's power factor and rule 65): a power factor far below any
// site's (a reading of 1e-200, a setting of 0.000…1) made kVAh and kvarh overflow to Infinity,
// and every window after it failed inside the library with words no user could act on; a
// stored reactive line whose power factor was no number was read back as if counted at this one.
import should from 'should';
import { FileContext, helper, installClock, quiet, simulatorHooks, warnings } from './flow-support';
import { loadPeak, peakNode } from './peak-flows';

const MIN = 60_000;
const ZONE = 'Europe/London';
/** 14 January 2026 09:00 in London (GMT). */
const T0 = Date.parse('2026-01-14T09:00:00Z');

describe('easy-peak: a hostile power factor and tampered reactive sums', function () {
  this.timeout(30_000);
  const suite = simulatorHooks();

  it('a power-factor reading below 0.01 (1e-200, 0.001) is an error at Catch naming it; every window is still counted at the last good one', async () => {
    suite.clock = installClock(T0 - MIN);
    const { node, out, caught } = await loadPeak(suite.sim, ZONE, peakNode({ minutes: '30', maxGapMinutes: '60' }));
    const pf = (ts: number, value: unknown) => ({ gateway: 'G', topic: 'e1.pf', payload: value, ts });
    let last: any = null;
    // 20 kW at pf 0.8 every 15 minutes for 1.5 hours: three windows of 10 kWh, 12.5 kVAh, 7.5 kvarh
    for (let k = 0; k <= 6; k++) {
      const ts = T0 + k * 15 * MIN;
      await suite.clock.tickAsync(ts - Date.now());
      node.receive(pf(ts, 0.8));
      node.receive({ gateway: 'G', topic: 'e1.kwh', payload: 1000 + 5 * k, ts });
      last = (await out.next(2))[1].payload;
      if (k === 2) {
        for (const bad of [1e-200, 0.001]) node.receive(pf(ts + 1000, bad));
        const errors = await caught.next(2);
        should(errors.map((e) => e.error.message)).eql(
          ['1e-200', '0.001'].map(
            (said) =>
              `Power factor meter "G/e1.pf" read ${said}: a power factor is a number from 0.01 to 1 (not a percentage, ` +
              'not signed), so the reading is not counted; the last good one holds until the next, and a window it does not cover is not complete.',
          ),
        );
      }
    }
    await quiet(50);
    should(caught.received).have.length(0); // nothing failed later
    should(last.site.bill.reactive).match({ windows: 3, activeEnergy: 30, powerFactor: 0.8 });
    should(last.site.bill.reactive.apparentEnergy).be.approximately(37.5, 1e-6);
    should(last.site.bill.reactive.reactiveEnergy).be.approximately(22.5, 1e-6);
    should(last.site.month.value).be.approximately(25, 1e-6); // 20 kW ÷ 0.8
  });

  it('a power factor setting below 0.01 is said at deploy (no window fails later)', async () => {
    for (const setting of ['0.' + '0'.repeat(200) + '1', '0.001']) {
      const { caught } = await loadPeak(suite.sim, ZONE, peakNode({ minutes: '30', powerFactor: setting }));
      const [err] = await caught.next(1);
      should(err.error.message).equal(`the power factor must be a number from 0.01 to 1 (empty: none), got ${JSON.stringify(setting)}`);
      await helper.unload();
    }
  });

  it("a stored reactive line whose power factor is no number is dropped as failing its checks, not read as this one's", async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-hostile-pf-');
    const { node, out } = await loadPeak(suite.sim, ZONE, peakNode({ minutes: '30', maxGapMinutes: '60' }), {
      modules: [suite.context.use()],
    });
    for (const [k, kwh, kvarh] of [
      [0, 1000, 500],
      [1, 1100, 560],
    ] as const) {
      const ts = T0 + k * 30 * MIN;
      await suite.clock.tickAsync(ts - Date.now());
      node.receive({ gateway: 'G', topic: 'e1.kwh', payload: kwh, ts });
      node.receive({ gateway: 'G', topic: 'e1.kvarh', payload: kvarh, ts });
      await out.next(2);
    }
    await suite.clock.tickAsync(2 * MIN);
    const store = helper.getNode('p').context();
    const get = () => new Promise<any>((resolve) => store.get('peaks', (_err: unknown, v: unknown) => resolve(v)));
    const good: unknown[] = JSON.parse((await get()).reactive); // one window, counted at 0.95
    should(good[0]).equal(0.95);
    for (const [n, forged] of [null, '0.95', 'x'].entries()) {
      // edited once the node saved on close, before it starts again
      await suite.context.restart(async () => {
        const stored = await get();
        stored.reactive = JSON.stringify([forged, ...good.slice(1)]);
        await new Promise<void>((resolve) => store.set('peaks', stored, () => resolve()));
      });
      await quiet(50);
      should(warnings('p').filter((w) => w.includes('reactive'))).have.length(n + 1, `power factor ${JSON.stringify(forged)}`);
      should(warnings('p').pop()).equal("stored peaks: the reactive energy's sums from zero (failed their checks)");
    }
  });
});
