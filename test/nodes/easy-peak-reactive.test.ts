// easy-peak's reactive energy through the runtime (docs/semantics.md, rules 57 and 65): a
// kWh and a kvarh counter of one supply, rule 57's half hours worked by hand in output 1's
// site.bill.reactive, the period's sums kept across a restart, tampered sums dropped on their
// own, and bad settings said at deploy.
import should from 'should';
import { FileContext, helper, inbox, installClock, quiet, simulatorHooks, warnings } from './flow-support';
import { until } from '../fake-clock';
import { loadPeak, peakNode, redeployPeak } from './peak-flows';

const MIN = 60_000;
const ZONE = 'Europe/London';
/** 14 January 2026 09:00 in London (GMT): rule 57's first half hour starts. */
const T0 = Date.parse('2026-01-14T09:00:00Z');
/** The kvarh free per kWh down to a power factor of 0.95: √(1/0.95² − 1). */
const FREE = Math.sqrt(1 / 0.95 ** 2 - 1);
/** January's hours (no clock change in it). */
const JANUARY_HOURS = 31 * 24;

describe('easy-peak: reactive energy and the power factor', function () {
  this.timeout(30_000);

  const suite = simulatorHooks();

  const load = (over: Record<string, unknown> = {}, modules: unknown[] = []) =>
    loadPeak(suite.sim, ZONE, peakNode({ minutes: '30', maxGapMinutes: '60', ...over }), { modules });

  /** The kWh and the kvarh counter read at `ts` (the clock moved there first); output 1's payload after the second. */
  async function read(out: ReturnType<typeof inbox>, ts: number, kwh: number, kvarh: number) {
    if (ts > Date.now()) await suite.clock!.tickAsync(ts - Date.now());
    const node = helper.getNode('p');
    node.receive({ gateway: 'G', topic: 'e1.kwh', payload: kwh, ts });
    node.receive({ gateway: 'G', topic: 'e1.kvarh', payload: kvarh, ts });
    const [, second] = await out.next(2);
    return second.payload;
  }

  it("rule 57's half hours by hand: 27.13 chargeable kvarh at 0.5 a kvarh, the month's power factor 0.923, kept across a restart", async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-reactive-');
    const { out } = await load({ pricePerKvarh: '0.5' }, [suite.context.use()]);
    // the kWh counter alone: a kW site, no reactive part
    helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kwh', payload: 1000, ts: T0 });
    const [first] = await out.next(1);
    should(first.payload.site.bill.reactive).be.null();
    helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kvarh', payload: 500, ts: T0 });
    const [paired] = await out.next(1);
    should(paired.payload.site.unit).equal('kVA');
    should(paired.payload.site.bill.reactive).match({ windows: 0, activeEnergy: 0, powerFactor: null, amount: 0, projected: null });
    // 09:00-09:30: 100 kWh and 60 kvarh (rule 56: 116.62 kVAh, power factor 0.857)
    let p = await read(out, T0 + 30 * MIN, 1100, 560);
    const chargeable = 60 - FREE * 100; // 27.13
    should(p.site.bill.reactive).match({ minPowerFactor: 0.95, pricePerKvarh: 0.5, windows: 1, activeEnergy: 100, reactiveEnergy: 60 });
    should(p.site.bill.reactive.apparentEnergy).be.approximately(116.619, 1e-3);
    should(p.site.bill.reactive.powerFactor).be.approximately(0.857, 1e-3);
    should(p.site.bill.reactive.chargeableKvarh).be.approximately(27.13, 1e-2);
    should(p.site.bill.reactive.amount).be.approximately(chargeable * 0.5, 1e-6); // 13.6 p
    should(p.site.bill.reactive.projected).be.null(); // half an hour counted: too little to project
    // 09:30-10:00: 100 kWh and no kvarh. 60 kvarh against 200 kWh is under 33 %, yet 27.13 stay chargeable
    p = await read(out, T0 + 60 * MIN, 1200, 560);
    should(p.site.bill.reactive).match({ windows: 2, activeEnergy: 200, reactiveEnergy: 60 });
    should(p.site.bill.reactive.apparentEnergy).be.approximately(216.619, 1e-3);
    should(p.site.bill.reactive.powerFactor).be.approximately(200 / (100 + Math.hypot(100, 60)), 1e-9); // 0.923
    should(p.site.bill.reactive.chargeableKvarh).be.approximately(chargeable, 1e-9);
    // projected: the hour counted at its pace over January's 744 hours; the power factor as so far
    should(p.site.bill.reactive.projected.chargeableKvarh).be.approximately(chargeable * JANUARY_HOURS, 1e-6);
    should(p.site.bill.reactive.projected.amount).be.approximately(chargeable * 0.5 * JANUARY_HOURS, 1e-6);
    should(p.site.bill.reactive.projected.powerFactor).be.approximately(p.site.bill.reactive.powerFactor, 1e-9);
    // a restart inside the period: the sums are kept, and the next half hour adds to them
    await suite.clock.tickAsync(2 * MIN); // saved within the minute
    await suite.context.restart();
    await quiet(50);
    const again = inbox('out');
    p = await read(again, T0 + 90 * MIN, 1300, 620);
    should(p.site.bill.reactive).match({ windows: 3, activeEnergy: 300, reactiveEnergy: 120 });
    should(p.site.bill.reactive.chargeableKvarh).be.approximately(2 * chargeable, 1e-9);
    should(p.site.bill.reactive.amount).be.approximately(chargeable, 1e-6);
    should(warnings('p').filter((w) => w.includes('reactive'))).eql([]);
  });

  it("tampered sums are dropped on their own, said once; the peaks are kept; a new month's sums start from zero", async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-reactive-');
    const { out } = await load({ pricePerKvarh: '0.5' }, [suite.context.use()]);
    await read(out, T0, 1000, 500);
    await read(out, T0 + 30 * MIN, 1100, 560);
    await suite.clock.tickAsync(2 * MIN);
    const store = helper.getNode('p').context();
    // edited once the node saved on close, before it starts again
    await suite.context.restart(async () => {
      const stored = await new Promise<any>((resolve) => store.get('peaks', (_err: unknown, v: unknown) => resolve(v)));
      const line = JSON.parse(stored.reactive);
      line[8] = line[6] + 1; // more chargeable kvarh than kvarh
      stored.reactive = JSON.stringify(line);
      await new Promise<void>((resolve) => store.set('peaks', stored, () => resolve()));
    });
    await quiet(50);
    should(warnings('p').filter((w) => w.startsWith('stored peaks'))).eql([
      "stored peaks: the reactive energy's sums from zero (failed their checks)",
    ]);
    const again = inbox('out');
    const p = await read(again, T0 + 60 * MIN, 1200, 560);
    should(p.site.month.peaks).have.length(1); // the peaks were kept
    should(p.site.bill.reactive).match({ windows: 1, activeEnergy: 100, reactiveEnergy: 0, chargeableKvarh: 0 });
    // February: the window under way is of a new period, its sums from zero
    const feb = Date.parse('2026-02-01T00:00:00Z');
    const next = await read(again, feb + 10 * MIN, 1300, 600);
    should(next.site.month.fromMs).equal(feb);
    should(next.site.bill.reactive).match({ windows: 0, activeEnergy: 0, chargeableKvarh: 0, powerFactor: null });
  });

  it('sums counted up to no end of a window of the new length are dropped, said once: 15-minute windows redeployed as 30', async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-reactive-');
    const { out } = await load({ minutes: '15', pricePerKvarh: '0.5' }, [suite.context.use()]);
    // 09:00-09:15 counted: 100 kWh and 60 kvarh, stored until 09:15 (no end of a 30-minute window)
    await read(out, T0, 1000, 500);
    let p = await read(out, T0 + 15 * MIN, 1100, 560);
    should(p.site.bill.reactive).match({ windows: 1, activeEnergy: 100, reactiveEnergy: 60 });
    await suite.clock.tickAsync(2 * MIN); // saved within the minute
    // a redeploy with 30-minute windows: the peaks were counted with other settings (dropped, said)
    await redeployPeak(suite.sim, ZONE, peakNode({ minutes: '30', maxGapMinutes: '60', pricePerKvarh: '0.5' }));
    await until('the stored peaks read', () => warnings('p').some((w) => w.includes('counted with other settings')));
    await quiet(50);
    should(warnings('p').filter((w) => w.includes('reactive'))).eql([
      "stored peaks: the reactive energy's sums from zero (counted up to 09:15:00, no end of a 30-minute window: counted in windows of another length)",
    ]);
    const again = inbox('out');
    // the meters start again at 09:20 (30 kWh, 10 kvarh to 09:30); 09:30-10:00 is counted whole: 100 kWh and 20 kvarh
    await read(again, T0 + 20 * MIN, 1130, 570);
    await read(again, T0 + 30 * MIN, 1160, 580);
    p = await read(again, T0 + 60 * MIN, 1260, 600);
    // (kept, the 15-minute sums made 200 kWh and 80 kvarh: 09:00-09:15 twice over in a 30-minute count, 09:15-09:30 never)
    should(p.site.bill.reactive).match({ windows: 2, activeEnergy: 130, reactiveEnergy: 30 }); // 09:20-09:30 and 09:30-10:00
  });

  it('bad settings at deploy: an error at Catch names the setting, nothing is counted', async () => {
    for (const [over, words] of [
      [{ pricePerKvarh: '-1' }, 'the price per kvarh must be a number from 0 to 1000000000, got "-1"'],
      [{ pricePerKvarh: 'cheap' }, 'the price per kvarh must be a number from 0 to 1000000000, got "cheap"'],
      [{ minPowerFactor: '0' }, 'the power factor free of charge must be a number from 0.01 to 1, got "0"'],
      [{ minPowerFactor: '1.5' }, 'the power factor free of charge must be a number from 0.01 to 1, got "1.5"'],
      [{ minPowerFactor: 'high' }, 'the power factor free of charge must be a number from 0.01 to 1, got "high"'],
    ] as const) {
      const { out, caught } = await load(over);
      const [atDeploy] = await caught.next(1);
      should(atDeploy.error.message).equal(words);
      helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kwh', payload: 1, ts: Date.now() });
      const [onReading] = await caught.next(1);
      should(onReading.error.message).equal(`${words[0].toUpperCase()}${words.slice(1)}.`); // as a sentence, as every message's error
      should(out.received).have.length(0);
      await helper.unload();
    }
  });
});
