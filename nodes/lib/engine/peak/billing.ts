// Demand as it is billed (semantics rules 43-45): per billing period the billed kW of each
// demand charge (the period's peaks, a floor, a rolling average, the year's running
// maximum, a ratchet) and its amount (per kW, in steps, in blocks); and the kW a window
// must beat to raise the bill, which easy-peak's guard keeps under.
import { describe, localDayNumber, localPeriodIn, zoneOption } from '../time/time';
import { isObject } from '../tariff/tariff';
import { BillingPeriods, periodStartBefore } from './billing-periods';
import {
  booleanOption,
  MonthlyPeaksOptions,
  PeakHours,
  PeakRanking,
  peakRanking,
  PeakWindow,
  positiveInteger,
  rankedPeaks,
  readWindows,
  windowCounts,
} from './monthly-peaks';

/** How the billed kW is made from the periods' values. */
export type BilledBasis = 'period' | 'rolling' | 'year-max';

export interface DemandCharge {
  name?: string;
  /** Which windows make a period's value, as monthlyPeaks (rule 41). */
  top?: number;
  distinctDays?: boolean;
  when?: PeakHours;
  holidays?: string[];
  /** `period` (default): the period's value; `rolling`: the average over the last `rollingPeriods`; `year-max`: the local year's running maximum. */
  basis?: BilledBasis;
  rollingPeriods?: number;
  /** Each period's value counts at least this (kW). */
  floorKw?: number;
  /** The billed kW is at least `percent` % of the highest value of the `periods` periods before. */
  ratchet?: { percent: number; periods: number };
  /** One price: per billed kW, a fixed amount per step, or per kW in blocks (amounts per period, before VAT). */
  pricePerKw?: number;
  steps?: Array<{ uptoKw?: number; amount: number }>;
  blocks?: Array<{ uptoKw?: number; pricePerKw: number }>;
}

export interface DemandChargesOptions {
  timezone: string;
  periods?: BillingPeriods;
  completeOnly?: boolean;
  charges: DemandCharge[];
}

/** A charge checked once. */
export interface ChargeRule {
  name: string;
  ranking: PeakRanking;
  basis: BilledBasis;
  rollingPeriods: number;
  floorKw: number;
  ratchet: { share: number; periods: number } | null;
  price: { kind: 'kw'; pricePerKw: number } | { kind: 'steps' | 'blocks'; upto: number[]; prices: number[] };
}

export interface PeriodValue {
  from: number;
  value: number | null;
}

/** What the billed kW of a period takes from the periods before it. */
export interface ChargeContext {
  /** Rolling: the sum of the other periods' floored values, and how many periods are averaged (this one too). */
  rollingOthers: number;
  rollingCount: number;
  /** Year-max: the highest value of the year's periods before. */
  yearMax: number;
  /** The ratchet's floor (kW). */
  ratchetKw: number;
}

export interface ChargedPeriod {
  from: number;
  to: number;
  charges: Array<{ name: string; peaks: PeakWindow[]; value: number | null; billedKw: number; amount: number }>;
  /** The sum of the charges' amounts. */
  amount: number;
}

export const MAX_CHARGES = 8;
export const MAX_LOOKBACK = 24;
const MAX_STEPS = 50;

function nonNegative(x: unknown, what: string): number {
  if (!(typeof x === 'number' && Number.isFinite(x) && x >= 0))
    throw new TypeError(`${what} must be a number of at least 0, got ${describe(x)}`);
  return x;
}

function upTo(list: unknown, what: string, priceField: 'amount' | 'pricePerKw'): { upto: number[]; prices: number[] } {
  if (!Array.isArray(list) || list.length < 1 || list.length > MAX_STEPS)
    throw new TypeError(`${what} must be a list of 1 to ${MAX_STEPS} { uptoKw, ${priceField} }, got ${describe(list)}`);
  const upto: number[] = [];
  const prices: number[] = [];
  list.forEach((s: unknown, i) => {
    if (!isObject(s)) throw new TypeError(`${what}[${i}] must be { uptoKw, ${priceField} }, got ${describe(s)}`);
    const last = i === list.length - 1;
    const u = s.uptoKw === undefined && last ? Infinity : nonNegative(s.uptoKw, `${what}[${i}].uptoKw`);
    if (i > 0 && !(u > upto[i - 1])) throw new RangeError(`${what}[${i}].uptoKw must be above the step before (${upto[i - 1]} kW)`);
    upto.push(u);
    prices.push(nonNegative(s[priceField], `${what}[${i}].${priceField}`));
  });
  return { upto, prices };
}

/** One charge checked; errors name `charges[i].field`. */
export function chargeRule(c: unknown, i: number, options: { timezone: string; periods?: BillingPeriods }): ChargeRule {
  const at = `charges[${i}]`;
  if (!isObject(c)) throw new TypeError(`${at} must be an object such as { top: 1, pricePerKw: 4.2 }, got ${describe(c)}`);
  const d = c as DemandCharge;
  const name = d.name === undefined ? `charge ${i + 1}` : typeof d.name === 'string' ? d.name.slice(0, 64) : '';
  if (name === '') throw new TypeError(`${at}.name must be text, got ${describe(d.name)}`);
  const ranking = peakRanking({ ...(d as MonthlyPeaksOptions), timezone: options.timezone, periods: options.periods });
  const basis = d.basis ?? 'period';
  if (basis !== 'period' && basis !== 'rolling' && basis !== 'year-max')
    throw new TypeError(`${at}.basis must be "period", "rolling" or "year-max", got ${describe(d.basis)}`);
  const rollingPeriods = positiveInteger(d.rollingPeriods, `${at}.rollingPeriods`, 12);
  if (rollingPeriods > MAX_LOOKBACK) throw new RangeError(`${at}.rollingPeriods must be at most ${MAX_LOOKBACK}`);
  const floorKw = d.floorKw === undefined ? 0 : nonNegative(d.floorKw, `${at}.floorKw`);
  let ratchet: ChargeRule['ratchet'] = null;
  if (d.ratchet !== undefined) {
    if (!isObject(d.ratchet)) throw new TypeError(`${at}.ratchet must be { percent, periods }, got ${describe(d.ratchet)}`);
    const percent = nonNegative(d.ratchet.percent, `${at}.ratchet.percent`);
    if (percent > 100) throw new RangeError(`${at}.ratchet.percent must be at most 100, got ${percent}`);
    const periods = positiveInteger(d.ratchet.periods, `${at}.ratchet.periods`, 11);
    if (periods > MAX_LOOKBACK) throw new RangeError(`${at}.ratchet.periods must be at most ${MAX_LOOKBACK}`);
    ratchet = { share: percent / 100, periods };
  }
  const forms = (['pricePerKw', 'steps', 'blocks'] as const).filter((f) => d[f] !== undefined);
  if (forms.length !== 1) throw new TypeError(`${at} takes one price: pricePerKw, steps or blocks`);
  const price: ChargeRule['price'] =
    forms[0] === 'pricePerKw'
      ? { kind: 'kw', pricePerKw: nonNegative(d.pricePerKw, `${at}.pricePerKw`) }
      : forms[0] === 'steps'
        ? { kind: 'steps', ...upTo(d.steps, `${at}.steps`, 'amount') }
        : { kind: 'blocks', ...upTo(d.blocks, `${at}.blocks`, 'pricePerKw') };
  if (price.kind !== 'kw' && price.upto[price.upto.length - 1] !== Infinity)
    throw new RangeError(`${at}.${price.kind}: the last one has no uptoKw (it holds every kW above the one before)`);
  return { name, ranking, basis, rollingPeriods, floorKw, ratchet, price };
}

/** What the periods before (`history`, in time order, each before `from`) give the period starting at `from`. */
export function chargeContext(rule: ChargeRule, from: number, history: readonly PeriodValue[]): ChargeContext {
  const { zone, periods } = rule.ranking;
  const floored = (v: number | null): number => Math.max(v ?? 0, rule.floorKw);
  let rollingOthers = 0;
  let rollingCount = 1;
  let yearMax = 0;
  let ratchetMax = 0;
  const rollingFrom = rule.basis === 'rolling' ? periodStartBefore(zone, periods, from, rule.rollingPeriods - 1) : Infinity;
  const yearFrom = rule.basis === 'year-max' ? localPeriodIn(zone, 'year', from).from : Infinity;
  const ratchetFrom = rule.ratchet ? periodStartBefore(zone, periods, from, rule.ratchet.periods) : Infinity;
  for (const h of history) {
    if (!(h.from < from)) continue;
    if (h.from >= rollingFrom) {
      rollingOthers += floored(h.value);
      rollingCount++;
    }
    if (h.from >= yearFrom) yearMax = Math.max(yearMax, h.value ?? 0);
    if (h.from >= ratchetFrom) ratchetMax = Math.max(ratchetMax, h.value ?? 0);
  }
  return { rollingOthers, rollingCount, yearMax, ratchetKw: rule.ratchet ? rule.ratchet.share * ratchetMax : 0 };
}

/** The billed kW of a period whose value is `value`. */
export function billedKw(rule: ChargeRule, value: number | null, ctx: ChargeContext): number {
  const own = Math.max(value ?? 0, rule.floorKw);
  const basis =
    rule.basis === 'rolling' ? (ctx.rollingOthers + own) / ctx.rollingCount : rule.basis === 'year-max' ? Math.max(own, ctx.yearMax) : own;
  return Math.max(basis, ctx.ratchetKw);
}

/** What `kw` billed costs for one period. */
export function chargeAmount(rule: ChargeRule, kw: number): number {
  const p = rule.price;
  if (p.kind === 'kw') return p.pricePerKw * kw;
  if (p.kind === 'steps') return p.prices[stepOf(p.upto, kw)];
  let sum = 0;
  for (let i = 0, lower = 0; i < p.upto.length && kw > lower; lower = p.upto[i], i++)
    sum += p.prices[i] * (Math.min(kw, p.upto[i]) - lower);
  return sum;
}

/** The step holding `kw`: the first whose uptoKw is at or above it. */
const stepOf = (upto: number[], kw: number): number => {
  let i = 0;
  while (kw > upto[i]) i++;
  return i;
};

/**
 * The kW a window starting at `from` must beat (strictly) to raise this charge, given the
 * period's peaks so far (`peaks`, at most `top`) and the periods before (ctx). Peaks not
 * yet there count 0 (the value at the period's end). Infinity: the window cannot raise it
 * (it does not count, or the top step is reached).
 */
export function raiseThreshold(rule: ChargeRule, peaks: readonly PeakWindow[], from: number, ctx: ChargeContext): number {
  const r = rule.ranking;
  if (!windowCounts(r, from)) return Infinity;
  const n = r.top;
  let sum = 0;
  for (const p of peaks) sum += p.kw;
  let replaced = 0;
  const day = r.distinctDays ? localDayNumber(r.zone, from) : NaN;
  const sameDay = r.distinctDays ? peaks.find((p) => localDayNumber(r.zone, p.from) === day) : undefined;
  if (sameDay) replaced = sameDay.kw;
  else if (peaks.length >= n) replaced = Math.min(...peaks.map((p) => p.kw));
  const billedNow = billedKw(rule, sum / n, ctx);
  let beat = billedNow; // the billed kW the window must push above
  if (rule.price.kind === 'steps') {
    beat = rule.price.upto[stepOf(rule.price.upto, billedNow)];
    if (beat === Infinity) return Infinity;
  }
  const value = rule.basis === 'rolling' ? ctx.rollingCount * beat - ctx.rollingOthers : beat;
  return Math.max(replaced, n * value - (sum - replaced));
}

/**
 * Per billing period holding a window (periods in order): each charge's peaks and value
 * (monthlyPeaks with the charge's ranking), billed kW and amount, and their sum.
 */
export function demandCharges(windows: unknown, options: DemandChargesOptions): ChargedPeriod[] {
  zoneOption(options);
  if (!Array.isArray(options.charges) || options.charges.length < 1 || options.charges.length > MAX_CHARGES)
    throw new TypeError(`charges must be a list of 1 to ${MAX_CHARGES} demand charges, got ${describe(options.charges)}`);
  const rules = options.charges.map((c, i) => chargeRule(c, i, options));
  const all = readWindows(windows, booleanOption(options.completeOnly, 'completeOnly', true));
  const out = new Map<number, ChargedPeriod>();
  rules.forEach((rule, c) => {
    const history: PeriodValue[] = [];
    for (const period of rankedPeaks(all, rule.ranking)) {
      const ctx = chargeContext(rule, period.from, history);
      const billed = billedKw(rule, period.value, ctx);
      history.push({ from: period.from, value: period.value });
      let row = out.get(period.from);
      if (!row) out.set(period.from, (row = { from: period.from, to: period.to, charges: [], amount: 0 }));
      row.charges[c] = { name: rule.name, peaks: period.peaks, value: period.value, billedKw: billed, amount: chargeAmount(rule, billed) };
      row.amount += row.charges[c].amount;
    }
  });
  return [...out.values()].sort((a, b) => a.from - b.from);
}
