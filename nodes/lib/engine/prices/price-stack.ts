// A price stack (semantics "Price lists and stacks"): a price list, plus an account
// tariff's rules as fees on top, plus fixed add-ons per kWh, then VAT. It compiles into
// the same form as a tariff (CompiledTariff with its own walk), so the schedule, the plans
// and the cost walk read its segments as they read a tariff's: no branch of their own.
//
// A slot is one (list entry, fee rule) pair, numbered as the walks meet them, so a stack
// holds one slot per price it has really yielded, and a slot's price never changes. Its segments are the fee tariff's (rules' local times, DST)
// cut at every list entry's start and end: both layers' changes at their exact instants.
import {
  CompiledRule,
  CompiledTariff,
  compileTariff,
  isObject,
  ListVisits,
  SegmentWalk,
  StackSlots,
  Tariff,
  TIME_ALWAYS,
} from '../tariff/tariff';
import { matchSlot, SegmentList, walkSegments } from '../tariff/price';
import { describe, toLocalMs, ZoneInfo } from '../time/time';
import { groupDigits } from '../common/format';
import { PriceList, PriceListEntry, priceList } from './price-list';

export interface PriceStack {
  /** The list (priceList's, or its entries: then checked at every call). */
  list: PriceList | readonly PriceListEntry[];
  /** An account tariff whose matching rule's price is added as a fee (no rule matching: no price). */
  fees?: Tariff;
  /** Fixed amounts per kWh added to every price (levies, the supplier's margin); default 0. */
  addOns?: number;
  /** VAT in per cent on the sum (list + fees + add-ons), or 'included' (every part already includes it); default 0. */
  vat?: number | 'included';
  /** The currency (default: the fees tariff's, else ''). */
  currency?: string;
  /**
   * Where the list has no price (before it, in a gap, after it): no price ('none', the
   * default), or the fees tariff's price alone ('fees': the account's tariff as the whole
   * price, no add-ons; VAT as the stack's), so a list that runs out falls back to the tariff.
   */
  beyond?: 'none' | 'fees';
  /** What results call the stack (tariffId; default: 'price list', with fees 'price list + <fees id>'). */
  id?: string;
  name?: string;
}

/** The id results give a stack. */
export function stackId(stack: PriceStack): string {
  if (typeof stack.id === 'string') return stack.id;
  const fees = stack.fees as { id?: unknown } | undefined;
  return fees && typeof fees.id === 'string' ? `price list + ${fees.id}` : 'price list';
}

/** Price slots one stack may yield: far above a list's entries times the fee rules that really meet. */
export const MAX_STACK_SLOTS = 200_000;

/** Whether x is a stack (an object with a `list` and no `rules`), not a tariff. */
export function isPriceStack(x: unknown): x is PriceStack {
  return isObject(x) && x.list !== undefined && x.rules === undefined;
}

interface Cached {
  fees: unknown;
  feesTariff: CompiledTariff | null;
  addOns: unknown;
  vat: unknown;
  currency: unknown;
  id: unknown;
  beyond: unknown;
  compiled: CompiledTariff;
}

// A stack is compiled once per PriceList and set of other fields, and found again by them,
// whether the stack object is the same or a new literal each call: a PriceList never
// changes, the fees are checked as a tariff is (compileTariff's cache). A list given as
// entries may be edited in place, so it is checked and compiled again at every call.
const byList = new WeakMap<PriceList, Cached[]>();
/** Stacks kept per list (several fee tariffs on one list: a comparison). */
const STACKS_PER_LIST = 8;
/** Zones whose walk over the whole list a compiled stack keeps (listVisits). */
const ZONES_KEPT = 4;

/** The compiled form of a stack; a TypeError or RangeError naming the wrong part. */
export function compileStack(stack: PriceStack): CompiledTariff {
  const feesTariff = stack.fees === undefined || stack.fees === null ? null : compileTariff(stack.fees);
  const list = stack.list;
  const kept = list instanceof PriceList ? byList.get(list) : undefined;
  // a loop, not find with a closure: every priceAt on a stack comes here
  for (let k = 0; kept !== undefined && k < kept.length; k++) {
    const c = kept[k];
    if (
      c.fees === stack.fees &&
      c.feesTariff === feesTariff &&
      Object.is(c.addOns, stack.addOns) &&
      c.vat === stack.vat &&
      c.currency === stack.currency &&
      c.beyond === stack.beyond &&
      c.id === stack.id
    )
      return c.compiled;
  }
  const compiled = build(stack, priceList(list), feesTariff);
  if (list instanceof PriceList) {
    const { fees, addOns, vat, currency, id, beyond } = stack;
    const entry = { fees, feesTariff, addOns, vat, currency, id, beyond, compiled };
    if (kept === undefined) byList.set(list, [entry]);
    else if (kept.unshift(entry) > STACKS_PER_LIST) kept.pop();
  }
  return compiled;
}

/**
 * A stack's slot as the planners and the cost walk read it: its net price, and the fee
 * rule's index and priority. The fields a tariff's rule has besides are the same for every
 * slot (no time, weekday or sensor condition of its own), so they sit on the prototype:
 * a 62-day history of quarter hours keeps thousands of these.
 */
class StackRule implements CompiledRule {
  declare readonly timeKind: typeof TIME_ALWAYS;
  declare readonly startMs: number;
  declare readonly endMs: number;
  declare readonly weekdayMask: number;
  declare readonly sensorSlot: number;
  declare readonly sensorValue: number;
  declare readonly sensorNever: boolean;
  constructor(
    readonly price: number,
    readonly ruleIndex: number,
    readonly priority: number,
  ) {}
}
Object.assign(StackRule.prototype, {
  timeKind: TIME_ALWAYS,
  startMs: 0,
  endMs: 0,
  weekdayMask: 0,
  sensorSlot: -1,
  sensorValue: NaN,
  sensorNever: false,
});

function build(stack: PriceStack, list: PriceList, feesTariff: CompiledTariff | null): CompiledTariff {
  const addOns = stack.addOns ?? 0;
  if (typeof addOns !== 'number' || !Number.isFinite(addOns))
    throw new TypeError(`the stack's addOns must be a number per kWh, got ${describe(addOns)}`);
  const vat = stack.vat ?? 0;
  if (vat !== 'included' && (typeof vat !== 'number' || !Number.isFinite(vat))) {
    throw new TypeError(`the stack's vat must be a percentage or 'included', got ${describe(vat)}`);
  }
  const currency = stack.currency ?? feesTariff?.currency ?? '';
  if (stack.id !== undefined && typeof stack.id !== 'string')
    throw new TypeError(`the stack's id must be a string, got ${describe(stack.id)}`);
  if (typeof currency !== 'string') throw new TypeError(`the stack's currency must be a string, got ${describe(currency)}`);
  let highestSpot = 0;
  for (let k = 0; k < list.length; k++) highestSpot = Math.max(highestSpot, Math.abs(list.prices[k]));
  let highestFee = 0;
  for (const rule of feesTariff?.rules ?? []) highestFee = Math.max(highestFee, Math.abs(rule.price));
  const slots: StackSlots = {
    spot: [],
    fees: [],
    feeSlot: [],
    addOns,
    vatIncluded: vat === 'included',
    feesTariff,
    highestRate: highestSpot + highestFee + Math.abs(addOns),
  };
  const rules: CompiledRule[] = [];
  const feeRules = feesTariff ? feesTariff.rules : [];
  // Each entry's first slot and its fee rule + 2 (0: none yet) in two typed arrays: most
  // entries meet one fee rule. The pairs met besides (a fee change inside an entry, a sensor
  // rule) are found in a map keyed by entry × (fee rules + 1) + fee rule + 1.
  const entrySlot = new Int32Array(list.length);
  const entryFee = new Int32Array(list.length);
  const stride = feeRules.length + 1;
  const otherSlots = new Map<number, number>();
  if (stack.beyond !== undefined && stack.beyond !== 'none' && stack.beyond !== 'fees')
    throw new TypeError(`the stack's beyond must be 'none' or 'fees', got ${describe(stack.beyond)}`);
  /** Where the list has no price, the fee rule's price alone (list entry -1); null: no price there. */
  const beyond = stack.beyond === 'fees' ? feesTariff : null;
  /** The slot of list entry k (-1: none, the fees alone) under fee rule r (-1: no fees), made at first use. */
  const slotOf = (k: number, r: number): number => {
    const fee = k < 0 ? -1 : entryFee[k];
    if (fee === r + 2) return entrySlot[k];
    if (fee === 0) {
      entryFee[k] = r + 2;
      return (entrySlot[k] = newSlot(k, r));
    }
    const key = k * stride + r + 1;
    let slot = otherSlots.get(key);
    if (slot === undefined) otherSlots.set(key, (slot = newSlot(k, r)));
    return slot;
  };
  const newSlot = (k: number, r: number): number => {
    const slot = rules.length;
    if (slot >= MAX_STACK_SLOTS) {
      throw new RangeError(
        `the stack yields more than ${groupDigits(MAX_STACK_SLOTS)} different prices: a shorter list or fewer fee rules`,
      );
    }
    // k < 0: no list entry, the fee alone (beyond: 'fees')
    const spot = k < 0 ? 0 : list.prices[k];
    const rule = r < 0 ? null : feeRules[r];
    const fee = rule ? rule.price : 0;
    rules.push(new StackRule(k < 0 ? fee : spot + fee + addOns, rule ? rule.ruleIndex : -1, rule ? rule.priority : 0));
    slots.spot.push(spot);
    slots.fees.push(fee);
    slots.feeSlot.push(r);
    return slot;
  };
  /** With a fallback: the fees over all of [a, b), each piece priced by the list's entry there or, where none, by the fees alone. */
  const walkBeyond: SegmentWalk = (zone, values, a, b, unknown, visit) => {
    const segments = new SegmentList();
    walkSegments(beyond!, zone, values, a, b, unknown, (at, r) => {
      segments.push(at, r);
      return true;
    });
    const { starts, ends } = list;
    const n = segments.length;
    let k = list.firstEndingAfter(a);
    for (let s = 0; s < n; s++) {
      const r = segments.slots[s];
      const end = s + 1 < n ? segments.starts[s + 1] : b;
      for (let t = segments.starts[s]; t < end;) {
        while (k < list.length && ends[k] <= t) k++;
        const inEntry = k < list.length && starts[k] <= t;
        if (!visit(t, r < 0 ? -1 : slotOf(inEntry ? k : -1, r))) return;
        t = Math.min(end, inEntry ? ends[k] : k < list.length ? starts[k] : end);
      }
    }
  };
  const walk: SegmentWalk = (zone, values, a, b, unknown, visit) => {
    if (beyond !== null) return walkBeyond(zone, values, a, b, unknown, visit);
    // outside the list nothing is priced: the fees are walked over the list's part only
    const from = Math.max(a, list.from);
    const to = Math.min(b, list.to);
    if (!(from < to)) {
      if (a < b) visit(a, -1);
      return;
    }
    if (a < from && !visit(a, -1)) return;
    const segments = new SegmentList();
    if (feesTariff === null) segments.push(from, -1);
    else
      walkSegments(feesTariff, zone, values, from, to, unknown, (at, r) => {
        segments.push(at, r);
        return true;
      });
    const { starts, ends } = list;
    let k = list.firstEndingAfter(from);
    const n = segments.length;
    for (let s = 0; s < n; s++) {
      const r = segments.slots[s];
      const end = s + 1 < n ? segments.starts[s + 1] : to;
      for (let t = segments.starts[s]; t < end;) {
        while (ends[k] <= t) k++; // k < length: t < to <= the last end
        if (starts[k] > t) {
          if (!visit(t, -1)) return; // a gap
          t = Math.min(end, starts[k]);
          continue;
        }
        if (!visit(t, feesTariff !== null && r < 0 ? -1 : slotOf(k, r))) return;
        t = Math.min(end, ends[k]);
      }
    }
    if (to < b) visit(to, -1);
  };
  // The walk over the whole list, kept per zone (a few zones at most, the oldest let go): a
  // plan reads its window's part (plan-segments.ts) instead of walking the fees and cutting
  // them at the entries on every call. Only where a walk depends on nothing but the zone
  // (fees without sensor rules, no fallback beyond the list), and where the slots it meets
  // stay within MAX_STACK_SLOTS whatever the fees (each entry meets each fee rule at most
  // once): a short plan never fails where its own window's walk would not.
  const visitsByZone = new Map<string, ListVisits>();
  const keepsVisits =
    beyond === null &&
    (feesTariff === null || feesTariff.sensors.length === 0) &&
    list.length > 0 &&
    list.length * Math.max(1, feeRules.length) <= MAX_STACK_SLOTS;
  const listVisits = (zone: ZoneInfo): ListVisits | null => {
    if (!keepsVisits) return null;
    const kept = visitsByZone.get(zone.name);
    if (kept !== undefined) return kept;
    const starts: number[] = [];
    const slotsMet: number[] = [];
    walk(zone, new Float64Array(0), list.from, list.to, null, (at, slot) => {
      starts.push(at);
      slotsMet.push(slot);
      return true;
    });
    const visits: ListVisits = {
      starts: Float64Array.from(starts),
      slots: Int32Array.from(slotsMet),
      prices: Float64Array.from(slotsMet, (slot) => (slot < 0 ? NaN : rules[slot].price)),
      length: starts.length,
      from: list.from,
      to: list.to,
    };
    if (visitsByZone.size >= ZONES_KEPT) visitsByZone.delete(visitsByZone.keys().next().value as string);
    visitsByZone.set(zone.name, visits);
    return visits;
  };
  const compiled: CompiledTariff = {
    tariff: stack as unknown as Tariff,
    id: stackId(stack),
    vat: vat === 'included' ? 0 : vat,
    currency,
    rules,
    sensors: feesTariff ? feesTariff.sensors : [],
    boundariesMs: [],
    stack: slots,
    slotAt(zone: ZoneInfo, at: number, values: Float64Array, unknown: number[] | null): number {
      const k = list.indexAt(at);
      if (k < 0) {
        if (beyond === null) return -1;
        const r = matchSlot(beyond, toLocalMs(zone, at), values, unknown);
        return r < 0 ? -1 : slotOf(-1, r);
      }
      if (feesTariff === null) return slotOf(k, -1);
      const r = matchSlot(feesTariff, toLocalMs(zone, at), values, unknown);
      return r < 0 ? -1 : slotOf(k, r);
    },
    walk,
    listVisits,
  };
  return compiled;
}
