// One meter of easy-peak: its newest reading, the power of its latest interval, the demand
// window holding the newest reading (energy so far) and its month's peaks. Each reading is
// judged first by the engine's meter-glitches (semantics rule 10: suspects held, glitches
// dropped, resets and swaps counting nothing); each interval it decides is split among
// windows by the engine's demandWindows (proportional in time), so the energies are the
// engine's own.
import { DemandWindow, windowShare } from '../../engine/peak/demand';
import { boundaryAfter, boundaryAtOrBefore, demandWindowOf } from '../../engine/peak/demand-window';
import { HOUR_MS, MINUTE_MS, zoneInfo } from '../../engine/time/time';
import type { EnergyUnit, MeterId } from '../common/meter-reading';
import { addClosedWindow, MonthPeaks, monthOf, RankSettings } from '../peak-period/peak-month';
import type { DemandMinutes } from '../../engine/peak/demand-window';
import {
  GlitchSink,
  GlitchState,
  HeldReading,
  judgeReading,
  newGlitchState,
  ResetKind,
  SuspectKind,
} from '../../engine/cost/meter-glitches';
import { arrivedFresh, clockStepped, MeterClock } from './peak-clock';

export interface OpenWindow {
  from: number;
  to: number;
  /** kWh counted in the window so far (from coveredFrom to the newest reading). */
  energy: number;
  /** Where the readings begin to cover the window: its start, or the meter's first reading in it. */
  coveredFrom: number;
  /** The longest interval between readings longer than the gap setting that overlaps it (absent: none): not complete. */
  gap?: { from: number; to: number };
}

export interface LatestPower {
  /** The latest interval between two readings, and its average kW. */
  from: number;
  to: number;
  kw: number;
}

export interface MeterPeaks extends MeterId {
  /** What its readings count, fixed by its first reading (a site sums one unit). */
  unit: EnergyUnit;
  /** The newest accepted reading (the judge's last; held suspects come after it). */
  last: { ts: number; value: number } | null;
  /** The meter's judge of glitches, resets and swaps (engine meter-glitches): its last accepted reading and the suspects held. */
  judge: GlitchState;
  /** null before a second reading, and after a counter reset (its interval has no power). */
  power: LatestPower | null;
  window: OpenWindow | null;
  month: MonthPeaks | null;
  /** When the newest reading arrived and how its gateway's stamps lag (null: not since the deploy, nor stored). */
  clock: MeterClock | null;
}

export interface WindowScope extends RankSettings {
  minutes: DemandMinutes;
  /** A meter's rise faster than this (kW) is a jump, not usage (semantics rule 10). */
  maxPowerKw: number;
  /** An interval between readings longer than this (ms) is a gap: the windows it overlaps are not complete. */
  maxGapMs: number;
}

export interface MeterAdvance {
  /** Why nothing changed: a reading older than the newest (held ones included), or at the same instant. */
  ignored?: 'too_late' | 'duplicate';
  /** The reading is a suspect (semantics rule 10), held until a later one decides: it counts nothing yet. */
  held?: SuspectKind;
  /** Held readings this one showed to be glitches: dropped, counted nowhere (absent: none). */
  glitches?: HeldReading[];
  /** The interval into this reading when it is longer than the gap setting (absent: none). */
  gap?: { from: number; to: number };
  /** Intervals this reading showed to be a counter reset or a meter swap: each counts 0 kWh (absent: none). */
  resets?: Array<{ from: number; to: number; kind: ResetKind }>;
  /** Windows this reading closed, in order (complete when the meter's readings covered all of it). */
  closed: DemandWindow[];
  /** Whether a closed window became one of the month's peaks. */
  newPeak: boolean;
  /** The meter's month right after each closed window was added (closed[i]'s in months[i]), for the records. */
  months: Array<MonthPeaks | null>;
}

export const newMeter = (id: MeterId, unit: EnergyUnit): MeterPeaks => ({
  ...id,
  unit,
  last: null,
  judge: newGlitchState(),
  power: null,
  window: null,
  month: null,
  clock: null,
});

const openAt = (ts: number, scope: WindowScope, energy = 0): OpenWindow => ({
  ...demandWindowOf(ts, scope.timezone, scope.minutes),
  energy,
  coveredFrom: ts,
});

/** The newest instant the meter has judged: its newest held reading, else its newest accepted one. */
export function newestJudged(m: MeterPeaks): number | null {
  const held = m.judge.held;
  return held.length > 0 ? held[held.length - 1].ts : m.last === null ? null : m.last.ts;
}

/**
 * Counts one reading in its meter (changed in place). Readings go forward in time: an
 * older one than the newest judged (held ones included) is `too_late`, one at that instant
 * `duplicate`, and neither changes anything. Each reading is judged first (engine
 * meter-glitches, semantics rule 10): a suspect is held and changes nothing until a later
 * reading decides; what is decided is counted interval by interval, a reset or swap as 0
 * kWh, glitches nowhere. The work is bounded by the calendar: an interval is split among
 * the windows of the month it starts in and of the month it ends in, never of the months
 * between (those months are over; their windows never reach a live month's peaks).
 */
export function advanceMeter(m: MeterPeaks, reading: { ts: number; value: number }, scope: WindowScope): MeterAdvance {
  const out: MeterAdvance = { closed: [], newPeak: false, months: [] };
  const newest = newestJudged(m);
  if (m.last === null || m.window === null || newest === null) {
    m.judge = newGlitchState();
    judgeReading(m.judge, reading.ts, reading.value, scope.maxPowerKw, sink);
    m.last = { ...reading };
    m.window = openAt(reading.ts, scope);
    return out;
  }
  if (reading.ts < newest) return { ...out, ignored: 'too_late' };
  if (reading.ts === newest) return { ...out, ignored: 'duplicate' };
  sink.point(m, scope, out);
  try {
    judgeReading(m.judge, reading.ts, reading.value, scope.maxPowerKw, sink);
  } finally {
    sink.point(null, scope, null);
  }
  const held = m.judge.held;
  if (held.length > 0 && held[held.length - 1].ts === reading.ts) out.held = held[held.length - 1].kind;
  for (const w of out.closed) {
    const added = addClosedWindow(m.month, w, scope);
    m.month = added.month;
    out.months.push(added.month);
    out.newPeak ||= added.newPeak;
  }
  return out;
}

/** The judge's decisions counted as they come (in time order) in the meter being advanced: one sink, pointed at it. */
class MeterSink implements GlitchSink {
  private m: MeterPeaks | null = null;
  private scope: WindowScope | null = null;
  private out: MeterAdvance | null = null;

  point(m: MeterPeaks | null, scope: WindowScope, out: MeterAdvance | null): void {
    this.m = m;
    this.scope = scope;
    this.out = out;
  }

  counted(from: number, fromValue: number, to: number, toValue: number): void {
    if (!this.m) return;
    countInterval(this.m, from, fromValue, to, toValue, null, this.scope!, this.out!.closed);
    if (to - from > this.scope!.maxGapMs) this.out!.gap = { from, to };
  }

  reset(from: number, fromValue: number, to: number, toValue: number, kind: ResetKind): void {
    if (!this.m) return;
    countInterval(this.m, from, fromValue, to, toValue, kind, this.scope!, this.out!.closed);
    (this.out!.resets ??= []).push({ from, to, kind });
    if (to - from > this.scope!.maxGapMs) this.out!.gap = { from, to };
  }

  glitch(ts: number, value: number, kind: SuspectKind): void {
    if (this.out) (this.out.glitches ??= []).push({ ts, value, kind });
  }
}

const sink = new MeterSink();

/**
 * One decided interval into the meter's windows (closing those it passes), its power and its
 * newest reading: usage, or (`reset` set) a new base whose interval counts nothing. The
 * interval is already judged: it is shared among windows by time as demandWindows shares
 * one (windowShare, rule 40), not handed to demandWindows to be cleaned and judged again.
 */
function countInterval(
  m: MeterPeaks,
  from: number,
  fromValue: number,
  to: number,
  toValue: number,
  reset: ResetKind | null,
  scope: WindowScope,
  closed: DemandWindow[],
): void {
  // a reset or swap counts nothing, but covers its windows (rule 40): the same split with no energy
  const energy = reset ? 0 : toValue - fromValue;
  let window = m.window!;
  if (from >= window.from && to < window.to) {
    // the common case, a reading every few seconds: the interval lies inside the open window
    window.energy += energy;
    if (to - from > scope.maxGapMs) markGap(window, from, to);
  } else {
    // split only among the windows of the month it starts in and the month it ends in
    const monthEnd = monthOf(from, scope).to;
    const split = { from, to, energy, closed };
    if (to <= monthEnd) window = shareSpan(window, split, from, to, scope);
    else {
      window = shareSpan(window, split, from, monthEnd, scope);
      window = shareSpan(window, split, Math.max(monthEnd, monthOf(to, scope).from), to, scope);
    }
    if (to >= window.to) {
      // the reading lies on the boundary after the last piece: that window is over
      closed.push(closedWindow(window));
      window = openAt(to, scope);
    }
  }
  m.window = window;
  // a reset or swap says nothing about the power
  m.power = reset ? null : { from, to, kw: (toValue - fromValue) / ((to - from) / HOUR_MS) };
  m.last = { ts: to, value: toValue };
}

/**
 * The interval `split` shared among the windows overlapping [spanFrom, spanTo) from the open
 * window on: the open window's share added to it, each later window opened in turn (the one
 * before it closed into `split.closed`). Returns the window open at the end.
 */
function shareSpan(
  window: OpenWindow,
  split: { from: number; to: number; energy: number; closed: DemandWindow[] },
  spanFrom: number,
  spanTo: number,
  scope: WindowScope,
): OpenWindow {
  const zone = zoneInfo(scope.timezone);
  const stepMs = scope.minutes * MINUTE_MS;
  for (let start = boundaryAtOrBefore(zone, stepMs, spanFrom); start < spanTo;) {
    const end = boundaryAfter(zone, stepMs, start);
    const share = windowShare(split.energy, split.from, split.to, start, end);
    if (start === window.from) window.energy += share;
    else if (end > window.from) {
      split.closed.push(closedWindow(window));
      window = { from: start, to: end, energy: share, coveredFrom: Math.max(start, split.from) };
    }
    if (end > window.from && split.to - split.from > scope.maxGapMs) markGap(window, split.from, split.to);
    start = end;
  }
  return window;
}

/**
 * After a step back of the wall clock by `by` (< 0) ms (docs/semantics.md, "Clock steps"): a
 * meter whose newest reading lies ahead of `now` (stamped by the clock that was ahead)
 * counts on from its last value, moved back with the clock (no later than `now`). Its
 * latest power and a window or month that lie ahead are of a time the clock left: the
 * window opens afresh there, the month's peaks are let go. False when nothing changed.
 */
export function rebaseMeter(m: MeterPeaks, by: number, now: number, scope: WindowScope): boolean {
  if (!m.last || m.last.ts <= now) return false;
  const ts = Math.min(m.last.ts + by, now - 1); // before any reading stamped from now on
  m.last = { ts, value: m.last.value };
  // the judge goes on from there too; suspects it held were stamped by the clock that was ahead: let go
  m.judge = { lastTs: ts, lastValue: m.last.value, held: [] };
  m.power = null;
  if (!m.window || m.window.from > ts || m.window.to <= ts) m.window = openAt(ts, scope);
  else m.window.coveredFrom = Math.min(m.window.coveredFrom, ts);
  if (m.month && m.month.from > ts) m.month = null;
  m.clock = clockStepped(m.clock, by);
  return true;
}

/** The gap [from, to) overlaps window `w`: kept when it is the longest so far (the earlier of equal ones). */
function markGap(w: OpenWindow, from: number, to: number): void {
  if (!w.gap || w.gap.to - w.gap.from < to - from) w.gap = { from, to };
}

/** Whether the meter's readings cover window `w` from its start with no gap. */
export const isCovered = (w: OpenWindow): boolean => w.coveredFrom <= w.from && !w.gap;

/** A window the meter is done with: complete when its readings covered it from its start, with no gap. */
function closedWindow(w: OpenWindow): DemandWindow {
  const kw = w.energy / ((w.to - w.from) / HOUR_MS);
  return { from: w.from, to: w.to, energy: w.energy, kw, complete: isCovered(w), ...(w.gap ? { gap: w.gap } : {}) };
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

// The power-factor meter (semantics rule 66): its readings hold from their stamp until the
// next. kVA = kW ÷ pf at each instant, so a window's kVAh per kWh (its power steady) is the
// time-weighted average of 1/pf: counted as the kWh meters count energy, the cumulative
// ∫(1/pf) dt fed to advanceMeter, so windows, gaps, coverage and closing are theirs.

/** A power-factor meter: its ∫(1/pf) dt as a meter (kWh standing for hours ÷ pf), and the newest reading's power factor, which holds from it on. */
export interface PfMeter {
  meter: MeterPeaks;
  value: number;
}

/** A closed window of the power-factor meter: the part of it its readings covered (hours) and ∫(1/pf) dt over it (hours ÷ pf). */
export interface PfShare {
  weighted: number;
  hours: number;
}

export const newPfMeter = (id: MeterId): PfMeter => ({ meter: newMeter(id, 'kWh'), value: 1 });

/**
 * One power-factor reading counted: the interval since the last reading holds the last
 * reading's power factor (its hours ÷ that added to ∫(1/pf) dt), and from now on this
 * one's. The meter code shares the interval among windows by time and closes the windows
 * it passes; the rise of ∫(1/pf) dt (at least 1 an hour) is never judged a jump. `shares[i]` is closed[i]'s covered
 * part: the first closed window from where the readings began to cover it, the later ones whole.
 */
export function advancePowerFactor(
  pf: PfMeter,
  reading: { ts: number; value: number },
  scope: WindowScope,
): { advance: MeterAdvance; shares: PfShare[] } {
  const { meter } = pf;
  const open = meter.window;
  const last = meter.last;
  const cumulative = last === null ? 0 : last.value + (reading.ts - last.ts) / HOUR_MS / pf.value;
  const advance = advanceMeter(meter, { ts: reading.ts, value: cumulative }, { ...scope, maxPowerKw: Infinity });
  if (!advance.ignored) pf.value = reading.value;
  const shares = advance.closed.map((w) => {
    const from = open && w.from === open.from ? Math.max(w.from, open.coveredFrom) : w.from;
    return { weighted: w.energy, hours: (w.to - from) / HOUR_MS };
  });
  return { advance, shares };
}

/**
 * The power factor of `hours` over which ∫(1/pf) dt is `weighted`: the time-weighted average
 * of 1/pf inverted, at most 1 (the ∫ is a running sum that grows while the node runs: a year
 * on, its float noise reads a few parts in a billion above 1); null: nothing covered.
 */
export const powerFactorOf = (hours: number, weighted: number): number | null =>
  hours > 0 && weighted > 0 ? Math.min(1, hours / weighted) : null;

/** The power factor of the meter's open window so far (the part its readings covered); null: none covered, or its open window is not `w`. */
export function powerFactorSoFar(pf: PfMeter, w?: { from: number }): number | null {
  const { window, last } = pf.meter;
  if (!window || !last || (w && window.from !== w.from)) return null;
  return powerFactorOf((last.ts - window.coveredFrom) / HOUR_MS, window.energy);
}

/** The power factor of the meter in window `w` so far and held to its end (the newest reading's for the rest): the projection's. */
export function projectedPowerFactor(pf: PfMeter, w: { from: number; to: number }): number {
  const { window, last } = pf.meter;
  if (!window || !last || window.from !== w.from) return pf.value;
  const rest = w.to - w.from - (last.ts - window.coveredFrom);
  return powerFactorOf((w.to - w.from) / HOUR_MS, window.energy + rest / HOUR_MS / pf.value) ?? pf.value;
}
