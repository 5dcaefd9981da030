// Before a TariffWatch sends its first price from a tariff with sensor rules, it waits
// for what may change that price a moment later: the sensor values kept from before a
// restart and the first poll of each gateway the rules name; at most a wait long (a pace
// on the monotonic clock: a step of the wall clock neither ends nor stretches it).

import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';

export class FirstPriceHold {
  /** Gateways whose first poll has not answered. */
  private readonly awaitingPoll = new Set<string>();
  private keptLoaded = false;
  private holdUntil = Infinity;
  private readonly timer = new PaceTimer();

  /** `waitMs`: how long the hold may last from the first price it holds; `onEnd` prices when it is over. */
  constructor(
    private readonly waitMs: () => number,
    private readonly onEnd: () => void,
  ) {}

  /** A gateway is watched: its first poll is awaited. */
  awaitPoll(gatewayId: string): void {
    this.awaitingPoll.add(gatewayId);
  }

  /** A gateway's poll answered; true when that answer was awaited. */
  pollAnswered(gatewayId: string): boolean {
    return this.awaitingPoll.delete(gatewayId);
  }

  /** The kept sensor values are in (or there is no store to keep them). */
  keptDone(): void {
    this.keptLoaded = true;
  }

  /** Whether a first price now waits; the first time it does, the wait starts. */
  holding(): boolean {
    if (this.keptLoaded && this.awaitingPoll.size === 0) return false;
    const now = monotonicNow();
    if (this.holdUntil === Infinity) {
      this.holdUntil = now + this.waitMs();
      this.timer.arm(this.holdUntil, () => {
        this.awaitingPoll.clear();
        this.keptLoaded = true;
        this.onEnd();
      });
    }
    return now < this.holdUntil;
  }

  cancel(): void {
    this.timer.cancel();
  }
}
