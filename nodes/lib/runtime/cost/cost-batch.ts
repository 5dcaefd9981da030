// easy-cost's batch mode: readings from the message costed under one tariff, and the
// status line every cost mode shows for a result.
import { computeCost, CostResult, SensorTimelines } from '../../engine/cost/cost';
import { counted, formatMoney } from '../../engine/common/format';
import type { Tariff } from '../../engine/tariff/tariff';
import { checkBatchSpan, costPayload } from './cost-inputs';
import type { NodeStatus } from '../common/red-types';
import { DEFAULT_MAX_POWER_KW } from '../../engine/common/limits';

/** The batch payload for `readings` (msg.payload) under `tariff`; throws in words on bad input. */
export function costBatch(
  readings: unknown,
  sensors: unknown,
  tariff: Tariff,
  timezone: string,
  now: number,
  maxPowerKw = DEFAULT_MAX_POWER_KW,
  /** What prices the readings: the tariff, or an easy-prices node's stack over it. */
  source: unknown = tariff,
): { payload: unknown; result: CostResult } {
  if (!Array.isArray(readings)) {
    throw new TypeError('batch mode needs msg.payload as an array of readings: [[timestamp, kWh], …] or [{ ts, value }, …]');
  }
  const result = computeCost(source, readings, { timezone, sensors: sensors as SensorTimelines | undefined, maxPowerKw });
  checkBatchSpan(result, now);
  // one usable reading or none is no usage at all, not a cost of zero (as in range mode)
  if (result.intervals === 0) {
    const dropped = result.dropped.length ? `, ${result.dropped.length} dropped as unreadable` : '';
    throw new Error(`batch mode needs at least two readings with a timestamp and a kWh value (got ${readings.length}${dropped})`);
  }
  return { payload: costPayload(result, tariff), result };
}

/** The status of a cost: which period it covers (`period`, see periodWords), the amount, what was left out. */
export function costStatus(result: CostResult, period: string | null = null): NodeStatus {
  // the currency of what priced the readings (a stack's), as the result says it
  const money = formatMoney(result.gross, result.currency)?.display ?? 'no amount';
  const amount = period ? `${period}: ${money}` : money;
  const left = [
    result.dropped.length ? `${counted(result.dropped.length, 'reading')} dropped` : '',
    result.rejected.length ? `${counted(result.rejected.length, 'interval')} rejected` : '',
    result.glitches.length ? `${result.glitches.length} ${result.glitches.length === 1 ? 'glitch' : 'glitches'} dropped` : '',
    result.pending.length ? `${counted(result.pending.length, 'reading')} pending` : '',
  ].filter(Boolean);
  return left.length
    ? { fill: 'yellow', shape: 'dot', text: [amount, ...left].join(' · ') }
    : { fill: 'green', shape: 'dot', text: amount };
}
