// easy-peak's Records through the real Node-RED runtime (docs/records.md): the fourth
// output sends each closed window of the meters and of the site as `energy_peak` points for
// node-red-contrib-influxdb, or the site's month peak and projection as Home Assistant
// discovery and states for `mqtt out`. The real servers' side is test/servers/peak-servers.test.ts.
import should from 'should';
import { helper, inbox, installClock, quiet, simulatorHooks } from './flow-support';
import { loadPeak, peakNode } from './peak-flows';

/** The errors node `id` reported (the helper spies on the prototype shared by every node). */
function errors(id: string): string[] {
  const calls = (helper as any)._NodePrototype.error.getCalls().filter((c: any) => c.thisValue.id === id);
  return calls.map((c: any) => String(c.args[0]));
}

const MIN = 60_000;
const ZONE = 'Europe/Brussels';
/** A Wednesday 10:00 in Brussels: windows at :00, :15, :30, :45. */
const T0 = Date.parse('2026-03-04T09:00:00Z');

describe('easy-peak records', function () {
  this.timeout(60_000);

  const suite = simulatorHooks();

  async function load(over: Record<string, unknown>) {
    const peak = peakNode({ name: 'workshop', limit: 'peak', wires: [['out'], [], [], ['rec']], ...over });
    const loaded = await loadPeak(suite.sim, ZONE, peak, { helpers: ['out', 'rec'] });
    return { out: loaded.out, rec: loaded.inbox('rec'), caught: loaded.caught };
  }

  /** Two meters read every minute from T0 for `minutes` minutes at kw1(i) and kw2(i); returns output 1's messages. */
  async function feed(minutes: number, kw1: (i: number) => number, kw2: (i: number) => number, out: ReturnType<typeof inbox>) {
    const values = [100, 50];
    for (let i = 0; i <= minutes; i++) {
      const ts = T0 + i * MIN;
      if (ts > Date.now()) await suite.clock!.tickAsync(ts - Date.now());
      if (i > 0) {
        values[0] += kw1(i) / 60;
        values[1] += kw2(i) / 60;
      }
      helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kwh', payload: values[0], ts });
      helper.getNode('p').receive({ gateway: 'G', topic: 'e2.kwh', payload: values[1], ts });
    }
    return out.next(2 * (minutes + 1));
  }

  it('influx-out: each closed window once, per meter and for the site, at its start in ms, with the month value and rank', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, rec, caught } = await load({ records: 'influx-out' });
    // window 1: 6 + 2 kW; window 2: 6 + 1 kW (not a peak: top 1); the reading at T0 + 30 min closes window 2
    await feed(
      30,
      () => 6,
      (i) => (i <= 15 ? 2 : 1),
      out,
    );
    await quiet(50);
    const got = rec.received;
    const point = (m: Record<string, any>) => ({ ...m.payload[1], ...m.payload[0] });
    should(got.every((m) => m.measurement === 'energy_peak' && m.precision === 'ms' && m.topic === 'energy_peak')).be.true();
    const key = (r: Record<string, any>) => `${r.time} ${r.scope} ${r.meter ?? ''}`;
    const rows = got.map(point).sort((a, b) => (key(a) < key(b) ? -1 : 1));
    const tags = { site: 'workshop', minutes: '15', unit: 'kW' };
    const meter = (topic: string) => ({ ...tags, scope: 'meter', gateway: 'G', meter: topic });
    const site = { ...tags, scope: 'site' };
    const w1 = { time: T0, end_ms: T0 + 15 * MIN, complete: true };
    const w2 = { time: T0 + 15 * MIN, end_ms: T0 + 30 * MIN, complete: true };
    const near = (rowsOut: Array<Record<string, any>>) =>
      rowsOut.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, typeof v === 'number' && k !== 'time' && k !== 'end_ms' ? +v.toFixed(6) : v]),
        ),
      );
    should(near(rows)).eql([
      { ...meter('e1.kwh'), ...w1, average: 6, energy: 1.5, month_value: 6, rank: 1 },
      { ...meter('e2.kwh'), ...w1, average: 2, energy: 0.5, month_value: 2, rank: 1 },
      // a site's window with the bill after it closed: 8 kW billed, no price set (0)
      { ...site, ...w1, average: 8, energy: 2, month_value: 8, rank: 1, billed_kw: 8, demand_charge: 0 },
      { ...meter('e1.kwh'), ...w2, average: 6, energy: 1.5, month_value: 6 }, // a tie is ranked by the earlier window
      { ...meter('e2.kwh'), ...w2, average: 1, energy: 0.25, month_value: 2 },
      { ...site, ...w2, average: 7, energy: 1.75, month_value: 8, billed_kw: 8, demand_charge: 0 },
    ]);
    // readings that close nothing send nothing on output 4; output 1 is unchanged by the setting
    should(got).have.length(6);
    should(caught.received).be.empty();
  });

  it('influx-batch: one message for the windows one reading closes; a counter named kvah is kVA', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, rec } = await load({ records: 'influx-batch' });
    const values = [10, 10];
    for (const [i, ts] of [T0, T0 + 20 * MIN, T0 + 50 * MIN].entries()) {
      if (ts > Date.now()) await suite.clock.tickAsync(ts - Date.now());
      values[0] += i * 3;
      helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kvah', payload: values[0], ts });
    }
    await out.next(3);
    await quiet(50);
    const batches = rec.received;
    should(batches).have.length(2); // T0 + 20 closes window 1; T0 + 50 closes windows 2 and 3
    should(batches[1].payload.map((p: any) => [p.tags.scope, p.timestamp])).eql([
      ['meter', T0 + 15 * MIN],
      ['meter', T0 + 30 * MIN],
      ['site', T0 + 15 * MIN],
      ['site', T0 + 30 * MIN],
    ]);
    should(batches[1].payload[0].tags).eql({
      site: 'workshop',
      scope: 'meter',
      gateway: 'G',
      meter: 'e1.kvah',
      minutes: '15',
      unit: 'kVA',
    });
  });

  it('homeassistant: the month peak and the projection as power entities of the device, configs once, states each reading', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, rec } = await load({ records: 'homeassistant', recordsDevice: 'barn' });
    const msgs = await feed(
      16,
      () => 6,
      () => 2,
      out,
    );
    await quiet(50);
    const got = rec.received;
    const configs = got.filter((m) => m.topic.endsWith('/config'));
    should(configs.map((m) => m.topic)).eql([
      'homeassistant/sensor/p/peak_month/config',
      'homeassistant/sensor/p/peak_projected/config',
      'homeassistant/sensor/p/peak_billed/config',
    ]);
    for (const c of configs)
      should(c).match({
        retain: true,
        payload: { unit_of_measurement: 'kW', device_class: 'power', state_class: 'measurement', device: { name: 'barn' } },
      });
    should(got.filter((m) => m.topic === 'node-red-easy/status')).have.length(1);
    const states = got.filter((m) => m.topic === 'node-red-easy/p/peak_month');
    should(states).have.length(msgs.length);
    const last = msgs[msgs.length - 1].payload.site;
    should(states[states.length - 1].payload).eql({ value: last.month.value });
    should(last.month.value).be.approximately(8, 1e-9);
    const projected = got.filter((m) => m.topic === 'node-red-easy/p/peak_projected');
    should(projected[projected.length - 1]).match({ retain: true, payload: { value: last.window.projectedKw } });
    should(states[0].payload).eql({ value: null }); // no complete window yet: unknown, not 0
    // the bill: the month's value (no bill settings: the month's peak, 8 kW)
    const billed = got.filter((m) => m.topic === 'node-red-easy/p/peak_billed');
    should(billed[billed.length - 1].payload).eql({ value: last.bill.billedKw });
    should(last.bill.billedKw).be.approximately(8, 1e-9);
  });

  it('a records setting it does not know is an error at Catch once and sends no records', async () => {
    suite.clock = installClock(T0 - MIN);
    const { out, rec } = await load({ records: 'csv' });
    await feed(
      16,
      () => 6,
      () => 2,
      out,
    );
    should(rec.received).be.empty();
    should(errors('p').filter((w) => /records must be one of .*; no records are sent/.test(w))).have.length(1);
  });
});
