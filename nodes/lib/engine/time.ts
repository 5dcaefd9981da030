// Instants (semantics rule 8), IANA zones and the local wall clock. Local time always comes
// from moment-timezone's zone data, never from Date's local getters, so the process's
// TZ cannot leak in.
import type Moment from 'moment-timezone';

let loadedMoment: typeof Moment | null = null;

/**
 * moment-timezone, loaded at first use: its zone data is ~8 MB of memory, which a
 * Node-RED that has the package installed but none of its nodes deployed never pays.
 */
export function momentTz(): typeof Moment {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loadedMoment ??= require('moment-timezone') as typeof Moment;
  return loadedMoment;
}

export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/**
 * Epoch milliseconds of an instant given as epoch ms, a valid Date, or an ISO 8601
 * string (`YYYY-MM-DD`, `YYYY-MM-DD[T ]hh:mm[:ss[.f+]]`, optional `Z`, `±hh:mm`,
 * `±hhmm` or `±hh`). A string without offset is UTC. Anything else gives null.
 */
export function toEpochMs(x: unknown): number | null {
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'string') return parseIsoMs(x);
  if (isDate(x)) {
    const ms = Date.prototype.getTime.call(x);
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/**
 * A Date also when made in another realm (a function node's vm context), where
 * instanceof fails: Date's own getTime accepts real Dates only.
 */
function isDate(x: unknown): x is Date {
  if (x instanceof Date) return true;
  if (typeof x !== 'object' || x === null) return false;
  try {
    Date.prototype.getTime.call(x);
    return true;
  } catch {
    return false;
  }
}

/** toEpochMs, throwing a TypeError that names `what` when x is not an instant. */
export function requireEpochMs(x: unknown, what: string): number {
  const ms = toEpochMs(x);
  if (ms === null) {
    throw new TypeError(`${what} must be epoch milliseconds, a Date or an ISO 8601 string, got ${describe(x)}`);
  }
  return ms;
}

function describe(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x);
  if (isDate(x)) {
    const ms = Date.prototype.getTime.call(x);
    return Number.isFinite(ms) ? `the Date ${instantText(ms)}` : 'an invalid Date';
  }
  return x === null ? 'null' : typeof x === 'object' ? 'an object' : String(x);
}

/** How far from now an instant taken from a message may lie: further is a unit mistake or garbage. */
export const NEAR_NOW_YEARS = 100;
const NEAR_NOW_MS = NEAR_NOW_YEARS * 365.25 * DAY_MS;

/** Whether instant ms lies within NEAR_NOW_YEARS of now. */
export function isNearNow(ms: number, now: number): boolean {
  return Math.abs(ms - now) <= NEAR_NOW_MS;
}

/**
 * requireEpochMs for a field of a message: also a RangeError naming `what` when the
 * instant lies more than NEAR_NOW_YEARS from now.
 */
export function requireInstantNearNow(x: unknown, what: string, now: number): number {
  const ms = requireEpochMs(x, what);
  if (!isNearNow(ms, now)) throw new RangeError(`${what} must lie within ${NEAR_NOW_YEARS} years of now, got ${describe(x)}`);
  return ms;
}

/** ISO 8601 text of instant ms, or the number where a Date cannot hold it (past ±8.64e15). */
export function instantText(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

const C0 = 48; // '0'

/** Value of the two decimal digits at s[i], s[i+1], or -1 if either is not a digit. */
function two(s: string, i: number): number {
  const hi = s.charCodeAt(i) - C0; // NaN past the end
  const lo = s.charCodeAt(i + 1) - C0;
  return hi >= 0 && hi <= 9 && lo >= 0 && lo <= 9 ? hi * 10 + lo : -1;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Hand-written parser for the fixed ISO shapes: no Date.parse (which reads an
 * offset-less date-time as host-local time) and no allocation. Fractions of a
 * millisecond are truncated.
 */
export function parseIsoMs(s: string): number | null {
  return parseIsoInto(s) ? isoResult[0] : null;
}

/**
 * Where parseIsoInto leaves its result. A double returned from a function that is not
 * inlined is boxed on the heap; hot loops read it from here instead, allocation-free.
 */
export const isoResult = new Float64Array(1);

/** toEpochMs into isoResult[0] (NaN when x is no instant), allocation-free for strings. */
export function instantInto(x: unknown): void {
  if (typeof x === 'string') {
    if (!parseIsoInto(x)) isoResult[0] = NaN;
  } else {
    const ms = toEpochMs(x);
    isoResult[0] = ms === null ? NaN : ms;
  }
}

/**
 * parseIsoMs without allocation: true and the instant in isoResult[0], or false.
 *
 * Fast path for the shape the archival endpoint sends, `YYYY-MM-DDThh:mm:ss` (here
 * also with `Z`), when the date is the one of the date-time parsed before: readings
 * come in runs of one date (1 440 a day at one-minute intervals), and a year of them
 * is half a million strings, where reading characters one by one is most of the cost.
 * The eleven characters `YYYY-MM-DDT` are then checked by two string comparisons (see
 * sameDateFrom) instead of being read and validated again; only hh:mm:ss is read.
 * Anything else (another date, fractions, offsets) takes the general parser.
 */
export function parseIsoInto(s: string): boolean {
  const n = s.length;
  if ((n === 19 || (n === 20 && (s.charCodeAt(19) === 90 || s.charCodeAt(19) === 122))) && s >= sameDateFrom && s < sameDateTo) {
    const ms = clockMs(s);
    if (ms >= 0) {
      isoResult[0] = sameDateDays * DAY_MS + ms;
      return true;
    }
  }
  return parseIsoGeneral(s);
}

/** Ms of the day of `hh:mm:ss` at s[11..18], -1 if it is not that. */
function clockMs(s: string): number {
  if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return -1; // ':'
  const hour = two(s, 11);
  const minute = two(s, 14);
  const second = two(s, 17);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return -1;
  return hour * HOUR_MS + minute * MINUTE_MS + second * SECOND_MS;
}

// The date and separator of the last date-time parsed, `YYYY-MM-DDT`, as the range of
// strings that start with it: [sameDateFrom, sameDateTo), where sameDateTo is the same
// with its last character one higher. A string in that range starts with exactly those
// eleven (already validated) characters. JavaScript compares strings natively, about
// three times faster than reading eleven characters with charCodeAt. Set once per
// date (two short strings), so allocation grows with days, not with readings.
let sameDateFrom = '\uffff'; // an empty range: nothing is >= '\uffff' and < ''
let sameDateTo = '';
let sameDateDays = 0;

/** Makes s's date and separator (s[0..10], valid, the date being day `days`) the fast path's. */
function rememberDateTime(s: string, days: number): void {
  if (s >= sameDateFrom && s < sameDateTo) return;
  sameDateFrom = s.slice(0, 11);
  sameDateTo = s.slice(0, 10) + String.fromCharCode(s.charCodeAt(10) + 1);
  sameDateDays = days;
}

/** Every shape parseIsoMs accepts. */
function parseIsoGeneral(s: string): boolean {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const century = two(s, 0);
  const yy = two(s, 2);
  const month = two(s, 5);
  const day = two(s, 8);
  if (century < 0 || yy < 0 || month < 1 || month > 12 || day < 1) return false;
  const days = dayNumber(century * 100 + yy, month, day);
  if (days === NO_DAY) return false;
  let ms = days * DAY_MS;
  let i = 10;
  if (n > 10) {
    const sep = s.charCodeAt(10);
    if ((sep !== 84 && sep !== 116 && sep !== 32) || s.charCodeAt(13) !== 58) return false; // T t ' ' / ':'
    rememberDateTime(s, days);
    const hour = two(s, 11);
    const minute = two(s, 14);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59) return false;
    ms += hour * HOUR_MS + minute * MINUTE_MS;
    i = 16;
    if (i < n && s.charCodeAt(i) === 58) {
      const second = two(s, i + 1);
      if (second < 0 || second > 59) return false;
      ms += second * SECOND_MS;
      i += 3;
      if (i < n && s.charCodeAt(i) === 46) {
        i++;
        const fracStart = i;
        let frac = 0;
        while (i < n) {
          const d = s.charCodeAt(i) - C0;
          if (d < 0 || d > 9) break;
          if (i - fracStart < 3) frac = frac * 10 + d;
          i++;
        }
        const len = i - fracStart;
        if (len === 0) return false;
        ms += len === 1 ? frac * 100 : len === 2 ? frac * 10 : frac;
      }
    }
  }
  if (i < n) {
    const c = s.charCodeAt(i);
    if (c === 90 || c === 122) {
      if (i + 1 !== n) return false; // Z z
    } else {
      if (c !== 43 && c !== 45) return false; // + -
      const oh = two(s, i + 1);
      let om = 0;
      const rest = n - (i + 3);
      if (rest === 3 && s.charCodeAt(i + 3) === 58) om = two(s, i + 4);
      else if (rest === 2) om = two(s, i + 3);
      else if (rest !== 0) return false;
      if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
      const offset = oh * HOUR_MS + om * MINUTE_MS;
      ms = c === 43 ? ms - offset : ms + offset;
    }
  }
  isoResult[0] = ms;
  return true;
}

const NO_DAY = 0x7fffffff;

// Readings come in runs of the same date: remember the last one. Small integers only,
// so nothing is boxed.
let cachedDate = -1; // year * 10000 + month * 100 + day
let cachedDays = 0;

/** Days since 1970-01-01 of a date, NO_DAY if it does not exist. */
function dayNumber(year: number, month: number, day: number): number {
  const date = year * 10000 + month * 100 + day;
  if (date === cachedDate) return cachedDays;
  if (day > daysInMonth(year, month)) return NO_DAY;
  cachedDate = date;
  cachedDays = daysFromCivil(year, month, day);
  return cachedDays;
}

/**
 * A zone's history as typed arrays: offsetMs[i] (local = utc + offsetMs[i]) holds for
 * instants before untils[i]; the last until is +Infinity.
 */
export interface ZoneInfo {
  readonly name: string;
  readonly untils: Float64Array;
  readonly offsetMs: Float64Array;
}

const zoneCache = new Map<string, ZoneInfo>();

function unknownZone(name: unknown): Error {
  const shown = typeof name === 'string' ? name : String(name);
  return new Error(`unknown time zone "${shown}" (use an IANA name such as Europe/London)`);
}

/** The zone's data; throws the unknown-zone Error for anything that is not an IANA zone. */
export function zoneInfo(name: string): ZoneInfo {
  const cached = zoneCache.get(name);
  if (cached) return cached;
  const zone = typeof name === 'string' && name !== '' ? momentTz().tz.zone(name) : null;
  if (!zone) throw unknownZone(name);
  const info: ZoneInfo = {
    name: zone.name,
    untils: Float64Array.from(zone.untils),
    // moment's offsets are minutes west of UTC, sometimes fractional (LMT)
    offsetMs: Float64Array.from(zone.offsets, (minutes) => -Math.round(minutes * MINUTE_MS)),
  };
  zoneCache.set(name, info);
  return info;
}

/** Every zone name of the zone data (the IANA database, links included), sorted. */
export function timeZoneNames(): string[] {
  return [...momentTz().tz.names()].sort();
}

/** The wall clock of `zone` at instant ms as ISO text without offset: `YYYY-MM-DDTHH:mm:ss.sss`. */
export function localIsoText(zone: ZoneInfo, ms: number): string {
  return new Date(toLocalMs(zone, ms)).toISOString().slice(0, 23);
}

/** `HH:mm:ss` of instant ms on the wall clock of `zone`. */
export function localClockText(zone: ZoneInfo, ms: number): string {
  return localIsoText(zone, ms).slice(11, 19);
}

/** Throws `Error('unknown time zone "X" (...)')` unless name is an IANA zone. */
export function assertTimeZone(name: string): void {
  zoneInfo(name);
}

/** The zone of the machine (Intl), or UTC when it is unknown to the zone data. */
export function machineTimeZone(): string {
  let name: string | undefined;
  try {
    name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    name = undefined;
  }
  return name && momentTz().tz.zone(name) ? name : 'UTC';
}

/** Index of the zone period that contains instant ms. */
export function periodIndex(zone: ZoneInfo, ms: number): number {
  const u = zone.untils;
  let lo = 0;
  let hi = u.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ms < u[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Local wall-clock time of instant ms, as "epoch ms" of the local date-time. */
export function toLocalMs(zone: ZoneInfo, ms: number): number {
  return ms + zone.offsetMs[periodIndex(zone, ms)];
}

/**
 * The instants whose local wall clock reads localMs, ascending: none in a gap, two in
 * a repeated hour, otherwise one.
 */
export function localToUtc(zone: ZoneInfo, localMs: number): number[] {
  const out: number[] = [];
  // Offsets within two days cover every real transition; try each distinct one.
  const first = periodIndex(zone, localMs - 2 * DAY_MS);
  const last = periodIndex(zone, localMs + 2 * DAY_MS);
  for (let i = first; i <= last; i++) {
    const utc = localMs - zone.offsetMs[i];
    if (periodIndex(zone, utc) === i && out.indexOf(utc) < 0) out.push(utc);
  }
  return out.sort((a, b) => a - b);
}

/** ISO weekday (1 = Monday … 7 = Sunday) of a local "epoch ms". */
export function isoWeekday(localMs: number): number {
  const days = Math.floor(localMs / DAY_MS);
  return ((((days + 3) % 7) + 7) % 7) + 1; // 1970-01-01 was a Thursday
}

/**
 * The first instant at which the local clock of `zone` reads localMs or later: where a gap
 * skips that reading (spring forward), the instant of the jump; where it repeats, the
 * first pass. Exact: the clock runs at one offset within each zone period.
 */
export function instantOfLocal(zone: ZoneInfo, localMs: number): number {
  const { untils, offsetMs } = zone;
  // No offset exceeds a day, so no instant before this period's start reads localMs or later.
  let i = periodIndex(zone, localMs - 2 * DAY_MS);
  for (; ; i++) {
    if (untils[i] + offsetMs[i] > localMs) {
      const start = i === 0 ? -Infinity : untils[i - 1];
      return Math.max(start, localMs - offsetMs[i]);
    }
  }
}

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

/** Year, month (1-12) and day of a day number (days since 1970-01-01; H. Hinnant's civil_from_days). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: era * 400 + yoe + (month <= 2 ? 1 : 0), month, day };
}

/** The local date of instant ms, as a day number (days since 1970-01-01). */
export function localDayNumber(zone: ZoneInfo, ms: number): number {
  return Math.floor(toLocalMs(zone, ms) / DAY_MS);
}

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

/** The zone of an options object, with the same errors as the engine's. */
export function zoneOption(options: unknown): ZoneInfo {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object with a timezone, e.g. { timezone: "Europe/London" }');
  }
  const timezone = (options as { timezone?: unknown }).timezone;
  // No silent default: the process's zone must never be used by accident.
  if (timezone === undefined || timezone === null) throw new TypeError('options.timezone is required (an IANA name such as Europe/London)');
  return zoneInfo(timezone as string);
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
