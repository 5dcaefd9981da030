// easy-peak billed on kVA from kWh and a power factor (docs/semantics.md rule 66), through
// the real Node-RED runtime: the node's fixed power factor, a power-factor meter of the
// gateway (easy-sensors messages of e1.pf), its bad readings at Catch, a restart mid-window
// and a tampered stored line. The numbers are worked by hand in each test.
import should from 'should';
import { FileContext, helper, inbox, installClock, lastStatus, quiet, simulatorHooks, warnings } from './flow-support';
import { loadPeak, peakNode, redeployPeak } from './peak-flows';
import { until } from '../fake-clock';

const MIN = 60_000;
const ZONE = 'Europe/Brussels';
/** A Wednesday 10:00 in Brussels: windows at :00, :15, :30, :45. */
const T0 = Date.parse('2026-03-04T09:00:00Z');

/** A reading of the gateway's power-factor subsensor as easy-sensors sends it. */
const pfMessage = (ts: number, value: unknown) => ({
  gateway: 'G',
  topic: 'e1.pf',
  payload: { id: 'e1.pf', value, ts, unit: null, decoded: { kind: 'modbus', quantity: 'power_factor' } },
});

describe('easy-peak power factor (rule 66)', function () {
  this.timeout(60_000);

  const suite = simulatorHooks();

  async function load(over: Record<string, unknown> = {}, modules: unknown[] = []) {
    const peak = peakNode({ limit: 'peak', wires: [['out'], ['guard'], ['chart']], ...over });
    const loaded = await loadPeak(suite.sim, ZONE, peak, { modules, helpers: ['out', 'guard', 'chart'] });
    return { node: loaded.node, out: loaded.out, chart: loaded.inbox('chart'), caught: loaded.caught };
  }

  /** Moves the fake clock to `ts` and sends the kWh reading of e1.kwh taken then, then the power factor when given. */
  async function at(ts: number, kwh: number | null, pf?: unknown) {
    if (ts > Date.now()) await suite.clock!.tickAsync(ts - Date.now());
    if (kwh !== null) helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kwh', payload: kwh, ts });
    if (pf !== undefined) helper.getNode('p').receive(pfMessage(ts, pf));
  }

  it("a fixed power factor of 0.8: 8 kW makes 10 kVA windows, the month's peak, the status and the charts in kVA", async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, chart } = await load({ powerFactor: '0.8' });
    for (let k = 0; k <= 16; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60);
    const msgs = await out.next(17);
    const last = msgs[16].payload;
    // 2 kWh in the quarter hour ÷ 0.8 = 2.5 kVAh, 10 kVA; kvarh 2 × √(1/0.64 − 1) = 1.5
    should(last.site).match({ meters: 1, unit: 'kVA' });
    should(last.site.month.value).be.approximately(10, 1e-9);
    should(last.site.window.projectedKw).be.approximately(10, 1e-9);
    should(last.site.window.powerKw).be.approximately(10, 1e-9);
    should(last.meter).match({ name: 'G/e1.kwh', unit: 'kW' }); // the meter's own windows stay kW
    should(lastStatus('p')?.text).match(/ · projected 10\.00 kVA · limit 10\.00 kVA$/);
    const [point] = await chart.next(1);
    should(point).match({ topic: 'average kW per 15 min', payload: [{ x: T0, y: 10 }] });
    should(point.window).match({ energy: 2.5, kw: 10, complete: true });
    // the reactive charge counts the window's kWh and the kvarh the power factor implies
    should(last.site.bill.reactive).match({ windows: 1, activeEnergy: 2, reactiveEnergy: 1.5, apparentEnergy: 2.5, powerFactor: 0.8 });
  });

  it("a power-factor meter: 8 kW at pf 1 for 5 minutes, then 0.5 for 10: the window's pf 0.6, 13.33 kVA; bad readings at Catch change nothing", async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, chart, caught } = await load();
    for (let k = 0; k <= 15; k++) {
      await at(T0 + k * MIN, 100 + (8 * k) / 60, k < 5 ? 1 : 0.5);
      if (k === 7) {
        // a failed Modbus read of 0, a reading above 1, a text and NaN: refused, the window keeps 0.5
        for (const bad of [0, 1.7, 'abc', NaN]) helper.getNode('p').receive(pfMessage(T0 + k * MIN + 30_000, bad));
        const errors = await caught.next(4);
        should(errors.map((e) => e.error.message)).eql(
          ['0', '1.7', '"abc"', 'NaN'].map(
            (said) =>
              `Power factor meter "G/e1.pf" read ${said}: a power factor is a number from 0.01 to 1 (not a percentage, ` +
              'not signed), so the reading is not counted; the last good one holds until the next, and a window it does not cover is not complete.',
          ),
        );
      }
    }
    const msgs = await out.next(32);
    const pfMsg = msgs[31].payload;
    should(pfMsg.meter).match({ name: 'G/e1.pf', unit: 'pf', value: 0.5 });
    should(pfMsg.site).match({ meters: 1, unit: 'kVA' });
    // kVA = kW ÷ pf each minute: 8 kVA for 5 minutes, 16 for 10: 2 kWh × (5 ÷ 1 + 10 ÷ 0.5) / 15 = 3.333 kVAh, 13.333 kVA;
    // the window's power factor 2 ÷ 3.333 = 0.6 (the plain average of the readings, 2/3, would understate the kVA)
    should(pfMsg.site.month.value).be.approximately(40 / 3, 1e-6);
    const [point] = await chart.next(1);
    should(point.payload).eql([{ x: T0, y: 13.333 }]);
    should(point.window).match({ energy: 3.333333333, kw: 13.333333333, complete: true });
    should(pfMsg.site.bill.reactive).match({ windows: 1, activeEnergy: 2, apparentEnergy: 3.333333333, powerFactor: 0.6 });
    should(pfMsg.site.bill.reactive.reactiveEnergy).be.approximately(2 * Math.sqrt(1 / 0.36 - 1), 1e-6);
    // the next window: 8 kW at pf 0.5 held so far, projected 16 kVA
    await at(T0 + 16 * MIN, 100 + (8 * 16) / 60);
    const [next] = await out.next(1);
    should(next.payload.site.window.projectedKw).be.approximately(16, 1e-9);
    should(next.payload.site.window.powerKw).be.approximately(16, 1e-9);
  });

  it('a window the power-factor meter left uncovered is in no reactive figure: its kWh at a guessed power factor of 1 would lower the charge', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out } = await load();
    // 8 kW throughout; the power-factor meter reads 0.5 until 10:20, then falls silent (stale after 5 minutes): it
    // covers the window 10:00 and hands over none of 10:15 and 10:30, which the site closes without it
    for (let k = 0; k <= 50; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, k <= 20 ? 0.5 : undefined);
    const msgs = await out.next(51 + 21);
    const reactive = msgs[msgs.length - 1].payload.site.bill.reactive;
    // the one window counted carries the power factor its readings gave (0.5): none at 1 (kWh alone, no kvarh)
    should(reactive).match({ windows: 1, activeEnergy: 2 });
    should(reactive.powerFactor).be.approximately(0.5, 1e-6);
    should(reactive.reactiveEnergy).be.approximately(reactive.activeEnergy * Math.sqrt(1 / 0.25 - 1), 1e-6);
  });

  it('keeps the power-factor meter across a restart mid-window: pf 1 for 5 minutes before it, 0.5 after, the window 13.33 kVA', async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-pf-');
    const { out } = await load({}, [suite.context.use()]);
    for (let k = 0; k <= 5; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, k < 5 ? 1 : 0.5);
    await out.next(12);
    await suite.context.restart();
    await quiet(50);
    should(warnings('p').filter((w) => w.startsWith('stored peaks'))).eql([]);
    const again = inbox('out');
    const chart = inbox('chart');
    for (let k = 6; k <= 15; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, 0.5);
    await again.next(20);
    const [point] = await chart.next(1);
    should(point.window).match({ fromMs: T0, kw: 13.333333333, complete: true });
  });

  it('drops a tampered power-factor meter with one warning: the window it no longer covers is not complete, never a peak', async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-pf-');
    const { out } = await load({}, [suite.context.use()]);
    for (let k = 0; k <= 5; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, 0.8);
    await out.next(12);
    const store = helper.getNode('p').context();
    await suite.clock.tickAsync(2 * MIN); // saved within the minute
    const stored = await new Promise<any>((resolve) => store.get('peaks', (_err: unknown, v: unknown) => resolve(v)));
    const [value, line] = JSON.parse(stored.powerFactor);
    should(value).equal(0.8);
    stored.powerFactor = JSON.stringify([0, line]); // a power factor of 0 would make kVA infinite
    await new Promise<void>((resolve) => store.set('peaks', stored, () => resolve()));
    await suite.context.restart();
    await until('the stored peaks read back', () => warnings('p').some((w) => w.startsWith('stored peaks')));
    should(warnings('p').filter((w) => w.startsWith('stored peaks'))).eql([
      'stored peaks: dropped the power factor meter (failed its checks)',
    ]);
    const again = inbox('out');
    const chart = inbox('chart');
    // the meter reads again from 10:08: the window 10:00 has no power factor before it, so it is not complete
    for (let k = 8; k <= 16; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, 0.8);
    const msgs = await again.next(18);
    should(msgs[17].payload.site.unit).equal('kVA');
    should(msgs[17].payload.site.month.value).equal(null);
    await quiet(50);
    should(chart.received.filter((m) => m.kind === 'window')).have.length(0); // an incomplete window is no chart point
  });

  it('drops the stored power-factor meter with one warning naming it when a fixed power factor is set: the setting bills the windows', async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-pf-');
    const { out } = await load({}, [suite.context.use()]);
    for (let k = 0; k <= 5; k++) await at(T0 + k * MIN, 100 + (8 * k) / 60, 0.5);
    await out.next(12);
    await suite.clock.tickAsync(2 * MIN); // saved within the minute
    const helpers = ['out', 'guard', 'chart'];
    await redeployPeak(suite.sim, ZONE, peakNode({ limit: 'peak', powerFactor: '0.8', wires: [['out'], ['guard'], ['chart']] }), helpers);
    await until('the stored peaks read back', () => warnings('p').some((w) => w.startsWith('stored peaks')));
    should(warnings('p').filter((w) => w.startsWith('stored peaks'))).eql([
      'stored peaks: dropped the power factor meter "G/e1.pf": this easy-peak bills its kWh as kVA with the power factor of its setting (0.8), one source of kVA a site',
    ]);
    // the kWh meter stays; 8 kW over 0.8 is 10 kVA, not 16 at the meter's 0.5
    const again = inbox('out');
    await at(T0 + 8 * MIN, 100 + (8 * 8) / 60);
    const [msg] = await again.next(1);
    should(msg.payload.site.unit).equal('kVA');
    should(msg.payload.site.window.powerKw).be.approximately(10, 1e-9);
  });

  it('a bad power factor setting is said at deploy', async () => {
    const { caught } = await load({ powerFactor: '0' });
    const [err] = await caught.next(1);
    should(err.error.message).equal('the power factor must be a number from 0.01 to 1 (empty: none), got "0"');
  });
});
