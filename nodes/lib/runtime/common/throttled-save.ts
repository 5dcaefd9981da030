// How a node's running state reaches its context store: at most once a minute (the first
// change at once), at once when asked (a reset, the node closing), never once per reading
// (docs/semantics.md, "Stream totals on flash"). Used by easy-cost's stream mode and easy-peak.
import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';

/** At most one save per minute: readings are cumulative, so a crash loses no energy (the next reading's interval covers the gap). */
export const SAVE_EVERY_MS = 60_000;

/**
 * Hands a node's state to the store at most once every `everyMs` (the first change at once),
 * and at once when asked (a reset, the node closing). A failed save is said once until
 * one works again.
 */
export class ThrottledSave {
  private dirty = false;
  private readonly timer = new PaceTimer();
  private lastSave = -Infinity;
  private closed = false;
  private failing = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly save: () => Promise<void>,
    private readonly everyMs: number,
    private readonly warn: (message: string) => void,
    /** What is saved, for the warning: "running totals", "peaks". */
    private readonly what = 'running totals',
  ) {}

  /** Something changed: saved within everyMs of the last save. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.timer.armed) return;
    this.timer.arm(this.lastSave + this.everyMs, () => void this.now());
  }

  /** Saves now if anything changed since the last save; resolves once it is in the store. */
  now(): Promise<void> {
    this.timer.cancel();
    if (!this.dirty) return this.running;
    this.dirty = false;
    this.lastSave = monotonicNow(); // a pace: a step of the wall clock neither hurries nor stops saves
    this.running = this.running.then(() =>
      this.save().then(
        () => void (this.failing = false),
        (err: Error) => {
          this.dirty = true; // tried again with the next change or on close
          if (!this.failing) this.warn(`${this.what} could not be saved: ${err?.message ?? String(err)}`);
          this.failing = true;
        },
      ),
    );
    return this.running;
  }

  /** The last save (the node is closing); nothing is saved after it. */
  close(): Promise<void> {
    this.closed = true; // before the save: a reading handled meanwhile arms no timer
    return this.now();
  }
}
