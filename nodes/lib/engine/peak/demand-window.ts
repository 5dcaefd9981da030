// Demand windows on the local clock (semantics rule 39): where they start and end.
//
// A window boundary is an instant at which the wall clock of the zone reads a multiple of
// `minutes` after local midnight, or jumps forward onto or over one. Between zone
// transitions the clock runs at one offset, so the boundaries there are the instants
// k * minutes - offset; a transition is a boundary when the clock jumps forward onto or
// over a multiple, or is set back onto one. So 15 real minutes stay 15 in a repeated
// hour (each pass has its own windows), a 60-minute window across a 30-minute change
// lasts 30 (forward) or 90 (back), and where local midnight itself is skipped the day's
// first window starts at the jump.
import { MINUTE_MS, ZoneInfo, describe, periodIndex, requireEpochMs, zoneInfo } from '../time/time';

export type DemandMinutes = 15 | 30 | 60;
export const DEMAND_MINUTES: readonly DemandMinutes[] = [15, 30, 60];

/** The largest magnitude of an instant a Date can hold; windows are only made inside it. */
export const MAX_INSTANT_MS = 8.64e15;

/** `minutes` checked: 15, 30 or 60 (each divides a day, so every local midnight is a boundary). */
export function demandMinutes(x: unknown): DemandMinutes {
  if (!DEMAND_MINUTES.includes(x as DemandMinutes)) {
    throw new TypeError(`minutes must be 15, 30 or 60 (the length of a demand window), got ${describe(x)}`);
  }
  return x as DemandMinutes;
}

/** An instant from outside, within the range a Date can hold (else windows would be noise). */
export function windowInstant(x: unknown, what: string): number {
  const ms = requireEpochMs(x, what);
  if (!(Math.abs(ms) <= MAX_INSTANT_MS)) {
    throw new RangeError(`${what} must lie within the range of a Date (±8.64e15 ms), got ${describe(x)}`);
  }
  return ms;
}

/** Whether the zone transition that starts period i (i ≥ 1) is a window boundary. */
function transitionIsBoundary(zone: ZoneInfo, i: number, stepMs: number): boolean {
  const at = zone.untils[i - 1];
  const before = at + zone.offsetMs[i - 1]; // what the old clock would read (it never does)
  const after = at + zone.offsetMs[i]; // what the clock reads from the transition on
  const lastMultiple = Math.floor(after / stepMs) * stepMs;
  // forward: a multiple in [before, after] is read or jumped over; back: only `after` is read
  return after > before ? lastMultiple >= before : lastMultiple === after;
}

/** The latest window boundary at or before instant ms. */
export function boundaryAtOrBefore(zone: ZoneInfo, stepMs: number, ms: number): number {
  let i = periodIndex(zone, ms);
  let boundary = Math.floor((ms + zone.offsetMs[i]) / stepMs) * stepMs - zone.offsetMs[i];
  for (;;) {
    const start = i === 0 ? -Infinity : zone.untils[i - 1];
    if (boundary >= start) return boundary;
    if (transitionIsBoundary(zone, i, stepMs)) return start;
    // the period before: its last boundary strictly before `start`
    i--;
    const o = zone.offsetMs[i];
    boundary = Math.ceil((start + o) / stepMs) * stepMs - stepMs - o;
  }
}

/** The first window boundary strictly after instant ms. */
export function boundaryAfter(zone: ZoneInfo, stepMs: number, ms: number): number {
  let i = periodIndex(zone, ms);
  let from = ms;
  for (;;) {
    const o = zone.offsetMs[i];
    const boundary = Math.floor((from + o) / stepMs) * stepMs + stepMs - o;
    const end = zone.untils[i]; // +Infinity for the last period
    if (boundary < end) return boundary;
    if (transitionIsBoundary(zone, i + 1, stepMs)) return end;
    // the next period: its boundaries strictly after `end` (end itself is none)
    i++;
    from = end;
  }
}

/** demandWindowOf on zone data, `minutes` checked. */
export function windowOfIn(zone: ZoneInfo, stepMs: number, ms: number): { from: number; to: number } {
  return { from: boundaryAtOrBefore(zone, stepMs, ms), to: boundaryAfter(zone, stepMs, ms) };
}

/**
 * The demand window of `minutes` (15, 30 or 60) containing instant `at` in `timezone`:
 * `[from, to)` in epoch ms. Windows start at local midnight and every `minutes` after by
 * the wall clock; a window a clock change falls in is as long as it really is
 * (docs/semantics.md, rule 39).
 */
export function demandWindowOf(at: unknown, timezone: string, minutes: DemandMinutes): { from: number; to: number } {
  if (timezone === undefined || timezone === null) throw new TypeError('timezone is required (an IANA name such as Europe/London)');
  const zone = zoneInfo(timezone);
  const stepMs = demandMinutes(minutes) * MINUTE_MS;
  return windowOfIn(zone, stepMs, windowInstant(at, 'at'));
}
