// The account hub: everything the nodes of one easy-account share, free of Node-RED.
// One tariff request per refresh serves every tariff watcher (tariff-cache), one poll per
// gateway every sensor watcher (gateway-polls); readers that are not watchers share those
// answers (shared-sensor-reads); the last good tariffs are kept in a store so a restart
// without network still prices. The contract is in docs/architecture.md ("Account hub").

import { assertTimeZone, SECOND_MS } from '../../engine/time/time';
import type { EasyClient } from '../../api/client';
import { HubRequests, HubStore, positiveMs, SensorSnapshot, TariffSnapshot, Unwatch } from './hub-base';
import { DEFAULT_RETRY_MS, TariffCache } from './tariff-cache';
import { GatewayPolls } from './gateway-polls';
import { SharedSensorReads } from './shared-sensor-reads';

export { NoTokenError } from './hub-base';
export type { HubStore, SensorSnapshot, TariffSnapshot } from './hub-base';
export { SHARED_REFRESH_MS } from './tariff-cache';
export { SHARED_SENSORS_MS, SHARED_SENSORS_SPACING_MS } from './shared-sensor-reads';

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
  /** Says what a read of the store dropped (a forged or damaged store): once per read. */
  warn?: (message: string) => void;
}

const DEFAULT_FIRST_ANSWER_WAIT_MS = 15 * SECOND_MS;

export class AccountHub {
  readonly timezone: string;
  readonly firstAnswerWaitMs: number;
  private readonly requests: HubRequests;
  private readonly tariffCache: TariffCache;
  private readonly polls: GatewayPolls;
  private readonly sharedReads: SharedSensorReads;

  constructor(opts: AccountHubOptions) {
    assertTimeZone(opts.timezone);
    this.timezone = opts.timezone;
    this.firstAnswerWaitMs = positiveMs(opts.firstAnswerWaitMs ?? DEFAULT_FIRST_ANSWER_WAIT_MS, 1, 'firstAnswerWaitMs');
    this.requests = new HubRequests(opts.client, opts.now ?? Date.now);
    this.tariffCache = new TariffCache(this.requests, opts.store, opts.retryMs ?? DEFAULT_RETRY_MS, this.firstAnswerWaitMs, opts.warn);
    this.polls = new GatewayPolls(this.requests);
    this.sharedReads = new SharedSensorReads(this.requests, this.polls);
  }

  tariffs(): TariffSnapshot {
    return this.tariffCache.current();
  }

  /**
   * Calls onUpdate with every new tariff snapshot, first with the current one (or the
   * result of the first fetch). Returns the function that stops watching.
   */
  watchTariffs(refreshMinutes: number, onUpdate: (s: TariffSnapshot) => void): Unwatch {
    return this.tariffCache.watch(refreshMinutes, onUpdate);
  }

  /**
   * Fetches the tariffs now, unless a fetch is already in flight (then shares it), or the
   * last one failed and its retry is set (backoff, Retry-After): then the current snapshot,
   * with no request, so callers at any rate cannot hurry the service.
   */
  refreshTariffs(): Promise<TariffSnapshot> {
    return this.tariffCache.refresh();
  }

  /**
   * The tariffs for readers that are not watchers (the editor's routes, any number of
   * users at any rate): the current snapshot until the next fetch is due (the refresh,
   * or the retry after a failure), then one fetch that all of them share. The service
   * sees no more requests than one per refresh period, however often they ask.
   */
  sharedTariffs(): Promise<TariffSnapshot> {
    return this.tariffCache.shared();
  }

  /**
   * The sensors of a gateway for readers that are not watchers: a polled gateway's last
   * poll; for any other gateway one read shared and kept for SHARED_SENSORS_MS, and such
   * reads start at most once per SHARED_SENSORS_SPACING_MS per account, whatever the
   * gateway id, so made-up ids cannot spend the account's quota either.
   */
  sharedSensors(gatewayId: string): Promise<SensorSnapshot> {
    return this.sharedReads.read(gatewayId);
  }

  /**
   * Calls onUpdate after every poll of the gateway (first after the current one, or the
   * first poll). Returns the function that stops watching; the last one stops the poll.
   */
  watchSensors(gatewayId: string, intervalSec: number, onUpdate: (s: SensorSnapshot) => void): Unwatch {
    return this.polls.watch(gatewayId, intervalSec, onUpdate);
  }

  /** Whether a poll of the gateway is on its way (a slow one may take the client's retries and waits). */
  pollInFlight(gatewayId: string): boolean {
    return this.polls.inFlight(gatewayId);
  }

  /** Archival readings through the account's client; aborted when the hub closes. */
  async fetchData(
    gatewayId: string,
    sensorId: string,
    from: number,
    to?: number,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Array<[number, number]>> {
    const client = this.requests.requireClient();
    return this.requests.withAbort(opts.signal, (signal) => client.fetchData(gatewayId, sensorId, from, to, { signal }));
  }

  /** Aborts every request and clears every timer; resolves when nothing is left running. */
  async close(): Promise<void> {
    this.requests.markClosed();
    this.tariffCache.close();
    this.polls.close();
    this.sharedReads.clear();
    await this.requests.close();
  }
}
