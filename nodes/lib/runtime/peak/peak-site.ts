// The site of easy-peak: the sum over its meters per demand window, and the month's peaks
// of that sum (a site's peak is the peak of the sum, not the sum of the meters' peaks).
// A meter hands each window it closes to the site; the site closes a window when every
// meter has passed it, or, when a meter lags, once the newest reading is `staleMs` past
// the window's end (then the window is incomplete and never a peak).
import type { DemandWindow } from '../../engine/peak/demand';
import { demandWindowOf } from '../../engine/peak/demand-window';
import { HOUR_MS } from '../../engine/time/time';
import { groupDigits, shortText } from '../../engine/common/format';
import { EnergyUnit, MeterId, meterKey, meterName } from '../common/meter-reading';
import { RefusalBurst, RefusedReading } from '../common/refusal-burst';
import { reactivePerActive } from '../../engine/peak/apparent';
import {
  isCovered,
  isFresh,
  MeterPeaks,
  newPfMeter,
  PfMeter,
  PfShare,
  powerFactorOf,
  powerFactorSoFar,
  projectedPowerFactor,
  projectMeter,
  WindowScope,
} from './peak-meter';
import { addToMonths, MonthPeaks } from '../peak-period/peak-month';
import type { PeriodValue } from '../../engine/peak/billing';
import type { SiteWindow } from '../peak-period/peak-reactive';

/** A window some meters have closed, waiting for the others. */
export interface PendingWindow {
  from: number;
  to: number;
  energy: number;
  /** The kvarh of its reactive meters (paired with the kWh into kVAh when it closes: rule 56). */
  reactive: number;
  /** The power-factor meter's share (rule 66): ∫(1/pf) dt over the part its readings covered, and those hours. */
  pf: PfShare;
  /** How many meters have handed it over, and whether each had covered all of it. */
  reported: number;
  complete: boolean;
  /** The longest gap of a meter's share, with the meter (kept while the node runs, not stored). */
  gap?: { from: number; to: number; meter: string };
}

export interface SiteState {
  pending: Map<number, PendingWindow>;
  /** Windows ending at or before this are closed for the site: late shares of them are not counted. */
  closedUntil: number;
  month: MonthPeaks | null;
  /** The values of the months before (oldest first, at most MAX_HISTORY): what a rolling average, the year's maximum and a ratchet look back on. */
  history: PeriodValue[];
}

export interface SiteNow {
  /** The window holding the newest reading of any meter. */
  window: { from: number; to: number };
  newest: number;
  energy: number;
  averageKwSoFar: number | null;
  projectedKw: number | null;
  /** Meters whose latest power is too old (or unknown) to act on, by name order of arrival. */
  stale: MeterPeaks[];
}

/** No power factor: kWh windows are kW. */
export const NO_POWER_FACTOR: SitePowerFactor = { fixed: null, meter: null };

export const newSite = (): SiteState => ({ pending: new Map(), closedUntil: -Infinity, month: null, history: [] });

export { MAX_HISTORY } from '../peak-period/peak-month';

/** At most this many windows wait for lagging meters; older ones are closed (incomplete). */
export const MAX_PENDING = 500;

/**
 * After a step back of the wall clock (docs/semantics.md, "Clock steps"): windows and a
 * month that lie ahead of `now` are of a time the clock left. Their shares are let go, and
 * what is closed ends no later than the window holding `now`, so the windows the meters
 * count from now on are the site's again.
 */
export function rebaseSite(site: SiteState, now: number, scope: WindowScope): void {
  const current = demandWindowOf(now, scope.timezone, scope.minutes);
  for (const [from, p] of [...site.pending]) if (p.to > current.from) site.pending.delete(from);
  site.closedUntil = Math.min(site.closedUntil, current.from);
  if (site.month && site.month.from > now) site.month = null;
  site.history = site.history.filter((h) => h.from <= now);
}

/**
 * A meter's closed window (of the meter named `meter`; `reactive`: its kvarh; `pf`: the
 * power-factor meter's share of it), added to the site's sum for that window.
 */
export function shareWindow(site: SiteState, w: DemandWindow, meter: string, reactive = false, pf?: PfShare): void {
  if (w.to <= site.closedUntil) return;
  let p = site.pending.get(w.from);
  if (!p) {
    p = { from: w.from, to: w.to, energy: 0, reactive: 0, pf: { weighted: 0, hours: 0 }, reported: 0, complete: true };
    site.pending.set(w.from, p);
  }
  if (reactive) p.reactive += w.energy;
  else if (pf) {
    p.pf.weighted += pf.weighted;
    p.pf.hours += pf.hours;
  } else p.energy += w.energy;
  p.reported += 1;
  p.complete &&= w.complete;
  if (w.gap && (!p.gap || p.gap.to - p.gap.from < w.gap.to - w.gap.from)) p.gap = { ...w.gap, meter };
}

/**
 * Closes the site's windows that are due, oldest first, into its month: those every meter
 * has passed, and those the newest reading is `staleMs` past. Returns the closed windows,
 * whether one became a peak of the month, and the month right after each was added.
 */
export function closeDue(
  site: SiteState,
  meters: Iterable<MeterPeaks>,
  scope: WindowScope,
  staleMs: number,
  pf: SitePowerFactor = NO_POWER_FACTOR,
): { closed: SiteWindow[]; newPeak: boolean; months: MonthPeaks[] } {
  let oldest = Infinity;
  let newest = -Infinity;
  let count = 0;
  // the power-factor meter is one of the site's: a window closes when its readings passed it too
  for (const m of pf.meter ? [...meters, pf.meter.meter] : meters) {
    if (!m.last) continue;
    count++;
    oldest = Math.min(oldest, m.last.ts);
    newest = Math.max(newest, m.last.ts);
  }
  const closed: SiteWindow[] = [];
  const months: MonthPeaks[] = [];
  let newPeak = false;
  const due = [...site.pending.values()].sort((a, b) => a.from - b.from);
  for (const [i, p] of due.entries()) {
    const passedByAll = oldest >= p.to;
    if (!passedByAll && newest < p.to + staleMs && due.length - i <= MAX_PENDING) break;
    site.pending.delete(p.from);
    site.closedUntil = Math.max(site.closedUntil, p.to);
    // kWh alone, paired with the reactive meters' kvarh into kVAh (rule 56), or billed with the power factor (rule 66)
    const paired = pairedEnergy(p, pf);
    const w: SiteWindow = {
      from: p.from,
      to: p.to,
      energy: paired.energy,
      kw: paired.energy / ((p.to - p.from) / HOUR_MS),
      // a window the power-factor meter's readings do not cover has no power factor: never billed on a guess
      complete: passedByAll && p.complete && p.reported >= count && paired.known,
      ...(p.gap ? { gap: p.gap } : {}),
      ...(paired.shares ? { shares: paired.shares } : {}), // the reactive energy's sums (peak-reactive)
    };
    closed.push(w);
    const added = addToMonths(site, w, scope);
    months.push(site.month!);
    newPeak ||= added.newPeak;
  }
  return { closed, newPeak, months };
}

/**
 * A window's kVAh from its meters' shares: kWh alone (kW); √(kWh² + kvarh²) with reactive
 * meters (rule 56); kWh ÷ pf with a power factor (rule 66), the meter's the time-weighted
 * average over the part it covered (none covered: kVAh = kWh, and `known` false).
 */
function pairedEnergy(p: PendingWindow, pf: SitePowerFactor) {
  if (hasPowerFactor(pf)) {
    const factor = pf.fixed ?? powerFactorOf(p.pf.hours, p.pf.weighted); // the meter's share of the window
    const kvah = p.energy / (factor ?? 1);
    // no power factor known: no reactive figures either (kWh at a guessed pf of 1 would lower the charge), as it is never a peak
    const shares = factor === null ? undefined : { energy: p.energy, reactive: p.energy * reactivePerActive(factor) };
    return { energy: kvah, known: factor !== null, shares };
  }
  const energy = p.reactive > 0 ? Math.hypot(p.energy, p.reactive) : p.energy;
  return { energy, known: true, shares: { energy: p.energy, reactive: p.reactive } };
}

/** The words for readings of meters beyond the node's `max` (`count` refused together, `first` the first one's name). */
export function meterLimitError(first: string, count: number, max: number): RangeError {
  return new RangeError(
    `meter limit reached: ${groupDigits(count)} ${count === 1 ? 'sensor' : 'sensors'} ignored, ` +
      `"${shortText(first)}" the first (easy-peak counts at most ${max} meters per node; ` +
      'filter easy-sensors to the energy meters, or start from zero with msg.reset)',
  );
}

/**
 * The words for meters refused because the site sums another unit (semantics, the peak
 * node: "One unit a site"): kW and kVA do not add up. `first`: the first refused meter's
 * name, `count` how many were refused together; the meters counted are named (at most 3).
 */
export function otherUnitError(first: string, count: number, meters: Iterable<MeterPeaks>): TypeError {
  const names: string[] = [];
  const units = new Set<EnergyUnit>();
  let total = 0;
  for (const m of meters) {
    units.add(m.unit);
    if (total++ < 3) names.push(`"${shortText(meterName(m))}"`);
  }
  const others = total > names.length ? ` and ${total - names.length} more` : '';
  const [unit, ...name] = first.split(' '); // the key is `${unit} ${name}` (refusedKey)
  const refused = count > 1 ? `"${shortText(name.join(' '))}" and ${count - 1} more meters count` : `"${shortText(name.join(' '))}" counts`;
  return new TypeError(
    `${refused} ${unit}, but this easy-peak sums ${[...units].join(' and ')} (${names.join(', ')}${others}): ` +
      'kW and kVA do not add up (a site sums kWh, kVAh, or kWh with kvarh into kVA), so the reading is not counted. ' +
      'Send each unit to an easy-peak of its own (a switch on msg.topic)',
  );
}

/** The site's current window (the one holding the newest reading of any meter) and its projection; `mono`: this machine's monotonic clock now. */
export function siteNow(
  meters: Iterable<MeterPeaks>,
  scope: WindowScope,
  mono: number,
  staleMs: number,
  pf: SitePowerFactor = NO_POWER_FACTOR,
): SiteNow | null {
  const all = [...meters].filter((m) => m.last !== null);
  if (all.length === 0) return null;
  const newest = Math.max(...all.map((m) => m.last!.ts));
  const window = demandWindowOf(newest, scope.timezone, scope.minutes);
  // [active or apparent, reactive]: a site of kWh and kvarh meters is a kVA site (rule 56)
  const energies = [0, 0];
  const projections: Array<number | null> = [0, 0];
  const stale: MeterPeaks[] = [];
  for (const m of all) {
    const p = projectMeter(m, window);
    const k = m.unit === 'kvarh' ? 1 : 0;
    energies[k] += p.energy;
    projections[k] = projections[k] === null || p.projectedKw === null ? null : projections[k]! + p.projectedKw;
    if (!isFresh(m, mono, staleMs)) stale.push(m);
  }
  let energy = Math.hypot(energies[0], energies[1]);
  let projected = projections[0] === null || projections[1] === null ? null : Math.hypot(projections[0], projections[1]);
  if (pf.meter && pf.meter.meter.last) {
    // kWh over the meter's power factor: so far, the average over what its readings covered; projected, held to the end
    energy /= powerFactorSoFar(pf.meter, window) ?? pf.meter.value;
    if (projected !== null) projected /= projectedPowerFactor(pf.meter, window);
    if (!isFresh(pf.meter.meter, mono, staleMs)) stale.push(pf.meter.meter);
  } else if (pf.fixed !== null) {
    energy /= pf.fixed;
    if (projected !== null) projected /= pf.fixed;
  }
  const elapsed = newest - window.from;
  return { window, newest, energy, averageKwSoFar: elapsed > 0 ? energy / (elapsed / HOUR_MS) : null, projectedKw: projected, stale };
}

/** Whether every meter's readings cover the site's window `w` from its start. */
export function siteCovered(meters: Iterable<MeterPeaks>, w: { from: number }): boolean {
  for (const m of meters) if (!m.window || m.window.from !== w.from || !isCovered(m.window)) return false;
  return true;
}

/** The sum of the meters' latest power (kVA of the kW and kvar sums where reactive meters are paired, of the kW over the power factor); null while any has none. */
export function sitePowerKw(meters: Iterable<MeterPeaks>, pf: SitePowerFactor = NO_POWER_FACTOR): number | null {
  const sums = [0, 0];
  for (const m of meters) {
    if (m.power === null) return null;
    sums[m.unit === 'kvarh' ? 1 : 0] += m.power.kw;
  }
  if (!hasPowerFactor(pf)) return Math.hypot(sums[0], sums[1]);
  const factor = currentPowerFactor(pf);
  return factor === null ? null : sums[0] / factor;
}

/** What the site sums (rules 56, 66), as a reading's work reads it once: its unit, and whether its windows pair kWh with kvarh (peak-reactive). */
export interface SiteKind {
  /** kW of kWh meters; kVA of kVAh meters, of kWh and kvarh ones, or of kWh with a power factor; kW before any. */
  unit: 'kW' | 'kVA';
  /** Whether the site pairs kWh with kvarh (rule 56) or with a power factor (rule 66): its windows then carry active and reactive energy. */
  pairs: boolean;
}

/** The site's kind of one walk over its meters. */
export function siteKind(meters: Iterable<MeterPeaks>, pf: SitePowerFactor = NO_POWER_FACTOR): SiteKind {
  if (hasPowerFactor(pf)) return { unit: 'kVA', pairs: true };
  let unit: SiteKind['unit'] = 'kW';
  for (const m of meters) {
    if (m.unit === 'kvarh') return { unit: 'kVA', pairs: true };
    if (m.unit !== 'kWh') unit = 'kVA';
  }
  return { unit, pairs: false };
}

/** The site's unit (siteKind's). */
export const siteUnit = (meters: Iterable<MeterPeaks>, pf: SitePowerFactor = NO_POWER_FACTOR): SiteKind['unit'] =>
  siteKind(meters, pf).unit;

/** Whether a meter counting `unit` may join a site of `meters`: kWh (kW), kVAh (kVA), or kWh with kvarh (kVA); kVAh with neither. */
export function unitJoins(meters: Iterable<MeterPeaks>, unit: EnergyUnit): boolean {
  for (const m of meters) if ((m.unit === 'kVAh') !== (unit === 'kVAh')) return false;
  return true;
}

/** The site's power factor: the node's fixed one, or a meter's (at most one of them; neither: none). */
export interface SitePowerFactor {
  fixed: number | null;
  meter: PfMeter | null;
}

/** Whether the site has a power factor: its kWh windows are then kVA (rule 66). */
export const hasPowerFactor = (pf: SitePowerFactor): boolean => pf.fixed !== null || pf.meter !== null;

/** The power factor of the site now, for its power: the fixed one, or the meter's newest (null: none). */
export const currentPowerFactor = (pf: SitePowerFactor): number | null => pf.fixed ?? (pf.meter?.meter.last ? pf.meter.value : null);

/**
 * The site's power factor as the stream keeps it (rule 66): the node's fixed one, or the
 * power-factor meter made at its first reading. One source of kVA a site: a power factor
 * and kvarh counters are two sources of one figure, one power-factor meter a site, none
 * beside kVAh counters; what is refused is one error a burst, naming it and the source.
 */
export class PowerFactorSource implements SitePowerFactor {
  meter: PfMeter | null = null;
  private readonly refusals = new RefusalBurst((count, first) => this.conflict(first, count));

  /** `meters`: the site's energy meters now. */
  constructor(
    readonly fixed: number | null,
    private readonly meters: () => Iterable<MeterPeaks>,
  ) {}

  /** The power-factor meter for a reading of `id`, made at its first reading; refused (RefusedReading) beside another source of kVA. */
  meterFor(id: MeterId): PfMeter {
    const known = this.meter;
    if (known && meterKey(known.meter) === meterKey(id)) return known;
    if (known || this.fixed !== null || [...this.meters()].some((m) => m.unit !== 'kWh'))
      throw new RefusedReading(this.refusals.refuse(JSON.stringify([meterName(id), 'reads a power factor'])));
    this.meter = newPfMeter(id);
    return this.meter;
  }

  /**
   * The power-factor meter read back from the store, once the energy meters are: kept, or
   * dropped beside the fixed power factor or kvarh (kVAh) counters (the source that stays),
   * in words naming it (null: kept, or none stored).
   */
  restore(stored: PfMeter | null): string | null {
    if (!stored) return null;
    if (this.fixed === null && ![...this.meters()].some((m) => m.unit !== 'kWh')) {
      this.meter = stored;
      return null;
    }
    return `stored peaks: dropped the power factor meter "${shortText(meterName(stored.meter))}": this easy-peak ${this.source()}, one source of kVA a site`;
  }

  /** A new meter counting `unit` joins the site: refused (RefusedReading) when it is kvarh or kVAh and the site has a power factor. */
  admit(id: MeterId, unit: EnergyUnit): void {
    if (unit !== 'kWh' && hasPowerFactor(this))
      throw new RefusedReading(this.refusals.refuse(JSON.stringify([meterName(id), `counts ${unit}`])));
  }

  /** Ends a burst of refusals now (the node closes). */
  end(): void {
    this.refusals.end();
  }

  /** The refusal's words; `first` is `[name, what it counts]` as JSON (the burst's key). */
  private conflict(first: string, count: number): TypeError {
    const [name, what] = JSON.parse(first) as [string, string];
    const who = count > 1 ? `"${shortText(name)}" and ${count - 1} more meters` : `"${shortText(name)}"`;
    return new TypeError(
      `${who} ${what}, but this easy-peak ${this.source()}: one source of kVA a site, so the reading is not counted. ` +
        'Clear the power factor setting (or send the other meters to an easy-peak of their own) to count it',
    );
  }

  /** What the site's kVA comes from, in words: the fixed power factor, the meter's, kvarh or kVAh counters. */
  private source(): string {
    if (this.fixed !== null) return `bills its kWh as kVA with the power factor of its setting (${this.fixed})`;
    if (this.meter) return `bills its kWh as kVA with the power factor of "${shortText(meterName(this.meter.meter))}"`;
    const other = [...this.meters()].filter((m) => m.unit !== 'kWh');
    const names = other.slice(0, 3).map((m) => `"${shortText(meterName(m))}"`);
    const more = other.length > 3 ? ` and ${other.length - 3} more` : '';
    return other.some((m) => m.unit === 'kvarh')
      ? `pairs its kWh with kvarh counters (${names.join(', ')}${more}) into kVA`
      : `sums kVAh counters (${names.join(', ')}${more}), apparent energy already`;
  }
}
