// The generator report of easy-cost (range and stream modes): which sensor is the
// generator's, and what its runs and the energy while running and while not come to.
import type { CostResult, SensorValueCost } from '../../engine/cost/cost';
import { formatAmounts, roundAmount } from '../../engine/common/format';
import { sensorRuns, SensorRunsResult } from '../../engine/reports/sensor-runs';
import { SensorRef, sensorNumber, sensorsUsedBy, Tariff } from '../../engine/tariff/tariff';

/** Runs listed in one message; the counts cover them all. */
export const MAX_RUNS_LISTED = 100;

export interface GeneratorChoice {
  ref: SensorRef;
  /** The value that means running. */
  on: number;
}

/** The node's generator settings: both ids empty means the tariff's sensor rule. */
export interface GeneratorSettings {
  gatewayId: string;
  sensorId: string;
  /** '' = the sensor rule's sensor_value, else 1 */
  on: string;
}

/**
 * The sensor the report follows: the configured one, or the sensor of the tariff's first
 * sensor rule (in the rules' order); `on` the configured value, else that rule's
 * sensor_value, else 1. Throws in words when there is none to follow.
 */
export function generatorChoice(settings: GeneratorSettings, tariff: Tariff): GeneratorChoice {
  const configured = settings.gatewayId !== '' || settings.sensorId !== '';
  if (configured && (settings.gatewayId === '' || settings.sensorId === '')) {
    throw new TypeError('the generator report needs both a gateway and a sensor id (or neither, to follow the tariff’s sensor rule)');
  }
  const ref = configured ? { gatewayId: settings.gatewayId, sensorId: settings.sensorId } : sensorsUsedBy(tariff)[0];
  if (!ref) {
    throw new Error(
      `the generator report follows the tariff's sensor rule, and tariff ${JSON.stringify(tariff.id)} has none: choose the generator's sensor in the node`,
    );
  }
  const rule = tariff.rules.find((r) => String(r.gateway_id) === ref.gatewayId && String(r.sensor_id) === ref.sensorId);
  const ruleOn = rule ? sensorNumber(rule.sensor_value) : NaN;
  const on = settings.on.trim() !== '' ? sensorNumber(settings.on) : ruleOn === ruleOn ? ruleOn : 1;
  if (on !== on) throw new TypeError(`the generator's running value must be a number, got ${JSON.stringify(settings.on)}`);
  return { ref, on };
}

/** Energy and amounts of the split entries in one group, summed. */
export function splitSums(entries: readonly SensorValueCost[]) {
  const sum = { energy: 0, unpricedEnergy: 0, net: 0, gross: 0 };
  for (const e of entries) {
    sum.energy += e.energy;
    sum.unpricedEnergy += e.unpricedEnergy;
    sum.net += e.net;
    sum.gross += e.gross;
  }
  return sum;
}

/** Running, not running (a known other value) and unknown, from computeCost's bySensorValue. */
export function runningSplit(entries: readonly SensorValueCost[], on: number) {
  return {
    running: splitSums(entries.filter((e) => e.value === on)),
    notRunning: splitSums(entries.filter((e) => e.value !== null && e.value !== on)),
    unknown: splitSums(entries.filter((e) => e.value === null)),
  };
}

type Sums = ReturnType<typeof splitSums>;
const sumsPayload = (s: Sums) => ({
  energy: roundAmount(s.energy),
  unpricedEnergy: roundAmount(s.unpricedEnergy),
  net: roundAmount(s.net),
  gross: roundAmount(s.gross),
});

/** Run time and starts as sent: ms and hours, runs with ISO times, at most MAX_RUNS_LISTED of them. */
export function runsPayload(runs: SensorRunsResult) {
  const listed = runs.runs.slice(0, MAX_RUNS_LISTED);
  return {
    runMs: runs.onMs,
    runHours: roundAmount(runs.onMs / 3600_000),
    starts: runs.starts,
    offMs: runs.offMs,
    unknownMs: runs.unknownMs,
    runs: listed.map((r) => ({ from: iso(r.from), to: iso(r.to), fromMs: r.from, toMs: r.to })),
    runsCount: runs.runs.length,
  };
}

/** The report of one range: the generator's runs in it, and the cost split by running. */
export function generatorReport(choice: GeneratorChoice, result: CostResult, timeline: unknown, range: { from: number; to: number }) {
  const runs = sensorRuns(Array.isArray(timeline) ? timeline : [], range.from, range.to, { on: choice.on });
  const split = runningSplit(result.bySensorValue ?? [], choice.on);
  return {
    gatewayId: choice.ref.gatewayId,
    sensorId: choice.ref.sensorId,
    on: choice.on,
    ...runsPayload(runs),
    running: sumsPayload(split.running),
    notRunning: sumsPayload(split.notRunning),
    unknown: sumsPayload(split.unknown),
    formatted: formatAmounts({ running: split.running.gross, notRunning: split.notRunning.gross }, result.currency),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
