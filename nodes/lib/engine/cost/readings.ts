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

/** semantics rule 9: drop what does not parse, sort stably, keep the last of equal timestamps. */
export function clean(readings: readonly unknown[]): Cleaned {
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
