// IANA zones: moment-timezone's zone data (loaded at first use) as typed arrays per zone,
// the zone names, the machine's zone, and the unknown-zone error. Local time always
// comes from this data, never from Date's local getters, so the process's TZ cannot leak
// in. Part of the time family: import it through engine/time.
import { readFileSync, readlinkSync } from 'fs';
import type Moment from 'moment-timezone';
import { MINUTE_MS } from './time-instant';

let loadedMoment: typeof Moment | null = null;

/**
 * moment-timezone without its bundled data, loaded at first use; zones are added from its
 * data file one by one as they are asked for (zoneData). All of it loaded costs ~8 MB of
 * memory; a zone costs a few kB, and a Node-RED with none of the nodes deployed nothing.
 */
export function momentTz(): typeof Moment {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loadedMoment ??= require('moment-timezone/moment-timezone') as typeof Moment;
  return loadedMoment;
}

/** moment-timezone's packed data: `{ zones: ["Name|abbrs|offsets|…"], links: ["Target|Alias"], countries }`. */
const ZONE_DATA_FILE = 'moment-timezone/data/packed/latest.json';

interface ZoneIndex {
  /** Every zone and link name by its lower case (moment's names are case-insensitive). */
  names: Map<string, string>;
  /** Link name → the zone it stands for. */
  links: Map<string, string>;
}
let zoneIndex: ZoneIndex | null = null;

/** The data file's zones and links as text, read afresh (and let go) when a zone is first asked for. */
function zoneDataText(): { zones: string; links: string } {
  const text = readFileSync(require.resolve(ZONE_DATA_FILE), 'utf8');
  const linksAt = text.indexOf('"links"');
  const countriesAt = text.indexOf('"countries"', linksAt);
  return { zones: text.slice(0, linksAt), links: text.slice(linksAt, countriesAt < 0 ? undefined : countriesAt) };
}

function buildIndex(data: { zones: string; links: string }): ZoneIndex {
  const names = new Map<string, string>();
  const links = new Map<string, string>();
  for (const m of data.zones.matchAll(/"([^"|]+)\|/g)) names.set(m[1].toLowerCase(), m[1]);
  for (const m of data.links.matchAll(/"([^"|]+)\|([^"|]+)"/g)) {
    names.set(m[2].toLowerCase(), m[2]);
    links.set(m[2], m[1]);
  }
  return { names, links };
}

/** The moment zone of an IANA name (any case), its data added on first use; null if unknown. */
function zoneData(name: string): Moment.MomentZone | null {
  const tz = momentTz().tz;
  const known = zoneIndex?.names.get(name.toLowerCase());
  const added = known ? tz.zone(known) : null;
  if (added) return added;
  if (zoneIndex && !known) return null;
  const data = zoneDataText();
  zoneIndex ??= buildIndex(data);
  const canonical = zoneIndex.names.get(name.toLowerCase());
  if (!canonical) return null;
  const target = zoneIndex.links.get(canonical) ?? canonical;
  const at = data.zones.indexOf(`"${target}|`);
  if (at < 0) return null;
  tz.add(data.zones.slice(at + 1, data.zones.indexOf('"', at + 1)));
  if (target !== canonical) tz.link(`${target}|${canonical}`);
  return tz.zone(canonical);
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
  const zone = typeof name === 'string' && name !== '' ? zoneData(name) : null;
  if (!zone) throw unknownZone(name);
  // kept under the zone's own name only: names from outside in other cases ("europe/london")
  // find it again through zoneData, and never add a copy each
  let info = zoneCache.get(zone.name);
  if (!info) {
    info = {
      name: zone.name,
      untils: Float64Array.from(zone.untils),
      // moment's offsets are minutes west of UTC, sometimes fractional (LMT)
      offsetMs: Float64Array.from(zone.offsets, (minutes) => -Math.round(minutes * MINUTE_MS)),
    };
    zoneCache.set(zone.name, info);
  }
  return info;
}

/** Every zone name of the zone data (the IANA database, links included), sorted. */
export function timeZoneNames(): string[] {
  zoneIndex ??= buildIndex(zoneDataText());
  return [...zoneIndex.names.values()].sort();
}

/** Throws `Error('unknown time zone "X" (...)')` unless name is an IANA zone. */
export function assertTimeZone(name: string): void {
  zoneInfo(name);
}

/** The names V8's Intl gives as "UTC" (its own canonical form of them). */
const UTC_NAMES = new Set(
  'utc etc/utc gmt etc/gmt gmt0 etc/gmt0 gmt+0 gmt-0 etc/gmt+0 etc/gmt-0 uct etc/uct universal etc/universal zulu etc/zulu greenwich etc/greenwich'.split(
    ' ',
  ),
);

/**
 * The zone of the machine, as the process's own clock takes it: TZ when it is set (a zone
 * name, optionally after ":" or as a path under zoneinfo/; set but unknown is UTC, as the C
 * library takes it), else the zone /etc/localtime links to, else /etc/timezone; only where
 * none of them says (Windows) is Intl asked. Not Intl first: its first use makes Node load
 * ICU's data, ~6 MB of resident memory for as long as Node-RED runs. UTC when unknown.
 */
export function machineTimeZone(): string {
  const tz = process.env.TZ;
  const name =
    tz !== undefined
      ? zoneNameFrom(tz.replace(/^:/, ''))
      : (zoneNameFrom(linkedZone('/etc/localtime')) ?? zoneNameFrom(fileText('/etc/timezone')) ?? zoneNameFrom(intlZone()));
  return name ?? 'UTC';
}

/** `name` (or the part of a path after zoneinfo/) when it is exactly a known zone's name; null otherwise. */
function zoneNameFrom(text: string | undefined): string | null {
  const name = text?.trim().replace(/^.*\/zoneinfo\//, '');
  if (!name) return null;
  if (UTC_NAMES.has(name.toLowerCase())) return 'UTC';
  return zoneData(name)?.name === name ? name : null;
}

function linkedZone(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

function fileText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function intlZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
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
