// A meter's gateway clock as easy-peak sees it (docs/semantics.md, "The peak node"): when its
// newest reading arrived, by this machine's monotonic clock (which no step of either clock
// moves), and how far its stamps run behind their arrivals. A gateway whose clock is some
// minutes slow sends readings that are old by their stamps but new by their arrival: the
// guard judges a reading's age by its arrival, and a reading's stamp only against the
// meter's own usual lag (a backlog replayed after an outage arrives now but is old).
import { MINUTE_MS } from '../../engine/time/time';
import { spanWords } from '../../engine/common/future-readings';

/** The least lag is kept per period of this many ms of arrivals: the offset is that of the current and the last period. */
export const CLOCK_PERIOD_MS = 5 * MINUTE_MS;
/** A gateway clock off by more than this (stamps behind or ahead of their arrival) is reported. */
export const CLOCK_OFF_MS = 2 * MINUTE_MS;

export interface MeterClock {
  /** When the newest reading arrived (monotonic ms). */
  arrived: number;
  /** Its lag: its arrival (monotonic) less its stamp. */
  lag: number;
  /** The least lag of the readings that arrived in the current period; in the period before (Infinity: none). */
  least: number;
  before: number;
  /** When the current period began (monotonic ms). */
  since: number;
}

/** The meter's clock after a reading stamped `stamp` arrived at `mono` (`c` changed in place, or a new one). */
export function arrive(c: MeterClock | null, stamp: number, mono: number): MeterClock {
  const lag = mono - stamp;
  if (c === null) return { arrived: mono, lag, least: lag, before: Infinity, since: mono };
  c.arrived = mono;
  c.lag = lag;
  if (mono - c.since >= CLOCK_PERIOD_MS) {
    // a new period keeps the last one's least lag, however long the silence: a backlog after
    // an outage is then judged against the lag from before it
    c.before = c.least;
    c.least = lag;
    c.since = mono;
  } else if (lag < c.least) c.least = lag;
  return c;
}

/** The meter's usual lag: the least of the current and the last period (monotonic ms less stamps). */
const usualLag = (c: MeterClock): number => Math.min(c.least, c.before);

/**
 * Whether the newest reading is recent enough to act on: it arrived at most `staleMs` ago,
 * and it was not old when it arrived (its lag at most `staleMs` above the meter's usual lag).
 */
export function arrivedFresh(c: MeterClock | null, mono: number, staleMs: number): boolean {
  return c !== null && mono - c.arrived <= staleMs && c.lag - usualLag(c) <= staleMs;
}

/** When (monotonic ms) the newest reading stops being fresh by its arrival. */
export const staleFrom = (c: MeterClock, staleMs: number): number => c.arrived + staleMs;

/**
 * How far the gateway's clock is behind this machine's (negative: ahead), from the usual
 * lag, once a whole period of arrivals is behind it (a first burst of readings can be a
 * backlog); null before that.
 */
export function clockBehindMs(c: MeterClock | null, now: number, mono: number): number | null {
  if (c === null || c.before === Infinity) return null;
  return usualLag(c) + (now - mono);
}

/** Words for a clock off by more than CLOCK_OFF_MS (for the status), or null. */
export function clockOffWords(behindMs: number | null): string | null {
  if (behindMs === null || Math.abs(behindMs) <= CLOCK_OFF_MS) return null;
  return `gateway clock ${Math.floor(Math.abs(behindMs) / MINUTE_MS)} min ${behindMs > 0 ? 'slow' : 'fast'}`;
}

/** Gateway clocks found off: warned once per gateway (`warn`), and the status hint while any meter's is. */
export class ClockReports {
  private readonly off = new Map<object, string>();
  private readonly warned = new Set<string>();

  constructor(private readonly warn: (message: string) => void) {}

  /** After a reading of meter `key` (named `meter`, its gateway `gateway`) arrived: its clock `c` judged. */
  seen(key: object, c: MeterClock, gateway: string, meter: string, now: number, mono: number): void {
    const behind = clockBehindMs(c, now, mono);
    const words = clockOffWords(behind);
    if (words === null) {
      if (this.off.size > 0) this.off.delete(key);
      return;
    }
    this.off.set(key, words);
    if (this.warned.has(gateway)) return;
    this.warned.add(gateway);
    this.warn(clockOffWarning(meter, behind!));
  }

  /** The status hint of a gateway clock that is off, if any. */
  hint(): string | null {
    for (const words of this.off.values()) return words;
    return null;
  }

  /** Every meter starts from zero (msg.reset). */
  clear(): void {
    this.off.clear();
    this.warned.clear();
  }
}

/** The warning for a meter whose gateway clock is off (said once per gateway). */
export function clockOffWarning(meter: string, behindMs: number): string {
  const span = spanWords(Math.abs(behindMs));
  return behindMs > 0
    ? `the readings of ${meter} arrive ${span} after their time stamps: the gateway's clock is slow (or this machine's ` +
        "fast, or the readings are delayed). The guard judges a reading's age by when it arrives, but windows are placed by " +
        "the stamps: set the gateway's clock (NTP)"
    : `the readings of ${meter} are stamped ${span} ahead of this machine's clock: the gateway's clock is fast (or this ` +
        "machine's slow). The guard judges a reading's age by when it arrives, but windows are placed by the stamps: set " +
        "the gateway's clock (NTP)";
}

/**
 * What the store keeps of the clock: how far the gateway was behind this machine's wall
 * clock (its usual lag), so that a restart judges the newest reading's age as its arrival
 * did; null when unknown.
 */
export function storedLag(c: MeterClock | null, now: number, mono: number): number | null {
  return c === null ? null : Math.round(usualLag(c) + (now - mono));
}

/**
 * The clock of a meter read back from the store: its newest reading (stamped `stamp`)
 * arrived `lagMs` after its stamp by the wall clock (0 when unknown: its stamp), never
 * after now; its usual lag that one.
 */
export function restoredClock(stamp: number, lagMs: number, now: number, mono: number): MeterClock {
  const arrived = mono - Math.max(0, now - (stamp + lagMs));
  const lag = arrived - stamp;
  return { arrived, lag, least: lag, before: Infinity, since: mono };
}

/**
 * The clock that stamped a meter's readings stepped by `by` ms (this machine's, for a meter it
 * stamps: docs/semantics.md, "Clock steps"): its stamps move with it, so its lags move the
 * other way, and its readings are judged against the lag they will have from now on.
 */
export function clockStepped(c: MeterClock | null, by: number): MeterClock | null {
  return c === null ? null : { ...c, lag: c.lag - by, least: c.least - by, before: c.before - by };
}
