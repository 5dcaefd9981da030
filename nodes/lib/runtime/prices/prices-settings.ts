// What an easy-prices node is set to (docs/nodes.md, "easy prices"): how its lists' numbers
// are read, what is stacked on them (the pricing node's tariff as fees, add-ons, VAT) and
// what a node prices with where the list has no price. Checked at deploy: a wrong setting
// is an error in words, never a silent default.

import type { PriceInputOptions } from '../../engine/prices/price-inputs';

/** Where the list has no price (it ran out, a gap): no price (stop, said), or the node's tariff alone. */
export type WhenOut = 'stop' | 'tariff';

export interface PricesSettings {
  input: PriceInputOptions;
  /** Whether the pricing node's tariff is added to each list price as fees (grid fees by time of day). */
  fees: boolean;
  /** Fixed amounts per kWh added to every price (levies, the supplier's margin). */
  addOns: number;
  /** VAT on the sum: the tariff's VAT, a percentage, or included in every part already. */
  vat: 'tariff' | 'included' | number;
  whenOut: WhenOut;
}

const isOneOf = <T extends string>(x: unknown, values: readonly T[]): x is T =>
  typeof x === 'string' && (values as readonly string[]).includes(x);

/** A number typed in the dialog (a number or its text); NaN when it is none. */
function typedNumber(x: unknown): number {
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && x.trim() !== '' && /^[-+]?(\d+\.?\d*|\.\d+)$/.test(x.trim())) return Number(x.trim());
  return NaN;
}

/** The settings of a deployed easy-prices node; throws an Error in words for a wrong one. */
export function pricesSettings(config: Record<string, unknown>): PricesSettings {
  const unit = config.unit === undefined || config.unit === '' ? 'kWh' : config.unit;
  if (!isOneOf(unit, ['kWh', 'MWh'] as const)) throw new Error(`unit must be kWh or MWh, got ${JSON.stringify(unit)}`);
  const tibberPrice = config.tibberPrice === undefined || config.tibberPrice === '' ? 'total' : config.tibberPrice;
  if (!isOneOf(tibberPrice, ['total', 'energy'] as const))
    throw new Error(`Tibber's price must be total or energy, got ${JSON.stringify(tibberPrice)}`);
  const fees = config.fees === undefined || config.fees === '' ? 'tariff' : config.fees;
  if (!isOneOf(fees, ['tariff', 'none'] as const)) throw new Error(`fees must be tariff or none, got ${JSON.stringify(fees)}`);
  const addOns = config.addOns === undefined || config.addOns === '' ? 0 : typedNumber(config.addOns);
  if (!Number.isFinite(addOns) || Math.abs(addOns) > 1e6)
    throw new Error(`add-ons must be a number per kWh, got ${JSON.stringify(config.addOns)}`);
  const vatMode = config.vat === undefined || config.vat === '' ? 'tariff' : config.vat;
  if (!isOneOf(vatMode, ['tariff', 'included', 'percent'] as const))
    throw new Error(`VAT must be tariff, included or percent, got ${JSON.stringify(config.vat)}`);
  let vat: PricesSettings['vat'] = vatMode === 'percent' ? typedNumber(config.vatPercent) : vatMode;
  if (typeof vat === 'number' && !(vat >= 0 && vat <= 100))
    throw new Error(`VAT must be a percentage from 0 to 100, got ${JSON.stringify(config.vatPercent)}`);
  if (typeof vat === 'number' && Number.isNaN(vat)) vat = 0;
  const whenOut = config.whenOut === undefined || config.whenOut === '' ? 'stop' : config.whenOut;
  if (!isOneOf(whenOut, ['stop', 'tariff'] as const))
    throw new Error(`when the list runs out must be stop or tariff, got ${JSON.stringify(whenOut)}`);
  if (whenOut === 'tariff' && fees === 'none') {
    // the fallback is the tariff the stack carries as fees; with no fees there is none to fall back to
    throw new Error(
      'beyond the list "the node\'s tariff alone" needs Fees "the node\'s tariff" (with no fees there is no tariff to fall back to)',
    );
  }
  return { input: { unit, tibberPrice }, fees: fees === 'tariff', addOns, vat, whenOut };
}
