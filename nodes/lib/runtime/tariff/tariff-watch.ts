// What an easy-tariff node does, free of Node-RED: follow one tariff through the account
// hub, price it now, and price it again exactly when the price changes (a timer at
// nextPriceChange, never a polling tick) or when a sensor its rules read changes, and at
// once when the wall clock steps (docs/semantics.md, "Clock steps"). The
// payload it sends is price-payload's, its status watch-status's, and the sensor values
// it prices with are RuleSensors'.

import { DroppedState } from '../../engine/common/stored-checks';
import type { AccountHub, HubStore, SensorSnapshot, TariffSnapshot } from '../account/hub';
import { DeadlineTimer } from '../../engine/time/long-timer';
import { clockSteps } from '../../engine/time/clock-steps';
import { nextPriceChange, priceAt, priceTerms, schedule, PriceResult, SensorValues } from '../../engine/prices/price-source';
import { SensorRef, sensorsUsedBy, Tariff } from '../../engine/tariff/tariff';
import { roundAmountOrNull } from '../../engine/common/format';
import { SensorFollower } from './sensor-follower';
import { tariffById, whyNoTariff } from '../common/tariff-lookup';
import { DAY_MS, HOUR_MS } from '../../engine/time/time';
import { iso, noPrice, PricePayload, priceReason, pricePayload, stackParts } from './price-payload';
import { RuleSensors } from './rule-sensors';
import { FirstPriceHold } from './first-price-hold';
import { watchStatus, WatchStatus } from './watch-status';
import type { StackSource } from '../prices/prices-source';
import type { PriceStack } from '../../engine/prices/price-stack';

export interface TariffWatchOptions {
  hub: AccountHub;
  tariffId: string;
  refreshMinutes: number;
  /** How often the gateways named by sensor rules are polled. */
  sensorPollSec?: number;
  now?: () => number;
  onPrice(payload: PricePayload): void;
  onStatus(status: WatchStatus): void;
  /** A new problem (fetch failed, tariff missing or invalid, sensor poll failed), once per change. */
  onProblem(message: string, payload: PricePayload): void;
  /** The tariffs were fetched again or a sensor the rules read changed (for planners). */
  onInputs?(): void;
  /** Where the last known values of the rules' sensors are kept across restarts. */
  sensorStore?: HubStore;
  /** Says once what a read of sensorStore dropped (a forged or damaged store). */
  warn?(message: string): void;
  /** The easy-prices node's list stacked with the tariff (docs/nodes.md, "Spot prices"); none: the tariff alone. */
  prices?: StackSource | null;
}

export interface ScheduleAnswer {
  tariffId: string;
  tariffName: string;
  currency: string;
  vat: number;
  timezone: string;
  /** With an easy-prices node, each segment's `spot` and `fees` too (net per kWh; null with no price). */
  segments: Array<{
    from: string;
    to: string;
    fromMs: number;
    toMs: number;
    price: number | null;
    ruleIndex: number | null;
    spot?: number | null;
    fees?: number | null;
  }>;
}

export const DEFAULT_SENSOR_POLL_SEC = 60;
/** How far back validFrom is looked for; older starts are reported as null. */
const LOOK_BACK_MS = 8 * DAY_MS;
const LATE_TOLERANCE_MS = 1000;

export class TariffWatch {
  private readonly hub: AccountHub;
  private readonly tariffId: string;
  private readonly now: () => number;
  private snapshot: TariffSnapshot | null = null;
  private readonly timer = new DeadlineTimer();
  /** The price change the timer is armed for (null: none armed). */
  private due: number | null = null;
  private stopSteps: (() => void) | null = null;
  /** The clock stepped since the last price: a new price dates from where it began, not from the step. */
  private stepped = false;
  private unwatchTariffs: (() => void) | null = null;
  private readonly sensors: SensorFollower;
  private readonly gatewayErrors = new Map<string, Error | null>();
  private readonly ruleSensors = new RuleSensors();
  private emitted: { key: string; stale: boolean; validFrom: number | null } | null = null;
  /** Before the first price: a price that a poll or the kept values may change a moment later is not sent. */
  private readonly firstPrice: FirstPriceHold;
  private reported: string | null = null;
  private closed = false;
  private readonly prices: StackSource | null;
  /** The prices node's kept list has been read back (prices wait for it, as the first price waits for kept sensors). */
  private pricesReady = false;
  private unwatchPrices: (() => void) | null = null;

  constructor(private readonly opts: TariffWatchOptions) {
    this.hub = opts.hub;
    this.tariffId = opts.tariffId;
    this.now = opts.now ?? Date.now;
    this.prices = opts.prices ?? null;
    this.sensors = new SensorFollower(opts.hub, opts.sensorPollSec ?? DEFAULT_SENSOR_POLL_SEC, (s) => this.onSensors(s));
    this.firstPrice = new FirstPriceHold(
      () => this.hub.firstAnswerWaitMs,
      () => this.evaluate(this.now()),
    );
  }

  start(): void {
    this.stopSteps = clockSteps.onStep(() => {
      this.stepped = true;
      this.evaluate(this.now());
    });
    this.loadKept();
    this.followPrices();
    this.unwatchTariffs = this.hub.watchTariffs(this.opts.refreshMinutes, (s) => {
      this.priceDueFirst();
      this.snapshot = s;
      this.followSensors();
      this.evaluate(this.now());
      // a planner waits for the kept prices: planning on an empty list would drop what was promised
      if (!this.prices || this.pricesReady) this.opts.onInputs?.();
    });
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.stopSteps?.();
    this.firstPrice.cancel();
    this.unwatchTariffs?.();
    this.unwatchPrices?.();
    this.sensors.close();
  }

  /**
   * A sensor value from a message. Returns false (and changes nothing) when the tariff's
   * rules do not read that sensor; before the tariff is known every value is kept.
   */
  setSensor(gatewayId: string | undefined, sensorId: string, value: number): boolean {
    const tariff = this.tariff();
    if (tariff) {
      const used = sensorsUsedBy(tariff).some((r) => r.sensorId === sensorId && (gatewayId === undefined || r.gatewayId === gatewayId));
      if (!used) return false;
    }
    this.takeSensors(() => {
      this.ruleSensors.set(gatewayId, sensorId, value);
      return true;
    });
    return true;
  }

  /** The segments of the next `hours`, for charts and planning; throws when there is no tariff. */
  schedule(hours = 24): ScheduleAnswer {
    const { tariff: source, options, currency, vat } = this.pricingInputs();
    const tariff = this.tariff()!;
    const from = this.now();
    const segments = schedule(source, from, from + hours * HOUR_MS, options);
    return {
      tariffId: tariff.id,
      tariffName: tariff.name,
      currency,
      vat,
      timezone: this.hub.timezone,
      segments: segments.map((s) => ({
        from: iso(s.from),
        to: iso(s.to),
        fromMs: s.from,
        toMs: s.to,
        price: roundAmountOrNull(s.price),
        ruleIndex: s.ruleIndex,
        ...(s.spot === undefined ? {} : { spot: roundAmountOrNull(s.spot), fees: roundAmountOrNull(s.fees ?? null) }),
      })),
    };
  }

  /**
   * What prices now: the tariff, or the stack of the prices node's list over it; the price
   * options (zone, known sensor values); the currency and the VAT its prices carry. Throws
   * when there is no tariff.
   */
  pricingInputs(): { tariff: Tariff | PriceStack; options: { timezone: string; sensors: SensorValues }; currency: string; vat: number } {
    const tariff = this.tariff();
    if (!tariff) throw new Error(this.snapshot ? whyNoTariff(this.snapshot, this.tariffId) : 'the tariffs have not been fetched yet');
    const source = this.source(tariff);
    // the VAT and currency its prices carry: a stack's own (priceTerms, as priceAt's results say them)
    const { vat, currency } = priceTerms(source);
    return { tariff: source, options: this.priceOptions(tariff), currency, vat };
  }

  /** The prices node's stack, when the node uses one: for what says how far prices are known. */
  get stackSource(): StackSource | null {
    return this.prices;
  }

  // -------------------------------------------------------------------------------------

  private tariff(): Tariff | undefined {
    return this.snapshot ? tariffById(this.snapshot, this.tariffId) : undefined;
  }

  /** What the engine prices: the tariff, or the prices node's stack over it. */
  private source(tariff: Tariff): Tariff | PriceStack {
    return this.prices ? this.prices.stackFor(tariff) : tariff;
  }

  /** A new list (or the kept one read back) prices again at once, and planners plan again. */
  private followPrices(): void {
    const prices = this.prices;
    if (!prices) return;
    const changed = () => {
      if (this.closed) return;
      // a price the new list brings has been in force since its own start, not since the list came
      this.stepped = true;
      this.evaluate(this.now());
      if (this.snapshot) this.opts.onInputs?.();
    };
    this.unwatchPrices = prices.book.subscribe(changed);
    void prices.book.ready.then(() => {
      this.pricesReady = true;
      changed();
    });
  }

  /**
   * Runs from hub callbacks and timers, where a throw would be swallowed or crash the
   * runtime; an unexpected error is told like any other problem instead.
   */
  private evaluate(at: number): void {
    try {
      this.reprice(at);
    } catch (err) {
      const message = `could not price tariff "${this.tariffId}": ${err instanceof Error ? err.message : String(err)}`;
      this.opts.onStatus({ fill: 'red', shape: 'ring', text: 'pricing failed' });
      this.opts.onProblem(message, noPrice(this.tariffId, message));
    }
  }

  private reprice(at: number): void {
    const snap = this.snapshot;
    if (this.closed || !snap) return;
    const tariff = this.tariff();
    if (this.holdingFirstPrice(tariff)) return;
    if (this.prices && !this.pricesReady) {
      this.opts.onStatus({ fill: 'grey', shape: 'ring', text: 'reading kept prices…' });
      return;
    }
    // The armed price change passed less than LATE_TOLERANCE_MS ago: its timer a few ms late,
    // or not fired yet (a loaded machine ran a sensor value or a refresh first), prices and
    // dates the change itself. Priced there too, not just dated: were another change to lie
    // between it and now, its timer (then past) fires at once and prices that one from its
    // own instant. Later than that (a suspended machine slept through it), or across a clock
    // step, it is priced and dated now.
    if (this.duePassed(at)) at = this.due!;
    let result: PriceResult | null = null;
    let next: { at: number } | null = null;
    let reason: string | null;
    let unknownSensors: SensorRef[] = [];
    if (!tariff) {
      reason = whyNoTariff(snap, this.tariffId);
    } else {
      const options = this.priceOptions(tariff);
      const source = this.source(tariff);
      result = priceAt(source, at, options);
      next = nextPriceChange(source, at, options);
      unknownSensors = result ? result.unknownSensors : this.ruleSensors.unknown(tariff);
      reason = priceReason(result !== null, unknownSensors);
      // no price where the list has none: said as such (prices known until 23:45), not as a missing rule
      if (this.prices && this.prices.knownUntil(at) === null) {
        const why = this.prices.whyNoPrice(at, this.hub.timezone);
        // with the fallback set, the tariff alone prices here: said as a caveat
        reason = result === null ? why : `the tariff alone: ${why.replace(/^no price: /, '')}`;
      }
    }

    // Without a price the reason is what changes (tariff missing → rejected → no rule):
    // each is news downstream, so it is part of the key.
    const key = result ? `${result.price}|${result.gross}|${result.currency}` : `none|${reason}`;
    const priceChanged = !this.emitted || this.emitted.key !== key;
    // tariffs turning stale or fresh again is news too, for flows that act on fresh prices only
    const changed = priceChanged || this.emitted!.stale !== snap.stale;
    let validFrom: number | null;
    if (!priceChanged) validFrom = this.emitted!.validFrom;
    else if (this.emitted && !this.stepped) validFrom = at;
    else validFrom = tariff ? this.priceSince(this.source(tariff), tariff, at) : null;
    this.stepped = false;
    this.emitted = { key, stale: snap.stale, validFrom };

    const payload = pricePayload({ tariffId: this.tariffId, tariff, result, next, validFrom, unknownSensors, snap, reason });
    if (this.prices) Object.assign(payload, stackParts(result, this.prices.knownUntil(at), at, this.hub.timezone));

    if (next) {
      this.due = next.at;
      this.timer.arm(next.at, () => this.evaluate(this.now()), this.now);
    } else {
      this.timer.cancel();
      this.due = null;
    }
    this.opts.onStatus(watchStatus(payload, snap, at, this.hub.timezone));
    if (changed) this.opts.onPrice(payload);
    this.report(snap, tariff, payload);
  }

  /**
   * Before a refresh or sensor values are taken (rule 67): a price change its timer has not
   * priced yet happens first, at its boundary with the tariff and values before, as its timer
   * would have; what the new ones bring prices from now. (A refresh or value that brings
   * nothing new then prices as the change did, and sends nothing more.)
   */
  private priceDueFirst(): void {
    if (this.duePassed(this.now())) this.evaluate(this.now());
  }

  /** Whether the armed price change lies at or before `at`, less than LATE_TOLERANCE_MS ago, with no clock step since. */
  private duePassed(at: number): boolean {
    return this.due !== null && !this.stepped && at >= this.due && at - this.due < LATE_TOLERANCE_MS;
  }

  private priceOptions(tariff: Tariff): { timezone: string; sensors: SensorValues } {
    return { timezone: this.hub.timezone, sensors: this.ruleSensors.values(tariff) };
  }

  /** Where the current price began, looking back with today's sensor values. */
  private priceSince(source: Tariff | PriceStack, tariff: Tariff, at: number): number | null {
    const segments = schedule(source, at - LOOK_BACK_MS, at + 1, this.priceOptions(tariff));
    let k = segments.length - 1;
    const current = segments[k].price;
    while (k > 0 && segments[k - 1].price === current) k--;
    return segments[k].from > at - LOOK_BACK_MS ? segments[k].from : null;
  }

  /** Tells each new problem once; a problem that goes away is forgotten, so it is told again if it comes back. */
  private report(snap: TariffSnapshot, tariff: Tariff | undefined, payload: PricePayload): void {
    let problem: string | null = null;
    if (snap.error)
      problem = tariff ? `tariffs could not be refreshed: ${snap.error.message} (pricing from the last good ones)` : payload.reason;
    else if (!tariff) problem = payload.reason;
    else {
      const failed = [...this.gatewayErrors].find(([, e]) => e);
      if (failed) problem = `sensors of gateway ${failed[0]} could not be read: ${failed[1]!.message}`;
    }
    if (problem !== null && problem !== this.reported) this.opts.onProblem(problem, payload);
    this.reported = problem;
  }

  // -------------------------------------------------------------------------------------
  // Sensors polled through the hub

  /** Watches exactly the gateways the tariff's sensor rules name. */
  private followSensors(): void {
    const tariff = this.tariff();
    // a gateway watched before the first price is awaited: its first poll may change that price
    this.sensors.follow(tariff ? sensorsUsedBy(tariff) : [], (gatewayId) => {
      if (!this.emitted) this.firstPrice.awaitPoll(gatewayId);
    });
    for (const gatewayId of [...this.gatewayErrors.keys()]) if (!this.sensors.watching(gatewayId)) this.gatewayErrors.delete(gatewayId);
  }

  /**
   * Whether the first price waits: for the kept sensor values and for the first poll of
   * each gateway the rules name, at most the request deadline from when the tariff came.
   */
  private holdingFirstPrice(tariff: Tariff | undefined): boolean {
    if (this.emitted || !tariff || sensorsUsedBy(tariff).length === 0) return false;
    if (!this.firstPrice.holding()) return false;
    this.opts.onStatus({ fill: 'grey', shape: 'ring', text: 'reading sensors…' });
    return true;
  }

  /** The last known values of the rules' sensors, from before a restart; anything newer wins. */
  private loadKept(): void {
    const store = this.opts.sensorStore;
    if (!store) {
      this.firstPrice.keptDone();
      return;
    }
    const apply = (kept: unknown) => {
      if (this.closed) return;
      const dropped = new DroppedState('stored sensor values');
      this.ruleSensors.restore(kept, dropped);
      if (this.opts.warn) dropped.tell(this.opts.warn);
      this.firstPrice.keptDone();
      this.evaluate(this.now());
    };
    // an unreadable store is an empty one: the sensors are polled anyway
    store.load().then(apply, () => apply(null));
  }

  private saveKept(): void {
    const tariff = this.tariff();
    if (this.opts.sensorStore && tariff) this.ruleSensors.keep(tariff, this.opts.sensorStore);
  }

  private onSensors(s: SensorSnapshot): void {
    this.takeSensors(() => {
      const firstAnswer = this.firstPrice.pollAnswered(s.gatewayId);
      const changed = firstAnswer || (this.gatewayErrors.get(s.gatewayId) ?? null) !== s.error;
      this.gatewayErrors.set(s.gatewayId, s.error);
      return this.ruleSensors.setPolled(s) || changed;
    });
  }

  /**
   * Sensor values (a message's, a poll's) taken by `take` (true: something changed), priced now.
   * A price change its timer has not priced yet happens first, at its boundary with the values
   * before, as its timer would have; what the new values bring prices from now (rule 67).
   */
  private takeSensors(take: () => boolean): void {
    this.priceDueFirst();
    if (!take()) return;
    this.saveKept();
    this.evaluate(this.now());
    this.opts.onInputs?.();
  }
}
