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
const T0 = 0; // the reading before: the start of the next interval (with nothing held, the last accepted one)
const V0 = 1;
const ENERGY = 2; // energy counted so far
const SEGMENT_END = 3; // the current segment prices intervals starting before this
const SLOT_ENERGY = 4; // energyBySlot[slot] of the current segment's rule, summed here
const JUDGE_TS = 5; // the row a block stopped at for rule 10's judge (see walk)
const JUDGE_VALUE = 6;

/**
 * The single pass over the readings: every interval's energy added to the rule of the
 * segment containing its start (or shared by time with `prorate`). Raw rows (PAIRS,
 * OBJECTS) are read optimistically: null at the first row that does not parse, is of
 * another shape or is not strictly later than the one before; the caller then cleans
 * and walks the CLEANED arrays.
 */
function walk(setup: WalkSetup, kind: number, rows: readonly unknown[], cleaned: Cleaned | null, lastTs: number): Totals | null {
  const split = setup.events.split;
  const firstTs = n0(cleaned, rows);
  if (setup.ct.walk !== undefined) meetStackSlots(setup, firstTs, lastTs);
  const totals = emptyTotals(setup.ct, split ? split.known.length + 1 : 1);
  const cleanTs = cleaned ? cleaned.ts : EMPTY;
  const cleanValues = cleaned ? cleaned.values : EMPTY;
  const n = cleaned ? cleanTs.length : rows.length;
  const w: Walk = {
    state: Float64Array.of(-Infinity, 0, 0, -Infinity, 0, NaN, NaN),
    slot: 0,
    totals,
    cursor: new SegmentCursor(setup.ct, setup.zone, setup.events, lastTs, totals),
    prorate: setup.prorate,
    maxPowerKw: setup.maxPowerKw,
    energyLimit: setup.energyLimit,
    judged: new JudgedReadings(totals, setup.maxPowerKw),
    holding: 0,
    firstTs,
  };
  for (let from = 0; from < n;) {
    const to = Math.min(n, from + BLOCK);
    const stop = walkBlock(w, kind, rows, cleanTs, cleanValues, from, to);
    if (stop === -1) return null;
    if (stop < to) {
      // a row rule 10 must judge (suspect, or while one is held): the judge decides and its
      // intervals are added (countJudged); the walk goes on after it, that row the one before
      w.holding = countJudged(w, w.holding, w.state[JUDGE_TS], w.state[JUDGE_VALUE]);
      w.state[T0] = w.state[JUDGE_TS];
      w.state[V0] = w.state[JUDGE_VALUE];
    }
    from = stop < to ? stop + 1 : to;
  }
  totals.energyBySlot[w.slot] = w.state[SLOT_ENERGY];
  totals.energy[0] = w.state[ENERGY];
  totals.intervals = n > 0 ? n - 1 : 0;
  totals.pending = w.judged.pending();
  return totals;
}

/** The first reading's instant (NaN: none). */
function n0(cleaned: Cleaned | null, rows: readonly unknown[]): number {
  if (cleaned) return cleaned.ts.length > 0 ? cleaned.ts[0] : NaN;
  return rows.length > 0 ? instantOf(rowTs(rows[0])) : NaN;
}

/**
 * A price stack numbers its slots as walks meet them (price-stack.ts): its segments over
 * the readings' span are walked once first, so that the totals have a place for every
 * slot the walk will meet. The walk itself only reads instants in [from, to] (raw rows
 * are walked only while in time order, so they lie between the first and the last).
 */
function meetStackSlots(setup: WalkSetup, from: number, to: number): void {
  if (!(from <= to)) return;
  const cursor = new SegmentCursor(setup.ct, setup.zone, setup.events, to, emptyTotals(setup.ct, 1));
  for (let t = from; ; t = cursor.end) {
    cursor.seek(t);
    if (cursor.end >= to) return;
  }
}

interface Walk {
  state: Float64Array; // T0, V0, ENERGY, SEGMENT_END, SLOT_ENERGY, JUDGE_TS, JUDGE_VALUE
  /** Readings rule 10 holds now: while any are, every row goes to the judge. */
  holding: number;
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
 * Walks rows [from, to): returns `to`, or the row it stopped before for rule 10's judge
 * (its instant and value in JUDGE_TS, JUDGE_VALUE; see walk), or -1 at a raw row the
 * optimistic pass cannot take.
 *
 * Why it is one flat loop over locals: this runs per row (half a million rows for a
 * year of minutes), and V8 keeps doubles unboxed only in locals of one optimised
 * function. A double passed to a call that is not inlined, or stored in an object
 * field, costs a heap box or a memory round trip per row. So the per-row state lives in
 * locals, loaded from and saved to w.state once per block; the rule's sum is kept in
 * `slotEnergy` and written back to energyBySlot when the segment changes (the same
 * additions in the same order as adding to the array each time: the same result to
 * the last bit). Calls happen only at segment changes and rejected intervals (overflows is
 * small enough to be inlined); a reading rule 10 must judge (a suspect one, or any while one
 * is held) ends the block instead, and walk hands it to countJudged. Clean input allocates
 * nothing. The loop's code is kept small on purpose: TurboFan inlines callees into it up to
 * a budget that shrinks as the loop grows, and once the cursor's seek is no longer inlined a
 * double is boxed per row (a year of ISO readings ran 1.3x slower).
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
): number {
  const { state, totals, cursor, prorate, maxPowerKw, energyLimit, holding } = w;
  const energyBySlot = totals.energyBySlot;
  let t0 = state[T0];
  let v0 = state[V0];
  let energy = state[ENERGY];
  let segmentEnd = state[SEGMENT_END];
  let slotEnergy = state[SLOT_ENERGY];
  let slot = w.slot;
  let stop = to;
  for (let i = from; i < to; i++) {
    let t1: number;
    let v1: number;
    if (kind === CLEANED) {
      t1 = cleanTs[i];
      v1 = cleanValues[i];
    } else {
      const row = rows[i];
      if (kind === PAIRS) {
        if (!Array.isArray(row)) return -1;
        t1 = instantField(row[0]);
        v1 = valueField(row[1]);
      } else {
        if (typeof row !== 'object' || row === null) return -1;
        t1 = instantField((row as { ts: unknown }).ts);
        v1 = valueField((row as { value: unknown }).value);
      }
      if (t1 - t1 !== 0 || v1 - v1 !== 0 || !(t1 > t0)) return -1; // NaN, infinite or out of order
    }
    if (i > 0) {
      if (holding === 0 && isPlausible(t0, v0, t1, v1, maxPowerKw)) {
        if (!overflows(totals, t0, v0, t1, v1, energy, energyLimit)) {
          const delta = v1 - v0;
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
      } else {
        // rule 10: a suspect reading, or one while one is held: the block ends before it, for
        // walk to hand it to the judge (kept out of this loop: its code would cost the loop the
        // inlining of the cursor's seek, and a double boxed per row)
        state[JUDGE_TS] = t1;
        state[JUDGE_VALUE] = v1;
        stop = i;
        break;
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
  return stop;
}

/**
 * A reading rule 10 must judge (see walkBlock): the judge decides, and each interval it counts
 * is added as walkBlock's loop adds one, on the walk's state (the same additions in the same
 * order). With nothing held the reading before (T0, V0) is the last accepted one; while
 * readings are held, the judge keeps it. Returns how many are held now: when none, the
 * reading (t1, v1) was accepted, so as the row before the next it is the last accepted one.
 */
function countJudged(w: Walk, holding: number, t1: number, v1: number): number {
  const { state, totals, cursor, judged } = w;
  const energyBySlot = totals.energyBySlot;
  const queue = judged.queue;
  const last = judged.state;
  const count = holding === 0 ? judged.judge(state[T0], state[V0], t1, v1) : judged.judge(last.lastTs, last.lastValue, t1, v1);
  for (let k = 0; k < count; k++) {
    const [a, av, b, bv] = [queue[4 * k], queue[4 * k + 1], queue[4 * k + 2], queue[4 * k + 3]];
    if (overflows(totals, a, av, b, bv, state[ENERGY], w.energyLimit)) continue;
    const delta = bv - av;
    state[ENERGY] += delta;
    if (a >= state[SEGMENT_END]) {
      energyBySlot[w.slot] = state[SLOT_ENERGY];
      cursor.seek(a);
      state[SEGMENT_END] = cursor.end;
      w.slot = cursor.slot;
      state[SLOT_ENERGY] = energyBySlot[w.slot];
    }
    if (b <= state[SEGMENT_END] || !w.prorate) {
      state[SLOT_ENERGY] += delta;
    } else {
      if (b - w.firstTs > MAX_PRORATE_SPAN_MS) throw prorateSpanError(b - w.firstTs);
      energyBySlot[w.slot] = state[SLOT_ENERGY];
      shareByTime(cursor, energyBySlot, a, b, delta);
      state[SEGMENT_END] = cursor.end;
      w.slot = cursor.slot;
      state[SLOT_ENERGY] = energyBySlot[w.slot];
    }
  }
  return last.held.length;
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
