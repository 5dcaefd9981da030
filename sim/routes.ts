// The simulated API's routes and answers as text: which endpoint a path names, the
// JSON or CSV representation asked for, the docs' CSV forms, the UTC query parameters.
import type { sensorReading } from './demo-data';
import type { Endpoint } from './faults';

export interface Reply {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';
const API_PREFIX = '/easy/v1/';

export function jsonReply(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, body: JSON.stringify(value), contentType: JSON_TYPE, headers };
}

export function errorReply(status: number, error: string, message: string, headers?: Record<string, string>): Reply {
  return jsonReply(status, { error, message }, headers);
}

/** A parsed API route: which endpoint, its parameters and the representation asked for. */
export interface Route {
  endpoint: Endpoint;
  format: 'json' | 'csv';
  /** The path named a suffix the endpoint has no form for (tariffs.csv). */
  unsupportedFormat?: boolean;
  gatewayId?: string;
  sensorId?: string;
}

/**
 * `.json` selects JSON and `.csv` selects CSV whatever the Accept header says; with no
 * suffix, `Accept: text/csv` selects CSV and anything else JSON.
 */
function splitSuffix(segment: string, accept: string): { name: string; format: 'json' | 'csv'; suffixed: boolean } {
  const match = /^(.*)\.(json|csv)$/.exec(segment);
  if (match) return { name: match[1], format: match[2] as 'json' | 'csv', suffixed: true };
  return { name: segment, format: /\btext\/csv\b/i.test(accept) ? 'csv' : 'json', suffixed: false };
}

export function parseRoute(pathname: string, accept: string): Route | null {
  if (!pathname.startsWith(API_PREFIX)) return null;
  let segments: string[];
  try {
    segments = pathname.slice(API_PREFIX.length).split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
  if (segments.length === 1) {
    const { name, format, suffixed } = splitSuffix(segments[0], accept);
    if (name !== 'tariffs') return null;
    // The docs: "CSV format is currently not available for this endpoint".
    return { endpoint: 'tariffs', format: 'json', unsupportedFormat: suffixed && format === 'csv' };
  }
  if (segments[0] !== 'gateways' || segments.some((s) => s === '')) return null;
  if (segments.length === 2) {
    const { name, format } = splitSuffix(segments[1], accept);
    return { endpoint: 'sensors', format, gatewayId: name };
  }
  if (segments.length === 4) {
    const { name, format } = splitSuffix(segments[3], accept);
    if (name !== 'data') return null;
    return { endpoint: 'data', format, gatewayId: segments[1], sensorId: segments[2] };
  }
  return null;
}

function csvText(value: string | null): string {
  return value === null ? '' : `"${value.replace(/"/g, '""')}"`;
}

/** An id bare like the docs sample (`e1.kwh,"Main Incomer kWh",...`) unless CSV needs quotes. */
function csvId(id: string): string {
  return /[",\r\n]/.test(id) ? csvText(id) : id;
}

/** The docs' CSV form: `id,name,timestamp,value,unit,interval`, text quoted. */
export function sensorsCsv(rows: Array<ReturnType<typeof sensorReading>>): string {
  const lines = rows.map((r) => [csvId(r.id), csvText(r.name), r.timestamp, r.value, csvText(r.unit), r.interval].join(','));
  return ['id,name,timestamp,value,unit,interval', ...lines].join('\n') + '\n';
}

export function dataCsv(rows: Array<[string, number]>): string {
  return ['timestamp,value', ...rows.map(([ts, value]) => `${csvText(ts)},${value}`)].join('\n') + '\n';
}

/** `from`/`to` of the data endpoint: UTC with the Z the docs insist on, minutes or seconds. */
const UTC_PARAM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z$/;

export function parseUtcParam(name: string, raw: string | null): number | string {
  if (raw === null) return `${name} is required (UTC, e.g. 2020-01-01T12:00Z)`;
  const at = UTC_PARAM.test(raw) ? Date.parse(raw) : NaN;
  return Number.isFinite(at) ? at : `${name} must be a UTC date and time ending in Z, e.g. 2020-01-01T12:00Z`;
}
