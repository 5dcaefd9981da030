// easy-peak's bill through the runtime (docs/semantics.md, rules 43, 45 and 46, "The peak
// node"): months from a meter-read day, the rolling average of the months' peaks with a
// floor (Flanders' capacity tariff, shortened to 3 months), the months before kept across a
// restart, and the guard's limit from what would raise the bill, worked by hand.
import should from 'should';
import { FileContext, helper, inbox, installClock, quiet, simulatorHooks, warnings } from './flow-support';
import { loadPeak, peakNode } from './peak-flows';

const MIN = 60_000;
const ZONE = 'Europe/Brussels';
/** 15 March 2026 00:00 in Brussels (CET): the meter-read day starts the month. */
const READ = Date.parse('2026-03-14T23:00:00Z');

describe('easy-peak: the bill', function () {
  this.timeout(60_000);
  const suite = simulatorHooks();
  let out: ReturnType<typeof inbox>;
  let kwh = 100;

  /** Readings to node p every minute from `from` for `minutes` at `kw`; the last message's payload. */
  async function feed(from: number, minutes: number, kw: number) {
    let last: Record<string, any> = {};
    for (let i = 0; i <= minutes; i++) {
      if (i > 0) kwh += kw / 60;
      const ts = from + i * MIN;
      await suite.clock!.tickAsync(ts - Date.now());
      helper.getNode('p').receive({ payload: kwh, ts });
      [last] = await out.next(1);
    }
    return last.payload;
  }

  beforeEach(() => {
    kwh = 100;
  });

  it('months from the 15th, a rolling average of 3 months at least 2.5 kW, the months before kept across a restart', async () => {
    suite.clock = installClock(READ - 61 * MIN);
    suite.context = new FileContext('easy-peak-bill-');
    const config = peakNode({
      readDay: '15',
      basis: 'rolling',
      rollingPeriods: '3',
      billFloorKw: '2.5',
      pricePerKw: '4',
      marginPercent: '0',
      hysteresisPercent: '0',
      wires: [['out'], ['guard'], []],
    });
    ({ out } = await loadPeak(suite.sim, ZONE, config, { modules: [suite.context.use()], helpers: ['out', 'guard'] }));
    // the hour before the read day's midnight: 6 kW, the month's peak (the month from 15 February)
    let p = await feed(READ - 60 * MIN, 59, 6);
    should(p.site.month).match({ fromMs: Date.parse('2026-02-14T23:00:00Z'), toMs: READ, value: 6 });
    // by hand: one month, 6 kW: billed 6, 24 a month; a window must beat 6 to raise it
    should(p.site.bill).match({ billedKw: 6, demandCharge: 24, raisedAboveKw: 6 });
    // the new month: 29 minutes at 1 kW (the minute before it none)
    p = await feed(READ, 29, 1);
    should(p.site.month).match({ fromMs: READ, value: 1 });
    // by hand: (6 + max(1, 2.5)) / 2 = 4.25 kW billed, 17 a month; to raise it a window must beat 2.5 (the floor)
    should(p.site.bill).match({ billedKw: 4.25, demandCharge: 17, raisedAboveKw: 2.5 });
    should(p.limitKw).equal(2.5);
    // restart: the month before is read back with the peaks
    await suite.context.restart();
    await quiet(50);
    out = inbox('out');
    // 15 minutes at 3 kW (the minute before none): the window 30-45 min closes at 3 kW, the month's value 3;
    // by hand, with the month before read back: (6 + 3) / 2 = 4.5 billed, 18; to raise it a window must beat 3
    p = await feed(READ + 30 * MIN, 15, 3);
    should(p.site.month.value).equal(3);
    should(p.site.bill).match({ billedKw: 4.5, demandCharge: 18, raisedAboveKw: 3 });
  });

  it('months from a list of read dates; from the last date monthly on its day, said in the log at deploy', async () => {
    // read dates 10 February and 12 March 2026 in Brussels: the month 10 February-12 March, then 12 March-12 April
    const march12 = Date.parse('2026-03-11T23:00:00Z');
    suite.clock = installClock(march12 - 32 * MIN);
    suite.context = new FileContext('easy-peak-dates-');
    const config = peakNode({
      readDates: '2026-02-10, 2026-03-12',
      pricePerKw: '4',
      wires: [['out'], [], []],
    });
    ({ out } = await loadPeak(suite.sim, ZONE, config, { modules: [suite.context.use()] }));
    should(warnings('p').filter((w) => /read dates end/.test(w))).eql([]); // the last date is ahead
    // the half hour before 12 March at 5 kW: the month from 10 February (local midnight, 9 February 23:00Z)
    let p = await feed(march12 - 31 * MIN, 30, 5);
    should(p.site.month).match({ fromMs: Date.parse('2026-02-09T23:00:00Z'), toMs: march12, value: 5 });
    should(p.site.bill).match({ billedKw: 5, demandCharge: 20 });
    // from 12 March, past the list: monthly on day 12, to 12 April's local midnight (summer time: 11 April 22:00Z)
    // (the first minute after midnight none: by hand the window 00:00-00:15 is 14 minutes at 2 kW, 28/15 kW)
    p = await feed(march12 + MIN, 15, 2);
    should(p.site.month).match({ fromMs: march12, toMs: Date.parse('2026-04-11T22:00:00Z') });
    should(p.site.month.value).be.approximately(28 / 15, 1e-6);
    should(p.site.bill.billedKw).be.approximately(28 / 15, 1e-6);
    should(p.site.bill.demandCharge).be.approximately((4 * 28) / 15, 1e-6);
    // redeployed after the last date: the log says the list has run out, and the month is read back
    await suite.context.restart();
    await quiet(50);
    should(warnings('p').filter((w) => /read dates end/.test(w))).eql([
      "the read dates end on 2026-03-12: from it the months run monthly from day 12 of the month; add the next read dates in the node's settings",
    ]);
    out = inbox('out');
    p = await feed(march12 + 17 * MIN, 1, 2);
    should(p.site.month).match({ fromMs: march12 });
    should(p.site.month.value).be.approximately(28 / 15, 1e-6);
  });

  it('two demand charges at once (PG&E B-19: all hours and on-peak 16:00-21:00 weekdays): each billed, the total, the guard under the least', async () => {
    // Wednesday 15 July 2026 in Los Angeles (PDT, UTC-7)
    const at = (hhmm: string) => Date.parse(`2026-07-15T${hhmm}:00-07:00`);
    suite.clock = installClock(at('09:58'));
    suite.context = new FileContext('easy-peak-charges-');
    const onPeak = { name: 'on-peak', when: { time_start: '16:00', time_end: '21:00', weekdays: [1, 2, 3, 4, 5] }, pricePerKw: 20 };
    const config = peakNode({
      pricePerKw: '10',
      moreCharges: JSON.stringify([onPeak]),
      marginPercent: '0',
      hysteresisPercent: '0',
      wires: [['out'], [], []],
    });
    ({ out } = await loadPeak(suite.sim, 'America/Los_Angeles', config, { modules: [suite.context.use()] }));
    // 10:00-10:15 at 8 kW: all hours 8 kW (80); on-peak none (0); a window at 10:15 cannot raise on-peak: the limit is 8
    let p = await feed(at('09:59'), 16, 8);
    // projected: the window 10:15-10:30 at the latest 8 kW changes nothing (on-peak cannot count it)
    should(p.site.bill).eql({
      billedKw: 8,
      demandCharge: 80,
      raisedAboveKw: 8,
      projected: { billedKw: 8, demandCharge: 80 },
      charges: [
        { name: 'charge 1', billedKw: 8, demandCharge: 80, raisedAboveKw: 8, projected: { billedKw: 8, demandCharge: 80 } },
        { name: 'on-peak', billedKw: 0, demandCharge: 0, raisedAboveKw: null, projected: { billedKw: 0, demandCharge: 0 } },
      ],
      reactive: null, // a kW site: no kvarh counter
    });
    should(p.limitKw).equal(8);
    // 17:00-17:15 at 5 kW: all hours still 8 (80), on-peak 5 kW (100): 180; at 17:15 a window must beat 5 to raise on-peak
    p = await feed(at('17:00'), 15, 5);
    should(p.site.bill).eql({
      billedKw: 8,
      demandCharge: 180,
      raisedAboveKw: 5,
      projected: { billedKw: 8, demandCharge: 180 },
      charges: [
        { name: 'charge 1', billedKw: 8, demandCharge: 80, raisedAboveKw: 8, projected: { billedKw: 8, demandCharge: 80 } },
        { name: 'on-peak', billedKw: 5, demandCharge: 100, raisedAboveKw: 5, projected: { billedKw: 5, demandCharge: 100 } },
      ],
      reactive: null,
    });
    should(p.limitKw).equal(5);
    // 17:15-17:20 at 12 kW: by hand the window's projection (1 kWh + 12 kW x 10 min) / 15 min = 12 kW raises both
    // charges by the month's end: 12 x 10 + 12 x 20 = 360, while what is billed so far stays 180
    p = await feed(at('17:15'), 5, 12);
    should(p.site.window.projectedKw).equal(12);
    should(p.site.bill).match({
      demandCharge: 180,
      projected: { billedKw: 12, demandCharge: 360 },
      charges: [{ projected: { billedKw: 12, demandCharge: 120 } }, { projected: { billedKw: 12, demandCharge: 240 } }],
    });
    // restart: the on-peak month is read back, so 18:00-18:15 at 3 kW leaves it at 5 (from zero it would bill 3, 60)
    await suite.context.restart();
    await quiet(50);
    out = inbox('out');
    p = await feed(at('18:00'), 15, 3);
    should(p.site.bill).match({ demandCharge: 180, raisedAboveKw: 5, charges: [{ billedKw: 8 }, { billedKw: 5, demandCharge: 100 }] });
    should(warnings('p').filter((w) => /demand charges/.test(w))).eql([]);
  });
});
