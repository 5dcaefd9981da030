// sensorRuns: how long a sensor (a generator's digital input) was on, off and unknown
// over a range, how often it started, and its runs (docs/semantics.md, sensor runs).
import { sensorNumber } from '../tariff/tariff';
import { requireEpochMs } from '../time/time';
import { sortedSamples, timelineSamples } from '../cost/sensor-timeline';
import type { Instant } from '../cost/readings';

export interface SensorRun {
  from: number;
  to: number;
}

export interface SensorRunsResult {
  onMs: number;
  offMs: number;
  unknownMs: number;
  /** Instants in [from, to) where the value became `on` from a known other value (one at `from` counts: periods add up). */
  starts: number;
  /** Maximal on-intervals, clipped to [from, to), in order. */
  runs: SensorRun[];
}

export interface SensorRunsOptions {
  /** The value that means "running" (default 1), compared numerically ("1" equals 1). */
  on?: number | string;
}

/**
 * Time on, off and unknown of a sensor over [from, to). The value at an instant is the
 * last sample at or before it (of two with one instant, the later in input order);
 * before the first sample, and after a sample that is no number, it is unknown.
 */
export function sensorRuns(
  timeline: ReadonlyArray<[Instant, number | string] | { ts: Instant; value: number | string }> | readonly unknown[],
  from: Instant,
  to: Instant,
  options: SensorRunsOptions = {},
): SensorRunsResult {
  if (!Array.isArray(timeline)) throw new TypeError('timeline must be an array of [timestamp, value] pairs or { ts, value } objects');
  const a = requireEpochMs(from, 'from');
  const b = requireEpochMs(to, 'to');
  if (b < a) throw new RangeError(`to must not be before from (from ${new Date(a).toISOString()}, to ${new Date(b).toISOString()})`);
  const on = options.on === undefined ? 1 : sensorNumber(options.on);
  if (on !== on) throw new TypeError(`on must be a number, got ${JSON.stringify(options.on)}`);
  const samples = sortedSamples(timelineSamples(timeline, 'timeline'));
  const out: SensorRunsResult = { onMs: 0, offMs: 0, unknownMs: 0, starts: 0, runs: [] };
  let k = 0;
  let before = NaN; // just before `from`
  while (k < samples.length && samples[k].at < a) before = samples[k++].value;
  let value = before; // at `at`
  while (k < samples.length && samples[k].at === a) value = samples[k++].value;
  // a start exactly at `from` belongs to the period it begins (docs/semantics.md rule 15)
  if (a < b && value === on && before === before && before !== on) out.starts++;
  for (let at = a; at < b;) {
    // The next instant where a sample lands; the last sample of that instant sets the value.
    const next = k < samples.length && samples[k].at < b ? samples[k].at : b;
    addPiece(out, at, next, value, on);
    if (next === b) break;
    let nextValue = value;
    while (k < samples.length && samples[k].at === next) nextValue = samples[k++].value;
    if (nextValue === on && value === value && value !== on) out.starts++;
    value = nextValue;
    at = next;
  }
  return out;
}

/** Adds [from, to) at constant `value`, merging an on-piece into the run before it. */
function addPiece(out: SensorRunsResult, from: number, to: number, value: number, on: number): void {
  if (to <= from) return;
  if (value !== value) {
    out.unknownMs += to - from;
  } else if (value === on) {
    out.onMs += to - from;
    const last = out.runs[out.runs.length - 1];
    if (last && last.to === from) last.to = to;
    else out.runs.push({ from, to });
  } else {
    out.offMs += to - from;
  }
}
