// Tariffs checked (semantics rule 7, warnings of rules 3 and 4) and compiled into the form
// the price and cost engine evaluates (tariff-types.ts), one at a time or a whole answer.
import { shortText } from '../common/format';
import { runAtOnce, runInSlices, SLICE, Steps } from '../common/slices';
import { cachedCompile, remember } from './compiled-tariffs';
import { MAX_ID_CHARS, MAX_PROBLEMS_PER_ANSWER, MAX_QUOTED_CHARS, MAX_RULES_PER_TARIFF, MAX_TARIFFS_PER_ANSWER } from '../common/limits';
import type { CompiledRule, CompiledTariff, Problem, SensorRef, Tariff, TimeKind } from './tariff-types';
import { TIME_ALWAYS, TIME_WITHIN, TIME_WRAPS } from './tariff-types';

export type {
  CompiledRule,
  CompiledTariff,
  ListVisits,
  Problem,
  Rule,
  SegmentWalk,
  SensorRef,
  StackSlots,
  Tariff,
  TimeKind,
} from './tariff-types';
export { TIME_ALWAYS, TIME_WITHIN, TIME_WRAPS } from './tariff-types';

type Json = Record<string, unknown>;

export const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const present = (o: Json, key: string): boolean => o[key] !== undefined && o[key] !== null;
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
/**
 * A value for an error message, cut to MAX_QUOTED_CHARS; never throws (BigInt and
 * cyclic values come from function nodes).
 */
function show(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (typeof x === 'bigint') return shortText(`${x}n`, MAX_QUOTED_CHARS);
  try {
    // a text is cut inside its quotes; anything else as JSON
    if (typeof x === 'string') return JSON.stringify(shortText(x, MAX_QUOTED_CHARS));
    return shortText(JSON.stringify(x) ?? String(x), MAX_QUOTED_CHARS);
  } catch {
    return 'an object that is not JSON';
  }
}

/** Gathers the problems of one answer: the first MAX_PROBLEMS_PER_ANSWER, the rest counted. */
class ProblemList {
  private readonly kept: Problem[] = [];
  private more = 0;
  private moreErrors = 0;

  add(problem: Problem): void {
    if (this.kept.length < MAX_PROBLEMS_PER_ANSWER) this.kept.push(problem);
    else {
      this.more++;
      if (problem.severity === 'error') this.moreErrors++;
    }
  }

  /** The kept problems and, when some were left out, one entry counting them. */
  list(): Problem[] {
    if (this.more === 0) return this.kept;
    const errors = this.moreErrors === 0 ? '' : ` (${this.moreErrors} error${this.moreErrors === 1 ? '' : 's'})`;
    return this.kept.concat({
      severity: this.moreErrors > 0 ? 'error' : 'warning',
      tariffId: null,
      ruleIndex: null,
      field: null,
      message: `and ${this.more} more problem${this.more === 1 ? '' : 's'}${errors}, not listed (at most ${MAX_PROBLEMS_PER_ANSWER} are)`,
    });
  }
}

const SENSOR_FIELDS = ['gateway_id', 'sensor_id', 'sensor_value', 'sensor_condition'] as const;
const TIME_RE = /^(\d\d):(\d\d)(?::(\d\d))?$/;

/** Seconds of the day of `HH:mm[:SS]`; 24:00[:00] only when allowed (as an end). */
export function parseTimeOfDay(text: unknown, isEnd: boolean): number | null {
  if (typeof text !== 'string') return null;
  const m = TIME_RE.exec(text);
  if (!m) return null;
  const h = +m[1];
  const min = +m[2];
  const s = m[3] === undefined ? 0 : +m[3];
  if (min > 59 || s > 59) return null;
  if (h === 24) return isEnd && min === 0 && s === 0 ? 86400 : null;
  return h > 23 ? null : h * 3600 + min * 60 + s;
}

/** A sensor value as a number (`1`, `1.0`, `"1"` are equal); NaN when it is none. */
export function sensorNumber(x: unknown): number {
  if (typeof x === 'number') return Number.isFinite(x) ? x : NaN;
  if (typeof x === 'string' && x.trim() !== '') {
    const v = Number(x);
    return Number.isFinite(v) ? v : NaN;
  }
  return NaN;
}

/** One map key for a gateway's sensor (ids may hold any character but NUL). */
export const sensorKey = (gatewayId: string, sensorId: string): string => `${gatewayId}\u0000${sensorId}`;

/**
 * Validates one tariff, passing its problems to `report`, and compiles it when it has
 * no errors (else null).
 */
function checkTariff(raw: unknown, position: number, report: (problem: Problem) => void): CompiledTariff | null {
  let errors = 0;
  // problems name the tariff by its id, cut so that a huge one cannot flood them
  const tariffId = isObject(raw) && typeof raw.id === 'string' ? shortText(raw.id, MAX_ID_CHARS) : null;
  const who = tariffId !== null ? `tariff ${show(tariffId)}` : `tariff #${position}`;
  const add = (severity: Problem['severity'], ruleIndex: number | null, field: string | null, text: string) => {
    const where = ruleIndex === null ? who : `${who} rule ${ruleIndex}`;
    if (severity === 'error') errors++;
    report({ severity, tariffId, ruleIndex, field, message: `${where}: ${field ? `${field} ` : ''}${text}` });
  };
  if (!isObject(raw)) {
    add('error', null, null, `is not an object (got ${show(raw)})`);
    return null;
  }
  if (tariffId === null) add('error', null, 'id', `must be a string (got ${show(raw.id)})`);
  else if ((raw.id as string).length > MAX_ID_CHARS) add('error', null, 'id', `is longer than ${MAX_ID_CHARS} characters`);
  if (typeof raw.name !== 'string') add('error', null, 'name', `must be a string (got ${show(raw.name)})`);
  if (typeof raw.currency !== 'string') add('error', null, 'currency', `must be a string (got ${show(raw.currency)})`);
  if (!isNumber(raw.vat)) add('error', null, 'vat', `must be a number (got ${show(raw.vat)})`);
  const rawRules = raw.rules;
  if (!Array.isArray(rawRules) || rawRules.length === 0) {
    add('error', null, 'rules', `must be a non-empty list of rules (got ${show(rawRules)})`);
    return null;
  }
  if (rawRules.length > MAX_RULES_PER_TARIFF) {
    add('error', null, 'rules', `has ${rawRules.length} rules, more than the ${MAX_RULES_PER_TARIFF} a tariff may have`);
    return null;
  }

  const sensors: SensorRef[] = [];
  const sensorSlots = new Map<string, number>();
  const rules: CompiledRule[] = [];
  const boundaries = new Set<number>();

  rawRules.forEach((rule: unknown, ruleIndex: number) => {
    const error = (field: string | null, text: string) => add('error', ruleIndex, field, text);
    const warn = (field: string, text: string) => add('warning', ruleIndex, field, text);
    if (!isObject(rule)) {
      error(null, `is not an object (got ${show(rule)})`);
      return;
    }
    for (const field of ['priority', 'price']) {
      if (!isNumber(rule[field])) error(field, `must be a number (got ${show(rule[field])})`);
    }

    let timeKind: TimeKind = TIME_ALWAYS;
    let startMs = 0;
    let endMs = 0;
    if (present(rule, 'time_start') !== present(rule, 'time_end')) {
      const missing = present(rule, 'time_start') ? 'time_end' : 'time_start';
      error(missing, 'is missing: time_start and time_end come together');
    } else if (present(rule, 'time_start')) {
      const start = parseTimeOfDay(rule.time_start, false);
      const end = parseTimeOfDay(rule.time_end, true);
      if (start === null) error('time_start', `must be HH:mm or HH:mm:SS, 00:00 to 23:59:59 (got ${show(rule.time_start)})`);
      if (end === null) error('time_end', `must be HH:mm or HH:mm:SS, 00:00 to 24:00 (got ${show(rule.time_end)})`);
      // start == end and 00:00-24:00 both mean the whole day: no time condition
      if (start !== null && end !== null && start !== end && !(start === 0 && end === 86400)) {
        timeKind = end > start ? TIME_WITHIN : TIME_WRAPS;
        startMs = start * 1000;
        endMs = end * 1000;
        boundaries.add(startMs);
        boundaries.add(endMs % 86400000); // 24:00 is the next midnight
      }
    }

    let weekdayMask = 0;
    const dayField = present(rule, 'weekdays') ? 'weekdays' : present(rule, 'weekday') ? 'weekday' : null;
    if (dayField === 'weekdays' && present(rule, 'weekday')) {
      warn('weekday', 'is ignored because weekdays is also given');
    }
    if (dayField !== null) {
      const days = rule[dayField];
      if (!Array.isArray(days)) {
        error(dayField, `must be a list of ISO weekdays 1..7 (got ${show(days)})`);
      } else if (days.length === 0) {
        warn(dayField, 'is empty, so it does not restrict the days');
      } else {
        days.forEach((day: unknown, k: number) => {
          if (Number.isInteger(day) && (day as number) >= 1 && (day as number) <= 7) weekdayMask |= 1 << (day as number);
          else error(dayField, `entry ${k} must be an ISO weekday 1..7 (got ${show(day)})`);
        });
        if (weekdayMask === 0b11111110) weekdayMask = 0; // all seven days: no condition
        if (weekdayMask !== 0) boundaries.add(0); // the weekday changes at local midnight
      }
    }

    let sensorSlot = -1;
    let sensorValue = NaN;
    let sensorNever = false;
    if (SENSOR_FIELDS.some((f) => present(rule, f))) {
      const missing = SENSOR_FIELDS.filter((f) => !present(rule, f));
      for (const f of missing) error(f, 'is missing: a sensor rule needs gateway_id, sensor_id, sensor_value and sensor_condition');
      for (const f of ['gateway_id', 'sensor_id', 'sensor_condition']) {
        if (present(rule, f) && typeof rule[f] !== 'string') error(f, `must be a string (got ${show(rule[f])})`);
        else if (present(rule, f) && (rule[f] as string).length > MAX_ID_CHARS) error(f, `is longer than ${MAX_ID_CHARS} characters`);
      }
      const value = sensorNumber(rule.sensor_value);
      if (present(rule, 'sensor_value') && Number.isNaN(value)) {
        error('sensor_value', `must be a number (got ${show(rule.sensor_value)})`);
      }
      if (typeof rule.sensor_condition === 'string' && rule.sensor_condition !== 'eq') {
        warn('sensor_condition', `${show(rule.sensor_condition)} is not supported (only eq), so this rule never matches`);
        sensorNever = true;
      }
      if (missing.length === 0 && typeof rule.gateway_id === 'string' && typeof rule.sensor_id === 'string' && !Number.isNaN(value)) {
        const ref = { gatewayId: rule.gateway_id, sensorId: rule.sensor_id };
        const key = sensorKey(ref.gatewayId, ref.sensorId);
        sensorSlot = sensorSlots.get(key) ?? sensors.length;
        if (sensorSlot === sensors.length) {
          sensors.push(ref);
          sensorSlots.set(key, sensorSlot);
        }
        sensorValue = value;
      }
    }

    rules.push({
      ruleIndex,
      priority: rule.priority as number,
      price: rule.price as number,
      timeKind,
      startMs,
      endMs,
      weekdayMask,
      sensorSlot,
      sensorValue,
      sensorNever,
    });
  });

  if (errors > 0) return null;
  const tariff = raw as Tariff;
  rules.sort((a, b) => a.priority - b.priority); // Array#sort is stable: equal priorities keep array order
  return {
    tariff,
    id: tariff.id,
    vat: tariff.vat,
    currency: tariff.currency,
    rules,
    sensors,
    boundariesMs: Array.from(boundaries).sort((a, b) => a - b),
  };
}

/**
 * Splits an API response (an array of tariffs, a single tariff, or their JSON text)
 * into usable tariffs and problems. An invalid tariff is left out as a whole; the
 * others stay usable. Tariffs are returned as given, unknown fields included.
 */
export function parseTariffs(json: unknown): ParsedTariffs {
  return runAtOnce(parseSteps(json));
}

/**
 * parseTariffs with a turn of the event loop after every SLICE.rules rules or so (a
 * tariff is never cut), for answers of megabytes; a small answer takes no turn at all.
 */
export function parseTariffsInSlices(json: unknown): Promise<ParsedTariffs> {
  return runInSlices(parseSteps(json));
}

export interface ParsedTariffs {
  tariffs: Tariff[];
  problems: Problem[];
}

function* parseSteps(json: unknown): Steps<ParsedTariffs> {
  let data = json;
  if (typeof json === 'string') {
    try {
      data = JSON.parse(json);
    } catch (e) {
      return { tariffs: [], problems: [topLevel(`tariffs response is not JSON: ${(e as Error).message}`)] };
    }
  }
  if (isObject(data) && 'rules' in data) data = [data];
  if (!Array.isArray(data)) {
    return { tariffs: [], problems: [topLevel(`tariffs response must be a list of tariffs (got ${show(data)})`)] };
  }
  const tariffs: Tariff[] = [];
  const problems = new ProblemList();
  if (data.length > MAX_TARIFFS_PER_ANSWER) {
    problems.add(
      topLevel(
        `the answer lists ${data.length} tariffs, more than the ${MAX_TARIFFS_PER_ANSWER} allowed: only the first ${MAX_TARIFFS_PER_ANSWER} are read`,
      ),
    );
  }
  const seen = new Set<string>();
  const count = Math.min(data.length, MAX_TARIFFS_PER_ANSWER);
  let rulesInSlice = 0;
  for (let position = 0; position < count; position++) {
    const raw: unknown = data[position];
    const rules = isObject(raw) && Array.isArray(raw.rules) ? Math.min(raw.rules.length, MAX_RULES_PER_TARIFF) : 0;
    if (rulesInSlice > 0 && rulesInSlice + rules > SLICE.rules) {
      yield;
      rulesInSlice = 0;
    }
    rulesInSlice += Math.max(rules, 1);
    const compiled = checkTariff(raw, position, (p) => problems.add(p));
    if (!compiled) continue;
    const id = compiled.id;
    if (seen.has(id)) {
      problems.add({
        severity: 'warning',
        tariffId: id,
        ruleIndex: null,
        field: 'id',
        message: `tariff ${show(id)}: id is used by more than one tariff`,
      });
    }
    seen.add(id);
    tariffs.push(compiled.tariff);
    remember(compiled);
  }
  return { tariffs, problems: problems.list() };
}

function topLevel(message: string): Problem {
  return { severity: 'error', tariffId: null, ruleIndex: null, field: null, message };
}

/**
 * The compiled form of a raw API tariff or one from parseTariffs. An invalid tariff
 * throws a TypeError whose message is its first error.
 */
export function compileTariff(tariff: unknown): CompiledTariff {
  if (typeof tariff === 'object' && tariff !== null) {
    const hit = cachedCompile<CompiledTariff>(tariff);
    if (hit) return hit;
  }
  let firstError: Problem | null = null;
  const compiled = checkTariff(tariff, 0, (p) => {
    if (p.severity === 'error') firstError ??= p;
  });
  if (!compiled) throw new TypeError(firstError !== null ? (firstError as Problem).message : 'invalid tariff');
  remember(compiled);
  return compiled;
}

/** The sensors a tariff's sensor rules read, each once, in rule order. */
export function sensorsUsedBy(tariff: Tariff | unknown): SensorRef[] {
  return compileTariff(tariff).sensors.map((ref) => ({ ...ref }));
}
