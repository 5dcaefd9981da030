// priceAt, nextPriceChange and schedule (semantics rules 1-6 and "Price lists and
// stacks") of a price source: an account tariff or a price stack. engineContext is the one
// place that turns either into the compiled form the engine walks (a stack carries its own
// walk, price-stack.ts); everything that takes a tariff takes a stack through it.
import { compileTariff, CompiledTariff, Tariff } from '../tariff/tariff';
import { matchSlot, scheduleEntries, sensorValues, SegmentList, appendSegments, walkSegments } from '../tariff/price';
import type { PriceOptions, PriceResult, ScheduleEntry } from '../tariff/price';
import { DAY_MS, ZoneInfo, requireEpochMs, toLocalMs, zoneOption } from '../time/time';
import { compileStack, isPriceStack, PriceStack } from './price-stack';

export type { PriceOptions, PriceResult, ScheduleEntry, SensorValues } from '../tariff/price';

/** A tariff (from the API or parseTariffs) or a price stack. */
export type PriceSource = Tariff | PriceStack;

/** The compiled source and zone of a call; throws on a bad tariff, stack, zone or options. */
export function engineContext(source: unknown, options: unknown): { ct: CompiledTariff; zone: ZoneInfo } {
  const zone = zoneOption(options);
  return { ct: compileSource(source), zone };
}

/** The compiled form of a price source (a tariff or a stack), for what needs no zone (its currency, VAT); throws on a bad one. */
export function compileSource(source: unknown): CompiledTariff {
  return isPriceStack(source) ? compileStack(source) : compileTariff(source);
}

/**
 * What a source's amounts are in, as its results say it (priceAt, computeCost): its id and
 * name, the VAT its gross adds (per cent; 0 when every part already includes it, a stack's
 * `vat: 'included'`), whether VAT is included, and the currency. One place for the nodes'
 * labels, daily charges and projections, so a stack's VAT is never taken from its fees tariff.
 */
export interface PriceTerms {
  id: string;
  name: string;
  vat: number;
  vatIncluded: boolean;
  currency: string;
}

/** The terms of a tariff or a stack (compiled once, as every call of the engine compiles it); throws on a bad one. */
export function priceTerms(source: PriceSource | unknown): PriceTerms {
  const ct = compileSource(source);
  const named = (ct.tariff as { name?: unknown }).name;
  return {
    id: ct.id,
    name: typeof named === 'string' ? named : ct.id,
    vat: ct.vat,
    vatIncluded: ct.stack?.vatIncluded ?? false,
    currency: ct.currency,
  };
}

/** The slot at an instant: a stack's own, a tariff's first matching rule. */
function slotAt(ct: CompiledTariff, zone: ZoneInfo, at: number, values: Float64Array, unknown: number[] | null): number {
  return ct.slotAt !== undefined ? ct.slotAt(zone, at, values, unknown) : matchSlot(ct, toLocalMs(zone, at), values, unknown);
}

function priceResult(ct: CompiledTariff, slot: number, unknown: number[]): PriceResult | null {
  if (slot < 0) return null;
  const rule = ct.rules[slot];
  const stack = ct.stack;
  const result: PriceResult = {
    price: rule.price,
    gross: rule.price * (1 + ct.vat / 100),
    vat: ct.vat,
    currency: ct.currency,
    ruleIndex: rule.ruleIndex,
    priority: rule.priority,
    tariffId: ct.id,
    unknownSensors: unknown.map((s) => ({ ...ct.sensors[s] })),
  };
  if (stack) result.parts = { spot: stack.spot[slot], fees: stack.fees[slot], addOns: stack.addOns, vatIncluded: stack.vatIncluded };
  return result;
}

function evaluateAt(ct: CompiledTariff, zone: ZoneInfo, at: number, values: Float64Array): PriceResult | null {
  const unknown: number[] = [];
  const slot = slotAt(ct, zone, at, values, unknown);
  return priceResult(ct, slot, unknown);
}

/** The price of the first matching rule at an instant, or null when no rule matches. */
export function priceAt(source: PriceSource | unknown, at: number | Date | string, options: PriceOptions): PriceResult | null {
  const { ct, zone } = engineContext(source, options);
  return evaluateAt(ct, zone, requireEpochMs(at, 'at'), sensorValues(ct, options.sensors));
}

const DEFAULT_HORIZON_MS = 8 * DAY_MS;
// Longer windows are a mistake (seconds for milliseconds, a zero date) that would keep
// the process busy for minutes: refused with a RangeError.
const MAX_WINDOW_MS = 100 * 366 * DAY_MS;

function checkWindow(lengthMs: number, what: string): void {
  if (lengthMs > MAX_WINDOW_MS) throw new RangeError(`${what} is longer than 100 years (${Math.round(lengthMs / DAY_MS)} days)`);
}

/**
 * The first instant after `from` where the net price (or its absence) differs from the
 * price at `from`, sensors held constant; null if none within horizonMs (inclusive).
 */
export function nextPriceChange(
  source: PriceSource | unknown,
  from: number | Date | string,
  options: PriceOptions & { horizonMs?: number },
): { at: number; price: PriceResult | null } | null {
  const { ct, zone } = engineContext(source, options);
  const start = requireEpochMs(from, 'from');
  const horizon = options.horizonMs ?? DEFAULT_HORIZON_MS;
  if (typeof horizon !== 'number' || !(horizon >= 0))
    throw new TypeError(`horizonMs must be a non-negative number, got ${String(horizon)}`);
  checkWindow(horizon, 'horizonMs');
  const values = sensorValues(ct, options.sensors);
  const priceOf = (slot: number) => (slot < 0 ? null : ct.rules[slot].price);
  const current = priceOf(slotAt(ct, zone, start, values, null));
  let found: number | null = null;
  // stops at the first change: the horizon's later days are never looked at
  walkSegments(ct, zone, values, start, start + horizon + 1, null, (at, slot) => {
    if (at > start && priceOf(slot) !== current) found = at;
    return found === null;
  });
  return found === null ? null : { at: found, price: evaluateAt(ct, zone, found, values) };
}

/**
 * The pieces of [from, to) with a constant matching rule, in order, neighbours with
 * the same rule merged. Empty when to <= from.
 */
export function schedule(
  source: PriceSource | unknown,
  from: number | Date | string,
  to: number | Date | string,
  options: PriceOptions,
): ScheduleEntry[] {
  const { ct, zone } = engineContext(source, options);
  const a = requireEpochMs(from, 'from');
  const b = requireEpochMs(to, 'to');
  checkWindow(b - a, 'the schedule window');
  return compiledSchedule(ct, zone, a, b, options.sensors);
}

/** schedule() of a compiled source, for callers that schedule one tariff many times. */
export function compiledSchedule(ct: CompiledTariff, zone: ZoneInfo, a: number, b: number, sensors: unknown): ScheduleEntry[] {
  const segments = new SegmentList();
  appendSegments(ct, zone, sensorValues(ct, sensors), a, b, segments);
  return scheduleEntries(ct, segments, b);
}
