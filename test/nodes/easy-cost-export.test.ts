// easy-cost with export meters (semantics rules 47-48) through the real Node-RED runtime: a
// solar site's day (morning import, noon export, evening import) to the cent across a
// restart at noon, batch mode's two registers netted, and hostile input.
import should from 'should';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { FileContext, lastStatus, simulatorHooks, statusSettled } from './flow-support';
import { at, FEED_IN, loadCost, restartCost, sendSolarDay, SOLAR_EXPORT, SOLAR_IMPORT } from './cost-flows';

describe('easy-cost with export meters', function () {
  this.timeout(30_000);
  const suite = simulatorHooks({ simulator: () => ({ tariffs: () => [...JSON.parse(JSON.stringify(DEMO_TARIFFS)), FEED_IN] }) });

  const load = (over: Record<string, unknown>, modules: unknown[] = []) => loadCost(suite.sim, over, { modules });

  it('a solar day: import cost, export credit and the net, per meter and for the site, right to the cent across a restart at noon', async () => {
    const context = (suite.context = new FileContext('easy-cost-export-'));
    const settings = { exportMeters: 'grid-out', exportTariff: 'FEED-IN', floorAtZero: true };
    const { node, out } = await load(settings, [context.use()]);
    const before = await out.next(sendSolarDay(node, (ts) => ts <= at(12)));
    const noon = before[before.length - 1].payload;
    // export to noon: 2 + 3 kWh at 0.15, 11:00-12:00's 4 kWh at -0.02 floored to 0; no VAT on export
    should(noon).match({ direction: 'export', meter: { topic: 'grid-out' }, today: { energy: 9, net: 0.75, gross: 0.75, vat: 0 } });
    should(noon.site).match({ meters: 1, today: { energy: 3, gross: 0.882 }, export: { meters: 1, today: { energy: 9, gross: 0.75 } } });
    should(noon.site.net.today).match({ gross: 0.132, formatted: 'GBP 0.13' });
    const restarted = await restartCost(context);
    const after = await restarted.out.next(sendSolarDay(restarted.node, (ts) => ts > at(12)));
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
    node.receive({ payload: { import: SOLAR_IMPORT, export: SOLAR_EXPORT } });
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
      "An export reading of meter pv, but the node has no export price: set an export tariff, a fixed rate or an easy-prices node's list (Export), or count the meter as import.",
      "An export reading of meter a, but the node has no export price: set an export tariff, a fixed rate or an easy-prices node's list (Export), or count the meter as import.",
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
