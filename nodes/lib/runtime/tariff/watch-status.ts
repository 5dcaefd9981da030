// The node status of easy-tariff (and easy-plan's price part): the price and until when,
// how old stale tariffs are, what is unknown, or a short word for what went wrong.

import type { TariffSnapshot } from '../account/hub';
import { NoTokenError } from '../account/hub';
import type { PricePayload } from './price-payload';
import { sensorWords } from './price-payload';
import { shortText, timeOfDay } from '../../engine/common/format';
import { DAY_MS, HOUR_MS, MINUTE_MS, localDayNumber, toLocalMs, zoneInfo } from '../../engine/time/time';

export interface WatchStatus {
  fill: 'green' | 'yellow' | 'red' | 'grey';
  shape: 'dot' | 'ring';
  text: string;
}

/** The status of a price payload sent at `at`, from tariffs as `snap` has them. */
export function watchStatus(p: PricePayload, snap: TariffSnapshot, at: number, timezone: string): WatchStatus {
  const until = p.validUntil ? ` until ${localTime(Date.parse(p.validUntil), at, timezone)}` : '';
  const age = snap.stale && snap.fetchedAt !== null ? ` · tariffs ${ageWords(at - snap.fetchedAt)} old` : '';
  if (p.price !== null) {
    const caveat = p.unknownSensors.length ? ` · ${sensorWords(p.unknownSensors)} unknown` : '';
    return { fill: snap.stale ? 'yellow' : 'green', shape: 'dot', text: `${rate(p.price)} ${p.currency}/kWh${until}${age}${caveat}` };
  }
  if (p.tariffName !== null) return { fill: 'yellow', shape: 'ring', text: `no price${until}: ${p.reason}${age}` };
  if (snap.error && snap.fetchedAt === null) return { fill: 'red', shape: 'ring', text: shortError(snap.error) };
  return { fill: 'red', shape: 'ring', text: /rejected/.test(p.reason ?? '') ? 'tariff invalid' : 'tariff not found' };
}

/** A rate with at least 2 and at most 4 decimals: 0.45, 0.30, 0.1234. */
export function rate(price: number): string {
  return price.toFixed(4).replace(/0{1,2}$/, '');
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `19:00` (timeOfDay: seconds only when not :00), with the weekday when it is not the local day of `now`. */
export function localTime(at: number, now: number, timezone: string): string {
  const zone = zoneInfo(timezone);
  const local = new Date(toLocalMs(zone, at));
  const time = timeOfDay(Math.floor((local.getTime() - Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate())) / 1000));
  const sameDay = localDayNumber(zone, at) === localDayNumber(zone, now);
  return sameDay ? time : `${WEEKDAYS[local.getUTCDay()]} ${time}`;
}

export function ageWords(ms: number): string {
  if (ms < MINUTE_MS) return 'under a minute';
  if (ms < HOUR_MS) return `${Math.floor(ms / MINUTE_MS)} min`;
  if (ms < DAY_MS) return `${Math.floor(ms / HOUR_MS)} h`;
  return `${Math.floor(ms / DAY_MS)} d`;
}

const SHORT_ERRORS: Record<string, string> = {
  unauthorized: 'token rejected',
  forbidden: 'no tariff access',
  not_found: 'not found: check base URL',
  rate_limited: 'rate limited',
  server: 'service error',
  network: 'service unreachable',
  timeout: 'service timed out',
  invalid_response: 'bad answer from service',
  aborted: 'request aborted',
};

/** A status-sized word for an error: the client's code, or the start of its message. */
export function shortError(err: Error): string {
  if (err instanceof NoTokenError) return 'no token on the account';
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SHORT_ERRORS[code]) return SHORT_ERRORS[code];
  return shortText(err.message, 40);
}
