// readPriceList: the price lists Node-RED users already wire, read exactly as the peers' nodes
// send them (test/fixtures/price-inputs: power-saver's own receive-price inputs, a quarter-hour
// Tibber answer with a 23-hour day), against power-saver's own conversion of the same prices;
// generated lists against a slow reference; and hostile lists, each refused with an error
// naming the entry.
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';
import { carriesPriceList, readPriceList, PriceInputError, type PriceEntry } from '../../nodes/lib/engine/prices/price-inputs';
import { MAX_PRICE_ENTRIES } from '../../nodes/lib/engine/common/limits';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const fixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));
const Q = 15 * 60_000;
const H = 60 * 60_000;

/** power-saver's conversion of the Tibber and Nord Pool fixtures (its receive-price tests expect it). */
function powerSaverConverted(): PriceEntry[] {
  const { priceData } = fixture('power-saver/converted-prices.json') as {
    priceData: Array<{ start: string; value: number; end?: string }>;
  };
  return priceData.map((p, i) => {
    const from = Date.parse(p.start);
    const to = p.end !== undefined ? Date.parse(p.end) : Date.parse(priceData[i + 1].start);
    return { from, to, price: p.value };
  });
}

function errorOf(fn: () => unknown): PriceInputError {
  try {
    fn();
  } catch (e) {
    should(e).be.instanceOf(PriceInputError);
    return e as PriceInputError;
  }
  throw new Error('expected a PriceInputError');
}

describe('readPriceList: the peers own formats', () => {
  const expected = powerSaverConverted();

  it('power-saver: its converted priceData (ps-receive-price output) as it is', () => {
    const list = readPriceList({ payload: fixture('power-saver/converted-prices.json') });
    should(list.source).equal('power-saver');
    should(list.entries).eql(expected);
    should(list.entries.length).equal(48);
    should(list.gaps).eql([]);
    should(list.warnings).eql([]);
  });

  for (const [name, wrap] of [
    ['tibber-prices.json', (m: unknown) => m],
    ['tibber-prices-single-home.json', (m: unknown) => m],
    ['nordpool-event-prices.json', (m: unknown) => m],
    ['nordpool-prices-in-payload.json', (m: unknown) => ({ payload: (m as { payload: unknown }).payload })],
    ['nordpool-current-state-prices.json', (m: unknown) => ({ payload: m })],
  ] as Array<[string, (m: unknown) => unknown]>) {
    it(`${name}: the same prices as power-saver's conversion`, () => {
      const list = readPriceList(wrap(fixture(`price-inputs/${name}`)));
      should(list.source).equal(name.startsWith('tibber') ? 'tibber' : 'nordpool');
      if (name === 'nordpool-current-state-prices.json' || name === 'nordpool-prices-in-payload.json') {
        // Another state of the sensor (power-saver tests other things with it): its own raw_today and raw_tomorrow.
        const msg = wrap(fixture(`price-inputs/${name}`)) as {
          payload: { attributes: Record<string, Array<{ start: string; end: string; value: number }>> };
        };
        const raw = [...msg.payload.attributes.raw_today, ...msg.payload.attributes.raw_tomorrow];
        should(list.entries).eql(raw.map((r) => ({ from: Date.parse(r.start), to: Date.parse(r.end), price: r.value })));
      } else {
        should(list.entries).eql(expected);
      }
    });
  }

  it('Nord Pool: the currency the sensor states, data.attributes directly, prices of 0 kept', () => {
    const list = readPriceList(fixture('price-inputs/nordpool-zero-prices.json'));
    should(list.currency).equal('NOK');
    should(list.entries.length).equal(48);
    should(list.entries.some((e) => e.price === 0.01)).be.true();
    should(list.entries[0]).eql({
      from: Date.parse('2022-11-10T00:00:00+01:00'),
      to: Date.parse('2022-11-10T01:00:00+01:00'),
      price: 0.36,
    });
  });

  it('Nord Pool: a unit set against the one the sensor states is an error; the stated MWh is read per MWh', () => {
    const msg = fixture('price-inputs/nordpool-event-prices.json');
    should(errorOf(() => readPriceList(msg, { unit: 'MWh' })).message).match(
      /says its prices are per kWh.*"NOK\/kWh".*setting says per MWh/,
    );
    const mwh = JSON.parse(JSON.stringify(msg)) as { data: { new_state: { attributes: Record<string, unknown> } } };
    const attrs = mwh.data.new_state.attributes;
    attrs.unit_of_measurement = 'NOK/MWh';
    for (const day of ['raw_today', 'raw_tomorrow']) for (const e of attrs[day] as Array<{ value: number }>) e.value *= 1000;
    should(readPriceList(mwh).entries.map((e) => Math.round(e.price * 1e6) / 1e6)).eql(powerSaverConverted().map((e) => e.price));
  });

  it('Nord Pool: hours the sensor has no price for (null) are gaps, reported, not zeros', () => {
    const msg = JSON.parse(JSON.stringify(fixture('price-inputs/nordpool-event-prices.json'))) as {
      data: { new_state: { attributes: { raw_today: Array<{ value: number | null }> } } };
    };
    msg.data.new_state.attributes.raw_today[5].value = null;
    const list = readPriceList(msg);
    should(list.entries.length).equal(47);
    should(list.gaps).eql([{ from: Date.parse('2021-10-11T05:00:00+02:00'), to: Date.parse('2021-10-11T06:00:00+02:00') }]);
    should(list.warnings.join(' ')).match(
      /1 gap with no price in the list, the first from 2021-10-11T03:00:00.000Z to 2021-10-11T04:00:00.000Z/,
    );
  });

  it('Tibber quarter hours over a 23-hour day: 92 + 96 quarters, back to back, total by default, energy when set', () => {
    const msg = fixture('price-inputs/tibber-quarter-hours-23h.json');
    const list = readPriceList(msg);
    should(list.entries.length).equal(92 + 96);
    should(list.from).equal(Date.parse('2026-03-29T00:00:00+01:00'));
    should(list.to).equal(Date.parse('2026-03-31T00:00:00+02:00'));
    for (let i = 0; i < list.entries.length; i++) {
      should(list.entries[i].to - list.entries[i].from).equal(Q);
      if (i > 0) should(list.entries[i].from).equal(list.entries[i - 1].to);
    }
    const info = (
      msg as {
        payload: { viewer: { homes: Array<{ currentSubscription: { priceInfo: { today: Array<{ total: number; energy: number }> } } }> } };
      }
    ).payload.viewer.homes[0].currentSubscription.priceInfo;
    should(list.entries[0].price).equal(info.today[0].total);
    should(readPriceList(msg, { tibberPrice: 'energy' }).entries[0].price).equal(info.today[0].energy);
    // The priceInfo alone, and a bare list of its entries (tibber-data's getTodaysEnergyPrices)
    should(readPriceList({ payload: { priceInfo: info } }).entries).eql(list.entries);
    should(readPriceList({ payload: info.today }).entries).eql(list.entries.slice(0, 92));
  });

  it("power-saver's own quarter-hour input (bug 231) and its today/tomorrow input", () => {
    const list = readPriceList({ payload: fixture('power-saver/bug-231-input.json') });
    should(list.entries.every((e) => e.to - e.from === Q)).be.true();
    const days = readPriceList({
      payload: {
        today: [
          { start: '2021-06-21T00:00:00+02:00', value: 1 },
          { start: '2021-06-21T01:00:00+02:00', value: 2 },
        ],
        tomorrow: [{ start: '2021-06-21T02:00:00+02:00', value: 3 }],
      },
    });
    should(days.entries.map((e) => [e.price, (e.to - e.from) / H])).eql([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
  });

  it('a plain list: start, optional end, price; per MWh when set; epoch ms and mixed resolutions', () => {
    const t0 = Date.parse('2026-10-25T00:00:00+02:00');
    const list = readPriceList(
      {
        payload: [
          { start: t0, price: 95 },
          { start: t0 + H, price: 80 },
          { start: t0 + 2 * H, price: 60 },
          { start: t0 + 2 * H + Q, price: 70, end: t0 + 2 * H + 2 * Q },
        ],
      },
      { unit: 'MWh' },
    );
    should(list.entries).eql([
      { from: t0, to: t0 + H, price: 0.095 },
      { from: t0 + H, to: t0 + 2 * H, price: 0.08 },
      { from: t0 + 2 * H, to: t0 + 2 * H + Q, price: 0.06 },
      { from: t0 + 2 * H + Q, to: t0 + 2 * H + 2 * Q, price: 0.07 },
    ]);
    const shuffled = readPriceList({
      payload: [
        { start: t0 + H, end: t0 + 2 * H, price: 2 },
        { start: t0, end: t0 + H, price: 1 },
      ],
    });
    should(shuffled.reordered).be.true();
    should(shuffled.entries.map((e) => e.price)).eql([1, 2]);
  });
});

describe('readPriceList: generated lists against a slow reference', function () {
  this.timeout(60_000); // ~2 s alone; the shared machine under the full tier took over 10
  it('1,000 lists of mixed resolutions, shuffled, with and without ends: every minute priced as given', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let holes = 0;
    for (let c = 0; c < 1000; c++) {
      const steps = [Q, 2 * Q, H];
      let t = Date.UTC(2026, 2, 28, 22) + Math.floor(rnd() * 96) * Q;
      const given: Array<{ start: string; end?: string; price: number }> = [];
      const minutes = new Map<number, number>();
      const n = 2 + Math.floor(rnd() * 30);
      let step = steps[Math.floor(rnd() * 3)];
      for (let i = 0; i < n; i++) {
        if (rnd() < 0.1) step = steps[Math.floor(rnd() * 3)];
        const price = Math.round((rnd() * 2 - 0.4) * 1e4) / 1e4;
        const withEnd = rnd() < 0.3 || i === n - 1;
        given.push({ start: new Date(t).toISOString(), ...(withEnd ? { end: new Date(t + step).toISOString() } : {}), price });
        for (let m = t; m < t + step; m += 60_000) minutes.set(m, price);
        t += step;
      }
      const shuffled = rnd() < 0.5 ? [...given].reverse() : given;
      let list;
      try {
        list = readPriceList({ payload: shuffled });
      } catch (e) {
        // A resolution change right after an entry without an end reads as a hole: the only refusal allowed here.
        should((e as Error).message).match(/a hole of/);
        holes++;
        continue;
      }
      const read = new Map<number, number>();
      for (const e of list.entries) for (let m = e.from; m < e.to; m += 60_000) read.set(m, e.price);
      should([...read.entries()].sort((a, b) => a[0] - b[0])).eql([...minutes.entries()].sort((a, b) => a[0] - b[0]));
    }
    // Only a shorter step after a longer one with no end between reads as a hole: a few of the lists.
    should(holes).be.within(1, 150);
  });
});

describe('readPriceList: hostile lists, each refused naming the entry', () => {
  const t0 = Date.parse('2026-11-28T00:00:00+01:00');
  const quarters = (n: number, price = (i: number) => 0.1 + (i % 7) / 100): Array<{ start: string; value: number }> =>
    Array.from({ length: n }, (_, i) => ({ start: new Date(t0 + i * Q).toISOString(), value: price(i) }));

  it('a hole in quarter hours', () => {
    const list = quarters(96);
    list.splice(10, 3);
    const err = errorOf(() => readPriceList({ payload: { priceData: list } }));
    should(err.message).equal(
      'msg.payload.priceData[9] (2026-11-28T01:15:00.000Z): the next price starts 60 min later, where the entries around it last 15 min: a hole of 45 min with no price. Send the whole list, or give each entry its end',
    );
    should(err.at).equal(t0 + 9 * Q);
  });

  it('a duplicate quarter hour', () => {
    const list = quarters(96);
    list.splice(40, 0, { ...list[40], value: 0.5 });
    should(errorOf(() => readPriceList({ payload: { priceData: list } })).message).equal(
      'msg.payload.priceData[41] starts at 2026-11-28T09:00:00.000Z, as msg.payload.priceData[40] does: a duplicate price; send each interval once',
    );
  });

  it('overlapping entries with ends', () => {
    const err = errorOf(() =>
      readPriceList({
        payload: [
          { start: t0, end: t0 + H, price: 1 },
          { start: t0 + Q, end: t0 + H, price: 1 },
        ],
      }),
    );
    should(err.message).match(/^msg\.payload\[0\] \(2026-11-27T23:00:00\.000Z to 2026-11-28T00:00:00\.000Z\) overlaps msg\.payload\[1\]/);
  });

  it('one price in the wrong unit (per MWh among per kWh)', () => {
    const list = quarters(96);
    list[57].value = 95.3;
    should(errorOf(() => readPriceList({ payload: { priceData: list } })).message).equal(
      "msg.payload.priceData[57] (2026-11-28T13:15:00.000Z): 95.3 per kWh is over 300× the list's other prices (75 % are at most 0.15 per kWh): a price per MWh among prices per kWh? The list is refused",
    );
  });

  it('a whole list per MWh read per kWh: a warning, not a silent bill; not for a currency of large numbers', () => {
    const list = readPriceList({ payload: { priceData: quarters(96, (i) => 80 + i) } });
    should(list.warnings).eql([
      'the prices look 1,000× too high for prices per kWh (75 % are at most 151): are they per MWh? Set the unit to MWh',
    ]);
    should(readPriceList({ payload: { priceData: quarters(96, (i) => 80 + i) } }, { currency: 'HUF' }).warnings).eql([]);
    should(readPriceList({ payload: { priceData: quarters(96, () => 0.2) } }, { unit: 'MWh' }).warnings[0]).match(
      /1,000× too low for prices per MWh.*per kWh\? Set the unit to kWh/,
    );
  });

  it(`20,000 entries: refused before any is read (at most ${MAX_PRICE_ENTRIES})`, () => {
    should(errorOf(() => readPriceList({ payload: { priceData: quarters(20_000) } })).message).equal(
      'too many prices: 20000 entries, at most 10000 a message (62 days of quarter hours are 5,952)',
    );
  });

  it('__proto__ keys: own fields only, nothing polluted', () => {
    const proto = JSON.parse('{"payload":{"__proto__":{"priceData":[{"start":"2026-11-28T00:00:00Z","value":1}]}}}') as unknown;
    should(errorOf(() => readPriceList(proto)).message).match(/^no price list in the message/);
    const entry = JSON.parse('{"payload":[{"__proto__":{"start":"2026-11-28T00:00:00Z","price":1}}]}') as unknown;
    // a list whose first entry has no own start is no price list (the nodes treat it as they always did)
    should(errorOf(() => readPriceList(entry)).message).match(/^no price list in the message/);
    should(carriesPriceList(entry)).be.false();
    const inherited = { payload: [Object.create({ start: '2026-11-28T00:00:00Z', price: 1 }) as object] };
    should(errorOf(() => readPriceList(inherited)).message).match(/^no price list in the message/);
    const later = {
      payload: [{ start: '2026-11-28T00:00:00Z', price: 1 }, Object.create({ start: '2026-11-28T01:00:00Z', price: 1 }) as object],
    };
    should(errorOf(() => readPriceList(later)).message).equal('msg.payload[1].start must be an ISO 8601 time or epoch ms, got undefined');
    should(({} as Record<string, unknown>).priceData).be.undefined();
    should(({} as Record<string, unknown>).start).be.undefined();
  });

  it('strings for numbers, and other garbage', () => {
    const list = quarters(8);
    (list[3] as { value: unknown }).value = '0.25';
    should(errorOf(() => readPriceList({ payload: { priceData: list } })).message).equal(
      'msg.payload.priceData[3].value must be a number (a number, not text), got "0.25"',
    );
    should(errorOf(() => readPriceList({ payload: [{ start: 'tomorrow', price: 1 }] })).message).equal(
      'msg.payload[0].start must be an ISO 8601 time or epoch ms, got "tomorrow"',
    );
    should(errorOf(() => readPriceList({ payload: { priceData: 'x' } })).message).equal(
      'msg.payload.priceData must be a list of prices, got "x"',
    );
    should(errorOf(() => readPriceList({ payload: { priceData: [] } })).message).equal('the message holds no prices (every list is empty)');
    should(errorOf(() => readPriceList({ payload: [{ start: t0, price: 1 }] })).message).match(
      /is the only price and has no end: give its end/,
    );
    should(errorOf(() => readPriceList({ payload: [{ start: t0, end: t0, price: 1 }] })).message).match(
      /\.end \(.*\) must come after its start/,
    );
    should(errorOf(() => readPriceList({ payload: { priceData: [null] } })).message).equal(
      'msg.payload.priceData[0] must be an object with a start and a price, got null',
    );
    should(errorOf(() => readPriceList({ payload: [{ start: t0, end: t0 + H, price: Infinity }] })).message).match(
      /must be a number, got Infinity/,
    );
    should(errorOf(() => readPriceList('x')).message).match(/^no price list in the message/);
    // readings and other messages of the nodes are no price list
    for (const msg of [
      { payload: [[1, 2]] },
      { payload: [{ ts: 1, value: 2 }] },
      { payload: 'on' },
      { payload: 5, topic: '1' },
      { payload: { duration: 60 } },
      { payload: [] },
    ]) {
      should(carriesPriceList(msg)).be.false(JSON.stringify(msg));
    }
  });
});
