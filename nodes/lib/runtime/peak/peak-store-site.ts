// The site's line of what easy-peak keeps (peak-store): its month's peaks, the windows
// waiting for meters (their kWh, kvarh and power-factor shares), the months before and the
// guard's state; and the checks every stored line shares: its JSON, a window by its start, a
// month's peaks. Read back as hostile data: a line that fails a check is dropped whole.
import { demandWindowOf } from '../../engine/peak/demand-window';
import { isFiniteNumber, isStoredInstant } from '../../engine/common/stored-checks';
import { MIN_POWER_FACTOR } from '../common/meter-reading';
import { MAX_STORED_LINE_CHARS } from '../../engine/common/limits';
import { HOUR_MS } from '../../engine/time/time';
import type { GuardMemory } from './peak-guard';
import type { WindowScope } from './peak-meter';
import { MonthPeaks, monthOf, Peak } from '../peak-period/peak-month';
import type { PendingWindow, SiteState } from './peak-site';
import { MAX_HISTORY, MAX_PENDING } from './peak-site';
import type { PeriodValue } from '../../engine/peak/billing';

export const flatPeaks = (month: MonthPeaks | null): number[] => (month ? month.peaks.flatMap((p) => [p.from, p.to, p.kw]) : []);

type SiteLine = [
  number | null,
  number[],
  number[],
  number,
  'shed' | 'restore',
  number | null,
  /** The months before, `[from, value]` flat (value null: none); a line of 6 has none. */
  Array<number | null>,
  /** The guard's learned shed load and its last shed `[window, at, powerKw, learned]`; a line of 6 or 7 has none. */
  [number | null, [number, number, number | null, 0 | 1] | null],
  /** The pending windows' kvarh, in their order (reactive meters paired into kVA); a line of 6 to 8 has none. */
  number[],
  /** The pending windows' power-factor shares `[∫(1/pf) dt, hours covered]` flat, in their order (rule 66); a line of 6 to 9 has none. */
  number[],
];

/** The site's line: its month, pending windows and months before, with the guard's state. */
export function siteLine(site: SiteState, guard: GuardMemory): string {
  const pending = [...site.pending.values()];
  const line: SiteLine = [
    site.month?.from ?? null,
    flatPeaks(site.month),
    pending.flatMap((p) => [p.from, p.energy, p.reported, p.complete ? 1 : 0]),
    Number.isFinite(site.closedUntil) ? site.closedUntil : 0,
    guard.state,
    Number.isFinite(guard.changedAt) ? guard.changedAt : null,
    site.history.flatMap((h) => [h.from, h.value]),
    [guard.learnedKw ?? null, guard.shed ? [guard.shed.window, guard.shed.at, guard.shed.powerKw, guard.shed.learned ? 1 : 0] : null],
    pending.map((p) => p.reactive),
    pending.flatMap((p) => [p.pf.weighted, p.pf.hours]),
  ];
  return JSON.stringify(line);
}

/** A stored line: a JSON array of at most MAX_STORED_LINE_CHARS characters, or null. */
export function parseLine(text: unknown): unknown[] | null {
  if (typeof text !== 'string' || text.length > MAX_STORED_LINE_CHARS) return null;
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** A window as stored by its start: a demand window of these settings, or null. */
export function windowAt(from: unknown, scope: WindowScope, now: number): { from: number; to: number } | null {
  if (!isStoredInstant(from, now)) return null;
  const w = demandWindowOf(from, scope.timezone, scope.minutes);
  return w.from === from ? w : null;
}

/** A month's peaks as stored: the month by its start, each peak a window of it with a kW; null if any is wrong. */
export function readMonth(fromRaw: unknown, flat: unknown, scope: WindowScope, now: number): MonthPeaks | null | undefined {
  if (fromRaw === null) return Array.isArray(flat) && flat.length === 0 ? null : undefined;
  if (!isStoredInstant(fromRaw, now) || !Array.isArray(flat) || flat.length % 3 !== 0 || flat.length / 3 > scope.top) return undefined;
  const month = monthOf(fromRaw, scope);
  if (month.from !== fromRaw) return undefined;
  const peaks: Peak[] = [];
  for (let i = 0; i < flat.length; i += 3) {
    const w = windowAt(flat[i], scope, now);
    const kw = flat[i + 2];
    if (!w || w.to !== flat[i + 1] || !isFiniteNumber(kw) || kw < 0 || w.from < month.from || w.from >= month.to) return undefined;
    peaks.push({ from: w.from, to: w.to, kw });
  }
  return { ...month, peaks };
}

/** The months before, as stored: each a month of this zone before the current one, in order, with a value null or at least 0; null if any is wrong. */
export function readHistory(flat: unknown, month: MonthPeaks | null, scope: WindowScope, now: number): PeriodValue[] | null {
  if (!Array.isArray(flat) || flat.length % 2 !== 0 || flat.length / 2 > MAX_HISTORY) return null;
  const out: PeriodValue[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const [from, value] = [flat[i], flat[i + 1]];
    if (!isStoredInstant(from, now) || monthOf(from, scope).from !== from) return null;
    if (value !== null && !(isFiniteNumber(value) && value >= 0)) return null;
    if ((out.length > 0 && from <= out[out.length - 1].from) || (month && from >= month.from)) return null;
    out.push({ from, value });
  }
  return out;
}

/** The guard's learned shed load and last shed, as stored; null if wrong. */
function readGuardExtra(raw: unknown, now: number): Pick<GuardMemory, 'learnedKw' | 'shed'> | null {
  if (!Array.isArray(raw) || raw.length !== 2) return null;
  const [learnedKw, shed] = raw;
  if (learnedKw !== null && !(isFiniteNumber(learnedKw) && learnedKw > 0 && learnedKw <= 1e6)) return null;
  if (shed === null) return { learnedKw, shed: null };
  if (!Array.isArray(shed) || shed.length !== 4) return null;
  const [window, at, powerKw, learned] = shed;
  if (!isStoredInstant(window, now) || !isStoredInstant(at, now) || (learned !== 0 && learned !== 1)) return null;
  if (powerKw !== null && !isFiniteNumber(powerKw)) return null;
  return { learnedKw, shed: { window, at, powerKw, learned: learned === 1 } };
}

/** The site's line read back: its state and the guard's (null when the guard's part fails alone), the newest instant kept; null if it fails. */
export function readSite(
  text: unknown,
  scope: WindowScope,
  now: number,
): { site: SiteState; guard: GuardMemory | null; newest: number } | null {
  const line = parseLine(text);
  if (!line || line.length < 6 || line.length > 10) return null;
  const [
    monthFrom,
    peaks,
    pendingFlat,
    closedUntil,
    state,
    changedAt,
    historyFlat = [],
    guardExtra = [null, null],
    reactiveRaw = null,
    pfRaw = null,
  ] = line;
  const month = readMonth(monthFrom, peaks, scope, now);
  const history = month === undefined ? null : readHistory(historyFlat, month, scope, now);
  if (history === null) return null;
  if (month === undefined || !Array.isArray(pendingFlat) || pendingFlat.length % 4 !== 0 || pendingFlat.length / 4 > MAX_PENDING)
    return null;
  // 0 is "nothing closed yet"; else a window's end, an instant near now (a huge one would drop every later window)
  if (closedUntil !== 0 && !isStoredInstant(closedUntil, now)) return null;
  const pending = new Map<number, PendingWindow>();
  const reactives = reactiveRaw === null ? pendingFlat.map(() => 0) : reactiveRaw;
  if (!Array.isArray(reactives) || (reactiveRaw !== null && reactives.length !== pendingFlat.length / 4)) return null;
  const pfs: unknown = pfRaw === null ? new Array<number>(pendingFlat.length / 2).fill(0) : pfRaw;
  if (!Array.isArray(pfs) || pfs.length !== pendingFlat.length / 2) return null;
  for (let i = 0; i < pendingFlat.length; i += 4) {
    const w = windowAt(pendingFlat[i], scope, now);
    const [energy, reported, complete] = pendingFlat.slice(i + 1, i + 4);
    const reactive: unknown = reactives[i / 4] ?? 0;
    if (!isFiniteNumber(reactive) || reactive < 0) return null;
    // ∫(1/pf) dt over the hours covered: from those hours (pf ≤ 1) to 1/MIN_POWER_FACTOR times them, the hours at most the window's
    const [weighted, hours] = [pfs[i / 2], pfs[i / 2 + 1]];
    if (!isFiniteNumber(weighted) || !isFiniteNumber(hours) || hours < 0) return null;
    if (
      w &&
      (hours > (w.to - w.from) / HOUR_MS + 1e-9 || weighted < hours * (1 - 1e-9) || weighted > (hours / MIN_POWER_FACTOR) * (1 + 1e-9))
    )
      return null;
    // a window at or before closedUntil was added to the month already: pending again, it would count twice
    if (!w || pending.has(w.from) || (closedUntil !== 0 && w.to <= closedUntil) || !isFiniteNumber(energy) || energy < 0) return null;
    if (!Number.isInteger(reported) || (reported as number) < 1 || (complete !== 0 && complete !== 1)) return null;
    pending.set(w.from, { ...w, energy, reactive, pf: { weighted, hours }, reported: reported as number, complete: complete === 1 });
  }
  const site: SiteState = { pending, closedUntil: closedUntil === 0 ? -Infinity : closedUntil, month, history };
  const extra = readGuardExtra(guardExtra, now);
  const guardOk = (state === 'shed' || state === 'restore') && (changedAt === null || isStoredInstant(changedAt, now)) && extra !== null;
  // a change stored under a later clock counts as made now: the minute since it waits no longer than that
  const changed = changedAt === null ? -Infinity : Math.min(changedAt as number, now);
  return {
    site,
    guard: guardOk ? { state: state as GuardMemory['state'], changedAt: changed, ...extra } : null,
    newest: Math.max(site.closedUntil, guardOk && changedAt !== null ? (changedAt as number) : -Infinity),
  };
}
