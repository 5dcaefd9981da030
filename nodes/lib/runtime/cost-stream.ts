// easy-cost's stream mode without Node-RED: running totals per meter, their sum over the
// site, persistence through an injected store, and what the node sends and shows.
//
// A meter is (msg.gateway, msg.topic): easy-sensors in "each" mode sends every meter of a
// gateway through one wire, and each must count against its own previous reading. A bare
// number with no topic is the one default meter. Each meter's totals follow totals.ts
// (late readings, local periods); the site is the sum over meters per period.
import { closedPeriodBar } from '../engine/chart';
import { computeCost, RejectedInterval } from '../engine/cost';
import { bucketPayload, changePayload, isEnergyReading, rejectedPayload, SensorHistory, streamReading } from './cost-inputs';
import { formatMoney, shortText } from '../engine/format';
import { SensorRef, Tariff } from '../engine/tariff';
import { localPeriod } from '../engine/time';
import {
  addReading,
  AddResult,
  Bucket,
  IntervalCost,
  MAX_KEPT,
  newTotals,
  PERIODS,
  PeriodName,
  Reading,
  restoreTotals,
  TotalsState,
  windowStart,
} from '../engine/totals';

/** More meters than this on one node is a wiring mistake (an unfiltered gateway), not a site. */
export const MAX_METERS = 128;

/** Where the totals live across restarts (the node's context). */
export interface TotalsStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface MeterId {
  gateway: string | null;
  topic: string | null;
}

interface Meter extends MeterId {
  totals: TotalsState;
}

/** What is stored: every meter's totals, in arrival order (meter names are data, never keys). */
interface StoredMeters {
  version: 2;
  timezone: string;
  tariffId: string;
  meters: Array<{ gateway: string | null; topic: string | null; totals: unknown }>;
}

export interface StreamStatus {
  fill: 'green' | 'yellow' | 'grey';
  shape: 'dot' | 'ring';
  text: string;
}

export interface StreamOutput {
  payload: Record<string, unknown>;
  /** Closed periods as Dashboard 2 bars (second output). */
  bars: Array<ReturnType<typeof closedPeriodBar>>;
  status: StreamStatus;
}

export interface CostStreamOptions {
  timezone: string;
  tariffId: string;
  store: TotalsStore;
  /** Said once per reason: a sensor that is not a meter, totals that could not be restored. */
  warn(message: string): void;
  log?(message: string): void;
  maxMeters?: number;
  maxKept?: number;
}

type StreamMessage = Record<string, unknown>;

const meterKey = (m: MeterId): string => JSON.stringify([m.gateway, m.topic]);

/** A meter as people name it: `DEMO/e1.kwh`, `kitchen`, or `default`. */
export function meterName(m: MeterId): string {
  const topic = m.topic ?? 'default';
  return m.gateway === null ? topic : `${m.gateway}/${topic}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export class CostStream {
  private readonly meters = new Map<string, Meter>();
  /** Totals stored in the single-meter shape, taken over by the first meter that reports. */
  private legacy: TotalsState | null = null;
  private sensors = new SensorHistory([]);
  private readonly warned = new Set<string>();
  private readonly maxMeters: number;
  private readonly maxKept: number;
  private ready = false;

  constructor(private readonly opts: CostStreamOptions) {
    this.maxMeters = opts.maxMeters ?? MAX_METERS;
    this.maxKept = opts.maxKept ?? MAX_KEPT;
  }

  // -------------------------------------------------------------------------------------
  // persistence

  /** Loads the stored totals; anything unusable is said (warn) and counting starts from zero. */
  async restore(): Promise<StreamStatus> {
    let stored: unknown;
    let problem: string | null = null;
    try {
      stored = await this.opts.store.load();
    } catch (err) {
      problem = `stored totals could not be read (${(err as Error).message})`;
    }
    if (problem === null) problem = this.adopt(stored);
    this.ready = true;
    if (problem) this.opts.warn(`running totals started from zero: ${problem}`);
    // an emptied context file looks like a first deploy: say it either way
    else if (stored === undefined || stored === null)
      this.opts.log?.('running totals start from zero: none are stored (a first deploy, or the context store lost them)');
    const site = this.site();
    if (site.day)
      return { fill: 'grey', shape: 'dot', text: `today ${site.day.energy.toFixed(2)} kWh (restored) · ${plural(site.meters, 'meter')}` };
    return { fill: 'grey', shape: 'ring', text: 'stream · totals from zero' };
  }

  /** Takes the stored value in; returns why it could not be (or null). */
  private adopt(stored: unknown): string | null {
    const { timezone, tariffId } = this.opts;
    if (stored === undefined || stored === null) return null;
    if (typeof stored === 'object' && (stored as { version?: unknown }).version === 1) {
      // the single-meter shape of earlier versions: kept whole, for the first meter to report
      const restored = restoreTotals(stored, timezone, tariffId);
      if (!restored.problem && restored.state.total) this.legacy = restored.state;
      return restored.problem;
    }
    const s = stored as Partial<StoredMeters>;
    if (typeof stored !== 'object' || s.version !== 2 || !Array.isArray(s.meters) || s.meters.length > this.maxMeters)
      return 'stored totals are unreadable';
    if (s.tariffId !== tariffId) return `stored totals belong to tariff "${String(s.tariffId)}"`;
    if (s.timezone !== timezone) return `stored totals were counted in ${String(s.timezone)}`;
    const meters = new Map<string, Meter>();
    for (const m of s.meters) {
      const id = { gateway: nameOrNull(m?.gateway), topic: nameOrNull(m?.topic) };
      const restored = restoreTotals(m?.totals, timezone, tariffId);
      if (id.gateway === undefined || id.topic === undefined || restored.problem || meters.has(meterKey(id as MeterId)))
        return 'stored totals are unreadable';
      meters.set(meterKey(id as MeterId), { ...(id as MeterId), totals: restored.state });
    }
    for (const [key, meter] of meters) this.meters.set(key, meter);
    return null;
  }

  private async save(): Promise<void> {
    const stored: StoredMeters = {
      version: 2,
      timezone: this.opts.timezone,
      tariffId: this.opts.tariffId,
      meters: [...this.meters.values()].map((m) => ({ gateway: m.gateway, topic: m.topic, totals: m.totals })),
    };
    await this.opts.store.save(stored);
  }

  // -------------------------------------------------------------------------------------
  // sensors the tariff's rules read

  /** The sensors whose live values price the intervals (a sensor rule's gateway/sensor). */
  followSensors(refs: SensorRef[]): void {
    this.sensors = new SensorHistory(refs);
  }

  recordSensor(gatewayId: string, sensorId: string, ts: number, value: number): void {
    this.sensors.record(gatewayId, sensorId, ts, value);
  }

  // -------------------------------------------------------------------------------------
  // messages

  /**
   * One message: a reading (counted in its meter), a live value of a sensor the tariff
   * reads (null: nothing to send), a sensor that is no meter (null, warned once), or
   * `msg.reset`. Throws an error a user understands for anything else.
   */
  async handle(msg: StreamMessage, tariff: Tariff, now: number): Promise<StreamOutput | null> {
    if (!this.ready) throw new Error('running totals are not available: they could not be set up at deploy (see the log)');
    if (msg.reset !== undefined && msg.reset !== false) return this.reset(msg, tariff);
    const reading = streamReading(msg, now);
    if (reading.sensorId !== undefined && this.sensors.watches(reading.gatewayId, reading.sensorId)) {
      // a sensor the tariff's rules read, wired in: a live value, not a meter reading
      this.sensors.record(reading.gatewayId!, reading.sensorId, reading.ts, reading.value);
      return null;
    }
    const id: MeterId = {
      gateway: typeof msg.gateway === 'string' && msg.gateway !== '' ? msg.gateway : null,
      topic: typeof msg.topic === 'string' && msg.topic !== '' ? msg.topic : (reading.sensorId ?? null),
    };
    if (!isEnergyReading(msg.payload)) {
      // An unfiltered easy-sensors node sends every sensor at every poll: warn once per
      // sensor rather than flood Catch with the same error.
      const key = meterKey(id);
      if (!this.warned.has(key)) {
        this.warned.add(key);
        this.opts.warn(
          `stream mode ignores sensor ${shortText(meterName(id))}: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)`,
        );
      }
      return null;
    }
    const meter = this.meterFor(id);
    const rejected: RejectedInterval[] = [];
    const added = addReading(meter.totals, { ts: reading.ts, value: reading.value }, this.costOf(tariff, rejected), this.maxKept);
    if (!added.ignored) {
      meter.totals = added.state;
      // a late reading may still need the sensor values of the whole window
      this.sensors.forget(this.oldestPlaceable());
      await this.save();
    }
    const payload = this.payload(tariff, meter, added, reading);
    // an interval whose energy or amounts would not be finite counts nothing: said, never Infinity
    if (rejected.length) payload.rejected = rejected.map(rejectedPayload);
    const bars = PERIODS.filter((name) => added.closed[name]).map((name) => this.bar(name, added.closed[name]!, tariff, meter));
    return { payload, bars, status: this.status(tariff, added.ignored ?? (rejected.length ? 'interval rejected' : undefined)) };
  }

  private meterFor(id: MeterId): Meter {
    const key = meterKey(id);
    const known = this.meters.get(key);
    if (known) return known;
    if (this.meters.size >= this.maxMeters) {
      throw new RangeError(
        `stream mode counts at most ${this.maxMeters} meters per node; "${shortText(meterName(id))}" would be one more ` +
          '(filter easy-sensors to the energy meters, or reset the totals with msg.reset)',
      );
    }
    const meter: Meter = { ...id, totals: this.legacy ?? newTotals(this.opts.timezone, this.opts.tariffId) };
    this.legacy = null;
    this.meters.set(key, meter);
    return meter;
  }

  /** `msg.reset = true` zeroes every meter; a topic (with msg.gateway, if given) zeroes that meter. */
  private async reset(msg: StreamMessage, tariff: Tariff): Promise<StreamOutput> {
    let reset: Meter | null = null;
    if (msg.reset === true) {
      this.meters.clear();
      this.legacy = null;
    } else if (typeof msg.reset === 'string' && msg.reset !== '') {
      const gateway = typeof msg.gateway === 'string' && msg.gateway !== '' ? msg.gateway : undefined;
      const matching = [...this.meters.entries()].filter(
        ([, m]) => (m.topic ?? 'default') === msg.reset && (gateway === undefined || m.gateway === gateway),
      );
      if (matching.length === 0) {
        const known = [...this.meters.values()].map(meterName);
        throw new Error(
          `msg.reset names no meter of this node: "${shortText(msg.reset, 60)}"${known.length ? ` (it counts ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''})` : ''}`,
        );
      }
      for (const [key, m] of matching) {
        this.meters.delete(key);
        reset = m;
      }
      if (matching.length > 1) reset = null;
    } else {
      throw new TypeError('msg.reset must be true (every meter) or the topic of one meter (with msg.gateway to pick the gateway)');
    }
    await this.save();
    const empty: Meter = {
      gateway: reset?.gateway ?? null,
      topic: reset?.topic ?? null,
      totals: newTotals(this.opts.timezone, this.opts.tariffId),
    };
    return { payload: this.payload(tariff, empty), bars: [], status: this.status(tariff) };
  }

  /** One meter's totals, if it has counted anything. */
  totalsOf(id: MeterId): TotalsState | undefined {
    return this.meters.get(meterKey(id))?.totals;
  }

  // -------------------------------------------------------------------------------------
  // pricing and sums

  /** Prices one interval at a time; intervals computeCost rejects are collected in `rejected`. */
  private costOf(t: Tariff, rejected: RejectedInterval[]) {
    const { timezone } = this.opts;
    const sensors = this.sensors.timelines(); // unchanged while one reading is added
    return (from: Reading, to: Reading): IntervalCost => {
      const r = computeCost(
        t,
        [
          [from.ts, from.value],
          [to.ts, to.value],
        ],
        { timezone, sensors },
      );
      for (const one of r.rejected) rejected.push(one);
      return { energy: r.energy, net: r.net, gross: r.gross, unpricedEnergy: r.unpricedEnergy, resets: r.resets.length };
    };
  }

  /** The earliest instant any meter can still place a reading at. */
  private oldestPlaceable(): number {
    let oldest = Infinity;
    for (const m of this.meters.values()) oldest = Math.min(oldest, windowStart(m.totals));
    return oldest;
  }

  /**
   * The sum over meters of each period that contains the site's newest reading (a meter
   * with no reading in it yet adds nothing), and of every meter's total.
   */
  site(): { day: Bucket | null; week: Bucket | null; month: Bucket | null; total: Bucket | null; meters: number } {
    const all = [...this.meters.values()].map((m) => m.totals);
    if (this.legacy) all.push(this.legacy);
    let newest = -Infinity;
    for (const t of all) if (t.kept.length) newest = Math.max(newest, t.kept[t.kept.length - 1][0]);
    const sum = (from: number, to: number | null, buckets: Array<Bucket | null>): Bucket => {
      const s: Bucket = { from, to, energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0, intervals: 0 };
      for (const b of buckets) {
        if (!b || (to !== null && b.from !== from)) continue;
        s.energy += b.energy;
        s.net += b.net;
        s.gross += b.gross;
        s.unpricedEnergy += b.unpricedEnergy;
        s.resets += b.resets;
        s.intervals += b.intervals;
      }
      return s;
    };
    const period = (name: PeriodName) => {
      if (newest === -Infinity) return null;
      const { from, to } = localPeriod(name, newest, { timezone: this.opts.timezone });
      return sum(
        from,
        to,
        all.map((t) => t[name]),
      );
    };
    const totals = all.map((t) => t.total).filter((b): b is Bucket => b !== null);
    let first = Infinity;
    for (const b of totals) first = Math.min(first, b.from);
    const total = totals.length ? sum(first, null, totals) : null;
    return { day: period('day'), week: period('week'), month: period('month'), total, meters: this.meters.size + (this.legacy ? 1 : 0) };
  }

  // -------------------------------------------------------------------------------------
  // what is sent and shown

  private payload(t: Tariff, meter: Meter, added?: AddResult, reading?: Reading): Record<string, unknown> {
    const money = (b: Bucket | null) => bucketPayload(b, t.currency, t.vat);
    const s = meter.totals;
    const closed: Record<string, unknown> = {};
    for (const name of PERIODS) if (added?.closed[name]) closed[name] = money(added.closed[name]!);
    const site = this.site();
    return {
      tariffId: t.id,
      tariffName: t.name,
      currency: t.currency,
      vat: t.vat,
      timezone: this.opts.timezone,
      today: money(s.day),
      week: money(s.week),
      month: money(s.month),
      total: money(s.total),
      meter: { gateway: meter.gateway, topic: meter.topic, name: meterName(meter) },
      site: { meters: site.meters, today: money(site.day), week: money(site.week), month: money(site.month), total: money(site.total) },
      ...(reading ? { reading: { ts: reading.ts, timestamp: new Date(reading.ts).toISOString(), value: reading.value } } : {}),
      ...(added ? { change: changePayload(added.change) } : {}),
      ...(Object.keys(closed).length ? { closed } : {}),
      ...(added?.ignored ? { ignored: added.ignored } : {}),
      ...(added?.late ? { late: true } : {}),
      ...(added?.replaced ? { replaced: true } : {}),
      ...(added?.rejected ? { rejected: added.rejected } : {}),
    };
  }

  /** A closed period as a bar; bars of a named meter are a series of their own. */
  private bar(name: PeriodName, closed: Bucket, t: Tariff, meter: Meter) {
    const bar = closedPeriodBar(name, closed, t.currency, this.opts.timezone);
    if (meter.gateway !== null || meter.topic !== null) bar.topic = `${bar.topic} · ${meterName(meter)}`;
    return bar;
  }

  /** The site's today and how many meters count; unpriced energy and ignored readings in yellow. */
  status(t: Tariff, ignored?: string): StreamStatus {
    const site = this.site();
    const today = site.day;
    const amount = formatMoney(today ? today.gross : 0, t.currency)?.display ?? 'no amount';
    const energy = today ? today.energy.toFixed(2) : '0.00';
    // energy no rule priced (a sensor rule whose sensor is unknown) must not pass unnoticed
    const unpriced = today && today.unpricedEnergy > 0 ? ` · ${today.unpricedEnergy.toFixed(2)} kWh unpriced` : '';
    const note = ignored === 'interval rejected' ? ` · ${ignored}` : ignored ? ` · ${ignored.replace('_', ' ')} reading ignored` : unpriced;
    return {
      fill: note ? 'yellow' : 'green',
      shape: 'dot',
      text: `today ${amount} · ${energy} kWh · ${plural(site.meters, 'meter')}${note}`,
    };
  }
}

/** A stored meter name: a string, or null for the default; undefined when it is neither. */
function nameOrNull(x: unknown): string | null | undefined {
  if (x === null) return null;
  return typeof x === 'string' && x !== '' ? x : undefined;
}
