// Follow the sensors a tariff's rules read: watch, through the account hub, exactly the
// gateways they name (one poll per gateway however many nodes ask), and let go of the
// others when the tariff changes. Used by easy-tariff's TariffWatch and easy-cost's
// stream mode alike.
import type { AccountHub, SensorSnapshot } from '../account/hub';
import { sensorsUsedBy, SensorRef, Tariff } from '../../engine/tariff/tariff';

export class SensorFollower {
  private readonly watches = new Map<string, () => void>();
  private followed = '';

  constructor(
    private readonly hub: Pick<AccountHub, 'watchSensors'>,
    private readonly pollSec: number,
    private readonly onPoll: (snapshot: SensorSnapshot) => void,
  ) {}

  /**
   * Follows `refs` from now on; true when they differ from the ones followed before.
   * `beforeWatching` hears of each gateway newly watched, before its first poll can arrive.
   */
  follow(refs: SensorRef[], beforeWatching?: (gatewayId: string) => void): boolean {
    const key = JSON.stringify(refs.map((r) => [r.gatewayId, r.sensorId]));
    if (key === this.followed) return false;
    this.followed = key;
    const wanted = new Set(refs.map((r) => r.gatewayId));
    for (const [gatewayId, unwatch] of this.watches) {
      if (wanted.has(gatewayId)) continue;
      unwatch();
      this.watches.delete(gatewayId);
    }
    for (const gatewayId of wanted) {
      if (this.watches.has(gatewayId)) continue;
      beforeWatching?.(gatewayId);
      this.watches.set(
        gatewayId,
        this.hub.watchSensors(gatewayId, this.pollSec, (s) => this.onPoll(s)),
      );
    }
    return true;
  }

  /** Follows the sensors `tariff` reads (no tariff: no change); the refs when they changed, else null. */
  followTariff(tariff: Tariff | null | undefined): SensorRef[] | null {
    if (!tariff) return null;
    const refs = sensorsUsedBy(tariff);
    return this.follow(refs) ? refs : null;
  }

  /** Whether the gateway is watched now. */
  watching(gatewayId: string): boolean {
    return this.watches.has(gatewayId);
  }

  close(): void {
    for (const unwatch of this.watches.values()) unwatch();
    this.watches.clear();
    this.followed = '';
  }
}
