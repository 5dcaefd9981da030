// The records a node holds through an outage, as its context store keeps them (docs/records.md,
// "Outages"): compact, for a Pi's flash (each series once, then one short row of numbers per
// point), and read back as data from outside: every part checked against what the node could
// have written, the rest dropped and said once.
import { isNearNow } from '../time/time';
import { DroppedState, isFiniteNumber, isRecord } from '../common/stored-checks';
import { influxNameProblem, recordPoint, RecordPoint } from './influx-points';

export const OUTBOX_STORE_VERSION = 1;

/**
 * `series`: `[measurement, tags, field keys]` each once; `rows`: `[series index, instant,
 * ...field values]` per point, in the order they are to be sent.
 */
export interface StoredOutbox {
  version: typeof OUTBOX_STORE_VERSION;
  series: Array<[string, Record<string, string>, string[]]>;
  rows: Array<Array<number | boolean>>;
}

/** Points as stored. */
export function storedOutbox(points: readonly RecordPoint[]): StoredOutbox {
  const series: StoredOutbox['series'] = [];
  const index = new Map<string, number>();
  const rows: StoredOutbox['rows'] = [];
  for (const p of points) {
    const fields = Object.keys(p.fields);
    const shape: [string, Record<string, string>, string[]] = [p.measurement, p.tags, fields];
    const key = JSON.stringify(shape);
    let i = index.get(key);
    if (i === undefined) {
      i = series.length;
      index.set(key, i);
      series.push([p.measurement, { ...p.tags }, fields]);
    }
    const row: Array<number | boolean> = [i, p.timestamp];
    for (const f of fields) row.push(p.fields[f]);
    rows.push(row);
  }
  return { version: OUTBOX_STORE_VERSION, series, rows };
}

/** Names the package writes: lower-case words (a key of `__proto__` or anything else is no series of ours). */
const NAME = /^[a-z][a-z_]{0,39}$/;

/** One stored series checked: null (with why) when it is none the node could have written. */
function readSeries(x: unknown): { measurement: string; tags: Record<string, string>; fields: string[] } | string {
  if (!Array.isArray(x) || x.length !== 3) return 'a series that is not [measurement, tags, fields]';
  const [measurement, tags, fields] = x as unknown[];
  if (typeof measurement !== 'string' || !NAME.test(measurement)) return 'a series with no measurement of ours';
  if (!isRecord(tags)) return `a ${measurement} series without tags`;
  const kept: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) {
    if (!NAME.test(k) || typeof v !== 'string' || v === '' || influxNameProblem(v)) return `a ${measurement} series with a bad tag`;
    kept[k] = v;
  }
  if (!Array.isArray(fields) || !fields.length || fields.length > 40 || !fields.every((f) => typeof f === 'string' && NAME.test(f)))
    return `a ${measurement} series without field names`;
  if (new Set(fields).size !== fields.length) return `a ${measurement} series naming a field twice`;
  return { measurement, tags: kept, fields: fields as string[] };
}

/**
 * The points of a stored outbox (any other value: none), at most `limit` (the newest),
 * each checked: a known series, an instant within 100 years of `now`, one finite number
 * or boolean per field. `dropped` says what was not.
 */
export function readStoredOutbox(x: unknown, now: number, limit: number): { points: RecordPoint[]; dropped: DroppedState } {
  const dropped = new DroppedState('records kept through an outage');
  const points: RecordPoint[] = [];
  if (x === undefined || x === null) return { points, dropped };
  if (!isRecord(x) || x.version !== OUTBOX_STORE_VERSION || !Array.isArray(x.series) || !Array.isArray(x.rows)) {
    dropped.add(`a stored value that is not version ${OUTBOX_STORE_VERSION} of the records kept`);
    return { points, dropped };
  }
  const series = x.series.slice(0, limit).map(readSeries);
  if (x.series.length > limit) dropped.add(`${x.series.length - limit} series beyond ${limit}`);
  for (const s of series) if (typeof s === 'string') dropped.add(s);
  const rows = x.rows.length > limit ? x.rows.slice(x.rows.length - limit) : x.rows;
  if (x.rows.length > limit) dropped.add(`the oldest ${x.rows.length - limit} records beyond ${limit}`);
  let bad = 0;
  for (const row of rows) {
    const s = Array.isArray(row) && Number.isInteger(row[0]) ? series[row[0] as number] : undefined;
    const at = Array.isArray(row) ? row[1] : undefined;
    if (!s || typeof s === 'string' || !isFiniteNumber(at) || !Number.isInteger(at) || !isNearNow(at, now)) {
      bad++;
      continue;
    }
    const values = (row as unknown[]).slice(2);
    if (values.length !== s.fields.length || !values.every((v) => typeof v === 'boolean' || isFiniteNumber(v))) {
      bad++;
      continue;
    }
    const fields: Record<string, unknown> = {};
    s.fields.forEach((f, i) => (fields[f] = values[i]));
    const p = recordPoint(s.measurement, s.tags, fields, at);
    if (p) points.push(p);
    else bad++;
  }
  if (bad) dropped.add(`${bad} records that are not points of ours`);
  return { points, dropped };
}
