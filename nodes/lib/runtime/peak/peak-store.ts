// What easy-peak keeps across restarts, and how it reads it back. Made for flash like the
// stream totals (docs/semantics.md, "Stream totals on flash"): per meter one compact line
// of JSON text with only what a restart needs, handed to the store at most once a minute.
// What is read back is hostile data: every field is checked, and a part that fails (a
// meter, the site, the guard) is dropped on its own, with one warning for all of them.
import { demandWindowOf } from '../../engine/peak/demand-window';
import { DroppedState, isFiniteNumber, isStoredInstant } from '../../engine/common/stored-checks';
import { EnergyUnit, MeterId, meterKey, meterName, MIN_POWER_FACTOR, storedMeterName, unitOfTopic } from '../common/meter-reading';
import { MAX_CLOCK_AHEAD_MS } from '../../engine/common/limits';
import { DAY_MS, HOUR_MS } from '../../engine/time/time';
import { isFromFuture } from '../../engine/common/future-readings';
import { restoredClock, storedLag } from './peak-clock';
import { storedHeld } from '../../engine/cost/meter-glitches';
import type { GuardMemory } from './peak-guard';
import type { MeterPeaks, PfMeter, WindowScope } from './peak-meter';
import type { SiteState } from './peak-site';
import { flatPeaks, parseLine, readMonth, readSite, siteLine } from './peak-store-site';

/** What the peaks were counted with: stored peaks of other settings are not this node's. */
export interface StoreScope extends WindowScope {
  maxMeters: number;
}

interface StoredV1 {
  version: 1;
  /** The settings the peaks were counted with (zone, window, how peaks are ranked). */
  scope: string;
  meters: string[];
  site: string;
  /** The power-factor meter (rule 66): `[its newest reading's power factor, its meter line]` as JSON; absent: none. */
  powerFactor?: string;
}

export interface RestoredPeaks {
  meters: MeterPeaks[];
  /** Per meter, the held suspects as stored: replayed through advanceMeter they are held again (or decided, with other settings). */
  held: Array<{ meter: MeterPeaks; rows: Array<[number, number]> }>;
  site: SiteState | null;
  guard: GuardMemory | null;
  /** The power-factor meter (null: none, or dropped). */
  powerFactor: PfMeter | null;
  /** What was dropped, in words; null when everything was read (or nothing was stored). */
  problem: string | null;
  /** The newest instant kept (a meter's reading, the site's closed windows, the guard's change): ahead of now, stored under a later clock. */
  newest: number | null;
}

const scopeText = (s: WindowScope): string =>
  JSON.stringify([
    s.timezone,
    s.minutes,
    s.top,
    s.distinctDays,
    s.when ?? null,
    ...(s.holidays?.length || (s.readDay ?? 1) > 1 || s.readDates?.length ? [s.holidays ?? [], s.readDay ?? 1] : []),
    ...(s.readDates?.length ? [s.readDates] : []),
  ]);
type MeterLine = [
  string | null,
  string | null,
  number,
  number,
  number | null,
  number | null,
  number,
  number,
  number | null,
  number[],
  /** How far the gateway's stamps ran behind this machine's clock (peak-clock's storedLag); a line of 10 has none. */
  number | null,
  /** The suspects held after the newest accepted reading, `[ts, value]` (engine meter-glitches); a line of 10 or 11 has none. */
  Array<[number, number]>,
  /** What the readings count; a line of 10 to 12 counts what its topic says (unitOfTopic). */
  EnergyUnit,
  /** The open window's gap `[from, to]`, or null (a line of 13 or fewer has none). */
  [number, number] | null,
];

/** A gateway clock stored as further behind than this (a zone mistake is at most 14 hours) or ahead beyond MAX_CLOCK_AHEAD_MS is tampered. */
const MAX_STORED_LAG_MS = DAY_MS;
/** `clocks`: this machine's wall and monotonic clocks now (the meters' arrivals are monotonic). */
export function encodePeaks(
  meters: Iterable<MeterPeaks>,
  site: SiteState,
  guard: GuardMemory,
  scope: WindowScope,
  clocks: { now: number; mono: number },
  pf: PfMeter | null = null,
): StoredV1 {
  const lines: string[] = [];
  for (const m of meters) {
    const line = meterLine(m, clocks);
    if (line !== null) lines.push(line);
  }
  const pfLine = pf ? meterLine(pf.meter, clocks) : null;
  return {
    version: 1,
    scope: scopeText(scope),
    meters: lines,
    site: siteLine(site, guard),
    ...(pf && pfLine ? { powerFactor: JSON.stringify([pf.value, pfLine]) } : {}),
  };
}

/** A meter's line (null before its first reading). */
function meterLine(m: MeterPeaks, clocks: { now: number; mono: number }): string | null {
  if (!m.last || !m.window) return null;
  const line: MeterLine = [
    m.gateway,
    m.topic,
    m.last.ts,
    m.last.value,
    m.power?.from ?? null,
    m.power?.kw ?? null,
    m.window.energy,
    m.window.coveredFrom,
    m.month?.from ?? null,
    flatPeaks(m.month),
    storedLag(m.clock, clocks.now, clocks.mono),
    m.judge.held.map((h): [number, number] => [h.ts, h.value]),
    m.unit,
    m.window.gap ? [m.window.gap.from, m.window.gap.to] : null,
  ];
  return JSON.stringify(line);
}

/** An open window's stored gap: null, or an interval overlapping the window and ending at or before the newest reading; undefined when wrong. */
function storedGap(raw: unknown, window: { from: number; to: number }, ts: number): { from: number; to: number } | null | undefined {
  if (raw === null) return null;
  if (!Array.isArray(raw) || raw.length !== 2) return undefined;
  const [from, to] = raw as unknown[];
  if (!isFiniteNumber(from) || !isFiniteNumber(to) || !(from < to) || to <= window.from || to > ts || from >= window.to) return undefined;
  return { from, to };
}

function readMeter(
  text: unknown,
  scope: WindowScope,
  now: number,
  mono: number,
): { meter: MeterPeaks; held: Array<[number, number]> } | null {
  const line = parseLine(text);
  if (!line || line.length < 10 || line.length > 14) return null;
  const [
    gatewayRaw,
    topicRaw,
    ts,
    value,
    powerFrom,
    powerKw,
    energy,
    coveredFrom,
    monthFrom,
    peaks,
    lag = null,
    heldRaw = [],
    unitRaw,
    gapRaw = null,
  ] = line;
  const gateway = storedMeterName(gatewayRaw);
  const topic = storedMeterName(topicRaw);
  if (gateway === undefined || topic === undefined || !isStoredInstant(ts, now) || !isFiniteNumber(value)) return null;
  const unit = unitRaw === undefined ? unitOfTopic(topic) : unitRaw;
  if (unit !== 'kWh' && unit !== 'kVAh' && unit !== 'kvarh') return null;
  if (!isFiniteNumber(energy) || energy < 0) return null;
  const window = demandWindowOf(ts, scope.timezone, scope.minutes);
  if (!isFiniteNumber(coveredFrom) || coveredFrom < window.from || coveredFrom > ts) return null;
  const gap = storedGap(gapRaw, window, ts);
  if (gap === undefined) return null;
  let power: MeterPeaks['power'] = null;
  if (powerFrom !== null || powerKw !== null) {
    if (!isStoredInstant(powerFrom, now) || !isFiniteNumber(powerKw) || powerFrom >= ts || powerKw < 0) return null;
    power = { from: powerFrom, to: ts, kw: powerKw };
  }
  const month = readMonth(monthFrom, peaks, scope, now);
  if (month === undefined || (month && month.from > ts)) return null;
  if (lag !== null && !(isFiniteNumber(lag) && lag >= -MAX_CLOCK_AHEAD_MS && lag <= MAX_STORED_LAG_MS)) return null;
  const held = storedHeld(heldRaw, ts);
  if (held === null || !held.every(([at]) => isStoredInstant(at, now))) return null;
  // a reading stored under a later clock (this one behind): when it arrived is unknown, so its power is stale
  const clock = isFromFuture(ts, now) ? null : restoredClock(ts, lag ?? 0, now, mono);
  const judge = { lastTs: ts, lastValue: value, held: [] };
  return {
    meter: {
      gateway,
      topic,
      unit,
      last: { ts, value },
      judge,
      power,
      window: { ...window, energy, coveredFrom, ...(gap ? { gap } : {}) },
      month,
      clock,
    },
    held,
  };
}

/**
 * The power-factor meter as stored (rule 66): its newest power factor (MIN_POWER_FACTOR ≤ pf ≤ 1) and its
 * ∫(1/pf) dt as a meter line, which rises 1 to 1/MIN_POWER_FACTOR an hour: the open window's sum
 * between those times the hours it covered, the latest "power" between them, nothing held. Undefined when wrong.
 */
function readPowerFactor(text: unknown, scope: WindowScope, now: number, mono: number): PfMeter | undefined {
  const line = parseLine(text);
  if (!line || line.length !== 2 || !isFiniteNumber(line[0]) || !(line[0] >= MIN_POWER_FACTOR && line[0] <= 1)) return undefined;
  const read = readMeter(line[1], scope, now, mono);
  if (!read || read.meter.unit !== 'kWh' || read.held.length > 0) return undefined;
  const { meter } = read;
  const w = meter.window!;
  const covered = meter.last!.ts - w.coveredFrom;
  // ∫(1/pf) dt rises from 1 to 1/MIN_POWER_FACTOR an hour: more would be a power factor no reading may give (kvarh overflowing)
  const most = 1 / MIN_POWER_FACTOR;
  if (w.energy * HOUR_MS < covered * (1 - 1e-9) - 1e-6 || w.energy * HOUR_MS > covered * most * (1 + 1e-9) + 1e-6) return undefined;
  if (meter.power && !(meter.power.kw >= 1 - 1e-9 && meter.power.kw <= most * (1 + 1e-9))) return undefined;
  return { meter, value: line[0] };
}

/** Reads what was stored; every part that fails its checks is dropped, and `problem` is the one warning naming them. */
/** `mono`: this machine's monotonic clock now (restored meters' arrivals are placed on it). */
export function decodePeaks(stored: unknown, scope: StoreScope, now: number, mono: number): RestoredPeaks {
  const none = (problem: string | null): RestoredPeaks => ({
    meters: [],
    held: [],
    site: null,
    guard: null,
    powerFactor: null,
    problem,
    newest: null,
  });
  if (stored === undefined || stored === null) return none(null);
  const s = stored as Partial<StoredV1>;
  if (typeof stored !== 'object' || s.version !== 1 || !Array.isArray(s.meters)) return none('stored peaks: dropped them all (unreadable)');
  if (s.scope !== scopeText(scope))
    return none('stored peaks: dropped them all (counted with other settings: zone, window or how peaks are ranked)');
  const dropped = new DroppedState('stored peaks');
  const meters: MeterPeaks[] = [];
  const held: RestoredPeaks['held'] = [];
  const seen = new Set<string>();
  s.meters.forEach((text, i) => {
    if (i >= scope.maxMeters) return dropped.add(`meter line ${i + 1} (over the meter limit)`);
    const read = readMeter(text, scope, now, mono);
    const m = read?.meter;
    if (m && !seen.has(meterKey(m as MeterId))) {
      seen.add(meterKey(m));
      meters.push(m);
      if (read.held.length > 0) held.push({ meter: m, rows: read.held });
    } else dropped.add(m ? `meter ${meterName(m)} (twice)` : `meter line ${i + 1} (failed its checks)`);
  });
  const site = readSite(s.site, scope, now);
  if (!site) dropped.add("the site's peaks (failed their checks)");
  else if (!site.guard) dropped.add("the guard's state (failed its checks)");
  const powerFactor = s.powerFactor === undefined ? null : readPowerFactor(s.powerFactor, scope, now, mono);
  if (powerFactor === undefined || (powerFactor && seen.has(meterKey(powerFactor.meter))))
    dropped.add('the power factor meter (failed its checks)');
  let newest = site?.newest ?? -Infinity;
  for (const m of powerFactor ? [...meters, powerFactor.meter] : meters) newest = Math.max(newest, m.last!.ts);
  for (const h of held) for (const [at] of h.rows) newest = Math.max(newest, at);
  return {
    meters,
    held,
    site: site?.site ?? null,
    guard: site?.guard ?? null,
    powerFactor: powerFactor && !seen.has(meterKey(powerFactor.meter)) ? powerFactor : null,
    problem: dropped.warning(),
    newest: Number.isFinite(newest) ? newest : null,
  };
}
