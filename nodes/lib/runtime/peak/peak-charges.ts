// easy-peak's demand charges (semantics rule 45; the peak node: "More demand charges"): the
// node's own charge (its peaks and bill settings) and up to 7 more, each written as the
// engine's DemandCharge (an on-peak charge beside an all-hours one, as PG&E bills), each
// with its own month's peaks and months before. The bill now: per charge the billed kW
// and the demand charge, their total, and the least kW a window must beat to raise any
// (rule 46), which the guard keeps under.
import type { BillingPeriods } from '../../engine/peak/billing-periods';
import { chargeRule, ChargeRule, DemandCharge } from '../../engine/peak/billing';
import { isRecord } from '../../engine/common/stored-checks';
import { roundAmount } from '../../engine/common/format';
import { MAX_STORED_LINE_CHARS } from '../../engine/common/limits';
import { addToMonths, ChargeMonths, monthAt, monthBill, MonthPeaks, monthValue, Peak, RankSettings } from '../peak-period/peak-month';
import type { StoreScope } from './peak-store';
import { readHistory, readMonth } from './peak-store-site';
import type { WindowScope } from './peak-meter';
import { ReactiveScope, ReactiveSettings, SiteReactive, SiteWindow } from '../peak-period/peak-reactive';

/** One charge's part of the bill now. */
export interface ChargeBill {
  name: string;
  billedKw: number;
  amount: number;
  /** The kW the current window must beat to raise it; Infinity: it cannot. */
  raiseKw: number;
  /** At the month's end if the window under way ends at its projection and no later one beats the peaks so far; null: no projection. */
  projected: { billedKw: number; amount: number } | null;
}

/** The site's charges: the node's own (its month and months before are the site's) and the more ones, each with its own. */
export class SiteCharges {
  private readonly rules: ChargeRule[];
  private readonly ranks: RankSettings[];
  private more: ChargeMonths[];
  /** The reactive energy charge of the site's billing period (rule 65): kvarh beyond the free share, the average power factor. */
  readonly reactive: SiteReactive;

  constructor(
    own: ChargeRule,
    more: DemandCharge[],
    private readonly scope: ReactiveScope & { periods?: BillingPeriods },
    reactive: ReactiveSettings = { minPowerFactor: 0.95, pricePerKvarh: 0 },
  ) {
    this.reactive = new SiteReactive(reactive, scope);
    this.rules = [own, ...more.map((c, i) => chargeRule(c, i + 1, { timezone: scope.timezone, periods: scope.periods }))];
    this.ranks = more.map((c) => ({
      timezone: scope.timezone,
      readDay: scope.readDay,
      readDates: scope.readDates,
      top: c.top ?? 1,
      distinctDays: c.distinctDays ?? false,
      when: c.when ?? null,
      holidays: c.holidays ?? [],
    }));
    this.more = more.map(() => ({ month: null, history: [] }));
  }

  /** The windows the site closed, in order, added to each more charge's month, and to the reactive energy when the site pairs kWh with kvarh. */
  add(closed: readonly SiteWindow[], paired = false): void {
    for (const w of closed) this.more.forEach((m, i) => addToMonths(m, w, this.ranks[i]));
    this.reactive.add(closed, paired);
  }

  /** From zero (msg.reset). */
  clear(): void {
    this.more = this.more.map(() => ({ month: null, history: [] }));
    this.reactive.clear();
  }

  /** After a step back of the clock: months ahead of `now` let go, as rebaseSite does. */
  rebase(now: number): void {
    for (const m of this.more) {
      if (m.month && m.month.from > now) m.month = null;
      m.history = m.history.filter((h) => h.from <= now);
    }
    this.reactive.rebase(now);
  }

  /** Each charge's bill for the window starting at `from`: the own one from the site's month and months before. */
  bill(own: ChargeMonths, window: { from: number; to: number }, projectedKw: number | null = null): ChargeBill[] {
    const { from } = window;
    const under: Peak | null = projectedKw === null ? null : { ...window, kw: projectedKw };
    return this.rules.map((rule, i) => {
      const m = i === 0 ? own : this.more[i - 1];
      const month = monthAt(m.month, from, this.scope);
      // the first window of a month under way: the month kept is over, and the bill looks back on it
      const history = m.month && m.month.from < month.from ? [...m.history, { from: m.month.from, value: monthValue(m.month) }] : m.history;
      return { name: rule.name, ...monthBill(rule, month, history, from, under) };
    });
  }

  /** What a restart needs: per more charge how it ranks peaks, its month and months before; none without more charges. */
  encode(): { charges?: string; reactive?: string } {
    if (this.more.length === 0) return this.reactive.encode();
    const flat = (month: MonthPeaks | null) => (month ? month.peaks.flatMap((p) => [p.from, p.to, p.kw]) : []);
    const lines = this.more.map((m, i) => [
      rankText(this.ranks[i]),
      m.month?.from ?? null,
      flat(m.month),
      m.history.flatMap((h) => [h.from, h.value]),
    ]);
    return { charges: JSON.stringify(lines), ...this.reactive.encode() };
  }

  /** The stored months read back (checked as the site's); a charge whose part fails, or was ranked otherwise, starts from zero, named. */
  restore(stored: unknown, scope: WindowScope & Pick<StoreScope, 'maxMeters'>, now: number): string[] {
    const text = isRecord(stored) ? stored.charges : undefined;
    if (this.more.length === 0 || text === undefined) return [];
    let lines: unknown = null;
    try {
      lines = typeof text === 'string' && text.length <= MAX_STORED_LINE_CHARS ? JSON.parse(text) : null;
    } catch {
      lines = null;
    }
    const dropped: string[] = [];
    this.more.forEach((m, i) => {
      // a charge added since (no line) starts from zero unsaid; anything else unread is said
      const line: unknown = Array.isArray(lines) ? lines[i] : null;
      if (line === undefined) return;
      const rank = this.ranks[i];
      const fields = Array.isArray(line) && line.length === 4 && line[0] === rankText(rank) ? (line as unknown[]) : null;
      const own = { ...scope, ...rank };
      const month = fields ? readMonth(fields[1], fields[2], own, now) : undefined;
      const history = fields && month !== undefined ? readHistory(fields[3], month, own, now) : null;
      if (history === null) dropped.push(`charge ${i + 2}`);
      else this.more[i] = { month: month ?? null, history };
    });
    return dropped;
  }
}

/** How a more charge ranks its peaks: stored months of another ranking are not its own. */
const rankText = (r: RankSettings): string => JSON.stringify([r.top, r.distinctDays, r.when ?? null, r.holidays ?? []]);

/** A window raises the bill when it raises any charge: the least kW that does (Infinity: none can), which the guard keeps under. */
export const leastRaise = (bills: ChargeBill[]): number => Math.min(...bills.map((b) => b.raiseKw));

/**
 * The bill's part of output 1 (`site.bill`): the own charge's billed kW, the charges' total,
 * the least kW that raises any, the same projected to the month's end, and each charge.
 */
export function billPayload(bills: ChargeBill[], reactive: ReturnType<SiteReactive['payload']> = null) {
  const raise = leastRaise(bills);
  const projected = bills.every((b) => b.projected !== null) ? bills.map((b) => b.projected!) : null;
  const part = (p: { billedKw: number; amount: number } | null) =>
    p === null ? null : { billedKw: roundAmount(p.billedKw), demandCharge: roundAmount(p.amount) };
  return {
    billedKw: roundAmount(bills[0].billedKw),
    demandCharge: roundAmount(bills.reduce((sum, b) => sum + b.amount, 0)),
    raisedAboveKw: raise === Infinity ? null : roundAmount(raise),
    projected: projected && part({ billedKw: projected[0].billedKw, amount: projected.reduce((sum, p) => sum + p.amount, 0) }),
    charges: bills.map((b) => ({
      name: b.name,
      billedKw: roundAmount(b.billedKw),
      demandCharge: roundAmount(b.amount),
      raisedAboveKw: b.raiseKw === Infinity ? null : roundAmount(b.raiseKw),
      projected: part(b.projected),
    })),
    reactive,
  };
}
