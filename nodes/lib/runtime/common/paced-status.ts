// A node's status at every reading is not free: Node-RED turns each one into a message for
// every Status node watching it and a push to every open editor. At 128 meters every 10 s
// that was most of the CPU a reading cost (bench:pi), so stream mode shows at most one
// routine status a second: the first at once, the latest of the rest when the second ends.
// Problems are shown at once and replace whatever routine status was waiting.

import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';
import type { NodeStatus } from './red-types';

/** The shortest time between two routine status updates of a node. */
export const STATUS_EVERY_MS = 1000;

export class PacedStatus {
  private readonly timer = new PaceTimer();
  private waiting: NodeStatus | null = null;
  private lastShown = -Infinity;
  private closed = false;

  constructor(
    private readonly show: (status: NodeStatus) => void,
    private readonly everyMs = STATUS_EVERY_MS,
  ) {}

  /** A routine update (a new total): shown now, or within everyMs if one was just shown. */
  routine(status: NodeStatus): void {
    if (this.closed) return;
    const now = monotonicNow();
    if (!this.timer.armed && now - this.lastShown >= this.everyMs) return this.display(status, now);
    this.waiting = status; // only the latest is worth showing
    if (!this.timer.armed) this.timer.arm(this.lastShown + this.everyMs, () => this.showWaiting());
  }

  /** Shown at once (a problem, what a restart restored); a waiting routine update is older, so dropped. */
  now(status: NodeStatus): void {
    if (this.closed) return;
    this.timer.cancel();
    this.waiting = null;
    this.display(status, monotonicNow());
  }

  /** The node is closing: nothing waiting is shown after it. */
  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.waiting = null;
  }

  private showWaiting(): void {
    const status = this.waiting;
    this.waiting = null;
    if (status) this.display(status, monotonicNow());
  }

  private display(status: NodeStatus, now: number): void {
    this.lastShown = now;
    this.show(status);
  }
}
