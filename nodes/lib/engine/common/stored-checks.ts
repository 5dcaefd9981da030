// What a node reads back from its context store is data from outside (a disk error, a hand
// edit, an older version, a forged file): every field is checked against what the node
// could have written (types, ranges, sizes, instants near now) before it is used, and what
// fails is dropped and said once (docs/semantics.md, "Stored state"). These are the checks
// several stores share, and the one warning that names what was dropped.
import { instantText, isNearNow } from '../time/time';
import { isFromFuture, spanWords } from './future-readings';
import { shortText } from './format';
import { MAX_STORED_AHEAD_MS } from './limits';

export const isFiniteNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** An object that is not an array (null-prototype records included). */
export const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * An instant the node itself could have stored: a number of epoch ms within NEAR_NOW_YEARS
 * of now and at most MAX_STORED_AHEAD_MS ahead of it (stored under a later clock: this one
 * is behind, see StoredAhead). A Date cannot hold anything else; further ahead it is
 * tampering or a broken clock, and a period or total starting there would hold every later
 * reading back for longer than any clock is behind.
 */
export function isStoredInstant(x: unknown, now: number): x is number {
  return isFiniteNumber(x) && isNearNow(x, now) && !isBeyondStoredAhead(x, now);
}

/** Whether a stored instant lies further ahead of now than stored state may (MAX_STORED_AHEAD_MS): dropped. */
export function isBeyondStoredAhead(ms: number, now: number): boolean {
  return ms - now > MAX_STORED_AHEAD_MS;
}

/**
 * Stored state from a later clock (docs/semantics.md, "Stored state"): what a store kept
 * that lies ahead of this machine's clock by more than a live reading may (isFromFuture)
 * was stored while the clock read later, so this one is probably behind (a Pi without a
 * real-time clock after a power cut, until NTP steps it). It is kept, not forged, and said
 * once per node, naming how far ahead it lies; one per node, shared by its stores.
 */
export class StoredAhead {
  private said = false;

  constructor(private readonly warn: (message: string) => void) {}

  /**
   * Says it (the first time only) when `newest`, the newest instant `what` kept, lies ahead
   * of `now`; `meanwhile` says what the node does until the clock reaches it.
   */
  tell(what: string, newest: number | null, now: number, meanwhile: string): void {
    if (this.said || newest === null || !isFromFuture(newest, now)) return;
    this.said = true;
    this.warn(
      `${what} lie ${spanWords(newest - now)} ahead of this machine's clock (${instantText(newest)}; the clock reads ` +
        `${instantText(now)}): kept, as this clock is probably behind (no real-time clock, a power cut; NTP sets it right); ` +
        meanwhile,
    );
  }
}

/** A stored instant in words: ISO text, or the value itself when it is none. */
export function storedInstantText(x: unknown): string {
  return isFiniteNumber(x) ? instantText(x) : shortText(typeof x === 'string' ? JSON.stringify(x) : String(x), 40);
}

/**
 * What a read of stored state dropped, said in one warning (node.warn): "<what>: dropped
 * a; b; c" with at most `MAX_LISTED` entries and a count of the rest. Nothing dropped, no
 * warning.
 */
export class DroppedState {
  private readonly items: string[] = [];
  private more = 0;
  static readonly MAX_LISTED = 5;

  constructor(private readonly what: string) {}

  add(item: string): void {
    if (this.items.length < DroppedState.MAX_LISTED) this.items.push(item);
    else this.more++;
  }

  get empty(): boolean {
    return this.items.length === 0;
  }

  /** The one warning, or null when nothing was dropped. */
  warning(): string | null {
    if (this.empty) return null;
    const rest = this.more ? `; and ${this.more} more` : '';
    return `${this.what}: dropped ${this.items.join('; ')}${rest}`;
  }

  /** Says the warning (once) through `warn`, if there is one. */
  tell(warn: (message: string) => void): void {
    const text = this.warning();
    if (text) warn(text);
  }
}
