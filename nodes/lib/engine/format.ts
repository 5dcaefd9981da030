// How numbers and times of day read in messages and statuses. Amounts in messages are
// rounded to AMOUNT_DECIMALS (binary noise gone, nothing a currency or meter can show
// lost); the `formatted` strings are rounded to the currency's ISO 4217 minor unit as
// Intl knows it (JPY 0 digits, GBP 2, BHD 3). Sums are kept unrounded and rounded on output.
import { localClockText, zoneInfo } from './time';

/** Decimal places of amounts (prices, costs, kWh) in messages: 1e-9, far below any minor unit. */
export const AMOUNT_DECIMALS = 9;

/**
 * An amount as a message carries it: rounded to AMOUNT_DECIMALS, so 0.1 + 0.2 reads 0.3.
 * Only for output: totals go on summing the unrounded values, so they never drift.
 */
export function roundAmount(x: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21) return x; // toFixed's own limit; no noise to remove there
  const rounded = Number(x.toFixed(AMOUNT_DECIMALS));
  return rounded === 0 ? 0 : rounded; // never -0
}

/** roundAmount, with null (no price) kept as null. */
export function roundAmountOrNull(x: number | null): number | null {
  return x === null ? null : roundAmount(x);
}

/** A time of day in one shape everywhere: `HH:mm`, `HH:mm:ss` when the seconds are not 0; 86400 s is `24:00`. */
export function timeOfDay(secondsOfDay: number): string {
  const s = Math.floor(secondsOfDay);
  const two = (n: number) => String(n).padStart(2, '0');
  const hhmm = `${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}`;
  return s % 60 === 0 ? hhmm : `${hhmm}:${two(s % 60)}`;
}

/** Formatted forms of one amount. */
export interface FormattedMoney {
  /** Rounded to the minor unit, no grouping, `.` as decimal point: "1234.57". */
  text: string;
  /** For people: the currency code, grouping and minor unit, e.g. "GBP 1,234.57". */
  display: string;
}

const FALLBACK_MINOR_UNITS = 2;
const minorUnitCache = new Map<string, number>();

function isWellFormedCode(currency: unknown): currency is string {
  return typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency);
}

/**
 * Digits after the decimal point of the currency's minor unit, from Intl. A code Intl
 * does not know but that looks like one (`XYZ`) gets Intl's own default (2); anything
 * else (missing, `EURO`) gets 2 as well, since the amount must still be shown.
 */
export function minorUnits(currency: unknown): number {
  if (!isWellFormedCode(currency)) return FALLBACK_MINOR_UNITS;
  const code = currency.toUpperCase();
  let digits = minorUnitCache.get(code);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ??
        FALLBACK_MINOR_UNITS;
    } catch {
      digits = FALLBACK_MINOR_UNITS;
    }
    minorUnitCache.set(code, digits);
  }
  return digits;
}

const numberFormats = new Map<string, Intl.NumberFormat>();
/** Formatters are costly to build (a stream message formats 17 amounts): one per locale and options, bounded. */
const MAX_NUMBER_FORMATS = 256;

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = JSON.stringify([locale, options]);
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, options);
    if (numberFormats.size >= MAX_NUMBER_FORMATS) numberFormats.clear();
    numberFormats.set(key, format);
  }
  return format;
}

interface MoneyFormat {
  plain: Intl.NumberFormat;
  display: Intl.NumberFormat;
  /** After the grouped number when the currency is no ISO code (" EURO"), else empty. */
  suffix: string;
}
const moneyFormats = new Map<string, MoneyFormat>();

/** The formatters of one currency and locale, built once (a stream message formats 17 amounts). */
function moneyFormat(currency: unknown, locale: string): MoneyFormat {
  const key = `${locale}\u0000${typeof currency}\u0000${String(currency)}`;
  let format = moneyFormats.get(key);
  if (!format) {
    const digits = minorUnits(currency);
    const fixed = { minimumFractionDigits: digits, maximumFractionDigits: digits };
    const code = isWellFormedCode(currency);
    format = {
      plain: numberFormat('en-US', { ...fixed, useGrouping: false }),
      display: code
        ? numberFormat(locale, { ...fixed, style: 'currency', currency: currency.toUpperCase(), currencyDisplay: 'code' })
        : numberFormat(locale, fixed),
      suffix: !code && currency ? ` ${String(currency)}` : '',
    };
    if (moneyFormats.size >= MAX_NUMBER_FORMATS) moneyFormats.clear();
    moneyFormats.set(key, format);
  }
  return format;
}

/**
 * Both display forms of `amount` in `currency`. `null` (no price, nothing to show)
 * stays `null` rather than becoming "0.00".
 */
export function formatMoney(amount: number | null, currency: unknown, locale = 'en-US'): FormattedMoney | null {
  if (amount === null || !Number.isFinite(amount)) return null;
  const { plain, display, suffix } = moneyFormat(currency, locale);
  // A tiny negative amount (and -0) rounds to "0.00", never "-0.00". Done by hand: Intl's
  // signDisplay 'negative' is a RangeError on Node 18.
  if (amount <= 0 && Number(plain.format(-amount)) === 0) amount = 0;
  // Intl separates code and number with a no-break space; a plain space is what people
  // type when they match on it in a switch node.
  return { text: plain.format(amount), display: `${display.format(amount)}${suffix}`.replace(/\u00a0/g, ' ') };
}

/**
 * The `formatted` block of a cost result: every money amount of `amounts` formatted,
 * keyed the same way.
 */
export function formatAmounts<K extends string>(amounts: Record<K, number | null>, currency: unknown): Record<K, FormattedMoney | null> {
  const out = {} as Record<K, FormattedMoney | null>;
  for (const key of Object.keys(amounts) as K[]) out[key] = formatMoney(amounts[key], currency);
  return out;
}

/** `HH:mm:ss` of instant `ms` on the wall clock of `timezone`, for node status lines. */
export function formatClock(ms: number, timezone: string): string {
  return localClockText(zoneInfo(timezone), ms);
}

/** A count with its noun in the right number: `1 sensor`, `12 sensors`. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}

/** A text cut to `max` characters (a status line's length by default), marked with an ellipsis. */
export function shortText(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
