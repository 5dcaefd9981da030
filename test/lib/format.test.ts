import should from 'should';
import fc from 'fast-check';
import * as formatModule from '../../nodes/lib/engine/common/format';
import {
  formatAmounts,
  formatClock,
  formatMoney,
  minorUnits,
  roundAmount,
  roundAmountOrNull,
  timeOfDay,
} from '../../nodes/lib/engine/common/format';
import { parseTimeOfDay } from '../../nodes/lib/engine/tariff/tariff';

describe('format: money to the minor unit', () => {
  it("takes the minor unit of each currency from the package's table (CLDR 48, as Intl has it)", () => {
    should(minorUnits('JPY')).equal(0);
    should(minorUnits('GBP')).equal(2);
    should(minorUnits('BHD')).equal(3);
    should(minorUnits('eur')).equal(2);
  });

  it('falls back to two digits for a missing or malformed currency', () => {
    should(minorUnits(undefined)).equal(2);
    should(minorUnits('EURO')).equal(2);
  });

  it('rounds only the strings, half away from zero, without grouping in text', () => {
    should(formatMoney(1234.5678, 'GBP')).eql({ text: '1234.57', display: 'GBP 1,234.57' });
    should(formatMoney(1234.5, 'JPY')).eql({ text: '1235', display: 'JPY 1,235' });
    should(formatMoney(0.0125, 'BHD')).eql({ text: '0.013', display: 'BHD 0.013' });
    should(formatMoney(2, 'EUR')!.text).equal('2.00');
  });

  it('never shows a negative zero, keeps real negatives', () => {
    should(formatMoney(-0.001, 'GBP')!.text).equal('0.00');
    should(formatMoney(-5.678, 'GBP')!.text).equal('-5.68');
  });

  it('keeps null as null: no price is not zero', () => {
    should(formatMoney(null, 'GBP')).be.null();
    should(formatMoney(NaN, 'GBP')).be.null();
  });

  it('still shows an amount whose currency Intl rejects', () => {
    should(formatMoney(3.14159, 'EURO')).eql({ text: '3.14', display: '3.14 EURO' });
  });

  it('formats every amount of a result under the same keys', () => {
    should(formatAmounts({ net: 10, gross: 12.005 }, 'GBP')).eql({
      net: { text: '10.00', display: 'GBP 10.00' },
      gross: { text: '12.01', display: 'GBP 12.01' },
    });
  });
});

describe('format: wall clock for status lines', () => {
  it('shows the time of day in the given zone, 24-hour', () => {
    const at = Date.parse('2026-03-04T18:35:07Z');
    should(formatClock(at, 'Asia/Kolkata')).equal('00:05:07');
    should(formatClock(at, 'America/New_York')).equal('13:35:07');
  });

  it("reads the package's zone data: both passes of a repeated midnight, an unknown zone named", () => {
    should(formatClock(Date.parse('2024-10-27T00:30:00Z'), 'Atlantic/Azores')).equal('00:30:00');
    should(formatClock(Date.parse('2024-10-27T01:30:00Z'), 'Atlantic/Azores')).equal('00:30:00');
    should(() => formatClock(0, 'Mars/Olympus')).throw(/unknown time zone "Mars\/Olympus"/);
  });
});

type FormatModule = typeof formatModule;

/**
 * Intl as Node 18 has it: no signDisplay 'negative' (a RangeError there). The package
 * promises Node 18, so formatting must not depend on it. `run` gets a fresh copy of the
 * format module, loaded under that Intl: the module keeps its formatters, and those made
 * by earlier tests under this Node's Intl must not stand in.
 */
function withNode18Intl(run: (format: FormatModule) => void): void {
  const Real = Intl.NumberFormat;
  const Node18 = function (locales?: string | string[], options?: Intl.NumberFormatOptions) {
    if ((options?.signDisplay as string) === 'negative') {
      throw new RangeError('Value negative out of range for Intl.NumberFormat options property signDisplay');
    }
    return new Real(locales, options);
  } as unknown as typeof Intl.NumberFormat;
  Intl.NumberFormat = Node18;
  const id = require.resolve('../../nodes/lib/engine/common/format');
  const loaded = require.cache[id];
  delete require.cache[id];
  try {
    run(require(id) as FormatModule);
  } finally {
    Intl.NumberFormat = Real;
    require.cache[id] = loaded;
  }
}

/**
 * The rounding asked for, by hand: the amount's shortest decimal form (what String shows,
 * and what Intl rounds) rounded to `digits` places, ties away from zero, in BigInt.
 */
function slowText(amount: number, digits: number): string {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(amount)))!;
  const mantissa = BigInt(m[1] + (m[2] ?? ''));
  const shift = Number(m[3] ?? 0) - (m[2] ?? '').length + digits;
  let scaled: bigint;
  if (shift >= 0) {
    scaled = mantissa * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    scaled = mantissa / divisor + (2n * (mantissa % divisor) >= divisor ? 1n : 0n);
  }
  const padded = scaled.toString().padStart(digits + 1, '0');
  const magnitude = digits ? `${padded.slice(0, -digits)}.${padded.slice(-digits)}` : padded;
  return amount < 0 && scaled !== 0n ? `-${magnitude}` : magnitude;
}

describe('format: against decimal rounding by hand (fast-check, fixed seed)', () => {
  const currencies = fc.constantFrom(['JPY', 0], ['GBP', 2], ['BHD', 3]);
  // ties of the minor unit and their neighbours, tiny negatives, and any amount
  const amounts = fc.oneof(
    fc.integer({ min: -2_000_000, max: 2_000_000 }).map((n) => n / 2000),
    fc.integer({ min: -10_000, max: 10_000 }).map((n) => n / 1e6),
    fc.double({ min: -1e12, max: 1e12, noNaN: true }),
    fc.constantFrom(0, -0, 0.005, -0.005, 0.0049999, -0.0049999, 1.005, 2.675, -2.675),
  );

  const thisNode = (run: (format: FormatModule) => void) => run(formatModule);
  // en-US is made without Intl; any other locale (the library's formatMoney) through Intl
  for (const [label, wrap, locale] of [
    ['en-US, no Intl', thisNode, 'en-US'],
    ["en-GB, this Node's Intl", thisNode, 'en-GB'],
    ["en-GB, Node 18's Intl", withNode18Intl, 'en-GB'],
  ] as const) {
    it(`text is the amount rounded to the minor unit, never "-0" (${label})`, () => {
      wrap((format) =>
        fc.assert(
          fc.property(amounts, currencies, (amount, [code, digits]) => {
            const formatted = format.formatMoney(amount, code, locale)!;
            should(formatted.text).equal(slowText(amount, digits));
            should(formatted.display.replace(/,/g, '')).equal(
              formatted.text.startsWith('-') ? `-${code} ${formatted.text.slice(1)}` : `${code} ${formatted.text}`,
            );
          }),
          { seed: 1402, numRuns: 4000 },
        ),
      );
    });
  }

  it('formats in another locale under Node 18\'s Intl, never "-0"', () => {
    withNode18Intl((format) => {
      should(format.formatMoney(-0.001, 'GBP', 'de-DE')).eql({ text: '0.00', display: '0,00 GBP' });
      should(format.formatMoney(1234.5678, 'GBP', 'de-DE')).eql({ text: '1234.57', display: '1.234,57 GBP' });
    });
  });
});

/**
 * The slow, obviously correct rounding: the double's exact value as a fraction of
 * BigInts, n = round(x · 10^9) with ties away from zero, then the double nearest n / 10^9.
 */
function referenceRound(x: number): number {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponent === 0 ? fraction : fraction | (1n << 52n);
  const power = (exponent === 0 ? 1 : exponent) - 1075; // x = mantissa · 2^power
  const scale = 10n ** 9n;
  let num = mantissa * scale;
  let den = 1n;
  if (power >= 0) num <<= BigInt(power);
  else den <<= BigInt(-power);
  const n = (2n * num + den) / (2n * den); // half away from zero, on the magnitude
  const digits = n.toString().padStart(10, '0');
  const value = Number(`${digits.slice(0, -9)}.${digits.slice(-9)}`);
  return negative && value !== 0 ? -value : value;
}

describe('format: amounts in messages', () => {
  it('removes binary noise: 0.1 + 0.2, a gross price, a meter total', () => {
    should(roundAmount(0.1 + 0.2)).equal(0.3);
    should(roundAmount(0.17 * 1.2)).equal(0.204);
    should(roundAmount(1488.8099999999977)).equal(1488.81);
    should(roundAmount(-1e-12)).equal(0);
    should(Object.is(roundAmount(-1e-12), 0)).be.true();
    should(roundAmount(0.1234)).equal(0.1234);
    should(roundAmountOrNull(null)).be.null();
    for (const x of [NaN, Infinity, 1e22]) should(Object.is(roundAmount(x), x)).be.true();
  });

  it('equals the exact BigInt rounding to 1e-9 on 20000 generated amounts, and is idempotent (fast-check, fixed seed)', () => {
    const amount = fc.oneof(
      fc.double({ min: -1e7, max: 1e7, noNaN: true }),
      // sums and products of typed-looking numbers: where the noise comes from
      fc
        .tuple(fc.integer({ min: -(10 ** 7), max: 10 ** 7 }), fc.integer({ min: 0, max: 10 ** 4 }), fc.integer({ min: 1, max: 30 }))
        .map(([a, b, v]) => (a / 100) * (1 + v / 100) + b / 1000),
    );
    fc.assert(
      fc.property(amount, (x) => {
        const r = roundAmount(x);
        should(r).equal(referenceRound(x));
        should(roundAmount(r)).equal(r);
        should(Math.abs(r - x)).be.belowOrEqual(5e-10 + Math.abs(x) * 2 ** -52);
      }),
      { seed: 1209, numRuns: 20000 },
    );
  });
});

describe('format: times of day', () => {
  it('HH:mm, with seconds only when they are not 0, and 24:00 as an end', () => {
    should(timeOfDay(22 * 3600)).equal('22:00');
    should(timeOfDay(6 * 3600)).equal('06:00');
    should(timeOfDay(6 * 3600 + 30)).equal('06:00:30');
    should(timeOfDay(86400)).equal('24:00');
    should(timeOfDay(0)).equal('00:00');
  });

  it('reads back through the tariff parser for every second of the day', () => {
    for (let s = 0; s <= 86400; s++) should(parseTimeOfDay(timeOfDay(s), true)).equal(s);
  });
});
