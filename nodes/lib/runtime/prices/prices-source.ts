// What a node set to an easy-prices node prices with: the stack of the kept list, the node's
// tariff as fees (or none), the add-ons and VAT of the prices node's settings. One stack
// object per change of the list or the tariff, so the engine compiles it once.

import type { PriceStack } from '../../engine/prices/price-stack';
import type { Tariff } from '../../engine/tariff/tariff';
import { formatClock } from '../../engine/common/format';
import { localDate } from '../../engine/time/time';
import type { PriceBook } from './price-book';
import type { PricesSettings } from './prices-settings';

export class StackSource {
  private cached: { version: number; tariff: Tariff; stack: PriceStack } | null = null;

  constructor(
    readonly book: PriceBook,
    readonly settings: PricesSettings,
  ) {}

  /** The stack over `tariff` now (the same object while neither changed). */
  stackFor(tariff: Tariff): PriceStack {
    const c = this.cached;
    if (c && c.version === this.book.version && c.tariff === tariff) return c.stack;
    const s = this.settings;
    const stack: PriceStack = {
      list: this.book.list(),
      ...(s.fees ? { fees: tariff } : {}),
      addOns: s.addOns,
      vat: s.vat === 'tariff' ? tariff.vat : s.vat,
      currency: tariff.currency,
      beyond: s.whenOut === 'tariff' ? 'fees' : 'none',
      id: tariff.id,
      name: s.fees ? `spot prices + ${tariff.name}` : 'spot prices',
    };
    this.cached = { version: this.book.version, tariff, stack };
    return stack;
  }

  /** stackFor once the kept prices are read back (a message that comes during a restart waits for them). */
  async stackWhenRead(tariff: Tariff): Promise<PriceStack> {
    await this.book.ready;
    return this.stackFor(tariff);
  }

  /** Until when the kept prices run back to back from `at`; null when none prices `at`. */
  knownUntil(at: number): number | null {
    return this.book.knownUntil(at);
  }

  /**
   * Why the list gives no price at `at`, in words with the zone's wall clock: no list yet, the
   * list ends (prices known until …), it begins later, or a gap in it.
   */
  whyNoPrice(at: number, timezone: string): string {
    const prices = this.book.prices();
    if (prices.length === 0) return 'no price list yet: send one (Tibber, Nord Pool, power-saver or [{ start, price }])';
    const last = prices[prices.length - 1];
    if (at >= last.to) return `no price: ${knownUntilText(last.to, at, timezone)}; the next list has not come`;
    if (at < prices[0].from) return `no price: the price list begins at ${wallClock(prices[0].from, at, timezone)}`;
    const next = prices.find((e) => e.from > at);
    return `no price: a gap in the price list until ${next ? wallClock(next.from, at, timezone) : '?'}`;
  }
}

/** `prices known until 23:45` (with the date when it is not today's). */
export function knownUntilText(until: number, now: number, timezone: string): string {
  return `prices known until ${wallClock(until, now, timezone)}`;
}

/**
 * An instant as the zone's wall clock `HH:mm`, with its date when it is not on `now`'s local
 * day; a local midnight ending a day reads `24:00` of that day (a list of today ends at 24:00).
 */
function wallClock(ms: number, now: number, timezone: string): string {
  const clock = formatClock(ms, timezone).replace(/:00$/, '');
  const midnight = clock === '00:00';
  const day = localDate(midnight ? ms - 1 : ms, { timezone });
  const text = midnight ? '24:00' : clock;
  return day === localDate(now, { timezone }) ? text : `${day} ${text}`;
}
