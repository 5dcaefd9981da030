import should from 'should';
import type { Simulator } from '../../sim/server';
import { DEMO_SENSORS, sampleTime } from '../../sim/demo-data';
import easySensors = require('../../nodes/easy-sensors');
import { AccountHub } from '../../nodes/lib/runtime/account/hub';
import {
  accountNode,
  catchNodes,
  FakeClock,
  FlowNode,
  GATEWAY,
  helper,
  inbox,
  installClock,
  lastStatus,
  loadFlow,
  quiet,
  statuses,
  warnings,
  withSimulator,
} from './flow-support';

const T0 = Date.parse('2026-03-04T10:00:30Z');

function sensorsNode(over: Record<string, unknown> = {}): FlowNode {
  return {
    id: 's',
    type: 'easy-sensors',
    account: 'acc',
    gateway: GATEWAY,
    interval: 10,
    output: 'each',
    onlyChanged: false,
    sensors: '',
    wires: [['out']],
    ...over,
  };
}

describe('easy-sensors node', function () {
  let sim: Simulator;
  let simNow = T0;
  let clock: FakeClock | null = null;

  beforeEach(async () => {
    simNow = T0;
    sim = await withSimulator({ now: () => simNow });
  });

  afterEach(async () => {
    clock?.uninstall();
    clock = null;
    await helper.unload();
    await sim.close();
  });

  async function load(over: Record<string, unknown> = {}, extra: FlowNode[] = []) {
    await loadFlow([easySensors], [accountNode(sim), sensorsNode(over), { id: 'out', type: 'helper' }, ...catchNodes(), ...extra]);
    return { out: inbox('out'), caught: inbox('caught') };
  }

  it("sends one message per sensor in 'each' mode, topic = sensor id, with the full payload", async () => {
    const { out } = await load();
    const msgs = await out.next(DEMO_SENSORS.length);
    should(msgs.map((m) => m.topic)).eql(DEMO_SENSORS.map((s) => s.id));
    const kwh = msgs[0];
    should(kwh.gateway).equal(GATEWAY);
    const sampled = sampleTime(DEMO_SENSORS[0], T0);
    should(kwh.payload).eql({
      id: 'e1.kwh',
      name: 'Main Incomer kWh',
      value: DEMO_SENSORS[0].valueAt(sampled),
      unit: 'kWh',
      interval: 60,
      timestamp: new Date(sampled).toISOString(),
      ts: sampled,
      stale: true, // the simulator lives in 2026-03-04, long ago
      future: false,
      decoded: { kind: 'modbus', address: 1, subsensor: 'kwh', quantity: 'energy' },
    });
    should(msgs.find((m) => m.topic === '17')!.payload.decoded).eql({ kind: 'relay', channel: 1 });
  });

  it('marks a sensor stale only when its value is older than three of its intervals', async () => {
    simNow = Date.now() - 150_000; // sampled 2.5-3.5 min ago: fresh for 60 s sensors (limit 4 min)
    const { out } = await load();
    const msgs = await out.next(DEMO_SENSORS.length);
    should(msgs.filter((m) => m.payload.stale)).be.empty();
  });

  it('flags values stamped in the future (a gateway clock a year ahead): future: true, one warning, a yellow status', async () => {
    simNow = Date.now() + 366 * 24 * 3600_000;
    const { out } = await load({ sensors: 'e1.kwh, 1' });
    const msgs = await out.next(2);
    should(msgs.map((m) => [m.payload.future, m.payload.stale])).eql([
      [true, false],
      [true, false],
    ]);
    await quiet(50);
    should(warnings('s')).have.length(1);
    should(warnings('s')[0]).match(
      /^gateway DEMO: 2 sensors stamped in the future \(e1\.kwh, 1; 2027-.*\): their messages carry future: true/,
    );
    should(lastStatus('s')).match({ fill: 'yellow', text: /^2 sensors from the future · / });
  });

  it("sends all sensors in one message in 'all' mode", async () => {
    const { out } = await load({ output: 'all' });
    const [msg] = await out.next(1);
    should(msg.topic).equal(GATEWAY);
    should(msg.payload.map((p: { id: string }) => p.id)).eql(DEMO_SENSORS.map((s) => s.id));
    should(msg.changed).have.length(DEMO_SENSORS.length);
    await quiet();
    should(out.received).be.empty();
  });

  it('sends only the sensors of the filter, and says which filtered ids the gateway lacks', async () => {
    const { out } = await load({ sensors: '1, e1.kwh, e9.kwh' });
    const seen = statuses('s');
    const msgs = await out.next(2);
    should(msgs.map((m) => m.topic)).eql(['e1.kwh', '1']); // gateway order
    await quiet(50);
    should(seen[seen.length - 1]).match({ fill: 'yellow', text: /not on DEMO: e9\.kwh/ });
    should(out.received).be.empty();
  });

  it('counts in words: "1 sensor", a long list of missing ids cut to stay readable', async () => {
    const missing = Array.from({ length: 12 }, (_, k) => `e${k + 2}.kwh.missing`).join(' ');
    const { out } = await load({ sensors: `e1.kwh ${missing}` });
    const seen = statuses('s');
    await out.next(1);
    await quiet(50);
    const text = seen[seen.length - 1].text!;
    should(text).match(/^not on DEMO: e2\.kwh\.missing.*… · \d\d:\d\d:\d\d$/);
    should(text.length).be.below(55);
    await helper.unload();
    await load({ sensors: 'e1.kwh' });
    const one = statuses('s');
    await inbox('out').next(1);
    await quiet(50);
    should(one[one.length - 1]).match({ fill: 'green', text: /^1 sensor · \d\d:\d\d:\d\d$/ });
  });

  describe('polling over time (fake clock, real HTTP)', () => {
    beforeEach(() => {
      clock = installClock();
    });

    it('with onlyChanged sends a sensor again only when its value changed', async () => {
      const { out } = await load({ onlyChanged: true, interval: 10 });
      await out.next(DEMO_SENSORS.length);
      await clock!.tickAsync(10_000); // same simulated minute: nothing changed
      await quiet();
      should(out.received).be.empty();
      simNow += 60_000;
      const changed = DEMO_SENSORS.filter((s) => s.valueAt(sampleTime(s, simNow)) !== s.valueAt(sampleTime(s, T0))).map((s) => s.id);
      should(changed.length).be.within(1, DEMO_SENSORS.length - 1); // so the test can tell
      await clock!.tickAsync(10_000);
      const msgs = await out.next(changed.length);
      should(msgs.map((m) => m.topic)).eql(changed);
      await quiet();
      should(out.received).be.empty();
    });

    it('reports a failing poll once, keeps polling, and recovers on the next tick', async () => {
      sim.setFaults({ removedGateways: [GATEWAY] });
      const { out, caught } = await load();
      const seen = statuses('s');
      const [err] = await caught.next(1);
      should(err.error.message).match(/gateway DEMO: .*DEMO.*not found/);
      // a catch → debug shows the reason, not null: nothing to hand on, so the reason is the payload
      should(err.payload).equal(err.error.message);
      should(err.error.source.id).equal('s');
      should(err.gateway).equal(GATEWAY);
      await clock!.tickAsync(10_000); // fails again: no second report
      await quiet();
      should(caught.received).be.empty();
      should(seen[seen.length - 1]).match({ fill: 'red', text: /last good never/ });
      sim.clearFaults();
      await clock!.tickAsync(10_000);
      await out.next(DEMO_SENSORS.length);
      await quiet(50);
      should(seen[seen.length - 1]).match({ fill: 'green', text: new RegExp(`${DEMO_SENSORS.length} sensors · \\d\\d:\\d\\d:\\d\\d`) });
      should(sim.requests.filter((r) => r.endpoint === 'sensors')).have.length(3);
    });

    it('never polls more often than every 10 s, and says so when asked to', async () => {
      const { out } = await load({ interval: 2 });
      await out.next(DEMO_SENSORS.length);
      const polls = () => sim.requests.filter((r) => r.endpoint === 'sensors').length;
      await clock!.tickAsync(9_000);
      await quiet(50);
      should(polls()).equal(1);
      await clock!.tickAsync(1_000);
      await out.next(DEMO_SENSORS.length);
      should(polls()).equal(2);
      should(helper.getNode('s').warn.calledWithMatch(/interval 2 s is below the minimum: polling every 10 s/)).be.true();
    });

    it('subscribes again when the account has gone silent (watchdog)', async () => {
      // The first subscription goes dead: it never calls back, as a poll lost for good would.
      const real = AccountHub.prototype.watchSensors;
      let calls = 0;
      AccountHub.prototype.watchSensors = function (this: AccountHub, ...args: Parameters<typeof real>) {
        return ++calls === 1 ? () => undefined : real.apply(this, args);
      };
      try {
        const { out } = await load({ interval: 10 });
        await clock!.tickAsync(3 * 10_000 + 119_000);
        should(calls).equal(1);
        await clock!.tickAsync(1_000);
        should(calls).equal(2);
        await out.next(DEMO_SENSORS.length);
      } finally {
        AccountHub.prototype.watchSensors = real;
      }
    });

    it('does not subscribe again while a slow poll is still on its way (watchdog)', async () => {
      // interval 10 s: the watchdog's budget is 3 × 10 s + 120 s = 150 s. A poll the service
      // answers with 429 Retry-After 60 takes the client's 3 retries × 60 s, longer than that.
      const real = AccountHub.prototype.watchSensors;
      let subscriptions = 0;
      AccountHub.prototype.watchSensors = function (this: AccountHub, ...args: Parameters<typeof real>) {
        subscriptions++;
        return real.apply(this, args);
      };
      try {
        const { out } = await load({ interval: 10 });
        await out.next(DEMO_SENSORS.length);
        sim.setFaults({ rateLimit: 'all', retryAfter: 60 });
        // step the fake clock a second at a time so the real HTTP turns keep up
        for (let s = 0; s < 195; s++) {
          await clock!.tickAsync(1_000);
          await quiet(2);
        }
        // the first poll, then the slow one's attempts at 10, 70, 130 and 190 s, and no
        // second subscription (a second poll beside it) when the budget ran out at 150 s
        should(subscriptions).equal(1);
        should(helper.getNode('s').warn.calledWithMatch(/no poll for/)).be.false();
        should(sim.requests.filter((r) => r.endpoint === 'sensors')).have.length(5);
      } finally {
        AccountHub.prototype.watchSensors = real;
      }
    });
  });

  it('warns of the 10 s minimum only for an interval it raised, not for one that means the default', async () => {
    await loadFlow(
      [easySensors],
      [
        accountNode(sim),
        { id: 'out', type: 'helper' },
        ...catchNodes(),
        ...[
          ['none', ''],
          ['zero', 0],
          ['negative', -5],
          ['short', 2.5],
        ].map(([id, interval]) => sensorsNode({ id, interval })),
      ],
    );
    // the helper's warn spy is shared by the nodes of a type: tell them apart by `this`
    const warned = helper
      .getNode('short')
      .warn.getCalls()
      .filter((c: { args: unknown[] }) => /minimum/.test(String(c.args[0])))
      .map((c: { thisValue: { id: string }; args: unknown[] }) => [c.thisValue.id, c.args[0]]);
    should(warned).eql([['short', 'interval 2.5 s is below the minimum: polling every 10 s']]);
  });

  it('sends the current values on any input, even with onlyChanged', async () => {
    const { out } = await load({ onlyChanged: true, output: 'all' });
    await out.next(1);
    helper.getNode('s').receive({ payload: 'now', note: 'kept' });
    const [msg] = await out.next(1);
    should(msg.payload).have.length(DEMO_SENSORS.length);
    should(msg.note).equal('kept');
  });

  it('hands an input to Catch when there are no values yet', async () => {
    sim.setFaults({ removedGateways: [GATEWAY] });
    const { caught } = await load();
    await caught.next(1); // the poll's own report
    helper.getNode('s').receive({ payload: 'now' });
    const [err] = await caught.next(1);
    should(err.error.message).match(/^No sensor values from gateway DEMO yet: .*not found/);
    should(err.payload).equal('now');
  });

  it('hands an input to Catch when the account or gateway is missing or broken', async () => {
    await loadFlow(
      [easySensors],
      [
        sensorsNode({ id: 'noacc', account: '' }),
        sensorsNode({ id: 'nogw', gateway: ' ' }),
        sensorsNode({ id: 'zone', account: 'badzone' }),
        accountNode(sim),
        { ...accountNode(sim), id: 'badzone', timezone: 'Mars/Olympus' },
        { id: 'out', type: 'helper' },
        ...catchNodes(),
      ],
    );
    const caught = inbox('caught');
    await quiet(50); // the broken account may report itself first
    caught.received.length = 0;
    for (const id of ['noacc', 'nogw', 'zone']) helper.getNode(id).receive({ payload: id });
    const errs = await caught.next(3);
    should(errs.map((e) => e.error.message)).eql([
      'No easy-account configured.',
      'No gateway configured.',
      'Account: unknown time zone "Mars/Olympus" (use an IANA name such as Europe/London).',
    ]);
  });
});
