// easy-cost's compare mode without Node-RED: the same readings (from the message, or the
// archive of a named period or range) costed under every valid tariff of the account,
// one table, and the table as a Dashboard 2 bar chart.
import { compareTariffs, TariffComparisonRow } from '../../engine/reports/compare';
import { computeCost, SensorTimelines } from '../../engine/cost/cost';
import { counted, formatAmounts, formatMoney, minorUnits, roundAmount } from '../../engine/common/format';
import { Problem, sensorsUsedBy, Tariff } from '../../engine/tariff/tariff';
import { checkBatchSpan, rangeRequest } from './cost-inputs';
import type { CostRange } from './cost-range';
import type { NodeStatus } from '../common/red-types';
import { DEFAULT_MAX_POWER_KW } from '../../engine/common/limits';
import { PriceStack, stackId } from '../../engine/prices/price-stack';

export interface CompareOutcome {
  payload: Record<string, unknown>;
  /** The table as bars: one ui-chart message per currency. */
  chart: Array<{ topic: string; currency: string; payload: Array<{ x: string; y: number }>; action: 'replace' | 'append' }>;
  status: NodeStatus;
}

/** The tariffs the account has now, as the hub's snapshot holds them. */
export interface AccountTariffs {
  tariffs: Tariff[];
  problems: Problem[];
}

/**
 * The comparison `msg` asks for: msg.payload readings (with msg.sensors), or else the
 * range msg.period / msg.from..msg.to of msg.gateway's meter, fetched with every sensor
 * any tariff's rules read. `currentId` (the node's tariff, may be '') is marked.
 */
export async function compareCost(
  msg: Record<string, unknown>,
  account: AccountTariffs,
  range: CostRange,
  timezone: string,
  now: number,
  currentId: string,
  maxPowerKw = DEFAULT_MAX_POWER_KW,
  /** An easy-prices node's stack over the node's tariff: one more row, the one marked current. */
  stack: PriceStack | null = null,
): Promise<CompareOutcome> {
  if (account.tariffs.length === 0) {
    const why = account.problems.find((p) => p.severity === 'error');
    throw new Error(`compare mode needs the account's tariffs, and none is usable${why ? `: ${why.message}` : ''}`);
  }
  let readings: unknown[];
  let sensors: SensorTimelines | undefined;
  let source: Record<string, unknown>;
  if (Array.isArray(msg.payload)) {
    readings = msg.payload;
    sensors = msg.sensors as SensorTimelines | undefined;
    source = { readings: readings.length };
  } else if (msg.period !== undefined || msg.from !== undefined) {
    const req = rangeRequest(msg, timezone, now);
    const fetched = await range.archive(
      req,
      account.tariffs.flatMap((t) => sensorsUsedBy(t)),
      null,
    );
    readings = fetched.readings;
    sensors = fetched.sensors;
    source = {
      gateway: req.gateway,
      sensor: req.sensor,
      range: { from: iso(req.from), to: iso(req.to), fromMs: req.from, toMs: req.to },
      fetched: { readings: readings.length, requests: fetched.requests },
    };
  } else {
    throw new TypeError(
      'compare mode needs readings in msg.payload ([[timestamp, kWh], …]) or a range to fetch: msg.gateway with msg.period or msg.from/msg.to',
    );
  }
  // every tariff costs the same readings: one costing says what was dropped, reset or rejected
  const probe = computeCost(account.tariffs[0], readings, { timezone, sensors, maxPowerKw });
  checkBatchSpan(probe, now);
  if (probe.intervals === 0) {
    throw new Error(
      `compare mode needs at least two readings with a timestamp and a kWh value (got ${counted(readings.length, 'reading')})`,
    );
  }
  // the stack is compared as what the node pays: its own row (id 'price list + <tariff id>'), beside the tariff alone
  const compared = stack ? withoutId(stack) : null;
  const table = compareTariffs(compared ? [...account.tariffs, compared] : account.tariffs, readings, { timezone, sensors, maxPowerKw });
  if (compared) currentId = stackId(compared);
  const first = table[0];
  const cheapest = new Map<string, number>();
  for (const row of table) if (!cheapest.has(row.currency)) cheapest.set(row.currency, row.gross);
  const rows = table.map((row, k) => rowPayload(row, k, table, cheapest.get(row.currency) as number, currentId));
  const payload = {
    rows,
    cheapest: first.tariffId,
    energy: roundAmount(first.energy),
    from: iso(probe.from as number),
    to: iso(probe.to as number),
    fromMs: probe.from,
    toMs: probe.to,
    ...source,
    dropped: probe.dropped.length,
    resets: probe.resets.length,
    rejected: probe.rejected.length,
    glitches: probe.glitches.length,
    pending: probe.pending.length,
    // the account's tariffs were checked when fetched: checking them again would repeat its warnings
    problems: account.problems,
  };
  return { payload, chart: compareChart(table, currentId), status: compareStatus(table, rows) };
}

function rowPayload(row: TariffComparisonRow, k: number, table: TariffComparisonRow[], cheapestGross: number, currentId: string) {
  let rank = 1;
  for (let i = 0; i < k; i++) if (table[i].currency === row.currency) rank++;
  return {
    rank,
    tariffId: row.tariffId,
    name: row.name,
    currency: row.currency,
    vat: row.vat,
    net: roundAmount(row.net),
    gross: roundAmount(row.gross),
    energy: roundAmount(row.energy),
    unpricedEnergy: roundAmount(row.unpricedEnergy),
    // a tariff leaving energy unpriced looks cheaper than it is
    complete: row.unpricedEnergy === 0,
    moreThanCheapest: roundAmount(row.gross - cheapestGross),
    current: row.tariffId === currentId,
    formatted: formatAmounts({ net: row.net, gross: row.gross }, row.currency),
  };
}

/**
 * One bar per tariff (gross, to the currency's minor unit), one series per currency with
 * its `currency` (a chart per currency: amounts in two currencies share no axis). A bar is
 * named by the tariff's name (its id where the name is missing or shared), short enough
 * for an axis label; the node's own tariff (`currentId`) begins "Yours: " (a label cut to fit keeps it).
 */
export function compareChart(table: readonly TariffComparisonRow[], currentId = ''): CompareOutcome['chart'] {
  const names = new Map<string, number>();
  for (const row of table) if (row.name) names.set(row.name, (names.get(row.name) ?? 0) + 1);
  const byCurrency = new Map<string, Array<{ x: string; y: number }>>();
  for (const row of table) {
    const scale = 10 ** minorUnits(row.currency);
    const bars = byCurrency.get(row.currency) ?? [];
    const name = row.name && names.get(row.name) === 1 ? row.name : row.name ? `${row.name} (${row.tariffId})` : row.tariffId;
    bars.push({ x: row.tariffId === currentId ? `Yours: ${name}` : name, y: Math.round(row.gross * scale) / scale });
    byCurrency.set(row.currency, bars);
  }
  return [...byCurrency].map(([currency, bars], i) => ({
    topic: `gross cost (${currency})`,
    currency,
    payload: bars,
    action: i === 0 ? ('replace' as const) : ('append' as const),
  }));
}

function compareStatus(table: readonly TariffComparisonRow[], rows: ReadonlyArray<{ complete: boolean }>): NodeStatus {
  const first = table[0];
  const amount = formatMoney(first.gross, first.currency)?.display ?? '';
  const text = `cheapest: ${first.name ?? first.tariffId} ${amount} · ${counted(table.length, 'tariff')}`;
  const incomplete = rows.filter((r) => !r.complete).length;
  return incomplete
    ? { fill: 'yellow', shape: 'dot', text: `${text} · ${counted(incomplete, 'tariff')} leave energy unpriced` }
    : { fill: 'green', shape: 'dot', text };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The stack under the engine's own id for it ('price list + <fees id>'): a node's stack carries its tariff's id, which its row would share. */
function withoutId(stack: PriceStack): PriceStack {
  const { id: _id, ...rest } = stack;
  return rest;
}
