// Apparent demand and reactive energy (semantics rules 56-57): a meter's kWh and kvarh
// counters (or its kWh and a power factor) paired into kVAh and kVA per demand window, as
// half-hourly sites are billed; and per billing period the reactive energy beyond a free
// share of the active, with its charge, and the period's average power factor.
import { isObject } from '../tariff/tariff';
import { HOUR_MS, describe, zoneOption } from '../time/time';
import { BillingPeriods, billingPeriodIn, periodRule } from './billing-periods';
import { DemandWindow, DemandWindows, DemandWindowsOptions, demandWindows } from './demand';

/** A window of apparent demand: `energy` is kVAh and `kw` kVA (so monthlyPeaks and demandCharges rank kVA). */
export interface ApparentWindow extends DemandWindow {
  /** kWh in the window. */
  activeEnergy: number;
  /** kvarh in the window (from the counter, or what the power factor implies). */
  reactiveEnergy: number;
  /** kWh ÷ kVAh; null when the window holds no energy. */
  powerFactor: number | null;
}

export type ApparentWindows = ApparentWindow[] & {
  /** demandWindows of each register: what was left out of it (resets, glitches, pending, rejected, dropped, reordered). */
  active: DemandWindows;
  reactive: DemandWindows | null;
};

/** The registers of one meter: kWh and kvarh readings, or kWh readings and a power factor (0 < pf ≤ 1). */
export type ApparentRegisters = { active: unknown[]; reactive: unknown[] } | { active: unknown[]; powerFactor: number };

/** The kvarh a power factor allows per kWh: tan(acos(pf)) = √(1/pf² − 1). */
export const reactivePerActive = (pf: number): number => Math.sqrt(1 / (pf * pf) - 1);

function powerFactorOption(x: unknown, what: string): number {
  if (typeof x !== 'number' || !(x > 0 && x <= 1))
    throw new TypeError(`${what} must be a power factor above 0 and at most 1, got ${describe(x)}`);
  return x;
}

/**
 * kVA per demand window (rule 56): each register's windows by demandWindows (same options),
 * paired by window: kVAh = √(kWh² + kvarh²), kVA = kVAh over the window's real length. A
 * window only one register's readings reach counts 0 for the other and is not complete;
 * its gap is the longer of the two.
 */
export function apparentDemandWindows(registers: ApparentRegisters, options: DemandWindowsOptions): ApparentWindows {
  if (!isObject(registers) || !Array.isArray((registers as { active?: unknown }).active))
    throw new TypeError('registers must be { active: readings, reactive: readings } or { active: readings, powerFactor }');
  const r = registers as { active: unknown[]; reactive?: unknown; powerFactor?: unknown };
  if ((r.reactive === undefined) === (r.powerFactor === undefined))
    throw new TypeError('registers need either reactive (kvarh readings) or powerFactor, not both');
  if (r.reactive !== undefined && !Array.isArray(r.reactive)) throw new TypeError('registers.reactive must be an array of kvarh readings');
  const pf = r.powerFactor === undefined ? null : powerFactorOption(r.powerFactor, 'registers.powerFactor');
  const active = demandWindows(r.active, options);
  const reactive = Array.isArray(r.reactive) ? demandWindows(r.reactive, options) : null;
  const byStart = new Map<number, { a: DemandWindow | null; q: DemandWindow | null }>();
  for (const w of active) byStart.set(w.from, { a: w, q: null });
  for (const w of reactive ?? []) {
    const pair = byStart.get(w.from);
    if (pair) pair.q = w;
    else byStart.set(w.from, { a: null, q: w });
  }
  const out = Object.assign([] as ApparentWindow[], { active, reactive });
  for (const { a, q } of [...byStart.values()].sort((x, y) => (x.a ?? x.q)!.from - (y.a ?? y.q)!.from)) {
    const w = (a ?? q)!;
    const kwh = a ? a.energy : 0;
    const kvarh = pf !== null ? kwh * reactivePerActive(pf) : q ? q.energy : 0;
    const kvah = pf !== null ? kwh / pf : Math.hypot(kwh, kvarh);
    const gaps = [a?.gap, q?.gap].filter((g): g is { from: number; to: number } => g !== undefined);
    const gap = gaps.sort((x, y) => y.to - y.from - (x.to - x.from) || x.from - y.from)[0];
    out.push({
      from: w.from,
      to: w.to,
      energy: kvah,
      kw: kvah / ((w.to - w.from) / HOUR_MS),
      complete: a !== null && a.complete && (pf !== null || (q !== null && q.complete)),
      ...(gap ? { gap } : {}),
      activeEnergy: kwh,
      reactiveEnergy: kvarh,
      powerFactor: kvah > 0 ? kwh / kvah : null,
    });
  }
  return out;
}

export interface ReactiveChargesOptions {
  timezone: string;
  periods?: BillingPeriods;
  /** kvarh free per kWh in each window; default that of a power factor of 0.95 (0.3287). */
  freeRatio?: number;
  /** Instead of freeRatio: the power factor down to which reactive energy is free. */
  minPowerFactor?: number;
  /** Per chargeable kvarh (default 0: the energy only). */
  pricePerKvarh?: number;
}

export interface ReactivePeriod {
  from: number;
  to: number;
  activeEnergy: number;
  reactiveEnergy: number;
  apparentEnergy: number;
  /** The period's average power factor: its kWh ÷ its kVAh (null without energy). */
  powerFactor: number | null;
  /** Σ over its windows of max(0, kvarh − freeRatio × kWh). */
  chargeableKvarh: number;
  amount: number;
  windows: number;
}

/**
 * Per billing period (rule 57): the reactive energy beyond the free share, window by window
 * (as the UK's excess reactive power charge counts each half hour), its amount, and the
 * average power factor. Windows belong to the period holding their start.
 */
export function reactiveCharges(windows: readonly ApparentWindow[], options: ReactiveChargesOptions): ReactivePeriod[] {
  const zone = zoneOption(options);
  if (!Array.isArray(windows)) throw new TypeError('windows must be an array of apparentDemandWindows windows');
  const rule = periodRule(options.periods);
  if (options.freeRatio !== undefined && options.minPowerFactor !== undefined)
    throw new TypeError('give freeRatio or minPowerFactor, not both');
  const free =
    options.freeRatio !== undefined
      ? nonNegative(options.freeRatio, 'options.freeRatio')
      : reactivePerActive(
          options.minPowerFactor === undefined ? 0.95 : powerFactorOption(options.minPowerFactor, 'options.minPowerFactor'),
        );
  const price = options.pricePerKvarh === undefined ? 0 : nonNegative(options.pricePerKvarh, 'options.pricePerKvarh');
  const periods = new Map<number, ReactivePeriod>();
  for (const [i, w] of windows.entries()) {
    const kwh = w?.activeEnergy;
    const kvarh = w?.reactiveEnergy;
    if (!isObject(w) || typeof w.from !== 'number' || !Number.isFinite(kwh) || !Number.isFinite(kvarh) || kwh < 0 || kvarh < 0)
      throw new TypeError(
        `windows[${i}] must be a window of apparentDemandWindows (from, activeEnergy and reactiveEnergy numbers, not negative)`,
      );
    const bounds = billingPeriodIn(zone, rule, w.from);
    if (!bounds) continue; // before the first read date, or after the last
    let p = periods.get(bounds.from);
    if (!p) {
      p = {
        ...bounds,
        activeEnergy: 0,
        reactiveEnergy: 0,
        apparentEnergy: 0,
        powerFactor: null,
        chargeableKvarh: 0,
        amount: 0,
        windows: 0,
      };
      periods.set(bounds.from, p);
    }
    p.activeEnergy += kwh;
    p.reactiveEnergy += kvarh;
    p.apparentEnergy += Math.hypot(kwh, kvarh);
    p.chargeableKvarh += Math.max(0, kvarh - free * kwh);
    p.windows++;
  }
  const out = [...periods.values()].sort((a, b) => a.from - b.from);
  for (const p of out) {
    p.powerFactor = p.apparentEnergy > 0 ? p.activeEnergy / p.apparentEnergy : null;
    p.amount = p.chargeableKvarh * price;
  }
  return out;
}

function nonNegative(x: unknown, what: string): number {
  if (typeof x !== 'number' || !(x >= 0) || x === Infinity)
    throw new TypeError(`${what} must be a finite number of at least 0, got ${describe(x)}`);
  return x;
}
