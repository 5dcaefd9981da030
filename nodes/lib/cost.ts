// computeCost (SPEC rules 8-13).
//
// The readings are walked once against segments of constant matching rule (see
// price.ts), generated a few weeks at a time, so no object is made per interval and
// memory beyond the input stays constant. Input that is already clean and sorted
// (the usual case) is costed in that single pass; anything else (garbage, unsorted,
// duplicate timestamps) is copied into typed arrays, cleaned, sorted and walked again.
import { CompiledTariff, SensorRef, Tariff, sensorNumber } from './tariff';
import { SegmentList, appendSegments, engineContext } from './price';
import { DAY_MS, HOUR_MS, ZoneInfo, instantInto, isoResult, toEpochMs } from './time';

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
  rejected: Array<Interval & { energy: number; averageKw: number }>;
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
    const gateway = typeof sensors === 'object' && sensors !== null ? (sensors as Record<string, unknown>)[ref.gatewayId] : undefined;
    const timeline = typeof gateway === 'object' && gateway !== null ? (gateway as Record<string, unknown>)[ref.sensorId] : undefined;
    if (timeline === undefined || timeline === null) return;
    if (!Array.isArray(timeline)) {
      initial[slot] = sensorNumber(timeline);
      return;
    }
    timeline.forEach((entry: unknown, k: number) => {
      const [ts, value] = Array.isArray(entry) ? entry : typeof entry === 'object' && entry !== null ? [(entry as { ts: unknown }).ts, (entry as { value: unknown }).value] : [undefined, undefined];
      const at = toEpochMs(ts);
      if (at === null) {
        throw new TypeError(`sensors.${ref.gatewayId}.${ref.sensorId}[${k}]: timestamp must be epoch milliseconds, a Date or an ISO 8601 string`);
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

/** The current segment of constant matching rule, moved forward through time. */
class SegmentCursor {
  slot = -1; // position in ct.rules, -1 = no rule matches
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
    readonly unknown: number[],
  ) {
    this.values = events.initial.slice();
  }

  /** Moves to the segment containing t; t never decreases from one call to the next. */
  seek(t: number): void {
    if (t >= this.chunkEnd) this.load(t);
    const { starts, slots, length } = this.segments;
    while (this.k + 1 < length && starts[this.k + 1] <= t) this.k++;
    this.slot = slots[this.k];
    this.end = this.k + 1 < length ? starts[this.k + 1] : this.chunkEnd;
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
    for (let from = a; from < b; ) {
      const to = this.nextEvent < ev.at.length && ev.at[this.nextEvent] < b ? ev.at[this.nextEvent] : b;
      appendSegments(this.ct, this.zone, this.values, from, to, this.segments, this.unknown);
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
  energy: Float64Array; // [0]: a typed array, so the loop never stores a named field
  intervals: number;
  resets: Interval[];
  rejected: Array<Interval & { energy: number; averageKw: number }>;
  unknown: number[];
}

function emptyTotals(ct: CompiledTariff): Totals {
  const slots = ct.rules.length + 1;
  return { energyBySlot: new Float64Array(slots), usedBySlot: new Uint8Array(slots), energy: new Float64Array(1), intervals: 0, resets: [], rejected: [], unknown: [] };
}

interface WalkSetup {
  ct: CompiledTariff;
  zone: ZoneInfo;
  events: SensorEvents;
  prorate: boolean;
  maxPowerKw: number;
}

/**
 * Adds intervals to the totals. The numbers of the interval come through `edge`, a
 * typed array, not as arguments: doubles passed to a call (or merged with a branch the
 * optimiser has not seen run) get boxed on the heap, one allocation per row.
 */
class Walker {
  /** [from, fromValue, to, toValue] of the interval to add; step() then makes `to` the next `from`. */
  readonly edge = new Float64Array(4);
  readonly totals: Totals;
  private readonly energy: Float64Array; // the totals' arrays, one load nearer
  private readonly energyBySlot: Float64Array;
  private readonly cursor: SegmentCursor;
  private readonly prorate: boolean;
  private readonly maxPowerKw: number;
  private readonly checkPower: boolean;
  private segmentEnd = -Infinity;
  private slotIndex = 0; // slot + 1 of the current segment

  constructor(setup: WalkSetup, lastTs: number) {
    this.totals = emptyTotals(setup.ct);
    this.energy = this.totals.energy;
    this.energyBySlot = this.totals.energyBySlot;
    this.cursor = new SegmentCursor(setup.ct, setup.zone, setup.events, lastTs, this.totals.unknown);
    this.prorate = setup.prorate;
    this.maxPowerKw = setup.maxPowerKw;
    this.checkPower = setup.maxPowerKw !== Infinity;
  }

  /** Takes the first reading (in edge[2], edge[3]) as the start of the first interval. */
  start(): void {
    this.edge[0] = this.edge[2];
    this.edge[1] = this.edge[3];
  }

  step(): void {
    const e = this.edge;
    const t0 = e[0];
    const t1 = e[2];
    const delta = e[3] - e[1];
    const totals = this.totals;
    if (delta < 0) {
      totals.resets.push({ from: t0, to: t1, fromValue: e[1], toValue: e[3] });
    } else if (this.checkPower && delta / ((t1 - t0) / HOUR_MS) > this.maxPowerKw) {
      totals.rejected.push({ from: t0, to: t1, fromValue: e[1], toValue: e[3], energy: delta, averageKw: delta / ((t1 - t0) / HOUR_MS) });
    } else {
      this.energy[0] += delta;
      if (t0 >= this.segmentEnd) this.moveTo(t0);
      if (t1 <= this.segmentEnd || !this.prorate) {
        this.energyBySlot[this.slotIndex] += delta;
      } else {
        this.shareByTime(t0, t1, delta);
      }
    }
    e[0] = t1;
    e[1] = e[3];
  }

  /** Moves to the segment containing t, whose rule is about to price (part of) an interval. */
  private moveTo(t: number): void {
    this.cursor.seek(t);
    this.segmentEnd = this.cursor.end;
    this.slotIndex = this.cursor.slot + 1;
    this.totals.usedBySlot[this.slotIndex] = 1;
  }

  /** Shares the energy among the segments the interval crosses, by time. */
  private shareByTime(t0: number, t1: number, delta: number): void {
    const duration = t1 - t0;
    for (let start = t0; ; ) {
      const end = this.segmentEnd < t1 ? this.segmentEnd : t1;
      this.energyBySlot[this.slotIndex] += delta * ((end - start) / duration);
      if (end >= t1) return;
      start = end;
      this.moveTo(start);
    }
  }
}

/**
 * The optimistic single pass over raw rows: null at the first row that does not parse
 * or is not strictly later than the one before (then the caller cleans and walks again).
 */
function walkRows(setup: WalkSetup, rows: readonly unknown[], lastTs: number): Totals | null {
  const walker = new Walker(setup, lastTs);
  const edge = walker.edge;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    let tsField: unknown;
    let valueField: unknown;
    if (Array.isArray(row)) {
      tsField = row[0];
      valueField = row[1];
    } else if (typeof row === 'object' && row !== null) {
      tsField = (row as { ts: unknown }).ts;
      valueField = (row as { value: unknown }).value;
    } else {
      return null;
    }
    // Numbers go straight into edge and are read back from it: a variable merging a
    // number field with a parsed double would be boxed on every row.
    if (typeof tsField === 'number') {
      edge[2] = tsField;
    } else {
      instantInto(tsField);
      edge[2] = isoResult[0];
    }
    edge[3] = typeof valueField === 'number' ? valueField : readingValue(valueField);
    const t = edge[2];
    const v = edge[3];
    if (t - t !== 0 || v - v !== 0) return null; // NaN or infinite
    if (i > 0 && !(t > edge[0])) return null;
    if (i > 0) walker.step();
    else walker.start();
  }
  walker.totals.intervals = rows.length > 0 ? rows.length - 1 : 0;
  return walker.totals;
}

function walkCleaned(setup: WalkSetup, cleaned: Cleaned): Totals {
  const { ts, values } = cleaned;
  const walker = new Walker(setup, ts.length > 0 ? ts[ts.length - 1] : NaN);
  const edge = walker.edge;
  for (let k = 0; k < ts.length; k++) {
    edge[2] = ts[k];
    edge[3] = values[k];
    if (k > 0) walker.step();
    else walker.start();
  }
  walker.totals.intervals = ts.length > 0 ? ts.length - 1 : 0;
  return walker.totals;
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

/** SPEC rule 9: drop what does not parse, sort stably, keep the last of equal timestamps. */
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
 * every reading or interval left out with the reason (SPEC rules 8-13).
 */
export function computeCost(tariff: Tariff | unknown, readings: readonly Reading[] | readonly unknown[], options: CostOptions): CostResult {
  const { ct, zone } = engineContext(tariff, options);
  if (!Array.isArray(readings)) throw new TypeError('readings must be an array of [timestamp, kWh] pairs or { ts, value } objects');
  const attribution = options.attribution ?? 'start';
  if (attribution !== 'start' && attribution !== 'prorate') {
    throw new TypeError(`attribution must be "start" or "prorate", got ${JSON.stringify(attribution)}`);
  }
  const maxPowerKw = options.maxPowerKw ?? Infinity;
  if (typeof maxPowerKw !== 'number' || !(maxPowerKw >= 0)) throw new TypeError(`maxPowerKw must be a non-negative number, got ${String(maxPowerKw)}`);
  const setup: WalkSetup = { ct, zone, events: sensorEvents(ct, options.sensors), prorate: attribution === 'prorate', maxPowerKw };
  const n = readings.length;
  const lastTs = n > 0 ? instantOf(rowTs(readings[n - 1])) : NaN;
  // The optimistic pass needs a valid last timestamp to bound its segments.
  const fast = lastTs === lastTs ? walkRows(setup, readings, lastTs) : null;
  if (fast || n === 0) return result(ct, fast ?? emptyTotals(ct), null, n > 0 ? [instantOf(rowTs(readings[0])), lastTs] : []);
  const cleaned = clean(readings);
  const ts = cleaned.ts;
  return result(ct, walkCleaned(setup, cleaned), cleaned, ts);
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
