// What an easy-plan node does, free of Node-RED: keep the ledger of promises (lib
// plan-ledger) planned against the tariff, switch output 1 at the exact instants its
// slots start and end and where its window begins and ends (one DeadlineTimer), plan again
// when the tariffs or a sensor the rules read change or the wall clock steps (the ledger
// counting what the relay really ran), and keep the ledger and the override in the
// context store so that a restart carries on where it was.

import type { AccountHub } from '../account/hub';
import { DeadlineTimer, PaceTimer } from '../../engine/time/long-timer';
import { ClockStep, clockSteps } from '../../engine/time/clock-steps';
import { shortText } from '../../engine/common/format';
import { DroppedState, StoredAhead } from '../../engine/common/stored-checks';
import { configuredCycle, oneOffSpan, PlanSettings } from './plan-settings';
import { Ledger, replanLedger, Replanned } from './plan-ledger';
import { enginePlanner } from './plan-planner';
import { replanSaving } from './plan-saving';
import { OutputState, OutputValues, PlanCause, PlanPayload } from './plan-output';
import { checkOverride, checkStoredPlan, Override, PlanStore } from './plan-store';
import { PlanKeeper } from './plan-keeper';
import { cycleOver, ledgerAfterStep, ledgerAt, nextEvent, planReason, stateAt } from './plan-cycle';
import { ledgerPayload, PlanSender } from './plan-sender';
import { planStatus, pricesKnown } from './plan-status';
import { TariffWatch } from '../tariff/tariff-watch';
import type { WatchStatus } from '../tariff/watch-status';
import type { StackSource } from '../prices/prices-source';

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
  /** What a read of the stores dropped (a forged or damaged store): one warning per start. */
  onWarn?(message: string): void;
  /** The easy-prices node's list stacked with the tariff; none: the tariff alone. */
  prices?: StackSource | null;
}

export type PlanMessage = { duration?: unknown; from?: unknown; until?: unknown };

export class PlanWatch {
  private readonly now: () => number;
  private readonly key: string;
  private readonly timer = new DeadlineTimer();
  /** Resending is a pace: a step of the wall clock neither stops it nor hurries it. */
  private readonly resendTimer = new PaceTimer();
  private readonly watch: TariffWatch;
  private readonly sender: PlanSender;
  private readonly keeper: PlanKeeper;
  private ledger: Ledger | null = null;
  private currency: string | null = null;
  private vat = 0;
  private override: Override = 'auto';
  private problem: string | null = null;
  private noPlan: string | null = null;
  private started = false;
  private closed = false;
  private stopSteps: (() => void) | null = null;
  /** A command was handled in this turn of the event loop: the next ones wait for its end (see command). */
  private turnBusy = false;
  /** The work the commands held back in this turn still need, the most first; null: none. */
  private heldBack: 'plan' | 'send' | 'advance' | null = null;
  /** The ledger before the first held-back command, restored if their plan fails. */
  private beforeHeldBack: Ledger | null = null;

  constructor(private readonly opts: PlanWatchOptions) {
    this.now = opts.now ?? Date.now;
    this.key = JSON.stringify(['ledger', opts.tariffId, opts.settings]);
    this.sender = new PlanSender(opts);
    this.keeper = new PlanKeeper(opts.store, opts.overrideStore, (message) => this.tell(message));
    this.watch = new TariffWatch({
      hub: opts.hub,
      tariffId: opts.tariffId,
      refreshMinutes: opts.refreshMinutes,
      now: this.now,
      onPrice: () => undefined,
      onStatus: () => undefined,
      onProblem: (message) => this.tell(message),
      onInputs: () => this.replan(this.started ? 'tariffs' : 'deploy'),
      prices: opts.prices ?? null,
    });
  }

  /** Restores the stored plan and override (and sends the state at once), then follows the tariffs. */
  async start(): Promise<void> {
    const [stored, override] = await this.keeper.load();
    if (this.closed) return;
    const kept = checkOverride(override);
    this.override = kept.override;
    const now = this.now();
    const { plan: restored, untrusted } = checkStoredPlan(stored, this.key, now, this.opts.settings);
    const dropped = new DroppedState('stored plan');
    if (kept.untrusted) dropped.add('the override (not on, off or auto): auto');
    if (untrusted) dropped.add(`the plan (${untrusted}): output 1 off until a new plan`);
    if (this.opts.onWarn) {
      dropped.tell(this.opts.onWarn);
      new StoredAhead(this.opts.onWarn).tell(
        'stored plan',
        restored?.savedAt ?? null,
        now,
        "output 1 follows it by this clock, and its slots after this clock's time count as not yet run",
      );
    }
    // a plan that cannot be trusted never leaves the load on (an override the user set still holds)
    if (untrusted) this.sender.output(this.override === 'auto' ? 'off' : this.override, this.override);
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
    this.stopSteps = clockSteps.onStep((step) => this.onStep(step));
    this.watch.start();
  }

  close(): void {
    this.closed = true;
    this.stopSteps?.();
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
      this.command('plan', now, ledger.cancelled ? { ...ledger, cancelled: false, cycle: this.freshCycle(now), pieces: [] } : ledger);
      return;
    }
    this.refuseInSaveMode('msg.duration, msg.from and msg.until');
    const once = oneOffSpan(msg, this.opts.settings, now, this.opts.hub.timezone);
    this.command('plan', now, { ...ledger, once });
  }

  /** On from now for `duration` ms, then back to the plans; 0 ends a boost. */
  boost(duration: number): void {
    this.refuseInSaveMode('a boost');
    const now = this.now();
    const ledger = this.currentLedger(now);
    this.command('plan', now, { ...ledger, boost: duration > 0 ? { from: now, to: now + duration } : null });
  }

  /** Switches off: drops the one-off, the boost and what the configured plan still owed in this window. */
  cancel(): void {
    const now = this.now();
    const ledger = this.currentLedger(now);
    const past = ledger.pieces.filter((p) => p.from < now).map((p) => ({ ...p, to: Math.min(p.to, now) }));
    this.noPlan = 'cancelled';
    this.command('send', now, { ...ledger, cancelled: true, once: null, boost: null, pieces: past });
  }

  /** auto follows the plan; on and off hold output 1 there until auto (kept across restarts). */
  setOverride(mode: Override): void {
    this.override = mode;
    this.keeper.saveOverride(mode);
    this.sender.forgetOutput(); // an override is answered with the value it makes, even when unchanged
    this.command('advance', this.now(), null);
  }

  /** Sends the current value again (output 1), changed or not. */
  resend(): void {
    if (!this.sender.hasSent) throw new Error('nothing to resend yet: the node is still waiting for its first plan');
    this.sender.forgetOutput();
    this.command('advance', this.now(), null);
  }

  setSensor(gatewayId: string | undefined, sensorId: string, value: number): boolean {
    return this.watch.setSensor(gatewayId, sensorId, value);
  }

  // -------------------------------------------------------------------------------------

  /**
   * A command's work: `plan` the new ledger (throws, changing nothing, when it cannot be
   * planned), `send` it as it is (a cancel), or `advance` (the output again). The first
   * command of a turn of the event loop is done at once; the ones after it in the same turn
   * (a burst: 100 messages through http-in arrive together) only change the ledger, the
   * override or what is to be sent, in order, and their work is done once when the turn
   * ends — one plan for the burst, not one per message (docs/semantics.md, "Bursts of
   * commands"). Input errors are thrown either way, before anything changes.
   */
  private command(work: 'plan' | 'send' | 'advance', now: number, ledger: Ledger | null): void {
    if (!this.turnBusy) {
      this.turnBusy = true;
      setImmediate(() => this.endOfTurn());
      if (work === 'plan') this.replanOrThrow('message', now, ledger!);
      else if (work === 'send') {
        this.ledger = ledger;
        this.sendPlan('message', null, null, now);
      } else this.advance();
      return;
    }
    // what a failed plan at the turn's end restores: the ledger before the first held-back command, whatever it brings
    if (this.heldBack === null) this.beforeHeldBack = this.ledger;
    if (ledger) this.ledger = ledger;
    // a cancel sends its ledger as it is, whatever was to be planned before it in the burst
    const rank = { advance: 0, send: 1, plan: 2 };
    if (work === 'send' || this.heldBack === null || rank[work] > rank[this.heldBack]) this.heldBack = work;
  }

  /** The held-back commands' work, once; a plan that fails restores the ledger before them and is told. */
  private endOfTurn(): void {
    this.turnBusy = false;
    const work = this.heldBack;
    this.heldBack = null;
    if (this.closed || work === null) return;
    const now = this.now();
    try {
      if (work === 'plan') this.replanOrThrow('message', now, this.currentLedger(now));
      else if (work === 'send') this.sendPlan('message', null, null, now);
      else this.advance();
    } catch (err) {
      this.ledger = this.beforeHeldBack;
      this.failed(err as Error);
    }
  }

  private freshCycle(now: number) {
    return configuredCycle(this.opts.settings, now, this.opts.hub.timezone);
  }

  /** The ledger at `now`: a new window once the current one is over (its history pruned). */
  private currentLedger(now: number): Ledger {
    return ledgerAt(this.ledger, this.opts.settings, now, this.opts.hub.timezone);
  }

  /** The wall clock stepped: the ledger counts what the relay did (ledgerAfterStep), the rest is planned again from the new clock. */
  private onStep(step: ClockStep): void {
    if (this.closed || !this.ledger) return;
    const now = this.now();
    this.ledger = ledgerAfterStep(this.ledger, this.opts.settings, now - step.by, now, this.opts.hub.timezone);
    if (this.started) this.replan('clock');
    else this.advance();
  }

  /** From hub callbacks and timers: an error is told, never thrown. */
  private replan(cause: PlanCause): void {
    if (this.closed) return;
    try {
      const now = this.now();
      const over = this.ledger !== null && cycleOver(this.ledger, now);
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
    const { tariff, options, currency, vat } = this.watch.pricingInputs();
    const settings = this.opts.settings;
    const planned =
      settings.strategy === 'save'
        ? replanSaving(ledger, now, tariff, options, settings)
        : replanLedger(ledger, now, enginePlanner(tariff, options, settings), settings);
    this.ledger = planned.ledger;
    if (this.heldBack === 'plan') this.heldBack = 'advance'; // the held-back commands' ledger is planned
    this.currency = currency;
    this.vat = vat;
    this.noPlan = planReason(planned, settings, now);
    if (cause === 'message') this.sender.forgetPlan();
    this.sendPlan(cause, planned, planned.shortfall, now);
    this.problem = null;
  }

  private sendPlan(cause: PlanCause, planned: Replanned | null, shortfall: string | null, now: number): void {
    const payload = ledgerPayload({
      tariffId: this.opts.tariffId,
      timezone: this.opts.hub.timezone,
      currency: this.currency,
      vat: this.vat,
      settings: this.opts.settings,
      ledger: this.ledger!,
      result: planned?.result ?? null,
      shortfall,
      reason: planReason({ ledger: this.ledger!, shortfall: this.noPlan }, this.opts.settings, now),
      cause,
      now,
    });
    const known = pricesKnown(this.watch.stackSource, this.ledger!, now, this.opts.hub.timezone);
    if (known) Object.assign(payload, known.fields);
    this.sender.plan(payload);
    this.advance();
  }

  /** Sends the state when it changed (or was never sent), saves, and arms the timer for the next change. */
  private advance(): void {
    if (this.closed) return;
    const now = this.now();
    if (this.ledger && this.started && cycleOver(this.ledger, now)) {
      this.replan('window');
      return;
    }
    const state = this.override === 'auto' ? stateAt(this.ledger, this.opts.settings, now) : this.override;
    this.sender.output(state, this.override);
    this.save();
    const next = nextEvent(this.ledger, now);
    if (next === null) this.timer.cancel();
    else this.timer.arm(next, () => this.advance(), this.now);
    this.opts.onStatus(this.status(now));
  }

  private refuseInSaveMode(what: string): void {
    if (this.opts.settings.strategy === 'save') {
      throw new Error(`${what} plan a run time: not in "switch off to save" mode (use "on", "off" and "auto")`);
    }
  }

  private armResend(): void {
    if (this.opts.resendMs <= 0 || this.closed) return;
    this.resendTimer.after(this.opts.resendMs, () => {
      if (this.sender.hasSent) this.resend();
      this.armResend();
    });
  }

  private failed(err: Error): void {
    const message = `no plan: ${err.message}`;
    this.noPlan = err.message;
    if (this.sender.hasSent) this.advance();
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
    const known = this.ledger ? (pricesKnown(this.watch.stackSource, this.ledger, now, this.opts.hub.timezone)?.short ?? null) : null;
    const status = this.planStatus(now);
    return known === null || this.override !== 'auto' ? status : { ...status, text: shortText(`${status.text} · ${known}`, 60) };
  }

  private planStatus(now: number): WatchStatus {
    return planStatus({
      pieces: this.ledger?.pieces ?? [],
      strategy: this.opts.settings.strategy,
      override: this.override,
      noPlan: this.noPlan,
      now,
      timezone: this.opts.hub.timezone,
    });
  }

  private save(): void {
    if (!this.ledger) return;
    this.keeper.savePlan({ key: this.key, ledger: this.ledger, currency: this.currency, vat: this.vat }, this.now());
  }
}
