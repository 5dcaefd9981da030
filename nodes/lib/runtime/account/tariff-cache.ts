// The account's tariffs: one request per refresh serves every watcher, a failed fetch is
// retried with backoff (never before the service's Retry-After), readers that are not
// watchers share the current snapshot, and the last good tariffs are kept in a store so
// a restart without network still prices.

import { MINUTE_MS, SECOND_MS } from '../../engine/time/time';
import { parseTariffsInSlices } from '../../engine/tariff/tariff';
import type { Problem } from '../../engine/tariff/tariff';
import { EasyApiError } from '../../api/client';
import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';
import { asError, HubRequests, HubStore, positiveMs, TariffSnapshot, Unwatch, Watchers } from './hub-base';
import { DroppedState, isRecord, isStoredInstant, StoredAhead, storedInstantText } from '../../engine/common/stored-checks';
import { MAX_PROBLEMS_PER_ANSWER, MAX_TARIFFS_PER_ANSWER } from '../../engine/common/limits';

/** What the store keeps: plain JSON, so any context store (memory, file) can hold it. */
interface StoredTariffs {
  fetchedAt: number;
  tariffs: unknown[];
  problems: Problem[];
}

export const DEFAULT_RETRY_MS = 30 * SECOND_MS;
/** How long shared readers reuse tariffs when no watcher sets the refresh (easy-tariff's default). */
export const SHARED_REFRESH_MS = 60 * MINUTE_MS;

export class TariffCache {
  private snapshot: TariffSnapshot = { tariffs: [], problems: [], fetchedAt: null, error: null, stale: false };
  private readonly watchers = new Watchers<TariffSnapshot>();
  /** Refreshes and retries are paces (monotonicNow): a step of the wall clock neither stops nor hurries them. */
  private readonly timer = new PaceTimer();
  private inFlight: Promise<TariffSnapshot> | null = null;
  private failures = 0;
  /** The wait the service last asked for (429/503 Retry-After), honoured up to the refresh. */
  private retryAfterMs = 0;
  private readonly loaded: Promise<void>;
  /** Shared readers get the current snapshot until then (monotonicNow: the next refresh, or the retry after a failure). */
  private dueAt = -Infinity;
  /** When the current tariffs were fetched, on the monotonic clock (fetchedAt is the wall clock's, for people). */
  private fetchedPace = -Infinity;
  /**
   * Tariffs loaded from the store, held back while the first fetch may still answer: a
   * deploy against a reachable service prices once, from fresh tariffs.
   */
  private heldFromStore = false;
  private readonly holdTimer = new PaceTimer();
  private readonly now: () => number;

  constructor(
    private readonly requests: HubRequests,
    private readonly store: HubStore | undefined,
    private readonly retryMs: number,
    private readonly firstAnswerWaitMs: number,
    /** Says once what a read of the store dropped (the account node's warning). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.now = requests.now;
    this.loaded = requests.track(this.loadStored());
  }

  current(): TariffSnapshot {
    return this.snapshot;
  }

  /** AccountHub.watchTariffs. */
  watch(refreshMinutes: number, onUpdate: (s: TariffSnapshot) => void): Unwatch {
    const key = this.watchers.add(positiveMs(refreshMinutes, MINUTE_MS, 'refreshMinutes'), onUpdate);
    const current = this.snapshot;
    // hand the newcomer what there is (even stale or failed) rather than make it wait
    if ((current.fetchedAt !== null || current.error) && !this.heldFromStore)
      this.requests.later(() => this.watchers.notify(this.snapshot, key));
    if (this.inFlight) {
      // the answer on its way serves this watcher too
    } else if (current.fetchedAt !== null && !current.stale && !current.error) {
      // a shorter refresh than before takes effect from the last fetch, not after the old one
      this.schedule(this.fetchedPace + this.watchers.intervalMs);
    } else if (this.waitingToRetry()) {
      // after a failure the retry is already set (backoff, Retry-After): a newcomer waits for it too
    } else {
      this.requests.track(this.fetchNow());
    }
    return () => {
      this.watchers.delete(key);
      if (this.watchers.size === 0) this.timer.cancel();
    };
  }

  /** AccountHub.refreshTariffs. */
  refresh(): Promise<TariffSnapshot> {
    if (this.waitingToRetry()) return Promise.resolve(this.snapshot);
    return this.fetchNow();
  }

  /** AccountHub.sharedTariffs. */
  shared(): Promise<TariffSnapshot> {
    if (this.inFlight) return this.inFlight;
    if (this.requests.closed || monotonicNow() < this.dueAt) return Promise.resolve(this.snapshot);
    return this.fetchNow();
  }

  close(): void {
    this.timer.cancel();
    this.holdTimer.cancel();
  }

  /** Whether the last tariff fetch failed and the timer for its retry is set. */
  private waitingToRetry(): boolean {
    return !this.inFlight && this.snapshot.error !== null && this.timer.armed;
  }

  /** The fetch itself, backoff or not: the first one, and the timer's. Shares one in flight. */
  private fetchNow(): Promise<TariffSnapshot> {
    if (this.requests.closed) return Promise.resolve(this.snapshot);
    if (!this.inFlight) {
      this.inFlight = this.fetchOnce().finally(() => {
        this.inFlight = null;
      });
    }
    return this.inFlight;
  }

  private async fetchOnce(): Promise<TariffSnapshot> {
    await this.loaded;
    const before = this.snapshot;
    try {
      const client = this.requests.requireClient();
      const { tariffs, problems } = await this.requests.withAbort(undefined, (signal) => client.fetchTariffs({ signal }));
      if (this.requests.closed) return before;
      // An answer in which every tariff breaks the interface (a service sending numbers
      // as text, or dropping fields) must not replace tariffs that worked: it is a bad
      // answer, and the last good ones keep pricing, stale, until a usable one comes.
      const firstError = problems.find((p) => p.severity === 'error');
      if (tariffs.length === 0 && firstError && this.snapshot.tariffs.length > 0) {
        const count = problems.filter((p) => p.severity === 'error').length;
        throw new EasyApiError('invalid_response', `the tariffs answer has no usable tariff (${count} rejected; ${firstError.message})`);
      }
      const fetchedAt = this.now();
      this.fetchedPace = monotonicNow();
      this.snapshot = { tariffs, problems, fetchedAt, error: null, stale: false };
      this.failures = 0;
      await this.save({ fetchedAt, tariffs, problems });
    } catch (err) {
      if (this.requests.closed) return before;
      this.snapshot = { ...this.snapshot, error: asError(err), stale: this.snapshot.fetchedAt !== null };
      this.failures++;
      const asked = (err as Partial<EasyApiError>).retryAfterMs;
      this.retryAfterMs = typeof asked === 'number' && Number.isFinite(asked) ? asked : 0;
    }
    if (this.requests.closed) return this.snapshot;
    this.heldFromStore = false;
    this.holdTimer.cancel();
    this.dueAt = this.nextFetch();
    this.schedule(this.dueAt);
    this.watchers.notify(this.snapshot);
    return this.snapshot;
  }

  /**
   * After a failure retry sooner than the refresh, backing off up to it, and never before
   * the service's Retry-After (beyond what the client already waited), capped by the refresh.
   */
  private nextFetch(): number {
    const watched = this.watchers.intervalMs;
    const refreshMs = Number.isFinite(watched) ? watched : SHARED_REFRESH_MS;
    if (this.failures === 0) return monotonicNow() + refreshMs;
    const backoff = this.retryMs * 2 ** Math.min(this.failures - 1, 20);
    return monotonicNow() + Math.min(Math.max(backoff, this.retryAfterMs), refreshMs);
  }

  private schedule(at: number): void {
    if (this.requests.closed || this.watchers.size === 0 || !Number.isFinite(at)) return;
    this.timer.arm(at, () => this.requests.track(this.fetchNow()));
  }

  private async loadStored(): Promise<void> {
    if (!this.store) return;
    let stored: unknown;
    try {
      stored = await this.store.load();
    } catch {
      return; // an unreadable store is the same as an empty one: start from the API
    }
    const dropped = new DroppedState('stored tariffs');
    const loadedAt = this.now();
    const value = asStoredTariffs(stored, loadedAt, dropped);
    if (!value || this.requests.closed || this.snapshot.fetchedAt !== null) return dropped.tell(this.warn);
    const { tariffs, problems } = await parseTariffsInSlices(value.tariffs);
    // the node stores tariffs that passed these checks: one that fails now is not its own
    const rejected = problems.filter((p) => p.severity === 'error' && p.tariffId !== null).length;
    if (tariffs.length < value.tariffs.length)
      dropped.add(
        `${value.tariffs.length - tariffs.length} of ${value.tariffs.length} tariffs that break the interface (${rejected} errors)`,
      );
    dropped.tell(this.warn);
    if (this.requests.closed || this.snapshot.fetchedAt !== null) return; // a fetch answered meanwhile
    new StoredAhead(this.warn).tell('stored tariffs', value.fetchedAt, loadedAt, 'they price (stale) until a fetch answers');
    this.snapshot = { tariffs, problems: value.problems, fetchedAt: value.fetchedAt, error: null, stale: true };
    // watchers price from these only if the first fetch has not answered within the wait
    this.heldFromStore = true;
    this.holdTimer.after(this.firstAnswerWaitMs, () => {
      if (!this.heldFromStore || this.requests.closed) return;
      this.heldFromStore = false;
      this.watchers.notify(this.snapshot);
    });
  }

  private async save(value: StoredTariffs): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.save(JSON.parse(JSON.stringify(value)));
    } catch {
      // the tariffs are still good in memory; only a restart would miss them
    }
  }
}

/**
 * What the store kept, checked against what fetchOnce writes (docs/semantics.md, "Stored
 * state"): the tariffs as a list of at most MAX_TARIFFS_PER_ANSWER, the fetch time an
 * instant near `now` (isStoredInstant: at most a year ahead, kept from a later clock; else
 * the load's instant: the tariffs still price, as stale), the
 * problems in their shape and number. What fails is named in `dropped`; null when there
 * are no tariffs to use.
 */
function asStoredTariffs(value: unknown, now: number, dropped: DroppedState): StoredTariffs | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value) || !Array.isArray(value.tariffs)) {
    dropped.add('everything: not the shape the account stores');
    return null;
  }
  let fetchedAt = value.fetchedAt;
  if (!isStoredInstant(fetchedAt, now)) {
    dropped.add(`the fetch time (${storedInstantText(fetchedAt)}, not an instant near now): the tariffs count as fetched at this start`);
    fetchedAt = now;
  }
  let tariffs = value.tariffs;
  if (tariffs.length > MAX_TARIFFS_PER_ANSWER) {
    dropped.add(`${tariffs.length - MAX_TARIFFS_PER_ANSWER} tariffs beyond the ${MAX_TARIFFS_PER_ANSWER} an answer gives`);
    tariffs = tariffs.slice(0, MAX_TARIFFS_PER_ANSWER);
  }
  const listed = Array.isArray(value.problems) ? value.problems : [];
  if (value.problems !== undefined && !Array.isArray(value.problems)) dropped.add('the problems (not a list)');
  // the kept problems, then one "… and N more" entry (ProblemList)
  const problems = listed.slice(0, MAX_PROBLEMS_PER_ANSWER + 1).filter(isProblem);
  const bad = listed.length - problems.length;
  if (bad > 0)
    dropped.add(`${bad} of ${listed.length} problems (not a problem's shape, or beyond the ${MAX_PROBLEMS_PER_ANSWER + 1} kept)`);
  return { fetchedAt: fetchedAt as number, tariffs, problems };
}

/** A problem as parseTariffs makes it. */
function isProblem(x: unknown): x is Problem {
  if (!isRecord(x)) return false;
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  return (
    (x.severity === 'error' || x.severity === 'warning') &&
    typeof x.message === 'string' &&
    textOrNull(x.tariffId) &&
    textOrNull(x.field) &&
    (x.ruleIndex === null || (Number.isSafeInteger(x.ruleIndex) && (x.ruleIndex as number) >= 0))
  );
}
