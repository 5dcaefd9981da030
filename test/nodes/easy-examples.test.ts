// The example flows of the sensors and cost nodes, run as shipped (only the account
// pointed at the simulator, debug nodes swapped for helper nodes to read what arrives).
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easyCost = require('../../nodes/easy-cost');
import easySensors = require('../../nodes/easy-sensors');
import { FlowNode, helper, inbox, loadFlow, withSimulator } from './flow-support';

const CORE = ['common/20-inject.js', 'function/10-switch.js', 'function/15-change.js'].map((file) =>
  require(require.resolve(`@node-red/nodes/core/${file}`)));
const OURS = new Set(['easy-account', 'easy-sensors', 'easy-cost', 'easy-tariff']);
const CORE_TYPES = new Set(['tab', 'inject', 'switch', 'change', 'debug', 'catch', 'comment', 'function']);

function example(name: string): FlowNode[] {
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', `${name}.json`), 'utf8'));
}

describe('examples of easy-sensors and easy-cost', function () {
  let sim: Simulator;

  beforeEach(async () => {
    sim = await withSimulator();
  });

  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  async function run(name: string) {
    const flow = example(name).map((n) => {
      if (n.type === 'easy-account') return { ...n, id: 'acc', baseUrl: sim.url, timezone: 'UTC' };
      const node = n.type === 'debug' ? { id: n.id, type: 'helper', z: n.z } : n;
      return node.account ? { ...node, account: 'acc' } : node;
    });
    await loadFlow([easySensors, easyCost, ...CORE], flow);
  }

  it('use only core nodes beside ours, and wire only to nodes that exist', () => {
    for (const name of ['alert-when-the-generator-runs', 'daily-cost-report', 'cost-of-last-month']) {
      const flow = example(name);
      const ids = new Set(flow.map((n) => n.id));
      for (const node of flow) {
        should(OURS.has(node.type) || CORE_TYPES.has(node.type)).be.true(`${name}: ${node.type}`);
        for (const wire of ((node.wires as string[][]) ?? []).flat()) should(ids.has(wire)).be.true(`${name}: wire to ${wire}`);
      }
      should(flow.filter((n) => 'credentials' in n)).be.empty();
      should(JSON.stringify(flow)).not.match(/demo-token/);
    }
  });

  it('alert when the generator runs: the first poll says whether it runs', async () => {
    await run('alert-when-the-generator-runs');
    const [msg] = await inbox('gen-alert').next(1);
    should(msg.payload).match(/^Generator (started|stopped) \(value sent \d{4}-\d\d-\d\dT/);
  });

  it('daily cost report: a reading after midnight reports the day that ended', async () => {
    await run('daily-cost-report');
    const out = inbox('daily-out');
    const cost = helper.getNode('daily-cost');
    cost.receive({ payload: 100, ts: '2026-03-04T23:00:00Z' });
    cost.receive({ payload: 102, ts: '2026-03-05T00:30:00Z' });
    const [msg] = await out.next(1);
    // Wednesday 23:00 is outside working hours (0.31 GBP/kWh) on a weekday; VAT 20 %
    should(msg.payload).equal(`Day ending 2026-03-05T00:00:00.000Z: 2.0 kWh, GBP ${(2 * 0.31 * 1.2).toFixed(2)} incl. VAT`);
  });

  it('cost of last month: range and batch injects give summaries', async () => {
    await run('cost-of-last-month');
    const out = inbox('month-out');
    helper.getNode('month-inject').receive({});
    const [month] = await out.next(1, 5000);
    should(month.payload).have.properties(['from', 'to', 'kWh', 'net', 'gross', 'byRule']);
    should(month.payload.net).match(/^GBP [\d,]+\.\d\d$/);
    should(month.payload.kWh).be.above(24 * 28 * 0.5);
    helper.getNode('batch-inject').receive({}); // the inject sets its own three readings
    const [batch] = await out.next(1);
    // Monday 08:00-12:00 priced at its start (weekday, outside hours), 12:00-20:00 in working hours
    should(batch.payload).match({ energy: 22, formatted: { net: { text: (10.5 * 0.31 + 11.5 * 0.42).toFixed(2) } } });
  });
});
