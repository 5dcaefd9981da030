// Which Home Assistant entities each figure makes (docs/records.md): the price per kWh as a
// measurement, costs and period energy as `total` with `last_reset` at the period's start
// (they reset each period, so they are not `total_increasing`), the meter's own cumulative
// kWh as `total_increasing` (what the Energy dashboard takes), the generator's run time as a
// duration, the plan's state as an enum. Payloads are read as data: what is missing is no entity.
import { haMeterText, haObjectId, HaEntity } from './home-assistant';

type Loose = Record<string, unknown>;
const isObject = (x: unknown): x is Loose => typeof x === 'object' && x !== null && !Array.isArray(x);
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);

/** easy-tariff: the price with VAT and without, in the tariff's currency per kWh. */
export function priceEntities(payload: unknown): HaEntity[] {
  if (!isObject(payload)) return [];
  const currency = str(payload.currency);
  if (!currency) return []; // no unit to state: nothing HA could chart right
  const unit = `${currency}/kWh`;
  return [
    { objectId: 'price', name: 'Price', unit, stateClass: 'measurement', icon: 'mdi:cash', value: num(payload.gross) },
    { objectId: 'price_net', name: 'Price (net)', unit, stateClass: 'measurement', icon: 'mdi:cash', value: num(payload.price) },
  ];
}

const PERIODS: ReadonlyArray<[key: string, id: string, words: string]> = [
  ['today', 'today', 'today'],
  ['week', 'week', 'this week'],
  ['month', 'month', 'this month'],
];

/**
 * The meter's part of object ids and names, and the meter as the owner of its entities:
 * its one-to-one text (haMeterText) made an id, `default_` for the one default meter;
 * its name as people read it (`G/e1.kwh`) in the entities' names.
 */
function meterPart(payload: Loose): { id: string; words: string; owner: string } {
  const meter = isObject(payload.meter) ? payload.meter : {};
  const gateway = str(meter.gateway);
  const topic = str(meter.topic);
  const owner = haMeterText(gateway, topic);
  const words = str(meter.name) ?? [gateway, topic ?? 'default'].filter(Boolean).join('/');
  return { id: `${haObjectId(owner)}_`, words: ` ${words}`, owner };
}

/**
 * easy-cost stream mode, per meter: cost (gross) and energy today, this week, this month
 * (`total`, reset at each period's start), and the meter's reading (`total_increasing`
 * kWh); with the generator report, its run time today and this month.
 */
export function streamCostEntities(payload: unknown): HaEntity[] {
  if (!isObject(payload)) return [];
  const currency = str(payload.currency);
  const m = meterPart(payload);
  const out: HaEntity[] = [];
  // an export meter (rule 47): what it earned is a credit, its register what HA's Energy
  // dashboard takes as "return to grid" and the credit total as its compensation
  const exported = payload.direction === 'export';
  const [money, energy] = exported ? ['Credit', 'Export'] : ['Cost', 'Energy'];
  const [moneyId, energyId] = exported ? ['credit', 'export_energy'] : ['cost', 'energy'];
  const total = isObject(payload.total) ? payload.total : null;
  if (exported && currency && total && num(total.fromMs) !== null)
    out.push({
      objectId: `${m.id}credit_total`,
      name: `Credit${m.words} total`,
      unit: currency,
      deviceClass: 'monetary',
      stateClass: 'total',
      value: num(total.gross),
      lastReset: num(total.fromMs)!,
      owner: m.owner,
    });
  for (const [key, id, words] of PERIODS) {
    const p = isObject(payload[key]) ? payload[key] : null;
    const from = p ? num(p.fromMs) : null;
    if (!p || from === null) continue;
    if (currency)
      out.push({
        objectId: `${m.id}${moneyId}_${id}`,
        name: `${money}${m.words} ${words}`,
        unit: currency,
        deviceClass: 'monetary',
        stateClass: 'total',
        value: num(p.gross),
        lastReset: from,
        owner: m.owner,
      });
    out.push({
      objectId: `${m.id}${energyId}_${id}`,
      name: `${energy}${m.words} ${words}`,
      unit: 'kWh',
      deviceClass: 'energy',
      stateClass: 'total',
      value: num(p.energy),
      lastReset: from,
      owner: m.owner,
    });
  }
  // the meter's newest reading only: a late one (or one replaced or ignored) is lower than
  // what HA has, which `total_increasing` would take for a meter reset
  const newest = payload.late !== true && payload.replaced !== true && payload.ignored === undefined;
  const reading = newest && isObject(payload.reading) ? num(payload.reading.value) : null;
  if (reading !== null)
    out.push({
      objectId: `${m.id}${exported ? 'export_meter' : 'meter'}`,
      name: `${exported ? 'Export meter' : 'Meter'}${m.words}`,
      unit: 'kWh',
      deviceClass: 'energy',
      stateClass: 'total_increasing',
      value: reading,
      owner: m.owner,
    });
  return exported ? out : out.concat(generatorEntities(payload.generator));
}

/** The live generator report: run time today and this month, hours, reset at each period's start. */
export function generatorEntities(report: unknown): HaEntity[] {
  if (!isObject(report)) return [];
  const out: HaEntity[] = [];
  for (const [key, id, words] of [PERIODS[0], PERIODS[2]]) {
    const p = isObject(report[key]) ? report[key] : null;
    const from = p ? num(p.fromMs) : null;
    const runMs = p ? num(p.runMs) : null;
    if (from === null || runMs === null) continue;
    out.push({
      objectId: `generator_run_${id}`,
      name: `Generator run time ${words}`,
      unit: 'h',
      deviceClass: 'duration',
      stateClass: 'total',
      value: runMs / 3600_000,
      lastReset: from,
    });
  }
  return out;
}

export const PLAN_STATES = ['on', 'off', 'outside'];

/** easy-plan's output 1: the plan's state (`on`, `off` in the window, `outside` it). */
export function switchEntities(state: unknown): HaEntity[] {
  if (typeof state !== 'string' || !PLAN_STATES.includes(state)) return [];
  return [{ objectId: 'plan_state', name: 'Plan', deviceClass: 'enum', options: PLAN_STATES, icon: 'mdi:calendar-clock', value: state }];
}

/** easy-plan's plan (output 2): the next slot's start (a timestamp, unknown when none) and the hours planned. */
export function planEntities(payload: unknown, now: number): HaEntity[] {
  if (!isObject(payload)) return [];
  const slots = Array.isArray(payload.slots) ? payload.slots.filter(isObject) : [];
  const next = slots.map((s) => num(s.fromMs)).find((from) => from !== null && from >= now) ?? null;
  const planned = num(payload.planned);
  return [
    {
      objectId: 'plan_next_start',
      name: 'Plan next start',
      deviceClass: 'timestamp',
      value: next === null ? null : new Date(next).toISOString(),
    },
    {
      objectId: 'plan_planned',
      name: 'Plan planned time',
      unit: 'h',
      deviceClass: 'duration',
      stateClass: 'measurement',
      value: planned === null ? null : planned / 3600_000,
    },
  ];
}

/**
 * easy-peak, the site: the month's peak value (the average of its peaks), the current
 * window's projected average and the month's billed demand (semantics rule 45), in kW (kVA for kVAh counters: `unit` of the payload's site).
 * Power now, not a count: `measurement`, never `total_increasing`. Unknown (null) before
 * the first complete window, or while a meter's power is unknown.
 */
export function peakEntities(payload: unknown): HaEntity[] {
  if (!isObject(payload) || !isObject(payload.site)) return [];
  const site = payload.site;
  const kva = site.unit === 'kVA';
  const power = {
    unit: kva ? 'kVA' : 'kW',
    deviceClass: kva ? ('apparent_power' as const) : ('power' as const),
    stateClass: 'measurement' as const,
  };
  const month = isObject(site.month) ? site.month : {};
  const window = isObject(site.window) ? site.window : {};
  const bill = isObject(site.bill) ? site.bill : {};
  return [
    { objectId: 'peak_month', name: "Month's peak", ...power, icon: 'mdi:chart-bell-curve', value: num(month.value) },
    { objectId: 'peak_projected', name: 'Window projected', ...power, icon: 'mdi:gauge', value: num(window.projectedKw) },
    { objectId: 'peak_billed', name: 'Billed demand', ...power, icon: 'mdi:cash-multiple', value: num(bill.billedKw) },
  ];
}
