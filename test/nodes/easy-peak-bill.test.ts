// easy-peak's bill through the runtime (docs/semantics.md, rules 43, 45 and 46, "The peak
// node"): months from a meter-read day, the rolling average of the months' peaks with a
// floor (Flanders' capacity tariff, shortened to 3 months), the months before kept across a
// restart, and the guard's limit from what would raise the bill, worked by hand.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyPeak = require('../../nodes/easy-peak');
import {
  accountNode,
  catchNodes,
  FakeClock,
  FileContext,
  helper,
  inbox,
  installClock,
  loadFlow,
  quiet,
  startedPast,
  withSimulator,
} from './flow-support';

const MIN = 60_000;
const ZONE = 'Europe/Brussels';
/** 15 March 2026 00:00 in Brussels (CET): the meter-read day starts the month. */
const READ = Date.parse('2026-03-14T23:00:00Z');

describe('easy-peak: the bill', function () {
  this.timeout(60_000);
  let sim: Simulator;
  let clock: FakeClock | null = null;
  let context: FileContext | null = null;

  beforeEach(async () => {
    sim = await withSimulator();
  });

  afterEach(async () => {
    await (context ? context.unload() : helper.unload());
    context = null;
    clock?.uninstall();
    clock = null;
    await sim.close();
  });

  it('months from the 15th, a rolling average of 3 months at least 2.5 kW, the months before kept across a restart', async () => {
    clock = installClock(READ - 61 * MIN);
    context = new FileContext('easy-peak-bill-');
    const config = {
      id: 'p',
      type: 'easy-peak',
      account: 'acc',
      minutes: '15',
      readDay: '15',
      basis: 'rolling',
      rollingPeriods: '3',
      billFloorKw: '2.5',
      pricePerKw: '4',
      marginPercent: '0',
      hysteresisPercent: '0',
      wires: [['out'], ['guard'], []],
    };
    const flow = [accountNode(sim, ZONE), config, { id: 'out', type: 'helper' }, { id: 'guard', type: 'helper' }, ...catchNodes()];
    await loadFlow([easyPeak, context.use()], flow);
    await startedPast('p', 'restoring the peaks…');
    let out = inbox('out');
    let kwh = 100;
    /** Readings every minute from `from` for `minutes` at `kw`; the last message. */
    const feed = async (from: number, minutes: number, kw: number) => {
      let last: Record<string, any> = {};
      for (let i = 0; i <= minutes; i++) {
        if (i > 0) kwh += kw / 60;
        const ts = from + i * MIN;
        await clock!.tickAsync(ts - Date.now());
        helper.getNode('p').receive({ payload: kwh, ts });
        [last] = await out.next(1);
      }
      return last.payload;
    };
    // the hour before the read day's midnight: 6 kW, the month's peak (the month from 15 February)
    let p = await feed(READ - 60 * MIN, 59, 6);
    should(p.site.month).match({ fromMs: Date.parse('2026-02-14T23:00:00Z'), toMs: READ, value: 6 });
    // by hand: one month, 6 kW: billed 6, 24 a month; a window must beat 6 to raise it
    should(p.site.bill).eql({ billedKw: 6, demandCharge: 24, raisedAboveKw: 6 });
    // the new month: 29 minutes at 1 kW (the minute before it none)
    p = await feed(READ, 29, 1);
    should(p.site.month).match({ fromMs: READ, value: 1 });
    // by hand: (6 + max(1, 2.5)) / 2 = 4.25 kW billed, 17 a month; to raise it a window must beat 2.5 (the floor)
    should(p.site.bill).eql({ billedKw: 4.25, demandCharge: 17, raisedAboveKw: 2.5 });
    should(p.limitKw).equal(2.5);
    // restart: the month before is read back with the peaks
    await context.restart();
    await quiet(50);
    out = inbox('out');
    // 15 minutes at 3 kW (the minute before none): the window 30-45 min closes at 3 kW, the month's value 3;
    // by hand, with the month before read back: (6 + 3) / 2 = 4.5 billed, 18; to raise it a window must beat 3
    p = await feed(READ + 30 * MIN, 15, 3);
    should(p.site.month.value).equal(3);
    should(p.site.bill).eql({ billedKw: 4.5, demandCharge: 18, raisedAboveKw: 3 });
  });
});
