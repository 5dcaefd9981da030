// The records a node holds through an outage, as its context store keeps them (docs/records.md,
// "Outages"): compact, for a Pi's flash (each series once, then per point one flat run of
// numbers: its series, its instant less the one before, its field values, booleans as 1/0 and
// instants as ms from the point's own), written and read back in slices (a turn of the event
// loop every SLICE.items points), and read as data from outside: every part checked against
// what the node could have written, the rest dropped and said once.
import { isNearNow } from '../time/time';
import { SLICE, Steps } from '../common/slices';
import { DroppedState, isFiniteNumber, isRecord } from '../common/stored-checks';
import { influxNameProblem, recordPoint, RecordPoint } from './influx-points';
import { pointSeries } from './outbox';

/**
 * The stored form (as JSON text): `series`: `[measurement, tags, field names, field kinds]`
 * each once, kinds one letter a field (`n` a number, `b` a boolean as 1/0, `r` an instant in
 * ms from the point's); `rows`: per point its series index, its instant less the previous
 * point's, its values.
 */
export interface StoredOutbox {
  series: Array<[string, Record<string, string>, string[], string]>;
  rows: number[];
}

/** A point read back, with its series (pointSeries), computed once per stored series. */
export interface KeptPoint {
  point: RecordPoint;
  series: string;
}

/** How a field is stored: an instant field (`…_ms`) of whole ms relative to the point's, a boolean as 1/0, else the number. */
function kindOf(name: string, value: number | boolean, at: number): 'n' | 'b' | 'r' {
  if (typeof value === 'boolean') return 'b';
  return name.endsWith('_ms') && Number.isSafeInteger(value) && Number.isSafeInteger(value - at) ? 'r' : 'n';
}

/** Points as stored, in their order, as JSON text (`series`: each point's pointSeries, when known), a slice at a time. */
export function* outboxText(points: ReadonlyArray<{ point: RecordPoint; series?: string }>): Steps<string> {
  const series: StoredOutbox['series'] = [];
  const index = new Map<string, number>();
  const chunks: string[] = [];
  let previous = 0;
  for (let start = 0; start < points.length; start += SLICE.items) {
    if (start > 0) yield;
    const rows: number[] = [];
    for (const { point: p, series: known } of points.slice(start, start + SLICE.items)) {
      const names = Object.keys(p.fields);
      let kinds = '';
      for (const f of names) kinds += kindOf(f, p.fields[f], p.timestamp);
      const key = `${known ?? pointSeries(p)}|${names.join(',')}|${kinds}`;
      let i = index.get(key);
      if (i === undefined) {
        i = series.length;
        index.set(key, i);
        series.push([p.measurement, { ...p.tags }, names, kinds]);
      }
      rows.push(i, p.timestamp - previous);
      previous = p.timestamp;
      for (let k = 0; k < names.length; k++) {
        const v = p.fields[names[k]];
        rows.push(kinds[k] === 'b' ? (v ? 1 : 0) : kinds[k] === 'r' ? (v as number) - p.timestamp : (v as number));
      }
    }
    if (rows.length) chunks.push(JSON.stringify(rows).slice(1, -1));
  }
  return `{"series":${JSON.stringify(series)},"rows":[${chunks.join(',')}]}`;
}

/** Names the package writes: lower-case words (a key of `__proto__` or anything else is no series of ours). */
const NAME = /^[a-z][a-z_]{0,39}$/;

interface ReadSeries {
  measurement: string;
  tags: Record<string, string>;
  fields: string[];
  kinds: string;
}

/** One stored series checked: why not, when it is none the node could have written. */
function readSeries(x: unknown): ReadSeries | string {
  if (!Array.isArray(x) || x.length !== 4) return 'a series that is not [measurement, tags, fields, kinds]';
  const [measurement, tags, fields, kinds] = x as unknown[];
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
  if (typeof kinds !== 'string' || kinds.length !== fields.length || !/^[nbr]*$/.test(kinds))
    return `a ${measurement} series without field kinds`;
  return { measurement, tags: kept, fields: fields as string[], kinds };
}

/**
 * The points of a stored outbox (parsed JSON; anything else: none), at most `limit` (the
 * newest), each checked: a known series, an instant within 100 years of `now`, a finite
 * number per field (0 or 1 for a boolean), a slice at a time. `dropped` says what was not;
 * a run that cannot be read on ends the reading there.
 */
export function* readStoredOutbox(x: unknown, now: number, limit: number): Steps<{ points: KeptPoint[]; dropped: DroppedState }> {
  const dropped = new DroppedState('records kept through an outage');
  const points: KeptPoint[] = [];
  if (x === undefined || x === null) return { points, dropped };
  if (!isRecord(x) || !Array.isArray(x.series) || !Array.isArray(x.rows)) {
    dropped.add('a stored value that is not the records kept');
    return { points, dropped };
  }
  const rows = x.rows as unknown[];
  if (x.series.length > limit || rows.length > limit * 42) {
    dropped.add(`${x.series.length} series and ${rows.length} numbers, more than ${limit} records of ours take`);
    return { points, dropped };
  }
  const series = x.series.map(readSeries);
  for (const s of series) if (typeof s === 'string') dropped.add(s);
  const keys = series.map((s) =>
    typeof s === 'string' ? '' : pointSeries({ measurement: s.measurement, tags: s.tags, fields: {}, timestamp: 0 }),
  );
  let at = 0;
  let bad = 0;
  for (let i = 0, n = 0; i < rows.length; n++) {
    if (n > 0 && n % SLICE.items === 0) yield;
    const index = rows[i];
    const s = Number.isInteger(index) ? series[index as number] : undefined;
    const dt = rows[i + 1];
    if (!s || typeof s === 'string' || !Number.isSafeInteger(dt) || i + 2 + s.fields.length > rows.length) {
      dropped.add(`the records from the ${n + 1}th on (a row that cannot be read)`);
      break;
    }
    at += dt as number;
    const fields: Record<string, unknown> = {};
    let ok = isNearNow(at, now);
    for (let k = 0; k < s.fields.length; k++) {
      const v = rows[i + 2 + k];
      if (!isFiniteNumber(v)) ok = false;
      else if (s.kinds[k] === 'b') {
        if (v !== 0 && v !== 1) ok = false;
        fields[s.fields[k]] = v === 1;
      } else fields[s.fields[k]] = s.kinds[k] === 'r' ? v + at : v;
    }
    i += 2 + s.fields.length;
    const p = ok ? recordPoint(s.measurement, s.tags, fields, at) : null;
    if (p) points.push({ point: p, series: keys[index as number] });
    else bad++;
  }
  if (bad) dropped.add(`${bad} records that are not points of ours`);
  if (points.length > limit) {
    dropped.add(`the oldest ${points.length - limit} records beyond ${limit}`);
    points.splice(0, points.length - limit);
  }
  return { points, dropped };
}
