// The walk's view of the tariff over time: segments of constant matching rule, with the
// sensors' timelines applied as the walk moves forward (semantics rule 11).
import { CompiledTariff, sensorNumber } from './tariff';
import { SegmentList, appendSegments } from './price';
import { DAY_MS, ZoneInfo, toEpochMs } from './time';
import { nestedField } from './id-map';
import type { Totals } from './cost-walk';

const CHUNK_MS = 32 * DAY_MS;

/** Sensor value changes of all the tariff's sensors, in time order. */
export interface SensorEvents {
  at: Float64Array;
  slot: Int32Array;
  value: Float64Array;
  initial: Float64Array; // values before the first event: constants, else unknown
}

export function sensorEvents(ct: CompiledTariff, sensors: unknown): SensorEvents {
  const initial = new Float64Array(ct.sensors.length).fill(NaN);
  const events: Array<{ at: number; slot: number; value: number }> = [];
  ct.sensors.forEach((ref, slot) => {
    const timeline = nestedField(sensors, ref.gatewayId, ref.sensorId);
    if (timeline === undefined || timeline === null) return;
    if (!Array.isArray(timeline)) {
      initial[slot] = sensorNumber(timeline);
      return;
    }
    timeline.forEach((entry: unknown, k: number) => {
      const [ts, value] = Array.isArray(entry)
        ? entry
        : typeof entry === 'object' && entry !== null
          ? [(entry as { ts: unknown }).ts, (entry as { value: unknown }).value]
          : [undefined, undefined];
      const at = toEpochMs(ts);
      if (at === null) {
        throw new TypeError(
          `sensors.${ref.gatewayId}.${ref.sensorId}[${k}]: timestamp must be epoch milliseconds, a Date or an ISO 8601 string`,
        );
      }
      events.push({ at, slot, value: sensorNumber(value) });
    });
  });
  events.sort((a, b) => a.at - b.at); // stable: of equal instants the last given wins
  return {
    at: Float64Array.from(events, (e) => e.at),
    slot: Int32Array.from(events, (e) => e.slot),
    value: Float64Array.from(events, (e) => e.value),
    initial,
  };
}

/**
 * The current segment of constant matching rule, moved forward through time. Used only
 * when the walk leaves a segment (a few times a day), never per row.
 */
export class SegmentCursor {
  slot = 0; // position in ct.rules + 1 of the rule matching in the segment, 0 = no rule
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
    for (let from = a; from < b;) {
      const to = this.nextEvent < ev.at.length && ev.at[this.nextEvent] < b ? ev.at[this.nextEvent] : b;
      appendSegments(this.ct, this.zone, this.values, from, to, this.segments, this.totals.unknown);
      this.applyEventsUpTo(to);
      from = to;
    }
    this.chunkEnd = b;
  }
}
