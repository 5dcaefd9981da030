// easy-peak without Node-RED: readings in (one cumulative kWh reading per message, as
// easy-cost's stream mode takes them), per meter and for the site the demand window so far
// and the month's peaks, the guard, what to send, persistence through an injected store.
import { MAX_METERS } from '../../engine/common/limits';
import { shortText } from '../../engine/common/format';
import { DeadlineTimer } from '../../engine/time/long-timer';
import { ClockStep, clockSteps } from '../../engine/time/clock-steps';
import { ExportSkips } from '../common/meter-direction';
import {
  EnergyUnit,
  isPowerFactorReading,
  MeterId,
  meterKey,
  meterName,
  meterOf,
  NotMeterWarnings,
  powerFactorMeterOf,
  powerFactorValue,
  readingUnit,
  streamReading,
} from '../common/meter-reading';
import { RefusalBurst, RefusedReading } from '../common/refusal-burst';
import { SAVE_EVERY_MS, ThrottledSave } from '../common/throttled-save';
import { GuardDecision, PeakGuard } from './peak-guard';
import { advanceMeter, advancePowerFactor, MeterPeaks, newMeter, projectMeter, rebaseMeter, WindowScope } from './peak-meter';
import { arrive, ClockReports, staleFrom } from './peak-clock';
import { monthAt, monthValue, readDatesEnded } from '../peak-period/peak-month';
import {
  closedCharts,
  closedRecords,
  closedPayload,
  gapPart,
  guardFields,
  meterPart,
  monthPayload,
  powerFactorPart,
  PeakStatus,
  peakStatus,
  readingNote,
  readingPart,
  spanPart,
  sitePayload,
} from './peak-output';
import { billCharge, billPeriods, limitOf, windowScope } from './peak-settings';
import { billPayload, leastRaise, SiteCharges } from './peak-charges';
import {
  closeDue,
  meterLimitError,
  newSite,
  otherUnitError,
  PowerFactorSource,
  rebaseSite,
  shareWindow,
  SiteNow,
  siteNow,
  SiteKind,
  siteKind,
  sitePowerKw,
  unitJoins,
  SiteState,
} from './peak-site';
import { decodePeaks, encodePeaks } from './peak-store';
import type { GuardMessage, PeakOutput, PeakStreamOptions } from './peak-stream-io';
import { StoredAhead } from '../../engine/common/stored-checks';

export class PeakStream {
  private readonly meters = new Map<string, MeterPeaks>();
  private site: SiteState = newSite();
  private guard: PeakGuard;
  private readonly scope: WindowScope;
  /** The bill's demand charges (semantics rule 45): what a window must beat to raise it (rule 46). */
  private readonly charges: SiteCharges;
  private readonly maxMeters: number;
  private readonly saver: ThrottledSave;
  private readonly overLimit: RefusalBurst;
  private readonly otherUnit = new RefusalBurst((count, first) => otherUnitError(first, count, this.meters.values()));
  /** The site's power factor (rule 66): the node's fixed one, or its power-factor meter's readings. */
  private readonly pf: PowerFactorSource;
  private readonly recheck = new DeadlineTimer();
  private readonly notMeters: NotMeterWarnings;
  private readonly exported: ExportSkips;
  private readonly mono: () => number;
  private readonly clockReports: ClockReports;
  private ready = false;
  private closed = false;
  private stopSteps: (() => void) | null = null;
  /** Whether the guard's state was sent since the deploy (the first reading sends it, so a relay is right). */
  private synced = false;

  constructor(private readonly opts: PeakStreamOptions) {
    const { settings } = opts;
    this.notMeters = new NotMeterWarnings('easy-peak', opts.warn);
    this.exported = new ExportSkips(opts.exportMeters, opts.warn);
    this.scope = windowScope(opts.timezone, settings);
    const periods = billPeriods(settings.bill);
    this.charges = new SiteCharges(billCharge(settings, opts.timezone), settings.bill.more, { ...this.scope, periods }, settings.reactive);
    this.maxMeters = opts.maxMeters ?? MAX_METERS;
    this.mono = opts.monotonic ?? (() => performance.now());
    this.clockReports = new ClockReports(opts.warn);
    this.guard = new PeakGuard(settings);
    this.pf = new PowerFactorSource(settings.powerFactor, () => this.meters.values());
    this.saver = new ThrottledSave(() => this.save(), opts.saveEveryMs ?? SAVE_EVERY_MS, opts.warn, 'peaks');
    this.overLimit = new RefusalBurst((count, first) => meterLimitError(first, count, this.maxMeters));
  }

  /**
   * Loads what was stored; a part that fails its checks is dropped, said once (warn). A
   * store that cannot be read at all is said too, and in the status until the first reading.
   */
  async restore(): Promise<PeakStatus> {
    let stored: unknown;
    let unreadable = false;
    try {
      stored = await this.opts.store.load();
    } catch (err) {
      unreadable = true;
      this.opts.warn(`peaks started from zero: the stored peaks could not be read (${(err as Error).message})`);
    }
    const at = Date.now();
    const restored = decodePeaks(stored, { ...this.scope, maxMeters: this.maxMeters }, at, this.mono());
    for (const m of restored.meters) this.meters.set(meterKey(m), m);
    this.site = restored.site ?? newSite();
    // a stored power-factor meter is no source beside the node's fixed power factor or kvarh counters: dropped, said
    const pfProblem = this.pf.restore(restored.powerFactor);
    // held suspects are judged again as they were: held again (or decided, were the settings changed)
    const dropped = this.charges.restore(stored, { ...this.scope, maxMeters: this.maxMeters }, at);
    const reactiveProblem = this.charges.reactive.restore(stored, at);
    for (const { meter, rows } of restored.held)
      for (const [ts, value] of rows)
        for (const w of advanceMeter(meter, { ts, value }, this.scope).closed)
          shareWindow(this.site, w, meterName(meter), meter.unit === 'kvarh');
    const site = restored.held.length > 0 && closeDue(this.site, this.meters.values(), this.scope, this.opts.settings.staleMs, this.pf);
    if (site) this.charges.add(site.closed, this.kind().pairs);
    this.guard = new PeakGuard(this.opts.settings, restored.guard);
    this.ready = true;
    // closed while the store loaded (a redeploy): nothing may hold on to this stream
    if (!this.closed) this.stopSteps = clockSteps.onStep((step) => this.clockStepped(step));
    if (restored.problem) this.opts.warn(restored.problem);
    if (pfProblem) this.opts.warn(pfProblem);
    if (reactiveProblem) this.opts.warn(reactiveProblem);
    if (dropped.length)
      this.opts.warn(`stored peaks: ${dropped.join(', ')} of the more demand charges from zero (ranked otherwise, or failed their checks)`);
    const ended = readDatesEnded(this.scope, at);
    if (ended) this.opts.warn(ended);
    new StoredAhead(this.opts.warn).tell(
      'stored peaks',
      restored.newest,
      at,
      "a reading older than its meter's newest stored one is too_late, and that meter's power is stale; the peaks go on once the clock passes it",
    );
    if (unreadable) return { fill: 'yellow', shape: 'ring', text: 'peaks from zero: the stored ones could not be read' };
    const now = siteNow(this.meters.values(), this.scope, this.mono(), this.opts.settings.staleMs, this.pf);
    if (!now) return { fill: 'grey', shape: 'ring', text: 'waiting for readings' };
    const value = monthValue(monthAt(this.site.month, now.window.from, this.scope));
    return {
      fill: 'grey',
      shape: 'dot',
      text: `restored · month's peak ${value === null ? '–' : `${value.toFixed(2)} ${this.kind().unit}`}`,
    };
  }

  private async save(): Promise<void> {
    const clocks = { now: Date.now(), mono: this.mono() };
    await this.opts.store.save({
      ...encodePeaks(this.meters.values(), this.site, this.guard.remember(), this.scope, clocks, this.pf.meter),
      ...this.charges.encode(),
    });
  }

  /** Hands what changed since the last save to the store now. */
  flush(): Promise<void> {
    return this.saver.now();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopSteps?.();
    this.recheck.cancel();
    this.overLimit.end();
    this.otherUnit.end();
    this.pf.end();
    await this.saver.close();
  }

  /** One message: a reading, `msg.reset`, or a sensor that is no meter (null, warned once). Throws what a user must read. */
  async handle(msg: Record<string, unknown>, now: number): Promise<PeakOutput | null> {
    if (!this.ready) throw new Error('the peaks are not available: they could not be set up at deploy (see the log)');
    if (msg.reset !== undefined && msg.reset !== false) return this.reset(msg, now);
    // a step not yet seen by the heartbeat is seen before the reading is stamped with the new clock
    if (clockSteps.look()) now = Date.now();
    const mono = this.mono();
    const counted = isPowerFactorReading(msg) ? this.countPowerFactor(msg, now, mono) : this.countEnergy(msg, now, mono);
    if (!counted) return null;
    const { meter, reading, advance, own } = counted;
    const site = closeDue(this.site, this.meters.values(), this.scope, this.opts.settings.staleMs, this.pf);
    const kind = this.kind(); // the meters are as they stay for this reading: one walk
    this.charges.add(site.closed, kind.pairs);
    if (!advance.ignored) this.saver.changed();
    const out = this.evaluate(now, mono, kind);
    const payload: Record<string, unknown> = {
      timezone: this.opts.timezone,
      minutes: this.scope.minutes,
      reading: readingPart(reading),
      meter: counted.part(),
      site: out.sitePart,
      ...out.fields,
      ...(advance.ignored ? { ignored: advance.ignored } : {}),
      ...(advance.held ? { held: advance.held } : {}),
      ...(advance.glitches ? { glitches: advance.glitches.map(readingPart) } : {}),
      ...(advance.resets ? { resets: advance.resets.map((r) => ({ ...spanPart(r.from, r.to), kind: r.kind })) } : {}),
      ...(advance.gap ? { gap: gapPart(advance.gap) } : {}),
      ...(own.closed.length ? { closed: closedPayload(own.closed[own.closed.length - 1]), closedCount: own.closed.length } : {}),
    };
    const charts = closedCharts(site.closed, site.newPeak, this.site.month, this.scope.minutes, this.opts.timezone);
    return {
      payload,
      guard: out.guardMessage,
      charts,
      status: this.statusOf(out, readingNote(advance)),
      records:
        this.opts.records === false ? null : closedRecords(meter, own, site, kind.unit, this.scope.minutes, this.scope, out.sitePart),
    };
  }

  /** An energy reading (kWh, kVAh or kvarh) counted in its meter; its closed windows handed to the site. null: not counted here. */
  private countEnergy(msg: Record<string, unknown>, now: number, mono: number) {
    const reading = streamReading(msg, now, 'easy-peak');
    // a reading from the future (MAX_CLOCK_AHEAD_MS) was refused by streamReading: it changes nothing
    const id = meterOf(msg, reading);
    if (!this.opts.countExport && this.exported.skips(msg, meterName(id))) return null;
    const unit = readingUnit(msg, id.topic, 'easy-peak');
    if (unit === null) {
      this.notMeters.ignored(id);
      return null;
    }
    const meter = this.meterFor(id, unit);
    const advance = advanceMeter(meter, reading, this.scope);
    // a held suspect is no arrival: the meter's newest reading is still the one before it
    if (!advance.ignored && !advance.held) this.arrived(meter, reading.ts, now, mono);
    for (const w of advance.closed) shareWindow(this.site, w, meterName(meter), meter.unit === 'kvarh');
    const part = () => meterPart(meter, projectMeter(meter, meter.window!), monthAt(meter.month, meter.window!.from, this.scope));
    return { meter, reading, advance, own: advance, part };
  }

  /**
   * A power-factor reading (rule 66): checked (0.01 ≤ pf ≤ 1, else an error naming the meter
   * and value, changing nothing), counted in the power-factor meter's windows, whose shares
   * the site pairs with its kWh windows. The meter's own windows are no demand: none recorded.
   */
  private countPowerFactor(msg: Record<string, unknown>, now: number, mono: number) {
    const id = powerFactorMeterOf(msg);
    const value = powerFactorValue(msg, id);
    const reading = { ts: streamReading(msg, now, 'easy-peak').ts, value };
    const pf = this.pf.meterFor(id);
    const { advance, shares } = advancePowerFactor(pf, reading, this.scope);
    if (!advance.ignored) this.arrived(pf.meter, reading.ts, now, mono);
    advance.closed.forEach((w, i) => shareWindow(this.site, w, meterName(pf.meter), false, shares[i]));
    return { meter: pf.meter, reading, advance, own: { closed: [], months: [] }, part: () => powerFactorPart(pf, value) };
  }

  /** What the site sums now: kVA of kVAh counters, of kWh with kvarh or with a power factor (rules 56, 66), else kW. */
  private kind(): SiteKind {
    return siteKind(this.meters.values(), this.pf);
  }

  /** The status after an evaluation (`note`: what the reading did beyond counting). */
  private statusOf(out: ReturnType<PeakStream['evaluate']>, note?: string | null): PeakStatus {
    return peakStatus(out.now, out.decision, out.limitKw, this.meters.size, note, this.clockReports.hint(), out.kind.unit);
  }

  /** A reading that moved its meter on arrived (at `mono`): its clock follows, and one found off is said (ClockReports). */
  private arrived(meter: MeterPeaks, stamp: number, now: number, mono: number): void {
    meter.clock = arrive(meter.clock, stamp, mono);
    this.clockReports.seen(meter, meter.clock, meter.gateway ?? meterName(meter), meterName(meter), now, mono);
  }

  /**
   * The wall clock stepped: the guard's minute since its last change stays real time; after a
   * step back, meters stamped ahead of the clock count on from their last value (rebaseMeter)
   * and the site's windows ahead of it are let go (rebaseSite).
   */
  private clockStepped(step: ClockStep): void {
    if (this.closed) return;
    this.guard.clockStepped(step.by);
    this.saver.changed();
    if (step.by < 0) {
      for (const m of this.meters.values()) rebaseMeter(m, step.by, step.now, this.scope);
      if (this.pf.meter) rebaseMeter(this.pf.meter.meter, step.by, step.now, this.scope);
      rebaseSite(this.site, step.now, this.scope);
      this.charges.rebase(step.now);
    }
    if (this.meters.size > 0) this.recheckNow();
  }

  /** The site now (of `kind`), the guard's decision on it, and the guard message when it is to be sent. */
  private evaluate(now: number, mono: number, kind = this.kind()) {
    const site = siteNow(this.meters.values(), this.scope, mono, this.opts.settings.staleMs, this.pf);
    const month = site ? monthAt(this.site.month, site.window.from, this.scope) : null;
    const bills = site ? this.charges.bill(this.site, site.window, site.projectedKw) : null;
    const raiseKw = bills ? leastRaise(bills) : null;
    const counts = raiseKw !== null && raiseKw !== Infinity;
    const limitKw = site && !counts && this.opts.settings.limit === 'fixed' ? null : limitOf(this.opts.settings, raiseKw);
    const power = site ? sitePowerKw(this.meters.values(), this.pf) : null;
    const decision = this.guard.evaluate({
      projectedKw: site?.projectedKw ?? null,
      limitKw,
      fresh: site !== null && site.stale.length === 0,
      now,
      window: site?.window ?? null,
      at: site?.newest,
      powerKw: power,
      noLimit: site && !counts ? 'this window cannot raise the bill' : undefined,
    });
    if (decision.changed) this.saver.changed();
    const fields = guardFields({ decision, limitKw, site });
    const send = decision.changed || (!this.synced && site !== null);
    if (send) this.synced = true;
    const value = decision.state === 'shed' ? this.opts.settings.shedValue : this.opts.settings.restoreValue;
    const guardMessage: GuardMessage | null = send ? { topic: 'guard', payload: value, ...fields, changed: decision.changed } : null;
    this.armRecheck(decision, site, now, mono);
    const reactive = site && this.charges.reactive.payload(site.window.from, kind.pairs);
    const sitePart =
      site && month && bills ? sitePayload(this.meters.values(), site, power, month, billPayload(bills, reactive), kind.unit) : null;
    return { now: site, decision, limitKw, fields, guardMessage, sitePart, kind };
  }

  /**
   * Without a reading the guard changes only when time alone changes its answer: a change
   * that waited for the minute since the last one, or data going stale while shed.
   */
  private armRecheck(decision: GuardDecision, site: SiteNow | null, now: number, mono: number): void {
    this.recheck.cancel();
    if (this.closed || !site) return;
    let at = decision.dueAt ?? Infinity;
    if (decision.state === 'shed') {
      // a reading goes stale by its arrival (monotonic): the instant on this clock that is as far off
      for (const m of this.pf.meter ? [...this.meters.values(), this.pf.meter.meter] : this.meters.values())
        if (m.power && m.clock) at = Math.min(at, now + (staleFrom(m.clock, this.opts.settings.staleMs) - mono) + 1);
    }
    if (at === Infinity) return;
    this.recheck.arm(at, () => this.recheckNow());
  }

  /** The guard judged again without a reading (a recheck, a clock step); a change is sent on output 2. */
  private recheckNow(): void {
    const out = this.evaluate(Date.now(), this.mono());
    if (out.guardMessage) this.opts.onGuard(out.guardMessage, this.statusOf(out));
  }

  /** The reading's meter, made at its first reading; one over the limit or of a unit the site does not sum is refused (an error a burst). */
  private meterFor(id: MeterId, unit: EnergyUnit): MeterPeaks {
    const key = meterKey(id);
    const known = this.meters.get(key);
    if (known && known.unit !== unit)
      throw new TypeError(
        `meter "${shortText(meterName(id))}" counts ${known.unit}, this reading ${unit}: not counted (msg.reset starts from zero)`,
      );
    if (known) return known;
    if (this.meters.size >= this.maxMeters) throw new RefusedReading(this.overLimit.refuse(meterName(id)));
    if (!unitJoins(this.meters.values(), unit)) throw new RefusedReading(this.otherUnit.refuse(`${unit} ${meterName(id)}`));
    this.pf.admit(id, unit); // a power factor and kvarh (or kVAh) counters are two sources of the site's kVA (rule 66)
    const meter = newMeter(id, unit);
    this.meters.set(key, meter);
    return meter;
  }

  /** `msg.reset = true`: every meter, the site's peaks and the guard start from zero (the guard restores). */
  private async reset(msg: Record<string, unknown>, now: number): Promise<PeakOutput> {
    if (msg.reset !== true) throw new TypeError("msg.reset must be true: every meter and the month's peaks start from zero");
    this.meters.clear();
    this.clockReports.clear();
    this.site = newSite();
    this.pf.meter = null;
    this.charges.clear();
    this.guard = new PeakGuard(this.opts.settings);
    this.synced = true; // the restore below tells the relay
    this.saver.changed();
    await this.saver.now(); // a reset is a person's decision: stored at once
    const out = this.evaluate(now, this.mono());
    const guard: GuardMessage = { topic: 'guard', payload: this.opts.settings.restoreValue, ...out.fields, changed: true };
    return {
      payload: { timezone: this.opts.timezone, minutes: this.scope.minutes, reset: true, site: null, ...out.fields },
      guard,
      charts: [],
      status: { fill: 'grey', shape: 'ring', text: 'peaks from zero' },
      records: null,
    };
  }

  /** One meter's state, for tests and the editor. */
  meterOf(id: MeterId): MeterPeaks | undefined {
    return this.meters.get(meterKey(id));
  }

  /** The site's month shown now (tests, the editor). */
  siteMonth(): ReturnType<typeof monthPayload> | null {
    const now = siteNow(this.meters.values(), this.scope, this.mono(), this.opts.settings.staleMs, this.pf);
    return now ? monthPayload(monthAt(this.site.month, now.window.from, this.scope)) : null;
  }
}
