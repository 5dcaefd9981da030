// power-saver's own Lowest Price fixtures (test/fixtures/power-saver, its 5.2.2 tests) fed to
// easy-plan in power-saver's input format (msg.payload.priceData, as ps-receive-price sends
// it and ps-strategy-lowest-price takes it), through an easy-prices node with no fees, in
// the real runtime on a fake clock in Europe/Oslo: every window of docs/power-saver.md's
// re-run planned by the node at least as well as power-saver plans it (the same run time
// at no more cost, or more run time where power-saver drops a block above the maximum price:
// rules 28-29), and exactly as the library plans it (which the re-run holds optimal).
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easyPlan = require('../../nodes/easy-plan');
import easyPrices = require('../../nodes/easy-prices');
import easyAccount = require('../../nodes/easy-account');
import { catchNodes, FakeClock, helper, inbox, quiet, TOKEN, withSimulator } from './flow-support';
import { installClock, until } from '../fake-clock';
import { lowestPriceRerun, WindowRow } from '../../bench/power-saver-rerun';
import { FIXTURES, MINUTE, sameCost } from '../../bench/power-saver-cases';
import { formatClock } from '../../nodes/lib/engine/common/format';

const ZONE = 'Europe/Oslo';
/** The account's tariff: no fees are added (the prices node says none); it gives the currency only. */
const NOK = { id: 'NOK', name: 'spot only', vat: 0, currency: 'NOK', rules: [{ priority: 1, price: 0 }] };

describe("easy-plan fed power-saver's own Lowest Price fixtures in its input format", function () {
  this.timeout(120_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;

  afterEach(async () => {
    await helper.unload();
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  const rows: WindowRow[] = lowestPriceRerun().rows;

  it(`plans every window (${rows.length}) at least as well as power-saver, exactly as the library`, async () => {
    let asWell = 0;
    for (const row of rows) {
      const c = row.case;
      clock = installClock(row.fromMs);
      sim = await withSimulator({ tariffs: () => [NOK], now: () => Date.now() });
      const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 7 * 86_400_000 };
      await helper.load(
        [easyAccount, easyPrices, easyPlan],
        [
          account,
          { id: 'pr', type: 'easy-prices', unit: 'kWh', fees: 'none', addOns: 0, vat: 'included', whenOut: 'stop' },
          {
            id: 'p',
            type: 'easy-plan',
            account: 'acc',
            prices: 'pr',
            tariff: 'NOK',
            durationHours: Math.floor(c.minutesOn / 60),
            durationMinutes: c.minutesOn % 60,
            mode: 'daily',
            from: formatClock(row.fromMs, ZONE).slice(0, 5),
            until: formatClock(row.toMs, ZONE).slice(0, 5),
            contiguous: c.doNotSplit,
            maxPrice: c.maxPrice === null ? '' : String(c.maxPrice),
            wires: [['sw'], ['plan']],
          },
          { id: 'sw', type: 'helper' },
          { id: 'plan', type: 'helper' },
          ...catchNodes(),
        ],
        { acc: { token: TOKEN } },
      );
      const plans = inbox('plan');
      const caught = inbox('caught');
      // the fixture as power-saver's strategy nodes take it: msg.payload = { priceData: [...] }
      helper.getNode('p').receive({ payload: JSON.parse(fs.readFileSync(path.join(FIXTURES, c.file), 'utf8')) });
      // the plan made on the list (the one on deploy, before it, has no prices)
      await until(
        'a plan on the list',
        () => caught.received.length > 0 || plans.received.some((m) => m.payload.pricesKnownUntilMs !== null),
      );
      await quiet(10);
      should(caught.received).eql([], `${row.test} ${row.window}`);
      const plan = plans.received[plans.received.length - 1].payload;
      should(plan.window).match({ fromMs: row.fromMs, toMs: row.toMs }, `${row.test} ${row.window}`);
      // the node's plan on the window's minutes: its cost of 1 kW and its run time
      const minutes = row.values.length;
      let cost = 0;
      let on = 0;
      for (let i = 0; i < minutes; i++) {
        const t = row.fromMs + i * MINUTE;
        if (plan.slots.some((s: { fromMs: number; toMs: number }) => s.fromMs <= t && t + MINUTE <= s.toMs)) {
          cost += row.values[i] / 60;
          on++;
        }
      }
      const label = `${row.test} ${row.window}: node ${on} min at ${cost}, library ${row.ours}, power-saver ${row.peerMinutes} min at ${row.peer}`;
      should(on * MINUTE).equal(plan.planned, label);
      should(sameCost(cost, row.ours)).be.true(label);
      // at least as well: the same run time at no more cost, or more of it (power-saver dropped a block above maxPrice)
      const better = on > row.peerMinutes || (on === row.peerMinutes && (cost < row.peer || sameCost(cost, row.peer)));
      should(better).be.true(label);
      asWell++;
      await helper.unload();
      clock.uninstall();
      clock = null;
      await sim.close();
      sim = null;
    }
    should(asWell).equal(rows.length);
  });
});
