// The tariffs as the dialogs list them: each with readable rule rows in evaluation
// order (times, days, sensor conditions, net and gross), its warnings beside it.
import { parseTimeOfDay, Problem, Rule, Tariff } from '../engine/tariff/tariff';
import { tariffById, TariffsSeen, whyNoTariff } from '../runtime/common/tariff-lookup';
import { roundAmount, timeOfDay } from '../engine/common/format';
import { EditorError, editorError, EditorRequestError } from './editor-errors';

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
