// easy-peak's guard for a relay (docs/semantics.md, "The peak node", and rule 46): it keeps
// the window under the kW that would raise the bill, less the margin, and acts only in a
// window that can raise it. It sheds at the latest safe moment once it knows the shed load
// (the drop at its last shed, or the setting): when waiting for the next chance to act
// could no longer keep the window under; before it knows, as soon as the projection passes.
// It restores only when the shed load fits in what is left of the window, or (shed load
// unknown) at a later window's start; never on data it cannot trust, at most one change a
// minute. Pure: the caller hands it the window, the projection, the power, the limit and now.

/** At most one change of the guard per this many ms. */
export const GUARD_CHANGE_MS = 60_000;
/** How late a shed may come after the moment it is decided (the minute between changes, a reading's interval). */
export const SHED_REACTION_MS = GUARD_CHANGE_MS + 15_000;
/** A drop at shed smaller than this (kW) says nothing about the shed load (the load was off, or noise). */
const LEARN_MIN_KW = 0.2;
/** The drop is read from the first power measured wholly after the shed: a reading this long after it. */
const LEARN_AFTER_MS = 20_000;

export type GuardState = 'shed' | 'restore';

export interface GuardSettings {
  /** Shed above the limit less this share of it (percent, 0..50). */
  marginPercent: number;
  /** Restore only below the shedding threshold less this share of the limit (percent, 0..50). */
  hysteresisPercent: number;
  /** The load the relay sheds (kW); null: learned from the drop at shed. */
  shedKw?: number | null;
  minChangeMs?: number;
}

export interface GuardInput {
  /** The projected average kW at the window's end; null when it cannot be projected. */
  projectedKw: number | null;
  /** What a window must stay under to not raise the bill (or the fixed limit); null: nothing to guard in this window. */
  limitKw: number | null;
  /** Whether every meter's latest power is recent enough to act on. */
  fresh: boolean;
  now: number;
  /** The window the newest reading is in, that reading's instant, and the site's latest power (kW). */
  window?: { from: number; to: number } | null;
  at?: number;
  powerKw?: number | null;
  /** Why there is no limit, in words (default "no limit yet"). */
  noLimit?: string;
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
  /** The shed load the guard counts on (the setting, or learned); null: not known yet. */
  shedKw: number | null;
  /** A change is due but waits for the minute since the last one: when it may happen (epoch ms). */
  dueAt: number | null;
}

/** What the guard keeps across restarts: its state and when it last changed, and the shed load it learned. */
export interface GuardMemory {
  state: GuardState;
  changedAt: number;
  learnedKw?: number | null;
  /** At the last shed: the window, the reading's instant and the power then (for the drop). */
  shed?: { window: number; at: number; powerKw: number | null; learned: boolean } | null;
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

  /** The shed load counted on: the setting, else the learned drop, else null. */
  get shedKw(): number | null {
    return this.settings.shedKw ?? this.memory.learnedKw ?? null;
  }

  /** The wall clock stepped by `by` ms: the last change moves with it, so the minute since it is real time. */
  clockStepped(by: number): void {
    this.memory = { ...this.memory, changedAt: this.memory.changedAt + by };
  }

  /** What a restart needs (stored with the peaks). */
  remember(): GuardMemory {
    return { ...this.memory };
  }

  /** While shed: the first power measured wholly after the shed gives the drop, the shed load. */
  private learn(at: number | undefined, powerKw: number | null | undefined): void {
    const shed = this.memory.shed;
    if (this.memory.state !== 'shed' || !shed || shed.learned || at === undefined || at < shed.at + LEARN_AFTER_MS) return;
    const drop = shed.powerKw !== null && powerKw !== null && powerKw !== undefined ? shed.powerKw - powerKw : 0;
    this.memory = { ...this.memory, shed: { ...shed, learned: true }, ...(drop >= LEARN_MIN_KW ? { learnedKw: drop } : {}) };
  }

  evaluate(input: GuardInput): GuardDecision {
    const { projectedKw, limitKw, fresh, now, window, at, powerKw } = input;
    this.learn(at, powerKw);
    const shedKw = this.shedKw;
    const shedAboveKw = limitKw === null ? null : limitKw * (1 - this.settings.marginPercent / 100);
    const restoreBelowKw =
      shedAboveKw === null || limitKw === null ? null : shedAboveKw - limitKw * (this.settings.hysteresisPercent / 100);
    const timed = window && at !== undefined && window.to > window.from;
    const length = timed ? window.to - window.from : 1;
    const rest = timed ? Math.max(0, window.to - at) : 0;
    let wanted: GuardState;
    let reason: string;
    if (limitKw === null) {
      wanted = 'restore';
      reason = input.noLimit ?? 'no limit yet';
    } else if (!fresh || projectedKw === null) {
      // never shed on data it cannot trust; a relay is not left off on data nobody sees either
      wanted = 'restore';
      reason = 'stale data';
    } else if (this.memory.state === 'restore') {
      // the latest safe moment: shedding at the next chance must still keep the window under
      const late = timed && shedKw !== null ? (shedKw * Math.max(0, rest - SHED_REACTION_MS)) / length : 0;
      wanted = projectedKw - late > shedAboveKw! ? 'shed' : 'restore';
      reason = wanted === 'shed' ? 'projected above the limit' : 'projected under the limit';
    } else if (shedKw !== null) {
      // restore only if the shed load, back on for the rest of the window, keeps it under
      const withLoad = timed ? projectedKw + (shedKw * rest) / length : projectedKw + shedKw;
      wanted = withLoad <= restoreBelowKw! ? 'restore' : 'shed';
      reason = wanted === 'restore' ? 'the shed load fits in the window' : 'projected near the limit with the shed load';
    } else {
      // the shed load unknown: back on at a later window's start
      const later = timed && this.memory.shed ? window.from > this.memory.shed.window : projectedKw <= restoreBelowKw!;
      wanted = later ? 'restore' : 'shed';
      reason = later ? 'a new window' : 'shed until the window ends';
    }
    const base = { shedAboveKw, restoreBelowKw, shedKw };
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
    const shed = wanted === 'shed' ? { window: timed ? window.from : now, at: at ?? now, powerKw: powerKw ?? null, learned: false } : null;
    this.memory = { ...this.memory, state: wanted, changedAt: now, shed };
    return { ...base, state: wanted, changed: true, reason, dueAt: null };
  }
}
