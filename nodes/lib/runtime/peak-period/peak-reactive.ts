// easy-peak's reactive energy (semantics rule 65): per billing period, the site's closed
// windows of kWh and kvarh counted by the library's reactiveCharges (rule 57) window by
// window: the kvarh beyond the free share, its amount, and the period's average power
// factor. Only the period's sums are kept (never its windows), stored beside the peaks as
// one short line, read back as hostile data.
import { ApparentWindow, reactiveCharges, ReactivePeriod } from '../../engine/peak/apparent';
import { formatClock, roundAmount, roundAmountOrNull } from '../../engine/common/format';
import { isFiniteNumber, isRecord, isStoredInstant } from '../../engine/common/stored-checks';
import { MAX_STORED_LINE_CHARS } from '../../engine/common/limits';
import { HOUR_MS } from '../../engine/time/time';
import type { DemandWindow } from '../../engine/peak/demand';
import { DemandMinutes, demandWindowOf } from '../../engine/peak/demand-window';
import { monthOf, periodsOf, PeriodScope } from './peak-month';

/** The node's reactive settings: reactive energy is free down to `minPowerFactor`; beyond it each kvarh costs `pricePerKvarh` (0: figures only). */
export interface ReactiveSettings {
  minPowerFactor: number;
  pricePerKvarh: number;
}

/** Where the sums are: the billing periods, and the windows counted into them (their length). */
export type ReactiveScope = PeriodScope & { minutes: DemandMinutes };

/** A site window closed with its meters' shares: kWh (kVAh on a kVAh site) and kvarh (peak-site's closeDue; a window without counts none). */
export type SiteWindow = DemandWindow & { shares?: { energy: number; reactive: number } };

/** One billing period's sums of the site's closed windows. */
export interface ReactiveSums {
  from: number;
  to: number;
  /** The end of the latest window counted: a window is counted once (a step back of the clock closes windows again). */
  until: number;
  windows: number;
  /** The windows' length together: the time the sums cover (the projection's basis). */
  countedMs: number;
  activeEnergy: number;
  reactiveEnergy: number;
  apparentEnergy: number;
  chargeableKvarh: number;
}

/** Below this much counted time in the period a projection would be a guess: none (as easy-cost's month, rule 33). */
const MIN_PROJECTION_BASIS_MS = HOUR_MS;
/** Sums stored from the windows' figures again: their noise of float addition, not a tampered value. */
const SLACK = 1e-9;

export class SiteReactive {
  private sums: ReactiveSums | null = null;

  constructor(
    private readonly settings: ReactiveSettings,
    private readonly scope: ReactiveScope,
  ) {}

  /**
   * The windows the site closed, in order, counted into their period when the site pairs kWh
   * with kvarh (`paired`); a window of a later period starts that period from zero, one
   * counted already (or of an earlier period) changes nothing.
   */
  add(closed: readonly SiteWindow[], paired: boolean): void {
    if (!paired) return;
    for (const w of closed) {
      if (!w.shares) continue;
      const window: ApparentWindow = {
        ...w,
        activeEnergy: w.shares.energy,
        reactiveEnergy: w.shares.reactive,
        powerFactor: w.energy > 0 ? w.shares.energy / w.energy : null,
      };
      const [p]: Array<ReactivePeriod | undefined> = reactiveCharges([window], {
        timezone: this.scope.timezone,
        periods: periodsOf(this.scope),
        minPowerFactor: this.settings.minPowerFactor,
      });
      if (!p) continue; // in no period (read dates without monthlyBeyond: never from the node's periods)
      const s = this.sums;
      if (s && (p.from < s.from || (p.from === s.from && w.from < s.until))) continue;
      const sums = s && s.from === p.from ? s : { ...periodOf(p), until: -Infinity, windows: 0, countedMs: 0 };
      sums.until = w.to;
      sums.windows += 1;
      sums.countedMs += w.to - w.from;
      sums.activeEnergy += p.activeEnergy;
      sums.reactiveEnergy += p.reactiveEnergy;
      sums.apparentEnergy += p.apparentEnergy;
      sums.chargeableKvarh += p.chargeableKvarh;
      this.sums = sums;
    }
  }

  /** From zero (msg.reset). */
  clear(): void {
    this.sums = null;
  }

  /** After a step back of the clock: a period ahead of `now` is let go, as rebaseSite lets the site's month go. */
  rebase(now: number): void {
    if (this.sums && this.sums.from > now) this.sums = null;
  }

  /**
   * Output 1's `site.bill.reactive` for the period holding `at` (the site's window under way):
   * its sums so far, their amount, and the same projected to the period's end at the pace of
   * the time counted; null when the site pairs no kvarh with its kWh.
   */
  payload(at: number, paired: boolean) {
    if (!paired) return null;
    const period = monthOf(at, this.scope);
    const s = this.sums && this.sums.from === period.from ? this.sums : null;
    const figures = (k: number) => {
      const active = (s?.activeEnergy ?? 0) * k;
      const apparent = (s?.apparentEnergy ?? 0) * k;
      const chargeable = (s?.chargeableKvarh ?? 0) * k;
      return {
        activeEnergy: roundAmount(active),
        reactiveEnergy: roundAmount((s?.reactiveEnergy ?? 0) * k),
        apparentEnergy: roundAmount(apparent),
        powerFactor: roundAmountOrNull(apparent > 0 ? active / apparent : null),
        chargeableKvarh: roundAmount(chargeable),
        amount: roundAmount(chargeable * this.settings.pricePerKvarh),
      };
    };
    const basis = s && s.countedMs >= MIN_PROJECTION_BASIS_MS ? (period.to - period.from) / s.countedMs : null;
    return {
      minPowerFactor: this.settings.minPowerFactor,
      pricePerKvarh: this.settings.pricePerKvarh,
      windows: s?.windows ?? 0,
      ...figures(1),
      projected: basis === null ? null : figures(basis),
    };
  }

  /** What a restart needs: the period's sums, with the power factor they were counted at; none before any. */
  encode(): { reactive?: string } {
    const s = this.sums;
    if (!s) return {};
    const line = [this.settings.minPowerFactor, s.from, s.until, s.windows, s.countedMs];
    return { reactive: JSON.stringify([...line, s.activeEnergy, s.reactiveEnergy, s.apparentEnergy, s.chargeableKvarh]) };
  }

  /** The stored sums read back, checked; what fails is dropped, in words (null: read, or nothing stored). */
  restore(stored: unknown, now: number): string | null {
    const text = isRecord(stored) ? stored.reactive : undefined;
    if (text === undefined) return null;
    let line: unknown;
    try {
      line = typeof text === 'string' && text.length <= MAX_STORED_LINE_CHARS ? JSON.parse(text) : null;
    } catch {
      line = null;
    }
    if (Array.isArray(line) && line.length === 9 && line[0] !== this.settings.minPowerFactor && isFiniteNumber(line[0]))
      return `stored peaks: the reactive energy's sums from zero (counted free down to a power factor of ${line[0]}, now ${this.settings.minPowerFactor})`;
    // counted at this power factor, or not read: a line whose power factor is no number says nothing of how it was counted
    const sums =
      Array.isArray(line) && line.length === 9 && line[0] === this.settings.minPowerFactor
        ? readSums(line.slice(1), this.scope, now)
        : null;
    if (!sums) return "stored peaks: the reactive energy's sums from zero (failed their checks)";
    // counted in windows of another length: a window of these settings that holds `until` would count its part before it again, or never
    const { timezone, minutes } = this.scope;
    if (demandWindowOf(sums.until - 1, timezone, minutes).to !== sums.until)
      return (
        `stored peaks: the reactive energy's sums from zero (counted up to ${formatClock(sums.until, timezone)}, ` +
        `no end of a ${minutes}-minute window: counted in windows of another length)`
      );
    this.sums = sums;
    return null;
  }
}

const periodOf = (p: ReactivePeriod) => ({
  from: p.from,
  to: p.to,
  activeEnergy: 0,
  reactiveEnergy: 0,
  apparentEnergy: 0,
  chargeableKvarh: 0,
});

/** A period's sums as stored: a billing period of these settings, its counted windows inside it, energies that a sum of windows can give; null if any is wrong. */
function readSums(fields: unknown[], scope: PeriodScope, now: number): ReactiveSums | null {
  const [from, until, windows, countedMs, active, reactive, apparent, chargeable] = fields;
  if (!isStoredInstant(from, now) || !isStoredInstant(until, now)) return null;
  const period = monthOf(from, scope);
  if (period.from !== from || !(until > from && until <= period.to)) return null;
  if (!Number.isInteger(windows) || (windows as number) < 1 || !isFiniteNumber(countedMs) || !(countedMs > 0 && countedMs <= until - from))
    return null;
  if (![active, reactive, apparent, chargeable].every((x) => isFiniteNumber(x) && x >= 0)) return null;
  const [p, q, s, c] = [active, reactive, apparent, chargeable] as number[];
  // each window's kVAh lies between the larger of its kWh and kvarh and their sum; its chargeable kvarh is at most its kvarh
  if (s < Math.max(p, q) * (1 - SLACK) || s > (p + q) * (1 + SLACK) || c > q * (1 + SLACK)) return null;
  return {
    from,
    to: period.to,
    until,
    windows: windows as number,
    countedMs,
    activeEnergy: p,
    reactiveEnergy: q,
    apparentEnergy: s,
    chargeableKvarh: c,
  };
}
