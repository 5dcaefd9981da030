// Tariff and rule types as the API gives them (semantics rule 7 keeps unknown fields), the
// problems a check reports, and the compiled form the price and cost engine evaluates
// (tariff.ts checks and compiles; price.ts and engine/prices walk the compiled form).
import type { ZoneInfo } from '../time/time';

export interface Rule {
  priority: number;
  price: number;
  time_start?: string;
  time_end?: string;
  weekdays?: number[];
  weekday?: number[];
  gateway_id?: string;
  sensor_id?: string;
  sensor_value?: number | string;
  sensor_condition?: string;
  [extra: string]: unknown;
}

export interface Tariff {
  id: string;
  name: string;
  vat: number;
  currency: string;
  rules: Rule[];
  [extra: string]: unknown;
}

export interface Problem {
  severity: 'error' | 'warning';
  tariffId: string | null;
  ruleIndex: number | null;
  field: string | null;
  message: string;
}

export interface SensorRef {
  gatewayId: string;
  sensorId: string;
}

/** A rule ready for evaluation; times are local milliseconds of the day. */
export interface CompiledRule {
  ruleIndex: number; // index in the tariff's own rules array
  priority: number;
  price: number;
  timeKind: TimeKind;
  startMs: number;
  endMs: number;
  weekdayMask: number; // bit (1 << isoWeekday); 0 = every day
  sensorSlot: number; // index into CompiledTariff.sensors, -1 = no sensor condition
  sensorValue: number;
  sensorNever: boolean; // sensor_condition other than eq (semantics rule 4)
}

// Plain constants rather than a const enum: tests are transpiled file by file.
export const TIME_ALWAYS = 0;
export const TIME_WITHIN = 1; // start <= t < end
export const TIME_WRAPS = 2; // t >= start or t < end
export type TimeKind = typeof TIME_ALWAYS | typeof TIME_WITHIN | typeof TIME_WRAPS;

export interface CompiledTariff {
  tariff: Tariff;
  id: string;
  vat: number;
  currency: string;
  rules: CompiledRule[]; // ascending priority, equal priorities in array order
  sensors: SensorRef[];
  /**
   * Local times of day (ms, ascending, in [0, DAY)) where the matching rule can change:
   * where some range starts or ends, and midnight when some rule depends on the weekday.
   */
  boundariesMs: number[];
  /**
   * A price stack's own segments and slot at an instant (engine/prices/price-stack.ts):
   * absent for a tariff, whose rules are walked by day profiles (price.ts). With them,
   * `rules` holds one entry per price the stack has yielded so far (only its price,
   * ruleIndex and priority mean something) and `stack` the parts of each.
   */
  walk?: SegmentWalk;
  slotAt?: (zone: ZoneInfo, at: number, values: Float64Array, unknown: number[] | null) => number;
  /**
   * A stack's walk over its whole list, kept per zone (`walk`'s visits from the list's first
   * start to its last end, in order): null where that cannot be kept (fees with sensor rules,
   * a fallback beyond the list). Plans read a window's part of it, not a walk per call.
   */
  listVisits?: (zone: ZoneInfo) => ListVisits | null;
  stack?: StackSlots;
}

/** The visits of a stack's walk over [from, to), its list's span: instants ascending, starts[0] = from. */
export interface ListVisits {
  starts: Float64Array;
  slots: Int32Array;
  /** Each visit's slot's net price (NaN: no price). */
  prices: Float64Array;
  length: number;
  from: number;
  to: number;
}

/** Calls visit(at, slot) at `a` and at each later instant before `b` where the slot may change, until visit returns false. */
export type SegmentWalk = (
  zone: ZoneInfo,
  values: Float64Array,
  a: number,
  b: number,
  unknown: number[] | null,
  visit: (at: number, slot: number) => boolean,
) => void;

/** A stack's parts per slot (net, per kWh): the list's price, the fee rule's (0 without fees), and which fee rule (-1: none). */
export interface StackSlots {
  spot: number[];
  fees: number[];
  feeSlot: number[];
  addOns: number;
  vatIncluded: boolean;
  /** The fees' tariff compiled (null: no fees): byRule and unknown sensors name its rules and sensors. */
  feesTariff: CompiledTariff | null;
  /** The largest |spot| + |fee| + |addOns| any slot can have: bounds the energy a cost may count. */
  highestRate: number;
}
