// Readings from the future (docs/semantics.md, "Readings from the future") through the real
// Node-RED runtime: a gateway whose clock jumped a year ahead must not stop a meter's totals,
// neither while it runs nor after a restart, nor from totals an older version stored.
import should from 'should';
import { addReading, newTotals } from '../../nodes/lib/engine/cost/totals';
import { encodeStored } from '../../nodes/lib/runtime/cost/stream-store';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { FileContext, lastStatus, quiet, simulatorHooks, statusSettled, warnings } from './flow-support';
import { loadCost, restartCost } from './cost-flows';

const MIN = 60_000;
const YEAR = 366 * 24 * 3600_000;
/** DEMO-FLAT's price (GBP/kWh, before VAT): every interval costs its energy times this. */
const FLAT_PRICE = 0.25;

describe('readings from the future (easy-cost stream mode, real runtime)', function () {
  const suite = simulatorHooks();

  const load = (modules: unknown[] = []) => loadCost(suite.sim, { tariff: 'DEMO-FLAT', wires: [['out']] }, { timezone: 'UTC', modules });

  /** 360 real readings a minute apart ending a minute ago, 0.01 kWh each. */
  function realReadings(now: number): Array<{ payload: number; ts: number }> {
    const first = now - 360 * MIN;
    return Array.from({ length: 360 }, (_, i) => ({ payload: 100 + i / 100, ts: first + i * MIN }));
  }

  const today = (ms: number) => new Date(localPeriod('day', ms, { timezone: 'UTC' }).from).toISOString();

  it('refuses a reading a year ahead (Catch, status) and counts the next 350 real readings: totals and today.from right', async () => {
    const { node, out, caught } = await load();
    await quiet(50);
    const readings = realReadings(Date.now());
    for (const r of readings.slice(0, 10)) node.receive(r);
    node.receive({ payload: 100.1, ts: Date.now() + YEAR });
    for (const r of readings.slice(10)) node.receive(r);
    const msgs = await out.next(360, 10_000);
    const [err] = await caught.next(1);
    should(err.error.message).match(/^msg\.ts lies in the future: .* is 1 year ahead of this machine's clock .*at most 10 minutes ahead/);
    should(caught.received).be.empty();
    should(msgs.filter((m) => m.payload.ignored)).be.empty();
    const last = msgs[359].payload;
    should(last.total.energy).be.approximately(3.59, 1e-9);
    should(last.total.net).be.approximately(3.59 * FLAT_PRICE, 1e-9);
    should(last.total.intervals).equal(359);
    should(last.today.from).equal(today(readings[359].ts));
    await statusSettled();
    should(lastStatus('c')!.text).startWith('today GBP');
  });

  it('after a restart the totals go on from the real readings, the future one never stored', async () => {
    const context = (suite.context = new FileContext());
    const { node, out, caught } = await load([context.use()]);
    await quiet(50);
    const readings = realReadings(Date.now());
    for (const r of readings.slice(0, 200)) node.receive(r);
    node.receive({ payload: 150, ts: Date.now() + 10 * YEAR });
    await out.next(200, 10_000);
    should((await caught.next(1))[0].error.message).match(/lies in the future/);
    should(lastStatus('c')!.text).match(/future/);
    const restarted = await restartCost(context);
    should(warnings('c')).eql([]);
    for (const r of readings.slice(200)) restarted.node.receive(r);
    const msgs = await restarted.out.next(160, 10_000);
    should(msgs.filter((m) => m.payload.ignored)).be.empty();
    should(msgs[159].payload.total.energy).be.approximately(3.59, 1e-9);
    should(msgs[159].payload.today.from).equal(today(readings[359].ts));
  });

  it('totals an older version stored with a reading from the future: repaired with one warning, the next real readings count', async () => {
    const context = (suite.context = new FileContext());
    const { node, out } = await load([context.use()]);
    await quiet(50);
    const readings = realReadings(Date.now());
    // what 0.2 stored after a reading 99 years ahead: the periods moved there, the real readings too late
    let totals = newTotals('UTC', 'DEMO-FLAT');
    const flat = (a: { value: number }, b: { value: number }) => {
      const energy = b.value - a.value;
      return { energy, net: energy * FLAT_PRICE, gross: energy * FLAT_PRICE, unpricedEnergy: 0, resets: 0 };
    };
    for (const r of readings.slice(0, 100)) totals = addReading(totals, { ts: r.ts, value: r.payload }, flat).state;
    totals = addReading(totals, { ts: Date.now() + 99 * YEAR, value: 500 }, flat).state;
    should(totals.day!.from).be.above(Date.now() + YEAR); // the broken state this test repairs
    node.context().set('totals', encodeStored([{ gateway: null, topic: null, totals }], { timezone: 'UTC', tariffId: 'DEMO-FLAT' }));
    await out.next(0);
    const restarted = await restartCost(context);
    should(warnings('c')).have.length(1);
    should(warnings('c')[0]).match(
      /^stored running totals: dropped a reading more than a year ahead \(the newest 21\d\d-.*\) with the intervals ending at them.*\(default\)$/,
    );
    for (const r of readings.slice(100)) restarted.node.receive(r);
    const msgs = await restarted.out.next(260, 10_000);
    should(msgs.filter((m) => m.payload.ignored)).be.empty();
    const last = msgs[259].payload;
    should(last.total.energy).be.approximately(3.59, 1e-9);
    should(last.total.from).equal(new Date(readings[0].ts).toISOString());
    should(last.today.from).equal(today(readings[359].ts));
    // repaired in the store too: a second restart brings nothing back and says nothing
    await context.restart();
    await quiet(50);
    should(warnings('c')).have.length(1);
  });
});
