// What easy-cost's stream mode keeps across restarts, and how it reads what earlier
// versions stored. Node-RED-free: the store itself (the node's context) is injected.
import { restoreTotals, TotalsState } from '../engine/totals';

/** Where the totals live across restarts (the node's context). */
export interface TotalsStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface MeterId {
  gateway: string | null;
  topic: string | null;
}

export interface StoredMeter extends MeterId {
  totals: TotalsState;
}

/** What is stored: every meter's totals, in arrival order (meter names are data, never keys). */
interface StoredMeters {
  version: 2;
  timezone: string;
  tariffId: string;
  meters: Array<{ gateway: string | null; topic: string | null; totals: unknown }>;
}

export interface StoreScope {
  timezone: string;
  tariffId: string;
  maxMeters: number;
}

/** What a stored value gives back: the meters, totals of the single-meter shape, or why neither. */
export interface Restored {
  meters: StoredMeter[];
  /** Totals stored in the single-meter shape of earlier versions, for the first meter to report. */
  legacy: TotalsState | null;
  problem: string | null;
}

export const meterKey = (m: MeterId): string => JSON.stringify([m.gateway, m.topic]);

/** A meter as people name it: `DEMO/e1.kwh`, `kitchen`, or `default`. */
export function meterName(m: MeterId): string {
  const topic = m.topic ?? 'default';
  return m.gateway === null ? topic : `${m.gateway}/${topic}`;
}

/** Reads a stored value of any version; anything unusable gives nothing and says why. */
export function decodeStored(stored: unknown, scope: StoreScope): Restored {
  const { timezone, tariffId } = scope;
  const none = (problem: string | null): Restored => ({ meters: [], legacy: null, problem });
  if (stored === undefined || stored === null) return none(null);
  if (typeof stored === 'object' && (stored as { version?: unknown }).version === 1) {
    // the single-meter shape of earlier versions: kept whole, for the first meter to report
    const restored = restoreTotals(stored, timezone, tariffId);
    if (restored.problem) return none(restored.problem);
    return { meters: [], legacy: restored.state.total ? restored.state : null, problem: null };
  }
  const s = stored as Partial<StoredMeters>;
  if (typeof stored !== 'object' || s.version !== 2 || !Array.isArray(s.meters) || s.meters.length > scope.maxMeters)
    return none('stored totals are unreadable');
  if (s.tariffId !== tariffId) return none(`stored totals belong to tariff "${String(s.tariffId)}"`);
  if (s.timezone !== timezone) return none(`stored totals were counted in ${String(s.timezone)}`);
  const meters: StoredMeter[] = [];
  const seen = new Set<string>();
  for (const m of s.meters) {
    const gateway = nameOrNull(m?.gateway);
    const topic = nameOrNull(m?.topic);
    const restored = restoreTotals(m?.totals, timezone, tariffId);
    if (gateway === undefined || topic === undefined || restored.problem) return none('stored totals are unreadable');
    const key = meterKey({ gateway, topic });
    if (seen.has(key)) return none('stored totals are unreadable');
    seen.add(key);
    meters.push({ gateway, topic, totals: restored.state });
  }
  return { meters, legacy: null, problem: null };
}

/** The value handed to the store. */
export function encodeStored(meters: Iterable<StoredMeter>, scope: Pick<StoreScope, 'timezone' | 'tariffId'>): unknown {
  const stored: StoredMeters = {
    version: 2,
    timezone: scope.timezone,
    tariffId: scope.tariffId,
    meters: [...meters].map((m) => ({ gateway: m.gateway, topic: m.topic, totals: m.totals })),
  };
  return stored;
}

/** A stored meter name: a string, or null for the default; undefined when it is neither. */
function nameOrNull(x: unknown): string | null | undefined {
  if (x === null) return null;
  return typeof x === 'string' && x !== '' ? x : undefined;
}
