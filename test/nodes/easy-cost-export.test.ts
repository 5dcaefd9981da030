// easy-cost with export meters (semantics rules 47-48) through the real Node-RED runtime: a
// solar site's day (morning import, noon export, evening import) to the cent across a
// restart at noon, batch mode's two registers netted, and hostile input.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import easyCost = require('../../nodes/easy-cost');
import {
  accountNode,
  catchNodes,
  FileContext,
  FlowNode,
  helper,
  inbox,
  lastStatus,
  loadFlow,
  quiet,
  statusSettled,
  withSimulator,
} from './flow-support';

/** Feed-in: 0.15 a kWh, -0.02 at noon (a negative spot hour), VAT 20 % (not applied to export unless ticked). */
const FEED_IN = {
  id: 'FEED-IN',
  name: 'Feed-in',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 1, price: -0.02, time_start: '11:00', time_end: '13:00' },
    { priority: 2, price: 0.15 },
  ],
};

const at = (hh: number) => Date.parse(`2026-06-10T${String(hh).padStart(2, '0')}:00:00+01:00`); // Europe/London in summer
/** The import register: 1 kWh an hour 06-09, nothing while the sun shines, 2 kWh an hour 16-21. */
const IMPORT: Array<[number, number]> = [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21].map((h) => [
  at(h),
  1000 + Math.min(h - 6, 3) + 2 * Math.max(0, h - 16),
]);
/** The export register: 2, 3, 4, 4, 3, 2, 1 kWh in the hours from 09:00 to 16:00. */
const EXPORT: Array<[number, number]> = [];
{
  let value = 500;
  const sold: Record<number, number> = { 9: 2, 10: 3, 11: 4, 12: 4, 13: 3, 14: 2, 15: 1 };
  for (let h = 6; h <= 21; h++) {
    EXPORT.push([at(h), value]);
    value += sold[h] ?? 0;
  }
}

describe('easy-cost with export meters', function () {
  this.timeout(30_000);
  let sim: Simulator;
  let context: FileContext | null = null;

  beforeEach(async () => {
    sim = await withSimulator({ tariffs: () => [...JSON.parse(JSON.stringify(DEMO_TARIFFS)), FEED_IN] });
  });
  afterEach(async () => {
    await (context ? context.unload() : helper.unload());
    context = null;
    await sim.close();
  });

  async function load(over: Record<string, unknown>, extra: unknown[] = []) {
    const node: FlowNode = {
      id: 'c',
      type: 'easy-cost',
      account: 'acc',
      tariff: 'DEMO-NIGHT',
      mode: 'stream',
      wires: [['out'], []],
      ...over,
    };
    await loadFlow([easyCost, ...extra], [accountNode(sim, 'Europe/London'), node, { id: 'out', type: 'helper' }, ...catchNodes()]);
    return { node: helper.getNode('c'), out: inbox('out'), caught: inbox('caught') };
  }

  it('a solar day: import cost, export credit and the net, per meter and for the site, right to the cent across a restart at noon', async () => {
    context = new FileContext('easy-cost-export-');
    const settings = { exportMeters: 'grid-out', exportTariff: 'FEED-IN', floorAtZero: true };
    const { node, out } = await load(settings, [context.use()]);
    const send = (n: typeof node, upTo: (ts: number) => boolean) => {
      let count = 0;
      for (let k = 0; k < IMPORT.length; k++) {
        if (!upTo(IMPORT[k][0])) continue;
        n.receive({ topic: 'grid-in', payload: IMPORT[k][1], ts: IMPORT[k][0] });
        n.receive({ topic: 'grid-out', payload: EXPORT[k][1], ts: EXPORT[k][0] });
        count += 2;
      }
      return count;
    };
    const before = await out.next(send(node, (ts) => ts <= at(12)));
    const noon = before[before.length - 1].payload;
    // export to noon: 2 + 3 kWh at 0.15, 11:00-12:00's 4 kWh at -0.02 floored to 0; no VAT on export
    should(noon).match({ direction: 'export', meter: { topic: 'grid-out' }, today: { energy: 9, net: 0.75, gross: 0.75, vat: 0 } });
    should(noon.site).match({ meters: 1, today: { energy: 3, gross: 0.882 }, export: { meters: 1, today: { energy: 9, gross: 0.75 } } });
    should(noon.site.net.today).match({ gross: 0.132, formatted: 'GBP 0.13' });
    await context.restart();
    await quiet(50);
    const again = inbox('out');
    const restarted = helper.getNode('c');
    const after = await again.next(send(restarted, (ts) => ts > at(12)));
    const last = after[after.length - 1].payload;
    const lastImport = after[after.length - 2].payload;
    // import: 3 + 10 kWh at the day rate 0.28, VAT 5 %: 3.822
    should(lastImport).match({ meter: { topic: 'grid-in' }, today: { energy: 13, net: 3.64, gross: 3.822, vat: 5 } });
    should(lastImport).not.have.property('direction');
    // export: 19 kWh, 8 of them at noon's negative price (floored): 11 x 0.15 = 1.65
    should(last).match({ direction: 'export', today: { energy: 19, net: 1.65, gross: 1.65 } });
    should(last.site).match({ meters: 1, today: { energy: 13, gross: 3.822 }, export: { today: { energy: 19, gross: 1.65 } } });
    should(last.site.net.today).match({ gross: 2.172, formatted: 'GBP 2.17' });
    should(last.site.net.total.gross).equal(2.172);
    await statusSettled();
    should(lastStatus('c')!.text).startWith('today GBP 3.82 · 13.00 kWh · export 19.00 kWh GBP 1.65 · 2 meters');
  });

  it("batch mode nets both registers as the node says (period: the month's rest at the export average)", async () => {
    const { node, out } = await load({ exportRate: '0.1', netting: 'period', mode: 'batch', wires: [['out']] });
    node.receive({ payload: { import: IMPORT, export: EXPORT } });
    const [msg] = await out.next(1);
    // the month bought 13 and sold 19 kWh: 6 credited at the export average 0.10
    should(msg.payload).match({ netting: 'period', importEnergy: 0, exportEnergy: 6, importCost: 0, exportCredit: 0.6, net: -0.6 });
    should(msg.payload.import).match({ energy: 13, direction: 'import' });
    should(msg.payload.export).match({ energy: 19, direction: 'export', vat: 0 });
  });

  it('hostile: a direction not import/export, an export reading with no export price, a meter turned around: Catch says so, nothing is lost', async () => {
    const { node, out, caught } = await load({});
    node.receive({ topic: 'a', payload: 1, ts: at(6) });
    node.receive({ topic: 'a', payload: 2, ts: at(7), direction: 'sideways' });
    node.receive({ topic: 'pv', payload: 1, ts: at(7), direction: 'export' });
    node.receive({ topic: 'a', payload: 3, ts: at(8), direction: 'export' });
    node.receive({ topic: 'a', payload: 4, ts: at(9), direction: 'import' });
    const errors = await caught.next(3);
    should(errors.map((m) => m.error.message)).eql([
      'msg.direction must be "import", "export" or "production", got "sideways" (meter a).',
      'An export reading of meter pv, but the node has no export tariff or rate: set one (Export), or count the meter as import.',
      'An export reading of meter a, but the node has no export tariff or rate: set one (Export), or count the meter as import.',
    ]);
    const msgs = await out.next(2);
    // the refused readings counted nothing and no meter was made of them: 06:00 -> 09:00 is 3 kWh
    should(msgs[1].payload).match({ today: { energy: 3, intervals: 1 }, site: { meters: 1 } });
    should(msgs[1].payload.site).not.have.property('export');
  });

  it('hostile: a meter that imports cannot be sent as export, and 2,000 export meters stop at the meter limit (20,000: test/lib/cost-stream-export) with one error a burst', async () => {
    const { node, out, caught } = await load({ exportTariff: 'FEED-IN' });
    node.receive({ topic: 'a', payload: 1, ts: at(6) });
    node.receive({ topic: 'a', payload: 2, ts: at(7), direction: 'export' });
    const [turned] = await caught.next(1);
    should(turned.error.message).equal('Meter a counts import, not export: reset it (msg.reset) to count it the other way.');
    for (let i = 0; i < 2_000; i++) node.receive({ topic: `pv${i}`, payload: 1, ts: at(8), direction: 'export' });
    const counted = await out.next(1 + 127, 20_000);
    should(counted[127].payload).match({ direction: 'export', site: { meters: 1, export: { meters: 127 } } });
    const [limit] = await caught.next(1, 20_000);
    should(limit.error.message).match(/^Meter limit reached: 1,873 sensors ignored, "pv127" the first/);
    node.receive({ topic: 'a', payload: 5, ts: at(9) });
    const [later] = await out.next(1);
    should(later.payload).match({ today: { energy: 4 }, meter: { topic: 'a' } });
  });
});
