// What easy-cost's stream mode sends and shows: the site's sums over meters, one meter's
// message, closed periods as bars, the status. Pure: totals in, shapes out.
import { closedPeriodBar } from '../../engine/reports/chart';
import { formatMoney, roundAmount } from '../../engine/common/format';
import { priceTerms, PriceTerms } from '../../engine/prices/price-source';
import type { Tariff } from '../../engine/tariff/tariff';
import { localPeriod } from '../../engine/time/time';
import { AddResult, Bucket, PERIODS, PeriodName, Reading, TotalsState } from '../../engine/cost/totals';
import { bucketPayload, changePayload, suspectPayload } from './cost-inputs';
import type { LedgerSettings, NetSums } from '../../engine/net/net-ledger';
import { MeterId, meterName } from './stream-store';

export interface StreamStatus {
  fill: 'green' | 'yellow' | 'grey';
  shape: 'dot' | 'ring';
  text: string;
}

export interface SiteSums {
  day: Bucket | null;
  week: Bucket | null;
  month: Bucket | null;
  total: Bucket | null;
  meters: number;
  /** The newest reading of any meter (epoch ms), null before any. */
  newest: number | null;
  /** Rule 47: the export meters' sums, apart (the fields above are the import meters'); only when there are any. */
  export?: SiteSums;
  /** Rule 64: the production meters' sums (energy only), apart; only when there are any. */
  production?: SiteSums;
  /** Rules 48 and 63: the site's sums after netting, and its production, when the node nets or counts production. */
  ledger?: { settings: LedgerSettings; day: NetSums | null; week: NetSums | null; month: NetSums | null; total: NetSums | null };
}

/**
 * What a meter's amounts are in: the id and name of what priced them, their currency and the
 * VAT their gross adds (priceTerms of the tariff or the stack, or an export tariff's).
 */
export type ShownTerms = Pick<PriceTerms, 'id' | 'name' | 'currency' | 'vat'>;

/** The terms of what prices an import meter (the tariff, or a stack over it), named by the node's tariff. */
export function importTerms(tariff: Tariff, source: unknown): ShownTerms {
  return source === tariff ? tariff : { ...priceTerms(source), id: tariff.id, name: tariff.name };
}

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The sum over meters of each period that contains the site's newest reading (a meter
 * with no reading in it yet adds nothing), and of every meter's total.
 */
export function siteSums(all: TotalsState[], timezone: string): SiteSums {
  let newest = -Infinity;
  for (const t of all) if (t.kept.length) newest = Math.max(newest, t.kept.newestTs());
  const sum = (from: number, to: number | null, buckets: Array<Bucket | null>): Bucket => {
    const s: Bucket = { from, to, energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0, intervals: 0 };
    for (const b of buckets) {
      if (!b || (to !== null && b.from !== from)) continue;
      s.energy += b.energy;
      s.net += b.net;
      s.gross += b.gross;
      s.unpricedEnergy += b.unpricedEnergy;
      s.resets += b.resets;
      s.intervals += b.intervals;
    }
    return s;
  };
  const period = (name: PeriodName) => {
    if (newest === -Infinity) return null;
    const { from, to } = localPeriod(name, newest, { timezone });
    return sum(
      from,
      to,
      all.map((t) => t[name]),
    );
  };
  const totals = all.map((t) => t.total).filter((b): b is Bucket => b !== null);
  let first = Infinity;
  for (const b of totals) first = Math.min(first, b.from);
  const total = totals.length ? sum(first, null, totals) : null;
  return {
    day: period('day'),
    week: period('week'),
    month: period('month'),
    total,
    meters: all.length,
    newest: newest === -Infinity ? null : newest,
  };
}

/** One meter's message: its periods, the site's, and what this reading did. */
export function meterPayload(
  t: ShownTerms,
  timezone: string,
  meter: MeterId & { totals: TotalsState; direction?: 'export' | 'production' },
  site: SiteSums,
  added?: AddResult,
  reading?: Reading,
): Record<string, unknown> {
  const money = (b: Bucket | null) => bucketPayload(b, t.currency, t.vat);
  const s = meter.totals;
  const closed: Record<string, unknown> = {};
  for (const name of PERIODS) if (added?.closed[name]) closed[name] = money(added.closed[name]!);
  return {
    tariffId: t.id,
    tariffName: t.name,
    currency: t.currency,
    vat: t.vat,
    timezone,
    today: money(s.day),
    week: money(s.week),
    month: money(s.month),
    total: money(s.total),
    meter: { gateway: meter.gateway, topic: meter.topic, name: meterName(meter) },
    ...(meter.direction ? { direction: meter.direction } : {}),
    site: { meters: site.meters, today: money(site.day), week: money(site.week), month: money(site.month), total: money(site.total) },
    ...(reading ? { reading: { ts: reading.ts, timestamp: new Date(reading.ts).toISOString(), value: reading.value } } : {}),
    ...(added ? { change: changePayload(added.change) } : {}),
    ...(Object.keys(closed).length ? { closed } : {}),
    ...(added?.ignored ? { ignored: added.ignored } : {}),
    ...(added?.late ? { late: true } : {}),
    ...(added?.replaced ? { replaced: true } : {}),
    ...(added?.rejected ? { rejected: added.rejected } : {}),
    ...(added?.glitches ? { glitches: added.glitches.map(suspectPayload) } : {}),
    ...(added?.held ? { held: added.held } : {}),
  };
}

/**
 * Rule 47: beside the import meters' sums (`site` as before), the export meters' (`export`,
 * its own currency's amounts as credit, the VAT applied) and per period the `net` bill
 * (import gross − export gross; negative: the site earned). Absent without export meters.
 */
export function siteExportPayload(site: SiteSums, importTariff: ShownTerms, exportShown: ShownTerms) {
  const ex = site.export;
  if (!ex) return {};
  const credit = (b: Bucket | null) => bucketPayload(b, exportShown.currency, exportShown.vat);
  const net = (name: 'day' | 'week' | 'month' | 'total') => {
    const bought = site[name];
    const sold = ex[name];
    // the export's open period may be another than the import's (its newest reading): only one of the same period nets
    const same = bought && sold && (name === 'total' || bought.from === sold.from);
    const netted = nettedSums(site, name);
    const gross = netted
      ? netted.importCost - netted.exportCredit
      : (bought && (same || !sold) ? bought.gross : 0) - (sold && (same || !bought) ? sold.gross : 0);
    return {
      gross: roundAmount(gross),
      currency: importTariff.currency,
      formatted: formatMoney(gross, importTariff.currency)?.display ?? null,
    };
  };
  return {
    export: { meters: ex.meters, today: credit(ex.day), week: credit(ex.week), month: credit(ex.month), total: credit(ex.total) },
    net: { today: net('day'), week: net('week'), month: net('month'), total: net('total') },
    ...nettingPayload(site),
  };
}

/** A period's sums after netting: per interval every period, per month the month and the total only (a day is not netted). */
function nettedSums(site: SiteSums, name: PeriodName | 'total'): NetSums | null {
  const ledger = site.ledger;
  if (!ledger || ledger.settings.netting === 'none') return null;
  if (ledger.settings.netting === 'period' && (name === 'day' || name === 'week')) return null;
  return ledger[name];
}

/** `site.netting` (rule 48): per period the energy billed and credited after netting, their amounts and the bill. */
function nettingPayload(site: SiteSums) {
  const ledger = site.ledger;
  if (!ledger || ledger.settings.netting === 'none') return {};
  const interval = ledger.settings.netting === 'interval';
  const one = (name: PeriodName | 'total') => {
    const b = nettedSums(site, name);
    if (!b) return null;
    const net = b.importCost - b.exportCredit;
    // the period's bounds are site.today's etc. (the same instant moves both), its bill in words site.net's
    return {
      importEnergy: roundAmount(b.importEnergy),
      importCost: roundAmount(b.importCost),
      exportEnergy: roundAmount(b.exportEnergy),
      exportCredit: roundAmount(b.exportCredit),
      net: roundAmount(net),
      ...(interval ? { oneSided: Math.round(b.oneSided) } : {}),
    };
  };
  return {
    netting: {
      mode: ledger.settings.netting,
      ...(interval ? { minutes: ledger.settings.minutes } : {}),
      today: one('day'),
      week: one('week'),
      month: one('month'),
      total: one('total'),
    },
  };
}

/**
 * Rule 64: `site.production` per period: the production meters' energy, the self-consumption
 * (production less export, never below 0 per settlement interval) and the self-sufficiency
 * share (self-consumption ÷ (self-consumption + the import meters' energy); null with neither).
 */
export function siteProductionPayload(site: SiteSums) {
  const produced = site.production;
  if (!produced) return {};
  const one = (name: PeriodName | 'total') => {
    const p = produced[name];
    const ledger = site.ledger?.[name];
    if (!p || !ledger) return null;
    const bought = site[name] && (name === 'total' || site[name]!.from === ledger.from) ? site[name]!.energy : 0;
    const self = ledger.selfConsumption;
    return {
      energy: roundAmount(p.energy),
      selfConsumption: roundAmount(self),
      selfSufficiency: self + bought > 0 ? roundAmount(self / (self + bought)) : null,
    };
  };
  return { production: { meters: produced.meters, today: one('day'), week: one('week'), month: one('month'), total: one('total') } };
}

/** What the status says of a reading rule 10 held, or of held readings it showed to be glitches (null: nothing). */
export function glitchNote(added: AddResult): string | null {
  const dropped = added.ignored ? 0 : (added.glitches?.length ?? 0);
  if (dropped) return `${dropped} ${dropped === 1 ? 'glitch' : 'glitches'} dropped`;
  return added.held ? `${plural(added.held, 'suspect reading')} held` : null;
}

/** A closed period as a bar; bars of a named meter are a series of their own. */
export function meterBar(name: PeriodName, closed: Bucket, t: ShownTerms, timezone: string, meter: MeterId) {
  const bar = closedPeriodBar(name, closed, t.currency, timezone);
  if (meter.gateway !== null || meter.topic !== null) bar.topic = `${bar.topic} · ${meterName(meter)}`;
  return bar;
}

/** The site's today and how many meters count; unpriced energy and ignored readings in yellow. */
export function siteStatus(site: SiteSums, t: ShownTerms, ignored?: string): StreamStatus {
  const today = site.day;
  const amount = formatMoney(today ? today.gross : 0, t.currency)?.display ?? 'no amount';
  const energy = today ? today.energy.toFixed(2) : '0.00';
  // energy no rule priced (a sensor rule whose sensor is unknown) must not pass unnoticed
  const unpriced = today && today.unpricedEnergy > 0 ? ` · ${today.unpricedEnergy.toFixed(2)} kWh unpriced` : '';
  // a note in words ("interval rejected", "1 glitch dropped") as it is, a reason ("too_late") as the reading ignored
  const note =
    ignored === undefined ? unpriced : ignored.includes(' ') ? ` · ${ignored}` : ` · ${ignored.replace('_', ' ')} reading ignored`;
  return {
    fill: note ? 'yellow' : 'green',
    shape: 'dot',
    text: `today ${amount} · ${energy} kWh${exportNote(site, t)} · ${plural(site.meters + (site.export?.meters ?? 0), 'meter')}${note}`,
  };
}

/** What the status says of the export meters today: the energy sold and its credit. */
function exportNote(site: SiteSums, t: ShownTerms): string {
  const day = site.export?.day;
  if (!day) return '';
  return ` · export ${day.energy.toFixed(2)} kWh ${formatMoney(day.gross, t.currency)?.display ?? ''}`.trimEnd();
}

/** The status right after the stored totals were read. */
export function restoredStatus(site: SiteSums): StreamStatus {
  if (site.day)
    return { fill: 'grey', shape: 'dot', text: `today ${site.day.energy.toFixed(2)} kWh (restored) · ${plural(site.meters, 'meter')}` };
  return { fill: 'grey', shape: 'ring', text: 'stream · totals from zero' };
}
