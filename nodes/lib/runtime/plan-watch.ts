// What an easy-plan node does, free of Node-RED: plan the cheapest slots of each window
// with cheapestWindows, switch on and off at their exact instants (one LongTimer), plan
// again when the tariffs or a sensor the rules read change, and keep the plan and the
// on/off state in a store so that a restart carries on where it was.
//
// A plan belongs to a cycle: the daily window's next occurrence, the rolling window
// from when the last plan was done, or a message's one-off window. Planning again inside
// a cycle keeps what has already run and plans only the rest of the run time, from now.

import type { AccountHub } from './hub';
import { LongTimer } from '../engine/long-timer';
import { cheapestWindows, hours, mergeSlots, PlanResult, PlanSlot } from '../engine/plan';
import { configuredCycle, Cycle, minBlockFor, overrideCycle, PlanSettings } from './plan-settings';
import { TariffWatch } from './tariff-watch';
import { localTime, WatchStatus } from './watch-status';
import { roundAmount, roundAmountOrNull, shortText } from '../engine/format';
import { HOUR_MS, localIsoText, toLocalMs, zoneInfo } from '../engine/time';

export interface PlanStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface PlanSlotPayload {
  from: string;
  to: string;
  fromLocal: string;
  toLocal: string;
  /** Net price per kWh, averaged over the slot. */
  price: number;
}

export interface PlanPayload {
  tariffId: string;
  timezone: string;
  currency: string | null;
  window: { from: string; to: string; fromLocal: string; toLocal: string };
  /** Run time in ms: asked for in this window, and planned (what has run included). */
  requested: number;
  planned: number;
  slots: PlanSlotPayload[];
  averagePrice: number | null;
  costPerKw: { net: number; gross: number };
  /** The rest of the run time started when this plan was made, in one block, and the saving against it (per kW). */
  comparedToNow: PlanResult['comparedToNow'] | null;
  /** Why less than asked for is planned; null when all of it is. */
  shortfall: string | null;
  /** What made this plan: deploy, tariffs (fetched or a sensor changed), message, window (a new window began). */
  cause: PlanCause;
  madeAt: string;
}

export type PlanCause = 'deploy' | 'tariffs' | 'message' | 'window';

export interface PlanWatchOptions {
  hub: AccountHub;
  tariffId: string;
  refreshMinutes: number;
  settings: PlanSettings;
  store: PlanStore;
  now?: () => number;
  onSwitch(on: boolean): void;
  onPlan(payload: PlanPayload): void;
  onStatus(status: WatchStatus): void;
  /** A problem to report (Catch): tariffs, a failed plan, a store that fails. Once per new problem. */
  onProblem(message: string): void;
}

/** What is kept in the store; `key` ties it to the settings it was made for. */
interface Stored {
  key: string;
  cycle: Cycle;
  /** The plan's slots cut where the price changes (one price each). */
  pieces: PlanSlot[];
  on: boolean;
  currency: string | null;
}

export class PlanWatch {
  private readonly now: () => number;
  private readonly key: string;
  private readonly timer = new LongTimer();
  private readonly watch: TariffWatch;
  private cycle: Cycle | null = null;
  /** The plan, cut where the price changes: a past part keeps its exact price when cut at now. */
  private pieces: PlanSlot[] = [];
  private currency: string | null = null;
  /** The state last sent; null until the first one is sent. */
  private on: boolean | null = null;
  private sentPlan: string | null = null;
  private problem: string | null = null;
  private noPlan: string | null = null;
  private started = false;
  private closed = false;

  constructor(private readonly opts: PlanWatchOptions) {
    this.now = opts.now ?? Date.now;
    this.key = JSON.stringify([opts.tariffId, opts.settings]);
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

  /** Restores a stored plan (and sends its state at once), then follows the tariffs. */
  async start(): Promise<void> {
    let stored: unknown;
    try {
      stored = await this.opts.store.load();
    } catch (err) {
      this.tell(`the stored plan could not be read: ${(err as Error).message}; planning afresh`);
    }
    if (this.closed) return;
    const restored = this.restore(stored);
    if (restored) this.advance();
    else this.opts.onStatus({ fill: 'grey', shape: 'ring', text: 'waiting for the tariffs…' });
    this.watch.start();
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.watch.close();
  }

  /** Plans now: the configured window, or the one a message's overrides describe. Throws on bad overrides. */
  planNow(overrides: { duration?: unknown; from?: unknown; until?: unknown } | null): void {
    const now = this.now();
    const cycle = overrides ? overrideCycle(overrides, this.opts.settings, now, this.opts.hub.timezone) : null;
    const { tariff, options } = this.watch.pricingInputs();
    if (!cycle) {
      // after a cancel, 'plan' starts the configured window afresh
      if (this.cycle && this.cycle.requested === 0) this.cycle = null;
      this.replanOrThrow('message', now);
      return;
    }
    // check that it plans before anything changes
    const result = cheapestWindows(tariff, {
      ...options,
      from: cycle.from,
      to: cycle.to,
      duration: cycle.requested,
      contiguous: this.opts.settings.contiguous,
      minBlock: minBlockFor(this.opts.settings, cycle.requested),
      maxPrice: this.opts.settings.maxPrice,
    });
    this.cycle = cycle;
    this.pieces = this.pastPieces(now);
    this.adopt(result, now, 'message', true);
  }

  /** Switches off and drops the plan; the configured plan resumes when this window is over. */
  cancel(): void {
    const now = this.now();
    const cycle = this.cycle ?? configuredCycle(this.opts.settings, now, this.opts.hub.timezone);
    this.cycle = { ...cycle, from: Math.min(cycle.from, now), requested: 0 };
    this.pieces = [];
    this.noPlan = 'cancelled';
    this.send('message', null, null, now);
  }

  setSensor(gatewayId: string | undefined, sensorId: string, value: number): boolean {
    return this.watch.setSensor(gatewayId, sensorId, value);
  }

  // -------------------------------------------------------------------------------------

  /** From hub callbacks and timers: an error is told, never thrown. */
  private replan(cause: PlanCause): void {
    if (this.closed) return;
    try {
      this.replanOrThrow(cause, this.now());
    } catch (err) {
      this.failed(err as Error);
    }
  }

  private replanOrThrow(cause: PlanCause, now: number): void {
    this.started = true;
    let cycle = this.cycle;
    if (!cycle || this.cycleOver(cycle, now)) {
      if (cycle) cause = cause === 'tariffs' ? 'window' : cause;
      // the new window is taken before pricing, which may fail: a failure must not find the old one over again
      cycle = configuredCycle(this.opts.settings, now, this.opts.hub.timezone);
      this.cycle = cycle;
      this.pieces = [];
    }
    const { tariff, options } = this.watch.pricingInputs();
    const past = this.pastPieces(now);
    const done = past.reduce((sum, s) => sum + (s.to - s.from), 0);
    const running = this.pieces.some((s) => s.from <= now && now < s.to);
    const rest = cycle.requested - done;
    const from = Math.max(now, cycle.from);
    // one block already begun is not planned again: it runs to its end
    if (rest <= 0 || cycle.to <= from || (this.opts.settings.contiguous && done > 0)) {
      this.cycle = cycle;
      if (!this.opts.settings.contiguous || !running) this.pieces = past;
      this.noPlan = null;
      this.send(cause, null, null, now);
      return;
    }
    // started late in a window (deploy at 06:00 for 3 h before 07:00): what still fits
    const fits = Math.min(rest, cycle.to - from);
    const result = cheapestWindows(tariff, {
      ...options,
      from,
      to: cycle.to,
      duration: fits,
      contiguous: this.opts.settings.contiguous,
      minBlock: minBlockFor(this.opts.settings, fits),
      maxPrice: this.opts.settings.maxPrice,
    });
    this.cycle = cycle;
    this.pieces = past;
    this.adopt(result, now, cause, false, fits < rest ? `only ${hours(cycle.to - from)} of the window is left` : null);
  }

  /** Adds a fresh result to what has run and sends it when it differs. */
  private adopt(result: PlanResult, now: number, cause: PlanCause, always: boolean, lateStart: string | null = null): void {
    this.pieces = this.pieces.concat(result.pieces);
    const slots = mergeSlots(this.pieces);
    this.currency = result.currency;
    const shortfall = lateStart ?? result.shortfall;
    this.noPlan = slots.some((s) => s.to > now) ? null : (shortfall ?? 'nothing left to run in this window');
    if (always) this.sentPlan = null;
    this.send(cause, result, shortfall, now);
    this.problem = null;
  }

  private send(cause: PlanCause, result: PlanResult | null, shortfall: string | null, now: number): void {
    const payload = this.payload(cause, result, shortfall, now);
    // a slot continued by a new plan is averaged again: prices differing in the last bits are the same plan
    const slots = payload.slots.map((x) => [x.from, x.to, Math.round(x.price * 1e9)]);
    const fingerprint = JSON.stringify([payload.window, slots, payload.requested]);
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
    if (this.cycle && this.started && this.cycleOver(this.cycle, now)) {
      this.replan('window');
      return;
    }
    const running = mergeSlots(this.pieces).find((s) => s.from <= now && now < s.to);
    const on = running !== undefined;
    if (on !== this.on) {
      this.on = on;
      this.opts.onSwitch(on);
    }
    this.save();
    const next = this.nextEvent(now);
    if (next === null) this.timer.cancel();
    else this.timer.arm(next, () => this.advance(), this.now);
    this.opts.onStatus(this.status(now, running));
  }

  private nextEvent(now: number): number | null {
    let next = Infinity;
    for (const s of this.pieces) {
      if (s.from > now) next = Math.min(next, s.from);
      if (s.to > now) next = Math.min(next, s.to);
    }
    if (this.cycle) {
      const end = this.cycleEnd(this.cycle);
      if (end > now) next = Math.min(next, end);
    }
    return next === Infinity ? null : next;
  }

  /** What of the plan has run by `now`: the pieces before it, the running one cut at now. */
  private pastPieces(now: number): PlanSlot[] {
    return this.pieces.filter((s) => s.from < now).map((s) => ({ ...s, to: Math.min(s.to, now) }));
  }

  /** A rolling plan is over when its last slot has run; any other at the end of its window. */
  private cycleEnd(cycle: Cycle): number {
    if (this.opts.settings.window.kind === 'rolling' && !cycle.override && cycle.requested > 0 && this.pieces.length > 0) {
      return Math.min(cycle.to, this.pieces[this.pieces.length - 1].to);
    }
    return cycle.to;
  }

  private cycleOver(cycle: Cycle, now: number): boolean {
    return now >= this.cycleEnd(cycle);
  }

  private failed(err: Error): void {
    const message = `no plan: ${err.message}`;
    this.noPlan = err.message;
    if (this.on !== null) this.advance();
    else this.opts.onStatus({ fill: 'red', shape: 'ring', text: shortText(message, 60) });
    // a missing tariff has just been told by the tariff watch in the same words
    if (this.problem !== err.message) this.tell(message);
  }

  private tell(message: string): void {
    if (message === this.problem) return;
    this.problem = message;
    this.opts.onProblem(message);
  }

  private status(now: number, running: PlanSlot | undefined): WatchStatus {
    const tz = this.opts.hub.timezone;
    if (running) return { fill: 'green', shape: 'dot', text: `on until ${localTime(running.to, now, tz)}` };
    const next = mergeSlots(this.pieces).find((s) => s.from > now);
    if (next) return { fill: 'grey', shape: 'dot', text: `next ${localTime(next.from, now, tz)}–${localTime(next.to, next.from, tz)}` };
    return { fill: 'yellow', shape: 'ring', text: shortText(`no plan: ${this.noPlan ?? 'nothing left to run in this window'}`, 60) };
  }

  private payload(cause: PlanCause, result: PlanResult | null, shortfall: string | null, now: number): PlanPayload {
    const tz = this.opts.hub.timezone;
    const cycle = this.cycle!;
    const vat = result ? result.vat : 0;
    const planned = this.pieces.reduce((sum, s) => sum + (s.to - s.from), 0);
    const net = this.pieces.reduce((sum, s) => sum + s.price * ((s.to - s.from) / HOUR_MS), 0);
    return {
      tariffId: this.opts.tariffId,
      timezone: tz,
      currency: this.currency,
      window: { from: iso(cycle.from), to: iso(cycle.to), fromLocal: localIso(cycle.from, tz), toLocal: localIso(cycle.to, tz) },
      requested: cycle.requested,
      planned,
      slots: mergeSlots(this.pieces).map((s) => ({
        from: iso(s.from),
        to: iso(s.to),
        fromLocal: localIso(s.from, tz),
        toLocal: localIso(s.to, tz),
        price: roundAmount(s.price),
      })),
      averagePrice: roundAmountOrNull(planned > 0 ? net / (planned / HOUR_MS) : null),
      costPerKw: { net: roundAmount(net), gross: roundAmount(net * (1 + vat / 100)) },
      comparedToNow: result ? result.comparedToNow : null,
      shortfall,
      cause,
      madeAt: iso(now),
    };
  }

  private save(): void {
    if (!this.cycle) return;
    const value: Stored = { key: this.key, cycle: this.cycle, pieces: this.pieces, on: this.on === true, currency: this.currency };
    this.opts.store.save(value).catch((err: Error) => this.tell(`the plan could not be stored: ${err.message}`));
  }

  /** A stored plan made for these settings whose window has not ended; anything else is ignored. */
  private restore(stored: unknown): boolean {
    if (typeof stored !== 'object' || stored === null) return false;
    const s = stored as Partial<Stored>;
    if (s.key !== this.key || !isCycle(s.cycle) || !Array.isArray(s.pieces) || s.pieces.length > 10_000 || !s.pieces.every(isSlot))
      return false;
    if (s.cycle.to <= this.now()) return false;
    this.cycle = s.cycle;
    this.pieces = s.pieces.map((x) => ({ from: x.from, to: x.to, price: x.price }));
    this.currency = typeof s.currency === 'string' ? s.currency : null;
    this.started = true;
    return true;
  }
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function isCycle(x: unknown): x is Cycle {
  const c = x as Cycle;
  return typeof x === 'object' && x !== null && finite(c.from) && finite(c.to) && finite(c.requested) && typeof c.override === 'boolean';
}

function isSlot(x: unknown): x is PlanSlot {
  const s = x as PlanSlot;
  return typeof x === 'object' && x !== null && finite(s.from) && finite(s.to) && finite(s.price) && s.to > s.from;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** ISO text on the zone's wall clock with its offset: 2026-03-29T04:30:00+01:00. */
export function localIso(ms: number, timezone: string): string {
  const zone = zoneInfo(timezone);
  const offsetMin = Math.round((toLocalMs(zone, ms) - ms) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${localIsoText(zone, ms).slice(0, 19)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}
