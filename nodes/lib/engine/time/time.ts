// The one module family that owns time: instants (semantics rule 8), IANA zones and the
// local wall clock, and local calendar periods. Everything else imports time from here.
// The parts: time-instant (epoch ms, the ISO parser, day numbers), zone-data (zones from
// moment-timezone's data, loaded at first use), zone-clock (wall clock of a zone); this
// file holds the local calendar periods (day, week, month, year, named periods). Local
// time always comes from the zone data, never from Date's local getters, so the
// process's TZ cannot leak in.
import * as instant from './time-instant';
import * as zoneData from './zone-data';
import * as zoneClock from './zone-clock';
import type { ZoneInfo } from './zone-data';

// The parts' names as plain values of this module, not `export { … } from`: TypeScript's
// CommonJS form of a re-export is a getter, called at every use, and the cost walk parses
// each reading's instant through these.
export const {
  SECOND_MS,
  MINUTE_MS,
  HOUR_MS,
  DAY_MS,
  toEpochMs,
  requireEpochMs,
  NEAR_NOW_YEARS,
  isNearNow,
  requireInstantNearNow,
  instantText,
  daysFromCivil,
  civilFromDays,
  parseIsoMs,
  isoResult,
  instantInto,
  parseIsoInto,
  describe,
} = instant;
export type { ZoneInfo } from './zone-data';
export const { momentTz, zoneInfo, timeZoneNames, assertTimeZone, machineTimeZone, zoneOption } = zoneData;
export const { periodIndex, toLocalMs, localToUtc, isoWeekday, instantOfLocal, localDayNumber, localIsoText, localClockText } = zoneClock;

// ---------------------------------------------------------------------------------------
// Local calendar periods. A period is [from, to) in epoch ms; a period that begins on
// local day D begins at localDayStart(D), the instant from which the local date is D or
// later for good. So a day that starts at 01:00 because the clock jumped at midnight
// starts at the jump, a day whose midnight repeats starts at its first pass, and
// consecutive periods tile time with neither gap nor overlap.

/**
 * The instant from which the local date in `zone` is day number `day` or later for good.
 * Usually the instant the clock reads 00:00 of that day (the jump, where a gap skips it;
 * the first pass, where it repeats). Where the clock is set back across midnight
 * (St John's at 00:01 until 2011: 00:00-00:01 of the new day, then 23:01 again) the local
 * date is not monotonic; the day then starts when it comes back for good, so the minute
 * that was taken back belongs to the day before.
 */
export function localDayStart(zone: ZoneInfo, day: number): number {
  const localMs = day * DAY_MS;
  const { untils, offsetMs } = zone;
  // No offset exceeds a day: periods outside these two hold only instants that read
  // earlier (before) or later (after) than localMs.
  const last = periodIndex(zone, localMs + 2 * DAY_MS);
  let start = -Infinity;
  for (let i = periodIndex(zone, localMs - 2 * DAY_MS); i <= last; i++) {
    const periodStart = i === 0 ? -Infinity : untils[i - 1];
    const readsEarlierUntil = localMs - offsetMs[i]; // in period i, instants before this read earlier than localMs
    if (readsEarlierUntil > periodStart) start = Math.max(start, Math.min(untils[i], readsEarlierUntil));
  }
  return start;
}

export type LocalPeriodKind = 'day' | 'week' | 'month' | 'year';
export const LOCAL_PERIOD_KINDS: readonly LocalPeriodKind[] = ['day', 'week', 'month', 'year'];

/** The local date of an instant in `timezone`, `YYYY-MM-DD`. */
export function localDate(at: unknown, options: { timezone: string }): string {
  const zone = zoneOption(options);
  return new Date(localDayNumber(zone, requireEpochMs(at, 'at')) * DAY_MS).toISOString().slice(0, 10);
}

/** First day of the period of `kind` that holds day number d, and first day of the next one. */
function periodDays(kind: LocalPeriodKind, d: number): [number, number] {
  if (kind === 'day') return [d, d + 1];
  if (kind === 'week') {
    const monday = d - (isoWeekday(d * DAY_MS) - 1);
    return [monday, monday + 7];
  }
  const { year, month } = civilFromDays(d);
  if (kind === 'year') return [daysFromCivil(year, 1, 1), daysFromCivil(year + 1, 1, 1)];
  return [daysFromCivil(year, month, 1), month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)];
}

/** localPeriod on zone data: the period of `kind` that contains instant ms. */
export function localPeriodIn(zone: ZoneInfo, kind: LocalPeriodKind, ms: number): { from: number; to: number } {
  let [first, next] = periodDays(kind, localDayNumber(zone, ms));
  let from = localDayStart(zone, first);
  let to = localDayStart(zone, next);
  // Only where the clock is set back across midnight can ms lie in a neighbouring period
  // of the tiling rather than the one of its own local date.
  while (ms >= to) {
    [first, next] = periodDays(kind, next);
    from = to;
    to = localDayStart(zone, next);
  }
  while (ms < from) {
    [first] = periodDays(kind, first - 1);
    to = from;
    from = localDayStart(zone, first);
  }
  return { from, to };
}

/**
 * The local day, ISO week (Monday first), month or year that contains instant `at` in
 * `options.timezone`: `[from, to)` in epoch ms, exact where a day lasts 23 or 25 hours,
 * starts at 01:00 or repeats its midnight.
 */
export function localPeriod(kind: LocalPeriodKind, at: unknown, options: { timezone: string }): { from: number; to: number } {
  if (!LOCAL_PERIOD_KINDS.includes(kind)) {
    throw new TypeError(`kind must be one of ${LOCAL_PERIOD_KINDS.join(', ')}, got ${describe(kind)}`);
  }
  const zone = zoneOption(options);
  return localPeriodIn(zone, kind, requireEpochMs(at, 'at'));
}

export type NamedPeriod = 'today' | 'yesterday' | 'this-week' | 'last-week' | 'this-month' | 'last-month' | 'this-year' | 'last-year';

const NAMED: ReadonlyMap<string, { kind: LocalPeriodKind; back: boolean }> = new Map([
  ['today', { kind: 'day', back: false }],
  ['yesterday', { kind: 'day', back: true }],
  ['this-week', { kind: 'week', back: false }],
  ['last-week', { kind: 'week', back: true }],
  ['this-month', { kind: 'month', back: false }],
  ['last-month', { kind: 'month', back: true }],
  ['this-year', { kind: 'year', back: false }],
  ['last-year', { kind: 'year', back: true }],
]);
export const PERIOD_NAMES: readonly NamedPeriod[] = [...NAMED.keys()] as NamedPeriod[];

/** Whether `name` is one of PERIOD_NAMES (own names only: "constructor" is not one). */
export function isPeriodName(name: unknown): name is NamedPeriod {
  return typeof name === 'string' && NAMED.has(name);
}

/** The kind of local period a name counts in (`last-month` → `month`), null for anything else. */
export function namedPeriodKind(name: unknown): LocalPeriodKind | null {
  return isPeriodName(name) ? NAMED.get(name)!.kind : null;
}

/**
 * The named local period relative to `now` in `options.timezone` (`today`, `yesterday`,
 * `this-week`, `last-week`, `this-month`, `last-month`, `this-year`, `last-year`), as
 * `[from, to)` in epoch ms; a "last" period ends where the current one starts.
 */
export function namedPeriod(name: NamedPeriod, now: unknown, options: { timezone: string }): { from: number; to: number } {
  const named = typeof name === 'string' ? NAMED.get(name) : undefined;
  if (!named) throw new TypeError(`the period must be one of ${PERIOD_NAMES.join(', ')}, got ${describe(name)}`);
  const zone = zoneOption(options);
  const current = localPeriodIn(zone, named.kind, requireEpochMs(now, 'now'));
  return named.back ? localPeriodIn(zone, named.kind, current.from - 1) : current;
}
