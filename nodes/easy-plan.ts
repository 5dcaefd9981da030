// easy-plan: run a load in the cheapest hours of a window. Output 1 sends the on/off
// values at the exact instants a planned slot starts and ends, output 2 the plan. Glue
// only: promises, planning, timers and persistence are in lib/runtime/plan/.

import { linkAccount, nodeContextStore, reportProblem, settleOnce, problemStatus } from './lib/runtime/account/account-link';
import { PlanWatch } from './lib/runtime/plan/plan-watch';
import { parseDuration, planSettings, PlanSettings } from './lib/runtime/plan/plan-settings';
import { OutputValues, outputValues, resendMs } from './lib/runtime/plan/plan-output';
import { NOT_A_SENSOR_VALUE, sensorsFromMessage, unknownCommand } from './lib/runtime/common/sensor-message';
import { nodeRecords } from './lib/runtime/common/records-output';
import type { Node, NodeAPI, NodeDef, NodeMessage } from './lib/runtime/common/red-types';
import { linkPrices, takePriceList } from './lib/runtime/prices/prices-link';
import { StackSource } from './lib/runtime/prices/prices-source';

const TARIFF_REFRESH_MINUTES = 60;
const STORE_KEY = 'plan';
const OVERRIDE_KEY = 'override';
const OVERRIDES = new Set(['auto', 'on', 'off']);

export = function register(RED: NodeAPI): void {
  function EasyPlanNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const tariffId = String(config.tariff ?? '').trim();
    const link = linkAccount(RED, node, config.account);
    let settings: PlanSettings | null = null;
    let outputs: OutputValues | null = null;
    let resendEvery = 0;
    // an easy-prices node, when set: plans on its list stacked with the tariff (docs/nodes.md, "Spot prices")
    const prices = linkPrices(RED, config.prices);
    let problem = link.problem ?? (tariffId ? null : 'no tariff id configured') ?? prices.problem;
    if (!problem) {
      try {
        settings = planSettings(config);
        outputs = outputValues(config);
        resendEvery = resendMs(config);
      } catch (err) {
        problem = (err as Error).message;
      }
    }
    let watch: PlanWatch | null = null;
    // the third output, when set: the state and the plan as InfluxDB points or Home Assistant states (docs/records.md)
    const records = nodeRecords(node, config, (messages) => node.send([null, null, messages]));
    void records?.restore();

    const store = nodeContextStore(node, STORE_KEY);

    // Started on the next turn, once the whole flow exists: what it sends or reports
    // then reaches wired nodes and Catch nodes.
    const starting = setImmediate(() => {
      if (problem) {
        reportProblem(node, problem, { topic: 'plan' });
        return;
      }
      watch = new PlanWatch({
        hub: link.hub!,
        tariffId,
        refreshMinutes: TARIFF_REFRESH_MINUTES,
        settings: settings!,
        outputs: outputs!,
        resendMs: resendEvery,
        store,
        overrideStore: nodeContextStore(node, OVERRIDE_KEY),
        onOutput: (value, state, override) =>
          node.send([{ topic: 'switch', payload: value, state, override }, null, records?.planSwitch(state, Date.now()) ?? null]),
        onPlan: (plan) => node.send([null, { topic: 'plan', payload: plan }, records?.plan(plan, Date.now()) ?? null]),
        onStatus: (status) => node.status(status),
        onProblem: (message) => reportProblem(node, message, { topic: 'plan' }),
        onWarn: (message) => node.warn(message),
        prices: prices.book && prices.settings ? new StackSource(prices.book, prices.settings) : null,
      });
      watch.start().catch((err: Error) => reportProblem(node, `the plan could not be started: ${err.message}`, { topic: 'plan' }));
    });
    if (problem) {
      if (!link.account?.configError) node.status(problemStatus(problem));
    } else {
      node.status({ fill: 'grey', shape: 'ring', text: 'fetching tariffs…' });
    }

    node.on('input', (msg, send, done) => {
      const finish = settleOnce(done);
      try {
        // the records writer's word on a write, or a command of the records (docs/records.md)
        if (records?.control(msg)) return finish();
        // a price list (power-saver's input included: a flow feeding ps-strategy-lowest-price feeds this node unchanged)
        if (takePriceList(prices, msg, (text) => node.warn(text))) return finish();
        if (!watch) throw new Error(problem ?? 'the node is still starting');
        const command = typeof msg.payload === 'string' ? msg.payload.trim().toLowerCase() : null;
        if (msg.override !== undefined || (command !== null && OVERRIDES.has(command)))
          watch.setOverride(overrideOf(msg.override ?? command));
        else if (command === 'resend' || msg.resend === true) watch.resend();
        else if (command === 'cancel') watch.cancel();
        else if (command === 'boost') watch.boost(msg.duration === undefined ? settings!.durationMs : parseDuration(msg.duration));
        else if (command === 'plan' || hasOverrides(msg))
          watch.planNow(hasOverrides(msg) ? { duration: msg.duration, from: msg.from, until: msg.until } : null);
        // otherwise a sensor value for the tariff's rules, as easy-tariff takes them
        else for (const { gatewayId, sensorId, value } of sensorValues(msg)) watch.setSensor(gatewayId, sensorId, value);
        finish();
      } catch (err) {
        finish(err);
      }
    });

    node.on('close', (_removed, done) => {
      clearImmediate(starting);
      watch?.close();
      link.release();
      // what the records writer has not confirmed, stored for the next run
      (records?.close() ?? Promise.resolve()).then(() => done());
    });
  }

  RED.nodes.registerType('easy-plan', EasyPlanNode);
};

function overrideOf(value: unknown): 'auto' | 'on' | 'off' {
  const mode = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (mode === 'auto' || mode === 'on' || mode === 'off') return mode;
  throw new Error(`msg.override must be "auto", "on" or "off", got ${JSON.stringify(value) ?? String(value)}`);
}

function hasOverrides(msg: NodeMessage): boolean {
  return msg.duration !== undefined || msg.from !== undefined || msg.until !== undefined;
}

function sensorValues(msg: NodeMessage): ReturnType<typeof sensorsFromMessage> {
  try {
    return sensorsFromMessage(msg);
  } catch (err) {
    // a sensor value that is not a number keeps its own words; anything else is no command we know
    if ((err as { code?: unknown }).code !== NOT_A_SENSOR_VALUE) throw err;
    throw unknownCommand(
      "msg.payload 'plan', 'cancel', 'boost', 'on', 'off', 'auto' or 'resend', msg.duration/msg.from/msg.until",
      msg.payload,
    );
  }
}
