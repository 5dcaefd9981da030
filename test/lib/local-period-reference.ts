// An independent check of local periods: Intl.DateTimeFormat (ICU's copy of the tz
// database) reads the wall clock, plain Date UTC getters turn it into a day, ISO week,
// month or year, and a period is judged by what the clock reads at its edges and around
// every zone transition inside it. Where ICU and the package's zone data (moment-timezone)
// read a different offset at any instant looked at, the case is not judged but counted
// as a disagreement of the two databases.
import { DAY_MS, LocalPeriodKind, toLocalMs, zoneInfo, ZoneInfo } from '../../nodes/lib/engine/time/time';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `zone` at instant ms as "epoch ms" of the local date-time, read by Intl. */
export function intlLocalMs(zone: string, ms: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      fractionalSecondDigits: 3,
    } as Intl.DateTimeFormatOptions);
    formatters.set(zone, f);
  }
  const part: Record<string, number> = {};
  for (const p of f.formatToParts(ms)) if (p.type !== 'literal') part[p.type] = Number(p.value);
  return Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second, part.fractionalSecond);
}

/** A number that grows with the local day, week (Monday first), month or year of a local "epoch ms". */
export function periodKey(kind: LocalPeriodKind, localMs: number): number {
  const day = Math.floor(localMs / DAY_MS);
  if (kind === 'day') return day;
  if (kind === 'week') return day - ((((day + 3) % 7) + 7) % 7); // the Monday; day 0 was a Thursday
  const d = new Date(day * DAY_MS);
  return kind === 'month' ? d.getUTCFullYear() * 12 + d.getUTCMonth() : d.getUTCFullYear();
}

/** Zone transitions (instants where the offset changes) in [from, to]. */
export function transitionsIn(zone: ZoneInfo, from: number, to: number): number[] {
  const out: number[] = [];
  for (const u of zone.untils) if (u >= from && u <= to) out.push(u);
  return out;
}

export type Verdict =
  { kind: 'ok'; takenBack: number } | { kind: 'disagree'; at: number; ours: number; intl: number } | { kind: 'wrong'; why: string };

/**
 * Judges `period`, claimed to be the `kind` period of instant `at` in `zone`:
 * - it contains `at`;
 * - the local date reads earlier just before `from` and later at `to` than inside;
 * - inside, the date is the same at `from`, `to - 1`, `at` and either side of every zone
 *   transition (between transitions the clock only runs forward, so these are the only
 *   places it could change); an instant may read a later date only just before the clock
 *   is set back across midnight to the period's own date (`takenBack` counts those);
 * - after `to` the date never comes back (checked at the transitions of the next 2 days).
 */
export function judgePeriod(zoneName: string, kind: LocalPeriodKind, at: number, period: { from: number; to: number }): Verdict {
  const { from, to } = period;
  if (!(from <= at && at < to)) return { kind: 'wrong', why: `does not contain ${iso(at)}` };
  const zone = zoneInfo(zoneName);
  const inside = transitionsIn(zone, from + 1, to - 1);
  const after = transitionsIn(zone, to + 1, to + 2 * DAY_MS);
  const points = [from - 1, from, to - 1, to, at, ...inside.flatMap((u) => [u - 1, u]), ...after.flatMap((u) => [u - 1, u])];
  const local = new Map<number, number>();
  for (const x of points) {
    const intl = intlLocalMs(zoneName, x);
    const ours = toLocalMs(zone, x);
    if (intl !== ours) return { kind: 'disagree', at: x, ours, intl };
    local.set(x, intl);
  }
  const key = (x: number) => periodKey(kind, local.get(x)!);
  const own = key(from);
  if (!(key(from - 1) < own)) return { kind: 'wrong', why: `${iso(from - 1)} reads the same or a later period than from` };
  if (!(key(to) > key(to - 1))) return { kind: 'wrong', why: `the period does not change at to (${iso(to)})` };
  let takenBack = 0;
  for (const x of [to - 1, at, ...inside.flatMap((u) => [u - 1, u])]) {
    if (key(x) === own) continue;
    const setBack = inside.find((u) => u > x && local.get(u)! < local.get(u - 1)! && key(u) === own);
    if (key(x) > own && setBack !== undefined) {
      takenBack++;
      continue;
    }
    return { kind: 'wrong', why: `${iso(x)} reads another ${kind} than from (${iso(from)})` };
  }
  for (const u of after) {
    if (key(u - 1) < key(to) || key(u) < key(to)) return { kind: 'wrong', why: `the ${kind} before comes back at ${iso(u)}` };
  }
  return { kind: 'ok', takenBack };
}

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Dates where a zone changes its clock at or near local midnight: `at` is an instant on
 * the local day in question, `day` its expected bounds where worked out by hand.
 */
export const MIDNIGHT_CASES: Array<{ zone: string; at: string; day?: [string, string]; note: string }> = [
  { zone: 'Atlantic/Azores', at: '2024-03-31T12:00Z', day: ['2024-03-31T01:00Z', '2024-04-01T00:00Z'], note: 'starts at 01:00' },
  {
    zone: 'Atlantic/Azores',
    at: '2024-04-01T00:30Z',
    day: ['2024-04-01T00:00Z', '2024-04-02T00:00Z'],
    note: 'after a day that started at 01:00',
  },
  {
    zone: 'Atlantic/Azores',
    at: '2024-10-27T00:30Z',
    day: ['2024-10-27T00:00Z', '2024-10-28T01:00Z'],
    note: 'first pass of a repeated midnight',
  },
  {
    zone: 'Atlantic/Azores',
    at: '2024-10-27T01:30Z',
    day: ['2024-10-27T00:00Z', '2024-10-28T01:00Z'],
    note: 'second pass of a repeated midnight',
  },
  { zone: 'Atlantic/Azores', at: '2024-10-26T23:59Z', day: ['2024-10-26T00:00Z', '2024-10-27T00:00Z'], note: 'before a repeated midnight' },
  { zone: 'America/Havana', at: '2024-03-10T12:00Z', day: ['2024-03-10T05:00Z', '2024-03-11T04:00Z'], note: 'starts at 01:00' },
  { zone: 'America/Havana', at: '2024-11-03T12:00Z', day: ['2024-11-03T04:00Z', '2024-11-04T05:00Z'], note: 'repeated midnight' },
  { zone: 'Asia/Beirut', at: '2024-03-31T12:00Z', day: ['2024-03-30T22:00Z', '2024-03-31T21:00Z'], note: 'starts at 01:00' },
  { zone: 'Asia/Beirut', at: '2024-10-26T12:00Z', day: ['2024-10-25T21:00Z', '2024-10-26T22:00Z'], note: '23:00 repeats' },
  { zone: 'Asia/Beirut', at: '2024-10-27T12:00Z', day: ['2024-10-26T22:00Z', '2024-10-27T22:00Z'], note: 'after 24:00 went back to 23:00' },
  { zone: 'America/Santiago', at: '2024-09-08T12:00Z', day: ['2024-09-08T04:00Z', '2024-09-09T03:00Z'], note: 'starts at 01:00' },
  { zone: 'America/Santiago', at: '2024-04-06T12:00Z', day: ['2024-04-06T03:00Z', '2024-04-07T04:00Z'], note: '23:00 repeats' },
  { zone: 'America/St_Johns', at: '2010-03-14T12:00Z', day: ['2010-03-14T03:30Z', '2010-03-15T02:30Z'], note: 'jumps at 00:01' },
  {
    zone: 'America/St_Johns',
    at: '2010-11-06T12:00Z',
    day: ['2010-11-06T02:30Z', '2010-11-07T03:30Z'],
    note: 'set back at 00:01 to 23:01',
  },
  { zone: 'America/St_Johns', at: '2010-11-07T02:30:30Z', day: ['2010-11-06T02:30Z', '2010-11-07T03:30Z'], note: 'the minute taken back' },
  { zone: 'America/St_Johns', at: '2010-11-07T03:00Z', day: ['2010-11-06T02:30Z', '2010-11-07T03:30Z'], note: 'the repeated 23:01-00:00' },
  { zone: 'America/St_Johns', at: '2010-11-07T12:00Z', day: ['2010-11-07T03:30Z', '2010-11-08T03:30Z'], note: 'after the set-back' },
  { zone: 'America/Goose_Bay', at: '2009-03-08T12:00Z', note: 'jumps at 00:01' },
  { zone: 'America/Goose_Bay', at: '2009-11-01T03:30Z', note: 'set back at 00:01 to 23:01' },
  { zone: 'America/Goose_Bay', at: '2009-10-31T12:00Z', note: 'before a set-back at 00:01' },
  { zone: 'Africa/Cairo', at: '2023-04-28T12:00Z', note: 'starts at 01:00' },
  { zone: 'Africa/Cairo', at: '2023-10-26T12:00Z', note: '23:00 repeats' },
  { zone: 'America/Asuncion', at: '2023-03-25T12:00Z', note: '23:00 repeats' },
  { zone: 'America/Asuncion', at: '2023-10-01T12:00Z', note: 'starts at 01:00' },
];
