// priceList (semantics rule 50) as an attacker feeds it: every wrong entry refused with an
// error naming it, nothing read from prototypes, sizes capped; and what a good list holds.
import should from 'should';
import { MAX_PRICE_LIST_ENTRIES, PriceList, priceList } from '../../nodes/lib/engine/prices/price-list';

const Q = 15 * 60_000;
const T0 = Date.UTC(2026, 2, 29, 0, 0);
const quarters = (n: number, price = (k: number) => k / 100) =>
  Array.from({ length: n }, (_, k) => ({ start: T0 + k * Q, price: price(k) }));

describe('priceList', () => {
  it('reads plain entries: end defaults to the next start, the last one to the resolution', () => {
    const list = priceList(quarters(3), { resolution: Q });
    should(list.length).equal(3);
    should(list.from).equal(T0);
    should(list.to).equal(T0 + 3 * Q);
    should(list.entries()).eql([
      { start: T0, end: T0 + Q, price: 0 },
      { start: T0 + Q, end: T0 + 2 * Q, price: 0.01 },
      { start: T0 + 2 * Q, end: T0 + 3 * Q, price: 0.02 },
    ]);
    should(list.gaps).eql([]);
    should(JSON.parse(JSON.stringify(list))).eql(list.entries());
  });

  it('takes mixed resolutions, ISO text, Dates, and reports gaps', () => {
    const list = priceList([
      { start: new Date(T0), end: T0 + Q, price: 1 },
      { start: '2026-03-29T00:15:00Z', end: '2026-03-29T00:45:00Z', price: -2 },
      { start: T0 + 3600e3, end: T0 + 7200e3, price: 0 },
    ]);
    should(list.gaps).eql([{ from: T0 + 45 * 60_000, to: T0 + 3600e3 }]);
    should(list.indexAt(T0)).equal(0);
    should(list.indexAt(T0 + Q)).equal(1);
    should(list.indexAt(T0 + 50 * 60_000)).equal(-1);
    should(list.indexAt(T0 + 7200e3)).equal(-1);
    should(list.indexAt(T0 - 1)).equal(-1);
    should(list.indexAt(T0 + 7200e3 - 1)).equal(2);
  });

  it('returns a PriceList as it is, and a list cannot be changed', () => {
    const list = priceList(quarters(2), { resolution: Q });
    should(priceList(list)).equal(list);
    should(list).be.instanceOf(PriceList);
    should(Object.isFrozen(list)).be.true();
    should(Object.isFrozen(list.gaps)).be.true();
  });

  const refused: Array<[string, () => unknown, RegExp]> = [
    ['not an array', () => priceList({ start: T0, price: 1 }), /must be an array of \{ start, end\?, price \} entries, got an object/],
    [
      'an entry that is no object',
      () => priceList([quarters(1)[0], 5]),
      /price list entry 1 must be a \{ start, end\?, price \} object, got 5/,
    ],
    [
      'a string for a price',
      () => priceList([{ start: T0, end: T0 + Q, price: '0.12' }]),
      /price list entry 0 \(2026-03-29T00:00:00.000Z\): price must be a finite number per kWh, got the string "0.12"/,
    ],
    ['NaN', () => priceList([{ start: T0, end: T0 + Q, price: NaN }]), /entry 0 .*price must be a finite number per kWh, got NaN/],
    ['Infinity', () => priceList([...quarters(3), { start: T0 + 3 * Q, end: T0 + 4 * Q, price: Infinity }]), /entry 3 .*got Infinity/],
    ['no price', () => priceList([{ start: T0, end: T0 + Q }]), /entry 0 .*got nothing/],
    [
      'a bad start',
      () => priceList([{ start: 'yesterday', price: 1 }]),
      /price list entry 0: start must be epoch milliseconds, a Date or an ISO 8601 string, got "yesterday"/,
    ],
    ['a bad end', () => priceList([{ start: T0, end: {}, price: 1 }]), /price list entry 0: end must be epoch milliseconds/],
    [
      'a duplicate quarter hour',
      () => priceList([...quarters(4), { start: T0 + 3 * Q, price: 9 }], { resolution: Q }),
      /price list entry 4 \(2026-03-29T00:45:00.000Z\) starts at the same instant as entry 3/,
    ],
    [
      'out of order',
      () =>
        priceList(
          [
            { start: T0 + Q, price: 1 },
            { start: T0, price: 1 },
          ],
          { resolution: Q },
        ),
      /entry 1 \(2026-03-29T00:00:00.000Z\) starts before entry 0/,
    ],
    [
      'an overlap',
      () =>
        priceList(
          [
            { start: T0, end: T0 + 2 * Q, price: 1 },
            { start: T0 + Q, price: 1 },
          ],
          { resolution: Q },
        ),
      /entry 0 .*ends after entry 1 starts .*must not overlap/,
    ],
    [
      'an end before the start',
      () => priceList([{ start: T0, end: T0, price: 1 }]),
      /entry 0 .*ends \(2026-03-29T00:00:00.000Z\) before it starts/,
    ],
    [
      'a last entry without end or resolution',
      () => priceList(quarters(2)),
      /price list entry 1 .*the last, needs an end \(or give the list's resolution\)/,
    ],
    ['a bad resolution', () => priceList(quarters(2), { resolution: -Q }), /resolution must be a positive number of milliseconds/],
    ['20,001 entries', () => priceList(quarters(20_001), { resolution: Q }), /has 20,001 entries, more than the 20,000 a list may hold/],
  ];
  for (const [what, run, message] of refused) {
    it(`refuses ${what}, naming the entry`, () => {
      should(run).throw(message);
    });
  }

  it('reads no field from a prototype: __proto__ keys and polluted prototypes are no fields', () => {
    const hostile = JSON.parse(`[{"start": ${T0}, "__proto__": {"price": 1, "end": ${T0 + Q}}}]`);
    should(() => priceList(hostile)).throw(/price list entry 0 .*price must be a finite number per kWh, got nothing/);
    const inherited = Object.create({ price: 5 });
    inherited.start = T0;
    inherited.end = T0 + Q;
    should(() => priceList([inherited])).throw(/got nothing/);
    // a __proto__ key beside real fields changes nothing
    const list = priceList(JSON.parse(`[{"start": ${T0}, "end": ${T0 + Q}, "price": 0.5, "__proto__": {"price": 9}}]`));
    should(list.entries()).eql([{ start: T0, end: T0 + Q, price: 0.5 }]);
    should(({} as { price?: unknown }).price).be.undefined();
  });

  it(`holds up to ${MAX_PRICE_LIST_ENTRIES} entries`, () => {
    const list = priceList(quarters(MAX_PRICE_LIST_ENTRIES), { resolution: Q });
    should(list.length).equal(MAX_PRICE_LIST_ENTRIES);
    should(list.indexAt(T0 + 19_999 * Q + 1)).equal(19_999);
  });
});
