// What the easy-peak suites share: the node in a flow (its account, helper nodes on its
// outputs, Catch), started once it has read its store.
import type { Simulator } from '../../sim/server';
import easyPeak = require('../../nodes/easy-peak');
import { accountNode, catchNodes, FlowNode, helper, inbox, loadFlow, startedPast, TOKEN } from './flow-support';

/** easy-peak node `p` of account `acc`: 15-minute windows, output 1 to helper `out`; `over` its settings. */
export function peakNode(over: Record<string, unknown> = {}): FlowNode {
  return { id: 'p', type: 'easy-peak', account: 'acc', minutes: '15', wires: [['out'], [], []], ...over };
}

/** easy-peak node `p` guarding a fixed 10 kW (no margin, 10 % hysteresis), its outputs to helpers `out`, `guard` and `chart`. */
export function guardNode(over: Record<string, unknown> = {}): FlowNode {
  return peakNode({
    limit: 'fixed',
    limitKw: '10',
    marginPercent: '0',
    hysteresisPercent: '10',
    wires: [['out'], ['guard'], ['chart']],
    ...over,
  });
}

/**
 * Loads easy-peak node `peak` with the account on `sim` in `timezone`, a helper node for each
 * of `helpers` and the Catch nodes (`modules`: more node modules, a context store's), and waits
 * until the node has read its stored peaks (its status past "restoring the peaks…"): node p,
 * an inbox per helper (`out` the first) and Catch's.
 */
export async function loadPeak(sim: Simulator, timezone: string, peak: FlowNode, opts: { modules?: unknown[]; helpers?: string[] } = {}) {
  const helpers = opts.helpers ?? ['out'];
  await loadFlow([easyPeak, ...(opts.modules ?? [])], peakFlow(sim, timezone, peak, helpers));
  await startedPast('p', 'restoring the peaks…'); // the stored peaks are read at deploy
  const inboxes = new Map(helpers.map((id) => [id, inbox(id)]));
  return { node: helper.getNode('p'), out: inboxes.get('out')!, caught: inbox('caught'), inbox: (id: string) => inboxes.get(id)! };
}

/** loadPeak's flow: the account on `sim` in `timezone`, easy-peak `peak`, a helper node for each of `helpers`, the Catch nodes. */
export function peakFlow(sim: Simulator, timezone: string, peak: FlowNode, helpers = ['out']): FlowNode[] {
  return [accountNode(sim, timezone), peak, ...helpers.map((id) => ({ id, type: 'helper' })), ...catchNodes()];
}

/**
 * A full deploy of loadPeak's flow with `peak`'s settings, as a user's after changing them:
 * the node closes (saving its peaks) and starts again on the same context store. Its status
 * before is the old node's, so a test waits for what the new one says (a warning).
 */
export async function redeployPeak(sim: Simulator, timezone: string, peak: FlowNode, helpers = ['out']): Promise<void> {
  await (helper as any).setFlows(peakFlow(sim, timezone, peak, helpers), 'full', { acc: { token: TOKEN } });
}
