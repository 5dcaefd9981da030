// easy-cost's export price from a spot list (semantics rule 61) through the real Node-RED
// runtime, on a fake clock in Europe/London: an easy-prices node keeps the day's hourly list
// (sent to easy-cost's input), export meters are credited at spot + the export's add-ons,
// nothing paid where spot < 0 (the floor), across a restart (the list and the totals kept);
// batch mode's two registers at the same price; settings that cannot work said at deploy.
import should from 'should';
import { archive, DEMO_TARIFFS, findDemoSensor } from '../../sim/demo-data';
import easyPrices = require('../../nodes/easy-prices');
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { FileContext, helper, lastStatus, quiet, simulatorHooks, statusSettled } from './flow-support';
import { at, costNode, loadCost, restartCost, sendSolarDay, SOLAR_EXPORT, SOLAR_IMPORT } from './cost-flows';

/** The day's hourly spot prices from 06:00 to 22:00: 0.12, below 0 at noon, 0.01 at 13:00. */
const SPOT: Record<number, number> = { 11: -0.03, 12: -0.03, 13: 0.01 };
const LIST = Array.from({ length: 16 }, (_, k) => ({
  start: new Date(at(6 + k)).toISOString(),
  end: new Date(at(7 + k)).toISOString(),
  price: SPOT[6 + k] ?? 0.12,
}));

describe('easy-cost: the export price from a spot list (easy-prices)', function () {
  this.timeout(30_000);
  const suite = simulatorHooks({
    clockAt: Date.parse('2026-06-10T21:30:00+01:00'),
    simulator: () => ({ tariffs: () => JSON.parse(JSON.stringify(DEMO_TARIFFS)), now: () => Date.now() }),
  });

  const load = (over: Record<string, unknown>, modules: unknown[] = []) =>
    loadCost(suite.sim, over, {
      modules: [easyPrices, ...modules],
      nodes: [
        { id: 'pr', type: 'easy-prices', unit: 'kWh', fees: 'none', addOns: 0.5, vat: 'tariff', whenOut: 'stop' },
        costNode({
          exportMeters: 'grid-out',
          exportPrice: 'prices',
          exportPrices: 'pr',
          exportAddOns: '-0.02',
          floorAtZero: true,
          ...over,
        }),
      ],
    });

  // by hand: 09-11 and 14-16 at 0.12 - 0.02 = 0.10 (2 + 3 + 2 + 1 kWh: 0.80); 11-13 spot -0.03 and
  // 13:00's 0.01 - 0.02 < 0 floored (11 kWh at 0); no VAT on export; the prices node's add-ons are the import's, not used
  const CREDIT = 0.8;

  it('a solar day: export credited at spot + add-ons with the floor, import at the tariff, the net, across a restart at noon', async () => {
    const context = (suite.context = new FileContext('easy-cost-export-prices-'));
    const { node, out, caught } = await load({}, [context.use()]);
    node.receive({ payload: LIST });
    await quiet(20);
    const before = await out.next(sendSolarDay(node, (ts) => ts <= at(12)));
    // to noon: 2 + 3 kWh at 0.10, 11:00's 4 kWh floored
    should(before[before.length - 1].payload).match({
      direction: 'export',
      tariffId: 'spot prices',
      today: { energy: 9, net: 0.5, gross: 0.5, vat: 0, unpricedEnergy: 0 },
    });
    const restarted = await restartCost(context);
    const after = await restarted.out.next(sendSolarDay(restarted.node, (ts) => ts > at(12)));
    const last = after[after.length - 1].payload;
    should(last).match({ direction: 'export', today: { energy: 19, net: CREDIT, gross: CREDIT, unpricedEnergy: 0 } });
    // the engine on the same stack says the same
    const stack = { list: priceList(LIST), addOns: -0.02, vat: 5, currency: 'GBP' };
    const engine = computeCost(stack, SOLAR_EXPORT, { timezone: 'Europe/London', direction: 'export', floorAtZero: true });
    should(engine.gross).be.approximately(CREDIT, 1e-9);
    should(computeCost(stack, SOLAR_EXPORT, { timezone: 'Europe/London', direction: 'export' }).gross).be.approximately(0.37, 1e-9);
    // import: 3 + 10 kWh at 0.28, VAT 5 %: 3.822; the net 3.822 - 0.80
    should(last.site).match({ today: { energy: 13, gross: 3.822 }, export: { today: { energy: 19, gross: CREDIT } } });
    should(last.site.net.today).match({ gross: 3.022, formatted: 'GBP 3.02' });
    await suite.clock!.tickAsync(1_500); // the routine status is paced: one a second
    await statusSettled();
    should(lastStatus('c')!.text).startWith('today GBP 3.82 · 13.00 kWh · export 19.00 kWh GBP 0.80 · 2 meters');
    should(caught.received).eql([]);
  });

  it('batch mode: the two registers, the export at the same spot price, VAT on export when ticked', async () => {
    const { node, out } = await load({ mode: 'batch', exportVat: true, wires: [['out']] });
    node.receive({ payload: LIST });
    await quiet(20);
    node.receive({ payload: { import: SOLAR_IMPORT, export: SOLAR_EXPORT } });
    const [msg] = await out.next(1);
    should(msg.payload.exportCredit).be.approximately(CREDIT * 1.05, 1e-9);
    should(msg.payload.export).match({ energy: 19, direction: 'export', vat: 5, tariffId: 'spot prices', parts: { spot: 0.96 } });
    should(msg.payload.net).be.approximately(3.822 - 0.84, 1e-9);
  });

  it('before a list comes the export is unpriced, never 0; settings that cannot work are said at deploy', async () => {
    const { node, out } = await load({ mode: 'batch', wires: [['out']] });
    node.receive({ payload: { export: SOLAR_EXPORT } });
    const [msg] = await out.next(1);
    should(msg.payload).match({ exportCredit: 0, export: { energy: 19, unpricedEnergy: 19 } });
    await helper.unload();
    await load({ exportPrices: '' });
    await statusSettled();
    should(lastStatus('c')!.text).equal('the export price is "prices", but no easy-prices node is set for it');
    await helper.unload();
    await load({ exportPrices: 'gone' });
    await statusSettled();
    should(lastStatus('c')!.text).equal('the export price: the easy-prices node set is not deployed');
    await helper.unload();
    await load({ exportAddOns: 'two cents' });
    await statusSettled();
    should(lastStatus('c')!.text).equal('the export add-ons must be a number per kWh, got "two cents"');
  });

  it('range mode on spot prices over a flat tariff reads the whole archive: the list prices each interval, not the first instant', async () => {
    const { node, out } = await load({
      mode: 'range',
      prices: 'pr',
      tariff: 'DEMO-FLAT',
      exportPrice: '',
      exportMeters: '',
      wires: [['out']],
    });
    node.receive({ payload: LIST });
    await quiet(20);
    node.receive({ gateway: 'DEMO', sensor: 'e1.kwh', from: at(6), to: at(21) });
    const [msg] = await out.next(1);
    const flat = DEMO_TARIFFS.find((t) => t.id === 'DEMO-FLAT')!;
    const readings = archive(findDemoSensor('e1.kwh')!, at(6), at(21)).map(([iso, value]) => [Date.parse(`${iso}Z`), value]);
    const expected = computeCost({ list: priceList(LIST), addOns: 0.5, vat: flat.vat, currency: flat.currency }, readings, {
      timezone: 'Europe/London',
    });
    should(msg.payload.fetched).match({ shortcut: false });
    should(msg.payload.net).be.approximately(expected.net, 1e-6);
    should(msg.payload.parts.spot).be.approximately(expected.parts!.spot, 1e-6);
  });
});
