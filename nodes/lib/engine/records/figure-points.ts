// Which points each figure of the package makes (docs/records.md): one measurement per kind
// of figure, tags for what names a series (tariff, gateway, meter, period, plan), never for
// what changes, fields for the numbers, the point's own instant (the price's effective
// instant, a period's start). Each builder reads the payload a node sends, as data: a field
// missing or of the wrong type is left out, never a crash. A new kind of figure (peaks) is
// one more function here.
import { namedPeriodKind } from '../time/time';
import { ownField } from '../common/id-map';
import { recordPoint, RecordPoint } from './influx-points';

type Loose = Record<string, unknown>;
const isObject = (x: unknown): x is Loose => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : typeof x === 'number' ? String(x) : null);
const kept = (points: Array<RecordPoint | null>): RecordPoint[] => points.filter((p): p is RecordPoint => p !== null);
const HOUR_MS = 3600_000;

export const MEASUREMENTS = {
  price: 'energy_price',
  cost: 'energy_cost',
  costRunning: 'energy_cost_running',
  generator: 'generator',
  generatorRunning: 'generator_running',
  plan: 'plan',
  planSwitch: 'plan_switch',
  peak: 'energy_peak',
} as const;

/**
 * easy-tariff's price: `energy_price`, tags tariff and currency, fields price (net), gross,
 * vat, at the instant the price took effect (`validFromMs`; `sentAt` when that lies beyond
 * the look-back). No price (`price: null`) is no point.
 */
export function pricePoints(payload: unknown, sentAt: number): RecordPoint[] {
  if (!isObject(payload) || num(payload.price) === undefined) return [];
  const at = num(payload.validFromMs) ?? sentAt;
  return kept([
    recordPoint(
      MEASUREMENTS.price,
      { tariff: str(payload.tariffId), currency: str(payload.currency) },
      { price: payload.price, gross: payload.gross, vat: payload.vat },
      at,
    ),
  ]);
}

/** Where a cost figure comes from: the tariff, and the meter (gateway + sensor or topic) when there is one. */
interface CostSeries {
  tariff: string | null;
  currency: string | null;
  gateway: string | null;
  meter: string | null;
  /** `export` for an export meter's credit (rule 47); absent for import, so import series stay as they were. */
  direction?: string | null;
}

/**
 * One costed period (a stream period, a range, a day of a split range) as a point at its
 * start: `energy_cost` when final, `energy_cost_running` while it runs (a separate series,
 * so a running write that reaches the server late never overwrites the final figure).
 */
function costPoint(series: CostSeries, period: string, sums: unknown, running = false): RecordPoint | null {
  if (!isObject(sums)) return null;
  const from = num(sums.fromMs);
  if (from === undefined) return null;
  return recordPoint(
    running ? MEASUREMENTS.costRunning : MEASUREMENTS.cost,
    { ...series, currency: str(sums.currency) ?? series.currency, period },
    {
      energy: sums.energy,
      net: sums.net,
      gross: sums.gross,
      unpriced_energy: sums.unpricedEnergy,
      intervals: sums.intervals,
      resets: sums.resets,
      end_ms: sums.toMs,
    },
    from,
  );
}

const STREAM_PERIODS: ReadonlyArray<[string, string]> = [
  ['today', 'day'],
  ['week', 'week'],
  ['month', 'month'],
];

/**
 * easy-cost stream mode, one meter's message: each period that closed with this reading
 * (`energy_cost`, final) and today, this week and this month as they run
 * (`energy_cost_running`, overwritten at each reading), each at its period's start.
 */
export function streamCostPoints(payload: unknown): RecordPoint[] {
  if (!isObject(payload)) return [];
  const meter = isObject(payload.meter) ? payload.meter : {};
  const series: CostSeries = {
    tariff: str(payload.tariffId),
    currency: str(payload.currency),
    gateway: str(meter.gateway),
    meter: str(meter.topic),
    ...(payload.direction === 'export' ? { direction: 'export' } : {}),
  };
  const points: Array<RecordPoint | null> = [];
  const closed = isObject(payload.closed) ? payload.closed : {};
  for (const [, period] of STREAM_PERIODS)
    if (ownField(closed, period) !== undefined) points.push(costPoint(series, period, ownField(closed, period)));
  for (const [key, period] of STREAM_PERIODS) points.push(costPoint(series, period, payload[key], true));
  return kept(points).concat(payload.direction === 'export' ? [] : generatorPoints(payload.generator, series.tariff));
}

/**
 * easy-cost batch and range modes: the costed span as one `energy_cost` point at its start
 * (period: the named period's kind, `day`/`week`/`month`/`year`, else `range`), and with
 * `split` each local day. `period` is the message's `msg.period`.
 */
export function rangeCostPoints(payload: unknown, period: unknown): RecordPoint[] {
  if (!isObject(payload)) return [];
  const series: CostSeries = {
    tariff: str(payload.tariffId),
    currency: str(payload.currency),
    gateway: str(payload.gateway),
    meter: str(payload.sensor),
    // an export meter's range is its credit, as in stream mode (rule 47)
    ...(payload.direction === 'export' ? { direction: 'export' } : {}),
  };
  const points = [costPoint(series, namedPeriodKind(period) ?? 'range', payload)];
  if (Array.isArray(payload.days)) for (const day of payload.days) points.push(costPoint(series, 'day', day));
  const generator = isObject(payload.generator) ? { ...payload.generator, fromMs: payload.fromMs } : null;
  return kept(points).concat(generator ? generatorPoints({ range: generator }, series.tariff, namedPeriodKind(period) ?? 'range') : []);
}

/** One period of a generator report as a point at the period's start: `generator` when final, `generator_running` while it runs. */
function generatorPoint(tags: Record<string, string | null>, period: string, p: unknown, live = false): RecordPoint | null {
  if (!isObject(p)) return null;
  const group = (x: unknown) => (isObject(x) ? x : {});
  const running = group(p.running);
  const notRunning = group(p.notRunning);
  const runMs = num(p.runMs);
  return recordPoint(
    live ? MEASUREMENTS.generatorRunning : MEASUREMENTS.generator,
    { ...tags, period },
    {
      run_hours: runMs === undefined ? undefined : runMs / HOUR_MS,
      starts: p.starts,
      off_hours: num(p.offMs) === undefined ? undefined : num(p.offMs)! / HOUR_MS,
      unknown_hours: num(p.unknownMs) === undefined ? undefined : num(p.unknownMs)! / HOUR_MS,
      running_energy: running.energy,
      running_net: running.net,
      running_gross: running.gross,
      not_running_energy: notRunning.energy,
      not_running_net: notRunning.net,
      not_running_gross: notRunning.gross,
    },
    num(p.fromMs) ?? NaN,
  );
}

/**
 * easy-cost's generator report: tags tariff, gateway, sensor, period. Stream mode's report
 * has closed periods (`generator`) and today/week/month running (`generator_running`) as
 * cost does; range mode's
 * (`{ range: report }`) is one point at the range's start.
 */
export function generatorPoints(report: unknown, tariff: string | null, rangePeriod = 'range'): RecordPoint[] {
  if (!isObject(report)) return [];
  if (isObject(report.range)) {
    const r = report.range;
    return kept([generatorPoint({ tariff, gateway: str(r.gatewayId), sensor: str(r.sensorId) }, rangePeriod, r)]);
  }
  const tags = { tariff, gateway: str(report.gatewayId), sensor: str(report.sensorId) };
  const points: Array<RecordPoint | null> = [];
  const closed = isObject(report.closed) ? report.closed : {};
  for (const [, period] of STREAM_PERIODS)
    if (ownField(closed, period) !== undefined) points.push(generatorPoint(tags, period, ownField(closed, period)));
  for (const [key, period] of STREAM_PERIODS) points.push(generatorPoint(tags, period, report[key], true));
  return kept(points);
}

/** The run time a plan falls short by, in hours (undefined when either is unknown). */
function shortfallHours(requested: number | undefined, planned: number | undefined): number | undefined {
  if (requested === undefined || planned === undefined) return undefined;
  return Math.max(0, requested - planned) / HOUR_MS;
}

/**
 * easy-plan's plan (output 2): `plan`, tags tariff, plan (the node's name or id) and
 * request (`plan`, `once`), at the window's start: what was asked and planned (hours),
 * the average price and cost per kW, how many slots. A new plan for the same window
 * overwrites it.
 */
export function planPoints(payload: unknown, plan: string): RecordPoint[] {
  if (!isObject(payload)) return [];
  const window = isObject(payload.window) ? payload.window : {};
  const perKw = isObject(payload.costPerKw) ? payload.costPerKw : {};
  const compared = isObject(payload.comparedToNow) ? payload.comparedToNow : {};
  const hours = (x: unknown) => {
    const ms = num(x);
    return ms === undefined ? undefined : ms / HOUR_MS;
  };
  return kept([
    recordPoint(
      MEASUREMENTS.plan,
      { tariff: str(payload.tariffId), currency: str(payload.currency), plan, request: str(payload.request) },
      {
        requested_hours: hours(payload.requested),
        planned_hours: hours(payload.planned),
        // the message's shortfall is a text for people; the hours are what was asked less what was planned
        shortfall_hours: shortfallHours(num(payload.requested), num(payload.planned)),
        slots: Array.isArray(payload.slots) ? payload.slots.length : undefined,
        average_price: payload.averagePrice,
        cost_per_kw_net: perKw.net,
        cost_per_kw_gross: perKw.gross,
        saving: compared.saving,
        saving_gross: compared.savingGross,
      },
      num(window.fromMs) ?? NaN,
    ),
  ]);
}

/** easy-plan's output 1: `plan_switch`, tag plan, fields on (1 or 0) and outside (true outside the window), at `at`. */
export function switchPoints(state: unknown, plan: string, at: number): RecordPoint[] {
  if (state !== 'on' && state !== 'off' && state !== 'outside') return [];
  return kept([recordPoint(MEASUREMENTS.planSwitch, { plan }, { on: state === 'on' ? 1 : 0, outside: state === 'outside' }, at)]);
}

/**
 * easy-peak's closed demand windows (`windows`: `{ minutes, site, meter, closed: [...] }`
 * as PeakStream's records part holds them): `energy_peak`, tags site (the node's name or
 * id), scope (`meter` or `site`), gateway and meter (a meter's), minutes and unit (`kW`,
 * `kVA` for a kVAh counter), at the window's start: its average, energy, whether readings
 * covered it, and the month's value and the window's rank among the month's peaks when it
 * closed; a site window the bill after it closed (billed kW and demand charge, its month's).
 * A window closes once; closed again after a restart it overwrites its point.
 */
export function peakPoints(windows: unknown, site: string): RecordPoint[] {
  if (!isObject(windows) || !Array.isArray(windows.closed)) return [];
  const minutes = str(windows.minutes);
  const points: Array<RecordPoint | null> = [];
  for (const w of windows.closed) {
    if (!isObject(w)) continue;
    const meter = w.scope === 'meter';
    points.push(
      recordPoint(
        MEASUREMENTS.peak,
        {
          site,
          scope: meter ? 'meter' : 'site',
          gateway: meter ? str(w.gateway) : null,
          meter: meter ? str(w.topic) : null,
          minutes,
          unit: str(w.unit),
        },
        {
          average: w.kw,
          energy: w.energy,
          complete: w.complete,
          month_value: w.monthValue,
          rank: w.rank,
          end_ms: w.toMs,
          billed_kw: w.billedKw,
          demand_charge: w.demandCharge,
        },
        num(w.fromMs) ?? NaN,
      ),
    );
  }
  return kept(points);
}
