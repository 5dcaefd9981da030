// easy-cost's stream mode without Node-RED: running totals per meter, their sum over the
// site, persistence through an injected store, and what the node sends and shows.
//
// A meter is (msg.gateway, msg.topic): easy-sensors in "each" mode sends every meter of a
// gateway through one wire, and each must count against its own previous reading. A bare
// number with no topic is the one default meter. Each meter's totals follow totals.ts
// (late readings, local periods); the site is the sum over meters per period.
import { DEFAULT_MAX_POWER_KW, MAX_METERS } from '../../engine/common/limits';
import type { RejectedInterval } from '../../engine/cost/cost';
import { groupDigits, shortText } from '../../engine/common/format';
import { isFromFuture } from '../../engine/common/future-readings';
import { SensorRef, Tariff } from '../../engine/tariff/tariff';
import { AddResult, addReading, MAX_KEPT, newTotals, PERIODS, Reading, TotalsState } from '../../engine/cost/totals';
import { ClockStep, clockSteps } from '../../engine/time/clock-steps';
import { rejectedPayload, SensorHistory, streamReading } from './cost-inputs';
import {
  glitchNote,
  importTerms,
  meterBar,
  meterPayload,
  restoredStatus,
  ShownTerms,
  SiteSums,
  siteExportPayload,
  siteProductionPayload,
  siteStatus,
  StreamStatus,
} from './stream-output';
import { RefusalBurst, RefusedReading } from '../common/refusal-burst';
import { EnergyUnit, energyUnitOf, meterOf, NotMeterWarnings } from '../common/meter-reading';
import { intervalCoster, netPricer } from './cost-export';
import { LedgerSettings, NetLedger } from '../../engine/net/net-ledger';
import { checkDirection, ExportMeters, messageDirection } from '../common/meter-direction';
import { DroppedState, StoredAhead } from '../../engine/common/stored-checks';
import { runInSlices } from '../../engine/common/slices';
import { decodeSteps, encodeStored, MeterId, meterName, SAVE_EVERY_MS, ThrottledSave, TotalsStore } from './stream-store';
import { Meter, StreamMeters } from './stream-meters';

export type { MeterId, TotalsStore } from './stream-store';
export type { StreamStatus } from './stream-output';
export { meterName } from './stream-store';
export { RefusedReading } from '../common/refusal-burst';
export { StoredAhead } from '../../engine/common/stored-checks';
export { MAX_METERS };

export interface StreamOutput {
  payload: Record<string, unknown>;
  /** Closed periods as Dashboard 2 bars (second output). */
  bars: Array<ReturnType<typeof meterBar>>;
  status: StreamStatus;
  /** The site's sums the message was made from (a sum over every meter: made once per reading). */
  site: SiteSums;
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
  /** At most one save per this many ms (SAVE_EVERY_MS), and one on close. */
  saveEveryMs?: number;
  /** Says once per node that stored state lies ahead of this clock (shared with the generator report's store). */
  ahead?: StoredAhead;
  /** Rule 10: a rise faster than this (kW) is a jump, held until a later reading decides it; default DEFAULT_MAX_POWER_KW. */
  maxPowerKw?: number;
  /** Rule 63: the meters that count production (never priced) by the setting (msg.direction "production" too). */
  productionMeters?: ExportMeters;
  /** Rule 47: the meters that count export by the setting (msg.direction overrides it). */
  exportMeters?: ExportMeters;
  /** How export meters are priced: VAT on export, negative prices floored; `key` names the export price in the store. */
  exportPricing?: { exportVat: boolean; floorAtZero: boolean; key: string };
  /** Rules 48 and 61: the site's netting (interval or month) and production, settled as readings come; none when `none` and no production. */
  ledger?: LedgerSettings;
}

/** An export meter's tariff (the export tariff, or a fixed rate's flat one), or why there is none. */
export type ExportTariff = Tariff | null;

type StreamMessage = Record<string, unknown>;

/** A production meter's intervals (rule 64): the energy counted, never priced. */
const countedOnly = (from: Reading, to: Reading) => ({ energy: to.value - from.value, net: 0, gross: 0, unpricedEnergy: 0, resets: 0 });

const NO_EXPORT_METERS = new ExportMeters(undefined);

export class CostStream {
  private readonly meters: StreamMeters;
  private sensors = new SensorHistory([]);
  private readonly notMeters: NotMeterWarnings;
  /** kVAh and kvarh counters: said at Catch once each (as notMeters, bounded), never priced as kWh. */
  private readonly otherUnits = new NotMeterWarnings('stream mode', (text) => {
    throw new TypeError(text);
  });
  private readonly maxMeters: number;
  private readonly maxKept: number;
  private ready = false;
  private readonly saver: ThrottledSave;
  /** Readings of meters beyond maxMeters: one error per burst, saying how many. */
  private readonly overLimit: RefusalBurst;
  private stopSteps: (() => void) | null = null;
  private closed = false;
  /** The site's netting and production (rules 48, 61), or null when the node does neither. */
  private ledger: NetLedger | null = null;

  constructor(private readonly opts: CostStreamOptions) {
    this.maxMeters = opts.maxMeters ?? MAX_METERS;
    this.maxKept = opts.maxKept ?? MAX_KEPT;
    this.meters = new StreamMeters(opts.timezone, opts.tariffId, this.maxMeters);
    this.notMeters = new NotMeterWarnings('stream mode', opts.warn);
    this.saver = new ThrottledSave(() => this.save(), opts.saveEveryMs ?? SAVE_EVERY_MS, opts.warn);
    this.overLimit = new RefusalBurst(
      (count, first) =>
        new RangeError(
          `meter limit reached: ${groupDigits(count)} ${count === 1 ? 'sensor' : 'sensors'} ignored, ` +
            `"${shortText(first)}" the first (stream mode counts at most ${this.maxMeters} meters per node; ` +
            'filter easy-sensors to the energy meters, or reset the totals with msg.reset)',
        ),
    );
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
    const dropped = new DroppedState('stored running totals');
    const now = Date.now();
    let newest: number | null = null;
    if (problem === null) {
      const scope = {
        timezone: this.opts.timezone,
        tariffId: this.opts.tariffId,
        maxMeters: this.maxMeters,
        now,
        exportPrice: this.opts.exportPricing?.key,
      };
      // in slices: a forged store of 128 huge meters must not hold the event loop at deploy
      const restored = await runInSlices(decodeSteps(stored, scope));
      problem = restored.problem;
      this.meters.restore(restored.meters, restored.legacy);
      for (const item of restored.dropped) dropped.add(item);
      newest = this.meters.holdAhead(now);
      this.ledger = this.newLedger(restored.net !== undefined);
      const netProblem = restored.net !== undefined && this.ledger ? this.ledger.restore(restored.net, now) : null;
      if (netProblem !== null) {
        this.ledger = this.newLedger();
        dropped.add(`the site's netted and production sums (${netProblem}): they start from zero`);
      }
    }
    this.ready = true;
    // closed while the store loaded (a redeploy): nothing may hold on to this stream
    if (!this.closed) this.stopSteps = clockSteps.onStep((step) => this.clockStepped(step));
    if (problem) this.opts.warn(`running totals started from zero: ${problem}`);
    dropped.tell(this.opts.warn);
    (this.opts.ahead ?? new StoredAhead(this.opts.warn)).tell(
      'stored running totals',
      newest,
      now,
      "a reading older than its meter's newest stored one is too_late (its energy is in the interval that spans it); counting goes on once the clock passes it",
    );
    // what was dropped must not come back with the next restart (nor stay in the store's memory)
    if (!dropped.empty) this.saver.changed();
    // an emptied context file looks like a first deploy: say it either way
    else if (stored === undefined || stored === null)
      this.opts.log?.('running totals start from zero: none are stored (a first deploy, or the context store lost them)');
    return restoredStatus(this.site());
  }

  private async save(): Promise<void> {
    const ledger = this.ledger;
    await this.opts.store.save(
      encodeStored(
        this.meters.values(),
        { ...this.opts, exportPrice: this.opts.exportPricing?.key },
        ledger ? (keepFrom) => ledger.encode(keepFrom) : undefined,
      ),
    );
  }

  /** The site's ledger when the node nets or counts production (`anyway`: a production meter or a stored ledger came), else null. */
  private newLedger(anyway = false): NetLedger | null {
    const settings = this.opts.ledger ?? { netting: 'none', minutes: 15, production: true, key: 'none' };
    // no production meter set: settlement intervals come with the first one (msg.direction), month netting keeps none till then
    return anyway || NetLedger.wanted(settings) ? new NetLedger(settings, this.opts.timezone) : null;
  }

  /** Hands what changed since the last save to the store now. */
  flush(): Promise<void> {
    return this.saver.now();
  }

  /** The node closes (redeploy, shutdown): the last save, and the pending meter-limit error said. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopSteps?.();
    this.overLimit.end();
    await this.saver.close();
  }

  // -------------------------------------------------------------------------------------
  // sensors the tariff's rules read

  /** The sensors whose live values price the intervals (a sensor rule's gateway/sensor). */
  followSensors(refs: SensorRef[]): void {
    this.sensors = new SensorHistory(refs);
  }

  /** A polled value; one stamped in the future (isFromFuture) is not taken: it would hide every later one. */
  recordSensor(gatewayId: string, sensorId: string, ts: number, value: number, now: number): void {
    if (isFromFuture(ts, now)) return;
    this.sensors.record(gatewayId, sensorId, ts, value);
  }

  // -------------------------------------------------------------------------------------
  // messages

  /**
   * One message: a reading (counted in its meter), a live value of a sensor the tariff
   * reads (null: nothing to send), a sensor that is no meter (null, warned once), or
   * `msg.reset`. Throws an error a user understands for anything else.
   */
  /** `source` prices an import meter's intervals: the tariff, or an easy-prices node's stack over it. */
  async handle(
    msg: StreamMessage,
    tariff: Tariff,
    now: number,
    exportTariff: ExportTariff = null,
    source: unknown = tariff,
    /** What prices an export meter's intervals: the export tariff, or a stack over a spot list (rule 61) shown as exportTariff. */
    exportSource: unknown = exportTariff,
  ): Promise<StreamOutput | null> {
    if (!this.ready) throw new Error('running totals are not available: they could not be set up at deploy (see the log)');
    if (msg.reset !== undefined && msg.reset !== false) return this.reset(msg, importTerms(tariff, source));
    // a step not yet seen by the heartbeat is seen before the reading is stamped with the new clock
    if (clockSteps.look()) now = Date.now();
    const reading = streamReading(msg, now);
    if (reading.sensorId !== undefined && this.sensors.watches(reading.gatewayId, reading.sensorId)) {
      // a sensor the tariff's rules read, wired in: a live value, not a meter reading
      this.sensors.record(reading.gatewayId!, reading.sensorId, reading.ts, reading.value);
      return null;
    }
    const id: MeterId = meterOf(msg, reading);
    const unit = energyUnitOf(msg, id.topic);
    if (unit !== 'kWh') {
      if (unit === null) this.notMeters.ignored(id);
      else this.otherUnits.ignored(id, otherUnitWords(meterName(id), unit));
      return null;
    }
    const direction = messageDirection(
      msg,
      meterName(id),
      this.opts.exportMeters ?? NO_EXPORT_METERS,
      this.opts.productionMeters ?? NO_EXPORT_METERS,
    );
    checkDirection(meterName(id), direction, exportTariff !== null);
    const meter = this.meters.meterFor(id, direction);
    if (!meter) throw new RefusedReading(this.overLimit.refuse(meterName(id)));
    checkDirection(meterName(id), direction, true, meter.direction ?? 'import');
    const priced = direction === 'export' ? (exportTariff as Tariff) : tariff;
    const rejected: RejectedInterval[] = [];
    // the first production meter brings the site's self-consumption with it (rule 64)
    if (direction === 'production' && !this.ledger) this.ledger = this.newLedger(true);
    // the meter's state is replaced by the result: its lists may be updated in place
    const added: AddResult =
      meter.tooLateBefore !== undefined && reading.ts < meter.tooLateBefore
        ? { state: meter.totals, ignored: 'too_late', closed: {}, change: { energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0 } }
        : addReading(
            meter.totals,
            { ts: reading.ts, value: reading.value },
            direction === 'production'
              ? countedOnly
              : intervalCoster(
                  direction === 'export' ? exportSource : source,
                  this.opts.timezone,
                  this.sensors.timelines(),
                  rejected,
                  direction === 'export' ? this.opts.exportPricing : null,
                ),
            this.maxKept,
            true,
            this.opts.maxPowerKw ?? DEFAULT_MAX_POWER_KW,
            this.ledger?.observer(direction),
          );
    if (!added.ignored) {
      meter.totals = added.state;
      if (this.ledger) {
        const pricer = netPricer(
          source,
          exportTariff === null ? null : exportSource,
          this.opts.timezone,
          this.sensors.timelines(),
          rejected,
          this.opts.exportPricing,
        );
        this.ledger.settle(pricer, this.meters.newestReading());
        this.ledger.forgetBefore(this.meters.oldestKept());
      }
      // a late reading may still need the sensor values of the whole window
      this.sensors.forget(this.meters.oldestPlaceable());
      this.saver.changed();
    }
    const site = this.site(); // once per reading: a sum over every meter
    // the amounts' VAT and currency are those of what priced them (a stack's own VAT), as computeCost's
    const bought = importTerms(tariff, source);
    const shown = direction === 'export' ? this.shownAs(priced, true) : bought;
    const payload = meterPayload(shown, this.opts.timezone, meter, site, added, reading);
    if (site.export) Object.assign(payload.site as object, siteExportPayload(site, bought, this.shownAs(exportTariff ?? tariff, true)));
    // an interval whose energy or amounts would not be finite counts nothing: said, never Infinity
    if (rejected.length) payload.rejected = rejected.map(rejectedPayload);
    if (site.production) Object.assign(payload.site as object, siteProductionPayload(site));
    // production is never priced: no cost bars of its own
    const bars = PERIODS.filter((name) => added.closed[name] && direction !== 'production').map((name) =>
      meterBar(name, added.closed[name]!, shown, this.opts.timezone, meter),
    );
    const note = added.ignored ?? (rejected.length ? 'interval rejected' : (glitchNote(added) ?? undefined));
    return { payload, bars, status: siteStatus(site, bought, note), site };
  }

  /** After a step back of the wall clock, meters stamped ahead of it count on from their last value (rebaseTotals). */
  private clockStepped(step: ClockStep): void {
    if (this.meters.rebase(step)) this.saver.changed();
  }

  /** `msg.reset = true` zeroes every meter; a topic (with msg.gateway, if given) zeroes that meter. */
  private async reset(msg: StreamMessage, terms: ShownTerms): Promise<StreamOutput> {
    let reset: Meter | null = null;
    if (msg.reset === true) {
      this.meters.clear();
      this.ledger = this.newLedger();
    } else if (typeof msg.reset === 'string' && msg.reset !== '') {
      const gateway = typeof msg.gateway === 'string' && msg.gateway !== '' ? msg.gateway : undefined;
      reset = this.meters.removeNamed(msg.reset, gateway);
    } else {
      throw new TypeError('msg.reset must be true (every meter) or the topic of one meter (with msg.gateway to pick the gateway)');
    }
    this.saver.changed();
    await this.saver.now(); // a reset is a person's decision: on disk with the next flush, not a minute later
    const empty: Meter = {
      gateway: reset?.gateway ?? null,
      topic: reset?.topic ?? null,
      totals: newTotals(this.opts.timezone, this.opts.tariffId),
    };
    const site = this.site();
    return { payload: meterPayload(terms, this.opts.timezone, empty, site), bars: [], status: siteStatus(site, terms), site };
  }

  /** One meter's totals, if it has counted anything. */
  totalsOf(id: MeterId): TotalsState | undefined {
    return this.meters.totalsOf(id);
  }

  // -------------------------------------------------------------------------------------
  // pricing and sums

  /** The tariff as an export meter's amounts are shown: the VAT applied (0 unless VAT on export). */
  private shownAs(t: Tariff, exported: boolean): ShownTerms {
    return exported && !this.opts.exportPricing?.exportVat ? { ...t, vat: 0 } : t;
  }

  /** The sum over meters of each period that contains the site's newest reading, and of every total; the netted sums with a ledger. */
  site(): SiteSums {
    const withExport = this.meters.sums();
    return this.ledger ? { ...withExport, ledger: { settings: this.ledger.settings, ...this.ledger.periods() } } : withExport;
  }
}

/** A kVAh or kvarh counter wired in: where its energy belongs (easy-peak), since pricing it as kWh would bill apparent or reactive energy as active. */
const otherUnitWords = (name: string, unit: Exclude<EnergyUnit, 'kWh'>): string =>
  `stream mode prices kWh only: meter "${shortText(name)}" counts ${unit} (${unit === 'kvarh' ? 'reactive' : 'apparent'} energy), ` +
  'which is never priced as kWh (its readings are ignored); wire it to easy-peak beside the kWh meter, whose output 1 brings ' +
  "the power factor and the reactive energy charge into this node's month (semantics rule 65)";
