// What easy-plan keeps in its context store, and reading it back as hostile data: a plan
// made for other settings is ignored (planned afresh); a malformed, oversized or impossible
// one (beyond what the settings reach) is untrusted: dropped with a warning, output 1 off,
// planned afresh.
import type { Ledger, LedgerPiece } from './plan-ledger';
import { MAX_WINDOW_MS } from './plan-settings';
import type { Cycle, OneOff, PlanSettings } from './plan-settings';
import { isFiniteNumber, isRecord, isStoredInstant, storedInstantText } from '../../engine/common/stored-checks';
import { MAX_CLOCK_AHEAD_MS } from '../../engine/common/limits';
import { HOUR_MS, isNearNow } from '../../engine/time/time';

export interface PlanStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

/** The ledger, tied by `key` to the settings it was made for. */
export interface StoredPlan {
  key: string;
  ledger: Ledger;
  currency: string | null;
  vat: number;
  /** When it was stored, by the clock of then (earlier versions stored none): a later start tells a clock now behind. */
  savedAt?: number;
}

/** The override the user last sent; kept apart from the plan so that it survives new settings. */
export type Override = 'auto' | 'on' | 'off';

/** More pieces than a week of price changes could give: a store holding more is not ours. */
const MAX_STORED_PIECES = 10_000;
const OWNERS = new Set(['plan', 'once', 'boost']);
/** The longest daily window: a whole local day on the day the clocks go back. */
const LONGEST_DAY_MS = 25 * HOUR_MS;

function isSpan(x: unknown): x is { from: number; to: number } {
  return isRecord(x) && isFiniteNumber(x.from) && isFiniteNumber(x.to) && x.to >= x.from;
}
const isCycle = (x: unknown): x is Cycle => isSpan(x) && isFiniteNumber((x as Record<string, unknown>).requested);
const isOneOff = (x: unknown): x is OneOff => isCycle(x);

function isPiece(x: unknown): x is LedgerPiece {
  return (
    isSpan(x) &&
    x.to > x.from &&
    (x as LedgerPiece).price !== undefined &&
    (isFiniteNumber((x as LedgerPiece).price) || (x as LedgerPiece).price === null) &&
    OWNERS.has(String((x as LedgerPiece).owner))
  );
}

/**
 * What a stored plan of the right shape holds that the node could not have written for
 * `settings` by `now` (docs/semantics.md, "Stored state"), in words; null when it fits:
 * every instant near now, nothing ending later than a window, a one-off and a boost asked
 * at the latest now can reach, each span and run time no longer than its setting allows.
 * `now` is the later of the clock and the plan's savedAt (stored under a later clock).
 */
function planBeyondSettings(l: Ledger, now: number, settings: PlanSettings): string | null {
  const windowMs = settings.window.kind === 'rolling' ? settings.window.lengthMs : LONGEST_DAY_MS;
  // a one-off may start MAX_WINDOW_MS ahead and last as long; a daily window may be the next one
  const latestEnd = now + MAX_CLOCK_AHEAD_MS + 2 * MAX_WINDOW_MS;
  const spans: Array<[string, { from: number; to: number } | null, number]> = [
    ['the window', l.cycle, windowMs],
    ['the one-off', l.once, MAX_WINDOW_MS],
    ['the boost', l.boost, MAX_WINDOW_MS],
  ];
  for (const [what, span, longest] of spans) {
    if (!span) continue;
    if (!isNearNow(span.from, now) || span.to > latestEnd)
      return `${what} ends at ${storedInstantText(span.to)}, beyond what the settings reach`;
    if (span.to - span.from > longest) return `${what} lasts longer than the settings allow`;
  }
  if (
    !(l.cycle.requested >= 0 && l.cycle.requested <= MAX_WINDOW_MS) ||
    (l.once && !(l.once.requested >= 0 && l.once.requested <= MAX_WINDOW_MS))
  )
    return 'a run time longer than the settings allow';
  const outside = l.pieces.find((p) => !isNearNow(p.from, now) || p.to > latestEnd);
  return outside ? `a slot ending at ${storedInstantText(outside.to)}, beyond what the settings reach` : null;
}

/**
 * The stored plan for these settings whose window has not ended at `now` (null when there
 * is none: nothing stored, other settings, a window over), or why what is stored cannot be
 * trusted (`untrusted`: a malformed, oversized or impossible plan, which the node drops,
 * switching output 1 off, and plans afresh).
 */
export function checkStoredPlan(
  stored: unknown,
  key: string,
  now: number,
  settings: PlanSettings,
): { plan: StoredPlan | null; untrusted: string | null } {
  const none = { plan: null, untrusted: null };
  const untrusted = (why: string) => ({ plan: null, untrusted: why });
  if (stored === undefined || stored === null) return none;
  if (!isRecord(stored)) return untrusted('not the shape the node stores');
  if (stored.key !== key) return none; // made for other settings: planned afresh, nothing to say
  if (!isRecord(stored.ledger)) return untrusted('not the shape the node stores');
  const l = stored.ledger;
  if (!isCycle(l.cycle) || typeof l.cancelled !== 'boolean') return untrusted('a window that is not one');
  if (!(l.once === null || isOneOff(l.once)) || !(l.boost === null || isSpan(l.boost)))
    return untrusted('a one-off or boost that is not one');
  if (!Array.isArray(l.pieces) || l.pieces.length > MAX_STORED_PIECES) return untrusted(`more than ${MAX_STORED_PIECES} slots, or none`);
  if (!l.pieces.every(isPiece)) return untrusted('slots that are not ones');
  const pieces = (l.pieces as LedgerPiece[]).map((p) => ({ from: p.from, to: p.to, price: p.price, owner: p.owner }));
  for (let i = 1; i < pieces.length; i++) if (pieces[i].from < pieces[i - 1].to) return untrusted('slots that overlap');
  const span = (s: { from: number; to: number }) => ({ from: s.from, to: s.to });
  const ledger: Ledger = {
    cycle: { ...span(l.cycle), requested: l.cycle.requested },
    cancelled: l.cancelled,
    once: l.once ? { ...span(l.once), requested: l.once.requested } : null,
    boost: l.boost ? span(l.boost) : null,
    pieces,
  };
  const savedAt = stored.savedAt;
  if (savedAt !== undefined && !isStoredInstant(savedAt, now))
    return untrusted(`stored at ${storedInstantText(savedAt)}, not an instant near now`);
  const beyond = planBeyondSettings(ledger, Math.max(now, savedAt ?? now), settings);
  if (beyond) return untrusted(beyond);
  if (l.cycle.to <= now && !(l.once && l.once.to > now) && !(l.boost && l.boost.to > now)) return none;
  return {
    plan: {
      key,
      ledger,
      currency: typeof stored.currency === 'string' ? stored.currency : null,
      vat: isFiniteNumber(stored.vat) ? stored.vat : 0,
      ...(savedAt !== undefined ? { savedAt } : {}),
    },
    untrusted: null,
  };
}

/** The override kept, 'auto' when none is; `untrusted` when the store holds something else. */
export function checkOverride(stored: unknown): { override: Override; untrusted: boolean } {
  if (stored === 'on' || stored === 'off' || stored === 'auto') return { override: stored, untrusted: false };
  return { override: 'auto', untrusted: stored !== undefined && stored !== null };
}
