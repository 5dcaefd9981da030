// easy-peak's guard for a relay (docs/semantics.md, "The peak node"): `shed` as soon as the
// window's projected average would pass the limit less the margin, `restore` once it is
// back under that by the hysteresis, at most one change a minute, never `shed` on data it
// cannot trust. Pure: the caller hands it the projection, the limit, the freshness and now.

/** At most one change of the guard per this many ms. */
export const GUARD_CHANGE_MS = 60_000;

export type GuardState = 'shed' | 'restore';

export interface GuardSettings {
  /** Shed above the limit less this share of it (percent, 0..50). */
  marginPercent: number;
  /** Restore only below the shedding threshold less this share of the limit (percent, 0..50). */
  hysteresisPercent: number;
  minChangeMs?: number;
}

export interface GuardInput {
  /** The projected average kW at the window's end; null when it cannot be projected. */
  projectedKw: number | null;
  /** What the site must stay under (the month's peak value, or the fixed limit); null: none yet. */
  limitKw: number | null;
  /** Whether every meter's latest power is recent enough to act on. */
  fresh: boolean;
  now: number;
}

export interface GuardDecision {
  state: GuardState;
  /** This evaluation changed the state (send it). */
  changed: boolean;
  /** Why the state is what it is, in words for the status and the message. */
  reason: string;
  /** Sheds above this (kW); null without a limit. */
  shedAboveKw: number | null;
  /** Restores at or below this (kW); null without a limit. */
  restoreBelowKw: number | null;
  /** A change is due but waits for the minute since the last one: when it may happen (epoch ms). */
  dueAt: number | null;
}

/** What the guard keeps across restarts: its state and when it last changed. */
export interface GuardMemory {
  state: GuardState;
  changedAt: number;
}

export class PeakGuard {
  private memory: GuardMemory;

  constructor(
    private readonly settings: GuardSettings,
    memory: GuardMemory | null = null,
  ) {
    this.memory = memory ?? { state: 'restore', changedAt: -Infinity };
  }

  get state(): GuardState {
    return this.memory.state;
  }

  /** The wall clock stepped by `by` ms: the last change moves with it, so the minute since it is real time. */
  clockStepped(by: number): void {
    this.memory = { ...this.memory, changedAt: this.memory.changedAt + by };
  }

  /** What a restart needs (stored with the peaks). */
  remember(): GuardMemory {
    return { ...this.memory };
  }

  evaluate(input: GuardInput): GuardDecision {
    const { projectedKw, limitKw, fresh, now } = input;
    const shedAboveKw = limitKw === null ? null : limitKw * (1 - this.settings.marginPercent / 100);
    const restoreBelowKw =
      shedAboveKw === null || limitKw === null ? null : shedAboveKw - limitKw * (this.settings.hysteresisPercent / 100);
    let wanted: GuardState;
    let reason: string;
    if (limitKw === null) {
      wanted = 'restore';
      reason = 'no limit yet';
    } else if (!fresh || projectedKw === null) {
      // never shed on data it cannot trust; a relay is not left off on data nobody sees either
      wanted = 'restore';
      reason = 'stale data';
    } else if (projectedKw > shedAboveKw!) {
      wanted = 'shed';
      reason = 'projected above the limit';
    } else if (projectedKw <= restoreBelowKw!) {
      wanted = 'restore';
      reason = 'projected under the limit';
    } else {
      // between the two thresholds: the hysteresis band keeps what is
      wanted = this.memory.state;
      reason = wanted === 'shed' ? 'projected near the limit' : 'projected under the limit';
    }
    const base = { shedAboveKw, restoreBelowKw };
    if (wanted === this.memory.state) return { ...base, state: wanted, changed: false, reason, dueAt: null };
    const mayChangeAt = this.memory.changedAt + (this.settings.minChangeMs ?? GUARD_CHANGE_MS);
    if (now < mayChangeAt) {
      return {
        ...base,
        state: this.memory.state,
        changed: false,
        reason: `${reason}; waiting for the minute since the last change`,
        dueAt: mayChangeAt,
      };
    }
    this.memory = { state: wanted, changedAt: now };
    return { ...base, state: wanted, changed: true, reason, dueAt: null };
  }
}
