// The late-reading window of a stream meter (totals.ts) in a compact form: its readings and
// the cost of each interval between them as columns of one typed-array buffer, not as an
// array per reading. 128 meters x 3,000 readings held ~65 MB of small arrays that every
// full garbage collection walked (blocks of 90-149 ms); as columns they take ~33 bytes a
// reading outside the collected heap (docs/limits.md, "Stream mode's window").
//
// An interval's energy is almost always the step between its readings, its unpriced energy
// 0 or all of it, its resets 0: such an interval keeps only its net and gross and a kind
// that says how to give back the rest, exactly (checked with Object.is when it is set).
// Any other interval (a counter reset, a rejected or partly unpriced one) is kept whole in
// three more columns, made the first time one is needed and let go when none is left.

/** A kept interval's cost: energy, net, gross, unpricedEnergy, resets. */
export type CostRow = [number, number, number, number, number];

/** How an interval's energy, unpriced energy and resets are kept. */
const STEP = 0; // energy is the step, unpriced 0, resets 0
const STEP_UNPRICED = 1; // energy is the step and all of it unpriced, resets 0
const WHOLE = 2; // energy, unpriced energy and resets in the wide columns

/** Columns of the window: readings, net and gross, and how the rest is kept. */
interface Columns {
  ts: Float64Array;
  value: Float64Array;
  net: Float64Array;
  gross: Float64Array;
  kind: Uint8Array;
}
interface WideColumns {
  energy: Float64Array;
  unpriced: Float64Array;
  resets: Float64Array;
}

function columns(capacity: number): Columns {
  const buffer = new ArrayBuffer(capacity * 33);
  const f64 = (k: number) => new Float64Array(buffer, k * capacity * 8, capacity);
  return { ts: f64(0), value: f64(1), net: f64(2), gross: f64(3), kind: new Uint8Array(buffer, capacity * 32, capacity) };
}

function wideColumns(capacity: number): WideColumns {
  const buffer = new ArrayBuffer(capacity * 24);
  const f64 = (k: number) => new Float64Array(buffer, k * capacity * 8, capacity);
  return { energy: f64(0), unpriced: f64(1), resets: f64(2) };
}

const same = Object.is;

/**
 * Readings in ascending time, each with the cost of the interval to the next one (the
 * newest has none). Index 0 is the oldest kept reading. Slots run from `head` to
 * `head + size` in buffers of `capacity`: letting the oldest go moves `head`, a reading
 * moves the ones after it by one.
 */
export class ReadingWindow {
  private head = 0;
  private size = 0;
  private capacity = 0;
  private cols: Columns = columns(0);
  private wide: WideColumns | null = null;
  /** Intervals kept WHOLE: the wide columns are let go when none is left. */
  private wholeCount = 0;

  /** A window of `kept` readings ([ts, value], ascending) and `costs` (costs[i]: kept[i] -> kept[i + 1]). */
  static of(kept: ReadonlyArray<readonly [number, number]>, costs: ReadonlyArray<readonly number[]>): ReadingWindow {
    const w = new ReadingWindow();
    w.reserve(kept.length);
    for (const [ts, value] of kept) w.insert(w.size, ts, value);
    costs.forEach((row, i) => w.setCost(i, row as CostRow));
    return w;
  }

  get length(): number {
    return this.size;
  }

  ts(i: number): number {
    return this.cols.ts[this.head + i];
  }

  value(i: number): number {
    return this.cols.value[this.head + i];
  }

  /** The newest reading's instant; NaN when the window is empty. */
  newestTs(): number {
    return this.size ? this.ts(this.size - 1) : NaN;
  }

  /** The cost of interval i (reading i -> i + 1). */
  cost(i: number): CostRow {
    const at = this.head + i;
    const c = this.cols;
    const kind = c.kind[at];
    if (kind === WHOLE) {
      const w = this.wide!;
      return [w.energy[at], c.net[at], c.gross[at], w.unpriced[at], w.resets[at]];
    }
    const step = c.value[at + 1] - c.value[at];
    return [step, c.net[at], c.gross[at], kind === STEP_UNPRICED ? step : 0, 0];
  }

  /** Interval i (reading i -> i + 1, both already in place) now costs `row`. */
  setCost(i: number, row: CostRow): void {
    const at = this.head + i;
    const c = this.cols;
    const [energy, net, gross, unpriced, resets] = row;
    const step = c.value[at + 1] - c.value[at];
    let kind = WHOLE;
    if (same(energy, step) && same(resets, 0)) kind = same(unpriced, 0) ? STEP : same(unpriced, step) ? STEP_UNPRICED : WHOLE;
    if (c.kind[at] === WHOLE) this.wholeCount--;
    c.kind[at] = kind;
    c.net[at] = net;
    c.gross[at] = gross;
    if (kind !== WHOLE) return;
    this.wholeCount++;
    this.wide ??= wideColumns(this.capacity);
    this.wide.energy[at] = energy;
    this.wide.unpriced[at] = unpriced;
    this.wide.resets[at] = resets;
  }

  /** Reading i gets another value (its intervals are to be priced again). */
  setValue(i: number, value: number): void {
    this.cols.value[this.head + i] = value;
  }

  /** A reading at index i, the ones from i on moved by one; its interval costs nothing until set. */
  insert(i: number, ts: number, value: number): void {
    if (i === 0 && this.head > 0) {
      this.head--;
    } else {
      if (this.head + this.size === this.capacity) this.reserve(this.size + 1);
      const from = this.head + i;
      const to = this.head + this.size;
      for (const col of this.allColumns()) col.copyWithin(from + 1, from, to);
    }
    this.size++;
    const at = this.head + i;
    this.cols.ts[at] = ts;
    this.cols.value[at] = value;
    this.cols.net[at] = 0;
    this.cols.gross[at] = 0;
    // a slot moved on is still in place after it (a WHOLE kind there stays counted once)
    this.cols.kind[at] = STEP;
  }

  /** Lets the `count` oldest readings go. */
  dropOldest(count: number): void {
    if (count <= 0) return;
    for (let k = 0; k < count; k++) if (this.cols.kind[this.head + k] === WHOLE) this.wholeCount--;
    this.head += count;
    this.size -= count;
    if (this.size === 0) this.head = 0;
  }

  /** Index of the first reading at or after `ts` (binary search), -1 when all are before it. */
  firstAtOrAfter(ts: number): number {
    if (this.size === 0 || this.newestTs() < ts) return -1;
    let lo = 0;
    let hi = this.size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ts(mid) >= ts) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** A copy (addReading on a state it does not own). */
  copy(): ReadingWindow {
    const w = new ReadingWindow();
    w.reserve(this.size);
    w.moveFrom(this);
    return w;
  }

  /** The readings from index `from` on, as [ts, value] rows (for the store and tests). */
  readings(from = 0): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let i = Math.max(0, from); i < this.size; i++) out.push([this.ts(i), this.value(i)]);
    return out;
  }

  /** The costs of the intervals from index `from` on (one fewer than the readings). */
  costRows(from = 0): CostRow[] {
    const out: CostRow[] = [];
    for (let i = Math.max(0, from); i < this.size - 1; i++) out.push(this.cost(i));
    return out;
  }

  /** As JSON (e.g. in a debug message): its readings and costs, not its buffers. */
  toJSON(): { readings: Array<[number, number]>; costs: CostRow[] } {
    return { readings: this.readings(), costs: this.costRows() };
  }

  private *allColumns(): Iterable<Float64Array | Uint8Array> {
    const c = this.cols;
    yield* [c.ts, c.value, c.net, c.gross, c.kind];
    if (this.wide) yield* [this.wide.energy, this.wide.unpriced, this.wide.resets];
  }

  /**
   * Room for `needed` readings from slot 0: the slots before `head` taken back when they
   * are enough (a full window moves its start one reading at a time), else buffers 1/16
   * larger than needed (a window at its limit never grows, and wastes little).
   */
  private reserve(needed: number): void {
    if (this.capacity >= needed && this.head >= (this.capacity >> 5) + 1) {
      if (this.wholeCount === 0) this.wide = null;
      for (const col of this.allColumns()) col.copyWithin(0, this.head, this.head + this.size);
      this.head = 0;
      return;
    }
    const capacity = Math.max(needed + (needed >> 4) + 8, 16);
    const old = { cols: this.cols, wide: this.wide, head: this.head };
    this.cols = columns(capacity);
    this.wide = this.wholeCount > 0 ? wideColumns(capacity) : null;
    this.capacity = capacity;
    this.head = 0;
    this.copyColumns(old, this.cols, this.wide);
  }

  /** Copies this window's slots from `old` (starting at old.head) to slot 0 of `cols`/`wide`. */
  private copyColumns(old: { cols: Columns; wide: WideColumns | null; head: number }, cols: Columns, wide: WideColumns | null): void {
    const span = (col: Float64Array | Uint8Array) => col.subarray(old.head, old.head + this.size);
    cols.ts.set(span(old.cols.ts));
    cols.value.set(span(old.cols.value));
    cols.net.set(span(old.cols.net));
    cols.gross.set(span(old.cols.gross));
    cols.kind.set(span(old.cols.kind));
    if (wide && old.wide) {
      wide.energy.set(span(old.wide.energy));
      wide.unpriced.set(span(old.wide.unpriced));
      wide.resets.set(span(old.wide.resets));
    }
  }

  /** Takes `other`'s readings and costs (this one empty, with room for them). */
  private moveFrom(other: ReadingWindow): void {
    this.size = other.size;
    this.wholeCount = other.wholeCount;
    if (other.wide) this.wide = wideColumns(this.capacity);
    this.copyColumns({ cols: other.cols, wide: other.wide, head: other.head }, this.cols, this.wide);
  }
}
