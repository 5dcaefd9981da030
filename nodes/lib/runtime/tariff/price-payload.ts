// What easy-tariff sends: the price payload of one instant (or the reason there is no
// price), in the message conventions of the package (ISO times with `…Ms` beside them,
// amounts rounded by engine/format).

import type { TariffSnapshot } from '../account/hub';
import type { PriceResult } from '../../engine/tariff/price';
import type { SensorRef, Tariff } from '../../engine/tariff/tariff';
import { roundAmount } from '../../engine/common/format';
import { knownUntilText } from '../prices/prices-source';

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

/** What a price payload is made of: the engine's answer at one instant and what surrounds it. */
export interface PricedAt {
  tariffId: string;
  tariff: Tariff | undefined;
  result: PriceResult | null;
  next: { at: number } | null;
  validFrom: number | null;
  unknownSensors: SensorRef[];
  snap: TariffSnapshot;
  reason: string | null;
}

export function pricePayload({ tariffId, tariff, result, next, validFrom, unknownSensors, snap, reason }: PricedAt): PricePayload {
  return {
    price: result ? roundAmount(result.price) : null,
    gross: result ? roundAmount(result.gross) : null,
    vat: result?.vat ?? tariff?.vat ?? null,
    currency: result?.currency ?? tariff?.currency ?? null,
    tariffId,
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

/** Why a tariff gives no price at an instant, or the caveat about the price it gives. */
export function priceReason(priced: boolean, unknownSensors: SensorRef[]): string | null {
  if (!priced) return unknownSensors.length ? `no rule matches: ${sensorWords(unknownSensors)} unknown` : 'no rule matches at this time';
  return unknownSensors.length ? `${sensorWords(unknownSensors)} unknown, priced by a later rule` : null;
}

export function sensorWords(refs: SensorRef[]): string {
  return refs.map((r) => `sensor ${r.gatewayId}/${r.sensorId}`).join(', ');
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** What a price payload adds when the node prices a stack (an easy-prices node's list over the tariff). */
export interface StackFields {
  /** The parts of `price` per kWh: the list's price, the tariff's fee (0 without fees), the add-ons; null with no price. */
  spot: number | null;
  fees: number | null;
  addOns: number | null;
  /** Until when the list's prices run back to back from now (ISO), null when it has none now. */
  pricesKnownUntil: string | null;
  pricesKnownUntilMs: number | null;
  /** The same in words on the zone's wall clock, for a dashboard: `prices known until 24:00`, or `no prices known now`. */
  pricesKnownText: string;
}

export function stackParts(result: PriceResult | null, knownUntil: number | null, now: number, timezone: string): StackFields {
  const parts = result?.parts;
  // where the list has no price, a price is the tariff's alone (the fallback): all of it fees
  const inList = knownUntil !== null;
  return {
    spot: parts && inList ? roundAmount(parts.spot) : null,
    fees: parts ? roundAmount(parts.fees) : null,
    addOns: parts && inList ? roundAmount(parts.addOns) : null,
    pricesKnownUntil: knownUntil === null ? null : iso(knownUntil),
    pricesKnownUntilMs: knownUntil,
    pricesKnownText: knownUntil === null ? 'no prices known now' : knownUntilText(knownUntil, now, timezone),
  };
}
