// computeNetCost (semantics rules 47-48): a site's two directions, import bought and export
// sold, costed and netted. Each direction is computeCost's (rule 10 judges each meter's
// readings on their own); netting works on what they counted: per settlement interval on
// demandWindows' split by time, per billing period on computeCost's split by a month sensor.
import { CostOptions, CostResult, computeCost } from '../cost/cost';
import { Reading, clean } from '../cost/readings';
import { demandWindows } from '../peak/demand';
import { DemandMinutes, demandMinutes } from '../peak/demand-window';
import { MAX_SPLIT_VALUES } from '../common/limits';
import { dataRecord, ownField } from '../common/id-map';
import { ZoneInfo, localPeriodIn, zoneOption } from '../time/time';
import type { Tariff } from '../tariff/tariff';
import { compileSource } from '../prices/price-source';
import type { PriceStack } from '../prices/price-stack';

/** How import and export are set against each other before pricing (rule 48). */
export type Netting = 'none' | 'interval' | 'period';
export const NETTINGS: readonly Netting[] = ['none', 'interval', 'period'];

/**
 * The import price and the export price, each a price source: a tariff or a price stack (a
 * spot list with its add-ons; rule 47), the export also a fixed rate (in the import's currency).
 */
export interface TariffPair {
  import: Tariff | PriceStack | unknown;
  export: Tariff | PriceStack | number | unknown;
}

/** The site's two registers: cumulative kWh bought (import) and sold (export); a missing one counts nothing. */
export interface SiteReadings {
  import?: readonly Reading[] | readonly unknown[];
  export?: readonly Reading[] | readonly unknown[];
}

export interface NetCostOptions extends Omit<CostOptions, 'splitBy' | 'direction'> {
  /** Default `none`: import cost − export credit. */
  netting?: Netting;
  /** `interval` netting: the settlement interval on the local clock (15, 30 or 60 minutes; default 15). */
  intervalMinutes?: DemandMinutes;
}

/** One local month of `period` netting. */
export interface NetPeriod {
  from: number;
  to: number;
  importEnergy: number;
  exportEnergy: number;
  /** The month's import gross (export credit) times the share of its energy left after netting (rule 48). */
  importCost: number;
  exportCredit: number;
  net: number;
}

export interface NetCostResult {
  netting: Netting;
  currency: string;
  /** Each direction costed alone (rules 8-13, 43): energy, rules, glitches and resets per register. */
  import: CostResult;
  export: CostResult;
  /** Energy billed and credited after netting (kWh). */
  importEnergy: number;
  exportEnergy: number;
  /** Gross amounts after netting: what the import costs, what the export earns. */
  importCost: number;
  exportCredit: number;
  /** importCost − exportCredit: the bill (negative: the site is paid). */
  net: number;
  /** `interval`: settlement intervals one direction's readings cover completely and the other's do not. */
  oneSided?: number;
  /** `interval`: how many settlement intervals were netted. */
  intervals?: number;
  /** `period`: per local month. */
  periods?: NetPeriod[];
}

/** The export side as a price source: the export tariff or stack itself, or a flat tariff of a fixed rate. */
export function exportTariffOf(importTariff: unknown, exportPrice: unknown): unknown {
  if (typeof exportPrice !== 'number') return exportPrice;
  if (!Number.isFinite(exportPrice)) throw new TypeError(`the fixed export rate must be a finite number, got ${exportPrice}`);
  const ct = compileSource(importTariff);
  return { id: 'export', name: 'fixed export rate', vat: ct.vat, currency: ct.currency, rules: [{ priority: 0, price: exportPrice }] };
}

/**
 * A site's bill from its import and export registers (rules 47-48): each direction costed
 * by computeCost (the export as a credit), then netted as `options.netting` says.
 */
export function computeNetCost(tariffs: TariffPair, readings: SiteReadings, options: NetCostOptions): NetCostResult {
  if (typeof tariffs !== 'object' || tariffs === null)
    throw new TypeError('tariffs must be { import, export }: the import tariff and the export tariff or rate');
  if (typeof readings !== 'object' || readings === null || Array.isArray(readings))
    throw new TypeError('readings must be { import, export }: the cumulative kWh of each register');
  const importTariff = ownField(tariffs, 'import');
  const exportTariff = exportTariffOf(importTariff, ownField(tariffs, 'export'));
  const imp = directionReadings(readings, 'import');
  const exp = directionReadings(readings, 'export');
  const netting = nettingOption(options.netting);
  const zone = zoneOption(options);
  const base: CostOptions = { ...options, splitBy: undefined };
  delete (base as { netting?: unknown }).netting;
  delete (base as { intervalMinutes?: unknown }).intervalMinutes;
  const exportOptions: CostOptions = { ...base, direction: 'export' };
  // the export's settings are the export's: an import at a negative spot price is paid, never floored
  const importOptions: CostOptions = { ...base, direction: 'import', exportVat: undefined, floorAtZero: undefined };
  const importCt = compileSource(importTariff);
  const exportCt = compileSource(exportTariff);
  if (importCt.currency !== exportCt.currency)
    throw new TypeError(`the export tariff's currency (${exportCt.currency}) is not the import tariff's (${importCt.currency})`);
  if (netting === 'period') return byPeriod(importTariff, exportTariff, imp, exp, zone, importOptions, exportOptions);
  const importCost = computeCost(importTariff, imp, importOptions);
  const exportCost = computeCost(exportTariff, exp, exportOptions);
  if (netting === 'none') {
    return {
      netting,
      currency: importCost.currency,
      import: importCost,
      export: exportCost,
      importEnergy: importCost.energy,
      exportEnergy: exportCost.energy,
      importCost: importCost.gross,
      exportCredit: exportCost.gross,
      net: importCost.gross - exportCost.gross,
    };
  }
  return byInterval(importTariff, exportTariff, imp, exp, importCost, exportCost, options, importOptions, exportOptions);
}

function nettingOption(x: unknown): Netting {
  if (x === undefined || x === null) return 'none';
  if ((NETTINGS as readonly unknown[]).includes(x)) return x as Netting;
  throw new TypeError(
    `netting must be one of ${NETTINGS.join(', ')}, got ${typeof x === 'string' ? JSON.stringify(x.slice(0, 40)) : typeof x}`,
  );
}

function directionReadings(readings: SiteReadings, direction: 'import' | 'export'): readonly unknown[] {
  const rows = ownField(readings, direction);
  if (rows === undefined || rows === null) return [];
  if (!Array.isArray(rows))
    throw new TypeError(`readings.${direction} must be an array of [timestamp, kWh] pairs or { ts, value } objects`);
  return rows;
}

/** The first and last clean instant of both registers together, or null when neither has one. */
function span(imp: readonly unknown[], exp: readonly unknown[]): { from: number; to: number } | null {
  let from = Infinity;
  let to = -Infinity;
  for (const rows of [imp, exp]) {
    const ts = clean(rows).ts;
    if (ts.length === 0) continue;
    from = Math.min(from, ts[0]);
    to = Math.max(to, ts[ts.length - 1]);
  }
  return from < to ? { from, to } : null;
}

/**
 * Rule 44, `interval`: each register's energy per settlement interval (demandWindows: shared
 * by time, judged by rule 10), the smaller side taken off the larger; what is left is priced
 * as a reading pair at the interval's ends (so its rule is the one at the interval's start,
 * or shared by time with `prorate`).
 */
function byInterval(
  importTariff: unknown,
  exportTariff: unknown,
  imp: readonly unknown[],
  exp: readonly unknown[],
  importCost: CostResult,
  exportCost: CostResult,
  options: NetCostOptions,
  importOptions: CostOptions,
  exportOptions: CostOptions,
): NetCostResult {
  const minutes = demandMinutes(options.intervalMinutes ?? 15);
  const range = span(imp, exp);
  const windowOptions = { timezone: options.timezone, minutes, maxPowerKw: options.maxPowerKw, ...range };
  const importWindows = range ? demandWindows(imp, windowOptions) : [];
  const exportWindows = range ? demandWindows(exp, windowOptions) : [];
  const importRows: Array<[number, number]> = [];
  const exportRows: Array<[number, number]> = [];
  let imported = 0;
  let exported = 0;
  let oneSided = 0;
  importWindows.forEach((w, k) => {
    const e = exportWindows[k];
    if (w.complete !== e.complete) oneSided++;
    if (k === 0) {
      importRows.push([w.from, 0]);
      exportRows.push([w.from, 0]);
    }
    const left = netInterval(w.energy, e.energy);
    imported += left.imported;
    exported += left.exported;
    importRows.push([w.to, imported]);
    exportRows.push([w.to, exported]);
  });
  // The netted energy is already judged: nothing in it is a jump.
  const billed = computeCost(importTariff, importRows, { ...importOptions, maxPowerKw: Infinity });
  const credited = computeCost(exportTariff, exportRows, { ...exportOptions, maxPowerKw: Infinity });
  return {
    netting: 'interval',
    currency: importCost.currency,
    import: importCost,
    export: exportCost,
    importEnergy: billed.energy,
    exportEnergy: credited.energy,
    importCost: billed.gross,
    exportCredit: credited.gross,
    net: billed.gross - credited.gross,
    oneSided,
    intervals: importWindows.length,
  };
}

/** What one settlement interval leaves after netting (rule 48, `interval`): the smaller side taken off the larger. */
export function netInterval(importKwh: number, exportKwh: number): { imported: number; exported: number } {
  const left = importKwh - exportKwh;
  return left > 0 ? { imported: left, exported: 0 } : { imported: 0, exported: -left };
}

/** A direction's energy and amounts over a billing period. */
export interface PeriodSide {
  energy: number;
  net: number;
  gross: number;
}

/** What a billing period bills after netting (rule 48, `period`). */
export interface PeriodLeft {
  importEnergy: number;
  importNet: number;
  importCost: number;
  exportEnergy: number;
  exportNet: number;
  exportCredit: number;
}

const NOTHING: PeriodSide = { energy: 0, net: 0, gross: 0 };

/**
 * Rule 48, `period`: the month's kWh netted, the larger side's energy less the smaller's
 * left, priced at that side's average of the month (its amounts × left / its energy); the
 * smaller side costs or earns nothing.
 */
export function netPeriod(imp: PeriodSide, exp: PeriodSide): PeriodLeft {
  const left = imp.energy - exp.energy;
  const share = (side: PeriodSide, kwh: number) => (kwh > 0 && side.energy > 0 ? kwh / side.energy : 0);
  const i = share(imp, left);
  const e = share(exp, -left);
  return {
    importEnergy: Math.max(0, left),
    importNet: imp.net * i,
    importCost: imp.gross * i,
    exportEnergy: Math.max(0, -left),
    exportNet: exp.net * e,
    exportCredit: exp.gross * e,
  };
}

/** The split sensor that numbers the local months (a gateway id no API sensor has). */
const MONTH_SENSOR = { gatewayId: '\u0000netting', sensorId: 'month' };

/**
 * Rule 44, `period`: per local month the imported and exported kWh (each interval in the
 * month it starts in, as prices are attributed); the smaller taken off the larger, and what
 * is left priced at that direction's average for the month: its gross × left / its energy.
 */
function byPeriod(
  importTariff: unknown,
  exportTariff: unknown,
  imp: readonly unknown[],
  exp: readonly unknown[],
  zone: ZoneInfo,
  importOptions: CostOptions,
  exportOptions: CostOptions,
): NetCostResult {
  const range = span(imp, exp);
  const months: Array<{ from: number; to: number }> = [];
  for (let at = range ? range.from : Infinity; range && at <= range.to;) {
    const month = localPeriodIn(zone, 'month', at);
    if (months.length >= MAX_SPLIT_VALUES)
      throw new RangeError(`period netting covers at most ${MAX_SPLIT_VALUES} months; cost the readings in parts`);
    months.push(month);
    at = month.to;
  }
  const sensors = dataRecord<unknown>();
  const given = importOptions.sensors;
  if (given) for (const gatewayId of Object.keys(given)) sensors[gatewayId] = ownField(given, gatewayId);
  sensors[MONTH_SENSOR.gatewayId] = { [MONTH_SENSOR.sensorId]: months.map((m, k): [number, number] => [m.from, k]) };
  const split = { sensors: sensors as CostOptions['sensors'], splitBy: MONTH_SENSOR };
  const importCost = computeCost(importTariff, imp, { ...importOptions, ...split });
  const exportCost = computeCost(exportTariff, exp, { ...exportOptions, ...split });
  const monthOf = (cost: CostResult, k: number) => cost.bySensorValue?.find((entry) => entry.value === k);
  const periods = months.map(({ from, to }, k): NetPeriod => {
    const i = monthOf(importCost, k);
    const e = monthOf(exportCost, k);
    const importEnergy = i ? i.energy : 0;
    const exportEnergy = e ? e.energy : 0;
    const left = netPeriod(i ?? NOTHING, e ?? NOTHING);
    return {
      from,
      to,
      importEnergy,
      exportEnergy,
      importCost: left.importCost,
      exportCredit: left.exportCredit,
      net: left.importCost - left.exportCredit,
    };
  });
  delete importCost.bySensorValue;
  delete exportCost.bySensorValue;
  let importEnergy = 0;
  let exportEnergy = 0;
  let billed = 0;
  let credited = 0;
  for (const p of periods) {
    importEnergy += Math.max(0, p.importEnergy - p.exportEnergy);
    exportEnergy += Math.max(0, p.exportEnergy - p.importEnergy);
    billed += p.importCost;
    credited += p.exportCredit;
  }
  return {
    netting: 'period',
    currency: importCost.currency,
    import: importCost,
    export: exportCost,
    importEnergy,
    exportEnergy,
    importCost: billed,
    exportCredit: credited,
    net: billed - credited,
    periods,
  };
}

/** Rule 64: an inverter's production and the site's self-consumption over a range of readings. */
export interface SelfConsumption {
  /** kWh the production register counted. */
  production: number;
  /** Σ over settlement intervals of max(0, production − export). */
  selfConsumption: number;
  /** selfConsumption ÷ (selfConsumption + imported kWh), null when both are 0. */
  selfSufficiency: number | null;
}

/**
 * Rule 64 for readings at hand (batch mode): production and export shared by time among the
 * settlement intervals of `minutes` on the zone's clock (demandWindows, rule 40: judged as
 * computeCost judges them), self-consumption the production less the export in each,
 * never below 0; the self-sufficiency share against `importKwh`. Production is never priced.
 */
export function selfConsumption(
  production: readonly unknown[],
  exported: readonly unknown[],
  importKwh: number,
  options: { timezone: string; minutes?: DemandMinutes; maxPowerKw?: number },
): SelfConsumption {
  const range = span(production, exported);
  const windowOptions = {
    timezone: options.timezone,
    minutes: demandMinutes(options.minutes ?? 15),
    maxPowerKw: options.maxPowerKw,
    ...range,
  };
  const made = range ? demandWindows(production, windowOptions) : [];
  const sold = range ? demandWindows(exported, windowOptions) : [];
  let produced = 0;
  let self = 0;
  made.forEach((w, k) => {
    produced += w.energy;
    self += Math.max(0, w.energy - Math.max(0, sold[k].energy));
  });
  return { production: produced, selfConsumption: self, selfSufficiency: self + importKwh > 0 ? self / (self + importKwh) : null };
}
