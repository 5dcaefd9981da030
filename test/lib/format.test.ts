import should from 'should';
import { formatAmounts, formatClock, formatMoney, minorUnits } from '../../nodes/lib/format';

describe('format: money to the minor unit', () => {
  it('takes the minor unit of each currency from Intl (ISO 4217)', () => {
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
});
