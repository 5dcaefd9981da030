// One meter of easy-peak: its newest reading, the power of its latest interval, the demand
// window holding the newest reading (energy so far) and its month's peaks. A reading's
// interval is split among windows by the engine's demandWindows (semantics: proportional
// in time, resets count nothing), so the energies are the engine's own.
import { DemandWindow, demandWindows } from '../../engine/peak/demand';
import { demandWindowOf } from '../../engine/peak/demand-window';
import { HOUR_MS } from '../../engine/time/time';
import type { MeterId } from '../common/meter-reading';
import { addClosedWindow, MonthPeaks, monthOf, RankSettings } from './peak-month';
import type { DemandMinutes } from './peak-settings';
import { arrivedFresh, MeterClock } from './peak-clock';

export interface OpenWindow {
  from: number;
  to: number;
  /** kWh counted in the window so far (from coveredFrom to the newest reading). */
  energy: number;
  /** Where the readings begin to cover the window: its start, or the meter's first reading in it. */
  coveredFrom: number;
}

export interface LatestPower {
  /** The latest interval between two readings, and its average kW. */
  from: number;
  to: number;
  kw: number;
}

export interface MeterPeaks extends MeterId {
  last: { ts: number; value: number } | null;
  /** null before a second reading, and after a counter reset (its interval has no power). */
  power: LatestPower | null;
  window: OpenWindow | null;
  month: MonthPeaks | null;
  /** When the newest reading arrived and how its gateway's stamps lag (null: not since the deploy, nor stored). */
  clock: MeterClock | null;
}

export interface WindowScope extends RankSettings {
  minutes: DemandMinutes;
}

export interface MeterAdvance {
  /** Why nothing changed: a reading older than the newest, or at the same instant. */
  ignored?: 'too_late' | 'duplicate';
  /** Windows this reading closed, in order (complete when the meter's readings covered all of it). */
  closed: DemandWindow[];
  /** Whether a closed window became one of the month's peaks. */
  newPeak: boolean;
  /** The meter's month right after each closed window was added (closed[i]'s in months[i]), for the records. */
  months: Array<MonthPeaks | null>;
}

export const newMeter = (id: MeterId): MeterPeaks => ({ ...id, last: null, power: null, window: null, month: null, clock: null });

const openAt = (ts: number, scope: WindowScope, energy = 0): OpenWindow => ({
  ...demandWindowOf(ts, scope.timezone, scope.minutes),
  energy,
  coveredFrom: ts,
});

/**
 * Counts one reading in its meter (changed in place). Readings go forward in time: an
 * older one is `too_late`, one at the newest instant `duplicate`, and neither changes
 * anything. The work is bounded by the calendar: an interval is split among the windows
 * of the month it starts in and of the month it ends in, never of the months between
 * (those months are over; their windows never reach a live month's peaks).
 */
export function advanceMeter(m: MeterPeaks, reading: { ts: number; value: number }, scope: WindowScope): MeterAdvance {
  const closed: DemandWindow[] = [];
  const last = m.last;
  if (last === null || m.window === null) {
    m.last = { ...reading };
    m.window = openAt(reading.ts, scope);
    return { closed, newPeak: false, months: [] };
  }
  if (reading.ts < last.ts) return { ignored: 'too_late', closed, newPeak: false, months: [] };
  if (reading.ts === last.ts) return { ignored: 'duplicate', closed, newPeak: false, months: [] };
  const rows: Array<[number, number]> = [
    [last.ts, last.value],
    [reading.ts, reading.value],
  ];
  const startMonth = monthOf(last.ts, scope.timezone);
  const spans: Array<{ from?: number; to?: number }> =
    reading.ts <= startMonth.to
      ? [{}]
      : [{ to: startMonth.to }, { from: Math.max(startMonth.to, monthOf(reading.ts, scope.timezone).from) }];
  let window = m.window;
  for (const span of spans) {
    for (const piece of demandWindows(rows, { timezone: scope.timezone, minutes: scope.minutes, ...span })) {
      if (piece.to <= window.from) continue;
      if (piece.from === window.from) {
        window.energy += piece.energy;
        continue;
      }
      closed.push(closedWindow(window));
      window = { from: piece.from, to: piece.to, energy: piece.energy, coveredFrom: Math.max(piece.from, last.ts) };
    }
  }
  if (reading.ts >= window.to) {
    // the reading lies on the boundary after the last piece: that window is over
    closed.push(closedWindow(window));
    window = openAt(reading.ts, scope);
  }
  m.window = window;
  const kw = (reading.value - last.value) / ((reading.ts - last.ts) / HOUR_MS);
  // a counter reset (rule 10) says nothing about the power
  m.power = kw >= 0 && Number.isFinite(kw) ? { from: last.ts, to: reading.ts, kw } : null;
  m.last = { ...reading };
  let newPeak = false;
  const months: Array<MonthPeaks | null> = [];
  for (const w of closed) {
    const added = addClosedWindow(m.month, w, scope);
    m.month = added.month;
    months.push(added.month);
    newPeak ||= added.newPeak;
  }
  return { closed, newPeak, months };
}

/** A window the meter is done with: complete when its readings covered it from its start. */
function closedWindow(w: OpenWindow): DemandWindow {
  return { from: w.from, to: w.to, energy: w.energy, kw: w.energy / ((w.to - w.from) / HOUR_MS), complete: w.coveredFrom <= w.from };
}

export interface Projection {
  /** kWh counted in the window so far. */
  energy: number;
  /** The window's average so far: its energy over the time from its start to the newest reading. */
  averageKwSoFar: number | null;
  /** The average the window ends at if the latest power holds for the time no reading covers yet. */
  projectedKw: number | null;
}

/**
 * The projection for a meter in window `w` (the site's current window): its energy in
 * it, plus its latest power over the part of the window its readings do not cover yet
 * (before its first reading in it, and after its newest). A meter still in an earlier
 * window counts its latest power for the whole window.
 */
export function projectMeter(m: MeterPeaks, w: { from: number; to: number }): Projection {
  const inside = m.window !== null && m.window.from === w.from;
  const energy = inside ? m.window!.energy : 0;
  const covered = inside ? m.last!.ts - m.window!.coveredFrom : 0;
  const uncoveredMs = w.to - w.from - covered;
  const elapsed = inside ? m.last!.ts - w.from : 0;
  return {
    energy,
    averageKwSoFar: elapsed > 0 ? energy / (elapsed / HOUR_MS) : null,
    projectedKw: m.power === null ? null : (energy + m.power.kw * (uncoveredMs / HOUR_MS)) / ((w.to - w.from) / HOUR_MS),
  };
}

/**
 * Whether the meter's latest power is recent enough to act on: its readings at most
 * `staleMs` apart, the newest arrived at most `staleMs` before `mono` (this machine's
 * monotonic clock) and not old when it arrived (peak-clock: a gateway's clock may be slow).
 */
export function isFresh(m: MeterPeaks, mono: number, staleMs: number): boolean {
  return m.power !== null && m.power.to - m.power.from <= staleMs && arrivedFresh(m.clock, mono, staleMs);
}
