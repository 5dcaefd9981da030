// Stream mode's month-end projection and fixed daily charge (docs/semantics.md, rules
// 33-34, and for a price stack the rule "Month-end projection on a price stack"): pure,
// from the site's sums, the newest reading and what prices them, nothing stored.
import { formatAmounts, formatMoney, roundAmount } from '../../engine/common/format';
import { isPriceStack } from '../../engine/prices/price-stack';
import { knownUntilText } from '../prices/prices-source';
import { restOnStack, stackWords } from '../prices/stack-rest';
import type { ShownTerms, SiteSums } from './stream-output';
import { netPeriod } from '../../engine/net/net-cost';
import type { NetSums } from '../../engine/net/net-ledger';
import { localPeriodIn, zoneInfo, ZoneInfo } from '../../engine/time/time';
import { localDayNumber } from '../../engine/time/zone-clock';
import type { Bucket } from '../../engine/cost/totals';

/** Below this much counted time in the month a projection would be a guess: none is made. */
export const MIN_PROJECTION_BASIS_MS = 3600_000;

export interface ProjectionInput {
  day: Bucket | null;
  week: Bucket | null;
  month: Bucket | null;
  total: Bucket | null;
  /** The site's newest reading (epoch ms), null before any. */
  newest: number | null;
  /** The export meters' sums and the site's netting (rules 47-48), when there are export meters or netting. */
  export?: SiteSums;
  ledger?: SiteSums['ledger'];
}

/** The node's daily charge setting: empty = none, else an amount ≥ 0 per local day, before VAT. */
export function dailyChargeSetting(x: unknown): number | null {
  const text = typeof x === 'number' ? String(x) : typeof x === 'string' ? x.trim() : '';
  if (text === '') return null;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new RangeError(`the daily charge must be an amount of 0 or more, got ${JSON.stringify(shorten(text))}`);
  return n;
}

const shorten = (s: string) => (s.length > 20 ? `${s.slice(0, 20)}…` : s);

/** Local days begun from the day of `from` to the day of `at`, both included. */
function daysBegun(zone: ZoneInfo, from: number, at: number): number {
  const dayOf = (ms: number) => localDayNumber(zone, localPeriodIn(zone, 'day', ms).from);
  return at < from ? 0 : dayOf(at) - dayOf(from) + 1;
}

/**
 * The daily charge of each period (every local day begun in it by the newest reading, a
 * whole charge per day whether it lasts 23, 24 or 25 hours; the total from the day of
 * the first reading) and each period's amount with it; the month's cost so far and
 * projected to its end: the cost per hour over the part of the month counted so far,
 * times the month's hours (exact with 23- and 25-hour days; days before counting began
 * are estimated alike), plus a charge for every day of the month.
 */
export function streamExtras(
  input: ProjectionInput,
  terms: Pick<ShownTerms, 'vat' | 'currency'>,
  timezone: string,
  perDay: number | null,
  /** What prices the site (the tariff, or a stack): a stack's rest of the month is priced on it. */
  source: unknown = null,
) {
  const zone = zoneInfo(timezone);
  // the VAT of what prices the energy (a stack's own, 0 when included), as computeCost's gross
  const vatFactor = 1 + terms.vat / 100;
  const out: Record<string, unknown> = {};
  const newest = input.newest;
  if (newest === null) return { payload: out, statusNote: '' };
  const charged = (b: Bucket | null, from: number | null) => {
    const days = b && from !== null ? daysBegun(zone, from, newest) : 0;
    const net = (perDay ?? 0) * days;
    return {
      days,
      net: roundAmount(net),
      gross: roundAmount(net * vatFactor),
      withChargeNet: roundAmount((b ? b.net : 0) + net),
      withChargeGross: roundAmount((b ? b.gross : 0) + net * vatFactor),
    };
  };
  if (perDay !== null) {
    out.dailyCharge = {
      perDay: { net: roundAmount(perDay), gross: roundAmount(perDay * vatFactor) },
      today: charged(input.day, input.day?.from ?? null),
      week: charged(input.week, input.week?.from ?? null),
      month: charged(input.month, input.month?.from ?? null),
      total: charged(input.total, input.total?.from ?? null),
    };
  }
  const month = localPeriodIn(zone, 'month', newest);
  const soFar = input.month && input.month.from === month.from ? input.month : null;
  const firstCounted = input.total ? Math.max(month.from, input.total.from) : newest;
  const basisMs = newest - firstCounted;
  const daysInMonth = daysBegun(zone, month.from, month.to - 1);
  const chargeSoFar = (perDay ?? 0) * daysBegun(zone, month.from, newest);
  const chargeMonth = (perDay ?? 0) * daysInMonth;
  const energyCost = { energy: soFar ? soFar.energy : 0, net: soFar ? soFar.net : 0, gross: soFar ? soFar.gross : 0 };
  const enough = basisMs >= MIN_PROJECTION_BASIS_MS;
  const onStack = isPriceStack(source) ? restOnStack(source, newest, month.to, timezone, enough ? energyCost.energy / basisMs : 0) : null;
  let projected: { energy: number; net: number; gross: number } | null = null;
  if (enough && onStack === null) {
    // rule 33: the cost per hour counted so far, over the whole month
    const scale = (month.to - month.from) / basisMs;
    projected = {
      energy: roundAmount(energyCost.energy * scale),
      net: roundAmount(energyCost.net * scale + chargeMonth),
      gross: roundAmount(energyCost.gross * scale + chargeMonth * vatFactor),
    };
  } else if (enough && onStack && onStack.unpricedMs === 0) {
    // a stack's prices do not repeat: the rest of the month at the use per hour so far, at each instant's price
    projected = {
      energy: roundAmount(energyCost.energy + onStack.energy),
      net: roundAmount(energyCost.net + onStack.net + chargeMonth),
      gross: roundAmount(energyCost.gross + onStack.net * vatFactor + chargeMonth * vatFactor),
    };
  }
  out.projection = {
    from: iso(month.from),
    to: iso(month.to),
    fromMs: month.from,
    toMs: month.to,
    method: onStack ? 'stacked-prices' : 'month-so-far',
    basisFrom: iso(firstCounted),
    basisFromMs: firstCounted,
    basisMs,
    days: daysInMonth,
    soFar: {
      energy: roundAmount(energyCost.energy),
      net: roundAmount(energyCost.net + chargeSoFar),
      gross: roundAmount(energyCost.gross + chargeSoFar * vatFactor),
    },
    projected,
    ...(onStack ? { prices: stackWords(onStack, enough, newest, timezone) } : {}),
    // rule 52 on a stack: the month is not projected past its first unpriced instant; up to it, so far (charges begun included) and the rest
    ...(enough && onStack && onStack.unpricedFrom !== null
      ? {
          untilUnpriced: {
            to: iso(onStack.unpricedFrom),
            toMs: onStack.unpricedFrom,
            energy: roundAmount(energyCost.energy + onStack.energyBefore),
            net: roundAmount(energyCost.net + chargeSoFar + onStack.netBefore),
            gross: roundAmount(energyCost.gross + (chargeSoFar + onStack.netBefore) * vatFactor),
          },
        }
      : {}),
    formatted: formatAmounts(
      { soFar: energyCost.gross + chargeSoFar * vatFactor, projected: projected ? projected.gross : null },
      terms.currency,
    ),
  };
  if (input.export) {
    const charges = { soFar: chargeSoFar * vatFactor, month: chargeMonth * vatFactor };
    const importSide = {
      soFar: energyCost.gross + charges.soFar,
      projected: projected ? projected.gross : null,
      projectedEnergy: projected ? projected.energy : null,
    };
    Object.assign(out.projection as object, bothWays(input, month, importSide, charges, terms.currency));
  }
  const shown = projected ? formatMoney(projected.gross, terms.currency)?.display : null;
  const note = shown
    ? ` · month → ${shown}`
    : enough && onStack && onStack.unpricedMs > 0
      ? ` · month → not projected (${onStack.knownUntil === null ? 'no price now' : knownUntilText(onStack.knownUntil, newest, timezone)})`
      : '';
  return { payload: out, statusNote: note };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A side's month so far (its period of `month` only) scaled to the whole month by its own counted time (rule 33), or null under an hour. */
function scaleOf(month: { from: number; to: number }, firstFrom: number | null, newest: number | null): number | null {
  if (firstFrom === null || newest === null) return null;
  const basisMs = newest - Math.max(month.from, firstFrom);
  return basisMs >= MIN_PROJECTION_BASIS_MS ? (month.to - month.from) / basisMs : null;
}

/**
 * Rule 33 with export (rules 47-48): `export`, the export meters' credit so far and projected
 * as the import's (per hour of their own counted time, no daily charge); `net`, the bill so
 * far and projected as the node nets: none, import projected − export projected; per
 * interval, the month's netted cost and credit per hour so far; per month, each side's kWh
 * and amounts projected, then netted as the month will be (netPeriod: the larger side's
 * rest at its average). The import's daily charges stay on the import side.
 */
function bothWays(
  input: ProjectionInput,
  month: { from: number; to: number },
  importSide: { soFar: number; projected: number | null; projectedEnergy: number | null },
  charges: { soFar: number; month: number },
  currency: string,
) {
  const ex = input.export!;
  const exMonth = ex.month && ex.month.from === month.from ? ex.month : null;
  const exScale = scaleOf(month, ex.total ? ex.total.from : null, ex.newest);
  const credit = { energy: exMonth ? exMonth.energy : 0, net: exMonth ? exMonth.net : 0, gross: exMonth ? exMonth.gross : 0 };
  const exportProjected =
    exScale === null
      ? null
      : {
          energy: roundAmount(credit.energy * exScale),
          net: roundAmount(credit.net * exScale),
          gross: roundAmount(credit.gross * exScale),
        };
  const ledger = input.ledger;
  const nettedMonth: NetSums | null = ledger && ledger.month && ledger.month.from === month.from ? ledger.month : null;
  let soFar = { importCost: importSide.soFar, exportCredit: credit.gross };
  let projected: { importCost: number; exportCredit: number } | null =
    importSide.projected !== null && exportProjected !== null
      ? { importCost: importSide.projected, exportCredit: exportProjected.gross }
      : null;
  const netting = ledger?.settings.netting ?? 'none';
  if (netting !== 'none' && ledger) {
    const m = nettedMonth;
    soFar = { importCost: (m ? m.importCost : 0) + charges.soFar, exportCredit: m ? m.exportCredit : 0 };
    if (importSide.projected === null || exportProjected === null) projected = null;
    else if (netting === 'interval') {
      // the month's netted cost and credit per hour of the site's counted time (import or export meters' newest reading)
      const newest = Math.max(input.newest ?? -Infinity, ex.newest ?? -Infinity);
      const scale = scaleOf(month, ledger.total ? ledger.total.from : null, newest);
      projected =
        scale === null ? null : { importCost: (m ? m.importCost : 0) * scale + charges.month, exportCredit: soFar.exportCredit * scale };
    } else {
      // each side's month projected (the import's on a stack too), then netted as the month will be
      const left = netPeriod(
        { energy: importSide.projectedEnergy!, net: 0, gross: importSide.projected - charges.month },
        { energy: exportProjected.energy, net: 0, gross: exportProjected.gross },
      );
      projected = { importCost: left.importCost + charges.month, exportCredit: left.exportCredit };
    }
  }
  const net = (x: { importCost: number; exportCredit: number }) => ({
    importCost: roundAmount(x.importCost),
    exportCredit: roundAmount(x.exportCredit),
    net: roundAmount(x.importCost - x.exportCredit),
  });
  return {
    export: {
      basisFromMs: ex.total ? Math.max(month.from, ex.total.from) : null,
      soFar: { energy: roundAmount(credit.energy), net: roundAmount(credit.net), gross: roundAmount(credit.gross) },
      projected: exportProjected,
    },
    net: {
      netting,
      soFar: net(soFar),
      projected: projected ? net(projected) : null,
      formatted: formatAmounts(
        { soFar: soFar.importCost - soFar.exportCredit, projected: projected ? projected.importCost - projected.exportCredit : null },
        currency,
      ),
    },
  };
}
