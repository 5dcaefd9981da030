// The kept prices of an easy-prices node: lists laid over each other against a minute-walk
// reference (thousands of generated lists), 62 days of history, the compact stored line read
// back exactly and refused when tampered, and the PriceBook's store: a list that is wrong
// leaves the kept prices as they were, saves at most once a minute, a restart keeps them.
import should from 'should';
import { decodePrices, encodePrices, HISTORY_DAYS, MAX_HISTORY_ENTRIES, mergePrices } from '../../nodes/lib/engine/prices/price-history';
import type { PriceEntry } from '../../nodes/lib/engine/prices/price-inputs';
import { PriceBook, BookStore } from '../../nodes/lib/runtime/prices/price-book';

const Q = 15 * 60_000;
const H = 60 * 60_000;
const DAY = 24 * H;
const T0 = Date.parse('2026-11-28T00:00:00+01:00');

function lcg(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** A sorted list of entries apart, some gaps, lengths of 15, 30 or 60 minutes. */
function generated(rnd: () => number, from: number, n: number): PriceEntry[] {
  const out: PriceEntry[] = [];
  let t = from;
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.1) t += Q * Math.floor(1 + rnd() * 4);
    const len = [Q, 2 * Q, H][Math.floor(rnd() * 3)];
    out.push({ from: t, to: t + len, price: Math.round((rnd() * 2 - 0.5) * 1e4) / 1e4 });
    t += len;
  }
  return out;
}

const quarterMap = (entries: readonly PriceEntry[]): Map<number, number> => {
  const m = new Map<number, number>();
  for (const e of entries) for (let t = e.from; t < e.to; t += Q) m.set(t, e.price); // every instant of these lists is on quarter hours
  return m;
};

describe('mergePrices: a new list laid over the kept prices', () => {
  it('2,000 generated pairs against a quarter-hour walk: the new list wins where it prices, the old stays elsewhere', () => {
    const rnd = lcg(11);
    for (let c = 0; c < 2000; c++) {
      const kept = generated(rnd, T0 + Math.floor(rnd() * 8) * Q, Math.floor(rnd() * 20));
      const incoming = generated(rnd, T0 + Math.floor(rnd() * 24) * Q, Math.floor(rnd() * 20));
      const keepFrom = rnd() < 0.3 ? T0 + Math.floor(rnd() * 16) * Q : -Infinity;
      const merged = mergePrices(kept, incoming, keepFrom);
      // the reference: minutes of the old, overwritten by the new, then the old days let go
      const expected = quarterMap(kept);
      for (const [t, p] of quarterMap(incoming)) expected.set(t, p);
      for (const e of merged) {
        should(e.to > keepFrom).be.true();
        should(e.to > e.from).be.true();
      }
      for (let k = 1; k < merged.length; k++) should(merged[k].from >= merged[k - 1].to).be.true();
      // with nothing let go, every minute is the reference's; letting go drops whole entries that end by keepFrom
      const whole = mergePrices(kept, incoming, -Infinity);
      should([...quarterMap(whole).entries()].sort((a, b) => a[0] - b[0])).eql([...expected.entries()].sort((a, b) => a[0] - b[0]));
      should(merged).eql(whole.filter((e) => e.to > keepFrom));
    }
  });

  it('today then tomorrow: merged back to back; the same list again changes nothing', () => {
    const today = Array.from({ length: 96 }, (_, i) => ({ from: T0 + i * Q, to: T0 + (i + 1) * Q, price: i / 100 }));
    const tomorrow = today.map((e) => ({ from: e.from + DAY, to: e.to + DAY, price: e.price + 1 }));
    const both = mergePrices(today, tomorrow, -Infinity);
    should(both.length).equal(192);
    should(mergePrices(both, tomorrow, -Infinity)).eql(both);
  });

  it(`at most ${MAX_HISTORY_ENTRIES} entries: the newest`, () => {
    const many = Array.from({ length: MAX_HISTORY_ENTRIES + 10 }, (_, i) => ({ from: T0 + i * Q, to: T0 + (i + 1) * Q, price: 1 }));
    const merged = mergePrices([], many, -Infinity);
    should(merged.length).equal(MAX_HISTORY_ENTRIES);
    should(merged[0].from).equal(T0 + 10 * Q);
  });
});

describe('encodePrices / decodePrices: the stored line', () => {
  it('round trip of generated lists, exact; 62 days of quarter hours in ~45 kB', () => {
    const rnd = lcg(5);
    for (let c = 0; c < 300; c++) {
      const entries = generated(rnd, T0, Math.floor(rnd() * 50));
      should(decodePrices(encodePrices(entries), T0)).eql({ entries, problem: null, ahead: null });
    }
    const days = Array.from({ length: HISTORY_DAYS * 96 }, (_, i) => ({
      from: T0 + i * Q,
      to: T0 + (i + 1) * Q,
      price: Math.round(Math.sin(i) * 1e4) / 1e4,
    }));
    const line = encodePrices(days);
    should(line.length).be.below(50_000);
    should(decodePrices(line, T0).entries).eql(days);
  });

  it('a tampered line is refused whole, saying why', () => {
    const line = encodePrices([
      { from: T0, to: T0 + Q, price: 0.1 },
      { from: T0 + Q, to: T0 + 2 * Q, price: 0.2 },
    ]);
    should(decodePrices(42, T0).problem).equal('not a line of text');
    should(decodePrices(line.replace('0.2', 'x'), T0).problem).match(/^a run that is not/);
    should(decodePrices(line.replace('0.2', '1e999'), T0).problem).match(/a price that is not a number/);
    should(decodePrices(`${line};${line}`, T0).problem).match(/a duplicate price/);
    should(decodePrices(`-5000000000000/${Q}:1`, T0).problem).match(/^a run at 1811/);
    should(decodePrices('x'.repeat(500_000), T0).problem).match(/longer than/);
    should(decodePrices('__proto__/1:1', T0).problem).match(/^a run that is not/);
  });
});

class MemoryStore implements BookStore {
  value: unknown;
  saves = 0;
  load(): Promise<unknown> {
    return Promise.resolve(this.value === undefined ? undefined : JSON.parse(JSON.stringify(this.value)));
  }
  save(value: unknown): Promise<void> {
    this.saves++;
    this.value = JSON.parse(JSON.stringify(value));
    return Promise.resolve();
  }
}

const quarterList = (from: number, n: number, price = (i: number) => 0.1 + (i % 9) / 100) => ({
  payload: { priceData: Array.from({ length: n }, (_, i) => ({ start: new Date(from + i * Q).toISOString(), value: price(i) })) },
});

describe('PriceBook', () => {
  it('today, then tomorrow at 13:00: merged, told, saved; a restart keeps both', async () => {
    const store = new MemoryStore();
    let now = T0 + 10 * H;
    const warnings: string[] = [];
    const book = new PriceBook({ input: {}, store, now: () => now, warn: (w) => warnings.push(w) });
    await book.ready;
    let told = 0;
    book.subscribe(() => told++);
    book.accept(quarterList(T0, 96));
    should(book.knownUntil(now)).equal(T0 + DAY);
    now = T0 + 13 * H;
    const second = book.accept(quarterList(T0 + DAY, 96));
    should(second.changed).be.true();
    should(second.knownUntil).equal(T0 + 2 * DAY);
    should(told).equal(2);
    should(book.accept(quarterList(T0 + DAY, 96)).changed).be.false();
    should(told).equal(2);
    await book.close();
    const again = new PriceBook({ input: {}, store, now: () => now + H, warn: (w) => warnings.push(w) });
    await again.ready;
    should(again.prices()).eql(book.prices());
    should(again.knownUntil(now + H)).equal(T0 + 2 * DAY);
    should(warnings).eql([]);
  });

  it('a wrong list leaves the kept prices as they were', async () => {
    const book = new PriceBook({ input: {}, now: () => T0, warn: () => undefined });
    book.accept(quarterList(T0, 96));
    const before = book.prices();
    const bad = quarterList(T0 + DAY, 96);
    bad.payload.priceData.splice(3, 0, bad.payload.priceData[3]);
    should(() => book.accept(bad)).throw(/priceData\[4\] starts at .* a duplicate price/);
    should(book.prices()).equal(before);
    should(book.version).equal(1);
    // a list wholly older than the days kept: said, not dropped in silence
    should(() => book.accept(quarterList(T0 - 70 * DAY, 96))).throw(
      "the list ends at 2026-09-19T23:00:00.000Z, before the 62 days kept: nothing of it is kept (is this machine's clock right?)",
    );
    should(book.prices()).equal(before);
  });

  it('days older than 62 are let go as lists come', async () => {
    let now = T0;
    const book = new PriceBook({ input: {}, now: () => now, warn: () => undefined });
    for (let d = 0; d < 70; d++) {
      now = T0 + d * DAY + 13 * H;
      book.accept(quarterList(T0 + d * DAY, 96));
    }
    // the last list came at day 69, 13:00: the first price kept is the quarter ending after 62 days before
    should(book.prices()[0].from).equal(T0 + (69 - HISTORY_DAYS) * DAY + 13 * H);
    should(book.prices().length).equal(HISTORY_DAYS * 96 + 96 - 13 * 4);
  });

  it('saves at most once a minute however many lists come, and a tampered store is dropped with a warning', async () => {
    const store = new MemoryStore();
    const book = new PriceBook({ input: {}, store, now: () => T0, warn: () => undefined });
    await book.ready;
    for (let k = 0; k < 20; k++) book.accept(quarterList(T0, 96, (i) => 0.1 + k / 100 + i / 1000));
    await new Promise((r) => setTimeout(r, 20));
    should(store.saves).equal(1);
    for (let k = 0; k < 20; k++) book.accept(quarterList(T0, 96, (i) => 0.2 + k / 100 + i / 1000));
    await new Promise((r) => setTimeout(r, 20));
    should(store.saves).equal(1); // the next save waits a minute from the first
    await book.close();
    should(store.saves).equal(2);
    should(decodePrices((store.value as { prices: string }).prices, T0).entries).eql(book.prices());
    const warnings: string[] = [];
    store.value = { version: 1, prices: `${T0}/${Q}:1,2;${T0}/${Q}:3` };
    const tampered = new PriceBook({ input: {}, store, now: () => T0, warn: (w) => warnings.push(w) });
    await tampered.ready;
    should(tampered.prices()).eql([]);
    should(warnings).eql([
      `the kept prices were dropped (stored price 3 starts at 2026-11-27T23:00:00.000Z, as stored price 1 does: a duplicate price; send each interval once): send the price list again`,
    ]);
  });
});

describe('PriceBook: the kept prices under a clock behind or ahead (the rule every store follows)', () => {
  /** 67 days of quarter hours to tomorrow's end, each day's list at 13:00 the day before, saved at the last. */
  async function kept(store: MemoryStore): Promise<{ prices: readonly PriceEntry[]; savedAt: number }> {
    let now = T0;
    const book = new PriceBook({ input: {}, store, now: () => now, warn: () => undefined });
    await book.ready;
    for (let d = -65; d <= 1; d++) {
      now = T0 + (d - 1) * DAY + 13 * H;
      book.accept(quarterList(T0 + d * DAY, 96));
    }
    await book.close();
    return { prices: book.prices(), savedAt: now };
  }

  it('a restart with the clock 4 months behind keeps every price, says so once; days are let go only once the clock is right and a list comes', async () => {
    const store = new MemoryStore();
    const before = await kept(store);
    should(before.prices.length).equal(HISTORY_DAYS * 96 + 96 + 11 * 4); // the first kept ends after 62 days before the last list
    should((store.value as { savedAt: number }).savedAt).equal(before.savedAt);
    let now = before.savedAt - 120 * DAY; // no real-time clock: booted 4 months behind
    const warnings: string[] = [];
    const book = new PriceBook({ input: {}, store, now: () => now, warn: (w) => warnings.push(w) });
    await book.ready;
    should(book.prices()).eql(before.prices);
    should(warnings).have.length(1);
    should(warnings[0]).match(
      /^kept prices lie 120 days ahead of this machine's clock \(2026-11-28T12:00:00\.000Z; the clock reads 2026-07-31T12:00:00\.000Z\): kept, as this clock is probably behind .*none is let go until lists come with the clock right$/,
    );
    // a list while the clock is behind: laid over, nothing let go (62 days before this clock is long before every price)
    book.accept(quarterList(T0 + DAY, 96, () => 0.5));
    should(book.prices().length).equal(before.prices.length);
    should(book.prices()[0]).eql(before.prices[0]);
    // NTP steps the clock to the right time: still nothing let go until a list comes
    now = T0 + 2 * DAY + 13 * H;
    should(book.prices()[0]).eql(before.prices[0]);
    book.accept(quarterList(T0 + 2 * DAY, 96));
    should(book.prices()[0].from).equal(now - HISTORY_DAYS * DAY);
    should(book.prices()[book.prices().length - 1].to).equal(T0 + 3 * DAY);
    should(warnings).have.length(1);
    // the next save says when, so the next restart with the clock right says nothing
    await book.close();
    const again = new PriceBook({ input: {}, store, now: () => now + H, warn: (w) => warnings.push(w) });
    await again.ready;
    should(again.prices()).eql(book.prices());
    should(warnings).have.length(1);
  });

  it('a restart with the clock a year ahead lets nothing go (the next list does, once the clock is right or not)', async () => {
    const store = new MemoryStore();
    const before = await kept(store);
    const warnings: string[] = [];
    const book = new PriceBook({ input: {}, store, now: () => before.savedAt + 365 * DAY, warn: (w) => warnings.push(w) });
    await book.ready;
    should(book.prices()).eql(before.prices);
    should(warnings).eql([]);
  });

  it('tampered: prices and a save time more than a year ahead are dropped, named once; the rest kept and saved without them', async () => {
    const store = new MemoryStore();
    const before = await kept(store);
    const value = store.value as { prices: string; savedAt: unknown };
    const far = T0 + 400 * DAY;
    value.prices += `;${far}/${Q}:1,2,3`;
    value.savedAt = far;
    const warnings: string[] = [];
    const book = new PriceBook({ input: {}, store, now: () => T0, warn: (w) => warnings.push(w) });
    await book.ready;
    should(book.prices()).eql(before.prices);
    should(warnings).eql([
      "kept prices: dropped 3 from 2028-01-01T23:00:00.000Z on (more than a year ahead of this machine's clock); the time they were saved (2028-01-01T23:00:00.000Z)",
    ]);
    await book.close();
    should((store.value as { prices: string }).prices).equal(encodePrices(before.prices));
    // a save time that is no instant is said alike
    (store.value as { savedAt: unknown }).savedAt = '__proto__';
    const again = new PriceBook({ input: {}, store, now: () => T0, warn: (w) => warnings.push(w) });
    await again.ready;
    should(again.prices()).eql(before.prices);
    should(warnings[1]).equal('kept prices: dropped the time they were saved ("__proto__")');
  });
});
