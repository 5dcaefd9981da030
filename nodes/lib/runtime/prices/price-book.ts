// What an easy-prices node keeps, free of Node-RED: the prices it has been sent, merged
// (today's list and tomorrow's; a new list wins where it has prices), 62 days of history,
// kept in the context store as one compact line at most once a minute (flash), read back
// as hostile data; the nodes that price with it are told when it changes.

import { ThrottledSave, SAVE_EVERY_MS } from '../common/throttled-save';
import { PriceEntry, PriceInputError, PriceInputOptions, PriceListInput, readPriceList } from '../../engine/prices/price-inputs';
import { decodePrices, encodePrices, HISTORY_DAYS, historyStart, mergePrices } from '../../engine/prices/price-history';
import { PriceList, priceList } from '../../engine/prices/price-list';
import { DroppedState, isStoredInstant, StoredAhead, storedInstantText } from '../../engine/common/stored-checks';
import { groupDigits } from '../../engine/common/format';
import { instantText } from '../../engine/time/time';

/** Where the book lives across restarts (the node's context). */
export interface BookStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface PriceBookOptions {
  /** How the lists' numbers are read (unit, Tibber's field, the currency). */
  input: PriceInputOptions;
  store?: BookStore;
  now?: () => number;
  warn(message: string): void;
}

/** What a list brought: the list read, and whether the kept prices changed. */
export interface Accepted {
  list: PriceListInput;
  changed: boolean;
  /** The first and last instant the book knows now, and until when prices run back to back from now. */
  knownUntil: number | null;
}

interface Stored {
  version: 1;
  prices: string;
  /** When it was saved (this clock's epoch ms): read back ahead of the clock, this clock is behind (StoredAhead). */
  savedAt?: number;
}

export class PriceBook {
  private entries: PriceEntry[] = [];
  private built: { version: number; list: PriceList } | null = null;
  private readonly listeners = new Set<() => void>();
  private readonly saves: ThrottledSave | null;
  private readonly now: () => number;
  /** Settles once the kept prices are read back (at once without a store). */
  readonly ready: Promise<void>;
  /** Counts the changes: a source built from the book is built again when it differs. */
  version = 0;

  constructor(private readonly opts: PriceBookOptions) {
    this.now = opts.now ?? Date.now;
    const store = opts.store;
    this.saves = store ? new ThrottledSave(() => store.save(this.stored()), SAVE_EVERY_MS, opts.warn, 'prices') : null;
    this.ready = store
      ? store.load().then(
          (kept) => this.restore(kept),
          (err: Error) => opts.warn(`kept prices could not be read: ${err?.message ?? String(err)}`),
        )
      : Promise.resolve();
  }

  /**
   * A message's list laid over the kept prices. Throws a PriceInputError naming the entry
   * (the kept prices unchanged); warnings of the list (a unit that looks 1,000× off, gaps)
   * are in the answer's list.
   */
  accept(msg: unknown): Accepted {
    const list = readPriceList(msg, this.opts.input);
    const keepFrom = historyStart(this.now());
    if (list.to <= keepFrom) {
      // all of it would be let go at once: said, never dropped in silence
      throw new PriceInputError(
        `the list ends at ${new Date(list.to).toISOString()}, before the ${HISTORY_DAYS} days kept: nothing of it is kept (is this machine's clock right?)`,
        list.to,
      );
    }
    const merged = mergePrices(this.entries, list.entries, keepFrom);
    const changed = !samePrices(merged, this.entries);
    if (changed) {
      this.entries = merged;
      this.version++;
      this.saves?.changed();
      for (const listener of [...this.listeners]) listener();
    }
    return { list, changed, knownUntil: this.knownUntil(this.now()) };
  }

  /** The kept prices as the engine's list, built once per change (a stack over it compiles once). */
  list(): PriceList {
    if (this.built === null || this.built.version !== this.version) {
      this.built = { version: this.version, list: priceList(this.entries.map((e) => ({ start: e.from, end: e.to, price: e.price }))) };
    }
    return this.built.list;
  }

  /** The kept prices, in time order (read them, never change them). */
  prices(): readonly PriceEntry[] {
    return this.entries;
  }

  /**
   * Until when prices run back to back from `at` (the end of the entry pricing `at` and of
   * every one that follows without a gap), or null when no entry prices `at`.
   */
  knownUntil(at: number): number | null {
    const e = this.entries;
    let lo = 0;
    let hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (e[mid].to <= at) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= e.length || e[lo].from > at) return null;
    let k = lo;
    while (k + 1 < e.length && e[k + 1].from === e[k].to) k++;
    return e[k].to;
  }

  /** Calls `listener` after each change of the kept prices; returns what stops it. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The last save (the node is closing). */
  close(): Promise<void> {
    this.listeners.clear();
    return this.saves?.close() ?? Promise.resolve();
  }

  private stored(): Stored {
    return { version: 1, prices: encodePrices(this.entries), savedAt: this.now() };
  }

  private restore(kept: unknown): void {
    if (kept === undefined || kept === null) return;
    const field = (name: string): unknown =>
      typeof kept === 'object' && Object.prototype.hasOwnProperty.call(kept, name) ? (kept as Record<string, unknown>)[name] : undefined;
    const now = this.now();
    const read = field('version') === 1 ? decodePrices(field('prices'), now) : { entries: null, problem: 'not a store of this node' };
    if (read.entries === null) {
      this.opts.warn(`the kept prices were dropped (${read.problem}): send the price list again`);
      return;
    }
    const dropped = new DroppedState('kept prices');
    if (read.ahead)
      dropped.add(
        `${groupDigits(read.ahead.count)} from ${instantText(read.ahead.from)} on (more than a year ahead of this machine's clock)`,
      );
    const savedAt = field('savedAt');
    if (savedAt !== undefined && !isStoredInstant(savedAt, now)) dropped.add(`the time they were saved (${storedInstantText(savedAt)})`);
    dropped.tell(this.opts.warn);
    // stored under a later clock (this one is behind until NTP steps it): kept, said once
    new StoredAhead(this.opts.warn).tell(
      'kept prices',
      isStoredInstant(savedAt, now) ? savedAt : null,
      now,
      'prices are looked up at the instants this clock reads, and none is let go until lists come with the clock right',
    );
    // nothing is let go at a restart (a clock behind or ahead would lose the history): only as lists come;
    // a list that came while the store was read is newer: laid over the kept one
    const merged = mergePrices(read.entries, this.entries, -Infinity);
    if (!dropped.empty) this.saves?.changed(); // what was dropped must not come back with the next restart
    if (!samePrices(merged, this.entries)) {
      this.entries = merged;
      this.version++;
      for (const listener of [...this.listeners]) listener();
    }
  }
}

function samePrices(a: readonly PriceEntry[], b: readonly PriceEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k].from !== b[k].from || a[k].to !== b[k].to || !Object.is(a[k].price, b[k].price)) return false;
  return true;
}

export { PriceInputError };
