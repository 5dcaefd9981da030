// easy-peak's example flows, run as shipped (the account pointed at the simulator, debug
// nodes and Dashboard 2 widgets swapped for helper nodes to read what arrives).
import should from 'should';
import easyPeak = require('../../nodes/easy-peak');
import easySensors = require('../../nodes/easy-sensors');
import { DASHBOARD_CONFIG, exampleFlow, exampleOnSimulator, helper, inbox, loadFlow, simulatorHooks } from './flow-support';

const CORE = ['function/10-switch.js', 'function/15-change.js'].map((file) => require(require.resolve(`@node-red/nodes/core/${file}`)));
const ALLOWED = new Set(['tab', 'easy-account', 'easy-sensors', 'easy-peak', 'switch', 'change', 'debug', 'catch', 'ui-text', 'ui-chart']);
const MIN = 60_000;

const example = exampleFlow;

describe('examples of easy-peak', function () {
  // the tests wait up to 8 s for each thing the examples make, several in a row: more than mocha's 10 s on a loaded machine
  this.timeout(30_000);
  const suite = simulatorHooks();

  async function run(name: string) {
    await loadFlow([easySensors, easyPeak, ...CORE], exampleOnSimulator(name, suite.sim, 'Europe/Brussels'));
  }

  /** Readings of `node` from `minutes` ago until now at `kw`, after a reset (the meter's first poll came at now). */
  function replay(node: string, minutes: number, kw: (i: number) => number) {
    const peak = helper.getNode(node);
    peak.receive({ reset: true });
    const start = Date.now() - minutes * MIN;
    let value = 1000;
    for (let i = 0; i <= minutes; i++) {
      value += (kw(i) * MIN) / 3600_000;
      peak.receive({ topic: 'e2.kwh', gateway: 'DEMO', payload: value, ts: start + i * MIN });
    }
  }

  it('use only core nodes, our own and Dashboard 2 widgets, wired to nodes that exist, no function node', () => {
    for (const name of ['warn-before-a-new-monthly-peak', 'peaks-on-a-dashboard', 'keep-the-capacity-tariff-down']) {
      const flow = example(name);
      const ids = new Set(flow.map((n) => n.id));
      for (const node of flow) {
        should(ALLOWED.has(node.type) || DASHBOARD_CONFIG.has(node.type)).be.true(`${name}: ${node.type}`);
        for (const wire of ((node.wires as string[][]) ?? []).flat()) should(ids.has(wire)).be.true(`${name}: wire to ${wire}`);
      }
      should(JSON.stringify(flow)).not.match(/demo-token/);
    }
  });

  it('warn before a new monthly peak: the relay is told on deploy, switched off before a peak, and a warning says why', async () => {
    await run('warn-before-a-new-monthly-peak');
    const relay = inbox('peak-relay-out');
    const warnings = inbox('peak-warn-out');
    // the meter's first poll: the guard tells the relay its state (on)
    const [first] = await relay.next(1, 8000);
    should(first).match({ topic: 'water-heater', payload: true, guard: 'restore' });
    // 40 minutes at 2 kW (under the 2.5 kW the limit never goes below), then 6 kW: off at once
    replay('peak-guard', 40, (i) => (i < 39 ? 2 : 6));
    const sent: Array<Record<string, any>> = [];
    while (!sent.some((m) => m.guard === 'shed')) sent.push(...(await relay.next(1, 8000)));
    // the reset tells the relay on (every meter from zero, the guard restores), then off
    should(sent.slice(0, -1).map((m) => [m.payload, m.guard])).eql(sent.slice(0, -1).map(() => [true, 'restore']));
    should(sent.length).be.aboveOrEqual(2);
    const shed = sent[sent.length - 1];
    should(shed).match({ payload: false, limitKw: 2.5, reason: 'projected above the limit' });
    should(shed.projectedKw).be.above(2.5 * 0.95);
    // a window the replay crosses may warn first, near the limit but not above it (restore):
    // the replay ends at the wall clock, so where it crosses a window depends on the time
    const said: string[] = [];
    while (!said.some((w) => w.endsWith('(shed)'))) said.push(...(await warnings.next(1, 8000)).map((m) => String(m.payload)));
    for (const w of said.slice(0, -1)) should(w).match(/^Window to .*: projected \d+\.\d\d kW, limit 2\.50 kW \(restore\)$/);
    should(said[said.length - 1]).match(/^Window to .*: projected \d+\.\d\d kW, limit 2\.50 kW \(shed\)$/);
  });

  it("peaks on a dashboard: the window in words, closed windows on a time line, the month's peak as a bar", async () => {
    await run('peaks-on-a-dashboard');
    const text = inbox('peakdash-text');
    const windows = inbox('peakdash-windows');
    const months = inbox('peakdash-months');
    const [now] = await text.next(1, 8000);
    // the bill: nothing counted yet, so the 2.5 kW floor of the rolling average, at 4.44 a kW
    should(now.payload).match(/^– kW projected; month's peak none yet · billed 2\.50 kW, 11\.10 a month · guard: restore$/);
    // an hour: at least three complete windows close, wherever in its window now is
    replay('peakdash-peak', 60, () => 2);
    const points = await windows.next(3, 8000);
    should(points[0]).match({ topic: 'average kW per 15 min', action: 'append', payload: [{ y: 2 }] });
    should(points[1]).match({ topic: "month's peak kW", payload: [{ y: 2 }] });
    const [bar] = await months.next(1, 8000);
    should(bar).match({ topic: "month's peak kW", kind: 'peak', payload: [{ y: 2 }] });
    should(bar.payload[0].x).match(/^\d{4}-\d\d$/);
  });

  it('keep the capacity tariff down: the bill in words (3 kW hours: step 2-5 kW, 375 kr), the charger told on deploy', async () => {
    await run('keep-the-capacity-tariff-down');
    const bill = inbox('capacity-bill-out');
    const relay = inbox('capacity-relay-out');
    const [first] = await relay.next(1, 8000);
    should(first).match({ topic: 'ev-charger', payload: true, guard: 'restore' });
    // three hours at 3 kW: one to three complete hours (on one or two local days, wherever now is): 3 kW billed, 375 kr;
    // in the first hour of a month no hour of the month is complete yet: nothing billed, the lowest step (275 kr)
    replay('capacity-peak', 180, () => 3);
    const said: string[] = [];
    for (;;) {
      const more = await bill.next(1, 3000).catch(() => null); // until the replay's readings are all answered
      if (!more) break;
      said.push(...more.map((m) => String(m.payload)));
    }
    should(said.length).be.aboveOrEqual(181);
    for (const t of said.filter((x) => x !== 'no bill yet: peaks from zero'))
      should(t).match(/^Billed \d+\.\d\d kW: \d+ kr this month; this hour raises it above (\d+\.\d\d kW|– \(it cannot\))$/);
    should(said[said.length - 1]).match(/^Billed (3\.00 kW: 375|0\.00 kW: 275) kr this month; this hour raises it above \d+\.\d\d kW$/);
  });
});
