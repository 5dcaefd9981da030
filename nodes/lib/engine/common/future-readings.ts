// Readings from the future (docs/semantics.md, "Readings from the future"): a reading's own
// timestamp may be ahead of this machine's clock by MAX_CLOCK_AHEAD_MS at most (a gateway's
// clock a little fast, minute-stamped readings); further ahead it is a clock that lies, and
// what counts readings refuses it instead of moving its totals, periods or windows there.
import { DAY_MS, HOUR_MS, instantText, MINUTE_MS, requireInstantNearNow } from '../time/time';
import { MAX_CLOCK_AHEAD_MS } from './limits';

/** Whether instant ms lies further ahead of now than a clock may be fast (MAX_CLOCK_AHEAD_MS). */
export function isFromFuture(ms: number, now: number): boolean {
  return ms - now > MAX_CLOCK_AHEAD_MS;
}

/**
 * requireInstantNearNow for a reading's own timestamp: also a RangeError naming `what`
 * when it lies in the future (isFromFuture).
 */
export function requireReadingInstant(x: unknown, what: string, now: number): number {
  const ms = requireInstantNearNow(x, what, now);
  if (isFromFuture(ms, now)) throw new RangeError(futureWords(what, ms, now));
  return ms;
}

/** Why a reading at ms is refused, for `what` (a field, or "the last reading"). */
export function futureWords(what: string, ms: number, now: number): string {
  return (
    `${what} lies in the future: ${instantText(ms)} is ${spanWords(ms - now)} ahead of this machine's clock ` +
    `(${instantText(now)}); a reading may be at most ${MAX_CLOCK_AHEAD_MS / MINUTE_MS} minutes ahead: ` +
    "check the gateway's clock (or this machine's)"
  );
}

/** A positive span in rounded-down words: "12 minutes", "5 hours", "3 days", "2 years". */
export function spanWords(ms: number): string {
  const units: Array<[number, string]> = [
    [365.25 * DAY_MS, 'year'],
    [DAY_MS, 'day'],
    [HOUR_MS, 'hour'],
    [MINUTE_MS, 'minute'],
  ];
  for (const [unit, name] of units) {
    const n = Math.floor(ms / unit);
    if (n >= 1 || unit === MINUTE_MS) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return '';
}
