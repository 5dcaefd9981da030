// IANA zones: moment-timezone's zone data (loaded at first use) as typed arrays per zone,
// the zone names, the machine's zone, and the unknown-zone error. Local time always
// comes from this data, never from Date's local getters, so the process's TZ cannot leak
// in. Part of the time family: import it through engine/time.
import type Moment from 'moment-timezone';
import { MINUTE_MS } from './time-instant';

let loadedMoment: typeof Moment | null = null;

/**
 * moment-timezone, loaded at first use: its zone data is ~8 MB of memory, which a
 * Node-RED that has the package installed but none of its nodes deployed never pays.
 */
export function momentTz(): typeof Moment {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loadedMoment ??= require('moment-timezone') as typeof Moment;
  return loadedMoment;
}

/**
 * A zone's history as typed arrays: offsetMs[i] (local = utc + offsetMs[i]) holds for
 * instants before untils[i]; the last until is +Infinity.
 */
export interface ZoneInfo {
  readonly name: string;
  readonly untils: Float64Array;
  readonly offsetMs: Float64Array;
}

const zoneCache = new Map<string, ZoneInfo>();

function unknownZone(name: unknown): Error {
  const shown = typeof name === 'string' ? name : String(name);
  return new Error(`unknown time zone "${shown}" (use an IANA name such as Europe/London)`);
}

/** The zone's data; throws the unknown-zone Error for anything that is not an IANA zone. */
export function zoneInfo(name: string): ZoneInfo {
  const cached = zoneCache.get(name);
  if (cached) return cached;
  const zone = typeof name === 'string' && name !== '' ? momentTz().tz.zone(name) : null;
  if (!zone) throw unknownZone(name);
  const info: ZoneInfo = {
    name: zone.name,
    untils: Float64Array.from(zone.untils),
    // moment's offsets are minutes west of UTC, sometimes fractional (LMT)
    offsetMs: Float64Array.from(zone.offsets, (minutes) => -Math.round(minutes * MINUTE_MS)),
  };
  zoneCache.set(name, info);
  return info;
}

/** Every zone name of the zone data (the IANA database, links included), sorted. */
export function timeZoneNames(): string[] {
  return [...momentTz().tz.names()].sort();
}

/** Throws `Error('unknown time zone "X" (...)')` unless name is an IANA zone. */
export function assertTimeZone(name: string): void {
  zoneInfo(name);
}

/** The zone of the machine (Intl), or UTC when it is unknown to the zone data. */
export function machineTimeZone(): string {
  let name: string | undefined;
  try {
    name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    name = undefined;
  }
  return name && momentTz().tz.zone(name) ? name : 'UTC';
}

/** The zone of an options object, with the same errors as the engine's. */
export function zoneOption(options: unknown): ZoneInfo {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('options must be an object with a timezone, e.g. { timezone: "Europe/London" }');
  }
  const timezone = (options as { timezone?: unknown }).timezone;
  // No silent default: the process's zone must never be used by accident.
  if (timezone === undefined || timezone === null) throw new TypeError('options.timezone is required (an IANA name such as Europe/London)');
  return zoneInfo(timezone as string);
}
