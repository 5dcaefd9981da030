// What an easy-tariff node does, free of Node-RED: follow one tariff through the account
// hub, price it now, and price it again exactly when the price changes (a timer at
// nextPriceChange, never a polling tick) or when a sensor its rules read changes.

import type { AccountHub, HubStore, SensorSnapshot, TariffSnapshot } from './hub';
import { NoTokenError } from './hub';
import { LongTimer } from '../engine/long-timer';
import { nextPriceChange, priceAt, PriceResult, schedule, SensorValues } from '../engine/price';
import { SensorRef, sensorKey, sensorsUsedBy, Tariff } from '../engine/tariff';
import { roundAmount, roundAmountOrNull, shortText, timeOfDay } from '../engine/format';
import { SensorFollower } from './sensor-follower';
import { tariffById, whyNoTariff } from './tariff-lookup';
import { DAY_MS, HOUR_MS, MINUTE_MS, localDayNumber, toLocalMs, zoneInfo } from '../engine/time';
import { dataRecord, nestedField, setNested } from '../engine/id-map';

export interface PricePayload {
  price: number | null;
  gross: number | null;
  vat: number | null;
  currency: string | null;
  tariffId: string;
  tariffName: string | null;
  ruleIndex: number | null;
  priority: number | null;
  /** Since when this price applies (ISO), null when that lies beyond the look-back. */
  validFrom: string | null;
  /** The next price change (ISO), null when none within the engine's horizon. */
  validUntil: string | null;
  /** validFrom and validUntil in epoch ms. */
  validFromMs: number | null;
  validUntilMs: number | null;
  /** Sensors the rules read whose value is not known (their rules did not match). */
  unknownSensors: SensorRef[];
  /** Priced from tariffs of an earlier fetch: the last fetch failed, or none answered within the request deadline. */
  stale: boolean;
  tariffsFetchedAt: string | null;
  /** Why there is no price, or a caveat about it; null when all is well. */
  reason: string | null;
}

export interface WatchStatus {
  fill: 'green' | 'yellow' | 'red' | 'grey';
  shape: 'dot' | 'ring';
  text: string;
}

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
}

export interface ScheduleAnswer {
  tariffId: string;
  tariffName: string;
  currency: string;
  vat: number;
  timezone: string;
  segments: Array<{ from: string; to: string; fromMs: number; toMs: number; price: number | null; ruleIndex: number | null }>;
}

export const DEFAULT_SENSOR_POLL_SEC = 60;
/** How far back validFrom is looked for; older starts are reported as null. */
const LOOK_BACK_MS = 8 * DAY_MS;
const LATE_TOLERANCE_MS = 1000;
/** Far above any tariff's sensor rules; what is kept beyond it is dropped. */
const MAX_KEPT_SENSORS = 1000;

/** A kept sensor value, as stored: plain JSON. */
interface KeptSensor {
  gatewayId: string;
  sensorId: string;
  value: number;
}

/** A sensor value and the order in which it arrived, so the latest source wins. */
interface Known {
  value: number;
  seq: number;
}

export class TariffWatch {
  private readonly hub: AccountHub;
  private readonly tariffId: string;
  private readonly now: () => number;
  private snapshot: TariffSnapshot | null = null;
  private readonly timer = new LongTimer();
  private unwatchTariffs: (() => void) | null = null;
  private readonly sensors: SensorFollower;
  private readonly gatewayErrors = new Map<string, Error | null>();
  /** By `gateway \0 sensor` (polls and messages naming a gateway) and by sensor id alone. */
  private readonly byGateway = new Map<string, Known>();
  private readonly byId = new Map<string, Known>();
  /** The last polled value and timestamp per sensor: a poll only counts when it brings news. */
  private readonly lastPolled = new Map<string, string>();
  private seq = 0;
  private emitted: { key: string; stale: boolean; validFrom: number | null } | null = null;
  /**
   * Before the first price: gateways whose first poll has not answered. A price that a
   * poll may change a moment later is not sent; the wait ends at `firstPriceBy`.
   */
  private readonly awaitingPoll = new Set<string>();
  private keptLoaded = false;
  private firstPriceBy = Infinity;
  private readonly holdTimer = new LongTimer();
  private reported: string | null = null;
  private closed = false;

  constructor(private readonly opts: TariffWatchOptions) {
    this.hub = opts.hub;
    this.tariffId = opts.tariffId;
    this.now = opts.now ?? Date.now;
    this.sensors = new SensorFollower(opts.hub, opts.sensorPollSec ?? DEFAULT_SENSOR_POLL_SEC, (s) => this.onSensors(s));
  }

  start(): void {
    this.loadKept();
    this.unwatchTariffs = this.hub.watchTariffs(this.opts.refreshMinutes, (s) => {
      this.snapshot = s;
      this.followSensors();
      this.evaluate(this.now());
      this.opts.onInputs?.();
    });
  }

  close(): void {
    this.closed = true;
    this.timer.cancel();
    this.holdTimer.cancel();
    this.unwatchTariffs?.();
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
    const known = { value, seq: ++this.seq };
    if (gatewayId === undefined) this.byId.set(sensorId, known);
    else this.byGateway.set(sensorKey(gatewayId, sensorId), known);
    this.saveKept();
    this.evaluate(this.now());
    this.opts.onInputs?.();
    return true;
  }

  /** The segments of the next `hours`, for charts and planning; throws when there is no tariff. */
  schedule(hours = 24): ScheduleAnswer {
    const { tariff, options } = this.pricingInputs();
    const from = this.now();
    const segments = schedule(tariff, from, from + hours * HOUR_MS, options);
    return {
      tariffId: tariff.id,
      tariffName: tariff.name,
      currency: tariff.currency,
      vat: tariff.vat,
      timezone: this.hub.timezone,
      segments: segments.map((s) => ({
        from: iso(s.from),
        to: iso(s.to),
        fromMs: s.from,
        toMs: s.to,
        price: roundAmountOrNull(s.price),
        ruleIndex: s.ruleIndex,
      })),
    };
  }

  /** The tariff and the price options (zone, known sensor values) now; throws when there is no tariff. */
  pricingInputs(): { tariff: Tariff; options: { timezone: string; sensors: SensorValues } } {
    const tariff = this.tariff();
    if (!tariff) throw new Error(this.snapshot ? whyNoTariff(this.snapshot, this.tariffId) : 'the tariffs have not been fetched yet');
    return { tariff, options: this.priceOptions(tariff) };
  }

  // -------------------------------------------------------------------------------------

  private tariff(): Tariff | undefined {
    return this.snapshot ? tariffById(this.snapshot, this.tariffId) : undefined;
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
    if (this.holdingFirstPrice(tariff, at)) return;
    let result: PriceResult | null = null;
    let next: { at: number } | null = null;
    let reason: string | null;
    let unknownSensors: SensorRef[] = [];
    if (!tariff) {
      reason = whyNoTariff(snap, this.tariffId);
    } else {
      const options = this.priceOptions(tariff);
      result = priceAt(tariff, at, options);
      next = nextPriceChange(tariff, at, options);
      unknownSensors = result ? result.unknownSensors : this.unknownSensors(tariff);
      if (!result)
        reason = unknownSensors.length ? `no rule matches: ${sensorWords(unknownSensors)} unknown` : 'no rule matches at this time';
      else reason = unknownSensors.length ? `${sensorWords(unknownSensors)} unknown, priced by a later rule` : null;
    }

    // Without a price the reason is what changes (tariff missing → rejected → no rule):
    // each is news downstream, so it is part of the key.
    const key = result ? `${result.price}|${result.gross}|${result.currency}` : `none|${reason}`;
    const priceChanged = !this.emitted || this.emitted.key !== key;
    // tariffs turning stale or fresh again is news too, for flows that act on fresh prices only
    const changed = priceChanged || this.emitted!.stale !== snap.stale;
    let validFrom: number | null;
    if (!priceChanged) validFrom = this.emitted!.validFrom;
    else if (this.emitted) validFrom = at;
    else validFrom = tariff ? this.priceSince(tariff, at) : null;
    this.emitted = { key, stale: snap.stale, validFrom };

    const payload: PricePayload = {
      price: result ? roundAmount(result.price) : null,
      gross: result ? roundAmount(result.gross) : null,
      vat: result?.vat ?? tariff?.vat ?? null,
      currency: result?.currency ?? tariff?.currency ?? null,
      tariffId: this.tariffId,
      tariffName: tariff?.name ?? null,
      ruleIndex: result?.ruleIndex ?? null,
      priority: result?.priority ?? null,
      validFrom: validFrom === null ? null : iso(validFrom),
      validUntil: next ? iso(next.at) : null,
      validFromMs: validFrom,
      validUntilMs: next ? next.at : null,
      unknownSensors,
      stale: snap.stale,
      tariffsFetchedAt: snap.fetchedAt === null ? null : iso(snap.fetchedAt),
      reason,
    };

    if (next) {
      const boundary = next.at;
      // A timer a few ms late still prices (and dates) the boundary itself; one that
      // slept through it (a suspended machine) prices now.
      this.timer.arm(
        boundary,
        () => {
          const now = this.now();
          this.evaluate(now - boundary < LATE_TOLERANCE_MS ? boundary : now);
        },
        this.now,
      );
    } else {
      this.timer.cancel();
    }
    this.opts.onStatus(this.status(payload, snap, at));
    if (changed) this.opts.onPrice(payload);
    this.report(snap, tariff, payload);
  }

  private priceOptions(tariff: Tariff): { timezone: string; sensors: SensorValues } {
    const sensors: SensorValues = dataRecord();
    for (const ref of sensorsUsedBy(tariff)) {
      const a = this.byGateway.get(sensorKey(ref.gatewayId, ref.sensorId));
      const b = this.byId.get(ref.sensorId);
      const known = a && b ? (a.seq > b.seq ? a : b) : (a ?? b);
      if (known) setNested(sensors, ref.gatewayId, ref.sensorId, known.value);
    }
    return { timezone: this.hub.timezone, sensors };
  }

  private unknownSensors(tariff: Tariff): SensorRef[] {
    const { sensors } = this.priceOptions(tariff);
    return sensorsUsedBy(tariff).filter((r) => nestedField(sensors, r.gatewayId, r.sensorId) === undefined);
  }

  /** Where the current price began, looking back with today's sensor values. */
  private priceSince(tariff: Tariff, at: number): number | null {
    const segments = schedule(tariff, at - LOOK_BACK_MS, at + 1, this.priceOptions(tariff));
    let k = segments.length - 1;
    const current = segments[k].price;
    while (k > 0 && segments[k - 1].price === current) k--;
    return segments[k].from > at - LOOK_BACK_MS ? segments[k].from : null;
  }

  private status(p: PricePayload, snap: TariffSnapshot, at: number): WatchStatus {
    const until = p.validUntil ? ` until ${localTime(Date.parse(p.validUntil), at, this.hub.timezone)}` : '';
    const age = snap.stale && snap.fetchedAt !== null ? ` · tariffs ${ageWords(at - snap.fetchedAt)} old` : '';
    if (p.price !== null) {
      const caveat = p.unknownSensors.length ? ` · ${sensorWords(p.unknownSensors)} unknown` : '';
      return { fill: snap.stale ? 'yellow' : 'green', shape: 'dot', text: `${rate(p.price)} ${p.currency}/kWh${until}${age}${caveat}` };
    }
    if (p.tariffName !== null) return { fill: 'yellow', shape: 'ring', text: `no price${until}: ${p.reason}${age}` };
    if (snap.error && snap.fetchedAt === null) return { fill: 'red', shape: 'ring', text: shortError(snap.error) };
    return { fill: 'red', shape: 'ring', text: /rejected/.test(p.reason ?? '') ? 'tariff invalid' : 'tariff not found' };
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
      if (!this.emitted) this.awaitingPoll.add(gatewayId);
    });
    for (const gatewayId of [...this.gatewayErrors.keys()]) if (!this.sensors.watching(gatewayId)) this.gatewayErrors.delete(gatewayId);
  }

  /**
   * Whether the first price waits: for the kept sensor values and for the first poll of
   * each gateway the rules name, at most the request deadline from when the tariff came.
   */
  private holdingFirstPrice(tariff: Tariff | undefined, at: number): boolean {
    if (this.emitted || !tariff || sensorsUsedBy(tariff).length === 0) return false;
    if (this.keptLoaded && this.awaitingPoll.size === 0) return false;
    if (this.firstPriceBy === Infinity) {
      this.firstPriceBy = at + this.hub.firstAnswerWaitMs;
      this.holdTimer.arm(
        this.firstPriceBy,
        () => {
          this.awaitingPoll.clear();
          this.keptLoaded = true;
          this.evaluate(this.now());
        },
        this.now,
      );
    }
    if (at >= this.firstPriceBy) return false;
    this.opts.onStatus({ fill: 'grey', shape: 'ring', text: 'reading sensors…' });
    return true;
  }

  /** The last known values of the rules' sensors, from before a restart; anything newer wins. */
  private loadKept(): void {
    const store = this.opts.sensorStore;
    if (!store) {
      this.keptLoaded = true;
      return;
    }
    const apply = (kept: unknown) => {
      if (this.closed) return;
      if (Array.isArray(kept)) {
        for (const k of kept.slice(0, MAX_KEPT_SENSORS)) {
          if (!isKeptSensor(k)) continue;
          const key = sensorKey(k.gatewayId, k.sensorId);
          if (!this.byGateway.has(key)) this.byGateway.set(key, { value: k.value, seq: 0 });
        }
      }
      this.keptLoaded = true;
      this.evaluate(this.now());
    };
    // an unreadable store is an empty one: the sensors are polled anyway
    store.load().then(apply, () => apply(null));
  }

  private saveKept(): void {
    const tariff = this.tariff();
    if (!this.opts.sensorStore || !tariff) return;
    const kept: KeptSensor[] = [];
    const { sensors } = this.priceOptions(tariff);
    for (const ref of sensorsUsedBy(tariff)) {
      const value = nestedField(sensors, ref.gatewayId, ref.sensorId);
      if (typeof value === 'number') kept.push({ gatewayId: ref.gatewayId, sensorId: ref.sensorId, value });
    }
    // losing them only costs a wait for the first poll after a restart
    this.opts.sensorStore.save(kept).catch(() => undefined);
  }

  private onSensors(s: SensorSnapshot): void {
    const firstAnswer = this.awaitingPoll.delete(s.gatewayId);
    let changed = firstAnswer || (this.gatewayErrors.get(s.gatewayId) ?? null) !== s.error;
    this.gatewayErrors.set(s.gatewayId, s.error);
    for (const sensor of s.sensors) {
      const key = sensorKey(s.gatewayId, sensor.id);
      const reading = `${sensor.value}@${sensor.timestamp}`;
      if (this.lastPolled.get(key) === reading) continue;
      this.lastPolled.set(key, reading);
      this.byGateway.set(key, { value: sensor.value, seq: ++this.seq });
      changed = true;
    }
    if (changed) {
      this.saveKept();
      this.evaluate(this.now());
      this.opts.onInputs?.();
    }
  }
}

export interface SensorReading {
  gatewayId: string | undefined;
  sensorId: string;
  value: number;
}

/**
 * The sensor values a message carries: msg.topic = sensor id (or payload.id), msg.gateway
 * optional, msg.payload a number, a numeric string, a boolean, an easy-sensors payload
 * `{ id, value, ... }`, or the array of those that easy-sensors sends in `all` mode.
 * Throws a TypeError a user understands otherwise.
 */
export function sensorsFromMessage(msg: { topic?: unknown; gateway?: unknown; payload?: unknown }): SensorReading[] {
  const gatewayId = nonEmpty(msg.gateway) ?? undefined;
  if (Array.isArray(msg.payload)) return msg.payload.map((item) => reading(gatewayId, undefined, item));
  return [reading(gatewayId, msg.topic, msg.payload)];
}

function reading(gatewayId: string | undefined, topic: unknown, payload: unknown): SensorReading {
  const inner = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
  const sensorId = nonEmpty(topic) ?? nonEmpty(inner?.id);
  if (!sensorId) {
    throw new TypeError("expected msg.payload 'schedule', or a sensor value with msg.topic set to the sensor id");
  }
  const value = toNumber(inner ? inner.value : payload);
  if (value === null) {
    throw new TypeError(`sensor ${sensorId}: msg.payload must be a number (or an easy-sensors payload with a numeric value)`);
  }
  return { gatewayId, sensorId, value };
}

/** The payload when there is no price at all, e.g. no account or no tariff id. */
export function noPrice(tariffId: string, reason: string): PricePayload {
  return {
    price: null,
    gross: null,
    vat: null,
    currency: null,
    tariffId,
    tariffName: null,
    ruleIndex: null,
    priority: null,
    validFrom: null,
    validUntil: null,
    validFromMs: null,
    validUntilMs: null,
    unknownSensors: [],
    stale: false,
    tariffsFetchedAt: null,
    reason,
  };
}

function isKeptSensor(x: unknown): x is KeptSensor {
  if (typeof x !== 'object' || x === null) return false;
  const k = x as Record<string, unknown>;
  return typeof k.gatewayId === 'string' && typeof k.sensorId === 'string' && typeof k.value === 'number' && Number.isFinite(k.value);
}

function nonEmpty(x: unknown): string | null {
  if (typeof x === 'number' && Number.isFinite(x)) return String(x);
  return typeof x === 'string' && x.trim() !== '' ? x.trim() : null;
}

function toNumber(x: unknown): number | null {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) return Number(x);
  return null;
}

function sensorWords(refs: SensorRef[]): string {
  return refs.map((r) => `sensor ${r.gatewayId}/${r.sensorId}`).join(', ');
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A rate with at least 2 and at most 4 decimals: 0.45, 0.30, 0.1234. */
export function rate(price: number): string {
  return price.toFixed(4).replace(/0{1,2}$/, '');
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `19:00` (timeOfDay: seconds only when not :00), with the weekday when it is not the local day of `now`. */
export function localTime(at: number, now: number, timezone: string): string {
  const zone = zoneInfo(timezone);
  const local = new Date(toLocalMs(zone, at));
  const time = timeOfDay(Math.floor((local.getTime() - Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate())) / 1000));
  const sameDay = localDayNumber(zone, at) === localDayNumber(zone, now);
  return sameDay ? time : `${WEEKDAYS[local.getUTCDay()]} ${time}`;
}

export function ageWords(ms: number): string {
  if (ms < MINUTE_MS) return 'under a minute';
  if (ms < HOUR_MS) return `${Math.floor(ms / MINUTE_MS)} min`;
  if (ms < DAY_MS) return `${Math.floor(ms / HOUR_MS)} h`;
  return `${Math.floor(ms / DAY_MS)} d`;
}

const SHORT_ERRORS: Record<string, string> = {
  unauthorized: 'token rejected',
  forbidden: 'no tariff access',
  not_found: 'not found: check base URL',
  rate_limited: 'rate limited',
  server: 'service error',
  network: 'service unreachable',
  timeout: 'service timed out',
  invalid_response: 'bad answer from service',
  aborted: 'request aborted',
};

/** A status-sized word for an error: the client's code, or the start of its message. */
export function shortError(err: Error): string {
  if (err instanceof NoTokenError) return 'no token on the account';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SHORT_ERRORS[code]) return SHORT_ERRORS[code];
  return shortText(err.message, 40);
}
