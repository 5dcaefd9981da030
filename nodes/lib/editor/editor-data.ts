// What the edit dialogs show, as JSON for the admin routes (nodes/admin-routes.ts):
// connection outcomes in words, tariffs with readable rule rows, the 7-day price chart
// straight from the engine's `schedule`, a gateway's sensors with their decoded kind,
// and the time zone list. No Node-RED here; the routes only pick the credentials.
import { EasyApiError, Sensor } from '../api/client';
import { compiledSchedule, engineContext, ScheduleEntry, SensorValues } from '../engine/price';
import { decodeSensorId, DecodedSensorId } from '../api/sensor-ids';
import { parseTimeOfDay, Problem, Rule, sensorKey, sensorNumber, sensorsUsedBy, Tariff } from '../engine/tariff';
import { localPeriodIn, machineTimeZone, timeZoneNames, zoneInfo } from '../engine/time';
import { dataRecord, setNested } from '../engine/id-map';
import { MAX_SENSORS_LISTED } from '../engine/limits';
import { tariffById, TariffsSeen, whyNoTariff } from '../runtime/tariff-lookup';
import { roundAmount, timeOfDay } from '../engine/format';

/** How a dialog's request went wrong, for the editor to put in words (its catalogue) and for the HTTP status. */
export type EditorErrorCode =
  | 'bad_request' // the dialog sent something unusable (a non-http URL, no token and no deployed account)
  | 'token_rejected'
  | 'no_access'
  | 'not_found'
  | 'unreachable'
  | 'rate_limited'
  | 'server'
  | 'invalid_response'
  | 'unknown_tariff';

export interface EditorError {
  code: EditorErrorCode;
  /** Plain words, never a stack trace, never the token. */
  message: string;
}

/** The error the editor gets for anything thrown while answering a dialog. */
export function editorError(err: unknown): EditorError {
  if (err instanceof EasyApiError) {
    const byCode: Record<string, EditorErrorCode> = {
      unauthorized: 'token_rejected',
      forbidden: 'no_access',
      not_found: 'not_found',
      rate_limited: 'rate_limited',
      server: 'server',
      network: 'unreachable',
      timeout: 'unreachable',
      aborted: 'unreachable',
      invalid_response: 'invalid_response',
    };
    return { code: byCode[err.code] ?? 'invalid_response', message: err.message };
  }
  if (err instanceof EditorRequestError) return { code: err.code, message: err.message };
  // TypeErrors of the client and the engine are worded for users (bad URL, bad zone, bad tariff)
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'bad_request', message: message.split('\n')[0] };
}

/** A problem with the dialog's request itself, already in words. */
export class EditorRequestError extends Error {
  constructor(
    readonly code: EditorErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EditorRequestError';
  }
}

/** HTTP status for an editor error: the dialog's fault 400, the service's 502. */
export function httpStatusOf(error: EditorError): number {
  if (error.code === 'bad_request') return 400;
  if (error.code === 'unknown_tariff') return 404;
  return 502;
}

// ---------------------------------------------------------------------------------------
// Test connection

export interface ConnectionOutcome {
  ok: boolean;
  /** ok | token_rejected | no_access (no tariff access) | unreachable | … (EditorErrorCode) */
  outcome: 'ok' | EditorErrorCode;
  /** Usable tariffs when ok. */
  tariffs: number;
  /** Tariffs left out as invalid (semantics rule 7), when ok. */
  invalid: number;
  message: string;
}

export function connectionOk(parsed: { tariffs: Tariff[]; problems: Problem[] }): ConnectionOutcome {
  const invalid = new Set(parsed.problems.filter((p) => p.severity === 'error').map((p) => p.tariffId ?? '')).size;
  const n = parsed.tariffs.length;
  return { ok: true, outcome: 'ok', tariffs: n, invalid, message: `connected: ${n} tariff${n === 1 ? '' : 's'}` };
}

export function connectionFailed(err: unknown): ConnectionOutcome {
  const e = editorError(err);
  return { ok: false, outcome: e.code, tariffs: 0, invalid: 0, message: e.message };
}

// ---------------------------------------------------------------------------------------
// Tariffs and their rules

export interface RuleRow {
  /** Index in the tariff's own `rules` array. */
  index: number;
  priority: number;
  /** Net and gross (with VAT) price per kWh, as messages carry amounts (roundAmount). */
  net: number;
  gross: number;
  /** null: all day. `wraps`: the range runs past midnight (22:00–06:00); `allDay`: start == end or 00:00–24:00. */
  time: { start: string; end: string; wraps: boolean; allDay: boolean } | null;
  /** ISO weekdays 1..7, null: every day. */
  days: number[] | null;
  /** Which spelling the rule used for its days ('weekday' is the docs' other spelling). */
  daysField: 'weekdays' | 'weekday' | null;
  /** Both spellings given: `weekdays` counts, `weekday` is ignored (semantics rule 3). */
  daysConflict: boolean;
  sensor: { gatewayId: string; sensorId: string; value: number | string; condition: string; never: boolean } | null;
}

export interface TariffInfo {
  id: string;
  name: string;
  currency: string;
  vat: number;
  rules: RuleRow[];
  /** Warnings about this tariff (errors leave a tariff out of `tariffs` altogether). */
  problems: Problem[];
}

export interface TariffList {
  tariffs: TariffInfo[];
  /** Every problem: invalid tariffs (severity error) and warnings. */
  problems: Problem[];
  fetchedAt: number | null;
  /** Data from the deployed account's last good fetch, because this one failed. */
  stale: boolean;
  /** Why they are stale. */
  error?: EditorError;
}

function dayList(x: unknown): number[] | null {
  if (!Array.isArray(x) || x.length === 0) return null;
  const days = [...new Set(x.map(Number))].sort((a, b) => a - b);
  return days.length === 7 ? null : days;
}

export function ruleRow(rule: Rule, index: number, vat: number): RuleRow {
  let time: RuleRow['time'] = null;
  if (typeof rule.time_start === 'string' && typeof rule.time_end === 'string') {
    const a = parseTimeOfDay(rule.time_start, false)!; // the rule passed validation
    const b = parseTimeOfDay(rule.time_end, true)!;
    const allDay = a === b || (a === 0 && b === 86400);
    time = { start: timeOfDay(a), end: timeOfDay(b), wraps: !allDay && b < a, allDay };
  }
  const hasWeekdays = rule.weekdays !== undefined && rule.weekdays !== null;
  const hasWeekday = rule.weekday !== undefined && rule.weekday !== null;
  const daysField = hasWeekdays ? 'weekdays' : hasWeekday ? 'weekday' : null;
  const sensor =
    rule.gateway_id !== undefined && rule.sensor_id !== undefined
      ? {
          gatewayId: String(rule.gateway_id),
          sensorId: String(rule.sensor_id),
          value: rule.sensor_value as number | string,
          condition: String(rule.sensor_condition),
          never: rule.sensor_condition !== 'eq',
        }
      : null;
  return {
    index,
    priority: rule.priority,
    net: rule.price,
    gross: roundAmount(rule.price * (1 + vat / 100)),
    time,
    days: daysField ? dayList(rule[daysField]) : null,
    daysField,
    daysConflict: hasWeekdays && hasWeekday,
    sensor,
  };
}

/** A valid tariff (from parseTariffs) as the dialogs list it, rules in evaluation order; `problems` are its warnings. */
export function tariffInfo(tariff: Tariff, problems: Problem[]): TariffInfo {
  const rows = tariff.rules.map((rule, i) => ruleRow(rule, i, tariff.vat));
  // stable sort: equal priorities keep their array order, as the engine tries them
  rows.sort((a, b) => a.priority - b.priority);
  return {
    id: tariff.id,
    name: tariff.name,
    currency: tariff.currency,
    vat: tariff.vat,
    rules: rows,
    problems,
  };
}

export function tariffList(
  parsed: { tariffs: Tariff[]; problems: Problem[] },
  extra: { fetchedAt: number | null; stale?: boolean; error?: unknown } = { fetchedAt: null },
): TariffList {
  // each tariff's warnings in one pass over the problems, not one per tariff
  const warnings = new Map<string, Problem[]>();
  for (const p of parsed.problems) {
    if (p.severity !== 'warning' || p.tariffId === null) continue;
    const own = warnings.get(p.tariffId) ?? [];
    own.push(p);
    warnings.set(p.tariffId, own);
  }
  const list: TariffList = {
    tariffs: parsed.tariffs.map((t) => tariffInfo(t, warnings.get(t.id) ?? [])),
    problems: parsed.problems,
    fetchedAt: extra.fetchedAt,
    stale: extra.stale === true,
  };
  if (extra.error !== undefined && extra.error !== null) list.error = editorError(extra.error);
  return list;
}

/** The tariff the editor asks about, or an 'unknown_tariff' answer that says why not. */
export function requestedTariff(parsed: TariffsSeen, id: string): Tariff {
  const found = tariffById(parsed, id);
  if (!found) throw new EditorRequestError('unknown_tariff', whyNoTariff(parsed, id));
  return found;
}

// ---------------------------------------------------------------------------------------
// The 7-day price chart

export interface ChartLine {
  /** 'base': every sensor the rules read at 0 (generator off); else one sensor at another value. */
  key: string;
  /** The sensor values this line was computed with (null: the tariff reads no sensor). */
  sensors: SensorValues | null;
  /** The sensor that differs from the base line, for its legend. */
  changed: { gatewayId: string; sensorId: string; value: number } | null;
  /** Exactly `schedule(tariff, from, to, { timezone, sensors })`. */
  segments: ScheduleEntry[];
}

export interface ChartData {
  tariffId: string;
  tariffName: string;
  currency: string;
  vat: number;
  timezone: string;
  /** Local midnight of today … local midnight `days` days later (not always 24 h a day: DST). */
  from: number;
  to: number;
  now: number;
  /** Instants of each local midnight from `from` to `to` (days + 1 of them). */
  dayStarts: number[];
  today: { from: number; to: number };
  lines: ChartLine[];
  /** Lowest and highest net price over all lines; null when no rule matches anywhere. */
  minPrice: number | null;
  maxPrice: number | null;
}

export const CHART_DAYS = 7;
/** Alternative lines are capped: a tariff reading many sensors gets a legible chart. */
const MAX_ALTERNATIVES = 6;
/** Alternatives computed at most (most tried ones only repeat the base line): bounds the work. */
const MAX_TRIED_ALTERNATIVES = 2 * MAX_ALTERNATIVES;

/** Starts of the local days in `timezone` from the day containing `now`, `days` + 1 of them (localPeriod's). */
export function localDayStarts(now: number, timezone: string, days: number): number[] {
  const zone = zoneInfo(timezone);
  const out = [localPeriodIn(zone, 'day', now).from];
  for (let d = 0; d < days; d++) out.push(localPeriodIn(zone, 'day', out[d]).to);
  return out;
}

/** Whether two schedules of the same window give the same price everywhere (one pass over both). */
export function samePrices(a: ScheduleEntry[], b: ScheduleEntry[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i].price !== b[j].price) return false;
    const aTo = a[i].to;
    const bTo = b[j].to;
    if (aTo <= bTo) i++;
    if (bTo <= aTo) j++;
  }
  return i === a.length && j === b.length;
}

/**
 * The chart's data for the week from today's local midnight: one line with every sensor
 * the rules read at 0, and for each such sensor and each other value its rules compare
 * with (1 for a generator input) a line where only that sensor has that value, kept when
 * its prices differ somewhere (the first MAX_TRIED_ALTERNATIVES candidates are computed,
 * at most). Every line's segments are the engine's `schedule`.
 */
export function chartData(tariff: Tariff, now: number, timezone: string, days = CHART_DAYS): ChartData {
  const dayStarts = localDayStarts(now, timezone, days);
  const from = dayStarts[0];
  const to = dayStarts[dayStarts.length - 1];
  const refs = sensorsUsedBy(tariff);
  const valuesFor = (values: Array<[string, string, number]>): SensorValues | null => {
    if (refs.length === 0) return null;
    const out: SensorValues = dataRecord();
    for (const [gw, id, v] of values) setNested(out, gw, id, v);
    return out;
  };
  const base = refs.map((r): [string, string, number] => [r.gatewayId, r.sensorId, 0]);
  const baseSensors = valuesFor(base);
  // compiled once: each line is schedule(tariff, from, to, { timezone, sensors })
  const { ct, zone } = engineContext(tariff, { timezone });
  const run = (sensors: SensorValues | null) => compiledSchedule(ct, zone, from, to, sensors);
  const lines: ChartLine[] = [{ key: 'base', sensors: baseSensors, changed: null, segments: run(baseSensors) }];

  // the values each sensor's rules compare with, gathered in one pass over the rules
  const compared = new Map<string, Set<number>>();
  for (const rule of tariff.rules) {
    if (typeof rule.gateway_id !== 'string' || typeof rule.sensor_id !== 'string') continue;
    const key = sensorKey(rule.gateway_id, rule.sensor_id);
    const v = sensorNumber(rule.sensor_value);
    if (v === v) (compared.get(key) ?? compared.set(key, new Set()).get(key)!).add(v);
  }
  let triedLines = 0;
  for (const ref of refs) {
    if (lines.length > MAX_ALTERNATIVES || triedLines >= MAX_TRIED_ALTERNATIVES) break;
    const tried = new Set<number>([1]);
    for (const v of compared.get(sensorKey(ref.gatewayId, ref.sensorId)) ?? []) tried.add(v);
    tried.delete(0);
    for (const value of [...tried].sort((a, b) => a - b)) {
      if (lines.length > MAX_ALTERNATIVES || triedLines++ >= MAX_TRIED_ALTERNATIVES) break;
      const sensors = valuesFor(
        base.map(([gw, id, v]): [string, string, number] => (gw === ref.gatewayId && id === ref.sensorId ? [gw, id, value] : [gw, id, v])),
      );
      const segments = run(sensors);
      if (samePrices(segments, lines[0].segments)) continue;
      lines.push({ key: `${ref.gatewayId}/${ref.sensorId}=${value}`, sensors, changed: { ...ref, value }, segments });
    }
  }

  let minPrice: number | null = null;
  let maxPrice: number | null = null;
  for (const line of lines) {
    for (const { price } of line.segments) {
      if (price === null) continue;
      if (minPrice === null || price < minPrice) minPrice = price;
      if (maxPrice === null || price > maxPrice) maxPrice = price;
    }
  }
  return {
    tariffId: tariff.id,
    tariffName: tariff.name,
    currency: tariff.currency,
    vat: tariff.vat,
    timezone,
    from,
    to,
    now,
    dayStarts,
    today: { from: dayStarts[0], to: dayStarts[1] },
    lines,
    minPrice,
    maxPrice,
  };
}

// ---------------------------------------------------------------------------------------
// Sensors, gateways, time zones

export interface SensorRow {
  id: string;
  name: string;
  value: number;
  unit: string | null;
  /** Epoch ms of the last value. */
  timestamp: number;
  interval: number | null;
  kind: DecodedSensorId;
}

export interface SensorList {
  gateway: string;
  sensors: SensorRow[];
  /** Sensors of the answer beyond MAX_SENSORS_LISTED, not listed. */
  omitted: number;
}

export function sensorList(gateway: string, sensors: Sensor[]): SensorList {
  return { gateway, sensors: sensorRows(sensors.slice(0, MAX_SENSORS_LISTED)), omitted: Math.max(0, sensors.length - MAX_SENSORS_LISTED) };
}

export function sensorRows(sensors: Sensor[]): SensorRow[] {
  return sensors.map((s) => ({
    id: s.id,
    name: s.name,
    value: s.value,
    unit: s.unit,
    timestamp: s.timestamp,
    interval: s.interval,
    kind: decodeSensorId(s.id),
  }));
}

/** Gateway ids named by sensor rules of these tariffs, in order of first use. */
export function gatewaysOfTariffs(tariffs: Tariff[]): string[] {
  const out = new Set<string>();
  for (const t of tariffs) for (const ref of sensorsUsedBy(t)) out.add(ref.gatewayId);
  return [...out];
}

export interface ZoneList {
  /** Every zone name moment-timezone knows (the IANA database, links included), sorted. */
  zones: string[];
  /** The machine's zone: what an empty time zone stands for. */
  machine: string;
}

let zoneNames: string[] | null = null;

export function zoneList(): ZoneList {
  zoneNames ??= timeZoneNames();
  return { zones: zoneNames, machine: machineTimeZone() };
}
