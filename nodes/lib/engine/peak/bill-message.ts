// easy-peak's bill as another node takes it (semantics rule 63): output 1 wired into
// easy-cost, whose month-end projection shows the demand charge beside the energy cost.
// The payload is data from outside: each field read and checked, never trusted.
import { roundAmount } from '../common/format';
import { isFiniteNumber, isRecord } from '../common/stored-checks';
import { describe, isNearNow, NEAR_NOW_YEARS } from '../time/time';
import type { ReactivePeriod } from './apparent';
import { MAX_INSTANT_MS } from './demand-window';

/** The site's bill of one billing period, as output 1 of easy-peak says it. */
export interface SiteBill {
  unit: 'kW' | 'kVA';
  from: number;
  to: number;
  billedKw: number;
  demandCharge: number;
  /** At the period's end if the window under way ends at its projection (null: none yet). */
  projected: { billedKw: number; demandCharge: number } | null;
  /** The reactive energy of the period (rule 65); null on a site without kvarh (or from an easy-peak before it). */
  reactive: SiteReactive | null;
}

/** easy-peak's `site.bill.reactive`: the period's energies, average power factor, chargeable kvarh and their amount, and projected. */
export type SiteReactive = Pick<
  ReactivePeriod,
  'activeEnergy' | 'reactiveEnergy' | 'apparentEnergy' | 'powerFactor' | 'chargeableKvarh' | 'amount'
> & { projected: { chargeableKvarh: number; amount: number } | null };

const amountOk = (x: unknown): x is number => isFiniteNumber(x) && x >= 0;
// the value described, never written out whole: a forged array of a million items is no 2 MB error at Catch
const wrong = (field: string, x: unknown): TypeError =>
  new TypeError(`easy-peak's site.${field} must be a number of at least 0, got ${describe(x)}`);

/**
 * The bill of an easy-peak output-1 payload (`{ timezone, minutes, site }`): undefined when
 * the payload is not one (a reading), null while it has no site yet, else the bill; an
 * error naming the field when one is wrong (a message edited on its way). With `now`, the
 * period's ends must lie near it, as any instant from outside (else a period of all time
 * would price every reading, and instants past a Date's range would fail each projection).
 * With `vatPercent` (the VAT of what prices the energy), each amount's gross and the net
 * and gross of the amounts a projection adds together must be finite numbers too (1.7e308
 * is finite, its gross with 20 % is not: JSON would send null).
 */
export function siteBillOf(payload: unknown, now?: number, vatPercent = 0): SiteBill | null | undefined {
  if (!isRecord(payload) || typeof payload.minutes !== 'number' || typeof payload.timezone !== 'string' || !('site' in payload))
    return undefined;
  const site = payload.site;
  if (site === null) return null;
  if (!isRecord(site) || !isRecord(site.bill) || !isRecord(site.month))
    throw new TypeError("easy-peak's site must hold its month and bill, as easy-peak's output 1 sends them");
  const { bill, month } = site;
  const from = month.fromMs;
  const to = month.toMs;
  if (!isFiniteNumber(from) || !isFiniteNumber(to) || !(from < to) || Math.max(Math.abs(from), Math.abs(to)) > MAX_INSTANT_MS)
    throw new TypeError("easy-peak's site.month must say fromMs and toMs, the billing period, as easy-peak sends it");
  if (now !== undefined && !(isNearNow(from, now) && isNearNow(to, now)))
    throw new TypeError(`easy-peak's site.month must lie within ${NEAR_NOW_YEARS} years of now, got ${from} to ${to}`);
  if (site.unit !== 'kW' && site.unit !== 'kVA')
    throw new TypeError(`easy-peak's site.unit must be "kW" or "kVA", got ${describe(site.unit)}`);
  for (const field of ['billedKw', 'demandCharge'] as const) if (!amountOk(bill[field])) throw wrong(`bill.${field}`, bill[field]);
  let projected: SiteBill['projected'] = null;
  if (bill.projected !== null && bill.projected !== undefined) {
    const p = bill.projected;
    checkAmounts(p, 'bill.projected', ['demandCharge', 'billedKw']);
    projected = { billedKw: p.billedKw, demandCharge: p.demandCharge };
  }
  const reactive = reactiveOf(bill.reactive);
  const read: SiteBill = {
    unit: site.unit,
    from,
    to,
    billedKw: bill.billedKw as number,
    demandCharge: bill.demandCharge as number,
    projected,
    reactive,
  };
  checkGross(read, vatPercent);
  return read;
}

/**
 * Each amount of the bill with its gross (`vatPercent`) a finite number, and the net and the
 * gross of what demandLine adds together (the demand charge and the reactive charge, so far
 * and projected: with a negative VAT the net is the larger); else an error naming the amount
 * and its value.
 */
function checkGross(bill: SiteBill, vatPercent: number): void {
  const factor = 1 + vatPercent / 100;
  const sums: Array<Array<[string, number | undefined]>> = [
    [
      ['bill.demandCharge', bill.demandCharge],
      ['bill.reactive.amount', bill.reactive?.amount],
    ],
    [
      ['bill.projected.demandCharge', bill.projected?.demandCharge],
      ['bill.reactive.projected.amount', bill.reactive?.projected?.amount],
    ],
  ];
  for (const sum of sums) {
    let net = 0;
    let gross = 0;
    for (const [field, amount] of sum) {
      if (amount === undefined) continue;
      net += amount;
      gross += amount * factor;
      if (!Number.isFinite(amount * factor) || !Number.isFinite(gross))
        throw new TypeError(
          `easy-peak's site.${field} must be an amount whose gross with VAT (${vatPercent} %)` +
            `${gross === amount * factor ? '' : ", added to the demand charge's,"} is a finite number, got ${describe(amount)}`,
        );
      // a negative VAT makes the gross smaller than the net: the net added together must be finite too
      if (!Number.isFinite(net))
        throw new TypeError(
          `easy-peak's site.${field} must be an amount that, added to the demand charge, is a finite number, got ${describe(amount)}`,
        );
    }
  }
}

/** A projected part read as data: an object whose `fields` are numbers of at least 0, or an error naming the first that is not (`at`: where it sits). */
function checkAmounts(p: unknown, at: string, fields: readonly string[]): asserts p is Record<string, number> {
  if (!isRecord(p)) throw new TypeError(`easy-peak's site.${at} must be null or an object of its figures, got ${describe(p)}`);
  for (const field of fields) if (!amountOk(p[field])) throw wrong(`${at}.${field}`, p[field]);
}

/** The bill's reactive part read as data: each figure a number of at least 0 (the power factor null or at most 1), or an error naming it. */
function reactiveOf(r: unknown): SiteReactive | null {
  if (r === null || r === undefined) return null;
  if (!isRecord(r)) throw new TypeError(`easy-peak's site.bill.reactive must be null or an object of its figures, got ${describe(r)}`);
  const fields = ['activeEnergy', 'reactiveEnergy', 'apparentEnergy', 'chargeableKvarh', 'amount'] as const;
  for (const field of fields) if (!amountOk(r[field])) throw wrong(`bill.reactive.${field}`, r[field]);
  const pf = r.powerFactor;
  if (pf !== null && !(amountOk(pf) && pf <= 1))
    throw new TypeError(`easy-peak's site.bill.reactive.powerFactor must be null or a number from 0 to 1, got ${describe(pf)}`);
  const p = r.projected;
  if (p !== null && p !== undefined) checkAmounts(p, 'bill.reactive.projected', ['amount', 'chargeableKvarh']);
  const [activeEnergy, reactiveEnergy, apparentEnergy, chargeableKvarh, amount] = fields.map((f) => r[f] as number);
  return {
    activeEnergy,
    reactiveEnergy,
    apparentEnergy,
    powerFactor: pf as number | null,
    chargeableKvarh,
    amount,
    projected: isRecord(p) ? { chargeableKvarh: p.chargeableKvarh as number, amount: p.amount as number } : null,
  };
}

interface Amounts {
  net: number;
  gross: number;
}

/**
 * The demand line of a month-end projection (rule 63) at the newest reading `newest`: the
 * bill's period, billed kW and demand charge so far and projected (gross with `vatPercent`),
 * and beside it the reactive energy charge (rule 65), when the newest reading lies in the
 * bill's period (else null: the bill of another period). Where that period is the
 * projection's month (`month`), `withDemand` adds both to the energy cost so far and
 * projected; a billing period of its own (a read day) is shown beside, never added.
 */
export function demandLine(
  bill: SiteBill,
  newest: number,
  month: { from: number; to: number },
  vatPercent: number,
  energy: { soFar: Amounts; projected: Amounts | null },
) {
  if (!(newest >= bill.from && newest < bill.to)) return null;
  const factor = 1 + vatPercent / 100;
  const amounts = (net: number): Amounts => ({ net: roundAmount(net), gross: roundAmount(net * factor) });
  const projected = bill.projected && { billedKw: bill.projected.billedKw, ...amounts(bill.projected.demandCharge) };
  const samePeriod = bill.from === month.from && bill.to === month.to;
  const sum = (a: Amounts, b: Amounts): Amounts => ({ net: roundAmount(a.net + b.net), gross: roundAmount(a.gross + b.gross) });
  const r = bill.reactive;
  const reactive = r && {
    activeEnergy: r.activeEnergy,
    reactiveEnergy: r.reactiveEnergy,
    apparentEnergy: r.apparentEnergy,
    powerFactor: r.powerFactor,
    chargeableKvarh: r.chargeableKvarh,
    soFar: amounts(r.amount),
    projected: r.projected && { chargeableKvarh: r.projected.chargeableKvarh, ...amounts(r.projected.amount) },
  };
  const none: Amounts = { net: 0, gross: 0 };
  return {
    demand: {
      unit: bill.unit,
      from: new Date(bill.from).toISOString(),
      to: new Date(bill.to).toISOString(),
      fromMs: bill.from,
      toMs: bill.to,
      samePeriod,
      billedKw: bill.billedKw,
      soFar: amounts(bill.demandCharge),
      projected,
    },
    ...(reactive ? { reactive } : {}),
    ...(samePeriod
      ? {
          withDemand: {
            soFar: sum(sum(energy.soFar, amounts(bill.demandCharge)), reactive?.soFar ?? none),
            projected:
              energy.projected && projected && (!reactive || reactive.projected)
                ? sum(sum(energy.projected, projected), reactive?.projected ?? none)
                : null,
          },
        }
      : {}),
  };
}
