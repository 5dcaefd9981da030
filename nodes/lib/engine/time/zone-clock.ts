// A zone's wall clock from its zone data: the local time of an instant, the instants of
// a local time (none in a gap, two in a repeated hour), weekdays and local day numbers.
// Part of the time family: import it through engine/time.
import { DAY_MS } from './time-instant';
import type { ZoneInfo } from './zone-data';

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

/** The local date of instant ms, as a day number (days since 1970-01-01). */
export function localDayNumber(zone: ZoneInfo, ms: number): number {
  return Math.floor(toLocalMs(zone, ms) / DAY_MS);
}

/** The wall clock of `zone` at instant ms as ISO text without offset: `YYYY-MM-DDTHH:mm:ss.sss`. */
export function localIsoText(zone: ZoneInfo, ms: number): string {
  return new Date(toLocalMs(zone, ms)).toISOString().slice(0, 23);
}

/** `HH:mm:ss` of instant ms on the wall clock of `zone`. */
export function localClockText(zone: ZoneInfo, ms: number): string {
  return localIsoText(zone, ms).slice(11, 19);
}
