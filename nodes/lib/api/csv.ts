// The CSV form of the sensors response (interface: header line
// `id,name,timestamp,value,unit,interval`, text values quoted), read with csv-parse so
// quoted commas, doubled quotes and line breaks inside names come out right. csv-parse
// takes tens of microseconds a line, seconds for a 2 MB answer, so the text is fed to its
// stream parser in slices with a turn of the event loop between them.
import type { Options, Parser as CsvParser } from 'csv-parse';
import { nextTurn, SLICE } from '../engine/common/slices';

/** csv-parse's stream parser, loaded at first use: most accounts answer in JSON. */
function csvParser(options: Options): CsvParser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Parser } = require('csv-parse') as { Parser: typeof CsvParser };
  return new Parser(options);
}

export const SENSOR_CSV_COLUMNS = ['id', 'name', 'timestamp', 'value', 'unit', 'interval'] as const;

/** A CSV cell typed the way JSON would type it (see parseSensorsCsv). */
export type CsvCell = string | number | null;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Whether a response body looks like the sensors CSV rather than JSON (its header line). */
export function looksLikeSensorsCsv(body: string): boolean {
  const firstLine = body
    .slice(0, 1024)
    .replace(/^\uFEFF/, '')
    .trimStart()
    .split(/\r?\n/, 1)[0];
  return /^"?id"?\s*,\s*"?name"?\s*,/.test(firstLine);
}

/** Columns that hold numbers; every other column is text even when it looks numeric. */
const NUMERIC_COLUMNS: ReadonlySet<unknown> = new Set(['value', 'interval']);

const OPTIONS: Options = {
  bom: true,
  skip_empty_lines: true,
  cast: (value, context) => {
    if (context.header || context.quoting) return value;
    const bare = value.trim();
    if (bare === '') return null;
    return NUMERIC_COLUMNS.has(context.column) && NUMBER.test(bare) ? Number(bare) : bare;
  },
};

/**
 * One record per sensor line, keyed by the header's column names. Cells are typed like
 * the JSON form so that both forms go through the same validation: an empty unquoted
 * cell is null (absent); in the numeric columns an unquoted number is a number and
 * anything else stays text (and fails validation); other columns are text, quoted or
 * not (the docs' sample leaves ids and timestamps bare, and id "1" is text).
 * Rejects with an Error naming the line when the CSV itself is broken or the header
 * lacks a documented column. `sliceChars` is the text parsed per turn of the event loop.
 */
export async function parseSensorsCsv(text: string, sliceChars = SLICE.csvChars): Promise<Array<Record<string, CsvCell>>> {
  const records: Array<Record<string, CsvCell>> = [];
  let header: string[] | null = null;
  const parser = csvParser({
    ...OPTIONS,
    columns: (names: string[]) => (header = names.map((name) => name.trim())),
  });
  parser.on('data', (record: Record<string, CsvCell>) => records.push(record));
  const ended = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
  });
  ended.catch(() => undefined); // awaited below; a failure before that is not unhandled
  for (let at = 0; at < text.length && !parser.destroyed;) {
    let end = Math.min(at + sliceChars, text.length);
    // never split a character in two (a slice of one character takes the pair)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += end - 1 > at ? -1 : 1;
    parser.write(text.slice(at, end));
    at = end;
    if (at < text.length) await nextTurn(); // between slices only: a small answer takes no turn
  }
  parser.end();
  try {
    await ended;
  } catch (err) {
    // csv-parse messages name the line and the problem; they quote no secrets (the body
    // is the service's answer, not our request). Its error object, which holds the raw
    // record, is deliberately not kept as a cause.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`the CSV is malformed: ${(err as Error).message}`);
  }
  const missing = SENSOR_CSV_COLUMNS.filter((column) => !(header ?? []).includes(column));
  // unit and interval are optional fields, but the documented header always has them;
  // only the required ones are insisted on, so a trimmed-down export still reads.
  const missingRequired = missing.filter((column) => column !== 'unit' && column !== 'interval');
  if (missingRequired.length > 0) {
    throw new Error(`the CSV header lacks the column(s) ${missingRequired.join(', ')}`);
  }
  return records;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
