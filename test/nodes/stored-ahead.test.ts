// A restart with this machine's clock behind, through the real Node-RED runtime and a
// localfilesystem context store (docs/semantics.md, "Stored state"): a Pi without a
// real-time clock loses power and boots 50 minutes behind, until NTP steps its clock. The
// month's totals and peak stored before are kept (one warning), readings stamped by the
// clock behind are too_late, the gateway's are refused as from the future, and once the
// clock is stepped the next readings are added once. The clock (Date and timers) is fake.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import {
  accountNode,
  catchNodes,
  FakeClock,
  FlowNode,
  FileContext,
  helper,
  inbox,
  installClock,
  lastStatus,
  loadFlow,
  startedPast,
  warnings,
  withSimulator,
} from './flow-support';
import { until } from '../fake-clock';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { clockSteps } from '../../nodes/lib/engine/time/clock-steps';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** The power cut ends at T0: the last stored reading; the Pi boots with its clock 50 minutes behind. */
const T0 = Date.parse('2026-03-12T10:00:00Z');
const BEHIND = 50 * MIN;
/** DEMO-FLAT's price (GBP/kWh, before VAT). */
const FLAT_PRICE = 0.25;

describe('a restart with the clock 50 minutes behind (real runtime, localfilesystem store)', function () {
  this.timeout(60_000);
  let sim: Simulator;
  let clock: FakeClock;
  let context: FileContext;

  beforeEach(async () => {
    clock = installClock(T0 - 2 * HOUR - MIN);
    sim = await withSimulator();
    context = new FileContext('easy-ahead-');
  });

  afterEach(async () => {
    await context.unload();
    clock.uninstall();
    await sim.close();
  });

  /** Loads `node` with the account and Catch; `out` collects output 1. */
  async function load(module: unknown, node: FlowNode) {
    await loadFlow([module, context.use()], [accountNode(sim, 'UTC'), node, { id: 'out', type: 'helper' }, ...catchNodes()]);
  }

  /** Sends what `reading(ts)` gives for every minute of [from, to], the clock moved to each; resolves with the messages out. */
  async function feed(id: string, from: number, to: number, reading: (ts: number) => Record<string, unknown>) {
    const out = inbox('out');
    let count = 0;
    for (let ts = from; ts <= to; ts += MIN, count++) {
      if (ts > Date.now()) clock.setSystemTime(ts);
      helper.getNode(id).receive(reading(ts));
    }
    return out.next(count, 10_000);
  }

  /** Stops the runtime, the Pi off from T0 on; it boots with the clock at T0 - BEHIND (a new process: it sees no step of the clock). */
  async function powerCutAndBootBehind() {
    await context.restart(async () => {
      clock.setSystemTime(T0 - BEHIND);
      clockSteps.takeAfresh();
    });
  }

  it("easy-cost stream: keeps the month's totals (one warning), counts the next readings once when NTP steps the clock", async () => {
    // 0.02 kWh a minute, and 0.01 more every tenth minute
    const valueAt = (ts: number) => 100 + ((ts - (T0 - 2 * HOUR)) / MIN) * 0.02 + Math.floor((ts - (T0 - 2 * HOUR)) / (10 * MIN)) * 0.01;
    await load(easyCost, { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['out']] });
    const before = await feed('c', T0 - 2 * HOUR, T0, (ts) => ({ payload: valueAt(ts), ts }));
    const stored = before[before.length - 1].payload;
    should(stored.total.energy).be.approximately(valueAt(T0) - valueAt(T0 - 2 * HOUR), 1e-9);
    await powerCutAndBootBehind();
    await until('the totals restored', () => /restored/.test(lastStatus('c')?.text ?? ''));
    should(warnings('c')).have.length(1);
    should(warnings('c')[0]).match(
      /^stored running totals lie 50 minutes ahead of this machine's clock \(2026-03-12T10:00:00\.000Z; the clock reads 2026-03-12T09:10:00\.000Z\): kept, as this clock is probably behind/,
    );
    should(lastStatus('c')!.text).startWith(`today ${stored.site.today.energy.toFixed(2)} kWh (restored)`);
    // meanwhile: the node stamps readings by its clock (too_late, nothing changes), the gateway's are from the future (Catch)
    const caught = inbox('caught');
    const meanwhile = await feed('c', T0 - BEHIND + MIN, T0 - BEHIND + 3 * MIN, (ts) => ({ payload: valueAt(ts + BEHIND) }));
    for (const m of meanwhile) {
      should(m.payload.ignored).equal('too_late');
      should(m.payload.total).eql(stored.total);
      should(m.payload.month).eql(stored.month);
    }
    helper.getNode('c').receive({ payload: valueAt(T0 + 3 * MIN), ts: T0 + 3 * MIN });
    should((await caught.next(1))[0].error.message).match(/^msg\.ts lies in the future: .* is 50 minutes ahead/);
    // NTP steps the clock: every reading from then on counts, the first the whole gap since T0
    clock.setSystemTime(T0 + 5 * MIN);
    const after = await feed('c', T0 + 5 * MIN, T0 + 40 * MIN, (ts) => ({ payload: valueAt(ts), ts }));
    should(after.filter((m) => m.payload.ignored)).be.empty();
    const last = after[after.length - 1].payload;
    const energy = valueAt(T0 + 40 * MIN) - valueAt(T0 - 2 * HOUR);
    should(last.total.energy).be.approximately(energy, 1e-9);
    should(last.total.net).be.approximately(energy * FLAT_PRICE, 1e-9);
    should(last.month.energy).be.approximately(energy, 1e-9); // the month began before the readings
    const day = localPeriod('day', T0, { timezone: 'UTC' }).from;
    should(last.today.energy).be.approximately(energy, 1e-9);
    should(last.today.from).equal(new Date(day).toISOString());
    should(caught.received).be.empty();
  });

  it("easy-peak: keeps the month's peak (one warning), counts the next readings once when NTP steps the clock", async () => {
    // 4.2 kW in the window 08:15-08:30, 1.5 kW else
    const kwAt = (ts: number) => (ts > T0 - 105 * MIN && ts <= T0 - 90 * MIN ? 4.2 : 1.5);
    const values = new Map<number, number>();
    let v = 100;
    for (let ts = T0 - 2 * HOUR; ts <= T0 + HOUR; ts += MIN) values.set(ts, (v += kwAt(ts) / 60));
    await load(easyPeak, {
      id: 'p',
      type: 'easy-peak',
      account: 'acc',
      minutes: '15',
      limit: 'peak',
      wires: [['out'], [], []],
    });
    await startedPast('p', 'restoring the peaks…');
    const before = await feed('p', T0 - 2 * HOUR, T0, (ts) => ({ payload: values.get(ts), ts }));
    const month = before[before.length - 1].payload.site.month;
    should(month).match({ value: 4.2, peaks: [{ fromMs: T0 - 105 * MIN, kw: 4.2 }] });
    await powerCutAndBootBehind();
    await until('the peaks restored', () => /restored/.test(lastStatus('p')?.text ?? ''));
    should(lastStatus('p')!.text).equal("restored · month's peak 4.20 kW");
    should(warnings('p')).have.length(1);
    should(warnings('p')[0]).match(/^stored peaks lie 50 minutes ahead of this machine's clock .*probably behind/);
    const caught = inbox('caught');
    const meanwhile = await feed('p', T0 - BEHIND + MIN, T0 - BEHIND + 3 * MIN, (ts) => ({ payload: values.get(ts + BEHIND) }));
    for (const m of meanwhile) {
      should(m.payload.ignored).equal('too_late');
      should(m.payload.site.month).eql(month);
    }
    clock.setSystemTime(T0 + 5 * MIN);
    const after = await feed('p', T0 + 5 * MIN, T0 + HOUR, (ts) => ({ payload: values.get(ts), ts }));
    should(after.filter((m) => m.payload.ignored)).be.empty();
    // every window after the stored one averages the 1.5 kW the meter drew: none counted twice
    const closed = after.filter((m) => m.payload.closed).map((m) => m.payload.closed);
    should(closed.map((w) => w.fromMs)).eql([T0, T0 + 15 * MIN, T0 + 30 * MIN, T0 + 45 * MIN]);
    for (const w of closed) should(w.kw).be.approximately(1.5, 1e-9);
    const last = after[after.length - 1].payload;
    should(last.site.month).match({ value: 4.2, peaks: [{ fromMs: T0 - 105 * MIN, kw: 4.2 }] });
    should(caught.received).be.empty();
  });
});
