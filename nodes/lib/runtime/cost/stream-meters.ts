// easy-cost's stream mode, its meters: one meter's totals per (gateway, topic), the totals
// stored in the single-meter shape that the first import meter to report takes over, the
// meters restored from a later clock (held until it passes), a step back of the clock, and
// their sums over the site. CostStream (cost-stream.ts) prices the readings they count.
import { newTotals, rebaseTotals, TotalsState, windowStart } from '../../engine/cost/totals';
import { isFromFuture } from '../../engine/common/future-readings';
import { shortText } from '../../engine/common/format';
import type { ClockStep } from '../../engine/time/clock-steps';
import type { MeterSide } from '../common/meter-direction';
import { SiteSums, siteSums } from './stream-output';
import { MeterId, meterKey, meterName, StoredMeter } from './stream-store';

export type Meter = StoredMeter & {
  /**
   * Set when the meter's totals were restored from a later clock (their newest reading lies
   * ahead of this one, StoredAhead): a reading before it is too_late, so one this clock
   * stamps is never placed among readings the later clock stamped (it would count again
   * what the interval spanning it holds).
   */
  tooLateBefore?: number;
};

export class StreamMeters {
  private readonly meters = new Map<string, Meter>();
  /** Totals stored in the single-meter shape, taken over by the first meter that reports. */
  private legacy: TotalsState | null = null;
  /** The legacy totals' tooLateBefore (see Meter). */
  private legacyTooLateBefore: number | undefined;

  constructor(
    private readonly timezone: string,
    private readonly tariffId: string,
    private readonly maxMeters: number,
  ) {}

  /** Takes what the store held: its meters and the single-meter totals of earlier versions. */
  restore(meters: StoredMeter[], legacy: TotalsState | null): void {
    for (const meter of meters) this.meters.set(meterKey(meter), meter);
    this.legacy = legacy;
  }

  /** Marks the meters restored ahead of `now` (isFromFuture: from a later clock) and gives the newest stored reading. */
  holdAhead(now: number): number | null {
    let newest: number | null = null;
    for (const meter of this.meters.values()) {
      if (!meter.totals.kept.length) continue;
      const ts = meter.totals.kept.newestTs();
      if (isFromFuture(ts, now)) meter.tooLateBefore = ts;
      newest = Math.max(newest ?? ts, ts);
    }
    if (this.legacy?.kept.length) {
      const ts = this.legacy.kept.newestTs();
      if (isFromFuture(ts, now)) this.legacyTooLateBefore = ts;
      newest = Math.max(newest ?? ts, ts);
    }
    return newest;
  }

  values(): IterableIterator<Meter> {
    return this.meters.values();
  }

  /** One meter's totals, if it has counted anything. */
  totalsOf(id: MeterId): TotalsState | undefined {
    return this.meters.get(meterKey(id))?.totals;
  }

  /** The meter's totals, a new meter's (counting `direction`), or null when the node counts as many meters as it may. */
  meterFor(id: MeterId, direction: MeterSide): Meter | null {
    const key = meterKey(id);
    const known = this.meters.get(key);
    if (known) return known;
    if (this.meters.size >= this.maxMeters) return null;
    if (direction !== 'import') {
      const meter: Meter = { ...id, totals: newTotals(this.timezone, this.tariffId), direction };
      this.meters.set(key, meter);
      return meter;
    }
    const meter: Meter = this.legacy
      ? { ...id, totals: this.legacy, ...(this.legacyTooLateBefore !== undefined ? { tooLateBefore: this.legacyTooLateBefore } : {}) }
      : { ...id, totals: newTotals(this.timezone, this.tariffId) };
    this.legacy = null;
    this.meters.set(key, meter);
    return meter;
  }

  /** After a step back of the wall clock, meters stamped ahead of it count on from their last value (rebaseTotals); true when any did. */
  rebase(step: ClockStep): boolean {
    if (step.by >= 0) return false;
    let rebased = false;
    for (const meter of this.meters.values()) {
      const state = rebaseTotals(meter.totals, step.by, step.now);
      if (state) {
        meter.totals = state;
        // the readings it held back for were stamped by the clock that was ahead: it counts on from the moved one
        delete meter.tooLateBefore;
      }
      rebased ||= state !== null;
    }
    return rebased;
  }

  /** `msg.reset = true`: every meter forgotten. */
  clear(): void {
    this.meters.clear();
    this.legacy = null;
  }

  /**
   * `msg.reset` as a topic (with msg.gateway, if given): those meters forgotten; gives the
   * one meter reset (null when several were). Throws in words when it names none.
   */
  removeNamed(topic: string, gateway: string | undefined): Meter | null {
    const matching = [...this.meters.entries()].filter(
      ([, m]) => (m.topic ?? 'default') === topic && (gateway === undefined || m.gateway === gateway),
    );
    if (matching.length === 0) {
      const known = [...this.meters.values()].map(meterName);
      throw new Error(
        `msg.reset names no meter of this node: "${shortText(topic, 60)}"${known.length ? ` (it counts ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''})` : ''}`,
      );
    }
    for (const [key] of matching) this.meters.delete(key);
    return matching.length === 1 ? matching[0][1] : null;
  }

  /** The earliest instant any meter can still place a reading at. */
  oldestPlaceable(): number {
    let oldest = Infinity;
    for (const m of this.meters.values()) oldest = Math.min(oldest, windowStart(m.totals));
    return oldest;
  }

  /** The oldest reading any meter keeps: no interval starts before it. */
  oldestKept(): number {
    let oldest = Infinity;
    for (const m of this.meters.values()) if (m.totals.kept.length) oldest = Math.min(oldest, m.totals.kept.ts(0));
    return oldest;
  }

  /** The newest reading of any meter. */
  newestReading(): number {
    let newest = -Infinity;
    for (const m of this.meters.values()) if (m.totals.kept.length) newest = Math.max(newest, m.totals.kept.newestTs());
    return newest;
  }

  /** The sum over meters of each period that contains the site's newest reading, and of every total: import, export and production apart. */
  sums(): SiteSums {
    const all: TotalsState[] = [];
    const exported: TotalsState[] = [];
    const produced: TotalsState[] = [];
    for (const m of this.meters.values())
      (m.direction === 'export' ? exported : m.direction === 'production' ? produced : all).push(m.totals);
    if (this.legacy) all.push(this.legacy);
    const site = siteSums(all, this.timezone);
    const withExport: SiteSums = exported.length ? { ...site, export: siteSums(exported, this.timezone) } : site;
    if (produced.length) withExport.production = siteSums(produced, this.timezone);
    return withExport;
  }
}
