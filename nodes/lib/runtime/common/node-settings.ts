// Number settings of a node from the flow file (an import, a hand edit, an old version's
// flow) checked at deploy: the editor validates the same bounds, but the runtime must not
// trust that a flow came through it. Out of range is clamped, with a warning to show once;
// a setting that changes what is counted (maxPowerKw) is an error in words instead.
import { DEFAULT_MAX_POWER_KW } from '../../engine/common/limits';

export interface BoundedSpec {
  /** The setting as the user knows it, for the warning: "refresh", "interval". */
  name: string;
  /** Unit words for the warning: "min", "s". */
  unit: string;
  /** What the node then does, for the warning: "polling every". */
  using: string;
  min: number;
  max: number;
  /** Used when the setting is missing, not a number, zero or negative. */
  fallback: number;
}

/** The value to use, and the warning to log once when it was clamped (null when not). */
export function boundedSetting(raw: unknown, spec: BoundedSpec): { value: number; warning: string | null } {
  const n = typeof raw === 'number' || (typeof raw === 'string' && raw.trim() !== '') ? Number(raw) : NaN;
  if (!(n > 0) || n === Infinity) return { value: spec.fallback, warning: null };
  if (n < spec.min)
    return { value: spec.min, warning: `${spec.name} ${n} ${spec.unit} is below the minimum: ${spec.using} ${spec.min} ${spec.unit}` };
  if (n > spec.max)
    return { value: spec.max, warning: `${spec.name} ${n} ${spec.unit} is above the maximum: ${spec.using} ${spec.max} ${spec.unit}` };
  return { value: n, warning: null };
}

/** easy-tariff's tariff refresh, in minutes: no faster than once a minute, at least once a week. */
export const TARIFF_REFRESH: BoundedSpec = {
  name: 'refresh',
  unit: 'min',
  using: 'refreshing every',
  min: 1,
  max: 7 * 24 * 60,
  fallback: 60,
};

/** easy-sensors' poll interval, in seconds: between 10 s and a day. */
export const SENSOR_INTERVAL: BoundedSpec = { name: 'interval', unit: 's', using: 'polling every', min: 10, max: 24 * 3600, fallback: 60 };

/** The longest chart easy-tariff draws: a week. */
export const MAX_CHART_DAYS = 7;

/** The days a chart request asks for (`msg.days`, default 1 = the next 24 h); a TypeError a user understands otherwise. */
export function chartDays(value: unknown): number {
  if (value === undefined || value === null || value === '') return 1;
  // digits only: "0x7", "7 " or "1e0" are not a number of days a user meant
  const days = typeof value === 'string' ? (/^[0-9]+$/.test(value) ? Number(value) : NaN) : value;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_CHART_DAYS) {
    throw new TypeError(`msg.days must be a whole number of days from 1 to ${MAX_CHART_DAYS}, got ${JSON.stringify(value)}`);
  }
  return days;
}

/** The *highest power* setting's bounds (kW): a meter's connection is far below the top, the bottom still a rise a meter can make. */
export const MAX_POWER_SETTING = { min: 0.001, max: 1e6 };

/**
 * The *highest power* setting (semantics rule 10: a rise of one meter faster than this is a
 * jump, not usage), in kW, of easy-cost and easy-peak: empty is DEFAULT_MAX_POWER_KW, else a
 * number from 0.001 to 1,000,000, or an Error naming the setting and what was given.
 */
export function maxPowerSetting(raw: unknown): number {
  const t = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : '';
  if (t === '') return DEFAULT_MAX_POWER_KW;
  const kw = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  const { min, max } = MAX_POWER_SETTING;
  if (!(kw >= min && kw <= max))
    throw new Error(`the highest power of a meter (kW) must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return kw;
}
