// What the easy-cost suites share: the node in a flow (account, output helper, Catch), the
// feed-in tariff and the solar day its export tests read, worked by hand in each suite.
import type { Simulator } from '../../sim/server';
import { archive, DEMO_TARIFFS, findDemoSensor } from '../../sim/demo-data';
import easyCost = require('../../nodes/easy-cost');
import { accountNode, catchNodes, FileContext, FlowNode, GATEWAY, helper, inbox, loadFlow, quiet, simulatorHooks } from './flow-support';

/** Feed-in: 0.15 a kWh, -0.02 from 11:00 to 13:00 (a negative spot hour), VAT 20 % (not applied to export unless ticked). */
export const FEED_IN = {
  id: 'FEED-IN',
  name: 'Feed-in',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 1, price: -0.02, time_start: '11:00', time_end: '13:00' },
    { priority: 2, price: 0.15 },
  ],
};

/**
 * The simulator's tariffs for easy-cost's own suites: the demo tariffs plus one that breaks
 * the interface (a rule without a price) and one that prices only while the generator runs
 * (with input "1" unknown nothing is priced).
 */
export function costTariffs(): unknown[] {
  return [
    ...JSON.parse(JSON.stringify(DEMO_TARIFFS)),
    { id: 'BROKEN', name: 'b', vat: 0, currency: 'GBP', rules: [{ priority: 1 }] },
    {
      id: 'GENERATOR-ONLY',
      name: 'g',
      vat: 0,
      currency: 'GBP',
      rules: [{ priority: 1, price: 0.5, gateway_id: GATEWAY, sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' }],
    },
  ];
}

/** 10 June 2026 at hh:mm in Europe/London (summer time). */
export const at = (hh: number, mm = 0) => Date.parse(`2026-06-10T${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}:00+01:00`);

/** The solar day's registers on the hour from 06:00 to 21:00: import 1 kWh an hour 06-09 and 2 an hour 16-21 (13 kWh); export 2, 3, 4, 4, 3, 2, 1 kWh in the hours from 09:00 (19 kWh). */
export const SOLAR_IMPORT: Array<[number, number]> = [];
export const SOLAR_EXPORT: Array<[number, number]> = [];
{
  const sold: Record<number, number> = { 9: 2, 10: 3, 11: 4, 12: 4, 13: 3, 14: 2, 15: 1 };
  let bought = 1000;
  let exported = 500;
  for (let h = 6; h <= 21; h++) {
    SOLAR_IMPORT.push([at(h), bought]);
    SOLAR_EXPORT.push([at(h), exported]);
    bought += h < 9 ? 1 : h >= 16 ? 2 : 0;
    exported += sold[h] ?? 0;
  }
}

/** The solar day's readings to `node` (topics grid-in and grid-out, import before export each hour) stamped where `upTo` holds; how many. */
export function sendSolarDay(node: { receive(msg: object): void }, upTo: (ts: number) => boolean): number {
  let count = 0;
  SOLAR_IMPORT.forEach(([ts, value], k) => {
    if (!upTo(ts)) return;
    node.receive({ topic: 'grid-in', payload: value, ts });
    node.receive({ topic: 'grid-out', payload: SOLAR_EXPORT[k][1], ts: SOLAR_EXPORT[k][0] });
    count += 2;
  });
  return count;
}

/** The simulator's archive of a sensor as the client returns it: [epoch ms, value]. */
export function archived(sensorId: string, from: number, to: number): Array<[number, number]> {
  return archive(findDemoSensor(sensorId)!, from, to).map(([iso, value]) => [Date.parse(`${iso}Z`), value]);
}

/** easy-cost node `c` of account `acc`: DEMO-NIGHT in stream mode, output 1 to helper `out`; `over` its settings. */
export function costNode(over: Record<string, unknown> = {}): FlowNode {
  return { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-NIGHT', mode: 'stream', wires: [['out'], []], ...over };
}

/**
 * Loads `nodes` (by default costNode(over)) with the account on `sim` in `timezone`, helper
 * `out` and the Catch nodes; `modules`: more node modules (easy-prices, a context store's).
 */
export async function loadCost(
  sim: Simulator,
  over: Record<string, unknown> = {},
  opts: { timezone?: string; modules?: unknown[]; nodes?: FlowNode[] } = {},
) {
  const nodes = opts.nodes ?? [costNode(over)];
  await loadFlow(
    [easyCost, ...(opts.modules ?? [])],
    [accountNode(sim, opts.timezone ?? 'Europe/London'), ...nodes, { id: 'out', type: 'helper' }, ...catchNodes()],
  );
  return { node: helper.getNode('c'), out: inbox('out'), caught: inbox('caught') };
}

/** Node-RED restarted over `context` (its stores written and read back); node `c` and fresh inboxes of the new flow. */
export async function restartCost(context: FileContext) {
  await context.restart();
  await quiet(50);
  return { node: helper.getNode('c'), out: inbox('out'), caught: inbox('caught') };
}

/**
 * easy-cost's own suites (easy-cost, -stream, -restarts): the simulator serving costTariffs
 * (simulatorHooks), and `load`, node c in batch mode unless `over` says, output 1 to helper
 * out, with the account in `timezone` (London unless given) and Catch.
 */
export function costSuite() {
  const suite = simulatorHooks({ simulator: () => ({ tariffs: costTariffs }) });
  const load = (over: Record<string, unknown> = {}, timezone = 'Europe/London', modules: unknown[] = []) =>
    loadCost(suite.sim, { mode: 'batch', wires: [['out']], ...over }, { timezone, modules });
  return { suite, load };
}
