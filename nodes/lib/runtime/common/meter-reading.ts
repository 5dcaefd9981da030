// A cumulative meter reading as a message carries it (easy-cost's stream mode, easy-peak):
// a number of kWh, or an easy-sensors message; which meter it belongs to, and its name.
// Node-RED-free, so every rule about bad input is tested alone.
import { toEpochMs } from '../../engine/time/time';
import { requireReadingInstant } from '../../engine/common/future-readings';
import { MAX_ID_CHARS, MAX_SENSORS_LISTED } from '../../engine/common/limits';
import { groupDigits, shortText } from '../../engine/common/format';

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
 * One cumulative reading (easy-cost's stream mode, easy-peak; `who` names it in errors): `msg.payload` a number of kWh (at `msg.ts` or
 * `msg.timestamp`, else now), or an easy-sensors message (payload `{ id, value, ts }`).
 * Anything else throws a TypeError saying what was expected.
 */
export function streamReading(
  msg: { payload?: unknown; ts?: unknown; timestamp?: unknown; gateway?: unknown },
  now: number,
  who = 'stream mode',
): StreamReading {
  const { payload } = msg;
  if (typeof payload === 'number' || (typeof payload === 'string' && payload.trim() !== '' && Number.isFinite(Number(payload)))) {
    const value = Number(payload);
    if (!Number.isFinite(value)) throw new TypeError(`${who} needs a finite kWh reading, got ${String(payload)}`);
    const when = msg.ts ?? msg.timestamp;
    return { ts: when === undefined ? now : requireReadingInstant(when, msg.ts === undefined ? 'msg.timestamp' : 'msg.ts', now), value };
  }
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const s = payload as SensorLike;
    const value = typeof s.value === 'number' ? s.value : NaN;
    if (!Number.isFinite(value)) throw new TypeError(`${who} needs msg.payload.value as a finite number of kWh, got ${describe(s.value)}`);
    const when = s.ts ?? s.timestamp;
    if (toEpochMs(when) === null) throw new TypeError(`${who} needs msg.payload.ts (or timestamp) as an instant, got ${describe(when)}`);
    const ts = requireReadingInstant(when, s.ts === undefined ? 'msg.payload.timestamp' : 'msg.payload.ts', now);
    return {
      ts,
      value,
      sensorId: typeof s.id === 'string' ? s.id : undefined,
      gatewayId: typeof msg.gateway === 'string' ? msg.gateway : undefined,
    };
  }
  throw new TypeError(
    `${who} takes one cumulative kWh reading per message (a number, or a message of easy-sensors in "each" mode), got ${describe(payload)}`,
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

/** What a cumulative reading counts: active energy (kWh), apparent energy (kVAh) or reactive energy (kvarh). */
export type EnergyUnit = 'kWh' | 'kVAh' | 'kvarh';

/** The unit a meter's name says: a topic or sensor id ending in `kvah` (`e1.kvah`) counts kVAh, in `kvarh` kvarh, any other kWh. */
export const unitOfTopic = (topic: string | null): EnergyUnit =>
  /kvah$/i.test(topic ?? '') ? 'kVAh' : /kvarh$/i.test(topic ?? '') ? 'kvarh' : 'kWh';

/**
 * The unit of a cumulative reading for a node that counts kWh and kVAh (easy-peak): the
 * unit the message states (`msg.payload.unit` of an easy-sensors message, `msg.unit`
 * beside a number), else the one its meter's topic says (unitOfTopic). null: no energy
 * meter (a sensor in another unit, a voltage; isEnergyReading). A `msg.unit` beside a
 * number that is neither is a TypeError saying which are taken.
 */
export function readingUnit(msg: { payload?: unknown; unit?: unknown }, topic: string | null, who: string): EnergyUnit | null {
  const { payload } = msg;
  const sensor = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as SensorLike) : null;
  const stated = sensor ? sensor.unit : msg.unit;
  if (stated !== undefined && stated !== null && stated !== '') {
    const unit = typeof stated === 'string' ? stated.trim().toLowerCase() : null;
    if (unit === 'kwh') return 'kWh';
    if (unit === 'kvah') return 'kVAh';
    if (unit === 'kvarh') return 'kvarh';
    if (sensor) return null;
    throw new TypeError(`${who} counts kWh, kVAh or kvarh: msg.unit must be "kWh", "kVAh" or "kvarh", got ${describe(stated)}`);
  }
  if (sensor && !isEnergyReading(sensor)) return null;
  return unitOfTopic(topic);
}

/**
 * What a reading counts, for easy-cost's stream mode, which prices only kWh: energy by its
 * payload (isEnergyReading), the unit by readingUnit; null for no energy meter and for a
 * number with a `msg.unit` that is no energy unit. A kVAh or kvarh counter (said by its unit
 * or its topic, `e1.kvarh`) is never priced: that would charge apparent or reactive energy as active.
 */
export function energyUnitOf(msg: { payload?: unknown; unit?: unknown }, topic: string | null): EnergyUnit | null {
  try {
    return readingUnit(msg, topic, 'stream mode');
  } catch {
    return null; // a msg.unit that is no energy unit
  }
}

// A power-factor reading (semantics, the peak node: kVA from kWh and a power factor)
/** A message's stated unit of a power factor, as written: lower case, without spaces or `_` (`cos φ`, `Power_Factor`). */
const PF_UNITS = new Set(['pf', 'cosφ', 'cosphi', 'powerfactor']);
/** A meter whose name ends so, saying no unit, reads a power factor (`e1.pf`, the gateway's modbus subsensor). */
const PF_TOPIC = /(?:^|[^a-z0-9])(?:pf|cosφ|cosphi|power_?factor)$/i;

const statedUnit = (x: unknown): string | null => (typeof x === 'string' ? x.toLowerCase().replace(/[\s_]+/g, '') : null);

/**
 * Whether a message is a power-factor reading: its stated unit (`msg.unit` beside a number,
 * an easy-sensors message's `unit`) is `pf`, `cos φ`, `cosphi` or `power factor`; or,
 * stating none, an easy-sensors message of a modbus power-factor subsensor, or a meter
 * whose name ends in `pf`, `cosphi` or `power_factor` after a separator (`e1.pf`).
 */
export function isPowerFactorReading(msg: { payload?: unknown; unit?: unknown; topic?: unknown }): boolean {
  const { payload } = msg;
  const sensor = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  const stated = sensor ? sensor.unit : msg.unit;
  if (stated !== undefined && stated !== null && stated !== '') return PF_UNITS.has(statedUnit(stated) ?? '');
  const decoded = sensor?.decoded as { kind?: unknown; quantity?: unknown } | undefined;
  if (decoded && typeof decoded === 'object' && decoded.kind === 'modbus') return decoded.quantity === 'power_factor';
  const topic = typeof msg.topic === 'string' && msg.topic !== '' ? msg.topic : typeof sensor?.id === 'string' ? sensor.id : '';
  return PF_TOPIC.test(topic);
}

/**
 * The lowest power factor easy-peak takes, read or set (as its *free down to*): kVA at 100
 * times the kW is no site's; far below it kWh ÷ pf and kWh × √(1/pf² − 1) overflow to
 * Infinity (a reading of 1e-200), which no window can be billed on.
 */
export const MIN_POWER_FACTOR = 0.01;

/**
 * A power-factor reading's value: a number from MIN_POWER_FACTOR to 1 (a string of one, or an
 * easy-sensors message's value). Anything else is refused, naming the meter and the value:
 * a failed read of 0 would make kVA infinite, a percentage (95) or a signed one (−0.9) is
 * no power factor here.
 */
export function powerFactorValue(msg: { payload?: unknown }, id: MeterId): number {
  const { payload } = msg;
  const sensor = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  const raw = sensor ? sensor.value : payload;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!(value >= MIN_POWER_FACTOR && value <= 1))
    throw new TypeError(
      `power factor meter "${shortText(meterName(id))}" read ${describe(raw)}: a power factor is a number from ${MIN_POWER_FACTOR} to 1 ` +
        '(not a percentage, not signed), so the reading is not counted; the last good one holds until the next, and a window ' +
        'it does not cover is not complete',
    );
  return value;
}

/** The meter of a power-factor reading: msg.gateway, and msg.topic or the easy-sensors sensor id (as meterOf). */
export function powerFactorMeterOf(msg: { gateway?: unknown; topic?: unknown; payload?: unknown }): MeterId {
  const { payload } = msg;
  const id = typeof payload === 'object' && payload !== null ? (payload as { id?: unknown }).id : undefined;
  return meterOf(msg, { ts: 0, value: 0, sensorId: typeof id === 'string' ? id : undefined });
}

export function describe(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (x === null) return 'null';
  if (Array.isArray(x)) return `an array of ${x.length}`;
  if (typeof x === 'object') return 'an object';
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x);
  return String(x);
}

/** A meter: (msg.gateway, msg.topic); null for none (a bare number is the one default meter). */
export interface MeterId {
  gateway: string | null;
  topic: string | null;
}

export const meterKey = (m: MeterId): string => JSON.stringify([m.gateway, m.topic]);

/**
 * A stored meter name (gateway or topic): a string, or null for none; undefined when it is
 * neither. Its length is bounded by the stored line's (MAX_STORED_LINE_CHARS): the node
 * counts and stores a meter of any name, so a cap of its own would drop one at restart.
 */
export function storedMeterName(x: unknown): string | null | undefined {
  if (x === null) return null;
  return typeof x === 'string' && x !== '' ? x : undefined;
}

/** A meter as people name it: `DEMO/e1.kwh`, `kitchen`, or `default`. */
export function meterName(m: MeterId): string {
  const topic = m.topic ?? 'default';
  return m.gateway === null ? topic : `${m.gateway}/${topic}`;
}

/** The meter a message's reading belongs to: msg.gateway, and msg.topic or the easy-sensors sensor id. */
export function meterOf(msg: { gateway?: unknown; topic?: unknown }, reading: StreamReading): MeterId {
  return {
    gateway: typeof msg.gateway === 'string' && msg.gateway !== '' ? msg.gateway : null,
    topic: typeof msg.topic === 'string' && msg.topic !== '' ? msg.topic : (reading.sensorId ?? null),
  };
}

/**
 * One warning per sensor that is not an energy meter (an unfiltered easy-sensors node sends
 * every sensor at every poll: warned once, not a flood of Catch), for the first
 * MAX_SENSORS_LISTED sensors; beyond them one warning says the rest are ignored unnamed.
 * What it remembers is bounded: that many keys, each cut to MAX_ID_CHARS characters and
 * its length (two sensors alike in both are warned as one).
 */
export class NotMeterWarnings {
  private readonly warned = new Set<string>();
  private saidTheRest = false;

  /** @param who the node or mode in the words, e.g. `easy-peak` */
  constructor(
    private readonly who: string,
    private readonly warn: (text: string) => void,
    private readonly max = MAX_SENSORS_LISTED,
  ) {}

  /** Sensors named so far (at most `max`; the bound a test holds it to). */
  get named(): number {
    return this.warned.size;
  }

  /** A message of sensor `id` that is no energy meter was ignored; `words`: what to say of it instead of the default. */
  ignored(id: MeterId, words?: string): void {
    if (this.saidTheRest) return; // the set is full and the rest was said: nothing left to do
    const full = meterKey(id);
    const key = full.length > MAX_ID_CHARS ? `${full.slice(0, MAX_ID_CHARS)}…${full.length}` : full;
    if (this.warned.has(key)) return;
    if (this.warned.size < this.max) {
      this.warned.add(key);
      this.warn(words ?? `${this.who} ignores sensor ${shortText(meterName(id))}: it is not an energy meter in kWh ${FILTER_HINT}`);
    } else {
      this.saidTheRest = true;
      this.warn(
        `${this.who} ignores more than ${groupDigits(this.max)} sensors that are not energy meters in kWh: ` +
          `the first ${groupDigits(this.max)} were named, the others are ignored without a warning each ${FILTER_HINT}`,
      );
    }
  }
}

const FILTER_HINT = '(filter easy-sensors to e1.kwh or similar)';
