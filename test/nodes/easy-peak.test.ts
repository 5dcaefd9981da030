import should from 'should';
import { FileContext, helper, inbox, installClock, lastStatus, quiet, simulatorHooks, warnings } from './flow-support';
import { guardNode, loadPeak } from './peak-flows';
import { until } from '../fake-clock';
import { shortText } from '../../nodes/lib/engine/common/format';

/** Node-RED's memory context store, as a module for `contextStorage` (untyped). */
const memoryStore: (config: object) => any = require('@node-red/runtime/lib/nodes/context/memory');

const MIN = 60_000;
const ZONE = 'Europe/Brussels';
/** A Wednesday 10:00 in Brussels: windows at :00, :15, :30, :45. */
const T0 = Date.parse('2026-03-04T09:00:00Z');
const spanOf = (from: number, to: number) => ({
  from: new Date(from).toISOString(),
  fromMs: from,
  to: new Date(to).toISOString(),
  toMs: to,
});

describe('easy-peak node', function () {
  // 128 and 2,000 meters through the runtime: seconds on a loaded machine
  this.timeout(120_000);

  const suite = simulatorHooks();

  async function load(over: Record<string, unknown> = {}, modules: unknown[] = []) {
    const loaded = await loadPeak(suite.sim, ZONE, guardNode(over), { modules, helpers: ['out', 'guard', 'chart'] });
    return { ...loaded, guard: loaded.inbox('guard'), chart: loaded.inbox('chart') };
  }

  /** Moves the fake clock to `ts` (firing what is due on the way) and sends a reading taken then. */
  async function readingAt(ts: number, kwh: number, extra: Record<string, unknown> = {}) {
    if (ts > Date.now()) await suite.clock!.tickAsync(ts - Date.now());
    helper.getNode('p').receive({ payload: kwh, ts, ...extra });
  }

  /** Readings every `stepMs` from `from` for `count` steps at the powers `kw(i)`; returns the last meter value. */
  async function feed(
    from: number,
    start: number,
    count: number,
    stepMs: number,
    kw: (i: number) => number,
    out: ReturnType<typeof inbox>,
  ) {
    let value = start;
    const sent: Array<{ ts: number; value: number; kw: number }> = [];
    for (let i = 1; i <= count; i++) {
      const p = kw(i);
      value += (p * stepMs) / 3600_000;
      await readingAt(from + i * stepMs, value);
      sent.push({ ts: from + i * stepMs, value, kw: p });
    }
    const msgs = await out.next(count);
    return { value, sent, msgs };
  }

  it('sheds a load that ramps up inside a window before its average passes the limit, not before the projection does', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, guard } = await load();
    await readingAt(T0 - 30_000, 100);
    await out.next(1);
    // 2 kW for 3 minutes, then 3 kW more every minute (readings every 30 s)
    const power = (i: number) => (i <= 6 ? 2 : Math.min(25, 2 + 1.5 * (i - 6)));
    const { msgs, sent } = await feed(T0 - 30_000, 100, 30, 30_000, power, out);
    const guards = await guard.next(2);
    should(guards[0]).match({ topic: 'guard', payload: 'restore', guard: 'restore' }); // the first reading tells the relay
    should(guards[1]).match({ payload: 'shed', guard: 'shed', changed: true, limitKw: 10 });
    const shedAt = msgs.findIndex((m) => m.payload.guard === 'shed');
    should(shedAt).be.above(0);
    // the projection passed the limit with this reading, not before
    should(msgs[shedAt].payload.site.window.projectedKw).be.above(10);
    should(msgs[shedAt - 1].payload.site.window.projectedKw).be.belowOrEqual(10);
    // …while the window's energy so far was still under what the limit allows for the whole window
    const window = msgs[shedAt].payload.site.window;
    should(window.fromMs).equal(T0);
    should(window.energy).be.below(10 * 0.25);
    // unshed, the window ends far above the limit
    const windowEnergy = sent.filter((r) => r.ts > T0 && r.ts <= T0 + 15 * MIN).reduce((sum, r) => sum + (r.kw * 30_000) / 3600_000, 0);
    should(windowEnergy / 0.25).be.above(10);
  });

  it('restores with hysteresis once the shed load (2 kW, set) fits in the window, at most one change a minute, and does not flap on noisy power', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, guard } = await load({ shedKw: '2' });
    await readingAt(T0, 100);
    await out.next(1);
    // 12 kW: shed at once
    let { value } = await feed(T0, 100, 3, 10_000, () => 12, out);
    const [, shed] = await guard.next(2);
    should(shed).match({ guard: 'shed' });
    const shedAt = Date.now() - 20_000;
    // noise around the threshold, 10 ± 0.9 kW every 10 s for 5 minutes: no change (restore needs 9 kW)
    ({ value } = await feed(T0 + 30_000, value, 30, 10_000, (i) => (i % 2 ? 10.9 : 9.1), out));
    await quiet(50);
    should(guard.received).have.length(0);
    // 3 kW: the projection falls; restore once it is at or under 9 kW, at least a minute after the shed
    const { msgs } = await feed(T0 + 330_000, value, 12, 10_000, () => 3, out);
    const [restore] = await guard.next(1);
    should(restore).match({ guard: 'restore', payload: 'restore', restoreBelowKw: 9 });
    const restoredMsg = msgs.find((m) => m.payload.guard === 'restore')!;
    should(restoredMsg.payload.projectedKw).be.belowOrEqual(9);
    should(restoredMsg.payload.reading.ts - shedAt).be.aboveOrEqual(MIN);
  });

  it('waits for the minute since the last change, then changes without a reading to wake it', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, guard } = await load({ hysteresisPercent: '0', shedKw: '1' });
    await readingAt(T0, 100);
    await out.next(1);
    let { value } = await feed(T0, 100, 1, 10_000, () => 12, out); // shed at T0 + 10 s
    should((await guard.next(2))[1]).match({ guard: 'shed' });
    // 1 kW from then on: restore is due at once, and comes a minute after the shed
    const calm = await feed(T0 + 10_000, value, 6, 10_000, () => 1, out);
    value = calm.value;
    should(calm.msgs.map((m) => m.payload.guard)).eql(['shed', 'shed', 'shed', 'shed', 'shed', 'restore']);
    should(calm.msgs[4].payload.reason).match(/waiting for the minute since the last change/);
    should((await guard.next(1))[0]).match({ guard: 'restore' });
    // 12 kW again 10 s later: shed is due, but waits for the minute; the timer sends it then
    await feed(T0 + 70_000, value, 1, 10_000, () => 12, out);
    await quiet(30);
    should(guard.received).have.length(0);
    await suite.clock.tickAsync(50_000 - 1);
    await quiet(30);
    should(guard.received).have.length(0);
    await suite.clock.tickAsync(1);
    const [again] = await guard.next(1);
    should(again).match({ guard: 'shed', changed: true });
    should(Date.now() - T0).equal(130_000);
  });

  it('restores when the data goes stale while shed', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, guard } = await load({ staleMinutes: '2' });
    await readingAt(T0, 100);
    await out.next(1);
    await feed(T0, 100, 1, 10_000, () => 12, out);
    should((await guard.next(2))[1]).match({ guard: 'shed' });
    await suite.clock.tickAsync(2 * MIN); // the latest power is exactly "stale after" old: still fresh
    await quiet(30);
    should(guard.received).have.length(0);
    await suite.clock.tickAsync(1);
    should((await guard.next(1))[0]).match({ guard: 'restore', reason: 'stale data', stale: ['default'] });
  });

  it('never sheds on stale data: a reading after a gap longer than "stale after" gives no power to act on', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, guard } = await load({ staleMinutes: '5' });
    await readingAt(T0, 100);
    await readingAt(T0 + 6 * MIN, 100 + 1.5); // 15 kW over 6 minutes: too old to act on
    const msgs = await out.next(2);
    should(msgs[1].payload).match({ guard: 'restore', reason: 'stale data', stale: ['default'] });
    should(msgs[1].payload.projectedKw).be.above(10);
    should(guard.received.filter((m) => m.guard === 'shed')).have.length(0);
  });

  it('a 45-minute outage across an 8 kW burst: the windows it spans are not complete, never a peak; the gap in the message and the status', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, chart } = await load({ maxGapMinutes: '10' });
    // 1 kW, a reading a minute, from 10:00 to 10:15
    const before = await feed(T0 - MIN, 100, 16, MIN, () => 1, out);
    // no reading from 10:15 to 11:00; 30 minutes of it at 8 kW: 4.25 kWh when the meter is back
    await readingAt(T0 + 60 * MIN, before.value + 4.25);
    const [back] = await out.next(1);
    const gap = { ...spanOf(T0 + 15 * MIN, T0 + 60 * MIN), minutes: 45 };
    should(back.payload.gap).eql(gap);
    should(back.payload.closedCount).equal(3); // 10:15, 10:30, 10:45
    should(back.payload.closed).match({ fromMs: T0 + 45 * MIN, complete: false, gap });
    should(back.payload.closed.kw).be.approximately((4.25 / 45) * 60, 1e-9);
    should(lastStatus('p')?.text).match(/· a gap of 45 min$/);
    // 1 kW on from 11:00 to 11:16: the month's peak is the complete windows' 1 kW, not the gap's 5.67 kW
    const after = await feed(T0 + 60 * MIN, back.payload.reading.value, 16, MIN, () => 1, out);
    const last = after.msgs[after.msgs.length - 1].payload;
    should(last.gap).be.undefined();
    should(last.site.month.value).be.approximately(1, 1e-9);
    should(last.meter.month.peaks.map((p: any) => p.fromMs)).eql([T0]);
    // the chart drew only complete windows: 10:00 and 11:00
    const points = chart.received.filter((m) => m.topic === 'average kW per 15 min').map((m) => m.payload[0].x);
    should(points).eql([T0, T0 + 60 * MIN]);
  });

  it('a gateway clock 6 minutes slow: its readings are fresh as they arrive, 8 kW against 5 kW sheds and stays shed; said once; silent, stale after "stale after"', async () => {
    suite.clock = installClock(T0);
    const { node, out, guard } = await load({ limitKw: '5', shedKw: '3' }); // shedding 3 of 8 kW never fits under 5: shed throughout
    const SLOW = 6 * MIN;
    let value = 100;
    const sent: Array<Record<string, any>> = [];
    // 20 minutes of readings every 10 s, each sent as it is taken, stamped by a clock 6 minutes behind this one
    for (let i = 0; i <= 120; i++) {
      if (i > 0) await suite.clock.tickAsync(10_000);
      value += i > 0 ? (8 * 10_000) / 3600_000 : 0;
      node.receive({ payload: value, ts: Date.now() - SLOW, gateway: 'GW' });
      sent.push(...(await out.next(1)));
    }
    should(sent.slice(1).every((m) => m.payload.guard === 'shed' && m.payload.stale.length === 0)).be.true();
    should(sent[120].payload.projectedKw).be.approximately(8, 1e-9);
    // the first reading has no power yet (restore, sent to set the relay); the second sheds, and nothing more
    should(guard.received.map((m) => m.guard)).eql(['restore', 'shed']);
    const told = warnings('p').filter((w) => /clock/.test(w));
    should(told).eql([
      "the readings of GW/default arrive 6 minutes after their time stamps: the gateway's clock is slow (or this machine's fast, " +
        "or the readings are delayed). The guard judges a reading's age by when it arrives, but windows are placed by the stamps: " +
        "set the gateway's clock (NTP)",
    ]);
    should(lastStatus('p')).match({ fill: 'red', text: /^shed · projected 8\.00 kW · limit 5\.00 kW · gateway clock 6 min slow$/ });
    // the meter stops sending: still shed for "stale after" (5 minutes) from its last arrival, restored after it
    await suite.clock.tickAsync(5 * MIN);
    await quiet(30);
    should(guard.received).have.length(2);
    await suite.clock.tickAsync(1);
    const [restored] = await guard.next(1);
    should(restored).match({ guard: 'restore', reason: 'stale data', stale: ['GW/default'] });
  });

  it('a gateway clock 3 minutes fast is said once too; one on time is not', async () => {
    suite.clock = installClock(T0);
    const { node, out } = await load();
    for (let i = 0; i <= 40; i++) {
      if (i > 0) await suite.clock.tickAsync(10_000);
      node.receive({ payload: 100 + i * 0.01, ts: Date.now() + 3 * MIN, gateway: 'FAST' });
      node.receive({ payload: 100 + i * 0.01, ts: Date.now(), gateway: 'RIGHT' });
      await out.next(2);
    }
    should(warnings('p').filter((w) => /clock/.test(w))).eql([
      "the readings of FAST/default are stamped 3 minutes ahead of this machine's clock: the gateway's clock is fast (or this " +
        "machine's slow). The guard judges a reading's age by when it arrives, but windows are placed by the stamps: set the " +
        "gateway's clock (NTP)",
    ]);
  });

  /** Readings of a meter at 8 kW every 10 s from T0 (12,345 kWh then), one per step; `glitch(i, value)` may replace the value sent. */
  async function meterAt8kW(
    steps: number,
    glitch: (i: number, value: number) => number = (_i, v) => v,
    over: Record<string, unknown> = {},
  ) {
    const { out, guard } = await load({ limit: 'peak', floorKw: '10', ...over });
    const sent: Array<Record<string, any>> = [];
    for (let i = 0; i <= steps; i++) {
      await readingAt(T0 + i * 10_000, glitch(i, 12_345 + (i * 8 * 10_000) / 3600_000));
      sent.push(...(await out.next(1)));
    }
    return { sent, out, guard };
  }

  it('a failed read (0), a 10x spike, a negative reading between normal ones: held, then dropped; no peak of thousands of kW, the limit unchanged, nothing lost', async () => {
    suite.clock = installClock(T0 - MIN);
    // 31 minutes: two whole windows and the start of a third
    const odd = new Map<number, (v: number) => number>([
      [30, () => 0], // a Modbus read that failed
      [100, (v) => v * 10],
      [140, () => -5],
    ]);
    const { sent, guard } = await meterAt8kW(186, (i, v) => odd.get(i)?.(v) ?? v);
    for (const i of odd.keys()) {
      should(sent[i].payload.held).equal(i === 100 ? 'high' : 'low');
      should(sent[i].payload.meter).eql(sent[i - 1].payload.meter); // the suspect changed nothing
      should(sent[i + 1].payload.glitches).match([{ ts: T0 + i * 10_000, value: odd.get(i)!(12_345 + (i * 8) / 360) }]);
    }
    should(sent.filter((m) => m.payload.held || m.payload.glitches)).have.length(6);
    should(sent.some((m) => m.payload.resets)).be.false();
    // every window at 8 kW to 1e-9: the readings around each glitch counted as one interval
    const last = sent[186].payload;
    should(last.meter.month.peaks).have.length(1);
    should(last.meter.month.peaks[0].kw).be.approximately(8, 1e-9);
    should(last.site.month.value).be.approximately(8, 1e-9);
    should(last.limitKw).equal(10); // the floor: the month's 8 kW is under it
    should(sent.filter((m) => m.payload.limitKw !== 10)).have.length(0);
    // the projection never saw a suspect: 8 kW at every reading after the first (rounding of a 12,345 kWh register aside)
    should(Math.max(...sent.slice(1).map((m) => Math.abs(m.payload.projectedKw - 8)))).be.below(1e-6);
    should(last.meter.window.energy).be.approximately((8 * 60_000) / 3600_000, 1e-9);
    should(guard.received.map((m) => m.guard)).eql(['restore']); // the first reading's; never shed
  });

  it('a counter reset and a meter swap count as semantics rule 10 says: the interval to the new base counts nothing', async () => {
    suite.clock = installClock(T0 - MIN);
    const { sent } = await meterAt8kW(60, (i, v) => (i < 20 ? v : i < 40 ? v - 12_345 : v - 12_345 + 50_000));
    // a reset at reading 20 (0.044 kWh): held, then the next reading goes on from it
    should(sent[20].payload.held).equal('low');
    should(sent[21].payload.resets).eql([{ ...spanOf(T0 + 190_000, T0 + 200_000), kind: 'reset' }]);
    // a swap to a register 50,000 kWh higher at reading 40
    should(sent[40].payload.held).equal('high');
    should(sent[41].payload.resets).eql([{ ...spanOf(T0 + 390_000, T0 + 400_000), kind: 'swap' }]);
    // 10 minutes at 8 kW less the two 10 s intervals that counted nothing
    should(sent[60].payload.meter.window.energy).be.approximately((8 * (600_000 - 20_000)) / 3600_000, 1e-9);
    should(sent[60].payload.meter.window.powerKw).be.approximately(8, 1e-6);
  });

  it('a held reading survives a restart: decided by the next reading after it as without the restart', async () => {
    for (const [what, value, expect] of [
      ['a glitch', 0, { glitches: [{ value: 0, kind: 'low' }] }],
      ['a reset', 0.02, { resets: [{ kind: 'reset' }] }],
    ] as const) {
      suite.clock = installClock(T0 - MIN);
      suite.context = new FileContext('easy-peak-');
      const { out } = await load({}, [suite.context.use()]);
      for (let i = 0; i <= 10; i++) await readingAt(T0 + i * 10_000, 12_345 + i * 0.02);
      await readingAt(T0 + 110_000, value);
      const sent = await out.next(12);
      should(sent[11].payload.held).equal('low', what);
      await suite.context.restart();
      await quiet(50);
      const again = inbox('out');
      await readingAt(T0 + 120_000, what === 'a glitch' ? 12_345 + 12 * 0.02 : 0.04);
      const [msg] = await again.next(1);
      should(msg.payload).match(expect, what);
      // a glitch: 12 intervals of 0.02 kWh; a reset: 10 and the one from its base, the interval to it nothing
      should(msg.payload.meter.window.energy).be.approximately(what === 'a glitch' ? 0.24 : 0.22, 1e-9, what);
      await suite.context.unload();
      suite.context = null;
      suite.clock.uninstall();
      suite.clock = null;
    }
  });

  it("keeps the window's energy and the month's peaks across a restart inside a window", async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-');
    const { out } = await load({ limit: 'peak' }, [suite.context.use()]);
    await readingAt(T0, 100);
    // a whole window at 8 kW, then 7 minutes at 4 kW
    let { value } = await feed(T0, 100, 15, MIN, () => 8, out);
    ({ value } = await feed(T0 + 15 * MIN, value, 7, MIN, () => 4, out));
    await suite.context.restart();
    await quiet(50);
    const again = inbox('out');
    await readingAt(T0 + 23 * MIN, value + 4 / 60);
    const [msg] = await again.next(1);
    should(msg.payload.meter.window).match({ fromMs: T0 + 15 * MIN, complete: true });
    should(msg.payload.meter.window.energy).be.approximately((8 * 4) / 60, 1e-9);
    should(msg.payload.meter.month.peaks).match([{ fromMs: T0, kw: 8 }]);
    should(msg.payload.site.month.value).be.approximately(8, 1e-9);
    should(msg.payload.limitKw).be.approximately(8, 1e-9);
  });

  it('starts a new month from zero', async () => {
    const end = Date.parse('2026-03-31T22:00:00Z'); // midnight in Brussels (CEST)
    suite.clock = installClock(end - 40 * MIN);
    const { out } = await load({ limit: 'peak' });
    await readingAt(end - 30 * MIN, 100);
    let { value } = await feed(end - 30 * MIN, 100, 30, MIN, () => 6, out);
    ({ value } = await feed(end, value, 1, MIN, () => 6, out));
    helper.getNode('p').receive({ payload: value + 0.1, ts: end + 2 * MIN });
    const [april] = await out.next(1);
    should(april.payload.site.month).match({ fromMs: end, peaks: [], value: null });
    should(april.payload.meter.month).match({ fromMs: end, peaks: [], value: null });
    should(april.payload.limitKw).equal(null);
  });

  it("sums 128 meters per window: the site's peak is the peak of the sum, not the sum of the peaks", async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, chart } = await load({ limit: 'peak' });
    const values = new Array(128).fill(1000);
    for (let step = 0; step <= 31; step++) {
      const ts = T0 + step * MIN;
      if (ts > Date.now()) await suite.clock.tickAsync(ts - Date.now());
      for (let m = 0; m < 128; m++) {
        // meter m draws 2 kW in the first window when it is even, in the second when it is odd
        const high = step > 0 && (step <= 15 ? m % 2 === 0 : step <= 30 && m % 2 === 1);
        if (step > 0) values[m] += (high ? 2 : 0) / 60;
        helper.getNode('p').receive({ topic: `e${m}.kwh`, gateway: '__proto__', payload: values[m], ts });
      }
      await out.next(128, 10_000);
    }
    const charts = await chart.next(3, 5000);
    const windows = charts.filter((c) => c.kind === 'window' && c.topic.startsWith('average'));
    should(windows.map((c) => c.payload[0])).eql(
      [
        { x: T0, y: 128 },
        { x: T0 + 15 * MIN, y: 128 },
      ].slice(0, windows.length),
    );
    helper.getNode('p').receive({ topic: 'e0.kwh', gateway: '__proto__', payload: values[0], ts: T0 + 31 * MIN + 1 });
    const [msg] = await out.next(1);
    should(msg.payload.site.meters).equal(128);
    // each meter's own peak is 2 kW; their sum 256 kW would be wrong: the sum per window is 128 kW
    should(msg.payload.meter.month.peaks[0].kw).be.approximately(2, 1e-9);
    should(msg.payload.site.month.peaks).have.length(1);
    should(msg.payload.site.month.peaks[0].kw).be.approximately(128, 1e-9);
  });

  it('refuses non-numbers, far and future timestamps with a clear error and loses nothing', async () => {
    suite.clock = installClock(T0);
    const { node, out, caught } = await load();
    await readingAt(T0 + MIN, 100);
    await readingAt(T0 + 2 * MIN, 100.1);
    await out.next(2);
    node.receive({ payload: 'lots' });
    node.receive({ payload: 100.2, ts: 1e15 });
    node.receive({ payload: 100.2, ts: T0 + 2 * MIN + 3600_000 });
    node.receive({ payload: { id: 'e1.kwh', value: 'x', ts: Date.now() } });
    const errors = (await caught.next(4)).map((m) => m.error.message);
    should(errors[0]).match(/^Easy-peak takes one cumulative kWh reading per message/);
    should(errors[1]).match(/msg\.ts/);
    should(errors[2]).match(/msg\.ts lies in the future: .* ahead of this machine's clock/);
    should(errors[3]).match(/Easy-peak needs msg\.payload\.value as a finite number of kWh, got "x"/);
    await readingAt(T0 + 3 * MIN, 100.2);
    const [msg] = await out.next(1);
    // the energy of the refused readings' span is in the next good interval: nothing lost
    should(msg.payload.meter.window.energy).be.approximately(0.2, 1e-9);
  });

  it('an unfiltered gateway of 2,000 meters: 128 counted, one error for the rest per burst, the counted ones lose nothing', async () => {
    suite.clock = installClock(T0);
    const { node, out, caught } = await load();
    for (let m = 0; m < 2000; m++) node.receive({ topic: m === 7 ? '__proto__' : `e${m}.kwh`, payload: 5, ts: T0 });
    await out.next(128, 60_000);
    await suite.clock.tickAsync(2000);
    const [err] = await caught.next(1, 60_000);
    should(err.error.message).match(
      /^Meter limit reached: 1,872 sensors ignored, "e128.kwh" the first \(easy-peak counts at most 128 meters/,
    );
    await quiet(100);
    should(caught.received).have.length(0);
    node.receive({ topic: '__proto__', payload: 5.1, ts: T0 + MIN });
    const [msg] = await out.next(1);
    should(msg.payload.meter).match({ name: '__proto__', window: { energy: 0.1 } });
  });

  it('a kVAh counter beside kWh meters: one error at Catch naming the meters, counted nowhere; the kWh site goes on', async () => {
    suite.clock = installClock(T0);
    const { node, out, caught } = await load();
    node.receive({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T0 });
    node.receive({ gateway: 'G', topic: 'e2.kwh', payload: 50, ts: T0 });
    await out.next(2);
    // an easy-sensors message of an apparent-energy sensor, and a number with msg.unit
    node.receive({ gateway: 'G', topic: 'e3.kvah', payload: { id: 'e3.kvah', value: 70, ts: T0, unit: 'kVAh' } });
    node.receive({ topic: 'incomer', unit: 'kVAh', payload: 80, ts: T0 });
    await suite.clock.tickAsync(1500); // the burst of refusals is over
    const [err] = await caught.next(1);
    should(err.error.message).equal(
      '"G/e3.kvah" and 1 more meters count kVAh, but this easy-peak sums kWh ("G/e1.kwh", "G/e2.kwh"): kW and kVA do not add up ' +
        '(a site sums kWh, kVAh, or kWh with kvarh into kVA), so the reading is not counted. Send each unit to an easy-peak of its own (a switch on msg.topic).',
    );
    node.receive({ gateway: 'G', topic: 'e1.kwh', payload: 100.1, ts: T0 + MIN });
    const [msg] = await out.next(1);
    should(msg.payload.site).match({ meters: 2, unit: 'kW' });
    should(msg.payload.site.window.energy).be.approximately(0.1, 1e-9);
    await quiet(50);
    should(caught.received).have.length(0); // one error for the burst
    should(out.received).have.length(0); // the refused readings sent nothing
  });

  it("a kWh and a kvarh counter of one supply: a kVA site, its windows √(kWh² + kvarh²), the month's peak in kVA", async () => {
    suite.clock = installClock(T0 - MIN);
    const { node, out, chart } = await load();
    // 8 kW and 6 kvar for 16 minutes: every window 10 kVA
    for (let k = 0; k <= 16; k++) {
      await readingAt(T0 + k * MIN, 100 + (8 * k) / 60, { gateway: 'G', topic: 'e1.kwh' });
      node.receive({
        gateway: 'G',
        topic: 'e1.kvarh',
        payload: { id: 'e1.kvarh', value: 50 + (6 * k) / 60, ts: T0 + k * MIN, unit: 'kvarh' },
      });
    }
    const msgs = await out.next(34);
    const last = msgs[msgs.length - 1].payload;
    should(last.site).match({ meters: 2, unit: 'kVA' });
    should(last.meter).match({ name: 'G/e1.kvarh', unit: 'kvar' });
    should(last.site.month.value).be.approximately(10, 1e-9);
    should(last.site.window.projectedKw).be.approximately(10, 1e-9);
    const points = chart.received.filter((m) => m.topic === 'average kW per 15 min');
    should(points.map((m) => m.payload[0])).eql([{ x: T0, y: 10 }]);
  });

  it('bad settings at deploy: a red status and an error (Catch) say which, every message ends in it, nothing crashes', async () => {
    for (const [over, words] of [
      [{ minutes: '7' }, 'the window must be 15, 30 or 60 minutes, got "7"'],
      [{ limit: 'fixed', limitKw: '' }, 'a fixed limit needs its kW'],
      [{ top: '__proto__' }, 'peaks per month must be a number from 1 to 10, got "__proto__"'],
      [{ maxGapMinutes: '0' }, 'the longest gap (minutes) must be a number from 1 to 1440, got "0"'],
    ] as const) {
      const { node, out, caught } = await load(over);
      const [atDeploy] = await caught.next(1);
      should(atDeploy.error.message).equal(words);
      should(lastStatus('p')).eql({ fill: 'red', shape: 'ring', text: shortText(words) }); // the Catch node has it whole
      node.receive({ payload: 100, ts: Date.now() });
      const [onMessage] = await caught.next(1);
      should(onMessage.error.message).equal(`${words[0].toUpperCase()}${words.slice(1)}.`); // as a sentence, as every message's error
      should(out.received).have.length(0);
      await helper.unload();
    }
  });

  it('stored peaks that cannot be read: a warning and the status say so; the node counts from zero and saves again', async () => {
    const saved: unknown[] = [];
    // the default store, whose reads of the peaks fail (a disk error): writes still work
    helper.settings({
      contextStorage: {
        default: {
          module: (config: object) => {
            const store = memoryStore(config);
            const { get, set } = store;
            store.get = (scope: string, key: string, callback?: (err: Error) => void) =>
              key === 'peaks' && callback ? callback(new Error('EIO: i/o error, read')) : get.call(store, scope, key, callback);
            store.set = (scope: string, key: string, value: unknown, callback?: () => void) => {
              if (key === 'peaks') saved.push(value);
              return set.call(store, scope, key, value, callback);
            };
            return store;
          },
        },
      },
    });
    try {
      suite.clock = installClock(T0 - MIN);
      const { out } = await load({}, [() => helper._redNodes.loadContextsPlugin()]);
      should(warnings('p')).containEql('peaks started from zero: the stored peaks could not be read (EIO: i/o error, read)');
      should(lastStatus('p')).eql({ fill: 'yellow', shape: 'ring', text: 'peaks from zero: the stored ones could not be read' });
      await readingAt(T0, 100);
      await readingAt(T0 + MIN, 100.1);
      const [, msg] = await out.next(2);
      should(msg.payload.meter.window.energy).be.approximately(0.1, 1e-9);
      should(lastStatus('p')!.fill).not.equal('yellow');
      await until('the peaks saved', () => saved.length > 0);
      await helper.unload();
      await helper._redNodes.closeContextsPlugin();
    } finally {
      helper.settings({});
    }
  });

  it('drops tampered stored state part by part with one warning, and keeps the rest', async () => {
    suite.clock = installClock(T0 - MIN);
    suite.context = new FileContext('easy-peak-');
    const { out } = await load({ limit: 'peak' }, [suite.context.use()]);
    await readingAt(T0, 100, { topic: 'a' });
    await readingAt(T0, 50, { topic: 'b' });
    await readingAt(T0 + MIN, 101, { topic: 'a' });
    await readingAt(T0 + MIN, 50.5, { topic: 'b' });
    await out.next(4);
    const store = helper.getNode('p').context();
    await suite.clock.tickAsync(2 * MIN); // saved within the minute
    const stored = await new Promise<any>((resolve) => store.get('peaks', (_err: unknown, v: unknown) => resolve(v)));
    should(stored.meters).have.length(2);
    const lines = stored.meters.map((l: string) => JSON.parse(l));
    lines[1][6] = -5; // a negative energy: meter b fails its checks
    stored.meters = lines.map((l: unknown) => JSON.stringify(l));
    stored.site = '[null,[],[],0,"melt",null]'; // a guard state that does not exist
    await new Promise<void>((resolve) => store.set('peaks', stored, () => resolve()));
    await suite.context.restart();
    await quiet(50);
    const said = warnings('p').filter((w) => w.startsWith('stored peaks'));
    should(said).eql(["stored peaks: dropped meter line 2 (failed its checks); the guard's state (failed its checks)"]);
    const again = inbox('out');
    await readingAt(T0 + 4 * MIN, 102, { topic: 'a' });
    const [msg] = await again.next(1);
    should(msg.payload.meter.window.energy).be.approximately(2, 1e-9);
    should(msg.payload.site.meters).equal(1);
  });
});
