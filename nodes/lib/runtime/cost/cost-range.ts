// easy-cost's range mode without Node-RED: the range a message asks for, the archive
// fetched through the account hub (only both ends for a flat tariff), the sensors the
// tariff's rules read (and the generator's) fetched with a lead-in, and the cost of it all.
// An export meter's range (rule 47) is credited at the node's export price.
import { computeCost, CostOptions, CostResult, SensorTimelines } from '../../engine/cost/cost';
import { costPayload, isFlatTariff, periodWords, RangeRequest, rangeRequest } from './cost-inputs';
import { counted, formatAmounts, roundAmount } from '../../engine/common/format';
import { DEFAULT_MAX_POWER_KW, MAX_SPLIT_DAYS } from '../../engine/common/limits';
import { countedRuns } from '../../engine/cost/meter-glitches';
import { localDate, localPeriod } from '../../engine/time/time';
import type { AccountHub } from '../account/hub';
import { dataRecord, nestedField, setNested } from '../../engine/common/id-map';
import { SensorRef, sensorsUsedBy, Tariff } from '../../engine/tariff/tariff';
import { priceTerms } from '../../engine/prices/price-source';
import { GeneratorChoice, generatorReport } from '../generator/generator-report';
import { checkDirection, ExportMeters, messageDirection } from '../common/meter-direction';
import { meterName } from '../common/meter-reading';

/** What range mode needs of the node's export side: which meters export, their price (rules 47, 61), VAT and the floor. */
export interface RangeExport {
  meters: ExportMeters;
  price: () => Promise<{ source: unknown; shown: Tariff } | null>;
  exportVat: boolean;
  floorAtZero: boolean;
}

/** With a flat tariff, this much is fetched at each end instead of the whole range. */
export const FLAT_WINDOW_MS = 3600_000;
/** Archive fetched before a range so sensor rules know the sensor's value at its start. */
export const SENSOR_LEAD_MS = 3600_000;

type Archive = Pick<AccountHub, 'fetchData'>;

export interface ArchiveRange {
  readings: Array<[number, number]>;
  sensors: Record<string, Record<string, Array<[number, number]>>>;
  requests: number;
  shortcut: boolean;
}

export interface RangeOutcome {
  payload: Record<string, unknown>;
  result: CostResult;
  /** Which period the cost covers, in words (periodWords). */
  period: string | null;
}

export class CostRange {
  private readonly controllers = new Set<AbortController>();

  constructor(
    private readonly hub: Archive,
    private readonly timezone: string,
    /** Rule 10's jump limit (kW), the node's setting. */
    private readonly maxPowerKw = DEFAULT_MAX_POWER_KW,
  ) {}

  /** The cost of the range `msg` asks for; throws an error a user understands when there is nothing to cost. */
  async cost(
    msg: Record<string, unknown>,
    tariff: Tariff,
    now: number,
    generator: GeneratorChoice | null = null,
    source: unknown = tariff,
    exporting: RangeExport | null = null,
  ): Promise<RangeOutcome> {
    const req = rangeRequest(msg, this.timezone, now);
    // an export meter's range (its name in Export meters, or msg.direction): credited at the export price
    const meter = meterName({ gateway: req.gateway, topic: req.sensor });
    const direction = messageDirection(msg, meter, exporting?.meters ?? new ExportMeters(''));
    const pricing: Pick<CostOptions, 'direction' | 'exportVat' | 'floorAtZero'> = {};
    if (direction === 'export') {
      const price = exporting ? await exporting.price() : null;
      checkDirection(meter, direction, price !== null);
      Object.assign(pricing, { direction, exportVat: exporting!.exportVat, floorAtZero: exporting!.floorAtZero });
      tariff = { ...price!.shown, vat: exporting!.exportVat ? price!.shown.vat : 0 };
      source = price!.source;
      generator = null;
    }
    // before any request: a split the node would refuse costs the service nothing
    const days = req.split === 'day' ? localDays(req.from, req.to, this.timezone) : null;
    const refs = sensorsUsedBy(tariff);
    if (generator) refs.push(generator.ref);
    // the generator report and the days need every reading: the flat shortcut knows only the ends;
    // a stack's list prices every quarter hour its own way, so it needs them too
    const fetched = await this.archive(req, refs, generator || days || source !== tariff ? null : tariff);
    const result = computeCost(source, fetched.readings, {
      timezone: this.timezone,
      sensors: fetched.sensors,
      splitBy: generator ? generator.ref : undefined,
      maxPowerKw: this.maxPowerKw,
      ...pricing,
    });
    const payload: Record<string, unknown> = {
      ...costPayload(result, tariff),
      gateway: req.gateway,
      sensor: req.sensor,
      range: { from: iso(req.from), to: iso(req.to), fromMs: req.from, toMs: req.to },
      fetched: { readings: fetched.readings.length, requests: fetched.requests, shortcut: fetched.shortcut },
    };
    if (direction === 'export') payload.direction = 'export';
    if (days) payload.days = costByDay(tariff, fetched.readings, fetched.sensors, days, this.timezone, this.maxPowerKw, source, pricing);
    if (generator) {
      payload.generator = generatorReport(
        generator,
        result,
        nestedField(fetched.sensors, generator.ref.gatewayId, generator.ref.sensorId),
        req,
      );
    }
    return { payload, result, period: periodWords(req.from, req.to, this.timezone, req.period) };
  }

  /**
   * The archive of a range: the meter's readings (for a flat `shortcutFor` tariff only
   * both ends) and the timelines of `refs` with a lead-in; throws in words when fewer
   * than two readings are there.
   */
  async archive(req: RangeRequest, refs: SensorRef[], shortcutFor: Tariff | null): Promise<ArchiveRange> {
    const controller = new AbortController();
    this.controllers.add(controller);
    try {
      const { signal } = controller;
      const fetched = await this.readings(shortcutFor, req, signal);
      if (fetched.readings.length < 2) {
        // one reading or none is no usage at all, not a cost of zero
        throw new Error(
          `the archive has ${counted(fetched.readings.length, 'reading')} of ${req.sensor} on ${req.gateway} from ${iso(req.from)} to ${iso(req.to)}: nothing to cost`,
        );
      }
      const sensors: Record<string, Record<string, Array<[number, number]>>> = dataRecord();
      for (const ref of refs) {
        if (nestedField(sensors, ref.gatewayId, ref.sensorId) !== undefined) continue; // two tariffs, one sensor
        setNested(
          sensors,
          ref.gatewayId,
          ref.sensorId,
          await this.hub.fetchData(ref.gatewayId, ref.sensorId, req.from - SENSOR_LEAD_MS, req.to, { signal }),
        );
        fetched.requests += 1;
      }
      return { ...fetched, sensors };
    } finally {
      this.controllers.delete(controller);
    }
  }

  /** Aborts every fetch on its way (the node is closing). */
  abort(): void {
    for (const controller of this.controllers) controller.abort();
  }

  /** Archival readings of the range: for a flat tariff only the ends, when the archive has them. */
  private async readings(t: Tariff | null, req: RangeRequest, signal: AbortSignal) {
    let requests = 0;
    if (t && isFlatTariff(t) && req.to - req.from > 2 * FLAT_WINDOW_MS) {
      requests += 2;
      const [head, tail] = await Promise.all([
        this.hub.fetchData(req.gateway, req.sensor, req.from, req.from + FLAT_WINDOW_MS, { signal }),
        this.hub.fetchData(req.gateway, req.sensor, req.to - FLAT_WINDOW_MS, req.to, { signal }),
      ]);
      // every reading of both hours, not only the first and the last: rule 10 then judges a
      // glitch at either end as it would in the whole range
      const ends = head.filter((row) => row[0] >= req.from);
      const after = ends.length ? ends[ends.length - 1][0] : req.from;
      for (const row of tail) if (row[0] > after && row[0] <= req.to) ends.push(row);
      if (ends.length >= 2) return { readings: ends, requests, shortcut: true };
    }
    requests += 1;
    const readings = await this.hub.fetchData(req.gateway, req.sensor, req.from, req.to, { signal });
    return { readings, requests, shortcut: false };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The range's cost per local day (`days`, see localDays). An interval between two readings
 * counts in the day it starts, as in stream mode's totals, and the readings are judged once
 * over the whole range (rule 10: a glitch near midnight is judged with the readings after
 * it), so the days add up to the range's cost. One judging pass over the readings (sorted,
 * as the archive answers), then per day one computeCost per run of counted intervals.
 */
export function costByDay(
  tariff: Tariff,
  readings: Array<[number, number]>,
  sensors: SensorTimelines,
  days: Array<{ from: number; to: number }>,
  timezone: string,
  maxPowerKw = DEFAULT_MAX_POWER_KW,
  source: unknown = tariff,
  pricing: Pick<CostOptions, 'direction' | 'exportVat' | 'floorAtZero'> = {},
) {
  const runs = countedRuns(readings, maxPowerKw);
  const cursors = runs.map(() => 0);
  return days.map(({ from: start, to: end }) => {
    // the VAT and currency of what priced the day (a stack's own), as computeCost's results say them
    const { vat, currency } = priceTerms(source);
    const result = { energy: 0, unpricedEnergy: 0, net: 0, gross: 0, vat, currency };
    runs.forEach((run, k) => {
      let first = cursors[k];
      while (first < run.length && run[first][0] < start) first++;
      let after = first;
      while (after < run.length && run[after][0] < end) after++;
      cursors[k] = first;
      // the day's readings of the run and the first one after it: the intervals that start in the day, usage all
      if (after === first) return;
      const part = computeCost(source, run.slice(first, after + 1), { timezone, sensors, maxPowerKw: Infinity, ...pricing });
      result.energy += part.energy;
      result.unpricedEnergy += part.unpricedEnergy;
      result.net += part.net;
      result.gross += part.gross;
    });
    return {
      date: localDate(start, { timezone }),
      from: iso(start),
      to: iso(end),
      fromMs: start,
      toMs: end,
      energy: roundAmount(result.energy),
      unpricedEnergy: roundAmount(result.unpricedEnergy),
      net: roundAmount(result.net),
      gross: roundAmount(result.gross),
      vat: result.vat,
      currency: result.currency,
      formatted: formatAmounts({ net: result.net, gross: result.gross }, result.currency),
    };
  });
}

/** The local days of the account's zone in [from, to), the first and last cut to the range; at most MAX_SPLIT_DAYS. */
export function localDays(from: number, to: number, timezone: string): Array<{ from: number; to: number }> {
  const days: Array<{ from: number; to: number }> = [];
  for (let day = localPeriod('day', from, { timezone }); day.from < to; day = localPeriod('day', day.to, { timezone })) {
    if (days.length === MAX_SPLIT_DAYS) {
      throw new RangeError(`a range split by day may cover at most ${MAX_SPLIT_DAYS} days: ask for a shorter range`);
    }
    days.push({ from: Math.max(day.from, from), to: Math.min(day.to, to) });
  }
  return days;
}
