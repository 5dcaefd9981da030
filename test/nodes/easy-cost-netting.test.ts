// easy-cost's stream mode netting (semantics rule 48) through the real Node-RED runtime: a
// solar day that also buys 1 kWh while it sells at noon, netted per hour (restarted in the
// middle of the noon hour) and per month (restarted at noon), against figures worked by hand.
import should from 'should';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { FileContext, helper, inbox, quiet, simulatorHooks } from './flow-support';
import { at, costNode, FEED_IN, loadCost, restartCost } from './cost-flows';

/** Import: 1 kWh an hour 06-09, 0.5 kWh each half hour 12:00-13:00, 2 kWh an hour 16-21 (14 kWh). */
const bought = (h: number, m: number) => {
  const t = h + m / 60;
  return 1000 + Math.min(Math.max(t - 6, 0), 3) + Math.min(Math.max(t - 12, 0), 1) + 2 * Math.max(0, t - 16);
};
/** Export: 2, 3, 4, 4, 3, 2, 1 kWh in the hours from 09:00 to 16:00 (19 kWh). */
const sold = (h: number, m: number) => {
  const perHour: Record<number, number> = { 9: 2, 10: 3, 11: 4, 12: 4, 13: 3, 14: 2, 15: 1 };
  let v = 500;
  for (let k = 6; k < h; k++) v += perHour[k] ?? 0;
  return v + ((perHour[h] ?? 0) * m) / 60;
};
const TIMES: Array<[number, number]> = [];
for (let h = 6; h <= 21; h++) TIMES.push([h, 0], ...(h === 12 ? ([[12, 30]] as Array<[number, number]>) : []));

describe('easy-cost stream mode netting', function () {
  this.timeout(30_000);
  const suite = simulatorHooks({ simulator: () => ({ tariffs: () => [...JSON.parse(JSON.stringify(DEMO_TARIFFS)), FEED_IN] }) });

  /** The day through a node netting as `netting` says, restarted after the reading at `restartAfter`; its last message. */
  async function solarDay(netting: Record<string, unknown>, restartAfter: [number, number], made?: (h: number) => number) {
    const context = (suite.context = new FileContext('easy-cost-netting-'));
    await loadCost(
      suite.sim,
      { exportMeters: 'grid-out', exportTariff: 'FEED-IN', floorAtZero: true, ...netting, wires: [['out'], []] },
      {
        modules: [context.use()],
      },
    );
    const cut = TIMES.findIndex(([h, m]) => h === restartAfter[0] && m === restartAfter[1]) + 1;
    const send = (times: Array<[number, number]>) => {
      const n = helper.getNode('c');
      for (const [h, m] of times) {
        n.receive({ topic: 'grid-in', payload: bought(h, m), ts: at(h, m) });
        // the export register reads on the hour only
        if (m === 0) n.receive({ topic: 'grid-out', payload: sold(h, m), ts: at(h, m) });
        if (m === 0 && made) n.receive({ topic: 'inverter', payload: made(h), ts: at(h, m) });
      }
      return times.reduce((k, [, m]) => k + (m === 0 ? (made ? 3 : 2) : 1), 0);
    };
    const caughtBefore = inbox('caught');
    const before = await inbox('out').next(send(TIMES.slice(0, cut)));
    should(caughtBefore.received).eql([]);
    const { caught, out } = await restartCost(context);
    const after = await out.next(send(TIMES.slice(cut)));
    await quiet(50);
    should(caught.received).eql([]);
    return { before: before[before.length - 1].payload, last: after[after.length - 1].payload };
  }

  it('per hour, restarted mid-hour at 12:30: the 1 kWh bought at noon is netted against the 4 kWh sold', async () => {
    const { before, last } = await solarDay({ netting: 'interval', nettingMinutes: '60' }, [12, 30]);
    // at 12:30 the noon hour so far: 0.5 kWh bought, nothing sold yet (the export register reads at 13:00)
    should(before.site.netting).match({ mode: 'interval', minutes: 60, today: { importEnergy: 3.5 } });
    // bought 3 + 10 kWh at 0.28 + 5 % = 3.822 (the noon hour's 1 kWh netted away; 0.294 more without netting)
    // sold 2 + 3 (0.15), 4 (floored), 4 - 1 = 3 (floored), 3 + 2 + 1 (0.15): 11 x 0.15 = 1.65
    should(last.site.netting.today).match({
      importEnergy: 13,
      importCost: 3.822,
      exportEnergy: 18,
      exportCredit: 1.65,
      net: 2.172,
      oneSided: 0,
    });
    should(last.site.net.today).match({ gross: 2.172 });
    // the meters' own sums are gross: 14 kWh bought, 19 sold
    should(last.site).match({ today: { energy: 14, gross: 4.116 }, export: { today: { energy: 19, gross: 1.65 } } });
  });

  it('per month, restarted at noon: 14 kWh bought against 19 sold leaves 5 credited at the export average', async () => {
    const { last } = await solarDay({ netting: 'period' }, [12, 0]);
    // the month sold 19 kWh for 1.65: 5 kWh at 1.65 / 19 = 0.434210526
    should(last.site.netting).match({ mode: 'period', today: null, week: null });
    should(last.site.netting.month).match({
      importEnergy: 0,
      importCost: 0,
      exportEnergy: 5,
      exportCredit: 0.434210526,
      net: -0.434210526,
    });
    should(last.site.net.month.gross).equal(-0.434210526);
    // a day is not netted per month: today's net stays import gross − export gross
    should(last.site.net.today.gross).equal(2.466);
  });

  it('production (rule 64): self-consumption per interval and the self-sufficiency share, across a restart at noon', async () => {
    // the inverter makes 1, 3, 4, 5, 3, 4, 3, 2, 1 kWh in the hours from 08:00 to 17:00 (26 kWh)
    const perHour: Record<number, number> = { 8: 1, 9: 3, 10: 4, 11: 5, 12: 3, 13: 4, 14: 3, 15: 2, 16: 1 };
    const made = (h: number) => {
      let v = 7000;
      for (let k = 6; k < h; k++) v += perHour[k] ?? 0;
      return v;
    };
    const { before, last } = await solarDay({ productionMeters: 'inverter' }, [12, 0], made);
    // to noon: made 13, sold 9 (2, 3, 4 from 09:00), 1 kWh self-consumed each hour 08-12: 4; bought 3: 4 / 7
    should(before.site.production.today).match({ energy: 13, selfConsumption: 4, selfSufficiency: 0.571428571 });
    // the day: 1 a hour, but 12:00-13:00 made 3 and sold 4 (0, never -1): 8 (production - export is 7); bought 14: 8 / 22
    should(last.site.production).match({ meters: 1, today: { energy: 26, selfConsumption: 8, selfSufficiency: 0.363636364 } });
    should(last.site.production.total).match({ energy: 26, selfConsumption: 8 });
    // production is never priced nor counted as import: the site's sums are the grid meters'
    should(last.site).match({ meters: 1, today: { energy: 14, gross: 4.116 }, export: { today: { energy: 19 } } });
    // batch mode on the same three registers: the same figures
    await suite.context!.unload();
    suite.context = null;
    await loadCost(suite.sim, {}, { nodes: [costNode({ id: 'b', mode: 'batch', exportTariff: 'FEED-IN', wires: [['out']] })] });
    const batch = inbox('out');
    const rows = (f: (h: number, m: number) => number) => TIMES.filter(([, m]) => m === 0).map(([h]): [number, number] => [at(h), f(h, 0)]);
    helper.getNode('b').receive({ payload: { import: rows(bought), export: rows(sold), production: rows(made) } });
    const [msg] = await batch.next(1);
    should(msg.payload.production).eql({ energy: 26, selfConsumption: 8, selfSufficiency: 0.363636364 });
    // a production that is no list of readings: said at Catch, no figures sent
    const caught = inbox('caught');
    helper.getNode('b').receive({ payload: { import: rows(bought), export: rows(sold), production: 'inverter' } });
    const [err] = await caught.next(1);
    should(err.error.message).match(/msg\.payload\.production must be an array of \[timestamp, kWh\] readings/);
    await quiet(50);
    should(batch.received).eql([]);
  });
});
