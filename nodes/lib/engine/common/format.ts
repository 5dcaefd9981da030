// How numbers and times of day read in messages and statuses. Amounts in messages are
// rounded to AMOUNT_DECIMALS (binary noise gone, nothing a currency or meter can show
// lost); the `formatted` strings are rounded to the currency's minor unit (JPY 0 digits,
// GBP 2, BHD 3). Sums are kept unrounded and rounded on output.
// The nodes' own text (en-US) is made here without Intl: the first use of Intl makes Node
// load ICU's data, ~6 MB of resident memory a Pi pays for as long as Node-RED runs. Intl
// is used only for another locale, asked for through the library's formatMoney.
import { localClockText, zoneInfo } from '../time/time';

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

/**
 * The currencies whose minor unit is not 2 digits, as CLDR 48 has them (Intl of Node 20.20, 22.23,
 * 24, 26; ISO 4217 and current use). Older Node releases' Intl had COP, HUF, IDR and PKR at 2
 * and RSD at 0: with the table the text no longer depends on the Node release.
 */
const ZERO_DIGIT_CURRENCIES =
  'ADP AFN ALL BIF BYR CLP COP DJF ESP GNF HUF IDR IQD IRR ISK ITL JPY KMF KPW KRW LAK LBP LUF MGA MGF MMK MRO ' +
  'PKR PYG RWF SLL SOS STD SYP TMM TRL UGX UYI VND VUV XAF XOF XPF YER ZMK ZWD';
const MINOR_UNITS_NOT_2: ReadonlyMap<string, number> = new Map([
  ...ZERO_DIGIT_CURRENCIES.split(' ').map((code) => [code, 0] as const),
  ...(['BHD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'] as const).map((code) => [code, 3] as const),
  ['CLF', 4],
  ['UYW', 4],
]);

function isWellFormedCode(currency: unknown): currency is string {
  return typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency);
}

/**
 * Digits after the decimal point of the currency's minor unit. Any other code that looks
 * like one (`XYZ`) gets 2, as Intl gives it; anything else (missing, `EURO`) gets 2 as
 * well, since the amount must still be shown.
 */
export function minorUnits(currency: unknown): number {
  if (!isWellFormedCode(currency)) return FALLBACK_MINOR_UNITS;
  return MINOR_UNITS_NOT_2.get(currency.toUpperCase()) ?? FALLBACK_MINOR_UNITS;
}

/** Thousands separated by commas, as en-US writes them: 19295 → "19,295". */
export function groupDigits(integerText: string | number): string {
  return String(integerText).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * |amount| rounded to `places` decimals as Intl rounds (en-US): the shortest decimal form
 * of the number (what String shows: 1.005 stays "1.005") rounded half away from zero, so
 * 1.005 → "1.01" where toFixed gives "1.00". Integer part and decimals apart, ungrouped.
 */
function fixedParts(amount: number, places: number): { whole: string; decimals: string } {
  const [mantissa, exponent] = String(Math.abs(amount)).split('e');
  const dot = mantissa.indexOf('.');
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let point = (dot < 0 ? mantissa.length : dot) + Number(exponent ?? 0);
  if (point < 1) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  const keep = point + places;
  let kept = digits.slice(0, keep).padEnd(keep, '0');
  if (digits.length > keep && digits.charCodeAt(keep) >= 53 /* '5' */) {
    const up = (BigInt(kept) + 1n).toString().padStart(keep, '0');
    if (up.length > keep) point++; // 9.995 → 10.00
    kept = up;
  }
  return { whole: kept.slice(0, point).replace(/^0+(?=\d)/, ''), decimals: kept.slice(point) };
}

/** The en-US forms of formatMoney, made without Intl (same text, tests compare them). */
function moneyEnUs(amount: number, currency: unknown): FormattedMoney {
  const places = minorUnits(currency);
  const { whole, decimals } = fixedParts(amount, places);
  const magnitude = decimals ? `${whole}.${decimals}` : whole;
  const zero = /^[0.]*$/.test(magnitude);
  const sign = amount < 0 && !zero ? '-' : ''; // a tiny negative (and -0) reads "0.00", never "-0.00"
  const grouped = decimals ? `${groupDigits(whole)}.${decimals}` : groupDigits(whole);
  const display = isWellFormedCode(currency)
    ? `${sign}${currency.toUpperCase()} ${grouped}`
    : `${sign}${grouped}${currency ? ` ${String(currency)}` : ''}`;
  return { text: sign + magnitude, display };
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
  if (locale === 'en-US') return moneyEnUs(amount, currency);
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
