// The wall clock (Date.now) can step: a Pi without a real-time clock boots at the time it
// last saved and NTP then steps it forward, or back when it was ahead. Timers keep real
// time through a step (libuv waits on a monotonic clock), so a timer armed for a wall-clock
// instant fires as far off as the step, and a pace measured between two Date.now() readings
// stops for as long as a step back. Here the wall clock is compared with a monotonic one
// (performance.now, which never steps), one check for the whole process shared by every
// node: a step is the difference between the two moving by more than STEP_MS between two
// looks. Deadline timers (long-timer.ts) are then armed again from the new clock at once,
// and listeners told, so what is judged by the wall clock is judged again now
// (docs/semantics.md, "Clock steps").

/**
 * A step is the wall clock moving this far (ms) away from the monotonic one, either way.
 * Between two looks LOOK_EVERY_MS apart the two drift apart by ~2.5 ms at the most (NTP slews
 * at most 500 ppm) and Date.now() is read to the ms: a second is far above that, and a step
 * smaller than it leaves a deadline at most a second off (a timer re-reads the clock when
 * it fires, so a small step back is waited out anyway). NTP daemons step from 0.128 s
 * (ntpd), 0.4 s (systemd-timesyncd) or 1 s (chrony's usual makestep).
 */
export const STEP_MS = 1000;

/**
 * How often the clocks are compared while something waits on the wall clock: a step is
 * judged within this. Each look wakes the process (~150 µs of CPU on the bench machine,
 * nearly all of it Node's own wake: the look is ~0.2 µs): every second made an idle
 * Node-RED use 10.6 ms of CPU a minute, 6x its 1.7 without the check; every 5 s 3.7
 * (npm run bench:idle, docs/semantics.md "Clock steps"). What a step must not get
 * wrong waits for no look: a deadline looks before it fires, a node before it stamps a
 * reading with the wall clock.
 */
export const LOOK_EVERY_MS = 5000;

/** Two monotonic reads further apart than this around the wall-clock read: the look is not trusted (the process was stopped between them). */
const READ_SKEW_MS = 50;

/**
 * A look older than this (no heartbeat ran: nothing waited on the wall clock) is taken
 * afresh, not compared: slewing at 500 ppm, the clocks drift apart 0.45 s in 15 minutes,
 * still below STEP_MS.
 */
const STALE_LOOK_MS = 15 * 60_000;

/**
 * The heartbeat's timers, taken when this module loads: a test's fake clock steps Date and
 * performance together and the looks go on in real time; a heartbeat on fake timers would
 * fire 3,600 times per simulated hour, each a real turn of the event loop.
 */
const heartbeatTimers = { setTimeout, clearTimeout };

/** The monotonic clock (ms, arbitrary origin): pacing and timeouts measure with it. */
export function monotonicNow(): number {
  return performance.now();
}

export interface ClockStep {
  /** How far the wall clock moved beyond the time that passed: > 0 forward, < 0 back. */
  by: number;
  /** The wall clock after the step (Date.now() when it was seen). */
  now: number;
}

/** A timer armed to a wall-clock instant: armed again from the new clock when it steps. */
export interface SteppedTimer {
  rearm(): void;
}

export class ClockSteps {
  /** Wall minus monotonic at the last look, and the monotonic time of that look. */
  private offset = 0;
  private lookedAt = -Infinity;
  private readonly timers = new Set<SteppedTimer>();
  private readonly listeners = new Set<(step: ClockStep) => void>();
  private heartbeat: ReturnType<typeof setTimeout> | null = null;
  private steps = 0;

  constructor(
    private readonly wall: () => number = () => Date.now(),
    private readonly monotonic: () => number = monotonicNow,
  ) {}

  /** How many steps were seen since the process started (tests, the bench). */
  get seen(): number {
    return this.steps;
  }

  /** What the check holds now: armed deadline timers, listeners, and whether its heartbeat is armed (tests, the bench). */
  get watching(): { timers: number; listeners: number; beating: boolean } {
    return { timers: this.timers.size, listeners: this.listeners.size, beating: this.heartbeat !== null };
  }

  /** The next look only takes the clocks afresh (a test puts in or takes out a fake clock: both clocks change at once). */
  takeAfresh(): void {
    this.lookedAt = -Infinity;
  }

  /** A deadline timer is armed (`rearm` is called on a step) or no longer armed. */
  track(timer: SteppedTimer, armed: boolean): void {
    if (armed) {
      this.timers.add(timer);
      this.beat();
    } else if (this.timers.delete(timer)) this.rest();
  }

  /** Calls `fn` after each step, once the deadline timers are armed again; returns the function that stops it. */
  onStep(fn: (step: ClockStep) => void): () => void {
    this.listeners.add(fn);
    this.beat();
    return () => {
      if (this.listeners.delete(fn)) this.rest();
    };
  }

  /**
   * Compares the clocks now; on a step re-arms every deadline timer and tells every
   * listener, then returns the step (null: none). Cheap (three clock reads): a node may
   * look before it stamps a reading with the wall clock.
   */
  look(): ClockStep | null {
    const before = this.monotonic();
    const wall = this.wall();
    const after = this.monotonic();
    if (after - before > READ_SKEW_MS) return null;
    const offset = wall - after;
    const since = after - this.lookedAt;
    const stale = !(since >= 0 && since <= STALE_LOOK_MS); // also a monotonic clock that went back (a test's fake one)
    const by = offset - this.offset;
    this.offset = offset;
    this.lookedAt = after;
    if (stale || Math.abs(by) <= STEP_MS) return null;
    this.steps++;
    const step = { by, now: wall };
    for (const timer of [...this.timers]) timer.rearm();
    for (const fn of [...this.listeners]) {
      try {
        fn(step);
      } catch {
        // a listener's own bug; the others are still told
      }
    }
    return step;
  }

  /** Nothing waits on the wall clock any more: the heartbeat stops now, not at its next look (a redeploy leaves none beating). */
  private rest(): void {
    if (this.timers.size > 0 || this.listeners.size > 0 || !this.heartbeat) return;
    heartbeatTimers.clearTimeout(this.heartbeat);
    this.heartbeat = null;
  }

  /** Looks every LOOK_EVERY_MS while a deadline timer is armed or someone listens; never keeps the process alive. */
  private beat(): void {
    const since = this.monotonic() - this.lookedAt;
    if (this.heartbeat && since >= 0 && since <= STALE_LOOK_MS) return;
    if (this.heartbeat) heartbeatTimers.clearTimeout(this.heartbeat); // one that stopped beating
    this.look();
    const next = () => {
      this.heartbeat = null;
      if (this.timers.size === 0 && this.listeners.size === 0) return;
      this.look();
      this.heartbeat = heartbeatTimers.setTimeout(next, LOOK_EVERY_MS);
      this.heartbeat.unref();
    };
    this.heartbeat = heartbeatTimers.setTimeout(next, LOOK_EVERY_MS);
    this.heartbeat.unref();
  }
}

/** The process's one check, shared by every node. */
export const clockSteps = new ClockSteps();
