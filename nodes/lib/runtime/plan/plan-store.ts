// What easy-plan keeps in its context store, and reading it back as hostile data: a plan
// made for other settings, a malformed or oversized one, is ignored (planned afresh).
import type { Ledger, LedgerPiece } from './plan-ledger';
import type { OneOff } from './plan-settings';
import type { Cycle } from './plan-settings';

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
}

/** The override the user last sent; kept apart from the plan so that it survives new settings. */
export type Override = 'auto' | 'on' | 'off';

/** More pieces than a week of price changes could give: a store holding more is not ours. */
const MAX_STORED_PIECES = 10_000;
const OWNERS = new Set(['plan', 'once', 'boost']);

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const object = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function isSpan(x: unknown): x is { from: number; to: number } {
  return object(x) && finite(x.from) && finite(x.to) && x.to >= x.from;
}
const isCycle = (x: unknown): x is Cycle => isSpan(x) && finite((x as Record<string, unknown>).requested);
const isOneOff = (x: unknown): x is OneOff => isCycle(x);

function isPiece(x: unknown): x is LedgerPiece {
  return (
    isSpan(x) &&
    x.to > x.from &&
    (x as LedgerPiece).price !== undefined &&
    (finite((x as LedgerPiece).price) || (x as LedgerPiece).price === null) &&
    OWNERS.has(String((x as LedgerPiece).owner))
  );
}

/** A stored plan for these settings whose window has not ended at `now`, or null. */
export function readStoredPlan(stored: unknown, key: string, now: number): StoredPlan | null {
  if (!object(stored) || stored.key !== key || !object(stored.ledger)) return null;
  const l = stored.ledger;
  if (!isCycle(l.cycle) || typeof l.cancelled !== 'boolean') return null;
  if (!(l.once === null || isOneOff(l.once)) || !(l.boost === null || isSpan(l.boost))) return null;
  if (!Array.isArray(l.pieces) || l.pieces.length > MAX_STORED_PIECES || !l.pieces.every(isPiece)) return null;
  const pieces = (l.pieces as LedgerPiece[]).map((p) => ({ from: p.from, to: p.to, price: p.price, owner: p.owner }));
  for (let i = 1; i < pieces.length; i++) if (pieces[i].from < pieces[i - 1].to) return null;
  if (l.cycle.to <= now && !(l.once && l.once.to > now) && !(l.boost && l.boost.to > now)) return null;
  const span = (s: { from: number; to: number }) => ({ from: s.from, to: s.to });
  return {
    key,
    ledger: {
      cycle: { ...span(l.cycle), requested: l.cycle.requested },
      cancelled: l.cancelled,
      once: l.once ? { ...span(l.once), requested: l.once.requested } : null,
      boost: l.boost ? span(l.boost) : null,
      pieces,
    },
    currency: typeof stored.currency === 'string' ? stored.currency : null,
    vat: finite(stored.vat) ? stored.vat : 0,
  };
}

export function readOverride(stored: unknown): Override {
  return stored === 'on' || stored === 'off' ? stored : 'auto';
}
