// Bad input to the nodes through the real runtime: every message ends in an output that
// reports what happened or in a Catch with a clear error (nothing silently lost), and the
// node stays usable. Tariffs that break the interface (each case of semantics rule 7) are
// refused by name while the others keep pricing. Property: the cost node in stream mode
// gives the same final totals for the same readings in any order, with duplicates.
import should from 'should';
import fc from 'fast-check';
import type { Simulator } from '../../sim/server';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import easyTariff = require('../../nodes/easy-tariff');
import easyCost = require('../../nodes/easy-cost');
import { FlowNode, helper, quiet } from '../nodes/flow-support';
import { canarySimulator, fastAccount, inbox, lastStatus, loadWithCanary, shouldNotLeakAnywhere } from './support';

const HOUR = 3600_000;
const T0 = Date.parse('2026-03-04T00:00:00Z');

/** Complete node for `scope`, wired to helper 'completed'. */
const completeNodes = (scope: string): FlowNode[] => [
  { id: 'completer', type: 'complete', scope: [scope], uncaught: false, wires: [['completed']] },
  { id: 'completed', type: 'helper' },
];

describe('reliability: bad input to the nodes', function () {
  this.timeout(20000);
  let sim: Simulator;
  afterEach(async () => {
    await helper.unload();
    await sim?.close();
  });

  async function costFlow(mode: string, tariff = 'DEMO-FLAT') {
    sim = await canarySimulator();
    await loadWithCanary(
      [easyCost],
      [
        fastAccount(sim),
        { id: 'c', type: 'easy-cost', account: 'acc', tariff, mode, wires: [['out']] },
        { id: 'out', type: 'helper' },
        ...completeNodes('c'),
      ],
    );
    return { node: helper.getNode('c'), out: inbox('out'), caught: inbox('caught'), completed: inbox('completed') };
  }

  describe('easy-cost stream readings', () => {
    // each: the message, and what must come of it
    const cases: Array<{ name: string; msg: Record<string, unknown>; error?: RegExp; report?: Record<string, unknown> }> = [
      { name: 'NaN', msg: { payload: NaN, ts: T0 + 3 * HOUR }, error: /one cumulative kWh reading per message .*got NaN|finite/ },
      { name: 'a word', msg: { payload: 'lots', ts: T0 + 3 * HOUR }, error: /got "lots"/ },
      { name: 'null', msg: { payload: null, ts: T0 + 3 * HOUR }, error: /got null/ },
      {
        name: 'an object without a value',
        msg: { payload: { id: 'e1.kwh', value: null, ts: T0 } },
        error: /msg.payload.value as a finite number of kWh, got null/,
      },
      { name: 'a boolean', msg: { payload: true }, error: /got true/ },
      { name: 'an array (batch input in stream mode)', msg: { payload: [[T0, 1]] }, error: /got an array of 1/ },
      { name: 'a bad timestamp', msg: { payload: 5, ts: 'yesterday' }, error: /msg\.ts/ },
      { name: 'a numeric string', msg: { payload: '12', ts: T0 + 3 * HOUR }, report: { change: { energy: 2 } } },
      { name: 'a duplicate', msg: { payload: 10, ts: T0 + 2 * HOUR }, report: { ignored: 'duplicate' } },
      { name: 'out of order (late)', msg: { payload: 9, ts: T0 + 1.5 * HOUR }, report: { late: true } },
      // rule 10: a drop is a suspect held until the next reading decides (here the next one, 20, is
      // back above 10: it was a glitch); a reset is decided only when the meter goes on from it
      {
        name: 'a drop (a failed read or a new meter)',
        msg: { payload: 0.5, ts: T0 + 3 * HOUR },
        report: { held: 1, change: { energy: 0 } },
      },
      { name: 'a negative value', msg: { payload: -4, ts: T0 + 3 * HOUR }, report: { held: 1, change: { energy: 0 } } },
      { name: 'a 1970 clock', msg: { payload: 11, ts: 0 }, report: { ignored: 'too_late' } },
    ];
    for (const c of cases) {
      it(`${c.name}: ${c.error ? 'a clear error at Catch' : 'reported in the output'}, and the node counts on`, async () => {
        const { node, out, caught, completed } = await costFlow('stream');
        node.receive({ payload: 8, ts: T0 + HOUR });
        node.receive({ payload: 10, ts: T0 + 2 * HOUR });
        await out.next(2);
        await completed.next(2);
        node.receive({ ...c.msg, _msgid: 'bad' });
        if (c.error) {
          const [err] = await caught.next(1);
          should(err._msgid).equal('bad');
          should(err.error.message).match(c.error);
          should(err.error.source.id).equal('c');
        } else {
          const [msg] = await out.next(1);
          should(msg._msgid).equal('bad');
          should(msg.payload).match(c.report!);
          await completed.next(1);
        }
        // still usable: the next good reading counts
        node.receive({ payload: 20, ts: T0 + 4 * HOUR });
        const [after] = await out.next(1);
        should(after.payload.total.energy).be.above(0);
        await completed.next(1);
        await quiet(30);
        should([out.received, caught.received, completed.received]).eql([[], [], []]);
        shouldNotLeakAnywhere(after);
      });
    }

    it('sensor messages with unknown ids: counted as meters (said in the help), other quantities warned once', async () => {
      const { node, out } = await costFlow('stream');
      const warnings: string[] = [];
      node.on('call:warn', (call: { args: [string] }) => warnings.push(call.args[0]));
      const msg = (id: string, kind: object, value: number, ts: number) => ({
        topic: id,
        gateway: 'DEMO',
        payload: { id, value, ts, decoded: kind },
      });
      node.receive(msg('x9', { kind: 'unknown' }, 1, T0));
      node.receive(msg('x9', { kind: 'unknown' }, 3, T0 + HOUR));
      for (let k = 0; k < 3; k++) node.receive(msg('e1.freq', { kind: 'modbus', quantity: 'frequency' }, 50, T0 + k));
      const msgs = await out.next(2);
      should(msgs[1].payload.total.energy).equal(2);
      await quiet(50);
      should(out.received).eql([]);
      should(warnings).eql([
        'stream mode ignores sensor DEMO/e1.freq: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
      ]);
    });
  });

  it('easy-cost batch: a payload of the wrong type is a clear error, bad rows are reported as dropped', async () => {
    const { node, out, caught } = await costFlow('batch');
    for (const payload of [42, 'readings', { ts: 1, value: 2 }, null]) node.receive({ payload });
    const errs = await caught.next(4);
    for (const e of errs) should(e.error.message).match(/^Batch mode needs msg.payload as an array of readings/);
    node.receive({
      payload: [[T0, 1], [T0 + HOUR, NaN], ['1970-13-01', 2], null, [T0 + 2 * HOUR, 'x'], [T0 + 3 * HOUR, 4], [T0 + 3 * HOUR, 4]],
    });
    const [msg] = await out.next(1);
    should(msg.payload.energy).equal(3);
    should(msg.payload.dropped.map((d: { reason: string }) => d.reason)).eql(['value', 'timestamp', 'row', 'value', 'duplicate']);
  });

  it('easy-tariff: a payload of the wrong type or an unknown sensor ends the message once, the price holds', async () => {
    sim = await canarySimulator();
    await loadWithCanary(
      [easyTariff],
      [
        fastAccount(sim),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [['out']] },
        { id: 'out', type: 'helper' },
        ...completeNodes('t'),
      ],
    );
    const out = inbox('out');
    const caught = inbox('caught');
    const completed = inbox('completed');
    await out.next(1);
    const node = helper.getNode('t');
    node.receive({ payload: { nothing: true } });
    node.receive({ topic: '1', payload: [] });
    node.receive({ topic: 'e1.v3p@1', payload: 'high' });
    const errs = await caught.next(2);
    should(errs[0].error.message).match(/^Expected msg.payload 'schedule', or a sensor value with msg.topic set to the sensor id\./);
    should(errs[1].error.message).match(/^Sensor e1.v3p@1: msg.payload must be a number/);
    // a sensor the rules do not read: done without an error, nothing sent (the flat price holds)
    node.receive({ topic: 'nobody-knows', gateway: 'DEMO', payload: 3 });
    await completed.next(1);
    node.receive({ payload: 'schedule' });
    should((await out.next(1))[0].topic).equal('schedule');
    await quiet(50);
    should([out.received, caught.received]).eql([[], []]);
  });

  describe('tariffs breaking the interface (semantics rule 7)', () => {
    const good = { priority: 1, price: 0.3 };
    const sensor = { priority: 1, price: 0.5, gateway_id: 'DEMO', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' };
    const without = (key: string) => Object.fromEntries(Object.entries(sensor).filter(([k]) => k !== key));
    const tariff = (id: string, rules: unknown, over: Record<string, unknown> = {}) => ({
      id,
      name: id,
      vat: 20,
      currency: 'GBP',
      rules,
      ...over,
    });
    const BAD: Array<[ReturnType<typeof tariff>, RegExp]> = [
      [tariff('NO-PRIORITY', [good, { price: 0.2 }]), /rule 1: priority/],
      [tariff('TEXT-PRIORITY', [{ ...good, priority: 'high' }]), /rule 0: priority/],
      [tariff('NO-PRICE', [{ priority: 1 }]), /rule 0: price/],
      [tariff('TEXT-PRICE', [{ priority: 1, price: 'cheap' }]), /rule 0: price/],
      [tariff('ONLY-START', [{ ...good, time_start: '09:00' }]), /rule 0: time_end/],
      [tariff('ONLY-END', [{ ...good, time_end: '17:00' }]), /rule 0: time_start/],
      [tariff('BAD-TIME', [{ ...good, time_start: '25:00', time_end: '26:00' }]), /rule 0: time_start/],
      [tariff('AMPM-TIME', [{ ...good, time_start: '9am', time_end: '5pm' }]), /rule 0: time_start/],
      [tariff('WEEKDAY-0', [{ ...good, weekdays: [0, 1] }]), /rule 0: weekdays/],
      [tariff('WEEKDAY-8', [{ ...good, weekday: [8] }]), /rule 0: weekday/],
      ...(['gateway_id', 'sensor_id', 'sensor_value', 'sensor_condition'] as const).map((key): [ReturnType<typeof tariff>, RegExp] => [
        tariff(`NO-${key.toUpperCase()}`, [without(key), good]),
        new RegExp(`rule 0: .*${key}|rule 0: sensor`),
      ]),
      [tariff('TEXT-VAT', [good], { vat: '20' }), /vat/],
      [tariff('NO-RULES', []), /rules/],
      [tariff('RULES-MISSING', undefined), /rules/],
    ];

    it('each is refused by name, rule and field, price null, while the good ones price', async () => {
      sim = await canarySimulator({ tariffs: () => [...BAD.map(([t]) => t), ...DEMO_TARIFFS] });
      const nodes: FlowNode[] = BAD.map(([t]) => ({
        id: `t-${t.id}`,
        type: 'easy-tariff',
        account: 'acc',
        tariff: t.id,
        refresh: 60,
        wires: [['out']],
      }));
      nodes.push({ id: 't-good', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [['good']] });
      await loadWithCanary([easyTariff], [fastAccount(sim), ...nodes, { id: 'out', type: 'helper' }, { id: 'good', type: 'helper' }]);
      const out = inbox('out');
      const caught = inbox('caught');
      should((await inbox('good').next(1))[0].payload).containEql({ price: 0.25, reason: null });
      const prices = await out.next(BAD.length, 5000);
      const errs = await caught.next(BAD.length, 5000);
      for (const [t, field] of BAD) {
        const msg = prices.find((m) => m.payload.tariffId === t.id)!;
        should(msg.payload).containEql({ price: null, gross: null });
        should(msg.payload.reason).startWith(`tariff "${t.id}" was rejected: tariff "${t.id}"`);
        should(msg.payload.reason).match(field);
        const err = errs.find((e) => e.error.source.id === `t-${t.id}`)!;
        should(err.error.message).equal(msg.payload.reason);
        should(lastStatus(`t-${t.id}`)).containEql({ fill: 'red', text: 'tariff invalid' });
      }
    });
  });

  describe('property: stream totals do not depend on order or duplicates', () => {
    it('the same readings shuffled and repeated give the same final totals (fast-check, fixed seed)', async function () {
      this.timeout(60000);
      const { node, out, caught } = await costFlow('stream', 'DEMO-WORKDAY');
      const seen = { late: 0, duplicate: 0 };
      /** Feeds the readings after msg.reset and returns the last message's totals. */
      const feed = async (readings: Array<[number, number]>) => {
        out.received.length = 0;
        node.receive({ reset: true });
        await out.next(1);
        for (const [ts, value] of readings) node.receive({ payload: value, ts });
        const msgs = await out.next(readings.length, 10000);
        for (const m of msgs) if (m.payload.late || m.payload.ignored === 'duplicate') seen[m.payload.late ? 'late' : 'duplicate']++;
        const last = msgs[msgs.length - 1].payload;
        return { today: last.today, total: last.total };
      };
      // cumulative readings within 40 h (inside the 48 h window), with a meter swap now and then
      const readingsArb = fc
        .array(
          fc.record({ gapMin: fc.integer({ min: 1, max: 300 }), use: fc.double({ min: 0, max: 5, noNaN: true }), reset: fc.boolean() }),
          { minLength: 2, maxLength: 12 },
        )
        .map((steps) => {
          let ts = Date.parse('2026-03-03T20:00:00Z');
          let value = 100;
          return steps.map(({ gapMin, use, reset }) => {
            ts += gapMin * 60_000;
            value = reset && value > 50 ? use : value + use;
            return [ts, value] as [number, number];
          });
        });
      const close = (a: any, b: any) => {
        for (const key of ['energy', 'net', 'gross', 'unpricedEnergy']) should(a[key]).be.approximately(b[key], 1e-9);
        should(a.intervals).equal(b.intervals);
        should(a.resets).equal(b.resets);
        should(a.from).equal(b.from);
      };
      await fc.assert(
        fc.asyncProperty(readingsArb, fc.infiniteStream(fc.nat()), fc.array(fc.nat(), { maxLength: 4 }), async (readings, keys, dupes) => {
          const inOrder = await feed(readings);
          const shuffled = readings
            .map((r) => ({ r, k: keys.next().value as number }))
            .sort((a, b) => a.k - b.k)
            .map((x) => x.r);
          for (const d of dupes) shuffled.splice(d % (shuffled.length + 1), 0, readings[d % readings.length]);
          const mixed = await feed(shuffled);
          close(mixed.total, inOrder.total);
          close(mixed.today, inOrder.today);
        }),
        { seed: 20261121, numRuns: 40 },
      );
      should(caught.received).eql([]);
      // the runs really fed late and repeated readings
      should(seen.late).be.above(20);
      should(seen.duplicate).be.above(10);
    });
  });
});
