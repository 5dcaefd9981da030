// Instants (semantics rule 8): epoch milliseconds from numbers, Dates (of any realm) and
// ISO 8601 text, read by a hand-written, allocation-free parser (never Date.parse, which
// reads an offset-less date-time in the process's zone); the checks and words for bad
// ones; day numbers of the proleptic Gregorian calendar. Part of the time family:
// import it through engine/time.

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

export function describe(x: unknown): string {
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
