// The matching rule as a function of the local time of day, for one ISO weekday and one
// set of sensor values: a "day profile". Between two of the tariff's boundary times no
// rule starts or stops applying, so the day is cut there into intervals and each gets
// the first rule (in priority order) covering it. A sweep over the rules in priority
// order fills each interval once (skipping filled ones through a next-unfilled pointer
// chain), so a profile costs O(rules + intervals) instead of O(rules) per boundary.
// Profiles are cached with the compiled tariff, so a day is evaluated once and then
// read in O(1) per boundary.
import { CompiledTariff, TIME_ALWAYS, TIME_WRAPS } from './tariff';
import { DAY_MS } from '../time/time';

export interface DayProfile {
  /** slots[i]: position in ct.rules of the rule matching in interval i, -1 = none. */
  slots: Int32Array;
  /**
   * Sensor slots consulted while unknown in interval i (before its match): bits
   * i * words … (i + 1) * words - 1, bit s for sensor slot s. null when none anywhere.
   */
  unknownBits: Uint32Array | null;
  words: number;
}

export interface DayCuts {
  /** Local times of day (ms) where an interval starts: 0 and every boundary, ascending. */
  starts: number[];
  /** Whether some rule depends on the weekday (else one profile serves every day). */
  byWeekday: boolean;
  /** Per rule (at 4 × its slot): the intervals it covers, [a, b) and [c, d) (empty unless it wraps). */
  ruleRanges: Int32Array;
}

// A profile per (weekday, sensor values); sensor values read from outside may take any
// number of combinations, so the cache is emptied when it is full.
const MAX_PROFILES = 32;

interface ProfileCache {
  cuts: DayCuts;
  profiles: Map<string, DayProfile>;
}

const caches = new WeakMap<CompiledTariff, ProfileCache>();

function cacheOf(ct: CompiledTariff): ProfileCache {
  let cache = caches.get(ct);
  if (!cache) {
    const starts = ct.boundariesMs[0] === 0 ? ct.boundariesMs.slice() : [0].concat(ct.boundariesMs);
    const indexOf = new Map<number, number>();
    starts.forEach((ms, i) => indexOf.set(ms, i));
    const n = starts.length;
    const index = (ms: number): number => (ms === DAY_MS ? n : (indexOf.get(ms) as number));
    const ruleRanges = new Int32Array(4 * ct.rules.length);
    ct.rules.forEach((r, slot) => {
      const k = 4 * slot;
      if (r.timeKind === TIME_ALWAYS) ruleRanges[k + 1] = n;
      else if (r.timeKind === TIME_WRAPS) ruleRanges.set([index(r.startMs), n, 0, index(r.endMs)], k);
      else ruleRanges.set([index(r.startMs), index(r.endMs)], k);
    });
    const byWeekday = ct.rules.some((r) => r.weekdayMask !== 0);
    cache = { cuts: { starts, byWeekday, ruleRanges }, profiles: new Map() };
    caches.set(ct, cache);
  }
  return cache;
}

export function dayCuts(ct: CompiledTariff): DayCuts {
  return cacheOf(ct).cuts;
}

/** The index of the interval holding local time of day `timeOfDay` (last start <= it). */
export function intervalAt(cuts: DayCuts, timeOfDay: number): number {
  const starts = cuts.starts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= timeOfDay) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A cache key for a set of sensor values (NaN = unknown). */
export function valuesKey(values: Float64Array): string {
  let key = '';
  for (let s = 0; s < values.length; s++) key += `${values[s]},`;
  return key;
}

/** The profile of ISO weekday `isoWeekday` (1..7) for these sensor values. */
export function dayProfile(ct: CompiledTariff, values: Float64Array, key: string, isoWeekday: number): DayProfile {
  const cache = cacheOf(ct);
  const weekday = cache.cuts.byWeekday ? isoWeekday : 0;
  const fullKey = `${weekday}|${key}`;
  let profile = cache.profiles.get(fullKey);
  if (!profile) {
    if (cache.profiles.size >= MAX_PROFILES) cache.profiles.clear();
    profile = sweep(ct, cache.cuts, values, weekday);
    cache.profiles.set(fullKey, profile);
  }
  return profile;
}

function sweep(ct: CompiledTariff, cuts: DayCuts, values: Float64Array, weekday: number): DayProfile {
  const n = cuts.starts.length;
  const ranges = cuts.ruleRanges;
  const slots = new Int32Array(n).fill(-1);
  // next[i]: the first unfilled interval >= i (n = none); path halving keeps chains short
  const next = new Int32Array(n + 1);
  for (let i = 0; i <= n; i++) next[i] = i;
  const find = (i: number): number => {
    while (next[i] !== i) {
      next[i] = next[next[i]];
      i = next[i];
    }
    return i;
  };
  const fill = (from: number, to: number, slot: number): void => {
    for (let i = find(from); i < to; i = find(i + 1)) {
      slots[i] = slot;
      next[i] = i + 1;
    }
  };
  const words = (ct.sensors.length + 31) >> 5;
  let unknownBits: Uint32Array | null = null;
  // marks the sensor as consulted while unknown wherever no earlier rule matched
  const mark = (from: number, to: number, sensorSlot: number): void => {
    const bits = (unknownBits ??= new Uint32Array(n * words));
    const word = sensorSlot >> 5;
    const bit = 1 << (sensorSlot & 31);
    for (let i = find(from); i < to; i = find(i + 1)) bits[i * words + word] |= bit;
  };
  const weekdayBit = 1 << weekday;

  for (let slot = 0; slot < ct.rules.length && find(0) < n; slot++) {
    const r = ct.rules[slot];
    if (r.weekdayMask !== 0 && (r.weekdayMask & weekdayBit) === 0) continue;
    const k = 4 * slot;
    if (r.sensorSlot >= 0) {
      if (r.sensorNever) continue;
      const v = values[r.sensorSlot];
      if (v !== v) {
        mark(ranges[k], ranges[k + 1], r.sensorSlot);
        mark(ranges[k + 2], ranges[k + 3], r.sensorSlot);
        continue;
      }
      if (v !== r.sensorValue) continue;
    }
    fill(ranges[k], ranges[k + 1], slot);
    fill(ranges[k + 2], ranges[k + 3], slot);
  }
  return { slots, unknownBits, words };
}
