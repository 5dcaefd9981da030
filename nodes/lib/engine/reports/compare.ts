// compareTariffs: the same readings costed under every valid tariff, cheapest first
// within a currency (docs/semantics.md, comparing tariffs).
import { CostOptions, computeCost } from '../cost/cost';
import { Problem, parseTariffs } from '../tariff/tariff';
import type { Reading } from '../cost/readings';

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
}

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
  readings: readonly Reading[] | readonly unknown[],
  options: Omit<CostOptions, 'splitBy'>,
): TariffComparison {
  const { tariffs: valid, problems } = parseTariffs(tariffs);
  const rows = valid.map((tariff): TariffComparisonRow => {
    const cost = computeCost(tariff, readings, { ...options, splitBy: undefined });
    return {
      tariffId: String(tariff.id),
      name: typeof tariff.name === 'string' ? tariff.name : null,
      currency: cost.currency,
      vat: cost.vat,
      net: cost.net,
      gross: cost.gross,
      energy: cost.energy,
      unpricedEnergy: cost.unpricedEnergy,
    };
  });
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
