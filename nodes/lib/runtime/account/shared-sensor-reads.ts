// The sensors of a gateway for readers that are not watchers (the editor's routes, any
// number of users at any rate): a polled gateway's last poll; any other gateway is read
// once, shared and kept for a while, and such reads are spaced per account whatever the
// gateway id, so made-up ids cannot spend the account's quota either.

import { SECOND_MS } from '../../engine/time/time';
import { EasyApiError } from '../../api/client';
import { monotonicNow } from '../../engine/time/long-timer';
import { HubRequests, SensorSnapshot } from './hub-base';
import { GatewayPolls, readGateway } from './gateway-polls';

/** How long shared readers reuse the sensors of a gateway no node polls. */
export const SHARED_SENSORS_MS = 60 * SECOND_MS;
/** Shared reads of gateways no node polls start at most this often per account (any gateway id). */
export const SHARED_SENSORS_SPACING_MS = 10 * SECOND_MS;
/** Gateways whose shared read is remembered; the oldest is forgotten first. */
const SHARED_SENSORS_KEPT = 32;

export class SharedSensorReads {
  /** Answers by gateway, and when the last read started (monotonicNow: a step of the wall clock changes no spacing). */
  private readonly reads = new Map<string, { at: number; answer: Promise<SensorSnapshot> }>();
  private lastRead = -Infinity;

  constructor(
    private readonly requests: HubRequests,
    private readonly polls: GatewayPolls,
  ) {}

  /** AccountHub.sharedSensors. */
  read(gatewayId: string): Promise<SensorSnapshot> {
    const polled = this.polls.latest(gatewayId);
    if (polled) return polled;
    const now = monotonicNow();
    const kept = this.reads.get(gatewayId);
    if (kept && now - kept.at < SHARED_SENSORS_MS) return kept.answer;
    const wait = this.lastRead + SHARED_SENSORS_SPACING_MS - now;
    if (wait > 0) {
      const seconds = Math.ceil(wait / SECOND_MS);
      return Promise.reject(
        new EasyApiError('rate_limited', `the account read another gateway's sensors a moment ago: try again in ${seconds} s`),
      );
    }
    this.lastRead = now;
    const answer = readGateway(this.requests, gatewayId);
    this.reads.delete(gatewayId);
    this.reads.set(gatewayId, { at: now, answer });
    if (this.reads.size > SHARED_SENSORS_KEPT) this.reads.delete(this.reads.keys().next().value as string);
    return answer;
  }

  clear(): void {
    this.reads.clear();
  }
}
