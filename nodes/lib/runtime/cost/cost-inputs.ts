// What the cost node reads from messages and tariffs, and how it shapes what it sends:
// Node-RED-free so every rule about bad input is tested alone.
import { CostResult, Interval, RejectedInterval, SuspectReading } from '../../engine/cost/cost';
import { formatAmounts, roundAmount } from '../../engine/common/format';
import { compileTariff, SensorRef, sensorKey, Tariff, TIME_ALWAYS } from '../../engine/tariff/tariff';
import { Bucket, IntervalCost } from '../../engine/cost/totals';
import {
  instantText,
  isNearNow,
  isPeriodName,
  localDate,
  namedPeriod,
  NamedPeriod,
  NEAR_NOW_YEARS,
  PERIOD_NAMES,
  requireInstantNearNow,
} from '../../engine/time/time';
import { futureWords, isFromFuture } from '../../engine/common/future-readings';
import { dataRecord, setNested } from '../../engine/common/id-map';
import { describe } from '../common/meter-reading';

export { isEnergyReading, streamReading } from '../common/meter-reading';
export type { StreamReading } from '../common/meter-reading';

export const DEFAULT_SENSOR = 'e1.kwh';

/**
 * A tariff whose first rule in evaluation order has no condition prices everything at
 * one rate (semantics rule 13's flat tariff, and any tariff whose later rules can never
 * apply): its cost needs only the first and the last reading.
 */
export function isFlatTariff(tariff: Tariff): boolean {
  const first = compileTariff(tariff).rules[0];
  return !!first && first.timeKind === TIME_ALWAYS && first.weekdayMask === 0 && first.sensorSlot === -1;
}

/**
 * Batch readings lie within NEAR_NOW_YEARS of now, like every instant of a message, and
 * none in the future (isFromFuture): one such reading refuses the whole batch, as a cost
 * of the others alone would look complete. result is computeCost's, whose `from`/`to` are
 * the first and last clean readings.
 */
export function checkBatchSpan(result: CostResult, now: number): void {
  for (const [which, ms] of [
    ['first', result.from],
    ['last', result.to],
  ] as const) {
    if (ms !== null && !isNearNow(ms, now)) {
      throw new RangeError(
        `batch mode takes readings within ${NEAR_NOW_YEARS} years of now; the ${which} reading is at ${instantText(ms)}`,
      );
    }
  }
  if (result.to !== null && isFromFuture(result.to, now))
    throw new RangeError(`batch mode refused the readings: ${futureWords('the last reading', result.to, now)}`);
}

// ---------------------------------------------------------------------------------------
// range mode

export interface RangeRequest {
  gateway: string;
  sensor: string;
  from: number;
  to: number;
  /** The named period asked for, if any. */
  period?: NamedPeriod;
  /** `msg.split`: "day" asks for the cost of each local day of the range too. */
  split: 'day' | null;
}

/** Named periods that are still running say "so far": their figure ends now, not at the period's end. */
const PERIOD_WORDS: Record<NamedPeriod, string> = {
  today: 'today so far',
  yesterday: 'yesterday',
  'this-week': 'this week so far',
  'last-week': 'last week',
  'this-month': 'this month so far',
  'last-month': 'last month',
  'this-year': 'this year so far',
  'last-year': 'last year',
};

/**
 * Which period a cost covers, for the node's status: the period's name in words, else the
 * local dates of its first and last instant in the account's zone (one date when it is
 * within one day); null when the cost has no readings.
 */
export function periodWords(from: number | null, to: number | null, timezone: string, period?: NamedPeriod): string | null {
  if (period) return PERIOD_WORDS[period];
  if (from === null || to === null) return null;
  const first = localDate(from, { timezone });
  const last = localDate(Math.max(from, to - 1), { timezone });
  return first === last ? first : `${first} to ${last}`;
}

/**
 * The range of range mode: `msg.from`/`msg.to` (to defaults to now), or `msg.period`
 * (`yesterday`, `last-month`, …) in the account's zone; `msg.gateway` is required,
 * `msg.sensor` defaults to e1.kwh. The end is clipped to now: there is no archive of
 * the future.
 */
export function rangeRequest(msg: Record<string, unknown>, timezone: string, now: number): RangeRequest {
  const gateway = typeof msg.gateway === 'string' ? msg.gateway.trim() : '';
  if (!gateway) throw new TypeError('range mode needs msg.gateway, the gateway whose meter to read');
  const sensor = msg.sensor === undefined ? DEFAULT_SENSOR : typeof msg.sensor === 'string' && msg.sensor.trim() ? msg.sensor.trim() : null;
  if (!sensor) throw new TypeError('msg.sensor must be a sensor id such as e1.kwh');
  let from: number;
  let to: number;
  let period: NamedPeriod | undefined;
  if (msg.period !== undefined) {
    if (!isPeriodName(msg.period)) throw new TypeError(`msg.period must be one of ${PERIOD_NAMES.join(', ')}, got ${describe(msg.period)}`);
    ({ from, to } = namedPeriod(msg.period, now, { timezone }));
    period = msg.period;
  } else {
    from = requireInstantNearNow(msg.from, 'msg.from', now);
    to = msg.to === undefined ? now : requireInstantNearNow(msg.to, 'msg.to', now);
  }
  to = Math.min(to, now);
  if (!(from < to)) throw new RangeError(`msg.from (${instantText(from)}) must be before msg.to and before now (${instantText(to)})`);
  return { gateway, sensor, from, to, period, split: splitOf(msg.split) };
}

function splitOf(split: unknown): 'day' | null {
  if (split === undefined || split === null || split === '') return null;
  if (split === 'day') return 'day';
  throw new TypeError(`msg.split must be "day" (the cost of each local day of the range) or left out, got ${describe(split)}`);
}

// ---------------------------------------------------------------------------------------
// live sensor values (stream mode)

/**
 * Recent values of the sensors a tariff's rules read, as the timelines computeCost
 * takes: the value at an instant is the last one at or before it.
 */
export class SensorHistory {
  private readonly points = new Map<string, Array<[number, number]>>();
  private readonly watched: Set<string>;

  constructor(private readonly refs: SensorRef[]) {
    this.watched = new Set(refs.map((r) => sensorKey(r.gatewayId, r.sensorId)));
  }

  watches(gatewayId: string | undefined, sensorId: string | undefined): boolean {
    return typeof gatewayId === 'string' && typeof sensorId === 'string' && this.watched.has(sensorKey(gatewayId, sensorId));
  }

  record(gatewayId: string, sensorId: string, ts: number, value: number): void {
    if (!this.watches(gatewayId, sensorId) || !Number.isFinite(ts) || !Number.isFinite(value)) return;
    const key = sensorKey(gatewayId, sensorId);
    const line = this.points.get(key) ?? [];
    if (line.length && line[line.length - 1][0] >= ts) {
      if (line[line.length - 1][0] === ts) line[line.length - 1] = [ts, value];
      return; // an older poll answering late changes nothing
    }
    line.push([ts, value]);
    this.points.set(key, line);
  }

  /** Drops what no reading from `before` on can need: all but the last value at or before it. */
  forget(before: number): void {
    for (const line of this.points.values()) {
      let keepFrom = 0;
      for (let i = 0; i < line.length; i++) if (line[i][0] <= before) keepFrom = i;
      line.splice(0, keepFrom);
    }
  }

  timelines(): Record<string, Record<string, Array<[number, number]>>> {
    const out: Record<string, Record<string, Array<[number, number]>>> = dataRecord();
    for (const ref of this.refs) {
      const line = this.points.get(sensorKey(ref.gatewayId, ref.sensorId));
      if (!line) continue;
      setNested(out, ref.gatewayId, ref.sensorId, line.slice());
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------
// output shapes

/** An instant as messages carry it: the ISO string, and epoch ms beside it. */
function instant(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** An interval between two readings as sent: ISO bounds with their epoch ms. */
function intervalPayload<T extends Interval>(iv: T) {
  return { ...iv, from: instant(iv.from), to: instant(iv.to), fromMs: iv.from, toMs: iv.to };
}

/** A reading rule 10 judged a glitch, or left pending, as sent: as a stream reading is (ts in ms, timestamp ISO). */
export function suspectPayload(s: SuspectReading) {
  return { ts: s.ts, timestamp: instant(s.ts), value: s.value, kind: s.kind };
}

/** An interval computeCost rejected (its energy or amounts would not be finite) as sent. */
export function rejectedPayload(r: RejectedInterval) {
  return { ...intervalPayload(r), energy: roundAmount(r.energy), averageKw: roundAmount(r.averageKw) };
}

/**
 * A cost result as sent: amounts rounded (roundAmount) from the unrounded sums, times as
 * ISO strings with `…Ms` epoch fields, and strings rounded to the currency's minor unit.
 */
export function costPayload(result: CostResult, tariff: Tariff) {
  return {
    ...result,
    net: roundAmount(result.net),
    gross: roundAmount(result.gross),
    energy: roundAmount(result.energy),
    unpricedEnergy: roundAmount(result.unpricedEnergy),
    byRule: result.byRule.map((r) => ({ ...r, price: roundAmount(r.price), energy: roundAmount(r.energy), net: roundAmount(r.net) })),
    ...(result.bySensorValue
      ? {
          bySensorValue: result.bySensorValue.map((v) => ({
            value: v.value,
            energy: roundAmount(v.energy),
            unpricedEnergy: roundAmount(v.unpricedEnergy),
            net: roundAmount(v.net),
            gross: roundAmount(v.gross),
          })),
        }
      : {}),
    resets: result.resets.map(intervalPayload),
    rejected: result.rejected.map(rejectedPayload),
    glitches: result.glitches.map(suspectPayload),
    pending: result.pending.map(suspectPayload),
    from: instant(result.from),
    to: instant(result.to),
    fromMs: result.from,
    toMs: result.to,
    tariffId: tariff.id,
    tariffName: tariff.name,
    formatted: formatAmounts({ net: result.net, gross: result.gross }, result.currency),
  };
}

/** What one stream reading changed, as sent: amounts rounded from the unrounded sums. */
export function changePayload(change: IntervalCost) {
  return {
    ...change,
    energy: roundAmount(change.energy),
    net: roundAmount(change.net),
    gross: roundAmount(change.gross),
    unpricedEnergy: roundAmount(change.unpricedEnergy),
  };
}

/** One period of the running totals as sent: ISO bounds, sums, formatted amounts. */
export function bucketPayload(bucket: Bucket | null, currency: string, vat: number) {
  if (!bucket) return null;
  return {
    from: instant(bucket.from),
    to: instant(bucket.to),
    fromMs: bucket.from,
    toMs: bucket.to,
    // the running sums stay unrounded in the totals; only what is sent is rounded
    energy: roundAmount(bucket.energy),
    net: roundAmount(bucket.net),
    gross: roundAmount(bucket.gross),
    vat,
    currency,
    unpricedEnergy: roundAmount(bucket.unpricedEnergy),
    intervals: bucket.intervals,
    resets: bucket.resets,
    formatted: formatAmounts({ net: bucket.net, gross: bucket.gross }, currency),
  };
}
