// What easy-plan sends: the values of output 1 (on, off, outside the window, as the user
// configured them) and output 2's plan message, in the package's message conventions:
// times as ISO 8601 UTC strings with `…Ms` epoch numbers beside them, amounts rounded by
// roundAmount, run times in ms with minutes and a text beside them.
import type { PlanResult } from '../../engine/plan/plan';
import { formatMoney, roundAmount, roundAmountOrNull } from '../../engine/common/format';
import { runTimeText } from '../../engine/plan/plan';
import { HOUR_MS, localIsoText, toLocalMs, zoneInfo } from '../../engine/time/time';
import type { LedgerPiece } from './plan-ledger';
import { typedValue } from '../common/typed-value';

/** What output 1 says: in a slot, in the window outside any slot, or outside the window. */
export type OutputState = 'on' | 'off' | 'outside';

export interface OutputValues {
  on: unknown;
  off: unknown;
  outside: unknown;
}

/** The configured output values; a node saved before they existed sends true and false. */
export function outputValues(config: Record<string, unknown>): OutputValues {
  const on = config.onType === undefined ? true : typedValue(config.onValue, config.onType, 'the on value');
  const off = config.offType === undefined ? false : typedValue(config.offValue, config.offType, 'the off value');
  const outside =
    config.outsideType === undefined || config.outsideType === 'off'
      ? off
      : typedValue(config.outsideValue, config.outsideType, 'the value outside the window');
  return { on, off, outside };
}

/** Resend the current state every this many minutes (0: never); whole minutes up to a day. */
export function resendMs(config: Record<string, unknown>): number {
  const raw = config.resendMinutes;
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return 0;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 1440) {
    throw new Error(`resend every must be whole minutes from 0 (never) to 1440, got ${JSON.stringify(raw)}`);
  }
  return n * 60_000;
}

export interface SpanPayload {
  from: string;
  fromMs: number;
  to: string;
  toMs: number;
  fromLocal: string;
  toLocal: string;
}

export interface PlanSlotPayload extends SpanPayload {
  /** Net price per kWh, averaged over the slot; null where no rule prices (a boost may run there). */
  price: number | null;
  /** What the slot serves: the configured plan, a message's one-off plan, or a boost. */
  request: 'plan' | 'once' | 'boost';
}

/** What made this plan: deploy, tariffs (fetched or a sensor changed), message (a one-off, boost, cancel or 'plan'), window (a new window began). */
/** Why the plan was made; `clock`: the wall clock stepped (docs/semantics.md, "Clock steps"). */
export type PlanCause = 'deploy' | 'tariffs' | 'message' | 'window' | 'clock';

/** Output 2's message. Its keys in the order the Debug sidebar shows them: the slots first, then what a person reads. */
export interface PlanPayload {
  slots: PlanSlotPayload[];
  /** cheapest or dearest: the slots are when the load runs; save: when it is switched off. */
  strategy: 'cheapest' | 'dearest' | 'save';
  /** What this plan is for: the configured plan's window, or a message's one-off span. */
  request: 'plan' | 'once';
  /** Run time in ms: asked for in the window, and planned there (what has run included). */
  requested: number;
  planned: number;
  /** The same in minutes (to 0.01) and as text to the minute (`3 h`, `1 h 47 min`): for people, the ms for arithmetic. */
  requestedMinutes: number;
  plannedMinutes: number;
  requestedText: string;
  plannedText: string;
  /** Why less than asked for is planned; null when all of it is. */
  shortfall: string | null;
  /** Why no slot lies ahead (the status's words: `the duration is 0`, no off period saves …); null when one does. */
  reason: string | null;
  window: SpanPayload;
  averagePrice: number | null;
  costPerKw: { net: number; gross: number };
  /** costPerKw.net in the currency's minor unit: `GBP 0.72`. */
  costPerKwText: string;
  /** The rest of the run time started when this plan was made, in one block, and the saving against it (per kW). */
  comparedToNow: (SpanPayload & { net: number; gross: number; saving: number; savingGross: number }) | null;
  tariffId: string;
  timezone: string;
  currency: string | null;
  cause: PlanCause;
  madeAt: string;
  madeAtMs: number;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** ISO text on the zone's wall clock with its offset: 2026-03-29T04:30:00+01:00. */
export function localIso(ms: number, timezone: string): string {
  const zone = zoneInfo(timezone);
  const offsetMin = Math.round((toLocalMs(zone, ms) - ms) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${localIsoText(zone, ms).slice(0, 19)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

export function spanPayload(from: number, to: number, timezone: string): SpanPayload {
  return { from: iso(from), fromMs: from, to: iso(to), toMs: to, fromLocal: localIso(from, timezone), toLocal: localIso(to, timezone) };
}

/** Touching pieces of one request become one slot, priced by their time-weighted average. */
export function slotsOf(pieces: LedgerPiece[]): Array<{ from: number; to: number; price: number | null; owner: LedgerPiece['owner'] }> {
  const out: Array<{ from: number; to: number; priceMs: number | null; owner: LedgerPiece['owner'] }> = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    const priceMs = p.price === null ? null : p.price * (p.to - p.from);
    if (last && last.to === p.from && last.owner === p.owner) {
      last.to = p.to;
      last.priceMs = last.priceMs === null || priceMs === null ? null : last.priceMs + priceMs;
    } else {
      out.push({ from: p.from, to: p.to, priceMs, owner: p.owner });
    }
  }
  return out.map((s) => ({ from: s.from, to: s.to, price: s.priceMs === null ? null : s.priceMs / (s.to - s.from), owner: s.owner }));
}

export interface PayloadInputs {
  tariffId: string;
  timezone: string;
  currency: string | null;
  vat: number;
  strategy: PlanPayload['strategy'];
  request: 'plan' | 'once';
  span: { from: number; to: number; requested: number };
  pieces: LedgerPiece[];
  result: PlanResult | null;
  shortfall: string | null;
  reason: string | null;
  cause: PlanCause;
  now: number;
}

/** Output 2's message: the slots kept, what the shown request asked for and has planned, its cost per kW. */
export function planPayload(x: PayloadInputs): PlanPayload {
  const inSpan = x.pieces
    .filter((p) => p.to > x.span.from && p.from < x.span.to)
    .map((p) => ({ ...p, from: Math.max(p.from, x.span.from), to: Math.min(p.to, x.span.to) }));
  const planned = inSpan.reduce((sum, p) => sum + (p.to - p.from), 0);
  const priced = inSpan.filter((p) => p.price !== null);
  const pricedMs = priced.reduce((sum, p) => sum + (p.to - p.from), 0);
  const net = priced.reduce((sum, p) => sum + p.price! * ((p.to - p.from) / HOUR_MS), 0);
  const c = x.result?.comparedToNow ?? null;
  const gross = (v: number) => v * (1 + x.vat / 100);
  return {
    slots: slotsOf(x.pieces).map((s) => ({
      ...spanPayload(s.from, s.to, x.timezone),
      price: roundAmountOrNull(s.price),
      request: s.owner,
    })),
    strategy: x.strategy,
    request: x.request,
    requested: x.span.requested,
    planned,
    requestedMinutes: minutes(x.span.requested),
    plannedMinutes: minutes(planned),
    requestedText: runTimeText(x.span.requested),
    plannedText: runTimeText(planned),
    shortfall: x.shortfall,
    reason: x.reason,
    window: spanPayload(x.span.from, x.span.to, x.timezone),
    averagePrice: roundAmountOrNull(pricedMs > 0 ? net / (pricedMs / HOUR_MS) : null),
    costPerKw: { net: roundAmount(net), gross: roundAmount(gross(net)) },
    costPerKwText: moneyText(net, x.currency),
    comparedToNow: c
      ? {
          ...spanPayload(c.from, c.to, x.timezone),
          net: roundAmount(c.net),
          gross: roundAmount(c.gross),
          saving: roundAmount(c.saving),
          savingGross: roundAmount(c.savingGross),
        }
      : null,
    tariffId: x.tariffId,
    timezone: x.timezone,
    currency: x.currency,
    cause: x.cause,
    madeAt: iso(x.now),
    madeAtMs: x.now,
  };
}

/** ms as minutes to 0.01 (0.6 s): run times are whole seconds, re-plans cut them at any ms. */
function minutes(ms: number): number {
  return Math.round(ms / 600) / 100;
}

/** An amount in the currency's minor unit; one too small for it in two significant digits, never a false 0.00. */
function moneyText(amount: number, currency: string | null): string {
  const money = formatMoney(amount, currency)!;
  if (amount === 0 || Number(money.text) !== 0) return money.display;
  const small = String(Number(amount.toPrecision(2)));
  return currency ? `${currency} ${small}` : small;
}
