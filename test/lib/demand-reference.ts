// A slow, independent reading of the demand rules (docs/semantics.md, rules 39-41), for
// the property tests: the wall clock read by Intl minute by minute (never the engine's
// zone code), readings cleaned by a plain filter and sort and judged by rule 10 read
// literally (slowJudge), energy per window as the difference of the linearly interpolated
// counted energy at its two ends, peaks by
// sorting every candidate.
import { intlLocalMs } from './local-period-reference';
import { slowJudge } from './glitch-history';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';

/** The zones of the issue, each with clock changes of 2023-2024 (instants of the change). */
export const ZONES: Record<string, string[]> = {
  'Atlantic/Azores': ['2023-03-26T01:00Z', '2023-10-29T01:00Z', '2024-03-31T01:00Z', '2024-10-27T01:00Z'],
  'America/Havana': ['2023-03-12T05:00Z', '2023-11-05T05:00Z', '2024-03-10T05:00Z', '2024-11-03T05:00Z'],
  'Asia/Beirut': ['2023-03-25T22:00Z', '2023-10-28T21:00Z', '2024-03-30T22:00Z', '2024-10-26T21:00Z'],
  'Australia/Lord_Howe': ['2023-04-01T15:00Z', '2023-09-30T15:30Z', '2024-04-06T15:00Z', '2024-10-05T15:30Z'],
  'Europe/London': ['2023-03-26T01:00Z', '2023-10-29T01:00Z', '2024-03-31T01:00Z', '2024-10-27T01:00Z'],
  UTC: ['2024-01-01T00:00Z', '2024-06-30T12:00Z'],
};

export const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const clock = new Map<string, number>();
/** Intl's wall clock of `zone` at ms as local "epoch ms", cached (the walks ask for the same minutes often). */
export function wallClock(zone: string, ms: number): number {
  const key = `${zone} ${ms}`;
  let local = clock.get(key);
  if (local === undefined) {
    local = intlLocalMs(zone, ms);
    if (clock.size > 500_000) clock.clear();
    clock.set(key, local);
  }
  return local;
}

/**
 * Whether a window starts at minute t (on the minute grid; every clock change of the
 * zones tested is on a whole minute): the clock reads a multiple of `minutes` at t, or
 * jumped forward at t onto or over one.
 */
export function startsWindow(zone: string, t: number, minutes: number): boolean {
  const step = minutes * MINUTE;
  const now = wallClock(zone, t);
  if (now % step === 0) return true;
  const wouldRead = wallClock(zone, t - MINUTE) + MINUTE; // the clock had it run on
  return now > wouldRead && Math.floor(now / step) * step >= wouldRead;
}

/** The window holding `at`, found by walking minute by minute each way. */
export function slowWindowOf(zone: string, at: number, minutes: number): { from: number; to: number } {
  let from = Math.floor(at / MINUTE) * MINUTE;
  while (!startsWindow(zone, from, minutes)) from -= MINUTE;
  let to = Math.floor(at / MINUTE) * MINUTE + MINUTE;
  while (!startsWindow(zone, to, minutes)) to += MINUTE;
  return { from, to };
}

export type Row = unknown;

/** Rule 9 plainly: rows that parse, stable order by time, the last of equal times in input order. */
export function slowClean(rows: Row[]): Array<[number, number]> {
  const parsed: Array<{ t: number; v: number; i: number }> = [];
  rows.forEach((row, i) => {
    if (!Array.isArray(row)) return;
    const t = typeof row[0] === 'number' ? row[0] : typeof row[0] === 'string' ? Date.parse(row[0]) : NaN;
    const v = typeof row[1] === 'number' ? row[1] : typeof row[1] === 'string' && row[1].trim() !== '' ? Number(row[1]) : NaN;
    if (Number.isFinite(t) && Number.isFinite(v)) parsed.push({ t, v, i });
  });
  parsed.sort((a, b) => a.t - b.t || a.i - b.i);
  return parsed.filter((p, k) => k + 1 === parsed.length || parsed[k + 1].t !== p.t).map((p) => [p.t, p.v]);
}

export interface SlowWindow {
  from: number;
  to: number;
  energy: number;
  kw: number;
  complete: boolean;
  gap?: { from: number; to: number };
}

/** demandWindows the slow way: windows by walking the clock, energy from the interpolated counted total. */
export function slowDemandWindows(
  rows: Row[],
  zone: string,
  minutes: number,
  range: { from?: number; to?: number; maxPowerKw?: number; maxGapMinutes?: number },
): SlowWindow[] {
  const clean = slowClean(rows);
  // the intervals rule 10 counts (resets, glitches and what is pending count nothing), each
  // spread evenly over its time: the counted total at t sums their parts before t
  const judged = slowJudge(clean, range.maxPowerKw ?? DEFAULT_MAX_POWER_KW);
  const counted = judged.counted;
  // gaps: every interval the readings make (counted or a reset) longer than maxGapMinutes
  const gaps = [...counted.map(([t0, , t1]) => ({ from: t0, to: t1 })), ...judged.resets.map((r) => ({ from: r.from, to: r.to }))]
    .filter((g) => range.maxGapMinutes !== undefined && g.to - g.from > range.maxGapMinutes * MINUTE)
    .sort((a, b) => a.from - b.from);
  const total = (t: number): number => {
    let sum = 0;
    for (const [t0, v0, t1, v1] of counted) sum += (v1 - v0) * Math.min(1, Math.max(0, (t - t0) / (t1 - t0)));
    return sum;
  };
  const from = range.from ?? (clean.length ? clean[0][0] : NaN);
  const to = range.to ?? (clean.length ? clean[clean.length - 1][0] : NaN);
  const out: SlowWindow[] = [];
  if (!(from < to)) return out;
  for (let w = slowWindowOf(zone, from, minutes); w.from < to; w = slowWindowOf(zone, w.to, minutes)) {
    const energy = total(w.to) - total(w.from);
    // the longest gap overlapping the window, the earliest of equal ones
    let gap: { from: number; to: number } | undefined;
    for (const g of gaps) if (g.from < w.to && g.to > w.from && (!gap || g.to - g.from > gap.to - gap.from)) gap = g;
    out.push({
      ...w,
      energy,
      kw: energy / ((w.to - w.from) / HOUR),
      complete: clean.length > 0 && clean[0][0] <= w.from && clean[clean.length - 1][0] >= w.to && !gap,
      ...(gap ? { gap } : {}),
    });
  }
  return out;
}

/** A tariff rule's time range and weekdays, read plainly from the text (rules 2-3). */
export interface SlowWhen {
  time_start?: string;
  time_end?: string;
  weekdays?: number[];
}

const seconds = (hhmm: string): number => {
  const [h, m, s] = hhmm.split(':').map(Number);
  return h * 3600 + m * 60 + (s ?? 0);
};

/** Whether local "epoch ms" `local` matches `when`. */
export function slowMatches(when: SlowWhen | undefined, local: number): boolean {
  if (!when) return true;
  const day = Math.floor(local / DAY);
  const weekday = new Date(day * DAY).getUTCDay() || 7;
  if (when.weekdays && when.weekdays.length > 0 && !when.weekdays.includes(weekday)) return false;
  if (when.time_start === undefined || when.time_end === undefined) return true;
  const t = (local - day * DAY) / 1000;
  const a = seconds(when.time_start);
  const b = seconds(when.time_end);
  if (a === b || (a === 0 && b === 86400)) return true;
  return b > a ? t >= a && t < b : t >= a || t < b;
}

export interface SlowMonth {
  from: number;
  to: number;
  peaks: Array<{ from: number; to: number; kw: number }>;
  value: number | null;
}

/** monthlyPeaks the slow way: the local month, day and clock of each window's start read by Intl. */
export function slowMonthlyPeaks(
  windows: SlowWindow[],
  zone: string,
  options: { top?: number; distinctDays?: boolean; when?: SlowWhen; completeOnly?: boolean },
): Array<Omit<SlowMonth, 'from' | 'to'> & { month: string }> {
  const top = options.top ?? 1;
  const months = new Map<string, SlowWindow[]>();
  const sorted = windows.slice().sort((a, b) => a.from - b.from);
  for (const w of sorted) {
    const month = new Date(wallClock(zone, w.from)).toISOString().slice(0, 7);
    if (!months.has(month)) months.set(month, []);
    const counted = (options.completeOnly === false || w.complete) && slowMatches(options.when, wallClock(zone, w.from));
    if (counted) months.get(month)!.push(w);
  }
  return [...months].map(([month, list]) => {
    let pool = list;
    if (options.distinctDays) {
      const days = new Map<string, SlowWindow[]>();
      for (const w of list) {
        const day = new Date(wallClock(zone, w.from)).toISOString().slice(0, 10);
        days.set(day, [...(days.get(day) ?? []), w]);
      }
      pool = [...days.values()].map((ws) => ws.slice().sort((a, b) => b.kw - a.kw || a.from - b.from)[0]);
    }
    const peaks = pool
      .slice()
      .sort((a, b) => b.kw - a.kw || a.from - b.from)
      .slice(0, top)
      .map(({ from, to, kw }) => ({ from, to, kw }));
    return { month, peaks, value: peaks.length ? peaks.reduce((s, p) => s + p.kw, 0) / peaks.length : null };
  });
}
