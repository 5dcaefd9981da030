// What an easy-plan node is asked to do: its configuration and the one-off overrides a
// message may carry, read into numbers or refused with a message a Node-RED user
// understands.
import { parseTimeOfDay } from '../../engine/tariff/tariff';
import { hours } from '../../engine/plan/plan';
import type { MinSavingOf } from '../../engine/plan/plan-saving';
import { DAY_MS, HOUR_MS, MINUTE_MS, instantOfLocal, localDayNumber, requireEpochMs, zoneInfo } from '../../engine/time/time';

export type PlanWindow = { kind: 'daily'; fromMs: number; untilMs: number } | { kind: 'rolling'; lengthMs: number };

export interface PlanSettings {
  /** Run time per window; 0 runs nothing (all off), longer than the window runs all of it. */
  durationMs: number;
  window: PlanWindow;
  contiguous: boolean;
  /** split plans only: each block lasts at least this long (0 = no minimum) */
  minBlockMs: number;
  /**
   * Run in the cheapest hours of the window, in the dearest (discharge a battery, shed load,
   * sell), or keep the load on and switch it off where that saves most (`save`, Best Save).
   */
  strategy: 'cheapest' | 'dearest' | 'save';
  /** save: the off periods' limits, ms and price per kWh. */
  saving: {
    maxOffInRow: number;
    /** 0: any length */
    minOffInRow: number;
    minOnBetween: number;
    minSaving: number;
    /** what the least saving holds: every instant off, or each off period's average (power-saver's rule) */
    minSavingOf: MinSavingOf;
    recoveryPercent: number;
    recoveryMax: number | undefined;
  };
  /** cheapest: never above this net price; dearest: never below it. */
  priceLimit: number | undefined;
}

/** A plan's span: [from, to) and the run time wanted in it. */
export interface Cycle {
  from: number;
  to: number;
  requested: number;
}

/** A message's one-off plan: `requested` run time in [from, to), asked at `from`. */
export interface OneOff {
  from: number;
  to: number;
  requested: number;
}

/** Run times and minimum blocks are whole seconds: finer values would only make the plan's work grow. */
export const PLAN_RESOLUTION_MS = 1000;

/** A run time in ms from a user's number: whole seconds, or an error naming the field. */
function wholeSeconds(ms: number, what: string): number {
  const rounded = Math.round(ms);
  // a length under a millisecond is no length of zero: it is a mistake to name
  if (rounded % PLAN_RESOLUTION_MS !== 0 || (rounded === 0 && ms !== 0)) {
    throw new Error(`${what} must be whole seconds, got ${rounded === 0 ? 'less than a millisecond' : `${rounded / 1000} s`}`);
  }
  return rounded;
}

/** Longest window a plan may look at: the tariffs are known this far, and it bounds the work. */
export const MAX_WINDOW_MS = 8 * DAY_MS;

function numberIn(value: unknown, what: string, min: number, max: number): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) {
    throw new Error(`${what} must be a number from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`);
  }
  return n;
}

/** An optional field left empty (a node saved before it existed, an emptied input) means 0. */
const blankAsZero = (value: unknown): unknown =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '') ? 0 : value;

function timeOfDay(value: unknown, what: string): number {
  const seconds = parseTimeOfDay(typeof value === 'string' ? value.trim() : value, false);
  if (seconds === null) throw new Error(`${what} must be a local time such as 22:00, got ${JSON.stringify(value) ?? String(value)}`);
  return seconds * 1000;
}

/** The length of a daily window on an ordinary day: until before from wraps midnight; equal means 24 h. */
const dailyLength = (w: { fromMs: number; untilMs: number }) =>
  w.untilMs > w.fromMs ? w.untilMs - w.fromMs : w.untilMs + DAY_MS - w.fromMs;

/** The node's configuration, or an Error saying what is wrong with it. */
export function planSettings(config: Record<string, unknown>): PlanSettings {
  const durationMs = wholeSeconds(
    numberIn(config.durationHours ?? 0, 'the duration (hours)', 0, 192) * HOUR_MS +
      numberIn(config.durationMinutes ?? 0, 'the duration (minutes)', 0, 59) * MINUTE_MS,
    'the duration',
  );
  let window: PlanWindow;
  if (config.mode === 'rolling') {
    window = { kind: 'rolling', lengthMs: numberIn(config.hours, 'the rolling window (hours)', 1, MAX_WINDOW_MS / HOUR_MS) * HOUR_MS };
  } else if (config.mode === 'daily' || config.mode === undefined) {
    window = { kind: 'daily', fromMs: timeOfDay(config.from, 'the window start'), untilMs: timeOfDay(config.until, 'the window end') };
  } else {
    throw new Error(`the window must be daily or rolling, got ${JSON.stringify(config.mode)}`);
  }
  const strategy = config.strategy === undefined || config.strategy === 'cheapest' ? 'cheapest' : config.strategy;
  if (strategy !== 'cheapest' && strategy !== 'dearest' && strategy !== 'save') {
    throw new Error(`the plan must run in the cheapest or the dearest hours, or save, got ${JSON.stringify(config.strategy)}`);
  }
  const saving = savingSettings(strategy === 'save' ? config : {});
  if (saving.minOnBetween <= 0) saving.minOnBetween = MINUTE_MS; // on between two off periods: never 0 (they would be one)
  const limitField = strategy === 'dearest' ? config.minPrice : strategy === 'cheapest' ? config.maxPrice : undefined;
  const priceLimit =
    limitField === undefined || limitField === null || String(limitField).trim() === ''
      ? undefined
      : numberIn(limitField, strategy === 'dearest' ? 'the lowest price' : 'the highest price', -1e6, 1e6);
  const contiguous = config.contiguous === true || config.contiguous === 'true';
  const minBlockMs = contiguous
    ? 0
    : wholeSeconds(
        numberIn(blankAsZero(config.minBlockHours), 'the minimum block (hours)', 0, 192) * HOUR_MS +
          numberIn(blankAsZero(config.minBlockMinutes), 'the minimum block (minutes)', 0, 59) * MINUTE_MS,
        'the minimum block',
      );
  if (durationMs > 0 && minBlockMs > durationMs)
    throw new Error(`the minimum block (${hours(minBlockMs)}) is longer than the duration (${hours(durationMs)})`);
  return { durationMs, window, contiguous, minBlockMs, strategy, priceLimit, saving };
}

/**
 * The next occurrence of a daily window in `timezone` that has not ended at `now`, as
 * instants: a start or end inside a spring-forward gap is the instant of the jump, one
 * inside a repeated hour its first pass.
 */
export function dailyOccurrence(w: { fromMs: number; untilMs: number }, now: number, timezone: string): { from: number; to: number } {
  const zone = zoneInfo(timezone);
  const today = localDayNumber(zone, now) * DAY_MS;
  for (let day = today - DAY_MS; ; day += DAY_MS) {
    const from = instantOfLocal(zone, day + w.fromMs);
    const to = instantOfLocal(zone, day + w.fromMs + dailyLength(w));
    if (to > now) return { from, to };
  }
}

/** The span of the configured plan that has not ended at `now`. */
export function configuredCycle(settings: PlanSettings, now: number, timezone: string): Cycle {
  const w = settings.window;
  const span = w.kind === 'daily' ? dailyOccurrence(w, now, timezone) : { from: now, to: now + w.lengthMs };
  return { ...span, requested: settings.durationMs };
}

/** A run time from a message: minutes as a number, or text such as `2h`, `2 h 30 min`, `90m`, `1:30`. */
export function parseDuration(value: unknown): number {
  const bad = () =>
    new Error(
      `msg.duration must be minutes (a number) or a text such as "2h 30m" or "1:30", got ${JSON.stringify(value) ?? String(value)}`,
    );
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw bad();
    ms = value * MINUTE_MS;
  } else if (typeof value === 'string' && value.length <= 40) {
    const text = value.trim().toLowerCase();
    const clock = /^(\d{1,3}):(\d\d)$/.exec(text);
    const units = /^(?:(\d+(?:\.\d+)?)\s*h(?:ours?)?)?\s*(?:(\d+(?:\.\d+)?)\s*m(?:in(?:utes?)?)?)?$/.exec(text);
    if (clock && +clock[2] < 60) ms = +clock[1] * HOUR_MS + +clock[2] * MINUTE_MS;
    else if (units && (units[1] !== undefined || units[2] !== undefined))
      ms = Number(units[1] ?? 0) * HOUR_MS + Number(units[2] ?? 0) * MINUTE_MS;
    // plain decimal minutes only: "0x7", "1e1" or "Infinity" are not what a user typed as minutes
    else if (/^[+-]?\d+(\.\d+)?$/.test(text)) ms = Number(text) * MINUTE_MS;
    else throw bad();
  } else {
    throw bad();
  }
  if (!(ms >= 0)) throw new Error(`msg.duration must be 0 minutes or more, got ${JSON.stringify(value)}`);
  if (ms > MAX_WINDOW_MS) throw new Error(`msg.duration is longer than ${hours(MAX_WINDOW_MS)}: ${JSON.stringify(value)}`);
  return wholeSeconds(ms, 'msg.duration');
}

/** An instant from a message: a local time of day (the next one after `after`), epoch ms, a Date or ISO text. */
export function parseMoment(value: unknown, what: string, after: number, timezone: string): number {
  if (typeof value === 'string' && /^\d\d:\d\d(:\d\d)?$/.test(value.trim())) {
    const ofDay = timeOfDay(value, what);
    const zone = zoneInfo(timezone);
    const today = localDayNumber(zone, after) * DAY_MS;
    for (let day = today; ; day += DAY_MS) {
      const at = instantOfLocal(zone, day + ofDay);
      if (at > after) return at;
    }
  }
  try {
    return requireEpochMs(value, what);
  } catch {
    throw new Error(`${what} must be a local time such as 07:00, epoch ms or an ISO date, got ${JSON.stringify(value) ?? String(value)}`);
  }
}

/**
 * The span of a plan asked for by a message with `duration`, `from` and/or `until`;
 * what the message leaves out comes from the configured plan. Throws a user's message.
 */
export function oneOffSpan(
  msg: { duration?: unknown; from?: unknown; until?: unknown },
  settings: PlanSettings,
  now: number,
  timezone: string,
): OneOff {
  const base = configuredCycle(settings, now, timezone);
  const requested = msg.duration === undefined ? settings.durationMs : parseDuration(msg.duration);
  // a button ("2 h before 07:00") plans from now; only the end comes from the configured window
  const from = msg.from === undefined ? now : Math.max(now, parseMoment(msg.from, 'msg.from', now, timezone));
  if (from - now > MAX_WINDOW_MS) throw new Error(`msg.from is more than ${hours(MAX_WINDOW_MS)} ahead`);
  const to = msg.until === undefined ? Math.max(base.to, from) : parseMoment(msg.until, 'msg.until', from, timezone);
  if (to - from > MAX_WINDOW_MS) throw new Error(`the window from msg.from to msg.until is longer than ${hours(MAX_WINDOW_MS)}`);
  if (to <= from) throw new Error(`msg.until must be after ${msg.from === undefined ? 'now' : 'msg.from'}`);
  // a span shorter than the run time runs all of it; the plan states the shortfall
  return { from, to, requested };
}

/** An optional number left empty (or a node saved before it existed): the default. */
const blankAs = (value: unknown, fallback: number): unknown =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '') ? fallback : value;

/** Switching off to save: its limits, read only in that mode (the fields are hidden and may be empty otherwise). */
function savingSettings(config: Record<string, unknown>): PlanSettings['saving'] {
  const maxOffInRow = wholeSeconds(
    numberIn(blankAs(config.maxOffMinutes, 60), 'the longest time off (minutes)', 0, 1440) * MINUTE_MS,
    'the longest time off',
  );
  if (maxOffInRow <= 0) throw new Error('the longest time off must be more than 0 minutes');
  const minOffInRow = wholeSeconds(
    numberIn(blankAs(config.minOffMinutes, 0), 'the shortest time off (minutes)', 0, 1440) * MINUTE_MS,
    'the shortest time off',
  );
  if (minOffInRow > maxOffInRow) {
    throw new Error(`the shortest time off (${hours(minOffInRow)}) is longer than the longest (${hours(maxOffInRow)})`);
  }
  const recoveryMax = blankAs(config.recoveryMaxMinutes, -1);
  return {
    maxOffInRow,
    minOffInRow,
    minOnBetween: wholeSeconds(
      numberIn(blankAs(config.minOnMinutes, 1), 'the time on between (minutes)', 0, 1440) * MINUTE_MS,
      'the time on between',
    ),
    minSaving: numberIn(blankAs(config.minSaving, 0), 'the least saving', 0, 1e6),
    minSavingOf: minSavingOf(config.minSavingOf),
    recoveryPercent: numberIn(blankAs(config.recoveryPercent, 0), 'the recovery (%)', 0, 1000),
    recoveryMax: recoveryMax === -1 ? undefined : numberIn(recoveryMax, 'the longest recovery (minutes)', 0, 1440) * MINUTE_MS,
  };
}

/** The least saving at every minute off (the default, also for a node saved before the choice) or on average over each off period. */
function minSavingOf(value: unknown): MinSavingOf {
  if (value === undefined || value === null || value === '' || value === 'instant') return 'instant';
  if (value === 'average') return value;
  throw new Error(
    `the least saving must hold at every minute off ('instant') or on average over each off period ('average'), got ${JSON.stringify(value)}`,
  );
}
