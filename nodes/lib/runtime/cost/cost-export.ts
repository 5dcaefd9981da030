// easy-cost's export side (semantics rules 47-49, 61): the node's export settings (which
// meters export, the export price: a tariff, a fixed rate or an easy-prices node's spot list
// with add-ons; VAT on export, the floor, the netting), the export meters' price, and batch
// mode's two registers netted.
import { computeNetCost, exportTariffOf, Netting, NETTINGS, selfConsumption } from '../../engine/net/net-cost';
import type { LedgerSettings, NetPricer } from '../../engine/net/net-ledger';
import { computeCost, CostOptions, RejectedInterval, SensorTimelines } from '../../engine/cost/cost';
import type { IntervalCost, Reading } from '../../engine/cost/totals';
import { parseTariffs, Tariff } from '../../engine/tariff/tariff';
import { roundAmount } from '../../engine/common/format';
import { ExportMeters } from '../common/meter-direction';
import { findTariff, TariffsSeen } from '../common/tariff-lookup';
import { costPayload } from './cost-inputs';
import type { NodeStatus } from '../common/red-types';
import { formatMoney } from '../../engine/common/format';
import type { PriceStack } from '../../engine/prices/price-stack';
import { StackSource } from '../prices/prices-source';
import { priceTerms } from '../../engine/prices/price-source';
import type { PricesLink } from '../prices/prices-link';

export interface ExportSettings {
  meters: ExportMeters;
  /** Rule 63: the inverter's production counters (never priced). */
  production: ExportMeters;
  /** The account tariff export meters are credited by, or null. */
  tariffId: string | null;
  /** A fixed export rate (the import tariff's currency), or null. */
  rate: number | null;
  /** An easy-prices node whose kept list prices the export (rule 61), or null. */
  pricesId: string | null;
  /** Per kWh on top of that list (a supplier's fee: negative); 0 without prices. */
  addOns: number;
  exportVat: boolean;
  floorAtZero: boolean;
  netting: Netting;
  intervalMinutes: 15 | 30 | 60;
  /** Names the export price in the stored totals: totals counted at another start from zero. */
  key: string;
}

const flag = (x: unknown): boolean => x === true || x === 'true';
const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : typeof x === 'number' ? String(x) : '');

/** What the dialog's Export price chooses; '' (flows from before the choice): the tariff or the rate, whichever is set. */
const EXPORT_PRICES = ['', 'tariff', 'rate', 'prices'] as const;

/** A number typed in the dialog, or NaN. */
const typedNumber = (t: string): number => (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(t) ? Number(t) : NaN);

/** The node's export settings checked at deploy; an Error says which one is wrong. */
export function exportSettings(config: Record<string, unknown>): ExportSettings {
  const meters = new ExportMeters(text(config.exportMeters));
  const production = new ExportMeters(text(config.productionMeters));
  const kind = text(config.exportPrice);
  if (!(EXPORT_PRICES as readonly string[]).includes(kind))
    throw new Error(`the export price must be tariff, rate or prices, got ${JSON.stringify(kind.slice(0, 40))}`);
  const tariffId = kind === '' || kind === 'tariff' ? text(config.exportTariff) || null : null;
  const rateText = kind === '' || kind === 'rate' ? text(config.exportRate) : '';
  const rate = rateText === '' ? null : typedNumber(rateText);
  if (rate !== null && !Number.isFinite(rate)) throw new Error(`the export rate must be a number per kWh, got ${JSON.stringify(rateText)}`);
  if (rate !== null && tariffId !== null) throw new Error('set an export tariff or a fixed export rate, not both');
  const pricesId = kind === 'prices' ? text(config.exportPrices) || null : null;
  const named = { tariff: tariffId, rate, prices: pricesId }[kind as 'tariff' | 'rate' | 'prices'];
  if (kind !== '' && (named === null || named === undefined))
    throw new Error(`the export price is "${kind}", but no ${kind === 'prices' ? 'easy-prices node' : `export ${kind}`} is set for it`);
  const addOnsText = kind === 'prices' ? text(config.exportAddOns) : '';
  const addOns = addOnsText === '' ? 0 : typedNumber(addOnsText);
  if (!Number.isFinite(addOns) || Math.abs(addOns) > 1e6)
    throw new Error(`the export add-ons must be a number per kWh, got ${JSON.stringify(addOnsText)}`);
  const netting = (text(config.netting) || 'none') as Netting;
  if (!NETTINGS.includes(netting))
    throw new Error(`netting must be one of ${NETTINGS.join(', ')}, got ${JSON.stringify(text(config.netting))}`);
  const minutes = Number(text(config.nettingMinutes) || 15);
  if (minutes !== 15 && minutes !== 30 && minutes !== 60)
    throw new Error(`the netting interval must be 15, 30 or 60 minutes, got ${minutes}`);
  const exportVat = flag(config.exportVat);
  const floorAtZero = flag(config.floorAtZero);
  const price =
    tariffId !== null ? `tariff:${tariffId}` : rate !== null ? `rate:${rate}` : pricesId !== null ? `prices:${pricesId}+${addOns}` : '';
  return {
    meters,
    production,
    tariffId,
    rate,
    pricesId,
    addOns,
    exportVat,
    floorAtZero,
    netting,
    intervalMinutes: minutes,
    key: `${price}|vat:${exportVat}|floor:${floorAtZero}`,
  };
}

/**
 * What export meters are credited by (rules 47, 61): the source the engine costs with (a
 * tariff, a fixed rate's flat tariff, or a stack over a spot list) and the tariff their
 * amounts are shown as (id, name, currency, VAT).
 */
export interface ExportPrice {
  source: Tariff | PriceStack;
  shown: Tariff;
}

/**
 * The export over an easy-prices node's kept list (rule 61): the list's prices plus the
 * export's own add-ons, no fees, the prices node's VAT (applied only with VAT on export), no
 * price where the list has none (never the tariff: it is the import's).
 */
export class ExportStacks {
  private readonly stacks: StackSource;
  private named: { importTariff: Tariff; over: Tariff; shown: Tariff } | null = null;

  constructor(link: PricesLink, settings: ExportSettings) {
    if (link.problem !== null || !link.book || !link.settings)
      throw new Error(`the export price: ${link.problem ?? 'no easy-prices node'}`);
    this.stacks = new StackSource(link.book, { ...link.settings, fees: false, addOns: settings.addOns, whenOut: 'stop' });
  }

  /** The export's stack now (the kept prices read back first), shown as 'spot prices (export)' in the import's currency. */
  async priceFor(importTariff: Tariff): Promise<ExportPrice> {
    // one object per import tariff: the stack is compiled once per list; the prices node's VAT
    // 'tariff' is the import tariff's, so the stack is made over a tariff of no rules with it
    if (this.named?.importTariff !== importTariff) {
      const over = { id: 'spot prices', name: 'spot prices (export)', currency: importTariff.currency, vat: importTariff.vat, rules: [] };
      this.named = { importTariff, over, shown: over };
    }
    const source = await this.stacks.stackWhenRead(this.named.over);
    // shown with the VAT the stack's results carry (priceTerms: 0 when included)
    const { vat } = priceTerms(source);
    if (this.named.shown.vat !== vat) this.named.shown = { ...this.named.over, vat };
    return { source, shown: this.named.shown };
  }

  /** The book the export's list is kept in: where a list sent to this node goes when it prices nothing else with one. */
  get link(): PricesLink {
    return { book: this.stacks.book, settings: this.stacks.settings, problem: null };
  }
}

/** The export price now, or null when the node has none; an Error names what is missing. */
export async function exportPriceFor(
  settings: ExportSettings,
  importTariff: Tariff,
  seen: TariffsSeen,
  stacks: ExportStacks | null,
): Promise<ExportPrice | null> {
  if (settings.pricesId !== null) {
    if (!stacks) throw new Error('the export price: the easy-prices node set is not deployed');
    return stacks.priceFor(importTariff);
  }
  const t = exportTariffFor(settings, importTariff, seen);
  return t === null ? null : { source: t, shown: t };
}

/** What the stream's site ledger settles (rule 48): the netting and its interval; its key names the export price too. */
export function ledgerSettings(settings: ExportSettings): LedgerSettings {
  return {
    netting: settings.netting,
    minutes: settings.intervalMinutes,
    production: !settings.production.empty,
    key: `${settings.netting}|${settings.intervalMinutes}|${settings.key}`,
  };
}

/** The tariff export meters are credited by (the account's export tariff, or the fixed rate's), or null when none is set. */
export function exportTariffFor(settings: ExportSettings, importTariff: Tariff, seen: TariffsSeen): Tariff | null {
  if (settings.tariffId !== null) {
    const t = findTariff(seen, settings.tariffId);
    if (t.currency !== importTariff.currency)
      throw new Error(`the export tariff's currency (${t.currency}) is not the import tariff's (${importTariff.currency})`);
    return t;
  }
  if (settings.rate === null) return null;
  return parseTariffs([exportTariffOf(importTariff, settings.rate)]).tariffs[0];
}

/** Whether a batch payload is a site's two registers: `{ import: [...], export: [...] }`. */
export function isSitePayload(payload: unknown): payload is { import?: unknown; export?: unknown; production?: unknown } {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    !Array.isArray(payload) &&
    ('import' in payload || 'export' in payload || 'production' in payload)
  );
}

/** Batch mode on `{ import, export }`: both registers costed and netted as the node says (rule 48). */
export function costSiteBatch(
  payload: { import?: unknown; export?: unknown; production?: unknown },
  sensors: unknown,
  tariff: Tariff,
  exportPrice: ExportPrice | null,
  settings: ExportSettings,
  timezone: string,
  maxPowerKw: number,
): { payload: Record<string, unknown>; status: NodeStatus } {
  if (payload.export !== undefined && exportPrice === null)
    throw new Error('batch mode got export readings, but the node has no export price (a tariff, a rate or prices): set one (Export)');
  const r = computeNetCost({ import: tariff, export: exportPrice?.source ?? 0 }, payload as { import?: unknown[]; export?: unknown[] }, {
    timezone,
    sensors: sensors as SensorTimelines | undefined,
    maxPowerKw,
    netting: settings.netting,
    intervalMinutes: settings.intervalMinutes,
    exportVat: settings.exportVat,
    floorAtZero: settings.floorAtZero,
  });
  if (payload.production !== undefined && !Array.isArray(payload.production))
    throw new Error('msg.payload.production must be an array of [timestamp, kWh] readings of the production counter');
  // rule 64: production is never priced; the self-consumption per settlement interval of the netting's length
  const made = Array.isArray(payload.production)
    ? selfConsumption(payload.production, Array.isArray(payload.export) ? payload.export : [], r.import.energy, {
        timezone,
        minutes: settings.intervalMinutes,
        maxPowerKw,
      })
    : null;
  if (r.import.intervals === 0 && r.export.intervals === 0 && !made)
    throw new Error('batch mode needs at least two readings of the import or the export register');
  const money = (x: number) => formatMoney(x, r.currency)?.display ?? 'no amount';
  return {
    payload: {
      netting: r.netting,
      currency: r.currency,
      import: costPayload(r.import, tariff),
      export: exportPrice ? costPayload(r.export, { ...exportPrice.shown, vat: r.export.vat }) : null,
      importEnergy: roundAmount(r.importEnergy),
      exportEnergy: roundAmount(r.exportEnergy),
      importCost: roundAmount(r.importCost),
      exportCredit: roundAmount(r.exportCredit),
      net: roundAmount(r.net),
      formatted: { importCost: money(r.importCost), exportCredit: money(r.exportCredit), net: money(r.net) },
      ...(r.oneSided !== undefined ? { oneSided: r.oneSided, intervals: r.intervals } : {}),
      ...(made
        ? {
            production: {
              energy: roundAmount(made.production),
              selfConsumption: roundAmount(made.selfConsumption),
              selfSufficiency: made.selfSufficiency === null ? null : roundAmount(made.selfSufficiency),
            },
          }
        : {}),
      ...(r.periods
        ? {
            periods: r.periods.map((p) => ({
              ...p,
              importCost: roundAmount(p.importCost),
              exportCredit: roundAmount(p.exportCredit),
              net: roundAmount(p.net),
            })),
          }
        : {}),
    },
    status: { fill: 'green', shape: 'dot', text: `net ${money(r.net)} · import ${money(r.importCost)} · export ${money(r.exportCredit)}` },
  };
}

/**
 * Stream mode's pricing of one interval at a time, judged already (rule 10: jumps off here):
 * with `exported`, as export (rule 47). Intervals computeCost rejects are collected in `rejected`.
 */
export function intervalCoster(
  /** A tariff, or an easy-prices node's stack over one (computeCost takes either). */
  t: unknown,
  timezone: string,
  sensors: SensorTimelines,
  rejected: RejectedInterval[],
  exported: { exportVat: boolean; floorAtZero: boolean } | null | undefined,
) {
  // one shape for both directions: computeCost's reads of its options stay monomorphic
  const options: CostOptions = {
    timezone,
    sensors,
    maxPowerKw: Infinity,
    direction: exported ? 'export' : 'import',
    exportVat: exported ? exported.exportVat : false,
    floorAtZero: exported ? exported.floorAtZero : false,
  };
  return (from: Reading, to: Reading): IntervalCost => {
    const r = computeCost(
      t,
      [
        [from.ts, from.value],
        [to.ts, to.value],
      ],
      options,
    );
    for (const one of r.rejected) rejected.push(one);
    return { energy: r.energy, net: r.net, gross: r.gross, unpricedEnergy: r.unpricedEnergy, resets: r.resets.length };
  };
}

/**
 * How stream mode prices what a settlement interval leaves after netting (rule 48): bought
 * at the import price (the tariff or its stack), sold at the export price, as a reading pair
 * at the interval's ends (intervalCoster: the rule at its start).
 */
export function netPricer(
  source: unknown,
  /** The export price's source (a tariff, or a stack over a spot list), null with none. */
  exportSource: unknown,
  timezone: string,
  sensors: SensorTimelines,
  rejected: RejectedInterval[],
  exported: { exportVat: boolean; floorAtZero: boolean } | undefined,
): NetPricer {
  let bought: ReturnType<typeof intervalCoster> | null = null;
  let sold: ReturnType<typeof intervalCoster> | null = null;
  return (side, kWh, from, to) => {
    const pair = [
      { ts: from, value: 0 },
      { ts: to, value: kWh },
    ] as const;
    if (side === 'import') return (bought ??= intervalCoster(source, timezone, sensors, rejected, null))(...pair);
    // export energy is counted only by export meters, which need an export price
    if (exportSource === null) return { energy: kWh, net: 0, gross: 0 };
    return (sold ??= intervalCoster(exportSource, timezone, sensors, rejected, exported ?? { exportVat: false, floorAtZero: false }))(
      ...pair,
    );
  };
}
