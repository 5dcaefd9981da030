// computeCost (semantics rules 8-13): options checked, the walk run, the result built.
//
// The readings are walked once against segments of constant matching rule (see
// price.ts), generated a few weeks at a time, so no object is made per interval and
// memory beyond the input stays constant. Input that is already clean and sorted
// (the usual case) is costed in that single pass (cost-walk.ts); anything else
// (garbage, unsorted, duplicate timestamps) is copied into typed arrays, cleaned,
// sorted (readings.ts) and walked again.
import { CompiledTariff, SensorRef, Tariff } from '../tariff/tariff';
import { engineContext } from '../prices/price-source';
import { SplitSensor, sensorEvents } from './cost-segments';
import { WalkSetup, emptyTotals, walkCleaned, walkRaw } from './cost-walk';
import type { RejectedInterval, ResetInterval, SuspectReading, Totals } from './walk-totals';
import { DEFAULT_MAX_POWER_KW } from '../common/limits';

import { Cleaned, DroppedRow, Instant, Reading, clean, instantOf, rowTs } from './readings';

export type { Instant, Reading, DroppedRow } from './readings';
export type { Interval, RejectedInterval, ResetInterval, SuspectReading } from './walk-totals';

/** Per sensor a timeline of [instant, value] (the value holds from then on), or a constant. */
export type SensorTimelines = {
  [gatewayId: string]: { [sensorId: string]: Array<[Instant, number] | { ts: Instant; value: number }> | number };
};

export interface CostOptions {
  timezone: string;
  sensors?: SensorTimelines;
  attribution?: 'start' | 'prorate';
  /** Rule 10: a rise faster than this (kW) is a jump, judged as a glitch or a swap; default DEFAULT_MAX_POWER_KW, Infinity for none. */
  maxPowerKw?: number;
  /** Energy and cost split by this sensor's value, attributed as prices are (rule 11). */
  splitBy?: { gatewayId: string; sensorId: string };
  /** Which way the meter counts (rule 47): `import` (bought, the default) or `export` (sold: the tariff is the export tariff, the amounts a credit). */
  direction?: MeterDirection;
  /** Export only: VAT on the credit (default false: gross = net, `vat` 0). */
  exportVat?: boolean;
  /** Nothing paid where the price is below 0 (a price stack: or its spot part is): such energy counts at 0 (rule 47, "floor"). */
  floorAtZero?: boolean;
}

/** Which way a meter's register counts: energy bought from the grid, or sold to it. */
export type MeterDirection = 'import' | 'export';

/** Energy and cost while splitBy's sensor had one value (`null`: unknown). */
export interface SensorValueCost {
  value: number | null;
  energy: number;
  unpricedEnergy: number;
  net: number;
  gross: number;
}

export interface RuleCost {
  ruleIndex: number;
  priority: number;
  price: number;
  energy: number;
  net: number;
}

export interface CostResult {
  net: number;
  gross: number;
  vat: number;
  currency: string;
  energy: number; // kWh counted: priced and unpriced, without resets, glitches and rejected intervals
  unpricedEnergy: number;
  intervals: number; // consecutive pairs of clean readings, resets and rejected included
  byRule: RuleCost[]; // rules that priced at least one interval, in evaluation order
  resets: ResetInterval[]; // intervals into a new base (rule 10): a counter reset or a meter swap, 0 kWh
  rejected: RejectedInterval[];
  glitches: SuspectReading[]; // readings judged glitches (rule 10), dropped
  pending: SuspectReading[]; // suspect readings at the end that no later reading decided: not counted
  dropped: DroppedRow[];
  reordered: boolean; // the input was not in time order and has been sorted
  unknownSensors: SensorRef[]; // sensors consulted while unknown within [from, to)
  from: number | null;
  to: number | null;
  /** A price stack's net by part: the list's prices, the fees', the add-ons' (price = their sum). */
  parts?: { spot: number; fees: number; addOns: number };
  /** With splitBy: one entry per value that priced an interval, known values ascending, then unknown. */
  bySensorValue?: SensorValueCost[];
  /** The meter's direction (rule 47): for `export` the amounts are what the energy sold earns. */
  direction: MeterDirection;
}

/**
 * Cost of cumulative kWh readings under a tariff: net, gross, energy per rule, and
 * every reading or interval left out with the reason (semantics rules 8-13).
 */
export function computeCost(tariff: Tariff | unknown, readings: readonly Reading[] | readonly unknown[], options: CostOptions): CostResult {
  const { ct, zone } = engineContext(tariff, options);
  if (!Array.isArray(readings)) throw new TypeError('readings must be an array of [timestamp, kWh] pairs or { ts, value } objects');
  const attribution = options.attribution ?? 'start';
  if (attribution !== 'start' && attribution !== 'prorate') {
    throw new TypeError(`attribution must be "start" or "prorate", got ${JSON.stringify(attribution)}`);
  }
  const maxPowerKw = maxPowerOption(options.maxPowerKw);
  const pricing = pricingOf(ct, options);
  const events = sensorEvents(ct, options.sensors, splitByOption(options.splitBy));
  const setup: WalkSetup = {
    ct,
    zone,
    events,
    prorate: attribution === 'prorate',
    maxPowerKw,
    energyLimit: energyLimit(ct),
  };
  const n = readings.length;
  const lastTs = n > 0 ? instantOf(rowTs(readings[n - 1])) : NaN;
  // The optimistic pass needs a valid last timestamp to bound its segments.
  const fast = lastTs === lastTs ? walkRaw(setup, readings, lastTs) : null;
  if (fast || n === 0)
    return result(
      ct,
      pricing,
      fast ?? emptyTotals(ct, events.split ? events.split.known.length + 1 : 1),
      null,
      n > 0 ? [instantOf(rowTs(readings[0])), lastTs] : [],
      events.split,
    );
  const cleaned = clean(readings);
  const ts = cleaned.ts;
  // Never null: cleaned readings are finite and strictly increasing.
  return result(ct, pricing, walkCleaned(setup, cleaned), cleaned, ts, events.split);
}

/** How a pass's energy becomes money (rule 47): the direction, the VAT applied (0 on export unless asked), negative prices floored or not. */
interface Pricing {
  direction: MeterDirection;
  vat: number;
  floorAtZero: boolean;
}

/** Option direction: "import" (default) or "export"; anything else is a TypeError. */
export function directionOption(x: unknown): MeterDirection {
  if (x === undefined || x === null || x === 'import') return 'import';
  if (x === 'export') return 'export';
  throw new TypeError(`direction must be "import" or "export", got ${typeof x === 'string' ? JSON.stringify(x.slice(0, 40)) : typeof x}`);
}

function pricingOf(ct: CompiledTariff, options: CostOptions): Pricing {
  const direction = directionOption(options.direction);
  for (const name of ['exportVat', 'floorAtZero'] as const) {
    const x = options[name];
    if (x !== undefined && typeof x !== 'boolean') throw new TypeError(`${name} must be true or false, got ${typeof x}`);
  }
  return { direction, vat: direction === 'export' && options.exportVat !== true ? 0 : ct.vat, floorAtZero: options.floorAtZero === true };
}

/**
 * The rate a slot's energy is counted at: its price, or 0 where it is floored (rule 47): the
 * price is below 0, or on a price stack the spot price is ("nothing paid when spot < 0").
 */
const rateOf = (ct: CompiledTariff, pricing: Pricing, slot: number): number => (floored(ct, pricing, slot) ? 0 : ct.rules[slot].price);

function floored(ct: CompiledTariff, pricing: Pricing, slot: number): boolean {
  return pricing.floorAtZero && (ct.rules[slot].price < 0 || (ct.stack !== undefined && ct.stack.spot[slot] < 0));
}

/** Option maxPowerKw (semantics rule 10): a non-negative number (Infinity: no jumps), DEFAULT_MAX_POWER_KW when not given. */
export function maxPowerOption(x: unknown): number {
  const maxPowerKw = x ?? DEFAULT_MAX_POWER_KW;
  if (typeof maxPowerKw !== 'number' || !(maxPowerKw >= 0))
    throw new TypeError(`maxPowerKw must be a non-negative number, got ${String(maxPowerKw)}`);
  return maxPowerKw;
}

function splitByOption(x: unknown): SensorRef | null {
  if (x === undefined || x === null) return null;
  const id = (v: unknown): string | null =>
    typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;
  const gatewayId = typeof x === 'object' ? id((x as { gatewayId?: unknown }).gatewayId) : null;
  const sensorId = typeof x === 'object' ? id((x as { sensorId?: unknown }).sensorId) : null;
  if (gatewayId === null || sensorId === null) {
    throw new TypeError('splitBy must be { gatewayId, sensorId }, the ids of the sensor to split by');
  }
  return { gatewayId, sensorId };
}

/**
 * The most energy whose cost stays finite: every rule's net is at most its energy times
 * the highest absolute rate, the sum of their sizes at most all energy times it, gross
 * that times the VAT factor; half of Number.MAX_VALUE leaves room for rounding. Divided
 * step by step so that the bound itself cannot overflow.
 */
function energyLimit(ct: CompiledTariff): number {
  let highestRate = Math.max(1, ct.stack ? ct.stack.highestRate : 1);
  for (const rule of ct.rules) highestRate = Math.max(highestRate, Math.abs(rule.price));
  return Number.MAX_VALUE / 2 / highestRate / Math.max(1, Math.abs(1 + ct.vat / 100));
}

function result(
  ct: CompiledTariff,
  pricing: Pricing,
  totals: Totals,
  cleaned: Cleaned | null,
  ts: ArrayLike<number>,
  split: SplitSensor | null,
): CostResult {
  const stride = ct.rules.length + 1;
  const groups = totals.energyBySlot.length / stride;
  // Sums over the split's groups (one group without splitBy): slot s of group g at g * stride + s
  const slotEnergy = (slot: number): number => {
    let energy = 0;
    for (let g = 0; g < groups; g++) energy += totals.energyBySlot[g * stride + slot];
    return energy;
  };
  const slotUsed = (slot: number): boolean => {
    for (let g = 0; g < groups; g++) if (totals.usedBySlot[g * stride + slot] !== 0) return true;
    return false;
  };
  // a price stack numbers its slots as met: the walk must have had a place for each (cost-walk's meetStackSlots)
  if (totals.energyBySlot.length !== stride * (split ? split.known.length + 1 : 1))
    throw new Error('cost walk: a price slot was met after the totals were made');
  let byRule: RuleCost[] = [];
  let net = 0;
  ct.rules.forEach((rule, slot) => {
    if (!slotUsed(slot + 1)) return;
    const energy = slotEnergy(slot + 1);
    const ruleNet = energy * rateOf(ct, pricing, slot);
    net += ruleNet;
    byRule.push({ ruleIndex: rule.ruleIndex, priority: rule.priority, price: rule.price, energy, net: ruleNet });
  });
  let parts: CostResult['parts'];
  if (ct.stack) ({ byRule, parts } = stackCost(ct, pricing, slotEnergy, slotUsed));
  const out: CostResult = {
    net,
    gross: net * (1 + pricing.vat / 100),
    vat: pricing.vat,
    currency: ct.currency,
    energy: totals.energy[0],
    unpricedEnergy: slotEnergy(0),
    intervals: totals.intervals,
    byRule,
    resets: totals.resets,
    rejected: totals.rejected,
    glitches: totals.glitches,
    pending: totals.pending,
    dropped: cleaned ? cleaned.dropped : [],
    reordered: cleaned ? cleaned.reordered : false,
    unknownSensors: totals.unknown.map((s) => ({ ...ct.sensors[s] })),
    from: ts.length > 0 ? ts[0] : null,
    to: ts.length > 0 ? ts[ts.length - 1] : null,
    direction: pricing.direction,
  };
  if (split) out.bySensorValue = bySensorValue(ct, pricing, totals, split);
  if (parts) out.parts = parts;
  return out;
}

/**
 * A price stack's cost by part: the list's, the fees' and the add-ons' net, and byRule per
 * fee rule (its energy and the fee's net) instead of one entry per stack slot.
 */
function stackCost(
  ct: CompiledTariff,
  pricing: Pricing,
  slotEnergy: (slot: number) => number,
  slotUsed: (slot: number) => boolean,
): { byRule: RuleCost[]; parts: NonNullable<CostResult['parts']> } {
  const stack = ct.stack as NonNullable<CompiledTariff['stack']>;
  const parts = { spot: 0, fees: 0, addOns: 0 };
  const byFee = new Map<number, RuleCost>();
  const feeRules = stack.feesTariff ? stack.feesTariff.rules : [];
  for (let slot = 0; slot < ct.rules.length; slot++) {
    if (!slotUsed(slot + 1)) continue;
    // a price floored at 0 (rule 47's floorAtZero) counts none of its parts
    const energy = floored(ct, pricing, slot) ? 0 : slotEnergy(slot + 1);
    parts.spot += energy * stack.spot[slot];
    parts.fees += energy * stack.fees[slot];
    parts.addOns += energy * stack.addOns;
    const r = stack.feeSlot[slot];
    if (r < 0) continue;
    const entry = byFee.get(r);
    if (entry) {
      entry.energy += energy;
      entry.net += energy * stack.fees[slot];
    } else {
      const rule = feeRules[r];
      byFee.set(r, { ruleIndex: rule.ruleIndex, priority: rule.priority, price: rule.price, energy, net: energy * stack.fees[slot] });
    }
  }
  // the fee rules that priced some interval, in the fees tariff's evaluation order
  const byRule = [...byFee.entries()].sort((x, y) => x[0] - y[0]).map(([, cost]) => cost);
  return { byRule, parts };
}

/** Per split value group: the sums of its block of slots; unknown (group 0) last. */
function bySensorValue(ct: CompiledTariff, pricing: Pricing, totals: Totals, split: SplitSensor): SensorValueCost[] {
  const stride = ct.rules.length + 1;
  const entries: SensorValueCost[] = [];
  for (let k = 1; k <= split.known.length + 1; k++) {
    const g = k % (split.known.length + 1); // 1..known, then 0
    const base = g * stride;
    let used = false;
    for (let s = 0; s < stride; s++) used = used || totals.usedBySlot[base + s] !== 0;
    if (!used) continue;
    let energy = 0;
    let net = 0;
    for (let s = 0; s < stride; s++) {
      energy += totals.energyBySlot[base + s];
      if (s > 0) net += totals.energyBySlot[base + s] * rateOf(ct, pricing, s - 1);
    }
    const unpricedEnergy = totals.energyBySlot[base];
    entries.push({ value: g === 0 ? null : split.known[g - 1], energy, unpricedEnergy, net, gross: net * (1 + pricing.vat / 100) });
  }
  return entries;
}
