// What the parts of the account hub share: the snapshots they hand out, the store they
// keep tariffs in, their watcher lists, and the plumbing that lets the hub close cleanly
// (every request abortable, every background promise and deferred call tracked).

import type { Problem, Tariff } from '../../engine/tariff/tariff';
import type { EasyApiError, EasyClient, Sensor } from '../../api/client';

export interface TariffSnapshot {
  tariffs: Tariff[];
  problems: Problem[];
  /** When the tariffs in this snapshot were fetched; null before any success. */
  fetchedAt: number | null;
  error: EasyApiError | Error | null;
  /** The tariffs are from before: the last fetch failed, or they were loaded from the store. */
  stale: boolean;
}

export interface SensorSnapshot {
  gatewayId: string;
  sensors: Sensor[];
  polledAt: number | null;
  error: EasyApiError | Error | null;
}

export interface HubStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export type Unwatch = () => void;

export class NoTokenError extends Error {
  constructor() {
    super('no access token configured on the account');
    this.name = 'NoTokenError';
  }
}

class HubClosedError extends Error {
  constructor() {
    super('the account was closed');
  }
}

/** Watchers of one resource with their own intervals; the shortest interval wins. */
export class Watchers<T> {
  private readonly entries = new Map<symbol, { intervalMs: number; onUpdate: (s: T) => void }>();

  add(intervalMs: number, onUpdate: (s: T) => void): symbol {
    const key = Symbol('watcher');
    this.entries.set(key, { intervalMs, onUpdate });
    return key;
  }

  delete(key: symbol): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  get intervalMs(): number {
    let min = Infinity;
    for (const e of this.entries.values()) min = Math.min(min, e.intervalMs);
    return min;
  }

  /** A throwing watcher must not keep the others from their update. */
  notify(snapshot: T, only?: symbol): void {
    for (const [key, e] of [...this.entries]) {
      if (only && key !== only) continue;
      if (!this.entries.has(key)) continue; // unwatched by an earlier callback
      try {
        e.onUpdate(snapshot);
      } catch {
        // the watcher's own bug; the hub keeps serving the others
      }
    }
  }
}

/**
 * The account's client and clock as the hub's parts use them: requests the hub can abort
 * when it closes, background promises and deferred calls it can wait for or cancel.
 */
export class HubRequests {
  private readonly controllers = new Set<AbortController>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly immediates = new Set<NodeJS.Immediate>();
  private isClosed = false;

  constructor(
    private readonly client: EasyClient | null,
    readonly now: () => number,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  requireClient(): EasyClient {
    if (this.isClosed) throw new HubClosedError();
    if (!this.client) throw new NoTokenError();
    return this.client;
  }

  /** Runs a request that the hub can abort on close, also aborted by the caller's signal. */
  async withAbort<T>(outer: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const forward = () => controller.abort();
    if (outer?.aborted) controller.abort();
    outer?.addEventListener('abort', forward);
    this.controllers.add(controller);
    try {
      return await run(controller.signal);
    } finally {
      this.controllers.delete(controller);
      outer?.removeEventListener('abort', forward);
    }
  }

  /** Keeps a background promise where close() can wait for it; it never rejects unhandled. */
  track<T>(p: Promise<T>): Promise<void> {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return settled;
  }

  /** Calls fn on a later turn, unless the hub closes first. */
  later(fn: () => void): void {
    const handle = setImmediate(() => {
      this.immediates.delete(handle);
      if (!this.isClosed) fn();
    });
    this.immediates.add(handle);
  }

  /** Marks the hub closed at once: no new request starts, no deferred call runs. */
  markClosed(): void {
    this.isClosed = true;
  }

  /** Cancels the deferred calls, aborts every request, resolves when nothing is left running. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const handle of this.immediates) clearImmediate(handle);
    this.immediates.clear();
    for (const controller of this.controllers) controller.abort();
    await Promise.allSettled([...this.pending]);
  }
}

export function positiveMs(value: number, unitMs: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a positive number, got ${String(value)}`);
  }
  return value * unitMs;
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
