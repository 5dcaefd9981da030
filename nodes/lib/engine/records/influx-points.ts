// Records: the package's figures as time-series points, in the message shapes
// node-red-contrib-influxdb's `influxdb out` and `influxdb batch` nodes write as they
// are (docs/records.md). A point is one measurement, the tags naming its series, number
// (or true/false) fields and its own instant in epoch ms, written with precision `ms`, so
// a figure sent again (a restart, a running total updated) overwrites its point.

/** One point: measurement, tags (what names the series), fields (the figures), its instant in epoch ms. */
export interface RecordPoint {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, number | boolean>;
  timestamp: number;
}

/** How records leave a node: one `influxdb out` message per point, or one `influxdb batch` message per send. */
export type InfluxFormat = 'influx-out' | 'influx-batch';

/** The time precision every record is written with (`msg.precision`). */
export const RECORD_PRECISION = 'ms';

/** The longest name (tag value) a point may carry: far above any real id, far below InfluxDB's 64 KiB series key. */
export const MAX_TAG_CHARS = 4096;

/**
 * Why a name (a tag value: a meter's topic, a gateway id, a node's name) cannot reach
 * InfluxDB intact through node-red-contrib-influxdb, or null when it can. Its clients
 * escape `,`, `=` and spaces themselves (node-influx for 1.x, influxdb-client for 2.x), so
 * the package escapes nothing (a second escape would be stored); quotes, `+`, `#`, emoji
 * pass as they are. What no escape carries is refused: a line break ends the line (the
 * rest of the name became a measurement of its own), a backslash at the end escapes the
 * space after it (1.x answers "unable to parse" and drops the whole write), node-influx
 * doubles one before a `'`, and 2.x's client writes tabs and line breaks as `\t`, `\n`.
 */
export function influxNameProblem(name: string): string | null {
  if (name.length > MAX_TAG_CHARS) return `is longer than ${MAX_TAG_CHARS} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'holds a control character (a line break, a tab…), which InfluxDB cannot keep in a name';
  if (name.includes('\\')) return 'holds a backslash, which InfluxDB cannot keep in a name (at the end it breaks the whole write)';
  return null;
}

/** The first tag of a point whose value InfluxDB cannot keep, in words (`meter "a\nb" holds …`), or null. */
export function pointNameProblem(point: RecordPoint): string | null {
  for (const key in point.tags) {
    const problem = influxNameProblem(point.tags[key]);
    if (problem) return `${key} ${JSON.stringify(point.tags[key].slice(0, 60))}${point.tags[key].length > 60 ? '…' : ''} ${problem}`;
  }
  return null;
}

/**
 * A point from loose parts: tags with no value are left out (InfluxDB refuses empty tag
 * values), fields that are not finite numbers or booleans are left out (a point with no
 * field left is no point: null). The instant must be a finite number of ms.
 */
export function recordPoint(
  measurement: string,
  tags: Record<string, string | null | undefined>,
  fields: Record<string, unknown>,
  timestamp: number,
): RecordPoint | null {
  if (!Number.isFinite(timestamp)) return null;
  const keptTags: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) if (typeof value === 'string' && value !== '') keptTags[key] = value;
  const keptFields: Record<string, number | boolean> = {};
  let any = false;
  for (const [key, value] of Object.entries(fields)) {
    if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
      keptFields[key] = value;
      any = true;
    }
  }
  return any ? { measurement, tags: keptTags, fields: keptFields, timestamp: Math.trunc(timestamp) } : null;
}

/**
 * Points as messages for node-red-contrib-influxdb. `influx-out`: one message per point,
 * `msg.measurement`, `msg.payload = [fields with time, tags]` (the node's "array of two
 * objects" form; `time` becomes the point's timestamp). `influx-batch`: one message,
 * `msg.payload = [{ measurement, tags, fields, timestamp }, …]`. Both carry
 * `msg.precision = 'ms'` (InfluxDB 1.x reads a number timestamp in that unit; 2.x's
 * batch node uses its own setting, whose default is ms).
 */
export function influxMessages(points: readonly RecordPoint[], format: InfluxFormat): Array<Record<string, unknown>> {
  if (!points.length) return [];
  if (format === 'influx-batch') {
    return [
      {
        topic: 'records',
        precision: RECORD_PRECISION,
        payload: points.map((p) => ({ measurement: p.measurement, tags: { ...p.tags }, fields: { ...p.fields }, timestamp: p.timestamp })),
      },
    ];
  }
  return points.map((p) => ({
    topic: p.measurement,
    measurement: p.measurement,
    precision: RECORD_PRECISION,
    payload: [{ ...p.fields, time: p.timestamp }, { ...p.tags }],
  }));
}
