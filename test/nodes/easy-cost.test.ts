// easy-cost through the real Node-RED runtime and the simulator over loopback: batch and
// range mode (stream mode: easy-cost-stream.test.ts, its totals across restarts:
// easy-cost-restarts.test.ts), bad input and broken accounts reaching Catch in words.
import should from 'should';
import { DEMO_TARIFFS, findDemoSensor } from '../../sim/demo-data';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { roundAmount } from '../../nodes/lib/engine/common/format';
import easyCost = require('../../nodes/easy-cost');
import { accountNode, catchNodes, GATEWAY, helper, inbox, lastStatus, loadFlow, quiet, statusSettled } from './flow-support';
import { archived, costNode, costSuite } from './cost-flows';

const HOUR = 3600_000;
const tariff = (id: string) => DEMO_TARIFFS.find((t) => t.id === id)!;

/** easy-cost node `c` in batch mode, output 1 to helper `out`. */
const batchNode = (over: Record<string, unknown> = {}) => costNode({ mode: 'batch', wires: [['out']], ...over });

describe('easy-cost node', function () {
  const { suite, load } = costSuite();

  describe('batch', () => {
    it('costs readings, reports garbage rows, and formats amounts to the minor unit', async () => {
      const { node, out } = await load();
      const readings = [
        ['2026-03-04T21:00:00Z', 100],
        ['2026-03-04T23:00:00Z', 103],
        'junk',
        [null, 5],
        ['2026-03-05T07:00:00Z', 'NaN'],
        { ts: '2026-03-05T07:00:00Z', value: 110 },
      ];
      node.receive({ payload: readings, topic: 'kept' });
      const [msg] = await out.next(1);
      const expected = computeCost(tariff('DEMO-NIGHT'), readings, { timezone: 'Europe/London' });
      should(msg.topic).equal('kept');
      should(msg.payload).match({
        net: roundAmount(expected.net),
        gross: roundAmount(expected.gross),
        energy: 10,
        currency: 'GBP',
        tariffId: 'DEMO-NIGHT',
        tariffName: 'Night and day',
      });
      // times as ISO strings, with their epoch ms beside them
      should(msg.payload).match({
        from: '2026-03-04T21:00:00.000Z',
        to: '2026-03-05T07:00:00.000Z',
        fromMs: expected.from,
        toMs: expected.to,
      });
      should(msg.payload.net).be.approximately(3 * 0.28 + 7 * 0.12, 1e-9); // 21:00-23:00 priced where it starts
      should(msg.payload.dropped).have.length(3);
      should(msg.payload.formatted.gross).eql({ text: expected.gross.toFixed(2), display: `GBP ${expected.gross.toFixed(2)}` });
    });

    it('prices sensor rules from the msg.sensors timeline', async () => {
      const { node, out } = await load({ tariff: 'DEMO-GENERATOR' });
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      node.receive({
        payload: [
          [t0, 0],
          [t0 + HOUR, 1],
          [t0 + 2 * HOUR, 3],
        ],
        sensors: {
          DEMO: {
            1: [
              [t0, 0],
              [t0 + HOUR, 1],
            ],
          },
        },
      });
      const [msg] = await out.next(1);
      should(msg.payload.net).be.approximately(1 * 0.22 + 2 * 0.55, 1e-9);
    });

    it('hands a payload that is not a list of readings to Catch and stays usable', async () => {
      const { node, out, caught } = await load();
      node.receive({ payload: 'readings please' });
      const [err] = await caught.next(1);
      should(err.error.message).match(/^Batch mode needs msg.payload as an array of readings/);
      should(err.payload).equal('readings please');
      node.receive({
        payload: [
          [0, 1],
          [HOUR, 2],
        ],
      });
      await out.next(1);
    });

    it('hands fewer than two usable readings to Catch instead of a cost of zero', async () => {
      const { node, out, caught } = await load();
      node.receive({ payload: [] });
      should((await caught.next(1))[0].error.message).match(/at least two readings .*\(got 0\)/);
      node.receive({
        payload: [
          ['2026-03-04T21:00:00Z', 100],
          ['garbage', 1],
        ],
      });
      should((await caught.next(1))[0].error.message).match(/\(got 2, 1 dropped as unreadable\)/);
      node.receive({
        payload: [
          [0, 1],
          [HOUR, 2],
        ],
      });
      await out.next(1);
    });

    it('rejects and lists an interval that would overflow, never Infinity nor a TypeError; refuses readings 100 years away', async () => {
      // the rise is a jump (rule 10: above any highest power the node takes), held at the end,
      // counted nowhere; an overflow needs jumps off (the engine's tests: maxPowerKw Infinity)
      const { node, out, caught } = await load({ tariff: 'DEMO-FLAT' });
      node.receive({
        payload: [
          [0, -1e308],
          [HOUR, 1e308],
        ],
      });
      const [msg] = await out.next(1);
      should(msg.payload).match({ energy: 0, net: 0, gross: 0, intervals: 1, rejected: [] });
      should(msg.payload.pending).match([{ ts: HOUR, value: 1e308, kind: 'high' }]);
      should(msg.payload.formatted.gross.text).equal('0.00');
      should(lastStatus('c')!.text).match(/^1970-01-01: GBP 0\.00 · 1 reading pending$/);
      node.receive({
        payload: [
          [Date.now() - HOUR, 1],
          [1e300, 2],
        ],
      });
      should((await caught.next(1))[0].error.message).equal(
        'Batch mode takes readings within 100 years of now; the last reading is at 1e+300.',
      );
      node.receive({
        payload: [
          [0, 1],
          [HOUR, 2],
        ],
      });
      await out.next(1);
      should(caught.received).be.empty();
    });

    it('a reading of 0 between readings every 10 s is a glitch: dropped and listed, the cost that of the meter', async () => {
      const { node, out } = await load({ tariff: 'DEMO-FLAT' }, 'UTC');
      const t0 = Date.parse('2026-03-04T10:00:00Z');
      const rows = Array.from({ length: 12 }, (_, i) => [t0 + i * 10_000, i === 3 ? 0 : 12_345 + (4.6 * i) / 11]);
      node.receive({ payload: [...rows, [t0 + 12 * 10_000, -1]] });
      const [msg] = await out.next(1);
      should(msg.payload.energy).equal(4.6); // was 12,349.6 kWh (a reset at the 0)
      should(msg.payload.glitches).eql([{ ts: t0 + 30_000, timestamp: '2026-03-04T10:00:30.000Z', value: 0, kind: 'low' }]);
      should(msg.payload.pending).eql([{ ts: t0 + 120_000, timestamp: '2026-03-04T10:02:00.000Z', value: -1, kind: 'low' }]);
      should(msg.payload.resets).eql([]);
      await statusSettled();
      should(lastStatus('c')!.text).match(/^2026-03-04: GBP 1\.38 · 1 glitch dropped · 1 reading pending$/);
    });

    it('hands an unknown or broken tariff to Catch, saying which and why', async () => {
      await loadFlow(
        [easyCost],
        [
          accountNode(suite.sim),
          batchNode({ id: 'unknown', tariff: 'NOPE' }),
          batchNode({ id: 'broken', tariff: 'BROKEN' }),
          batchNode({ id: 'none', tariff: '' }),
          { id: 'out', type: 'helper' },
          ...catchNodes(),
        ],
      );
      const caught = inbox('caught');
      for (const id of ['unknown', 'broken', 'none']) helper.getNode(id).receive({ payload: [] });
      const errs = await caught.next(3);
      const byNode = Object.fromEntries(errs.map((e) => [e.error.source.id, e.error.message]));
      should(byNode.unknown).match(/^Tariff "NOPE" is not on the account \(it has DEMO-WORKDAY, .*DEMO-FLAT/);
      should(byNode.broken).match(/^Tariff "BROKEN" was rejected: .*price/);
      should(byNode.none).equal('No tariff configured.');
    });

    it('hands missing tariffs (revoked token), a broken account or none to Catch without the token', async () => {
      suite.sim.setFaults({ revokedTokens: ['demo-token'] });
      await loadFlow(
        [easyCost],
        [
          accountNode(suite.sim),
          { ...accountNode(suite.sim), id: 'badzone', timezone: 'Mars/Olympus' },
          batchNode({ id: 'revoked' }),
          batchNode({ id: 'zone', account: 'badzone' }),
          batchNode({ id: 'noacc', account: '' }),
          { id: 'out', type: 'helper' },
          ...catchNodes(),
        ],
      );
      const caught = inbox('caught');
      for (const id of ['revoked', 'zone', 'noacc']) helper.getNode(id).receive({ payload: [] });
      // the broken account may report itself to Catch too; collect past it
      const errs = [...(await caught.next(3, 5000))];
      await quiet(100);
      errs.push(...caught.received);
      const byNode = Object.fromEntries(
        errs.filter((e) => e.error.source.type === 'easy-cost').map((e) => [e.error.source.id, e.error.message]),
      );
      should(byNode.revoked).match(/^Tariffs could not be fetched: .*(token|401)/);
      should(byNode.zone).match(/^Account: unknown time zone "Mars\/Olympus"/);
      should(byNode.noacc).equal('No easy-account configured.');
      should(JSON.stringify(errs)).not.containEql('demo-token');
    });
  });

  describe('range', () => {
    it('fetches the archive of the range and costs it like computeCost', async () => {
      const { node, out } = await load({ mode: 'range' });
      const to = Math.floor(Date.now() / 60_000) * 60_000 - 24 * HOUR;
      const from = to - 6 * HOUR;
      suite.sim.resetRequests();
      node.receive({ gateway: GATEWAY, from: new Date(from).toISOString(), to });
      const [msg] = await out.next(1);
      const expected = computeCost(tariff('DEMO-NIGHT'), archived('e1.kwh', from, to), { timezone: 'Europe/London' });
      // the sum is unrounded inside, rounded once on output: 3.976, not 3.9759999999991855
      should(msg.payload).match({
        net: roundAmount(expected.net),
        energy: roundAmount(expected.energy),
        gateway: GATEWAY,
        sensor: 'e1.kwh',
      });
      for (const amount of [msg.payload.net, msg.payload.gross, msg.payload.energy]) should(amount).equal(Number(amount.toFixed(9)));
      should(msg.payload.fetched).eql({ readings: 6 * 60 + 1, requests: 1, shortcut: false });
      should(suite.sim.requests.filter((r) => r.endpoint === 'data')).have.length(1);
    });

    it('fetches only both ends of the range for a flat tariff', async () => {
      const { node, out } = await load({ mode: 'range', tariff: 'DEMO-FLAT' });
      const to = Math.floor(Date.now() / 60_000) * 60_000 - HOUR;
      const from = to - 10 * 24 * HOUR;
      suite.sim.resetRequests();
      node.receive({ gateway: GATEWAY, sensor: 'e1.kwh', from, to });
      const [msg] = await out.next(1);
      const meter = findDemoSensor('e1.kwh')!;
      should(msg.payload.net).be.approximately((meter.valueAt(to) - meter.valueAt(from)) * 0.25, 1e-9);
      // every reading of both hours (one a minute), so rule 10 judges a glitch at either end
      should(msg.payload.fetched).eql({ readings: 2 * 61, requests: 2, shortcut: true });
      // two one-hour windows, not ten days
      const data = suite.sim.requests.filter((r) => r.endpoint === 'data').map((r) => new URL(r.path, 'http://x').searchParams);
      should(data).have.length(2);
      for (const q of data) should(Date.parse(q.get('to')!) - Date.parse(q.get('from')!)).equal(HOUR);
    });

    it('costs a named period of the account zone', async () => {
      const { node, out } = await load({ mode: 'range', tariff: 'DEMO-WORKDAY' }, 'America/New_York');
      node.receive({ gateway: GATEWAY, period: 'yesterday' });
      const [msg] = await out.next(1);
      should(msg.payload.range.from).match(/T0[45]:00:00.000Z$/); // New York midnight: 04:00Z or 05:00Z
      should(msg.payload.energy).be.above(10);
    });

    it('says in its status which period the figure covers', async () => {
      const { node, out } = await load({ mode: 'range' }, 'America/New_York');
      node.receive({ gateway: GATEWAY, period: 'last-month' });
      await out.next(1, 8000);
      should(lastStatus('c')!.text).match(/^last month: GBP [\d,]+\.\d\d$/);
      node.receive({ gateway: GATEWAY, period: 'today' });
      await out.next(1, 8000);
      should(lastStatus('c')!.text).match(/^today so far: GBP [\d,]+\.\d\d$/);
      // from/to: the local dates in the account's zone (New York: 03:00Z is the evening before)
      node.receive({ gateway: GATEWAY, from: '2026-03-02T03:00:00Z', to: '2026-03-04T12:00:00Z' });
      await out.next(1, 8000);
      should(lastStatus('c')!.text).match(/^2026-03-01 to 2026-03-04: GBP [\d,]+\.\d\d$/);
    });

    it('hands unknown period names and instants 100 years away to Catch, listing the valid names', async () => {
      const { node, caught } = await load({ mode: 'range' });
      for (const period of ['constructor', 'toString', '__proto__']) node.receive({ gateway: GATEWAY, period });
      node.receive({ gateway: GATEWAY, from: 1e300 });
      node.receive({ gateway: GATEWAY, from: 0, to: -1e300 });
      const errs = (await caught.next(5)).map((e) => e.error.message);
      for (const [i, name] of ['"constructor"', '"toString"', '"__proto__"'].entries()) {
        should(errs[i]).equal(
          `msg.period must be one of today, yesterday, this-week, last-week, this-month, last-month, this-year, last-year, got ${name}.`,
        );
      }
      should(errs[3]).equal('msg.from must lie within 100 years of now, got 1e+300.');
      should(errs[4]).equal('msg.to must lie within 100 years of now, got -1e+300.');
      should(Object.prototype).not.have.property('polluted');
    });

    it('hands bad ranges and failed fetches to Catch', async () => {
      const { node, caught } = await load({ mode: 'range' });
      node.receive({ from: 0 });
      node.receive({ gateway: GATEWAY, from: 'last tuesday' });
      const bad = await caught.next(2);
      should(bad[0].error.message).match(/^Range mode needs msg.gateway/);
      should(bad[1].error.message).match(/msg.from must be/);
      node.receive({ gateway: GATEWAY, from: '2019-06-01T00:00:00Z', to: '2019-07-01T00:00:00Z' }); // before the meter existed
      const [empty] = await caught.next(1);
      should(empty.error.message).equal(
        'The archive has 0 readings of e1.kwh on DEMO from 2019-06-01T00:00:00.000Z to 2019-07-01T00:00:00.000Z: nothing to cost.',
      );
      suite.sim.setFaults({ removedGateways: [GATEWAY] });
      node.receive({ gateway: GATEWAY, period: 'today' });
      const [failed] = await caught.next(1);
      should(failed.error.message).match(/DEMO not found/);
      await quiet(50);
    });
  });
});
