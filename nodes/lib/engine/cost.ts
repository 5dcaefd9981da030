// computeCost (semantics rules 8-13).
//
// The readings are walked once against segments of constant matching rule (see
// price.ts), generated a few weeks at a time, so no object is made per interval and
// memory beyond the input stays constant. Input that is already clean and sorted
// (the usual case) is costed in that single pass; anything else (garbage, unsorted,
// duplicate timestamps) is copied into typed arrays, cleaned, sorted and walked again.
import { CompiledTariff, SensorRef, Tariff, sensorNumber } from './tariff';
import { SegmentList, appendSegments, engineContext } from './price';
import { DAY_MS, HOUR_MS, ZoneInfo, instantInto, isoResult, parseIsoInto, toEpochMs } from './time';
import { nestedField } from './id-map';

export type Instant = number | Date | string;
export type Reading = [Instant, number | string] | { ts: Instant; value: number | string };

/** Per sensor a timeline of [instant, value] (the value holds from then on), or a constant. */
export type SensorTimelines = {
  [gatewayId: string]: { [sensorId: string]: Array<[Instant, number] | { ts: Instant; value: number }> | number };
};

export interface CostOptions {
  timezone: string;
  sensors?: SensorTimelines;
  attribution?: 'start' | 'prorate';
  maxPowerKw?: number;
}

export interface RuleCost {
  ruleIndex: number;
  priority: number;
  price: number;
  energy: number;
  net: number;
}

export interface Interval {
  from: number;
  to: number;
  fromValue: number;
  toValue: number;
}

/**
 * An interval left out: its average power was above maxPowerKw (`power`), or its energy
 * (or the sums with it, priced at the tariff's highest rate with VAT) would not be a
 * finite number (`overflow`).
 */
export interface RejectedInterval extends Interval {
  energy: number;
  averageKw: number;
  reason: 'power' | 'overflow';
}

export interface DroppedRow {
  index: number; // position in the input
  ts: unknown;
  value: unknown;
  reason: 'row' | 'timestamp' | 'value' | 'duplicate';
}

export interface CostResult {
  net: number;
  gross: number;
  vat: number;
  currency: string;
  energy: number; // kWh counted: priced and unpriced, without resets and rejected intervals
  unpricedEnergy: number;
  intervals: number; // consecutive pairs of clean readings, resets and rejected included
  byRule: RuleCost[]; // rules that priced at least one interval, in evaluation order
  resets: Interval[];
  rejected: RejectedInterval[];
  dropped: DroppedRow[];
  reordered: boolean; // the input was not in time order and has been sorted
  unknownSensors: SensorRef[]; // sensors consulted while unknown within [from, to)
  from: number | null;
  to: number | null;
}

const CHUNK_MS = 32 * DAY_MS;

/** Sensor value changes of all the tariff's sensors, in time order. */
interface SensorEvents {
  at: Float64Array;
  slot: Int32Array;
  value: Float64Array;
  initial: Float64Array; // values before the first event: constants, else unknown
}

function sensorEvents(ct: CompiledTariff, sensors: unknown): SensorEvents {
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
class SegmentCursor {
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

/** What one costing pass adds up. */
interface Totals {
  energyBySlot: Float64Array; // [0] = unpriced, [slot + 1] = rule at slot
  usedBySlot: Uint8Array; // 1 = priced at least one interval
  // [0]. Not a number field: made as the integer 0 and later given a fraction, a field
  // changes its object's shape, which throws away the optimised code using it.
  energy: Float64Array;
  intervals: number;
  resets: Interval[];
  rejected: RejectedInterval[];
  unknown: number[];
}

function emptyTotals(ct: CompiledTariff): Totals {
  const slots = ct.rules.length + 1;
  return {
    energyBySlot: new Float64Array(slots),
    usedBySlot: new Uint8Array(slots),
    energy: new Float64Array(1),
    intervals: 0,
    resets: [],
    rejected: [],
    unknown: [],
  };
}

interface WalkSetup {
  ct: CompiledTariff;
  zone: ZoneInfo;
  events: SensorEvents;
  prorate: boolean;
  maxPowerKw: number;
  /** Counted energy stays at or below this, so every sum and amount is a finite number. */
  energyLimit: number;
}

/** Where the walk reads readings from (see walkBlock). */
const PAIRS = 0; // raw [ts, kWh] rows
const OBJECTS = 1; // raw { ts, value } rows
const CLEANED = 2; // the typed arrays of clean()

/**
 * Rows per walkBlock call. The walk is cut into blocks so that V8 optimises walkBlock
 * as a function called many times, not only by on-stack replacement in the middle of one
 * long loop: OSR code takes the loop's variables over from the interpreter as tagged
 * values, and then boxes every double the loop computes (2-3x slower; seen as whole
 * processes stuck at that speed when the year was one call). V8 can still fall back to
 * OSR code for a few runs after a deoptimisation early on (a field's type widening);
 * the regular code then returns. Blocks of a few thousand rows make the calls' own
 * cost invisible.
 */
const BLOCK = 4096;

/** The walk's state between blocks: doubles kept in a typed array, never boxed. */
const T0 = 0; // the reading before: the start of the next interval
const V0 = 1;
const ENERGY = 2; // energy counted so far
const SEGMENT_END = 3; // the current segment prices intervals starting before this
const SLOT_ENERGY = 4; // energyBySlot[slot] of the current segment's rule, summed here

/**
 * The single pass over the readings: every interval's energy added to the rule of the
 * segment containing its start (or shared by time with `prorate`). Raw rows (PAIRS,
 * OBJECTS) are read optimistically: null at the first row that does not parse, is of
 * another shape or is not strictly later than the one before; the caller then cleans
 * and walks the CLEANED arrays.
 */
function walk(setup: WalkSetup, kind: number, rows: readonly unknown[], cleaned: Cleaned | null, lastTs: number): Totals | null {
  const totals = emptyTotals(setup.ct);
  const cleanTs = cleaned ? cleaned.ts : EMPTY;
  const cleanValues = cleaned ? cleaned.values : EMPTY;
  const n = cleaned ? cleanTs.length : rows.length;
  const w: Walk = {
    state: Float64Array.of(-Infinity, 0, 0, -Infinity, 0),
    slot: 0,
    totals,
    cursor: new SegmentCursor(setup.ct, setup.zone, setup.events, lastTs, totals),
    prorate: setup.prorate,
    maxPowerKw: setup.maxPowerKw,
    energyLimit: setup.energyLimit,
    firstTs: n > 0 ? (cleaned ? cleaned.ts[0] : instantOf(rowTs(rows[0]))) : NaN,
  };
  for (let from = 0; from < n; from += BLOCK) {
    if (!walkBlock(w, kind, rows, cleanTs, cleanValues, from, Math.min(n, from + BLOCK))) return null;
  }
  totals.energyBySlot[w.slot] = w.state[SLOT_ENERGY];
  totals.energy[0] = w.state[ENERGY];
  totals.intervals = n > 0 ? n - 1 : 0;
  return totals;
}

interface Walk {
  state: Float64Array; // T0, V0, ENERGY, SEGMENT_END, SLOT_ENERGY
  slot: number; // index in energyBySlot of the current segment's rule
  totals: Totals;
  cursor: SegmentCursor;
  prorate: boolean;
  maxPowerKw: number;
  energyLimit: number;
  /** The first reading's instant: prorate walks every segment from there, so it bounds how far. */
  firstTs: number;
}

/**
 * Walks rows [from, to): false at a raw row the optimistic pass cannot take.
 *
 * Why it is one flat loop over locals: this runs per row (half a million rows for a
 * year of minutes), and V8 keeps doubles unboxed only in locals of one optimised
 * function. A double passed to a call that is not inlined, or stored in an object
 * field, costs a heap box or a memory round trip per row. So the per-row state lives in
 * locals, loaded from and saved to w.state once per block; the rule's sum is kept in
 * `slotEnergy` and written back to energyBySlot when the segment changes (the same
 * additions in the same order as adding to the array each time: the same result to
 * the last bit). Calls happen only at segment changes, resets and rejected intervals.
 * The shape is fixed for the whole pass (`kind`, decided by the first row), so each
 * field access sees one shape and no per-row "what is this row" dispatch runs.
 */
function walkBlock(
  w: Walk,
  kind: number,
  rows: readonly unknown[],
  cleanTs: Float64Array,
  cleanValues: Float64Array,
  from: number,
  to: number,
): boolean {
  const { state, totals, cursor, prorate, maxPowerKw, energyLimit } = w;
  const energyBySlot = totals.energyBySlot;
  const checkPower = maxPowerKw !== Infinity;
  let t0 = state[T0];
  let v0 = state[V0];
  let energy = state[ENERGY];
  let segmentEnd = state[SEGMENT_END];
  let slotEnergy = state[SLOT_ENERGY];
  let slot = w.slot;
  for (let i = from; i < to; i++) {
    let t1: number;
    let v1: number;
    if (kind === CLEANED) {
      t1 = cleanTs[i];
      v1 = cleanValues[i];
    } else {
      const row = rows[i];
      if (kind === PAIRS) {
        if (!Array.isArray(row)) return false;
        t1 = instantField(row[0]);
        v1 = valueField(row[1]);
      } else {
        if (typeof row !== 'object' || row === null) return false;
        t1 = instantField((row as { ts: unknown }).ts);
        v1 = valueField((row as { value: unknown }).value);
      }
      if (t1 - t1 !== 0 || v1 - v1 !== 0 || !(t1 > t0)) return false; // NaN, infinite or out of order
    }
    if (i > 0) {
      const delta = v1 - v0;
      if (delta < 0) {
        totals.resets.push({ from: t0, to: t1, fromValue: v0, toValue: v1 });
      } else if (!(energy + delta <= energyLimit)) {
        totals.rejected.push({
          from: t0,
          to: t1,
          fromValue: v0,
          toValue: v1,
          energy: delta,
          averageKw: delta / ((t1 - t0) / HOUR_MS),
          reason: 'overflow',
        });
      } else if (checkPower && delta / ((t1 - t0) / HOUR_MS) > maxPowerKw) {
        totals.rejected.push({
          from: t0,
          to: t1,
          fromValue: v0,
          toValue: v1,
          energy: delta,
          averageKw: delta / ((t1 - t0) / HOUR_MS),
          reason: 'power',
        });
      } else {
        energy += delta;
        if (t0 >= segmentEnd) {
          energyBySlot[slot] = slotEnergy;
          cursor.seek(t0);
          segmentEnd = cursor.end;
          slot = cursor.slot;
          slotEnergy = energyBySlot[slot];
        }
        if (t1 <= segmentEnd || !prorate) {
          slotEnergy += delta;
        } else {
          if (t1 - w.firstTs > MAX_PRORATE_SPAN_MS) throw prorateSpanError(t1 - w.firstTs);
          energyBySlot[slot] = slotEnergy;
          shareByTime(cursor, energyBySlot, t0, t1, delta);
          segmentEnd = cursor.end;
          slot = cursor.slot;
          slotEnergy = energyBySlot[slot];
        }
      }
    }
    t0 = t1;
    v0 = v1;
  }
  state[T0] = t0;
  state[V0] = v0;
  state[ENERGY] = energy;
  state[SEGMENT_END] = segmentEnd;
  state[SLOT_ENERGY] = slotEnergy;
  w.slot = slot;
  return true;
}

const EMPTY = new Float64Array(0);

/** Prorate visits every price change between the readings: more than a century of them is a unit mistake, and minutes of work. */
const MAX_PRORATE_SPAN_MS = 100 * 366 * DAY_MS;

function prorateSpanError(spanMs: number): RangeError {
  return new RangeError(
    `prorate: the readings span more than 100 years (${Math.round(spanMs / DAY_MS)} days); check the unit of the timestamps`,
  );
}

/**
 * Epoch ms of a reading's timestamp field, NaN if it is none; inlined into the walk.
 * Written so that every way out is a plain double, never a tagged value: V8's
 * optimiser does not narrow x's type after `typeof` and treats the global `NaN` in a
 * branch it has not seen run as any value, and a result merging a tagged value with a
 * double boxes the double, 16 bytes per row. So a number leaves as `x - 0`, and
 * anything else through isoResult (parseIsoInto's fast path, or instantInto, which
 * stores NaN there when x is no instant).
 */
function instantField(x: unknown): number {
  if (typeof x === 'number') return x - 0;
  if (typeof x !== 'string' || !parseIsoInto(x)) instantInto(x);
  return isoResult[0];
}

/** A reading's value field as a number, NaN if it is none (a plain double, as above). */
function valueField(x: unknown): number {
  return typeof x === 'number' ? x - 0 : readingValue(x) - 0;
}

/** Shares the energy of an interval among the segments it crosses, by time (prorate). */
function shareByTime(cursor: SegmentCursor, energyBySlot: Float64Array, t0: number, t1: number, delta: number): void {
  const duration = t1 - t0;
  for (let start = t0; ;) {
    const end = cursor.end < t1 ? cursor.end : t1;
    energyBySlot[cursor.slot] += delta * ((end - start) / duration);
    if (end >= t1) return;
    start = end;
    cursor.seek(start);
  }
}

/** Timestamp and value fields of a reading row; undefined fields when it is no row. */
function rowTs(row: unknown): unknown {
  return Array.isArray(row) ? row[0] : typeof row === 'object' && row !== null ? (row as { ts: unknown }).ts : undefined;
}
function rowValue(row: unknown): unknown {
  return Array.isArray(row) ? row[1] : typeof row === 'object' && row !== null ? (row as { value: unknown }).value : undefined;
}
const isRow = (row: unknown): boolean => typeof row === 'object' && row !== null;

function instantOf(x: unknown): number {
  if (typeof x === 'number') return x - x === 0 ? x : NaN; // finite
  const ms = toEpochMs(x);
  return ms === null ? NaN : ms;
}
function readingValue(x: unknown): number {
  return typeof x === 'number' ? (x - x === 0 ? x : NaN) : sensorNumber(x);
}

interface Cleaned {
  ts: Float64Array;
  values: Float64Array;
  dropped: DroppedRow[];
  reordered: boolean;
}

/** semantics rule 9: drop what does not parse, sort stably, keep the last of equal timestamps. */
function clean(readings: readonly unknown[]): Cleaned {
  const n = readings.length;
  const ts = new Float64Array(n);
  const values = new Float64Array(n);
  const dropped: DroppedRow[] = [];
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const row = readings[i];
    const t = instantOf(rowTs(row));
    const v = readingValue(rowValue(row));
    const reason = !isRow(row) ? 'row' : t !== t ? 'timestamp' : v !== v ? 'value' : null;
    if (reason) {
      dropped.push({ index: i, ts: rowTs(row), value: rowValue(row), reason });
      continue;
    }
    ts[i] = t;
    values[i] = v;
    order.push(i);
  }
  let reordered = false;
  for (let k = 1; k < order.length && !reordered; k++) reordered = ts[order[k]] < ts[order[k - 1]];
  if (reordered) order.sort((a, b) => ts[a] - ts[b] || a - b);
  let kept = 0;
  const outTs = new Float64Array(order.length);
  const outValues = new Float64Array(order.length);
  for (let k = 0; k < order.length; k++) {
    const i = order[k];
    if (k + 1 < order.length && ts[order[k + 1]] === ts[i]) {
      dropped.push({ index: i, ts: rowTs(readings[i]), value: rowValue(readings[i]), reason: 'duplicate' });
      continue;
    }
    outTs[kept] = ts[i];
    outValues[kept] = values[i];
    kept++;
  }
  dropped.sort((a, b) => a.index - b.index);
  return { ts: outTs.subarray(0, kept), values: outValues.subarray(0, kept), dropped, reordered };
}

/**
 * Cost of cumulative kWh readings under a tariff: net, gross, energy per rule, and
 * every reading or interval left out with the reason (semantics rules 8-13).
 */
export function computeCost(tariff: Tariff | unknown, readings: readonly Reading[] | readonly unknown[], options: CostOptions): CostResult {
  const { ct, zone } = engineContext(tariff, options);
  if (!Array.isArray(readings)) throw new TypeError('readings must be an array of [timestamp, kWh] pairs or { ts, value } objects');
  const attribution = options.attribution ?? 'start';
  if (attribution !== 'start' && attribution !== 'prorate') {
    throw new TypeError(`attribution must be "start" or "prorate", got ${JSON.stringify(attribution)}`);
  }
  const maxPowerKw = options.maxPowerKw ?? Infinity;
  if (typeof maxPowerKw !== 'number' || !(maxPowerKw >= 0))
    throw new TypeError(`maxPowerKw must be a non-negative number, got ${String(maxPowerKw)}`);
  const setup: WalkSetup = {
    ct,
    zone,
    events: sensorEvents(ct, options.sensors),
    prorate: attribution === 'prorate',
    maxPowerKw,
    energyLimit: energyLimit(ct),
  };
  const n = readings.length;
  const lastTs = n > 0 ? instantOf(rowTs(readings[n - 1])) : NaN;
  // The optimistic pass needs a valid last timestamp to bound its segments.
  const kind = Array.isArray(readings[0]) ? PAIRS : OBJECTS;
  const fast = lastTs === lastTs ? walk(setup, kind, readings, null, lastTs) : null;
  if (fast || n === 0) return result(ct, fast ?? emptyTotals(ct), null, n > 0 ? [instantOf(rowTs(readings[0])), lastTs] : []);
  const cleaned = clean(readings);
  const ts = cleaned.ts;
  // Never null: cleaned readings are finite and strictly increasing.
  return result(ct, walk(setup, CLEANED, readings, cleaned, ts.length > 0 ? ts[ts.length - 1] : NaN) as Totals, cleaned, ts);
}

/**
 * The most energy whose cost stays finite: every rule's net is at most its energy times
 * the highest absolute rate, the sum of their sizes at most all energy times it, gross
 * that times the VAT factor; half of Number.MAX_VALUE leaves room for rounding. Divided
 * step by step so that the bound itself cannot overflow.
 */
function energyLimit(ct: CompiledTariff): number {
  let highestRate = 1;
  for (const rule of ct.rules) highestRate = Math.max(highestRate, Math.abs(rule.price));
  return Number.MAX_VALUE / 2 / highestRate / Math.max(1, Math.abs(1 + ct.vat / 100));
}

function result(ct: CompiledTariff, totals: Totals, cleaned: Cleaned | null, ts: ArrayLike<number>): CostResult {
  const byRule: RuleCost[] = [];
  let net = 0;
  ct.rules.forEach((rule, slot) => {
    if (totals.usedBySlot[slot + 1] === 0) return;
    const energy = totals.energyBySlot[slot + 1];
    const ruleNet = energy * rule.price;
    net += ruleNet;
    byRule.push({ ruleIndex: rule.ruleIndex, priority: rule.priority, price: rule.price, energy, net: ruleNet });
  });
  return {
    net,
    gross: net * (1 + ct.vat / 100),
    vat: ct.vat,
    currency: ct.currency,
    energy: totals.energy[0],
    unpricedEnergy: totals.energyBySlot[0],
    intervals: totals.intervals,
    byRule,
    resets: totals.resets,
    rejected: totals.rejected,
    dropped: cleaned ? cleaned.dropped : [],
    reordered: cleaned ? cleaned.reordered : false,
    unknownSensors: totals.unknown.map((s) => ({ ...ct.sensors[s] })),
    from: ts.length > 0 ? ts[0] : null,
    to: ts.length > 0 ? ts[ts.length - 1] : null,
  };
}
