// The account's sensor polling registry: one poll per gateway however many watchers ask,
// at the shortest interval any of them wants, each poll an interval after the last one
// ended; the last watcher to leave stops the poll.

import { SECOND_MS } from '../../engine/time/time';
import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';
import { asError, HubRequests, positiveMs, SensorSnapshot, Unwatch, Watchers } from './hub-base';

interface GatewayPoll {
  watchers: Watchers<SensorSnapshot>;
  snapshot: SensorSnapshot;
  timer: PaceTimer;
  inFlight: Promise<SensorSnapshot> | null;
  /** When the last poll ended (monotonicNow), good or not: the next one is an interval after it. */
  endedAt: number | null;
}

/** One read of a gateway's sensors through the account's client: the sensors, or the error in place of them. */
export async function readGateway(requests: HubRequests, gatewayId: string): Promise<SensorSnapshot> {
  try {
    const client = requests.requireClient();
    const sensors = await requests.withAbort(undefined, (signal) => client.fetchSensors(gatewayId, { signal }));
    return { gatewayId, sensors, polledAt: requests.now(), error: null };
  } catch (err) {
    return { gatewayId, sensors: [], polledAt: null, error: asError(err) };
  }
}

export class GatewayPolls {
  private readonly gateways = new Map<string, GatewayPoll>();

  constructor(private readonly requests: HubRequests) {}

  /** AccountHub.watchSensors. */
  watch(gatewayId: string, intervalSec: number, onUpdate: (s: SensorSnapshot) => void): Unwatch {
    const intervalMs = positiveMs(intervalSec, SECOND_MS, 'intervalSec');
    let poll = this.gateways.get(gatewayId);
    if (!poll) {
      poll = {
        watchers: new Watchers<SensorSnapshot>(),
        snapshot: { gatewayId, sensors: [], polledAt: null, error: null },
        timer: new PaceTimer(),
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
      this.requests.track(this.pollGateway(gateway));
    } else {
      this.requests.later(() => gateway.watchers.notify(gateway.snapshot, key));
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

  /** A polled gateway's poll on its way, else its last poll; null when no one polls it. */
  latest(gatewayId: string): Promise<SensorSnapshot> | null {
    const polled = this.gateways.get(gatewayId);
    if (!polled) return null;
    return polled.inFlight ?? Promise.resolve(polled.snapshot);
  }

  /** AccountHub.pollInFlight. */
  inFlight(gatewayId: string): boolean {
    return Boolean(this.gateways.get(gatewayId)?.inFlight);
  }

  close(): void {
    for (const gateway of this.gateways.values()) gateway.timer.cancel();
    this.gateways.clear();
  }

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
    const read = await readGateway(this.requests, gatewayId);
    // a failed poll keeps the last good sensors beside its error
    gateway.snapshot = read.error ? { ...gateway.snapshot, error: read.error } : read;
    gateway.endedAt = monotonicNow();
    if (this.requests.closed || this.gateways.get(gatewayId) !== gateway) return gateway.snapshot;
    this.schedulePoll(gateway);
    gateway.watchers.notify(gateway.snapshot);
    return gateway.snapshot;
  }

  /** The next poll one interval after the last one ended (a failed one too: no busy loop), or now if due. */
  private schedulePoll(gateway: GatewayPoll): void {
    if (this.requests.closed || gateway.watchers.size === 0) return;
    // a pace on the monotonic clock: a step of the wall clock neither stops nor hurries polls
    const now = monotonicNow();
    const at = Math.max((gateway.endedAt ?? now) + gateway.watchers.intervalMs, now);
    gateway.timer.arm(at, () => this.requests.track(this.pollGateway(gateway)));
  }
}
