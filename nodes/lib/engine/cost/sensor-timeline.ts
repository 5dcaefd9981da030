// A sensor's timeline from outside: [instant, value] pairs or { ts, value } objects,
// the value holding from its instant on (SPEC: the value at an instant is the last one
// at or before it). One reader for computeCost's sensors, splitBy and sensorRuns.
import { sensorNumber } from '../tariff/tariff';
import { toEpochMs } from '../time/time';

/** A timeline entry: epoch ms and the value (NaN = unknown from then on). */
export interface SensorSample {
  at: number;
  value: number;
}

/**
 * The entries of a timeline in input order; an entry whose instant does not parse is an
 * error naming it (`label[k]`), a value that is no number makes the sensor unknown from
 * then on, as a live reading that cannot be read would.
 */
export function timelineSamples(timeline: readonly unknown[], label: string): SensorSample[] {
  return timeline.map((entry: unknown, k: number) => {
    const [ts, value] = Array.isArray(entry)
      ? entry
      : typeof entry === 'object' && entry !== null
        ? [(entry as { ts: unknown }).ts, (entry as { value: unknown }).value]
        : [undefined, undefined];
    const at = toEpochMs(ts);
    if (at === null) {
      throw new TypeError(`${label}[${k}]: timestamp must be epoch milliseconds, a Date or an ISO 8601 string`);
    }
    return { at, value: sensorNumber(value) };
  });
}

/** Samples in time order, stable: of two with one instant the later in input order comes last. */
export function sortedSamples(samples: SensorSample[]): SensorSample[] {
  return samples.sort((a, b) => a.at - b.at);
}
