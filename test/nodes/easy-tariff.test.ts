// easy-tariff in the real runtime against the simulator over loopback: the price on
// deploy, at the exact boundary, on a sensor change, the schedule, a restart offline,
// and every error path reaching a Catch node.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { DEMO_TARIFFS, generatorOn } from '../../sim/demo-data';
import * as fs from 'fs';
import * as path from 'path';
import { HOUR_MS, toLocalMs, zoneInfo } from '../../nodes/lib/engine/time/time';
import { priceAt } from '../../nodes/lib/engine/prices/price-source';
import easyTariff = require('../../nodes/easy-tariff');
import easyAccount = require('../../nodes/easy-account');
import easySensors = require('../../nodes/easy-sensors');
import {
  accountNode,
  catchNodes,
  FlowNode,
  helper,
  inbox,
  installClock,
  lastStatus,
  quiet,
  statuses,
  TOKEN,
  withSimulator,
} from './flow-support';
import { FakeClock, steady, until } from '../fake-clock';

const ZONE = 'Asia/Kolkata'; // +05:30: a boundary read in UTC or the process zone would be off by hours
const GENERATOR = DEMO_TARIFFS.find((t) => t.id === 'DEMO-GENERATOR')!;

function tariffNode(over: Record<string, unknown> = {}): FlowNode {
  return { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [['out']], ...over };
}

/** Local HH:mm:SS of an instant in ZONE, as a tariff rule writes it. */
function localHms(at: number): string {
  return new Date(toLocalMs(zoneInfo(ZONE), at)).toISOString().slice(11, 19);
}

/** A peak rule from `boundary` for an hour over a flat 0.30. */
function peakFrom(boundary: number) {
  return {
    id: 'SOON',
    name: 'Peak soon',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 10, price: 0.45, time_start: localHms(boundary), time_end: localHms(boundary + 3_600_000) },
      { priority: 20, price: 0.3 },
    ],
  };
}

/** peakFrom(boundary) with a rule over both that reads the demo gateway's sensor 1: 0.10 while it is 7. */
function peakWithSensorFrom(boundary: number) {
  const peak = peakFrom(boundary);
  const sensed = { priority: 5, price: 0.1, gateway_id: 'DEMO', sensor_id: '1', sensor_value: 7, sensor_condition: 'eq' };
  return { ...peak, rules: [sensed, ...peak.rules] };
}

/**
 * A loaded machine: the wall clock moves to 24 ms past `boundary` while its timer, due then,
 * still waits 10 ms (Date alone moves on, below STEP_MS: no clock step).
 */
async function lateBeforeTimer(clock: FakeClock, boundary: number): Promise<void> {
  await clock.tickAsync(boundary - 10 - Date.now());
  clock.setSystemTime(boundary + 24);
}

/** lateBeforeTimer, and a tariff refresh prices first. */
async function refreshBeforeTimer(clock: FakeClock, boundary: number): Promise<void> {
  await lateBeforeTimer(clock, boundary);
  await helper.getNode('acc').hub.refreshTariffs();
}

/** An instant whose quarter hour has the demo generator on (or off): the simulator's clock. */
function generatorInstant(on: boolean): number {
  let at = Date.parse('2026-03-04T10:00:30Z');
  while (generatorOn(at) !== on) at += 60_000;
  return at;
}

describe('easy-tariff node', function () {
  let sim: Simulator;

  afterEach(async () => {
    await helper.unload();
    await sim?.close();
  });

  async function start(
    opts: { tariffs?: () => unknown[]; now?: () => number; token?: string; zone?: string } = {},
    over = {},
    extra: FlowNode[] = [],
  ) {
    sim = await withSimulator({ tariffs: opts.tariffs, now: opts.now });
    const flow = [accountNode(sim, opts.zone ?? ZONE), tariffNode(over), { id: 'out', type: 'helper' }, ...catchNodes(), ...extra];
    await helper.load([easyAccount, easyTariff], flow, { acc: { token: opts.token ?? TOKEN } });
    return { out: inbox('out'), caught: inbox('caught'), shown: statuses('t'), flow };
  }

  /** easy-tariff on SOON (`served.tariffs`: `first`, peakFrom(boundary) unless told) under a fake clock 2.5 s before the boundary; its first price, 0.30 until the boundary, taken. */
  async function startBeforePeak(boundary: number, first: unknown = peakFrom(boundary)) {
    const clock = installClock(boundary - 2_500);
    const served = { tariffs: [first] };
    try {
      const { out } = await start({ tariffs: () => served.tariffs, now: () => Date.now() }, { tariff: 'SOON' });
      should((await out.next(1))[0].payload).containEql({ price: 0.3, validUntil: new Date(boundary).toISOString() });
      return { clock, served, out };
    } catch (err) {
      clock.uninstall();
      throw err;
    }
  }

  /**
   * startBeforePeak on peakWithSensorFrom, then as refreshBeforeTimer but a message brings sensor 1's
   * `value`: the payloads of the `n` prices it sends before the timer fires (nothing follows when it does).
   */
  async function sensorBeforeTimer(boundary: number, value: number, n: number) {
    const { clock, out } = await startBeforePeak(boundary, peakWithSensorFrom(boundary));
    try {
      await lateBeforeTimer(clock, boundary);
      helper.getNode('t').receive({ topic: '1', gateway: 'DEMO', payload: value });
      // (no I/O on the way: the bound fails it within mocha's timeout, the clock uninstalled)
      const sent = await out.next(n, 5_000);
      should(Date.now()).equal(boundary + 24); // the timer has not fired: the sensor value priced them
      await clock.tickAsync(10);
      await quiet(20);
      should(out.received).eql([]);
      return sent.map((m) => m.payload);
    } finally {
      clock.uninstall();
    }
  }

  it('sends the price on deploy with every payload field, then nothing while it holds', async () => {
    const { out, shown } = await start();
    const [msg] = await out.next(1);
    should(msg.topic).equal('price');
    should(msg.payload).eql({
      price: 0.25,
      gross: 0.3,
      vat: 20,
      currency: 'GBP',
      tariffId: 'DEMO-FLAT',
      tariffName: 'Flat rate',
      ruleIndex: 0,
      priority: 1,
      validFrom: null,
      validUntil: null,
      validFromMs: null,
      validUntilMs: null,
      unknownSensors: [],
      stale: false,
      tariffsFetchedAt: msg.payload.tariffsFetchedAt,
      reason: null,
    });
    should(Date.parse(msg.payload.tariffsFetchedAt)).be.approximately(Date.now(), 5000);
    should(shown[shown.length - 1]).eql({ fill: 'green', shape: 'dot', text: '0.25 GBP/kWh' });
    await quiet(300);
    should(out.received).eql([]);
  });

  it('prices read like typed numbers (0.17 + 20 % VAT is 0.204, not 0.20400000000000001), times with epoch ms beside', async () => {
    const typed = { id: 'TYPED', name: 'Typed', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.17 }] };
    should(0.17 * (1 + 20 / 100)).not.equal(0.204); // the noise this is about
    const { out } = await start({ tariffs: () => [typed] }, { tariff: 'TYPED' });
    const [msg] = await out.next(1);
    should(msg.payload).containEql({ price: 0.17, gross: 0.204 });
    helper.getNode('t').receive({ payload: 'schedule' });
    const [schedule] = await out.next(1);
    const [segment] = schedule.payload;
    should(segment.price).equal(0.17);
    should(segment.fromMs).equal(Date.parse(segment.from));
    should(segment.toMs).equal(Date.parse(segment.to));
  });

  it('without a price, sends a message each time the reason changes (missing → no rule matches)', async () => {
    // a rule for one minute half a day away never matches now, whatever the clock says
    const far = localHms(Date.now() + 12 * 3600_000).slice(0, 5);
    const later = {
      id: 'LATE',
      name: 'Late',
      vat: 20,
      currency: 'GBP',
      rules: [{ priority: 1, price: 0.5, time_start: far, time_end: `${far}:59` }],
    };
    let served: unknown[] = [];
    const { out } = await start({ tariffs: () => served }, { tariff: 'LATE' });
    const [missing] = await out.next(1);
    should(missing.payload).match({ price: null, tariffName: null, reason: 'tariff "LATE" is not on the account' });
    served = [later];
    await helper.getNode('acc').hub.refreshTariffs();
    const [noRule] = await out.next(1);
    should(noRule.payload).match({ price: null, tariffName: 'Late', reason: 'no rule matches at this time' });
    should(noRule.payload.validUntil).be.a.String();
  });

  it('switches at a boundary a few seconds ahead, at the instant, and shows until when', async () => {
    // on a fake clock: the timer is checked to the ms, whatever the machine's load (in real time a busy
    // machine made it late, or the boundary passed before the first price)
    const clock = installClock(Date.parse('2026-03-04T10:00:00.500Z'));
    const boundary = Date.parse('2026-03-04T10:00:03Z'); // 15:30:03 in Kolkata: the status shows :ss
    try {
      const { out, shown } = await start({ tariffs: () => [peakFrom(boundary)], now: () => Date.now() }, { tariff: 'SOON' });
      const [before] = await out.next(1);
      should(before.payload).containEql({ price: 0.3, validUntil: new Date(boundary).toISOString() });
      // the status shows :ss only when not zero (one time-of-day shape)
      should(shown[shown.length - 1].text).equal('0.30 GBP/kWh until 15:30:03');
      should(localHms(boundary)).equal('15:30:03');

      await clock.tickAsync(boundary - 1 - Date.now());
      await quiet(20);
      should(out.received).eql([]); // not a ms early
      await clock.tickAsync(1);
      const [after] = await out.next(1);
      should(Date.now()).equal(boundary); // at the instant: the clock has not moved on since
      should(after.payload).containEql({
        price: 0.45,
        gross: 0.54,
        ruleIndex: 0,
        priority: 10,
        validFrom: new Date(boundary).toISOString(),
      });
      should(after.payload.validUntil).equal(new Date(boundary + 3_600_000).toISOString());
      should(sim.requests.filter((r) => r.endpoint === 'tariffs')).have.length(1); // a timer, not a refetch or a tick
    } finally {
      clock.uninstall();
    }
  });

  it('a refresh that comes after a boundary but before its timer dates the new price from the boundary, not from the refresh', async () => {
    // a loaded machine: the wall clock is 24 ms past the boundary when the timer, due then, has not fired yet,
    // and a refresh (or a sensor) prices first; seen once as validFrom …:03.024 in the reliability tier
    const boundary = Date.parse('2026-03-04T10:00:03Z');
    const { clock, served, out } = await startBeforePeak(boundary);
    try {
      await refreshBeforeTimer(clock, boundary);
      const [after] = await out.next(1);
      should(Date.now()).equal(boundary + 24); // the timer has not fired: the refresh priced it
      should(after.payload).containEql({ price: 0.45, validFrom: new Date(boundary).toISOString() });
      should(after.payload.validUntil).equal(new Date(boundary + 3_600_000).toISOString());
      // the timer, when it fires, sends nothing more: the price is the same
      await clock.tickAsync(10);
      await quiet(20);
      should(out.received).eql([]);

      // a change half a second after that boundary, its timer fired and the next one armed, dates from when it came
      await clock.tickAsync(boundary + 500 - Date.now());
      served.tariffs = [{ ...peakFrom(boundary), rules: [{ priority: 1, price: 0.2 }] }];
      await helper.getNode('acc').hub.refreshTariffs();
      const [cheaper] = await out.next(1);
      should(cheaper.payload).containEql({ price: 0.2, validFrom: new Date(boundary + 500).toISOString() });
    } finally {
      clock.uninstall();
    }
  });

  it("a changed tariff that comes after a boundary but before its timer: the old tariff's change dated at the boundary, the new price at its arrival", async () => {
    // as above, the timer due at the boundary has not fired when the refresh comes 24 ms past it; but the refresh
    // brings another tariff: 0.45 was in force from the boundary (the old tariff), 0.20 only from when it came
    const boundary = Date.parse('2026-03-04T10:00:03Z');
    const { clock, served, out } = await startBeforePeak(boundary);
    try {
      served.tariffs = [{ ...peakFrom(boundary), rules: [{ priority: 1, price: 0.2 }] }];
      await refreshBeforeTimer(clock, boundary);
      const [due, changed] = await out.next(2);
      should(Date.now()).equal(boundary + 24); // the timer has not fired: the refresh priced both
      should(due.payload).containEql({ price: 0.45, validFrom: new Date(boundary).toISOString() });
      should(changed.payload).containEql({ price: 0.2, validFrom: new Date(boundary + 24).toISOString(), validUntil: null });
      await clock.tickAsync(10);
      await quiet(20);
      should(out.received).eql([]);
      // a changed tariff that prices as the old one from its boundary on (another hour changed): one change, dated at the boundary
      const later = boundary + 10_000;
      served.tariffs = [peakFrom(later)];
      await helper.getNode('acc').hub.refreshTariffs();
      should((await out.next(1))[0].payload).containEql({ price: 0.3, validUntil: new Date(later).toISOString() });
      const other = { priority: 5, price: 0.1, time_start: localHms(later + 6 * 3_600_000), time_end: localHms(later + 7 * 3_600_000) };
      served.tariffs = [{ ...peakFrom(later), rules: [other, ...peakFrom(later).rules] }];
      await refreshBeforeTimer(clock, later);
      const [peak] = await out.next(1);
      should(peak.payload).containEql({ price: 0.45, validFrom: new Date(later).toISOString() });
      await clock.tickAsync(10);
      await quiet(20);
      should(out.received).eql([]);
    } finally {
      clock.uninstall();
    }
  });

  it("a sensor value that comes after a boundary but before its timer: the change dated at the boundary with the values before, the value's price at its arrival", async () => {
    // as above, the timer due at the boundary has not fired 24 ms past it; a message brings the value a sensor
    // rule reads: 0.45 was in force from the boundary (the sensor not 7), 0.10 only from when the value came
    const boundary = Date.parse('2026-03-04T10:00:03Z');
    const [due, sensed] = await sensorBeforeTimer(boundary, 7, 2);
    should(due).containEql({ price: 0.45, validFrom: new Date(boundary).toISOString() });
    should(sensed).containEql({ price: 0.1, validFrom: new Date(boundary + 24).toISOString(), validUntil: null });
  });

  it('a sensor value that leaves the price as it is, after a boundary but before its timer: the change alone, dated at the boundary', async () => {
    const boundary = Date.parse('2026-03-04T10:00:03Z');
    const [due] = await sensorBeforeTimer(boundary, 3, 1);
    should(due).containEql({ price: 0.45, validFrom: new Date(boundary).toISOString() });
  });

  it('polls the gateway its sensor rule names, and a sensor message changes the price at once', async () => {
    const at = generatorInstant(true);
    const { out, caught } = await start({ now: () => at }, { tariff: 'DEMO-GENERATOR' });
    // the first price waits for the poll: no provisional price from a later rule first
    const [polled] = await out.next(1);
    should(polled.payload).containEql({ price: 0.55, ruleIndex: 0, unknownSensors: [], reason: null, stale: false });
    await quiet(200);
    should(out.received).eql([]);

    const node = helper.getNode('t');
    let sent = Date.now();
    node.receive({ topic: '1', gateway: 'DEMO', payload: 0 });
    const [off] = await out.next(1);
    should(Date.now() - sent).be.below(100);
    should(off.payload).containEql({ price: 0.22, ruleIndex: 1 });
    should(Date.parse(off.payload.validFrom)).be.approximately(sent, 100);

    // as wired from easy-sensors: the payload object, gateway on the message
    sent = Date.now();
    node.receive({ topic: '1', gateway: 'DEMO', payload: { id: '1', name: 'Generator running', value: 1, unit: null } });
    const [on] = await out.next(1);
    should(Date.now() - sent).be.below(100);
    should(on.payload.price).equal(0.55);

    // easy-sensors in 'all' mode: the array of the gateway's sensors
    node.receive({
      topic: 'DEMO',
      gateway: 'DEMO',
      payload: [
        { id: 'e1.kwh', value: 1234.5 },
        { id: '1', value: 0 },
      ],
    });
    should((await out.next(1))[0].payload.price).equal(0.22);

    // other sensors of the same poll are none of this tariff's business
    node.receive({ topic: 'e1.kwh', gateway: 'DEMO', payload: { id: 'e1.kwh', value: 1234.5 } });
    await quiet(150);
    should(out.received).eql([]);
    should(caught.received).eql([]);
    should(GENERATOR.rules[0]).containEql({ gateway_id: 'DEMO', sensor_id: '1' });
  });

  it('deploy, full redeploy and a restart against a reachable service: one fresh, final price per tariff node', async () => {
    const at = generatorInstant(true);
    const generatorNode = tariffNode({ id: 'g', tariff: 'DEMO-GENERATOR', wires: [['out2']] });
    const { out, flow } = await start({ now: () => at }, {}, [generatorNode, { id: 'out2', type: 'helper' }]);
    const out2 = inbox('out2');
    const expectOneFresh = async (flat: ReturnType<typeof inbox>, generator: ReturnType<typeof inbox>, after: number) => {
      const [[f], [g]] = await Promise.all([flat.next(1), generator.next(1)]);
      should(f.payload).containEql({ price: 0.25, stale: false, reason: null });
      should(g.payload).containEql({ price: 0.55, stale: false, reason: null, unknownSensors: [] });
      for (const m of [f, g]) should(Date.parse(m.payload.tariffsFetchedAt)).be.aboveOrEqual(after);
      await quiet(300);
      should(flat.received).eql([]);
      should(generator.received).eql([]);
    };
    await expectOneFresh(out, out2, 0);

    // "restart flows": every node stops and starts; the account finds its last good tariffs kept
    const before = Date.now() - 1;
    await (helper as any).setFlows(flow, 'full', { acc: { token: TOKEN } });
    // the helper nodes were restarted too: listen on the new ones (the price waits for a fetch)
    await expectOneFresh(inbox('out'), inbox('out2'), before);

    // a new runtime whose context holds the last good tariffs and the generator's last sensor value
    const kept = await new Promise((resolve) =>
      helper
        .getNode('acc')
        .context()
        .get('lastGoodTariffs', (_e: unknown, v: unknown) => resolve(v)),
    );
    const sensors = await new Promise((resolve) =>
      helper
        .getNode('g')
        .context()
        .get('lastKnownSensors', (_e: unknown, v: unknown) => resolve(v)),
    );
    should(sensors).eql([{ gatewayId: 'DEMO', sensorId: '1', value: 1 }]);
    await helper.unload();
    await helper.load(
      [easyAccount, easyTariff],
      flow.filter((n) => n.type !== 'easy-account' && n.type !== 'easy-tariff'),
      {},
    );
    (helper as any)._context.get('acc', undefined).set('lastGoodTariffs', kept);
    (helper as any)._context.get('g', undefined).set('lastKnownSensors', [{ gatewayId: 'DEMO', sensorId: '1', value: 0 }]);
    const [restartedFlat, restartedGenerator] = [inbox('out'), inbox('out2')];
    const restarted = Date.now() - 1;
    await (helper as any).setFlows(flow, 'nodes', { acc: { token: TOKEN } });
    // the kept value (0: generator off) is older than the poll's (1): the poll prices
    await expectOneFresh(restartedFlat, restartedGenerator, restarted);
  });

  it('a sensor poll slower than the request deadline: priced at the deadline from the value kept in context', async () => {
    const at = generatorInstant(true);
    sim = await withSimulator({ now: () => at, faults: { scope: 'sensors', latencyMs: 3000 } });
    const flow = [
      { ...accountNode(sim, ZONE), timeoutMs: 400, retries: 0 },
      tariffNode({ tariff: 'DEMO-GENERATOR' }),
      { id: 'out', type: 'helper' },
      ...catchNodes(),
    ];
    await helper.load(
      [easyAccount, easyTariff],
      flow.filter((n) => n.type === 'helper' || n.type === 'catch'),
      {},
    );
    (helper as any)._context.get('t', undefined).set('lastKnownSensors', [{ gatewayId: 'DEMO', sensorId: '1', value: 0 }, { junk: true }]);
    const out = inbox('out');
    const caught = inbox('caught');
    const deployed = Date.now();
    await (helper as any).setFlows(flow, 'nodes', { acc: { token: TOKEN } });
    const [msg] = await out.next(1, 3000);
    should(Date.now() - deployed).be.aboveOrEqual(350);
    // generator off as last known: the second rule, no sensor unknown, no made-up price before
    should(msg.payload).containEql({ price: 0.22, ruleIndex: 1, unknownSensors: [], stale: false, reason: null });
    const [err] = await caught.next(1, 3000);
    should(err.error.message).match(/sensors of gateway DEMO could not be read/);
    should(lastStatus('t')).containEql({ fill: 'green', text: '0.22 GBP/kWh' });
  });

  it('says when the gateway of a sensor rule cannot be read, and prices by the next rule', async () => {
    const tariff = { ...GENERATOR, id: 'GONE', rules: GENERATOR.rules.map((r) => ('gateway_id' in r ? { ...r, gateway_id: 'GONE' } : r)) };
    const { out, caught } = await start({ tariffs: () => [tariff] }, { tariff: 'GONE' });
    const [msg] = await out.next(1);
    should(msg.payload).containEql({ price: 0.22, unknownSensors: [{ gatewayId: 'GONE', sensorId: '1' }] });
    const [err] = await caught.next(1);
    should(err.error.message).match(/sensors of gateway GONE could not be read: .*not found/);
    // the price payload is the data; its reason is the problem, where a debug node shows it
    should(err.payload).containEql({ price: 0.22, reason: err.error.message });
    should(lastStatus('t')).containEql({ fill: 'green', text: '0.22 GBP/kWh · sensor GONE/1 unknown' });
  });

  it("answers 'schedule' with the next 24 h of segments on the same output", async () => {
    const { out } = await start({ zone: 'UTC' }, { tariff: 'DEMO-NIGHT' });
    await out.next(1);
    const before = Date.now();
    helper.getNode('t').receive({ payload: 'schedule', _msgid: 'm1' });
    const [msg] = await out.next(1);
    should(msg).containEql({ topic: 'schedule', tariffId: 'DEMO-NIGHT', currency: 'GBP', vat: 5, timezone: 'UTC', _msgid: 'm1' });
    const segments = msg.payload as Array<{ from: string; to: string; price: number }>;
    should(Date.parse(segments[0].from)).be.within(before, Date.now());
    should(Date.parse(segments[segments.length - 1].to) - Date.parse(segments[0].from)).equal(24 * 3_600_000);
    segments.slice(1).forEach((s, k) => should(s.from).equal(segments[k].to));
    for (const s of segments) {
      const hour = new Date(s.from).getUTCHours();
      if (s.from !== segments[0].from) should(hour === 22 ? 0.12 : hour === 6 ? 0.28 : NaN).equal(s.price);
    }
  });

  it("'resend' (or msg.resend) sends the price now in force again, the same payload; nothing else changes", async () => {
    const { out } = await start({ zone: 'UTC' }, { tariff: 'DEMO-NIGHT' });
    const [first] = await out.next(1);
    helper.getNode('t').receive({ payload: 'resend' });
    const [again] = await out.next(1);
    should(again.topic).equal('price');
    should(again.payload).eql(first.payload);
    helper.getNode('t').receive({ resend: true });
    const [third] = await out.next(1);
    should(third.payload).eql(first.payload);
    // a plain message is no resend: nothing is sent
    helper.getNode('t').receive({ payload: 'hello' });
    await new Promise((r) => setTimeout(r, 300));
    should(out.received).have.length(0);
  });

  /** The value of a ui-chart step line at t: the last point at or before it. */
  const stepAt = (points: Array<{ x: number; y: number | null }>, t: number) => points.filter((p) => p.x <= t).pop()?.y;

  it("answers 'chart' on the second output: net and gross step lines that replace the chart, 24 h or msg.days", async () => {
    const night = DEMO_TARIFFS.find((t) => t.id === 'DEMO-NIGHT')!;
    const { out } = await start({}, { tariff: 'DEMO-NIGHT', wires: [['out'], ['chart']] }, [{ id: 'chart', type: 'helper' }]);
    const charts = inbox('chart');
    await out.next(1);
    for (const days of [undefined, 7]) {
      const before = Date.now();
      helper.getNode('t').receive({ payload: 'chart', days });
      const [net, gross] = await charts.next(2);
      should([net.topic, net.action, gross.topic, gross.action]).eql(['net GBP/kWh', 'replace', 'gross GBP/kWh', 'append']);
      should(net).containEql({ tariffId: 'DEMO-NIGHT', timezone: ZONE });
      const points = net.payload as Array<{ x: number; y: number | null }>;
      should(points[0].x).be.within(before, Date.now());
      should(points[points.length - 1].x - points[0].x).equal((days ?? 1) * 24 * 3_600_000);
      // twice a day two points at the boundary: before and after
      should(points.length).equal(2 + 4 * (days ?? 1));
      for (let t = points[0].x; t < points[points.length - 1].x; t += 17 * 60_000) {
        const expected = priceAt(night, t, { timezone: ZONE })!;
        should(stepAt(points, t)).equal(expected.price);
        should(stepAt(gross.payload as typeof points, t)).equal(expected.gross);
      }
    }
    should(out.received).eql([]);
  });

  it("a bad msg.days for 'chart' ends in done(err) with a message saying what is allowed", async () => {
    const { out, caught } = await start({}, { wires: [['out'], ['chart']] }, [{ id: 'chart', type: 'helper' }]);
    await out.next(1);
    helper.getNode('t').receive({ payload: 'chart', days: 30 });
    const [err] = await caught.next(1);
    should(err.error.message).match(/^msg.days must be a whole number of days from 1 to 7, got 30\.$/);
  });

  it('with Chart ticked on a price that changes every second: a price message each second, a chart at most once a minute', async () => {
    const from = Date.parse('2026-03-04T06:00:00Z');
    const clock = installClock(from);
    try {
      const rules = Array.from({ length: 600 }, (_, k) => ({
        priority: k,
        price: k % 2 ? 0.2 : 0.3,
        time_start: localHms(from + (k + 1) * 1000),
        time_end: localHms(from + (k + 2) * 1000),
      }));
      const seconds = {
        id: 'SECONDS',
        name: 'a change a second',
        vat: 20,
        currency: 'EUR',
        rules: [...rules, { priority: 999, price: 0.1 }],
      };
      sim = await withSimulator({ tariffs: () => [seconds], now: () => Date.now() });
      const flow = [
        { ...accountNode(sim, ZONE), timeoutMs: 86_400_000 },
        tariffNode({ tariff: 'SECONDS', chart: true, wires: [['out'], ['chart']] }),
        { id: 'out', type: 'helper' },
        { id: 'chart', type: 'helper' },
        ...catchNodes(),
      ];
      await helper.load([easyAccount, easyTariff], flow, { acc: { token: TOKEN } });
      const prices: number[] = [];
      const charts: number[] = [];
      helper.getNode('out').on('input', () => prices.push(Date.now()));
      helper.getNode('chart').on('input', (msg: any) => msg.action === 'replace' && charts.push(Date.now()));
      await until('the first price', () => prices.length === 1);
      for (let s = 0; s < 300; s++) {
        await clock.tickAsync(1000);
        await until(`the price at second ${s + 1}`, () => prices.length >= s + 2);
      }
      should(prices.length).be.aboveOrEqual(300);
      // one chart with the first price, then one at the end of each minute (the last change charted late)
      should(charts.map((t) => Math.round((t - charts[0]) / 60_000))).eql([0, 1, 2, 3, 4, 5]);
    } finally {
      clock.uninstall();
    }
  });

  it('msg.days is a whole number of days written plainly: hex, exponents, fractions, signs and spaces are refused', async () => {
    const { out, caught } = await start({}, { wires: [['out'], ['chart']] }, [{ id: 'chart', type: 'helper' }]);
    const charts = inbox('chart');
    await out.next(1);
    const refused = ['0x7', '7 ', ' 7', '1e0', '7.0', '+7', '-1', '0', '٧', 7.5, 0, 8, -7, Infinity, NaN, true, [7], { days: 7 }];
    for (const days of refused) {
      helper.getNode('t').receive({ payload: 'chart', days });
      const [err] = await caught.next(1);
      should(err.error.message).startWith('msg.days must be a whole number of days from 1 to 7, got ');
    }
    // digits only, a leading zero included ("07" is 7), or a number
    for (const [days, expected] of [
      ['07', 7],
      ['3', 3],
      [2, 2],
    ] as Array<[unknown, number]>) {
      helper.getNode('t').receive({ payload: 'chart', days });
      const [net] = await charts.next(2);
      const points = net.payload as Array<{ x: number }>;
      should(points[points.length - 1].x - points[0].x).equal(expected * 24 * 3_600_000);
    }
    should(caught.received).eql([]);
  });

  it('with Chart ticked, sends the chart data with the price at each change (7 days when set)', async () => {
    const { out } = await start({}, { tariff: 'DEMO-NIGHT', chart: true, chartDays: '7', wires: [['out'], ['chart']] }, [
      { id: 'chart', type: 'helper' },
    ]);
    const charts = inbox('chart');
    const [price] = await out.next(1);
    const [net] = await charts.next(2);
    const points = net.payload as Array<{ x: number; y: number | null }>;
    should(points[points.length - 1].x - points[0].x).equal(7 * 24 * 3_600_000);
    should(points[0].y).equal(price.payload.price);
  });

  it('after a redeploy without network prices from the last good tariffs, marked stale', async () => {
    const { out, flow } = await start();
    await out.next(1);
    await sim.close();
    // redeploying the changed account restarts it and its tariff node (Node-RED drops their context)
    const offline = flow.map((n) => (n.id === 'acc' ? { ...n, baseUrl: sim.url, name: 'offline', retries: 0 } : n));
    await (helper as any).setFlows(offline, 'nodes', { acc: { token: TOKEN } });
    const [msg] = await out.next(1);
    should(msg.payload).containEql({ price: 0.25, stale: true, reason: null });
    should(lastStatus('t')).eql({ fill: 'yellow', shape: 'dot', text: '0.25 GBP/kWh · tariffs under a minute old' });
  });

  it("after a restart without network prices from the tariffs in the account's context store", async () => {
    const { out, flow } = await start();
    await out.next(1);
    const saved = await new Promise((resolve) =>
      helper
        .getNode('acc')
        .context()
        .get('lastGoodTariffs', (_e: unknown, v: unknown) => resolve(v)),
    );
    await helper.unload();
    await sim.close();

    // A new runtime whose persistent context store holds what the account saved, changed
    // so that only the context (not the account's in-process copy) can explain the price.
    (saved as any).lastGood.tariffs.find((t: any) => t.id === 'DEMO-FLAT').rules[0].price = 0.99;
    await helper.load(
      [easyAccount, easyTariff],
      flow.filter((n) => n.type !== 'easy-account' && n.type !== 'easy-tariff'),
      {},
    );
    const again = inbox('out');
    (helper as any)._context.get('acc', undefined).set('lastGoodTariffs', saved);
    const offline = flow.map((n) => (n.id === 'acc' ? { ...n, baseUrl: sim.url, retries: 0 } : n));
    await (helper as any).setFlows(offline, 'nodes', { acc: { token: TOKEN } });
    const [msg] = await again.next(1);
    should(msg.payload).containEql({ price: 0.99, stale: true });
    should(lastStatus('t')!.fill).equal('yellow');
  });

  describe('every error reaches a Catch node, with price null and a red status', () => {
    const cases: Array<{ name: string; opts?: object; over?: object; tariffs?: () => unknown[]; error: RegExp; status: string }> = [
      {
        name: 'token rejected (401)',
        opts: { token: 'not-a-token' },
        error: /tariffs could not be fetched: .*(401|token)/i,
        status: 'token rejected',
      },
      { name: 'no tariff access (403)', opts: { token: 'demo-no-tariffs' }, error: /no access to tariffs/, status: 'no tariff access' },
      { name: 'unknown tariff id', over: { tariff: 'NOPE' }, error: /tariff "NOPE" is not on the account/, status: 'tariff not found' },
      {
        name: 'tariff rejected by validation',
        over: { tariff: 'BAD' },
        tariffs: () => [{ id: 'BAD', name: 'Bad', vat: 20, currency: 'GBP', rules: [{ priority: 1 }] }],
        error: /tariff "BAD" was rejected: .*price/,
        status: 'tariff invalid',
      },
      { name: 'bad time zone', opts: { zone: 'Mars/Olympus' }, error: /unknown time zone "Mars\/Olympus"/, status: 'bad time zone' },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { out, caught, shown } = await start({ ...c.opts, tariffs: c.tariffs }, c.over);
        const [msg] = await out.next(1);
        should(msg.payload.price).be.null();
        const [err] = await caught.next(1);
        should(err.error.message).match(c.error);
        should(err.error.source.id).equal('t');
        should(err.payload.price).be.null();
        should(err.payload.reason).equal(err.error.message);
        await quiet(50);
        should(shown[shown.length - 1]).containEql({ fill: 'red', text: c.status });
        should(JSON.stringify([msg, err, shown])).not.containEql(TOKEN);
      });
    }

    it('a bad input message ends in done(err) once, and the node keeps working', async () => {
      const { out, caught } = await start({}, {}, [
        { id: 'done', type: 'complete', scope: ['t'], wires: [['completed']] },
        { id: 'completed', type: 'helper' },
      ]);
      await out.next(1);
      const completed = inbox('completed');
      helper.getNode('t').receive({ topic: '1', payload: 'on' });
      helper.getNode('t').receive({ payload: 42 });
      const errs = await caught.next(2);
      should(errs[0].error.message).match(/^Sensor 1: msg.payload must be a number/);
      should(errs[1].error.message).match(/^Expected msg.payload 'schedule'/);
      helper.getNode('t').receive({ payload: 'schedule' });
      const [answer] = await out.next(1);
      should(answer.topic).equal('schedule');
      await completed.next(1); // only the good message completes; the two failures went to Catch
      await quiet(100);
      should(caught.received).eql([]);
      should(completed.received).eql([]);
    });
  });

  describe('examples', () => {
    const CORE = ['common/20-inject.js', 'common/90-comment.js', 'function/10-switch.js', 'function/15-change.js'].map((file) =>
      require(require.resolve(`@node-red/nodes/core/${file}`)),
    );

    /** The example as shipped, the account pointed at the simulator, debug nodes read through helper nodes. */
    async function runExample(name: string, now?: () => number) {
      sim = await withSimulator({ now });
      const shipped: FlowNode[] = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', `${name}.json`), 'utf8'));
      const flow = shipped.map((n) => {
        if (n.type === 'easy-account') return { ...n, baseUrl: sim.url, timezone: 'UTC' };
        return n.type === 'debug' ? { id: n.id, z: n.z, type: 'helper' } : n;
      });
      const account = flow.find((n) => n.type === 'easy-account')!;
      await helper.load([easyAccount, easyTariff, easySensors, ...CORE], flow, { [account.id]: { token: TOKEN } });
    }

    it('switch a relay when the price goes up: the relay follows the price on deploy', async () => {
      await runExample('switch-a-relay-when-the-price-goes-up');
      const [relay] = await inbox('relay-out').next(1);
      const tariff = DEMO_TARIFFS.find((t) => t.id === 'DEMO-WORKDAY')!;
      const expensive = priceAt(tariff, Date.now(), { timezone: 'UTC' })!.price > 0.4;
      should(relay).containEql({ topic: 'water-heater', payload: !expensive });
    });

    it('switch a relay: under a fake clock the relay goes off at 09:00 and on at 17:00 on weekdays, as its text says', async () => {
      const shipped: FlowNode[] = JSON.parse(
        fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'switch-a-relay-when-the-price-goes-up.json'), 'utf8'),
      );
      should(shipped[0].info).match(/off at 09:00, on at 17:00/);
      const clock = installClock(Date.parse('2026-03-01T12:00:00Z')); // a Sunday noon
      try {
        sim = await withSimulator({ now: () => Date.now() });
        const flow = shipped.map((n) => {
          // days of fake time pass in one tick: a request in flight must not time out meanwhile
          if (n.type === 'easy-account') return { ...n, baseUrl: sim.url, timezone: 'UTC', timeoutMs: 30 * 86_400_000 };
          return n.type === 'debug' ? { id: n.id, z: n.z, type: 'helper' } : n;
        });
        await helper.load([easyAccount, easyTariff, ...CORE], flow, { 'easy-example-account': { token: TOKEN } });
        // Each relay message is stamped with the price's validFrom, read off the tariff's message on its way to the
        // switch: the instant the code meant, not when the message came.
        const seen: Array<{ on: boolean; at: string }> = [];
        let validFrom: string | null = null;
        helper.getNode('relay-switch').on('input', (msg: any) => (validFrom = msg.payload.validFrom));
        let latestMs = 0; // how long after its validFrom a message arrived, at most
        helper.getNode('relay-out').on('input', (msg: any) => {
          const at = seen.length === 0 ? new Date(Date.now()).toISOString() : String(validFrom);
          latestMs = Math.max(latestMs, Date.now() - Date.parse(at));
          seen.push({ on: msg.payload, at });
        });
        await until('the price on deploy', () => seen.length === 1);
        // through a whole week: the relay's state at every message, and where it changed
        // Every hour the tariffs are fetched again (refresh 60 min) over loopback, in real time while the fake clock
        // stands: each tick waits for that answer and for what it lets through the switch before the clock moves on
        // (a fixed 5 ms was not enough on a loaded machine: the clock moved an hour before a message came).
        const hub = helper.getNode('easy-example-account').hub as { tariffs(): { fetchedAt: number | null } };
        const end = Date.parse('2026-03-08T12:00:00Z');
        while (Date.now() < end) {
          await clock.tickAsync(Math.min(HOUR_MS, end - Date.now()));
          await until("the hour's tariffs fetched", () => hub.tariffs().fetchedAt === Date.now());
          await steady('the relay messages', () => seen.length, 20);
        }
        should(latestMs).equal(0); // each at the instant its price began
        const switched = seen.filter((s, k) => k === 0 || s.on !== seen[k - 1].on);
        const weekdays = ['02', '03', '04', '05', '06'];
        should(switched).eql([
          { on: true, at: '2026-03-01T12:00:00.000Z' },
          ...weekdays.flatMap((d) => [
            { on: false, at: `2026-03-${d}T09:00:00.000Z` },
            { on: true, at: `2026-03-${d}T17:00:00.000Z` },
          ]),
        ]);
      } finally {
        clock.uninstall();
      }
    });

    it('generator price and schedule: the injects re-price at once and ask for the schedule', async () => {
      const at = generatorInstant(false);
      await runExample('generator-price-and-schedule', () => at);
      const prices = inbox('genprice-price');
      should((await prices.next(1))[0].payload.price).equal(0.22);
      helper.getNode('genprice-started').receive({});
      should((await prices.next(1))[0].payload.price).equal(0.55);
      helper.getNode('genprice-stopped').receive({});
      should((await prices.next(1))[0].payload.price).equal(0.22);
      helper.getNode('genprice-ask').receive({});
      const [schedule] = await inbox('genprice-schedule').next(1);
      should(schedule.payload).be.an.Array();
      should(schedule.payload[0].price).equal(0.22);
    });
  });
});
