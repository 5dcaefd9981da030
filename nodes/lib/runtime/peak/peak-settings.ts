// easy-peak's configuration from the flow, checked at deploy (the dialog validates the
// same bounds, but a flow may come from an import or a hand edit): a setting out of range
// is an error naming it, never a silent default.
import { typedValue } from '../common/typed-value';
import { DEMAND_MINUTES, DemandMinutes } from '../../engine/peak/demand-window';
import { monthlyPeaks, PeakHours } from '../../engine/peak/monthly-peaks';
import { BilledBasis, chargeRule, ChargeRule, DemandCharge, MAX_CHARGES } from '../../engine/peak/billing';
import { maxPowerSetting } from '../common/node-settings';
import { MIN_POWER_FACTOR } from '../common/meter-reading';
import type { BillingPeriods } from '../../engine/peak/billing-periods';
import { periodsOf } from '../peak-period/peak-month';
import type { ReactiveSettings } from '../peak-period/peak-reactive';
import type { WindowScope } from './peak-meter';

export type { DemandMinutes } from '../../engine/peak/demand-window';
/** The most peaks a month's value may average (Norway: 3; nobody bills on more than a handful). */
export const MAX_TOP = 10;

/** The longest *longest gap* (a day): a meter read less often cannot give a window's peak anyway. */
export const MAX_GAP_MINUTES = 1440;

/** Which windows may be peaks, written as a tariff rule writes a time range and weekdays. */
export type PeakWhen = PeakHours;

export interface PeakSettings {
  minutes: DemandMinutes;
  /** How many of the month's highest windows make its value (their average). */
  top: number;
  /** At most one peak per local day (that day's highest). */
  distinctDays: boolean;
  /** Only windows starting inside this, as a tariff rule writes it; null: every window. */
  when: PeakWhen | null;
  /** `peak`: stay under the month's peak value (at least floorKw); `fixed`: under limitKw. */
  limit: 'peak' | 'fixed';
  limitKw: number | null;
  floorKw: number;
  marginPercent: number;
  hysteresisPercent: number;
  /** A meter's latest power older than this is stale: the guard does not shed on it. */
  staleMs: number;
  /** A rise of one meter faster than this (kW) is a jump (semantics rule 10): a glitch when the meter comes back, a swap when it stays. */
  maxPowerKw: number;
  /** An interval between a meter's readings longer than this is a gap: the windows it overlaps are not complete (default: staleMs). */
  maxGapMs: number;
  shedValue: unknown;
  restoreValue: unknown;
  /** The load the relay sheds (kW); null: learned from the drop at shed. */
  shedKw: number | null;
  /** How the bill is made from the periods' peaks (semantics rule 45); the guard keeps under what would raise it (rule 46). */
  bill: BillSettings;
  /** The reactive energy charge (semantics rule 65): free down to a power factor, beyond it a price per kvarh. */
  reactive: ReactiveSettings;
  /** The contract's power factor (MIN_POWER_FACTOR ≤ pf ≤ 1): the site's kWh windows are billed as kVA, kVAh = kWh ÷ pf (rule 66); null: none. */
  powerFactor: number | null;
}

export interface BillSettings {
  /** The month starts on this day of the month, the meter-read day (1: calendar months; 31: a shorter month's last day). */
  readDay: number;
  /** Or on these local dates `YYYY-MM-DD` (at least two, in order; empty: none), monthly on the end dates' days beyond them. */
  readDates: string[];
  holidays: string[];
  basis: BilledBasis;
  rollingPeriods: number;
  floorKw: number;
  ratchet: { percent: number; periods: number } | null;
  /** Per billed kW, or a fixed amount per step; neither: no amount (0). */
  pricePerKw: number | null;
  steps: Array<{ uptoKw?: number; amount: number }> | null;
  /** The demand charges billed beside the node's own (at most MAX_MORE_CHARGES), as the engine's DemandCharge. */
  more: DemandCharge[];
}

const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : typeof x === 'number' ? String(x) : '');

/** A number setting: empty gives `fallback`; otherwise a finite number in [min, max], or an error naming it. */
function numberSetting(raw: unknown, name: string, min: number, max: number, fallback: number | null): number | null {
  const t = text(raw);
  if (t === '') return fallback;
  const n = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  if (!(n >= min && n <= max)) throw new Error(`${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

function weekdaysSetting(raw: unknown): number[] | undefined {
  const t = text(raw);
  if (t === '') return undefined;
  const days = t.split(/[\s,]+/).map((d) => (/^[1-7]$/.test(d) ? Number(d) : NaN));
  if (days.some((d) => Number.isNaN(d)))
    throw new Error(`weekdays must be ISO weekdays 1 (Monday) to 7 (Sunday), such as 1,2,3,4,5, got ${JSON.stringify(raw)}`);
  return days;
}

/** Price steps written `2:275, 5:375, 10:450, *:2100` (up to kW : amount; `*` the last, every kW above). */
function stepsSetting(raw: unknown): BillSettings['steps'] {
  const t = text(raw);
  if (t === '') return null;
  return t.split(/\s*,\s*/).map((part) => {
    const m = /^(\*|\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)$/.exec(part);
    if (!m) throw new Error(`price steps must read "up to kW: amount", such as 2:275, 5:375, *:450; got ${JSON.stringify(part)}`);
    return m[1] === '*' ? { amount: Number(m[2]) } : { uptoKw: Number(m[1]), amount: Number(m[2]) };
  });
}

/** The most charges a node adds to its own (the engine bills at most MAX_CHARGES at once). */
export const MAX_MORE_CHARGES = MAX_CHARGES - 1;
/** The longest text of the more charges setting. */
const MAX_CHARGES_TEXT = 20_000;

/** The *more demand charges* setting: JSON text (the dialog) or a list (a flow edited by hand); empty: none. */
export function moreChargesSetting(raw: unknown, timezone: string, periods: BillingPeriods | undefined): DemandCharge[] {
  const text = typeof raw === 'string' ? raw.trim() : null;
  if (raw === undefined || raw === null || text === '') return [];
  let list: unknown = raw;
  if (text !== null) {
    if (text.length > MAX_CHARGES_TEXT) throw new Error(`more demand charges: at most ${MAX_CHARGES_TEXT} characters of JSON`);
    try {
      list = JSON.parse(text);
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error
      throw new Error(
        `more demand charges must be JSON, a list such as [{ "name": "on-peak", "pricePerKw": 19.98 }]: ${(err as Error).message}`,
      );
    }
  }
  if (!Array.isArray(list)) throw new Error('more demand charges must be a list such as [{ "name": "on-peak", "pricePerKw": 19.98 }]');
  if (list.length > MAX_MORE_CHARGES)
    throw new Error(`more demand charges: at most ${MAX_MORE_CHARGES} (${MAX_CHARGES} in all with the node's own), got ${list.length}`);
  list.forEach((c: unknown, i) => {
    const at = `more demand charges: charge ${i + 2}`;
    try {
      chargeRule(c, i + 1, { timezone, periods });
    } catch (err) {
      // the engine names charges[i].field: said as the node numbers them (its own is charge 1)
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`${at}: ${(err as Error).message.replace(/^charges\[\d+\][. ]?/, '')}`);
    }
    const top = (c as DemandCharge).top;
    if (top !== undefined && top > MAX_TOP) throw new Error(`${at}: top must be at most ${MAX_TOP}, got ${top}`);
  });
  return list as DemandCharge[];
}

/** The most read dates a node takes: 30 years of monthly reads. */
export const MAX_READ_DATES = 366;

/** Read dates written `2026-01-14, 2026-02-12, …` (local dates, in order); checked as the engine checks them in billCharge. */
function readDatesSetting(raw: unknown): string[] {
  const t = text(raw);
  if (t === '') return [];
  const dates = t.split(/[\s,]+/);
  if (dates.length < 2)
    throw new Error(`read dates need at least two dates YYYY-MM-DD (one date: use the read day), got ${JSON.stringify(raw)}`);
  if (dates.length > MAX_READ_DATES) throw new Error(`read dates: at most ${MAX_READ_DATES} dates, got ${dates.length}`);
  return dates;
}

/** The bill's periods as the engine's option (rule 43): read dates never leave a window in no period. */
export const billPeriods = (bill: Pick<BillSettings, 'readDay' | 'readDates'>): BillingPeriods | undefined =>
  periodsOf({ timezone: 'UTC', ...bill });

/** The bill's settings (semantics rule 45), checked as demandCharges checks a charge. */
function billSettings(config: Record<string, unknown>): BillSettings {
  const basis = text(config.basis) || 'period';
  if (basis !== 'period' && basis !== 'rolling' && basis !== 'year-max')
    throw new Error(`the billed kW must be "period", "rolling" or "year-max", got ${JSON.stringify(config.basis)}`);
  const rollingPeriods = numberSetting(config.rollingPeriods, 'the periods averaged', 1, 24, 12)!;
  const ratchetPercent = numberSetting(config.ratchetPercent, 'the ratchet (%)', 0, 100, null);
  const ratchetPeriods = numberSetting(config.ratchetPeriods, 'the ratchet periods', 1, 24, 11)!;
  if (!Number.isInteger(rollingPeriods) || !Number.isInteger(ratchetPeriods))
    throw new Error('the periods averaged and the ratchet periods must be whole numbers');
  const steps = stepsSetting(config.priceSteps);
  const pricePerKw = numberSetting(config.pricePerKw, 'the price per kW', 0, 1e9, null);
  if (steps && pricePerKw !== null) throw new Error('the demand charge takes a price per kW or price steps, not both');
  const readDay = numberSetting(config.readDay, 'the read day', 1, 31, 1)!;
  if (!Number.isInteger(readDay))
    throw new Error(`the read day must be a whole day of the month from 1 to 31, got ${JSON.stringify(config.readDay)}`);
  const holidays = text(config.holidays) === '' ? [] : text(config.holidays).split(/[\s,]+/);
  const readDates = readDatesSetting(config.readDates);
  if (readDates.length > 0 && readDay > 1)
    throw new Error(`the month runs from a read day or from read dates, not both (read day ${readDay}; clear one of them)`);
  return {
    readDay,
    readDates,
    holidays,
    basis,
    rollingPeriods,
    floorKw: numberSetting(config.billFloorKw, 'the billed kW at least', 0, 1e6, 0)!,
    ratchet: ratchetPercent === null || ratchetPercent === 0 ? null : { percent: ratchetPercent, periods: ratchetPeriods },
    pricePerKw,
    steps,
    more: moreChargesSetting(config.moreCharges, 'UTC', billPeriods({ readDay, readDates })),
  };
}

/** The bill as the engine's demand charge (one charge: the node's peaks, its bill settings). */
export function billCharge(settings: Pick<PeakSettings, 'top' | 'distinctDays' | 'when' | 'bill'>, timezone: string): ChargeRule {
  const { bill } = settings;
  const charge: DemandCharge = {
    top: settings.top,
    distinctDays: settings.distinctDays,
    ...(settings.when ? { when: settings.when } : {}),
    holidays: bill.holidays,
    basis: bill.basis,
    rollingPeriods: bill.rollingPeriods,
    floorKw: bill.floorKw,
    ...(bill.ratchet ? { ratchet: bill.ratchet } : {}),
    ...(bill.steps ? { steps: bill.steps } : { pricePerKw: bill.pricePerKw ?? 0 }),
  };
  try {
    return chargeRule(charge, 0, { timezone, periods: billPeriods(bill) });
  } catch (err) {
    // the engine names its option (charges[0].steps[1].uptoKw, periods.readDates[2]): said with the node's words before it
    const message = (err as Error).message
      .replace(/^periods\.readDates\[(\d+)\]/, (_, i: string) => `read date ${Number(i) + 1}`)
      .replace(/^periods\.readDates/, 'read dates')
      .replace(/^charges\[0\]\.?/, '');
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`the bill: ${message}`);
  }
}

/** The reactive energy charge's settings (rule 65): the power factor down to which kvarh are free (default 0.95) and the price per kvarh beyond (default 0). */
function reactiveSettings(config: Record<string, unknown>): ReactiveSettings {
  const minPowerFactor = numberSetting(config.minPowerFactor, 'the power factor free of charge', MIN_POWER_FACTOR, 1, 0.95)!;
  return { minPowerFactor, pricePerKvarh: numberSetting(config.pricePerKvarh, 'the price per kvarh', 0, 1e9, 0)! };
}

/** The *power factor* setting: empty for none, else a number from MIN_POWER_FACTOR to 1 (a contract's declared power factor). */
function powerFactorSetting(raw: unknown): number | null {
  const t = text(raw);
  if (t === '') return null;
  const pf = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN;
  if (!(pf >= MIN_POWER_FACTOR && pf <= 1))
    throw new Error(`the power factor must be a number from ${MIN_POWER_FACTOR} to 1 (empty: none), got ${JSON.stringify(raw)}`);
  return pf;
}

/** The node's settings, or an Error a user understands naming the first setting that is wrong. */
export function peakSettings(config: Record<string, unknown>): PeakSettings {
  // one of three values: a range in the words ("from 15 to 60") would let 20 seem right
  const minutesText = text(config.minutes) || '15';
  const minutes = /^\d+(\.\d*)?$/.test(minutesText) ? Number(minutesText) : NaN;
  if (!DEMAND_MINUTES.includes(minutes as DemandMinutes))
    throw new Error(`the window must be 15, 30 or 60 minutes, got ${JSON.stringify(config.minutes)}`);
  const top = numberSetting(config.top, 'peaks per month', 1, MAX_TOP, 1)!;
  if (!Number.isInteger(top))
    throw new Error(`peaks per month must be a whole number from 1 to ${MAX_TOP}, got ${JSON.stringify(config.top)}`);
  const limit =
    config.limit === 'fixed' ? 'fixed' : config.limit === undefined || config.limit === '' || config.limit === 'peak' ? 'peak' : null;
  if (limit === null) throw new Error(`the limit must be "peak" (the month's peak value) or "fixed", got ${JSON.stringify(config.limit)}`);
  const limitKw = numberSetting(config.limitKw, 'the fixed limit (kW)', 0.001, 1e6, null);
  if (limit === 'fixed' && limitKw === null) throw new Error('a fixed limit needs its kW');
  const start = text(config.timeStart);
  const end = text(config.timeEnd);
  if ((start === '') !== (end === '')) throw new Error('count peaks from … until … needs both times, or neither');
  const weekdays = weekdaysSetting(config.weekdays);
  const when: PeakWhen | null =
    start || weekdays ? { ...(start ? { time_start: start, time_end: end } : {}), ...(weekdays ? { weekdays } : {}) } : null;
  if (when) {
    // read as monthlyPeaks reads it (a tariff rule's time range and weekdays), so a wrong time is said at deploy
    try {
      monthlyPeaks([], { timezone: 'UTC', when });
    } catch (err) {
      // the reason is in the message; the target's lib has no Error cause
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`count only: ${(err as Error).message}`);
    }
  }
  const bill = billSettings(config);
  const staleMs = numberSetting(config.staleMinutes, 'stale after (minutes)', 1, 60, 5)! * 60_000;
  const settings: PeakSettings = {
    minutes: minutes as DemandMinutes,
    top,
    distinctDays: config.distinctDays === true || config.distinctDays === 'true',
    when,
    limit,
    limitKw: limit === 'fixed' ? limitKw : null,
    floorKw: numberSetting(config.floorKw, 'the lowest limit (kW)', 0, 1e6, 0)!,
    marginPercent: numberSetting(config.marginPercent, 'the margin (%)', 0, 50, 5)!,
    hysteresisPercent: numberSetting(config.hysteresisPercent, 'the hysteresis (%)', 0, 50, 5)!,
    staleMs,
    maxPowerKw: maxPowerSetting(config.maxPowerKw),
    maxGapMs: numberSetting(config.maxGapMinutes, 'the longest gap (minutes)', 1, MAX_GAP_MINUTES, staleMs / 60_000)! * 60_000,
    shedValue: config.shedType === undefined ? 'shed' : typedValue(config.shedValue, config.shedType, 'the shed value'),
    restoreValue: config.restoreType === undefined ? 'restore' : typedValue(config.restoreValue, config.restoreType, 'the restore value'),
    shedKw: numberSetting(config.shedKw, 'the shed load (kW)', 0.001, 1e6, null),
    bill,
    reactive: reactiveSettings(config),
    powerFactor: powerFactorSetting(config.powerFactor),
  };
  billCharge(settings, 'UTC'); // checked as the engine checks it, so a wrong step or holiday is said at deploy
  return settings;
}

/**
 * The limit the guard keeps under: the fixed kW, or the kW a window must beat to raise the
 * bill (`raiseKw`, semantics rule 46) but at least the floor (null: none yet, or nothing this
 * window can raise: raiseKw Infinity).
 */
export function limitOf(settings: Pick<PeakSettings, 'limit' | 'limitKw' | 'floorKw'>, raiseKw: number | null): number | null {
  if (settings.limit === 'fixed') return settings.limitKw;
  if (raiseKw === Infinity) return null;
  const limit = Math.max(raiseKw ?? 0, settings.floorKw);
  return limit > 0 ? limit : null;
}

/** What the meters, the site and the store count with under these settings in `timezone`: the windows, how peaks rank, the months, the judge's limits. */
export function windowScope(timezone: string, settings: PeakSettings): WindowScope {
  const { bill } = settings;
  return {
    timezone,
    minutes: settings.minutes,
    top: settings.top,
    distinctDays: settings.distinctDays,
    when: settings.when,
    holidays: bill.holidays,
    readDay: bill.readDay,
    readDates: bill.readDates,
    maxPowerKw: settings.maxPowerKw,
    maxGapMs: settings.maxGapMs,
  };
}
