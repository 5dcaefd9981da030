// The walk's view of the tariff over time: segments of constant matching rule, with the
// sensors' timelines applied as the walk moves forward (semantics rule 11).
import { CompiledTariff, SensorRef, sensorNumber } from '../tariff/tariff';
import { SegmentList, appendSegments, walkSegments } from '../tariff/price';
import { DAY_MS, ZoneInfo } from '../time/time';
import { MAX_SPLIT_VALUES } from '../common/limits';
import { sortedSamples, timelineSamples } from './sensor-timeline';
import { nestedField } from '../common/id-map';
import type { Totals } from './walk-totals';

const CHUNK_MS = 32 * DAY_MS;

/** Sensor value changes of all the tariff's sensors (and of splitBy's), in time order. */
export interface SensorEvents {
  at: Float64Array;
  slot: Int32Array;
  value: Float64Array;
  initial: Float64Array; // values before the first event: constants, else unknown
  split: SplitSensor | null;
}

/**
 * splitBy's sensor: its slot in the values (a tariff sensor's own, or one past them),
 * and its known values, ascending; group 0 is "unknown", group 1 + k holds known[k].
 */
export interface SplitSensor {
  slot: number;
  known: number[];
  groupOf: Map<number, number>;
}

export function sensorEvents(ct: CompiledTariff, sensors: unknown, splitBy: SensorRef | null = null): SensorEvents {
  let splitSlot = -1;
  const refs = ct.sensors.slice();
  if (splitBy) {
    splitSlot = refs.findIndex((ref) => ref.gatewayId === splitBy.gatewayId && ref.sensorId === splitBy.sensorId);
    if (splitSlot < 0) splitSlot = refs.push(splitBy) - 1;
  }
  const initial = new Float64Array(refs.length).fill(NaN);
  const events: Array<{ at: number; slot: number; value: number }> = [];
  refs.forEach((ref, slot) => {
    const timeline = nestedField(sensors, ref.gatewayId, ref.sensorId);
    if (timeline === undefined || timeline === null) return;
    if (!Array.isArray(timeline)) {
      initial[slot] = sensorNumber(timeline);
      return;
    }
    for (const { at, value } of timelineSamples(timeline, `sensors.${ref.gatewayId}.${ref.sensorId}`)) {
      events.push({ at, slot, value });
    }
  });
  sortedSamples(events);
  return {
    at: Float64Array.from(events, (e) => e.at),
    slot: Int32Array.from(events, (e) => e.slot),
    value: Float64Array.from(events, (e) => e.value),
    initial,
    split: splitSlot < 0 ? null : splitSensor(splitSlot, initial[splitSlot], events),
  };
}

function splitSensor(slot: number, initial: number, events: Array<{ slot: number; value: number }>): SplitSensor {
  const distinct = new Set<number>();
  if (initial === initial) distinct.add(initial === 0 ? 0 : initial);
  for (const e of events) {
    if (e.slot !== slot || e.value !== e.value) continue;
    distinct.add(e.value === 0 ? 0 : e.value); // -0 is 0
    if (distinct.size > MAX_SPLIT_VALUES) {
      throw new RangeError(
        `splitBy: the sensor takes more than ${MAX_SPLIT_VALUES} different values; split by a digital input or a sensor with few states`,
      );
    }
  }
  const known = [...distinct].sort((a, b) => a - b);
  return { slot, known, groupOf: new Map(known.map((v, k) => [v, k + 1])) };
}

/**
 * The current segment of constant matching rule, moved forward through time. Used only
 * when the walk leaves a segment (a few times a day), never per row.
 */
export class SegmentCursor {
  // position in ct.rules + 1 of the rule matching in the segment, 0 = no rule; with
  // splitBy plus the split value's group times (ct.rules.length + 1)
  slot = 0;
  end = -Infinity; // exclusive end of the current segment
  private readonly segments = new SegmentList(); // of the current chunk
  private k = 0;
  private chunkEnd = -Infinity;
  private nextEvent = 0;
  private readonly values: Float64Array;

  constructor(
    private readonly ct: CompiledTariff,
    private readonly zone: ZoneInfo,
    private readonly events: SensorEvents,
    private readonly limit: number, // segments are never needed at or after this instant
    // Whole, not its two arrays: with typed-array fields of its own the cursor's seek,
    // inlined into the walk, lost its optimised code and the walk boxed every row (bench).
    private readonly totals: Totals,
  ) {
    this.values = events.initial.slice();
  }

  /**
   * Moves to the segment containing t, whose rule is about to price (part of) an
   * interval, and marks that rule used; t never decreases from one call to the next.
   */
  seek(t: number): void {
    if (t >= this.chunkEnd) this.load(t);
    const { starts, slots, length } = this.segments;
    while (this.k + 1 < length && starts[this.k + 1] <= t) this.k++;
    this.slot = slots[this.k] + 1;
    this.end = this.k + 1 < length ? starts[this.k + 1] : this.chunkEnd;
    this.totals.usedBySlot[this.slot] = 1;
  }

  private applyEventsUpTo(t: number): void {
    const ev = this.events;
    while (this.nextEvent < ev.at.length && ev.at[this.nextEvent] <= t) {
      this.values[ev.slot[this.nextEvent]] = ev.value[this.nextEvent];
      this.nextEvent++;
    }
  }

  private load(a: number): void {
    const b = Math.max(a + 1, Math.min(a + CHUNK_MS, this.limit));
    this.segments.length = 0;
    this.k = 0;
    const ev = this.events;
    this.applyEventsUpTo(a);
    const split = ev.split;
    // splitBy's own sensor sits past the tariff's: the rules see only theirs
    const values = split && split.slot >= this.ct.sensors.length ? this.values.subarray(0, this.ct.sensors.length) : this.values;
    for (let from = a; from < b;) {
      const to = this.nextEvent < ev.at.length && ev.at[this.nextEvent] < b ? ev.at[this.nextEvent] : b;
      if (split) this.appendSplit(split, values, from, to);
      else appendSegments(this.ct, this.zone, values, from, to, this.segments, this.totals.unknown);
      this.applyEventsUpTo(to);
      from = to;
    }
    this.chunkEnd = b;
  }

  /**
   * Segments of constant rule and split value over [from, to), where the split sensor's
   * value is constant: each rule slot moved to the block of energyBySlot of that value's
   * group (the group times the number of slots), so that a value change starts a segment.
   */
  private appendSplit(split: SplitSensor, values: Float64Array, from: number, to: number): void {
    const value = this.values[split.slot];
    const offset = (value === value ? (split.groupOf.get(value) as number) : 0) * (this.ct.rules.length + 1);
    const segments = this.segments;
    walkSegments(this.ct, this.zone, values, from, to, this.totals.unknown, (at, slot) => {
      segments.push(at, slot + offset);
      return true;
    });
  }
}
