// What an easy-plan node does, free of Node-RED: keep the ledger of promises (lib
// plan-ledger) planned against the tariff, switch output 1 at the exact instants its
// slots start and end and where its window begins and ends (one LongTimer), plan again
// when the tariffs or a sensor the rules read change, and keep the ledger and the
// override in the context store so that a restart carries on where it was.

import type { AccountHub } from './hub';
import { LongTimer } from '../engine/long-timer';
import { shortText } from '../engine/format';
import { configuredCycle, oneOffSpan, PlanSettings } from './plan-settings';
import { Ledger, LedgerPiece, replanLedger, Replanned, runningBlock } from './plan-ledger';
import { enginePlanner } from './plan-planner';
import { replanSaving } from './plan-saving';
import { OutputState, OutputValues, PlanCause, PlanPayload, planPayload, slotsOf } from './plan-output';
import { Override, PlanStore, readOverride, readStoredPlan, StoredPlan } from './plan-store';
import { TariffWatch } from './tariff-watch';
import { localTime, WatchStatus } from './watch-status';

export type { PlanStore } from './plan-store';

export interface PlanWatchOptions {
  hub: AccountHub;
  tariffId: string;
  refreshMinutes: number;
  settings: PlanSettings;
  outputs: OutputValues;
  /** Send the current value again every this many ms; 0: only on change and on request. */
  resendMs: number;
  store: PlanStore;
  overrideStore: PlanStore;
  now?: () => number;
  /** Output 1: the value to send, the state it stands for, and whether the override set it. */
  onOutput(value: unknown, state: OutputState, override: Override): void;
  onPlan(payload: PlanPayload): void;
  onStatus(status: WatchStatus): void;
  /** A problem to report (Catch): tariffs, a failed plan, a store that fails. Once per new problem. */
  onProblem(message: string): void;
}

export type PlanMessage = { duration?: unknown; from?: unknown; until?: unknown };

export class PlanWatch {
  private readonly now: () => number;
  private readonly key: string;
  private readonly timer = new LongTimer();
  private readonly resendTimer = new LongTimer();
  private readonly watch: TariffWatch;
  private ledger: Ledger | null = null;
  private currency: string | null = null;
  private vat = 0;
  private override: Override = 'auto';
  /** The state last sent and its value (as JSON); null until the first one is sent. */
  private sent: OutputState | null = null;
  private sentValue: string | null = null;
  private sentPlan: string | null = null;
  private savedPlan: string | null = null;
  private problem: string | null = null;
  private noPlan: string | null = null;
  private started = false;
  private closed = false;

  constructor(private readonly opts: PlanWatchOptions) {
    this.now = opts.now ?? Date.now;
    this.key = JSON.stringify(['ledger', opts.tariffId, opts.settings]);
    this.watch = new TariffWatch({
      hub: opts.hub,
      tariffId: opts.tariffId,
      refreshMinutes: opts.refreshMinutes,
      now: this.now,
      onPrice: () => undefined,
      onStatus: () => undefined,
      onProblem: (message) => this.tell(message),
      onInputs: () => this.replan(this.started ? 'tariffs' : 'deploy'),
    });
  }

  /** Restores the stored plan and override (and sends the state at once), then follows the tariffs. */
  async start(): Promise<void> {
    const [stored, override] = await Promise.all([this.load(this.opts.store, 'plan'), this.load(this.opts.overrideStore, 'override')]);
    if (this.closed) return;
    this.override = readOverride(override);
    const restored = readStoredPlan(stored, this.key, this.now());
    if (restored) {
      this.ledger = restored.ledger;
      this.currency = restored.currency;
      this.vat = restored.vat;
      this.started = true;
      this.advance();
    } else {
      this.opts.onStatus({ fill: 'grey', shape: 'ring', text: 'waiting for the tariffs…' });
    }
    this.armResend();
    this.watch.start();
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.resendTimer.cancel();
    this.watch.close();
  }

  /** Plans now: the configured window again (after a cancel, afresh), or a message's one-off. Throws on bad input. */
  planNow(msg: PlanMessage | null): void {
    const now = this.now();
    const ledger = this.currentLedger(now);
    if (!msg) {
      // after a cancel, 'plan' is a new request: the window's configured run time afresh from now
      this.replanOrThrow(
        'message',
        now,
        ledger.cancelled ? { ...ledger, cancelled: false, cycle: this.freshCycle(now), pieces: [] } : ledger,
      );
      return;
    }
    this.refuseInSaveMode('msg.duration, msg.from and msg.until');
    const once = oneOffSpan(msg, this.opts.settings, now, this.opts.hub.timezone);
    this.replanOrThrow('message', now, { ...ledger, once });
  }

  /** On from now for `duration` ms, then back to the plans; 0 ends a boost. */
  boost(duration: number): void {
    this.refuseInSaveMode('a boost');
    const now = this.now();
    const ledger = this.currentLedger(now);
    this.replanOrThrow('message', now, { ...ledger, boost: duration > 0 ? { from: now, to: now + duration } : null });
  }

  /** Switches off: drops the one-off, the boost and what the configured plan still owed in this window. */
  cancel(): void {
    const now = this.now();
    const ledger = this.currentLedger(now);
    const past = ledger.pieces.filter((p) => p.from < now).map((p) => ({ ...p, to: Math.min(p.to, now) }));
    this.ledger = { ...ledger, cancelled: true, once: null, boost: null, pieces: past };
    this.noPlan = 'cancelled';
    this.sendPlan('message', null, null, now);
  }

  /** auto follows the plan; on and off hold output 1 there until auto (kept across restarts). */
  setOverride(mode: Override): void {
    this.override = mode;
    this.opts.overrideStore.save(mode).catch((err: Error) => this.tell(`the override could not be stored: ${err.message}`));
    this.sent = null; // an override is answered with the value it makes, even when unchanged
    this.advance();
  }

  /** Sends the current value again (output 1), changed or not. */
  resend(): void {
    if (this.sent === null) throw new Error('nothing to resend yet: the node is still waiting for its first plan');
    this.sent = null;
    this.advance();
  }

  setSensor(gatewayId: string | undefined, sensorId: string, value: number): boolean {
    return this.watch.setSensor(gatewayId, sensorId, value);
  }

  // -------------------------------------------------------------------------------------

  private async load(store: PlanStore, what: string): Promise<unknown> {
    try {
      return await store.load();
    } catch (err) {
      this.tell(`the stored ${what} could not be read: ${(err as Error).message}; starting afresh`);
      return undefined;
    }
  }

  private freshCycle(now: number) {
    return configuredCycle(this.opts.settings, now, this.opts.hub.timezone);
  }

  /** The ledger at `now`: a new window once the current one is over (its history pruned). */
  private currentLedger(now: number): Ledger {
    const l = this.ledger;
    if (l && !this.cycleOver(l, now)) return l;
    const cycle = this.freshCycle(now);
    const keepFrom = Math.min(cycle.from, l?.once && l.once.to > now ? l.once.from : Infinity, now);
    return {
      cycle,
      cancelled: false,
      once: l?.once && l.once.to > now ? l.once : null,
      boost: l?.boost && l.boost.to > now ? l.boost : null,
      pieces: (l?.pieces ?? []).filter((p) => p.to > keepFrom),
    };
  }

  /** From hub callbacks and timers: an error is told, never thrown. */
  private replan(cause: PlanCause): void {
    if (this.closed) return;
    try {
      const now = this.now();
      const over = this.ledger !== null && this.cycleOver(this.ledger, now);
      const ledger = this.currentLedger(now);
      // the new window is taken before pricing, which may fail: a failure must not find the old one over again
      this.ledger = ledger;
      this.replanOrThrow(over && cause === 'tariffs' ? 'window' : cause, now, ledger);
    } catch (err) {
      this.failed(err as Error);
    }
  }

  /** Plans `ledger` at `now` and adopts it; throws (changing nothing) when it cannot be planned. */
  private replanOrThrow(cause: PlanCause, now: number, ledger: Ledger): void {
    this.started = true;
    const { tariff, options } = this.watch.pricingInputs();
    const settings = this.opts.settings;
    const planned =
      settings.strategy === 'save'
        ? replanSaving(ledger, now, tariff, options, settings)
        : replanLedger(ledger, now, enginePlanner(tariff, options, settings), settings);
    this.ledger = planned.ledger;
    this.currency = tariff.currency;
    this.vat = tariff.vat;
    const future = planned.ledger.pieces.some((p) => p.to > now);
    this.noPlan = future ? null : (planned.shortfall ?? this.nothingLeft(planned.ledger));
    if (cause === 'message') this.sentPlan = null;
    this.sendPlan(cause, planned, planned.shortfall, now);
    this.problem = null;
  }

  private nothingLeft(ledger: Ledger): string {
    return ledger.cycle.requested === 0 && !ledger.once ? 'the duration is 0' : 'nothing left to run in this window';
  }

  private sendPlan(cause: PlanCause, planned: Replanned | null, shortfall: string | null, now: number): void {
    const ledger = this.ledger!;
    const once = ledger.once && ledger.once.to > now ? ledger.once : null;
    const payload = planPayload({
      tariffId: this.opts.tariffId,
      timezone: this.opts.hub.timezone,
      currency: this.currency,
      vat: this.vat,
      request: once ? 'once' : 'plan',
      strategy: this.opts.settings.strategy,
      // nothing is owed after a cancel, nor in save mode (its slots are off periods)
      span: once ?? (ledger.cancelled || this.opts.settings.strategy === 'save' ? { ...ledger.cycle, requested: 0 } : ledger.cycle),
      pieces: ledger.pieces,
      result: planned?.result ?? null,
      shortfall,
      cause,
      now,
    });
    // a slot continued by a new plan is averaged again: prices differing in the last bits are the same plan
    const slots = payload.slots.map((x) => [x.fromMs, x.toMs, x.request, x.price]);
    const fingerprint = JSON.stringify([payload.window, slots, payload.requested, payload.shortfall]);
    if (fingerprint !== this.sentPlan) {
      this.sentPlan = fingerprint;
      this.opts.onPlan(payload);
    }
    this.advance();
  }

  /** Sends the state when it changed (or was never sent), saves, and arms the timer for the next change. */
  private advance(): void {
    if (this.closed) return;
    const now = this.now();
    if (this.ledger && this.started && this.cycleOver(this.ledger, now)) {
      this.replan('window');
      return;
    }
    const state = this.override === 'auto' ? this.stateAt(now) : this.override;
    const value = JSON.stringify(this.opts.outputs[state]) ?? 'null';
    // entering the window sends nothing when the value outside it is the off value
    if (this.sent === null || value !== this.sentValue) {
      this.sent = state;
      this.sentValue = value;
      this.opts.onOutput(this.opts.outputs[state], state, this.override);
    }
    this.save();
    const next = this.nextEvent(now);
    if (next === null) this.timer.cancel();
    else this.timer.arm(next, () => this.advance(), this.now);
    this.opts.onStatus(this.status(now));
  }

  /**
   * on in a slot; off in the configured window or a one-off's span; outside otherwise (and
   * before the first plan). Saving: the slots are the off periods, on in the rest of the window.
   */
  private stateAt(now: number): OutputState {
    const l = this.ledger;
    if (!l) return 'outside';
    const inSlot = l.pieces.some((p) => p.from <= now && now < p.to);
    const inside = (s: { from: number; to: number } | null) => s !== null && s.from <= now && now < s.to;
    if (this.opts.settings.strategy === 'save') return inSlot ? 'off' : inside(l.cycle) ? 'on' : 'outside';
    if (inSlot) return 'on';
    return inside(l.cycle) || inside(l.once) ? 'off' : 'outside';
  }

  private refuseInSaveMode(what: string): void {
    if (this.opts.settings.strategy === 'save') {
      throw new Error(`${what} plan a run time: not in "switch off to save" mode (use "on", "off" and "auto")`);
    }
  }

  private nextEvent(now: number): number | null {
    const l = this.ledger;
    if (!l) return null;
    let next = Infinity;
    const consider = (t: number) => {
      if (t > now && t < next) next = t;
    };
    for (const p of l.pieces) {
      consider(p.from);
      consider(p.to);
    }
    consider(l.cycle.from);
    consider(this.cycleEnd(l));
    if (l.once) {
      consider(l.once.from);
      consider(l.once.to);
    }
    return next === Infinity ? null : next;
  }

  /** A rolling plan is over when its last slot has run; any other at the end of its window. */
  private cycleEnd(l: Ledger): number {
    const { cycle } = l;
    const mine = l.pieces.filter((p) => p.owner === 'plan' && p.from >= cycle.from && p.to <= cycle.to);
    const save = this.opts.settings.strategy === 'save';
    if (this.opts.settings.window.kind === 'rolling' && !save && !l.once && cycle.requested > 0 && mine.length > 0) {
      return Math.min(cycle.to, mine[mine.length - 1].to);
    }
    return cycle.to;
  }

  private cycleOver(l: Ledger, now: number): boolean {
    return now >= this.cycleEnd(l);
  }

  private armResend(): void {
    if (this.opts.resendMs <= 0 || this.closed) return;
    this.resendTimer.arm(
      this.now() + this.opts.resendMs,
      () => {
        if (this.sent !== null) this.resend();
        this.armResend();
      },
      this.now,
    );
  }

  private failed(err: Error): void {
    const message = `no plan: ${err.message}`;
    this.noPlan = err.message;
    if (this.sent !== null) this.advance();
    else this.opts.onStatus({ fill: 'red', shape: 'ring', text: shortText(message, 60) });
    // a missing tariff has just been told by the tariff watch in the same words
    if (this.problem !== err.message) this.tell(message);
  }

  private tell(message: string): void {
    if (message === this.problem) return;
    this.problem = message;
    this.opts.onProblem(message);
  }

  private status(now: number): WatchStatus {
    const tz = this.opts.hub.timezone;
    const pieces: LedgerPiece[] = this.ledger?.pieces ?? [];
    const running = runningBlock(pieces, now);
    const next = slotsOf(pieces).find((s) => s.from > now);
    let text: string;
    let fill: WatchStatus['fill'] = 'grey';
    if (running) {
      // on until the end of the touching pieces, whichever request each serves
      let end = now;
      for (const p of pieces) if (p.from <= end && p.to > end) end = p.to;
      const word = this.opts.settings.strategy === 'save' ? 'off' : running.owner === 'boost' ? 'boost' : 'on';
      text = `${word} until ${localTime(end, now, tz)}`;
      fill = 'green';
    } else if (next) {
      const word = this.opts.settings.strategy === 'save' ? 'next off' : 'next';
      text = `${word} ${localTime(next.from, now, tz)}–${localTime(next.to, next.from, tz)}`;
    } else {
      text = `no plan: ${this.noPlan ?? 'nothing left to run in this window'}`;
      fill = 'yellow';
    }
    if (this.override !== 'auto') {
      return {
        fill: this.override === 'on' ? 'green' : 'grey',
        shape: 'ring',
        text: shortText(`override ${this.override} (plan: ${text})`, 60),
      };
    }
    return { fill, shape: running || next ? 'dot' : 'ring', text: shortText(text, 60) };
  }

  private save(): void {
    if (!this.ledger) return;
    const value: StoredPlan = { key: this.key, ledger: this.ledger, currency: this.currency, vat: this.vat };
    const text = JSON.stringify(value);
    // the ledger changes only with a plan: the store is written then, not at every switch
    if (text === this.savedPlan) return;
    this.savedPlan = text;
    this.opts.store.save(value).catch((err: Error) => this.tell(`the plan could not be stored: ${err.message}`));
  }
}
