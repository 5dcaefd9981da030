// Readings as they come (semantics rules 8-9): the fields of a row, and the cleaning
// pass for input that is not already clean and in time order.
import { sensorNumber } from '../tariff/tariff';
import { toEpochMs } from '../time/time';

export type Instant = number | Date | string;
export type Reading = [Instant, number | string] | { ts: Instant; value: number | string };

export interface DroppedRow {
  index: number; // position in the input
  ts: unknown;
  value: unknown;
  reason: 'row' | 'timestamp' | 'value' | 'duplicate';
}

/** Timestamp and value fields of a reading row; undefined fields when it is no row. */
export function rowTs(row: unknown): unknown {
  return Array.isArray(row) ? row[0] : typeof row === 'object' && row !== null ? (row as { ts: unknown }).ts : undefined;
}
export function rowValue(row: unknown): unknown {
  return Array.isArray(row) ? row[1] : typeof row === 'object' && row !== null ? (row as { value: unknown }).value : undefined;
}
const isRow = (row: unknown): boolean => typeof row === 'object' && row !== null;

export function instantOf(x: unknown): number {
  if (typeof x === 'number') return x - x === 0 ? x : NaN; // finite
  const ms = toEpochMs(x);
  return ms === null ? NaN : ms;
}
export function readingValue(x: unknown): number {
  return typeof x === 'number' ? (x - x === 0 ? x : NaN) : sensorNumber(x);
}

export interface Cleaned {
  ts: Float64Array;
  values: Float64Array;
  dropped: DroppedRow[];
  reordered: boolean;
}

/**
 * semantics rule 9: drop what does not parse, sort stably, keep the last of equal timestamps.
 * Rows are parsed into typed arrays in input order (with each one's input index), sorted
 * only when out of order, and compacted in place: no array grows per row, so clean input
 * costs little more than reading it (demandWindows cleans every input).
 */
export function clean(readings: readonly unknown[]): Cleaned {
  const n = readings.length;
  let ts = new Float64Array(n);
  let values = new Float64Array(n);
  let index = new Int32Array(n); // input position of each parsed row
  const dropped: DroppedRow[] = [];
  let m = 0;
  let reordered = false;
  for (let i = 0; i < n; i++) {
    const row = readings[i];
    const t = instantOf(rowTs(row));
    const v = readingValue(rowValue(row));
    const reason = !isRow(row) ? 'row' : t !== t ? 'timestamp' : v !== v ? 'value' : null;
    if (reason) {
      dropped.push({ index: i, ts: rowTs(row), value: rowValue(row), reason });
      continue;
    }
    if (m > 0 && t < ts[m - 1]) reordered = true;
    ts[m] = t;
    values[m] = v;
    index[m] = i;
    m++;
  }
  if (reordered) {
    // stable: equal instants keep input order (positions k ascend with the input index)
    const order = Array.from({ length: m }, (_, k) => k).sort((a, b) => ts[a] - ts[b] || a - b);
    const [sortedTs, sortedValues, sortedIndex] = [new Float64Array(m), new Float64Array(m), new Int32Array(m)];
    order.forEach((k, j) => {
      sortedTs[j] = ts[k];
      sortedValues[j] = values[k];
      sortedIndex[j] = index[k];
    });
    [ts, values, index] = [sortedTs, sortedValues, sortedIndex];
  }
  let kept = 0;
  for (let k = 0; k < m; k++) {
    if (k + 1 < m && ts[k + 1] === ts[k]) {
      const i = index[k];
      dropped.push({ index: i, ts: rowTs(readings[i]), value: rowValue(readings[i]), reason: 'duplicate' });
      continue;
    }
    ts[kept] = ts[k];
    values[kept] = values[k];
    kept++;
  }
  if (dropped.length > 1) dropped.sort((a, b) => a.index - b.index);
  return { ts: ts.subarray(0, kept), values: values.subarray(0, kept), dropped, reordered };
}
