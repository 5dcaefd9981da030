// What the cost node reads from messages and tariffs, and how it shapes what it sends:
// Node-RED-free so every rule about bad input is tested alone.
import { CostResult, Interval, RejectedInterval } from '../../engine/cost/cost';
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
  toEpochMs,
} from '../../engine/time/time';
import { futureWords, isFromFuture, requireReadingInstant } from '../../engine/common/future-readings';
import { dataRecord, setNested } from '../../engine/common/id-map';

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

export interface StreamReading {
  ts: number;
  value: number;
  /** The sensor it came from, when wired from easy-sensors. */
  sensorId?: string;
  gatewayId?: string;
}

/** A sensor message of easy-sensors: its payload is one sensor. */
interface SensorLike {
  id?: unknown;
  value?: unknown;
  ts?: unknown;
  timestamp?: unknown;
  unit?: unknown;
  decoded?: { kind?: unknown; quantity?: unknown };
}

/**
 * One cumulative reading of stream mode: `msg.payload` a number of kWh (at `msg.ts` or
 * `msg.timestamp`, else now), or an easy-sensors message (payload `{ id, value, ts }`).
 * Anything else throws a TypeError saying what was expected.
 */
export function streamReading(
  msg: { payload?: unknown; ts?: unknown; timestamp?: unknown; gateway?: unknown },
  now: number,
): StreamReading {
  const { payload } = msg;
  if (typeof payload === 'number' || (typeof payload === 'string' && payload.trim() !== '' && Number.isFinite(Number(payload)))) {
    const value = Number(payload);
    if (!Number.isFinite(value)) throw new TypeError(`stream mode needs a finite kWh reading, got ${String(payload)}`);
    const when = msg.ts ?? msg.timestamp;
    return { ts: when === undefined ? now : requireReadingInstant(when, msg.ts === undefined ? 'msg.timestamp' : 'msg.ts', now), value };
  }
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const s = payload as SensorLike;
    const value = typeof s.value === 'number' ? s.value : NaN;
    if (!Number.isFinite(value))
      throw new TypeError(`stream mode needs msg.payload.value as a finite number of kWh, got ${describe(s.value)}`);
    const when = s.ts ?? s.timestamp;
    if (toEpochMs(when) === null)
      throw new TypeError(`stream mode needs msg.payload.ts (or timestamp) as an instant, got ${describe(when)}`);
    const ts = requireReadingInstant(when, s.ts === undefined ? 'msg.payload.timestamp' : 'msg.payload.ts', now);
    return {
      ts,
      value,
      sensorId: typeof s.id === 'string' ? s.id : undefined,
      gatewayId: typeof msg.gateway === 'string' ? msg.gateway : undefined,
    };
  }
  throw new TypeError(
    `stream mode takes one cumulative kWh reading per message (a number, or a message of easy-sensors in "each" mode), got ${describe(payload)}`,
  );
}

/**
 * A sensor message that is not energy (a voltage, a digital input, a unit other than
 * kWh) is not a meter reading; an id nobody documented with no unit might be one, so it
 * is given the benefit of the doubt.
 */
export function isEnergyReading(payload: unknown): boolean {
  const unit = (payload as SensorLike | null)?.unit;
  if (typeof unit === 'string' && unit.trim().toLowerCase() !== 'kwh') return false;
  const decoded = (payload as SensorLike | null)?.decoded;
  if (!decoded || typeof decoded !== 'object') return true;
  if (decoded.kind === 'modbus') return decoded.quantity === 'energy' || decoded.quantity === 'unknown';
  return decoded.kind === 'unknown';
}

function describe(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return `an array of ${x.length}`;
  if (typeof x === 'object') return 'an object';
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x);
  return String(x);
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

/** An interval computeCost rejected (average power above the limit, or not finite) as sent. */
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
