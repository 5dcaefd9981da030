// Stream mode's month-end projection and fixed daily charge (docs/semantics.md, rules
// 33-34): pure, from the site's sums and the newest reading, nothing stored.
import { formatAmounts, formatMoney, roundAmount } from '../../engine/common/format';
import type { Tariff } from '../../engine/tariff/tariff';
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
export function streamExtras(input: ProjectionInput, tariff: Tariff, timezone: string, perDay: number | null) {
  const zone = zoneInfo(timezone);
  const vatFactor = 1 + tariff.vat / 100;
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
  const scale = basisMs >= MIN_PROJECTION_BASIS_MS ? (month.to - month.from) / basisMs : null;
  const projected =
    scale === null
      ? null
      : {
          energy: roundAmount(energyCost.energy * scale),
          net: roundAmount(energyCost.net * scale + chargeMonth),
          gross: roundAmount(energyCost.gross * scale + chargeMonth * vatFactor),
        };
  out.projection = {
    from: iso(month.from),
    to: iso(month.to),
    fromMs: month.from,
    toMs: month.to,
    method: 'month-so-far',
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
    formatted: formatAmounts(
      { soFar: energyCost.gross + chargeSoFar * vatFactor, projected: projected ? projected.gross : null },
      tariff.currency,
    ),
  };
  const shown = projected ? formatMoney(projected.gross, tariff.currency)?.display : null;
  return { payload: out, statusNote: shown ? ` · month → ${shown}` : '' };
}

const iso = (ms: number) => new Date(ms).toISOString();
