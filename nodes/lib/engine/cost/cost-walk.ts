// The single pass over the readings that adds up energy per rule (semantics rules
// 10-11), written for speed: see walkBlock.
import { CompiledTariff } from '../tariff/tariff';
import { SegmentCursor, SensorEvents } from './cost-segments';
import { Cleaned, instantOf, readingValue, rowTs } from './readings';
import { JudgedReadings, Totals, overflows } from './walk-totals';
import { isPlausible } from './meter-glitches';
import { DAY_MS, ZoneInfo, instantInto, isoResult, parseIsoInto } from '../time/time';

/** `groups`: 1, or with splitBy one block of slots per split value (see SegmentCursor). */
export function emptyTotals(ct: CompiledTariff, groups = 1): Totals {
  const slots = (ct.rules.length + 1) * groups;
  return {
    energyBySlot: new Float64Array(slots),
    usedBySlot: new Uint8Array(slots),
    energy: new Float64Array(1),
    intervals: 0,
    resets: [],
    rejected: [],
    glitches: [],
    pending: [],
    unknown: [],
  };
}

export interface WalkSetup {
  ct: CompiledTariff;
  zone: ZoneInfo;
  events: SensorEvents;
  prorate: boolean;
  maxPowerKw: number;
  /** Counted energy stays at or below this, so every sum and amount is a finite number. */
  energyLimit: number;
}

/**
 * Where the walk reads readings from (see walkBlock). Not exported: TypeScript's
 * CommonJS output reads an exported const through `exports` even inside its module,
 * a property load per row in the hot loop instead of a constant.
 */
const PAIRS = 0; // raw [ts, kWh] rows
const OBJECTS = 1; // raw { ts, value } rows
const CLEANED = 2; // the typed arrays of clean()

/** The optimistic pass over raw rows (see walk); null when they must be cleaned first. */
export function walkRaw(setup: WalkSetup, rows: readonly unknown[], lastTs: number): Totals | null {
  return walk(setup, Array.isArray(rows[0]) ? PAIRS : OBJECTS, rows, null, lastTs);
}

/** The pass over cleaned readings (finite, strictly increasing): never null. */
export function walkCleaned(setup: WalkSetup, cleaned: Cleaned): Totals {
  const ts = cleaned.ts;
  return walk(setup, CLEANED, [], cleaned, ts.length > 0 ? ts[ts.length - 1] : NaN) as Totals;
}

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
const T0 = 0; // the last accepted reading (rule 10): the start of the next interval
const V0 = 1;
const ENERGY = 2; // energy counted so far
const SEGMENT_END = 3; // the current segment prices intervals starting before this
const SLOT_ENERGY = 4; // energyBySlot[slot] of the current segment's rule, summed here
const PREVIOUS_TS = 5; // the row before (later than T0 while readings are held)

/**
 * The single pass over the readings: every interval's energy added to the rule of the
 * segment containing its start (or shared by time with `prorate`). Raw rows (PAIRS,
 * OBJECTS) are read optimistically: null at the first row that does not parse, is of
 * another shape or is not strictly later than the one before; the caller then cleans
 * and walks the CLEANED arrays.
 */
function walk(setup: WalkSetup, kind: number, rows: readonly unknown[], cleaned: Cleaned | null, lastTs: number): Totals | null {
  const split = setup.events.split;
  const totals = emptyTotals(setup.ct, split ? split.known.length + 1 : 1);
  const cleanTs = cleaned ? cleaned.ts : EMPTY;
  const cleanValues = cleaned ? cleaned.values : EMPTY;
  const n = cleaned ? cleanTs.length : rows.length;
  const w: Walk = {
    state: Float64Array.of(-Infinity, 0, 0, -Infinity, 0, -Infinity),
    slot: 0,
    totals,
    cursor: new SegmentCursor(setup.ct, setup.zone, setup.events, lastTs, totals),
    prorate: setup.prorate,
    maxPowerKw: setup.maxPowerKw,
    energyLimit: setup.energyLimit,
    judged: new JudgedReadings(totals, setup.maxPowerKw),
    firstTs: n > 0 ? (cleaned ? cleaned.ts[0] : instantOf(rowTs(rows[0]))) : NaN,
  };
  for (let from = 0; from < n; from += BLOCK) {
    if (!walkBlock(w, kind, rows, cleanTs, cleanValues, from, Math.min(n, from + BLOCK))) return null;
  }
  totals.energyBySlot[w.slot] = w.state[SLOT_ENERGY];
  totals.energy[0] = w.state[ENERGY];
  totals.intervals = n > 0 ? n - 1 : 0;
  totals.pending = w.judged.pending();
  return totals;
}

interface Walk {
  state: Float64Array; // T0, V0, ENERGY, SEGMENT_END, SLOT_ENERGY, PREVIOUS_TS
  slot: number; // index in energyBySlot of the current segment's rule
  totals: Totals;
  cursor: SegmentCursor;
  prorate: boolean;
  maxPowerKw: number;
  energyLimit: number;
  /** Rule 10's judge, for the readings that are suspect or come while one is held. */
  judged: JudgedReadings;
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
 * the last bit). Calls happen only at segment changes, at readings rule 10 holds or
 * decides (the judge, which fills a preallocated queue: no allocation unless something is
 * listed) and at rejected intervals (isPlausible and overflows are small enough to be
 * inlined).
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
  const { state, totals, cursor, prorate, maxPowerKw, energyLimit, judged } = w;
  const energyBySlot = totals.energyBySlot;
  const queue = judged.queue;
  let t0 = state[T0];
  let v0 = state[V0];
  let energy = state[ENERGY];
  let segmentEnd = state[SEGMENT_END];
  let slotEnergy = state[SLOT_ENERGY];
  let previousTs = state[PREVIOUS_TS];
  let slot = w.slot;
  let holding = judged.state.held.length;
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
      if (t1 - t1 !== 0 || v1 - v1 !== 0 || !(t1 > previousTs)) return false; // NaN, infinite or out of order
    }
    previousTs = t1;
    if (i === 0) {
      t0 = t1;
      v0 = v1;
      continue;
    }
    // Rule 10: a plausible reading with nothing held is one interval (the loop below, once);
    // any other goes to the judge, which may count none (held) or several (a run decided).
    const judging = holding !== 0 || !isPlausible(t0, v0, t1, v1, maxPowerKw);
    const count = judging ? judged.judge(t0, v0, t1, v1) : 1;
    for (let k = 0; k < count; k++) {
      const a = judging ? queue[4 * k] : t0;
      const av = judging ? queue[4 * k + 1] : v0;
      const b = judging ? queue[4 * k + 2] : t1;
      const bv = judging ? queue[4 * k + 3] : v1;
      if (overflows(totals, a, av, b, bv, energy, energyLimit)) continue;
      const delta = bv - av;
      energy += delta;
      if (a >= segmentEnd) {
        energyBySlot[slot] = slotEnergy;
        cursor.seek(a);
        segmentEnd = cursor.end;
        slot = cursor.slot;
        slotEnergy = energyBySlot[slot];
      }
      if (b <= segmentEnd || !prorate) {
        slotEnergy += delta;
      } else {
        if (b - w.firstTs > MAX_PRORATE_SPAN_MS) throw prorateSpanError(b - w.firstTs);
        energyBySlot[slot] = slotEnergy;
        shareByTime(cursor, energyBySlot, a, b, delta);
        segmentEnd = cursor.end;
        slot = cursor.slot;
        slotEnergy = energyBySlot[slot];
      }
    }
    if (judging) {
      t0 = judged.state.lastTs;
      v0 = judged.state.lastValue;
      holding = judged.state.held.length;
    } else {
      t0 = t1;
      v0 = v1;
    }
  }
  state[T0] = t0;
  state[V0] = v0;
  state[ENERGY] = energy;
  state[SEGMENT_END] = segmentEnd;
  state[SLOT_ENERGY] = slotEnergy;
  state[PREVIOUS_TS] = previousTs;
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
