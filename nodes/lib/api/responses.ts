// What the three endpoints answer, checked against the interface and turned into typed
// values: the JSON forms, and the CSV form of the sensors. Anything else becomes an
// EasyApiError 'invalid_response' that names what was wrong; nothing here throws
// anything else or trusts the service. An answer may be megabytes: it is read in slices
// with a turn of the event loop between them (engine/common/slices.ts), never in one go.
import { looksLikeSensorsCsv, parseSensorsCsv } from './csv';
import { shortText } from '../engine/common/format';
import { EasyApiError } from './http';
import { MAX_QUOTED_CHARS } from '../engine/common/limits';
import { mapInSlices, runInSlices } from '../engine/common/slices';
import { parseJsonSteps } from './json-slices';
import { ParsedTariffs, parseTariffsInSlices } from '../engine/tariff/tariff';
import { toEpochMs } from '../engine/time/time';

export interface Sensor {
  id: string;
  name: string;
  value: number;
  unit: string | null;
  interval: number | null;
  /** Epoch ms of the last sent value. */
  timestamp: number;
  /** The timestamp exactly as the service sent it. */
  timestampRaw: string;
}

/** The documented sensor timestamp shape, YYYY-MM-DDThh:mmZ, seconds allowed. */
const SENSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/;

/** The tariffs answer: a JSON list, each item judged by parseTariffs (bad ones become problems). */
export async function readTariffs(body: string, contentType = ''): Promise<ParsedTariffs> {
  const json = await parseJsonBody(body, contentType, 'the tariffs answer');
  if (!Array.isArray(json)) throw invalid(`the tariffs answer is ${describeJson(json)}, not a list of tariffs`);
  try {
    return await parseTariffsInSlices(json);
  } catch {
    // parseTariffs reports problems rather than throwing; this is the never-crash guard.
    throw invalid('the tariffs answer could not be read');
  }
}

/** The sensors answer of a gateway, JSON or (by content type or its header line) CSV. */
export async function readSensors(body: string, contentType = '', gatewayId = ''): Promise<Sensor[]> {
  const what = `the sensors answer of gateway ${shortText(gatewayId, MAX_QUOTED_CHARS)}`;
  let items: unknown;
  if (/\btext\/csv\b/i.test(contentType) || looksLikeSensorsCsv(body)) {
    try {
      items = await parseSensorsCsv(body);
    } catch (err) {
      throw invalid(`${what}: ${(err as Error).message}`);
    }
  } else {
    items = await parseJsonBody(body, contentType, what);
  }
  if (!Array.isArray(items)) throw invalid(`${what} is ${describeJson(items)}, not a list of sensors`);
  return runInSlices(mapInSlices(items, (item, index) => toSensor(item, index, what)));
}

/** The archival data answer: `[timestamp, value]` rows → `[epochMs, value]`. */
export async function readReadings(body: string, contentType = '', what = 'the data answer'): Promise<Array<[number, number]>> {
  const json = await parseJsonBody(body, contentType, what);
  if (!Array.isArray(json)) throw invalid(`${what} is ${describeJson(json)}, not a list of readings`);
  return runInSlices(mapInSlices(json, (row, index) => toReading(row, index, what)));
}

function invalid(message: string): EasyApiError {
  return new EasyApiError('invalid_response', message);
}

async function parseJsonBody(body: string, contentType: string, what: string): Promise<unknown> {
  if (body.trim() === '') throw invalid(`${what} is empty`);
  try {
    return await runInSlices(parseJsonSteps(body));
  } catch {
    if (/\btext\/html\b/i.test(contentType) || /^\s*</.test(body)) {
      throw invalid(`${what} is a web page, not data (a wrong base URL, or a login page of the mobile network?)`);
    }
    throw invalid(endsOpen(body) ? `${what} is cut off (incomplete JSON)` : `${what} is not valid JSON`);
  }
}

/**
 * Whether JSON text stops inside a string, list or object: the mark of an answer cut
 * short (the parser's own messages vary with where the cut falls).
 */
function endsOpen(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  return inString || depth > 0;
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the text ${JSON.stringify(shortText(value, MAX_QUOTED_CHARS))}`;
  return value === undefined ? 'missing' : describeJson(value);
}

function toSensor(item: unknown, index: number, what: string): Sensor {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw invalid(`${what}: item ${index} is ${describeJson(item)}, not a sensor`);
  }
  const fields = item as Record<string, unknown>;
  // The id comes from the service: shortened so a runaway one cannot flood a status line.
  const label = typeof fields.id === 'string' ? `sensor ${shortText(fields.id, MAX_QUOTED_CHARS)}` : `item ${index}`;
  const wrong = (field: string, expected: string) =>
    invalid(`${what}: ${label} has ${field} ${describeValue(fields[field])}, expected ${expected}`);

  if (typeof fields.id !== 'string' || fields.id === '') throw wrong('id', 'a non-empty text');
  if (typeof fields.name !== 'string') throw wrong('name', 'a text');
  const timestampRaw = fields.timestamp;
  const timestamp = typeof timestampRaw === 'string' && SENSOR_TIMESTAMP.test(timestampRaw) ? toEpochMs(timestampRaw) : null;
  if (timestamp === null) throw wrong('timestamp', 'a UTC time like 2020-02-04T12:00Z');
  // Numbers must be numbers: a number sent as text is a different shape from the one
  // documented, and accepting it would hide a broken service (the fault suite treats it as one).
  if (!isFiniteNumber(fields.value)) throw wrong('value', 'a number');
  const unit = fields.unit ?? null;
  if (unit !== null && typeof unit !== 'string') throw wrong('unit', 'a text or nothing');
  const interval = fields.interval ?? null;
  if (interval !== null && !(isFiniteNumber(interval) && interval >= 0)) throw wrong('interval', 'a number or nothing');
  return {
    id: fields.id,
    name: fields.name,
    value: fields.value,
    // An empty unit (the CSV form's "") says the same as no unit.
    unit: unit === '' ? null : (unit as string | null),
    interval: interval as number | null,
    timestamp: timestamp as number,
    timestampRaw: timestampRaw as string,
  };
}

function toReading(row: unknown, index: number, what: string): [number, number] {
  if (!Array.isArray(row) || row.length !== 2) {
    throw invalid(
      `${what}: row ${index} is ${describeJson(row)}${Array.isArray(row) ? ` of ${row.length}` : ''}, expected [timestamp, value]`,
    );
  }
  const [rawTime, value] = row as [unknown, unknown];
  // Only text timestamps: a bare number could be seconds or milliseconds, nobody can tell.
  const at = typeof rawTime === 'string' ? toEpochMs(rawTime) : null;
  if (at === null) throw invalid(`${what}: row ${index} has timestamp ${describeValue(rawTime)}, expected an ISO date and time`);
  if (!isFiniteNumber(value)) throw invalid(`${what}: row ${index} has value ${describeValue(value)}, expected a number`);
  return [at, value];
}

function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}
