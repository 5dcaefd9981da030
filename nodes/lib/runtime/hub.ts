// The account hub: everything the nodes of one easy-account share, free of Node-RED.
// One tariff request per refresh serves every tariff watcher, one poll per gateway every
// sensor watcher; the last good tariffs are kept in a store so a restart without network
// still prices. The contract is in docs/architecture.md ("Account hub").

import { assertTimeZone, MINUTE_MS, SECOND_MS } from '../engine/time';
import { parseTariffs } from '../engine/tariff';
import type { Problem, Tariff } from '../engine/tariff';
import { EasyApiError } from '../api/client';
import type { EasyClient, Sensor } from '../api/client';
import { LongTimer } from '../engine/long-timer';

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

export interface AccountHubOptions {
  client: EasyClient | null;
  timezone: string;
  store?: HubStore;
  now?: () => number;
  /** First retry after a failed tariff fetch; doubles up to the refresh interval. */
  retryMs?: number;
  /**
   * How long the first answers (tariffs, a gateway's first poll) are waited for before
   * watchers price from what was kept (the request deadline, by default the client's).
   */
  firstAnswerWaitMs?: number;
}

/** What the store keeps: plain JSON, so any context store (memory, file) can hold it. */
interface StoredTariffs {
  fetchedAt: number;
  tariffs: unknown[];
  problems: Problem[];
}

type Unwatch = () => void;

const DEFAULT_RETRY_MS = 30 * SECOND_MS;
/** How long shared readers reuse tariffs when no watcher sets the refresh (easy-tariff's default). */
export const SHARED_REFRESH_MS = 60 * MINUTE_MS;
/** How long shared readers reuse the sensors of a gateway no node polls. */
export const SHARED_SENSORS_MS = 60 * SECOND_MS;
/** Shared reads of gateways no node polls start at most this often per account (any gateway id). */
export const SHARED_SENSORS_SPACING_MS = 10 * SECOND_MS;
/** Gateways whose shared read is remembered; the oldest is forgotten first. */
const SHARED_SENSORS_KEPT = 32;
const DEFAULT_FIRST_ANSWER_WAIT_MS = 15 * SECOND_MS;

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
class Watchers<T> {
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

interface GatewayPoll {
  watchers: Watchers<SensorSnapshot>;
  snapshot: SensorSnapshot;
  timer: LongTimer;
  inFlight: Promise<SensorSnapshot> | null;
  /** When the last poll ended, good or not: the next one is an interval after it. */
  endedAt: number | null;
}

export class AccountHub {
  readonly timezone: string;
  private readonly client: EasyClient | null;
  private readonly store: HubStore | undefined;
  private readonly now: () => number;
  private readonly retryMs: number;
  readonly firstAnswerWaitMs: number;

  private snapshot: TariffSnapshot = { tariffs: [], problems: [], fetchedAt: null, error: null, stale: false };
  private readonly tariffWatchers = new Watchers<TariffSnapshot>();
  private readonly tariffTimer = new LongTimer();
  private tariffsInFlight: Promise<TariffSnapshot> | null = null;
  private failures = 0;
  /** The wait the service last asked for (429/503 Retry-After), honoured up to the refresh. */
  private retryAfterMs = 0;
  private readonly loaded: Promise<void>;
  /** Shared readers get the current snapshot until then (the next refresh, or the retry after a failure). */
  private tariffsDueAt = -Infinity;

  /** Shared reads of gateways no node polls: answers by gateway, and when the last one started. */
  private readonly sharedSensorReads = new Map<string, { at: number; answer: Promise<SensorSnapshot> }>();
  private lastSharedSensorRead = -Infinity;
  /**
   * Tariffs loaded from the store, held back while the first fetch may still answer: a
   * deploy against a reachable service prices once, from fresh tariffs.
   */
  private heldFromStore = false;
  private readonly holdTimer = new LongTimer();

  private readonly gateways = new Map<string, GatewayPoll>();
  private readonly controllers = new Set<AbortController>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly immediates = new Set<NodeJS.Immediate>();
  private closed = false;

  constructor(opts: AccountHubOptions) {
    assertTimeZone(opts.timezone);
    this.timezone = opts.timezone;
    this.client = opts.client;
    this.store = opts.store;
    this.now = opts.now ?? Date.now;
    this.retryMs = opts.retryMs ?? DEFAULT_RETRY_MS;
    this.firstAnswerWaitMs = positiveMs(opts.firstAnswerWaitMs ?? DEFAULT_FIRST_ANSWER_WAIT_MS, 1, 'firstAnswerWaitMs');
    this.loaded = this.track(this.loadStored());
  }

  tariffs(): TariffSnapshot {
    return this.snapshot;
  }

  /**
   * Calls onUpdate with every new tariff snapshot, first with the current one (or the
   * result of the first fetch). Returns the function that stops watching.
   */
  watchTariffs(refreshMinutes: number, onUpdate: (s: TariffSnapshot) => void): Unwatch {
    const key = this.tariffWatchers.add(positiveMs(refreshMinutes, MINUTE_MS, 'refreshMinutes'), onUpdate);
    const current = this.snapshot;
    // hand the newcomer what there is (even stale or failed) rather than make it wait
    if ((current.fetchedAt !== null || current.error) && !this.heldFromStore)
      this.later(() => this.tariffWatchers.notify(this.snapshot, key));
    if (this.tariffsInFlight) {
      // the answer on its way serves this watcher too
    } else if (current.fetchedAt !== null && !current.stale && !current.error) {
      // a shorter refresh than before takes effect from the last fetch, not after the old one
      this.scheduleTariffs(current.fetchedAt + this.tariffWatchers.intervalMs);
    } else if (this.waitingToRetry()) {
      // after a failure the retry is already set (backoff, Retry-After): a newcomer waits for it too
    } else {
      this.track(this.fetchTariffsNow());
    }
    return () => {
      this.tariffWatchers.delete(key);
      if (this.tariffWatchers.size === 0) this.tariffTimer.cancel();
    };
  }

  /**
   * Fetches the tariffs now, unless a fetch is already in flight (then shares it), or the
   * last one failed and its retry is set (backoff, Retry-After): then the current snapshot,
   * with no request, so callers at any rate cannot hurry the service.
   */
  refreshTariffs(): Promise<TariffSnapshot> {
    if (this.waitingToRetry()) return Promise.resolve(this.snapshot);
    return this.fetchTariffsNow();
  }

  /**
   * The tariffs for readers that are not watchers (the editor's routes, any number of
   * users at any rate): the current snapshot until the next fetch is due (the refresh,
   * or the retry after a failure), then one fetch that all of them share. The service
   * sees no more requests than one per refresh period, however often they ask.
   */
  sharedTariffs(): Promise<TariffSnapshot> {
    if (this.tariffsInFlight) return this.tariffsInFlight;
    if (this.closed || this.now() < this.tariffsDueAt) return Promise.resolve(this.snapshot);
    return this.fetchTariffsNow();
  }

  /**
   * The sensors of a gateway for readers that are not watchers: a polled gateway's last
   * poll; for any other gateway one read shared and kept for SHARED_SENSORS_MS, and such
   * reads start at most once per SHARED_SENSORS_SPACING_MS per account, whatever the
   * gateway id, so made-up ids cannot spend the account's quota either.
   */
  sharedSensors(gatewayId: string): Promise<SensorSnapshot> {
    const polled = this.gateways.get(gatewayId);
    if (polled) return polled.inFlight ?? Promise.resolve(polled.snapshot);
    const now = this.now();
    const kept = this.sharedSensorReads.get(gatewayId);
    if (kept && now - kept.at < SHARED_SENSORS_MS) return kept.answer;
    const wait = this.lastSharedSensorRead + SHARED_SENSORS_SPACING_MS - now;
    if (wait > 0) {
      const seconds = Math.ceil(wait / SECOND_MS);
      return Promise.reject(
        new EasyApiError('rate_limited', `the account read another gateway's sensors a moment ago: try again in ${seconds} s`),
      );
    }
    this.lastSharedSensorRead = now;
    const answer = this.readSensorsOnce(gatewayId);
    this.sharedSensorReads.delete(gatewayId);
    this.sharedSensorReads.set(gatewayId, { at: now, answer });
    if (this.sharedSensorReads.size > SHARED_SENSORS_KEPT)
      this.sharedSensorReads.delete(this.sharedSensorReads.keys().next().value as string);
    return answer;
  }

  private async readSensorsOnce(gatewayId: string): Promise<SensorSnapshot> {
    try {
      const client = this.requireClient();
      const sensors = await this.withAbort(undefined, (signal) => client.fetchSensors(gatewayId, { signal }));
      return { gatewayId, sensors, polledAt: this.now(), error: null };
    } catch (err) {
      return { gatewayId, sensors: [], polledAt: null, error: asError(err) };
    }
  }

  /** Whether the last tariff fetch failed and the timer for its retry is set. */
  private waitingToRetry(): boolean {
    return !this.tariffsInFlight && this.snapshot.error !== null && this.tariffTimer.armed;
  }

  /** The fetch itself, backoff or not: the first one, and the timer's. Shares one in flight. */
  private fetchTariffsNow(): Promise<TariffSnapshot> {
    if (this.closed) return Promise.resolve(this.snapshot);
    if (!this.tariffsInFlight) {
      this.tariffsInFlight = this.fetchTariffsOnce().finally(() => {
        this.tariffsInFlight = null;
      });
    }
    return this.tariffsInFlight;
  }

  /**
   * Calls onUpdate after every poll of the gateway (first after the current one, or the
   * first poll). Returns the function that stops watching; the last one stops the poll.
   */
  watchSensors(gatewayId: string, intervalSec: number, onUpdate: (s: SensorSnapshot) => void): Unwatch {
    const intervalMs = positiveMs(intervalSec, SECOND_MS, 'intervalSec');
    let poll = this.gateways.get(gatewayId);
    if (!poll) {
      poll = {
        watchers: new Watchers<SensorSnapshot>(),
        snapshot: { gatewayId, sensors: [], polledAt: null, error: null },
        timer: new LongTimer(),
        inFlight: null,
        endedAt: null,
      };
      this.gateways.set(gatewayId, poll);
    }
    const gateway = poll;
    const before = gateway.watchers.intervalMs;
    const key = gateway.watchers.add(intervalMs, onUpdate);
    if (gateway.inFlight) {
      // served by the poll on its way
    } else if (gateway.snapshot.polledAt === null && !gateway.snapshot.error) {
      this.track(this.pollGateway(gateway));
    } else {
      this.later(() => gateway.watchers.notify(gateway.snapshot, key));
      // a shorter interval than before takes effect now, not after the old one
      if (intervalMs < before) this.schedulePoll(gateway);
    }
    return () => {
      gateway.watchers.delete(key);
      if (gateway.watchers.size === 0) {
        gateway.timer.cancel();
        this.gateways.delete(gatewayId);
      }
    };
  }

  /** Whether a poll of the gateway is on its way (a slow one may take the client's retries and waits). */
  pollInFlight(gatewayId: string): boolean {
    return Boolean(this.gateways.get(gatewayId)?.inFlight);
  }

  /** Archival readings through the account's client; aborted when the hub closes. */
  async fetchData(
    gatewayId: string,
    sensorId: string,
    from: number,
    to?: number,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Array<[number, number]>> {
    const client = this.requireClient();
    return this.withAbort(opts.signal, (signal) => client.fetchData(gatewayId, sensorId, from, to, { signal }));
  }

  /** Aborts every request and clears every timer; resolves when nothing is left running. */
  async close(): Promise<void> {
    this.closed = true;
    this.tariffTimer.cancel();
    this.holdTimer.cancel();
    for (const gateway of this.gateways.values()) gateway.timer.cancel();
    this.gateways.clear();
    this.sharedSensorReads.clear();
    for (const handle of this.immediates) clearImmediate(handle);
    this.immediates.clear();
    for (const controller of this.controllers) controller.abort();
    await Promise.allSettled([...this.pending]);
  }

  // -------------------------------------------------------------------------------------
  // Tariffs

  private async fetchTariffsOnce(): Promise<TariffSnapshot> {
    await this.loaded;
    const before = this.snapshot;
    try {
      const client = this.requireClient();
      const { tariffs, problems } = await this.withAbort(undefined, (signal) => client.fetchTariffs({ signal }));
      if (this.closed) return before;
      // An answer in which every tariff breaks the interface (a service sending numbers
      // as text, or dropping fields) must not replace tariffs that worked: it is a bad
      // answer, and the last good ones keep pricing, stale, until a usable one comes.
      const firstError = problems.find((p) => p.severity === 'error');
      if (tariffs.length === 0 && firstError && this.snapshot.tariffs.length > 0) {
        const count = problems.filter((p) => p.severity === 'error').length;
        throw new EasyApiError('invalid_response', `the tariffs answer has no usable tariff (${count} rejected; ${firstError.message})`);
      }
      const fetchedAt = this.now();
      this.snapshot = { tariffs, problems, fetchedAt, error: null, stale: false };
      this.failures = 0;
      await this.save({ fetchedAt, tariffs, problems });
    } catch (err) {
      if (this.closed) return before;
      this.snapshot = { ...this.snapshot, error: asError(err), stale: this.snapshot.fetchedAt !== null };
      this.failures++;
      const asked = (err as Partial<EasyApiError>).retryAfterMs;
      this.retryAfterMs = typeof asked === 'number' && Number.isFinite(asked) ? asked : 0;
    }
    if (this.closed) return this.snapshot;
    this.heldFromStore = false;
    this.holdTimer.cancel();
    this.tariffsDueAt = this.nextTariffFetch();
    this.scheduleTariffs(this.tariffsDueAt);
    this.tariffWatchers.notify(this.snapshot);
    return this.snapshot;
  }

  /**
   * After a failure retry sooner than the refresh, backing off up to it, and never before
   * the service's Retry-After (beyond what the client already waited), capped by the refresh.
   */
  private nextTariffFetch(): number {
    const watched = this.tariffWatchers.intervalMs;
    const refreshMs = Number.isFinite(watched) ? watched : SHARED_REFRESH_MS;
    if (this.failures === 0) return this.now() + refreshMs;
    const backoff = this.retryMs * 2 ** Math.min(this.failures - 1, 20);
    return this.now() + Math.min(Math.max(backoff, this.retryAfterMs), refreshMs);
  }

  private scheduleTariffs(at: number): void {
    if (this.closed || this.tariffWatchers.size === 0 || !Number.isFinite(at)) return;
    this.tariffTimer.arm(at, () => this.track(this.fetchTariffsNow()), this.now);
  }

  private async loadStored(): Promise<void> {
    if (!this.store) return;
    let stored: unknown;
    try {
      stored = await this.store.load();
    } catch {
      return; // an unreadable store is the same as an empty one: start from the API
    }
    const value = asStoredTariffs(stored);
    if (!value || this.closed || this.snapshot.fetchedAt !== null) return;
    const { tariffs } = parseTariffs(value.tariffs);
    this.snapshot = { tariffs, problems: value.problems, fetchedAt: value.fetchedAt, error: null, stale: true };
    // watchers price from these only if the first fetch has not answered within the wait
    this.heldFromStore = true;
    this.holdTimer.arm(
      this.now() + this.firstAnswerWaitMs,
      () => {
        if (!this.heldFromStore || this.closed) return;
        this.heldFromStore = false;
        this.tariffWatchers.notify(this.snapshot);
      },
      this.now,
    );
  }

  private async save(value: StoredTariffs): Promise<void> {
    if (!this.store) return;
    try {
      await this.store.save(JSON.parse(JSON.stringify(value)));
    } catch {
      // the tariffs are still good in memory; only a restart would miss them
    }
  }

  // -------------------------------------------------------------------------------------
  // Sensors

  private pollGateway(gateway: GatewayPoll): Promise<SensorSnapshot> {
    if (!gateway.inFlight) {
      // never answer inside watchSensors() itself: its caller has not got the unwatch yet
      gateway.inFlight = Promise.resolve()
        .then(() => this.pollOnce(gateway))
        .finally(() => {
          gateway.inFlight = null;
        });
    }
    return gateway.inFlight;
  }

  private async pollOnce(gateway: GatewayPoll): Promise<SensorSnapshot> {
    const { gatewayId } = gateway.snapshot;
    try {
      const client = this.requireClient();
      const sensors = await this.withAbort(undefined, (signal) => client.fetchSensors(gatewayId, { signal }));
      gateway.snapshot = { gatewayId, sensors, polledAt: this.now(), error: null };
    } catch (err) {
      gateway.snapshot = { ...gateway.snapshot, error: asError(err) };
    }
    gateway.endedAt = this.now();
    if (this.closed || this.gateways.get(gatewayId) !== gateway) return gateway.snapshot;
    this.schedulePoll(gateway);
    gateway.watchers.notify(gateway.snapshot);
    return gateway.snapshot;
  }

  /** The next poll one interval after the last one ended (a failed one too: no busy loop), or now if due. */
  private schedulePoll(gateway: GatewayPoll): void {
    if (this.closed || gateway.watchers.size === 0) return;
    const last = gateway.endedAt ?? this.now();
    const at = Math.max(last + gateway.watchers.intervalMs, this.now());
    gateway.timer.arm(at, () => this.track(this.pollGateway(gateway)), this.now);
  }

  // -------------------------------------------------------------------------------------
  // Plumbing

  private requireClient(): EasyClient {
    if (this.closed) throw new HubClosedError();
    if (!this.client) throw new NoTokenError();
    return this.client;
  }

  /** Runs a request that the hub can abort on close, also aborted by the caller's signal. */
  private async withAbort<T>(outer: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
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
  private track<T>(p: Promise<T>): Promise<void> {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return settled;
  }

  /** Calls fn on a later turn, unless the hub closes first. */
  private later(fn: () => void): void {
    const handle = setImmediate(() => {
      this.immediates.delete(handle);
      if (!this.closed) fn();
    });
    this.immediates.add(handle);
  }
}

function positiveMs(value: number, unitMs: number, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a positive number, got ${String(value)}`);
  }
  return value * unitMs;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function asStoredTariffs(value: unknown): StoredTariffs | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Partial<StoredTariffs>;
  if (typeof v.fetchedAt !== 'number' || !Array.isArray(v.tariffs)) return null;
  return { fetchedAt: v.fetchedAt, tariffs: v.tariffs, problems: Array.isArray(v.problems) ? v.problems : [] };
}
