// The CSV form of the sensors response (interface: header line
// `id,name,timestamp,value,unit,interval`, text values quoted), read with csv-parse so
// quoted commas, doubled quotes and line breaks inside names come out right.
import type { parse as Parse } from 'csv-parse/sync';

/** csv-parse, loaded at first use: most accounts answer in JSON. */
function csvParse(): typeof Parse {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('csv-parse/sync') as { parse: typeof Parse }).parse;
}

export const SENSOR_CSV_COLUMNS = ['id', 'name', 'timestamp', 'value', 'unit', 'interval'] as const;

/** A CSV cell typed the way JSON would type it (see parseSensorsCsv). */
export type CsvCell = string | number | null;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Whether a response body looks like the sensors CSV rather than JSON (its header line). */
export function looksLikeSensorsCsv(body: string): boolean {
  const firstLine = body
    .replace(/^\uFEFF/, '')
    .trimStart()
    .split(/\r?\n/, 1)[0];
  return /^"?id"?\s*,\s*"?name"?\s*,/.test(firstLine);
}

/** Columns that hold numbers; every other column is text even when it looks numeric. */
const NUMERIC_COLUMNS: ReadonlySet<unknown> = new Set(['value', 'interval']);

/**
 * One record per sensor line, keyed by the header's column names. Cells are typed like
 * the JSON form so that both forms go through the same validation: an empty unquoted
 * cell is null (absent); in the numeric columns an unquoted number is a number and
 * anything else stays text (and fails validation); other columns are text, quoted or
 * not (the docs' sample leaves ids and timestamps bare, and id "1" is text).
 * Throws an Error naming the line when the CSV itself is broken or the header lacks a
 * documented column.
 */
export function parseSensorsCsv(text: string): Array<Record<string, CsvCell>> {
  let records: Array<Record<string, CsvCell>>;
  try {
    records = csvParse()(text, {
      bom: true,
      columns: (header: string[]) => header.map((name) => name.trim()),
      skip_empty_lines: true,
      cast: (value, context) => {
        if (context.header || context.quoting) return value;
        const bare = value.trim();
        if (bare === '') return null;
        return NUMERIC_COLUMNS.has(context.column) && NUMBER.test(bare) ? Number(bare) : bare;
      },
    });
  } catch (err) {
    // csv-parse messages name the line and the problem; they quote no secrets (the body
    // is the service's answer, not our request). Its error object, which holds the raw
    // record, is deliberately not kept as a cause.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`the CSV is malformed: ${(err as Error).message}`);
  }
  const header = records.length > 0 ? Object.keys(records[0]) : headerOf(text);
  const missing = SENSOR_CSV_COLUMNS.filter((column) => !header.includes(column));
  // unit and interval are optional fields, but the documented header always has them;
  // only the required ones are insisted on, so a trimmed-down export still reads.
  const missingRequired = missing.filter((column) => column !== 'unit' && column !== 'interval');
  if (missingRequired.length > 0) {
    throw new Error(`the CSV header lacks the column(s) ${missingRequired.join(', ')}`);
  }
  return records;
}

function headerOf(text: string): string[] {
  const rows: string[][] = csvParse()(text, { bom: true, to_line: 1 });
  return rows.length > 0 ? rows[0].map((name) => name.trim()) : [];
}
