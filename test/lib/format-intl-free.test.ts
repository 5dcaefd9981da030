// The nodes' own text is made without Intl: Intl's first use makes Node load ICU's data,
// ~6 MB of resident memory for as long as Node-RED runs (bench:footprint). Intl stays the
// reference here: the text must be exactly what Intl (en-US) would have made.
import should from 'should';
import fc from 'fast-check';
import { formatAmounts, formatMoney, groupDigits, minorUnits } from '../../nodes/lib/engine/common/format';
import { machineTimeZone } from '../../nodes/lib/engine/time/time';
import { costBatch, costStatus } from '../../nodes/lib/runtime/cost/cost-batch';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../../sim/demo-data';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALL_CODES = [...LETTERS].flatMap((a) => [...LETTERS].flatMap((b) => [...LETTERS].map((c) => a + b + c)));
/** Where CLDR 48 (the package's table) and the CLDR of Node 18.x and 22.9 (44-45) disagree. */
const CHANGED_IN_CLDR_48 = ['COP', 'HUF', 'IDR', 'PKR', 'RSD'];

/** What Intl (en-US) makes of an amount with the package's minor unit: the reference. */
function intlMoney(amount: number, currency: unknown): { text: string; display: string } {
  const digits = minorUnits(currency);
  const fixed = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  const plain = new Intl.NumberFormat('en-US', { ...fixed, useGrouping: false });
  const code = typeof currency === 'string' && /^[A-Za-z]{3}$/.test(currency);
  const display = code
    ? new Intl.NumberFormat('en-US', { ...fixed, style: 'currency', currency: currency.toUpperCase(), currencyDisplay: 'code' })
    : new Intl.NumberFormat('en-US', fixed);
  if (amount <= 0 && Number(plain.format(-amount)) === 0) amount = 0;
  const suffix = !code && currency ? ` ${String(currency)}` : '';
  return { text: plain.format(amount), display: `${display.format(amount)}${suffix}`.replace(/\u00a0/g, ' ') };
}

/** Runs `fn` with every way into ICU poisoned: any use of Intl throws. */
function withoutIntl<T>(fn: () => T): T {
  const saved = {
    Intl: globalThis.Intl,
    number: Number.prototype.toLocaleString,
    date: Date.prototype.toLocaleString,
    compare: String.prototype.localeCompare,
  };
  const refuse = () => {
    throw new Error('Intl was used');
  };
  Object.defineProperty(globalThis, 'Intl', { get: refuse, configurable: true });
  Number.prototype.toLocaleString = refuse;
  Date.prototype.toLocaleString = refuse;
  String.prototype.localeCompare = refuse;
  try {
    return fn();
  } finally {
    Object.defineProperty(globalThis, 'Intl', { value: saved.Intl, configurable: true, writable: true });
    Number.prototype.toLocaleString = saved.number;
    Date.prototype.toLocaleString = saved.date;
    String.prototype.localeCompare = saved.compare;
  }
}

describe('format without Intl (ICU stays unloaded)', function () {
  // 30,000 generated amounts, each against Intl: seconds on a loaded machine
  this.timeout(60_000);
  it('makes exactly the text Intl (en-US) makes, on ties, tiny, huge and negative amounts', () => {
    const currencies = fc.constantFrom<unknown>('GBP', 'eur', 'JPY', 'BHD', 'CLF', 'HUF', 'XYZ', 'EURO', undefined, '', 7);
    const amounts = fc.oneof(
      fc.integer({ min: -2_000_000, max: 2_000_000 }).map((n) => n / 2000), // ties of every minor unit
      fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 1e5 + 0.000005),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.double({ min: -1e-3, max: 1e-3, noNaN: true }),
      fc.constantFrom(0, -0, 1.005, 2.675, -2.675, 9.995, 99999.995, 1e21, 1.5e-7, -1e-9, 5e-324, Number.MAX_VALUE, 123456789.125),
    );
    fc.assert(
      fc.property(amounts, currencies, (amount, currency) => {
        should(formatMoney(amount, currency)).eql(intlMoney(amount, currency), `${amount} ${String(currency)}`);
      }),
      { seed: 2311, numRuns: 30_000 },
    );
  });

  it("has CLDR 48's minor unit for every three-letter code (this Node's Intl, older CLDR differing only where 48 changed)", () => {
    const cldr48 = Number(process.versions.cldr) >= 48;
    const differ = ALL_CODES.filter(
      (code) =>
        minorUnits(code) !== new Intl.NumberFormat('en-US', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits,
    );
    should(differ).eql(cldr48 ? [] : CHANGED_IN_CLDR_48);
    should([minorUnits('JPY'), minorUnits('GBP'), minorUnits('BHD'), minorUnits('UYW'), minorUnits('HUF')]).eql([0, 2, 3, 4, 0]);
  });

  it('groups digits as en-US does', () => {
    for (const n of [0, 7, 999, 1000, 19_295, 8_000_000, 1234567890123]) should(groupDigits(n)).equal(n.toLocaleString('en-US'));
  });

  it("the nodes' text never touches Intl: money, counts, the machine's zone, a cost result and its status", () => {
    const { tariffs } = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS)));
    const t0 = Date.parse('2026-03-04T10:00:00Z');
    withoutIntl(() => {
      should(formatMoney(-1234.5678, 'GBP')).eql({ text: '-1234.57', display: '-GBP 1,234.57' });
      should(formatAmounts({ net: 1, gross: null }, 'JPY')).eql({ net: { text: '1', display: 'JPY 1' }, gross: null });
      should(groupDigits(19_295)).equal('19,295');
      should(machineTimeZone()).be.a.String();
      for (const tariff of tariffs) {
        const { result } = costBatch(
          [
            [t0, 100],
            [t0 + 3600_000, 101.5],
          ],
          undefined,
          tariff,
          'Europe/London',
          t0 + 7200_000,
        );
        should(costStatus(result, '2026-03-04').text).match(/^2026-03-04: [A-Z]{3} \d/);
      }
    });
    // the poison is real: the same call with Intl asked for throws
    should(() => withoutIntl(() => formatMoney(1, 'GBP', 'de-DE'))).throw('Intl was used');
  });
});
