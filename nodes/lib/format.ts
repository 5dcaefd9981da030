// Money formatting for display. Amounts stay in full precision everywhere else (SPEC
// rule 12); only these strings are rounded, to the currency's ISO 4217 minor unit as
// Intl knows it (JPY 0 digits, GBP 2, BHD 3).
import { localClockText, zoneInfo } from './time';

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
      digits = new Intl.NumberFormat('en-US', { style: 'currency', currency: code })
        .resolvedOptions().maximumFractionDigits ?? FALLBACK_MINOR_UNITS;
    } catch {
      digits = FALLBACK_MINOR_UNITS;
    }
    minorUnitCache.set(code, digits);
  }
  return digits;
}

/**
 * Both display forms of `amount` in `currency`. `null` (no price, nothing to show)
 * stays `null` rather than becoming "0.00".
 */
export function formatMoney(amount: number | null, currency: unknown, locale = 'en-US'): FormattedMoney | null {
  if (amount === null || !Number.isFinite(amount)) return null;
  const digits = minorUnits(currency);
  const fixed = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  const plain = new Intl.NumberFormat('en-US', { ...fixed, useGrouping: false });
  // A tiny negative amount (and -0) rounds to "0.00", never "-0.00". Done by hand: Intl's
  // signDisplay 'negative' is a RangeError on Node 18.
  if (amount <= 0 && Number(plain.format(-amount)) === 0) amount = 0;
  const text = plain.format(amount);
  let display: string;
  if (isWellFormedCode(currency)) {
    display = new Intl.NumberFormat(locale, {
      ...fixed, style: 'currency', currency: currency.toUpperCase(), currencyDisplay: 'code',
    }).format(amount);
  } else {
    const grouped = new Intl.NumberFormat(locale, fixed).format(amount);
    display = currency ? `${grouped} ${String(currency)}` : grouped;
  }
  // Intl separates code and number with a no-break space; a plain space is what people
  // type when they match on it in a switch node.
  return { text, display: display.replace(/\u00a0/g, ' ') };
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

/** A text cut to `max` characters (a status line's length by default), marked with an ellipsis. */
export function shortText(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
