// compareTariffs: the same readings costed under every valid tariff and price stack,
// cheapest first within a currency (docs/semantics.md, comparing tariffs).
import { CostOptions, computeCost } from '../cost/cost';
import { Problem, parseTariffs, Tariff } from '../tariff/tariff';
import { isPriceStack, PriceStack, stackId } from '../prices/price-stack';
import type { Reading } from '../cost/readings';
import { NetCostOptions, SiteReadings, TariffPair, computeNetCost, exportTariffOf } from '../net/net-cost';

export interface TariffComparisonRow {
  tariffId: string;
  name: string | null;
  currency: string;
  vat: number;
  net: number;
  gross: number;
  energy: number;
  /** Energy no rule of this tariff priced: its row is cheaper than it would be (SPEC rule 12). */
  unpricedEnergy: number;
  /** Offers (import/export pairs, rule 49): the export side and the amounts before netting into `gross`. */
  exportTariffId?: string;
  exportEnergy?: number;
  importCost?: number;
  exportCredit?: number;
}

/** An offer compared with its export side (rule 49): the import tariff, the export tariff or a fixed rate. */
export type TariffOffer = TariffPair & { name?: string };

/** The rows, and the tariffs left out or warned about, as parseTariffs reports them. */
export type TariffComparison = TariffComparisonRow[] & { problems: Problem[] };

/**
 * One row per valid tariff: computeCost of that tariff on the same readings and options.
 * Rows are grouped by currency in order of first appearance and sorted by gross within
 * one (ties keep the tariffs' order); amounts in different currencies are never ranked
 * against each other.
 */
export function compareTariffs(
  tariffs: unknown,
  readings: readonly Reading[] | readonly unknown[] | SiteReadings,
  options: Omit<CostOptions, 'splitBy'> | NetCostOptions,
): TariffComparison {
  if (typeof readings === 'object' && readings !== null && !Array.isArray(readings))
    return compareOffers(tariffs, readings as SiteReadings, options);
  // price stacks are costed as they come; the rest is an API answer, parsed as one
  const all: unknown[] = Array.isArray(tariffs) ? tariffs : [tariffs];
  const stacks = all.filter(isPriceStack);
  const parsed = stacks.length === 0 ? parseTariffs(tariffs) : parseTariffs(all.filter((t) => !isPriceStack(t)));
  const problems = parsed.problems;
  const sources: Array<Tariff | PriceStack> = [...parsed.tariffs, ...stacks];
  const rows = sources.map((source): TariffComparisonRow => {
    const cost = computeCost(source, readings, { ...options, splitBy: undefined });
    const name = isPriceStack(source) ? (source.name ?? null) : source.name;
    return {
      tariffId: isPriceStack(source) ? stackId(source) : String(source.id),
      name: typeof name === 'string' ? name : null,
      currency: cost.currency,
      vat: cost.vat,
      net: cost.net,
      gross: cost.gross,
      energy: cost.energy,
      unpricedEnergy: cost.unpricedEnergy,
    };
  });
  return ranked(rows, problems);
}

/**
 * Rule 45: offers (import tariff with an export tariff or rate) on a site's two registers,
 * each row computeNetCost's: `gross` is the bill after netting (import cost − export credit).
 * An offer whose tariffs do not parse, or differ in currency, is left out and listed in `problems`.
 */
function compareOffers(offers: unknown, readings: SiteReadings, options: NetCostOptions): TariffComparison {
  if (!Array.isArray(offers)) throw new TypeError('offers must be an array of { import, export } tariff pairs');
  const problems: Problem[] = [];
  const rows: TariffComparisonRow[] = [];
  for (const offer of offers as unknown[]) {
    const pair = (typeof offer === 'object' && offer !== null ? offer : {}) as TariffOffer;
    // each side a tariff (parsed as the API's) or a price stack (costed as it comes), the export also a fixed rate
    const side = (x: unknown, rate: boolean) =>
      (rate && typeof x === 'number') || isPriceStack(x) ? { tariffs: [x as Tariff | PriceStack], problems: [] } : parseTariffs([x]);
    const parsed = side(pair.import, false);
    const exportSide = side(pair.export, true);
    const broken = [...parsed.problems, ...exportSide.problems].filter((p) => p.severity === 'error');
    if (parsed.tariffs.length === 0 || exportSide.tariffs.length === 0 || broken.length > 0) {
      problems.push(...(broken.length > 0 ? broken : [offerProblem('an offer needs { import: tariff, export: tariff or rate }')]));
      continue;
    }
    const importTariff = parsed.tariffs[0];
    let cost;
    try {
      cost = computeNetCost({ import: importTariff, export: exportSide.tariffs[0] }, readings, options);
    } catch (err) {
      if (!(err instanceof TypeError) || !/currency/.test(err.message)) throw err;
      problems.push(offerProblem(err.message, sourceId(importTariff)));
      continue;
    }
    const exportTariff = exportTariffOf(importTariff, exportSide.tariffs[0]);
    rows.push({
      tariffId: sourceId(importTariff),
      name: typeof pair.name === 'string' ? pair.name : typeof importTariff.name === 'string' ? importTariff.name : null,
      currency: cost.currency,
      vat: cost.import.vat,
      net: cost.import.net - cost.export.net,
      gross: cost.net,
      energy: cost.import.energy,
      unpricedEnergy: cost.import.unpricedEnergy + cost.export.unpricedEnergy,
      exportTariffId: sourceId(exportTariff),
      exportEnergy: cost.export.energy,
      importCost: cost.importCost,
      exportCredit: cost.exportCredit,
    });
  }
  return ranked(rows, problems);
}

/** What a row calls a source: a tariff's id, a stack's (stackId). */
const sourceId = (x: unknown): string => (isPriceStack(x) ? stackId(x) : String((x as { id?: unknown }).id));

function offerProblem(message: string, tariffId: string | null = null): Problem {
  return { severity: 'error', tariffId, ruleIndex: null, field: null, message };
}

/** Grouped by currency in order of first appearance, cheapest gross first within one (ties keep the order). */
function ranked(rows: TariffComparisonRow[], problems: Problem[]): TariffComparison {
  const currencyOrder = new Map<string, number>();
  for (const row of rows) if (!currencyOrder.has(row.currency)) currencyOrder.set(row.currency, currencyOrder.size);
  const sorted = rows
    .map((row, index) => ({ row, index }))
    .sort(
      (x, y) =>
        (currencyOrder.get(x.row.currency) as number) - (currencyOrder.get(y.row.currency) as number) ||
        x.row.gross - y.row.gross ||
        x.index - y.index,
    )
    .map(({ row }) => row);
  return Object.assign(sorted, { problems });
}
