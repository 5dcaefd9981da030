// Demo account of the simulator: tariffs and the sensors of gateway DEMO.
// Every sensor value is a pure function of the instant (and, for the sun, of the demo's
// zone), so the live value, the archive for any range and a test's expectation all agree
// without any state.
import { localDayNumber, toLocalMs, zoneInfo } from '../nodes/lib/engine/time/time';

export const DEMO_GATEWAY = 'DEMO';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Archive points are one per minute, as the gateways sample their meters every minute. */
export const SAMPLE_MS = MINUTE;

// ---------------------------------------------------------------------------------------
// Tariffs

/** Samples printed in the public docs (docs.rayleighconnect.net/api/easy/tariffs), comments removed. */
export const DOCS_TARIFFS = [
  {
    id: 'Q123456789',
    name: 'Example Tariff',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 50, price: 0.45, time_start: '07:00', time_end: '19:00' },
      { priority: 100, price: 0.3 },
    ],
  },
  {
    id: 'Q123456799',
    name: 'Other Tariff',
    vat: 8.5,
    currency: 'EUR',
    rules: [
      { priority: 50, price: 0.45, time_start: '07:00', time_end: '19:00', weekday: [6, 7] },
      { priority: 100, price: 0.3 },
    ],
  },
];

export const DEMO_TARIFFS = [
  {
    // The interface's example: P1 in working hours, P2 on weekdays outside them, P3 otherwise.
    id: 'DEMO-WORKDAY',
    name: 'Working hours (50/60/70)',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 50, price: 0.42, time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] },
      { priority: 60, price: 0.31, weekdays: [1, 2, 3, 4, 5] },
      { priority: 70, price: 0.24 },
    ],
  },
  {
    // Cheap night wrapping midnight; the end uses the HH:mm:SS form on purpose.
    id: 'DEMO-NIGHT',
    name: 'Night and day',
    vat: 5,
    currency: 'GBP',
    rules: [
      { priority: 10, price: 0.12, time_start: '22:00', time_end: '06:00:00' },
      { priority: 20, price: 0.28 },
    ],
  },
  {
    // Uses the `weekday` spelling of one docs sample rather than `weekdays`.
    id: 'DEMO-WEEKEND',
    name: 'Weekend saver',
    vat: 19,
    currency: 'EUR',
    rules: [
      { priority: 10, price: 0.15, weekday: [6, 7] },
      { priority: 20, price: 0.25 },
    ],
  },
  {
    // Generator running (digital input "1" of DEMO is 1) costs more; see generatorOn().
    id: 'DEMO-GENERATOR',
    name: 'Grid or generator',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 10, price: 0.55, gateway_id: DEMO_GATEWAY, sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' },
      { priority: 20, price: 0.22 },
    ],
  },
  {
    id: 'DEMO-FLAT',
    name: 'Flat rate',
    vat: 20,
    currency: 'GBP',
    rules: [{ priority: 1, price: 0.25 }],
  },
];

/** The tariffs response of the demo account: fresh copies, so a fault can mangle them freely. */
export function demoTariffs(): Array<Record<string, unknown>> {
  return JSON.parse(JSON.stringify([...DEMO_TARIFFS, ...DOCS_TARIFFS]));
}

// ---------------------------------------------------------------------------------------
// Generator: digital input "1" of DEMO

/** The generator runs for the first 5 minutes of every quarter hour (UTC, so in every zone). */
export const GENERATOR_PERIOD_MS = 15 * MINUTE;
export const GENERATOR_ON_MS = 5 * MINUTE;

export function generatorOn(at: number): boolean {
  return mod(at, GENERATOR_PERIOD_MS) < GENERATOR_ON_MS;
}

/** The first instant after `at` where input "1" changes, and its value from then on. */
export function nextGeneratorChange(at: number): { at: number; value: 0 | 1 } {
  const periodStart = at - mod(at, GENERATOR_PERIOD_MS);
  if (generatorOn(at)) return { at: periodStart + GENERATOR_ON_MS, value: 0 };
  return { at: periodStart + GENERATOR_PERIOD_MS, value: 1 };
}

// ---------------------------------------------------------------------------------------
// Energy: e1.kwh

/** The meter starts counting here; there is no archive before it. */
export const METER_START = Date.UTC(2020, 0, 1);
const METER_START_KWH = 1000;
/** Load profile in kW: BASE_KW - SWING_KW * cos(...), lowest 0.5 kW at 02:00 UTC, highest 3.5 kW at 14:00 UTC. */
const BASE_KW = 2;
const SWING_KW = 1.5;
const LOWEST_HOUR_UTC = 2;
const OMEGA = (2 * Math.PI) / DAY;

export function powerKw(at: number): number {
  return BASE_KW - SWING_KW * Math.cos(OMEGA * (at - LOWEST_HOUR_UTC * HOUR));
}

/** Cumulative energy in kWh: the exact integral of powerKw() since METER_START (full precision). */
export function energyKwh(at: number): number {
  const phase = (t: number) => Math.sin(OMEGA * (t - LOWEST_HOUR_UTC * HOUR));
  const hours = (at - METER_START) / HOUR;
  return METER_START_KWH + BASE_KW * hours - (SWING_KW / (OMEGA * HOUR)) * (phase(at) - phase(METER_START));
}

// ---------------------------------------------------------------------------------------
// Energy: e2.kwh, a workshop whose compressor sometimes sets a peak (easy-peak's demo)

/** The workshop's steady load, kW. */
const WORKSHOP_BASE_KW = 1;
const WORKSHOP_START_KWH = 500;
/** A compressor run starts every 3 hours, at 01:30, 04:30, … 22:30 UTC (a half hour of every zone in use). */
export const PEAK_EVERY_MS = 3 * HOUR;
export const PEAK_OFFSET_MS = 90 * MINUTE;
/** Each run: power rises from 0 to its peak over 10 minutes, holds until minute 25, then stops. */
export const PEAK_RAMP_MS = 10 * MINUTE;
export const PEAK_STOP_MS = 25 * MINUTE;
/** The runs' peak kW in turn: 13 of them (then again), so the pattern shifts from day to day. */
export const PEAK_KW = [4, 2.5, 6, 3, 5, 2, 7, 3.5, 4.5, 2, 6.5, 3, 5.5];
const PEAK_SUM_KW = PEAK_KW.reduce((sum, kw) => sum + kw, 0);
/** Energy of a whole run per kW of its peak, in kWh: the ramp's triangle and the hold. */
const RUN_KWH_PER_KW = (PEAK_RAMP_MS / 2 + (PEAK_STOP_MS - PEAK_RAMP_MS)) / HOUR;

/** The run in progress or last begun at `at`: its index since METER_START and minutes into it. */
function compressorRun(at: number): { index: number; intoMs: number } {
  const since = at - METER_START - PEAK_OFFSET_MS;
  const index = Math.floor(since / PEAK_EVERY_MS);
  return { index, intoMs: since - index * PEAK_EVERY_MS };
}

const peakOfRun = (index: number): number => PEAK_KW[mod(index, PEAK_KW.length)];

/** The workshop's power in kW: the steady load plus the compressor while it runs. */
export function workshopPowerKw(at: number): number {
  const { index, intoMs } = compressorRun(at);
  const peak = peakOfRun(index);
  const compressor = intoMs < PEAK_RAMP_MS ? (peak * intoMs) / PEAK_RAMP_MS : intoMs < PEAK_STOP_MS ? peak : 0;
  return WORKSHOP_BASE_KW + compressor;
}

/** Cumulative workshop energy in kWh: the exact integral of workshopPowerKw() since METER_START. */
export function workshopEnergyKwh(at: number): number {
  const { index, intoMs } = compressorRun(at);
  let runs = 0; // kW-weighted whole runs before this one
  if (index > 0) {
    runs = Math.floor(index / PEAK_KW.length) * PEAK_SUM_KW;
    for (let k = 0; k < index % PEAK_KW.length; k++) runs += PEAK_KW[k];
  }
  const peak = index >= 0 ? peakOfRun(index) : 0;
  const into = Math.min(intoMs, PEAK_STOP_MS);
  const current =
    into < PEAK_RAMP_MS ? (peak * into * into) / (2 * PEAK_RAMP_MS) / HOUR : (peak * (PEAK_RAMP_MS / 2 + into - PEAK_RAMP_MS)) / HOUR;
  return WORKSHOP_START_KWH + (WORKSHOP_BASE_KW * (at - METER_START)) / HOUR + runs * RUN_KWH_PER_KW + current;
}

// ---------------------------------------------------------------------------------------
// Energy: e3.kwh, the solar export register (the demo's import, export and net per day)

/** The export's power at local noon, kW: a sine from sunrise to sunset by the zone's wall clock. */
export const SOLAR_PEAK_KW = 4;
export const SUNRISE_HOUR = 6;
export const SUNSET_HOUR = 18;
const SOLAR_START_KWH = 200;
const SUN_HOURS = SUNSET_HOUR - SUNRISE_HOUR;
/** kWh exported by the sun's part of a local day up to local hour h (the sine's integral). */
const solarSoFar = (h: number): number =>
  ((SOLAR_PEAK_KW * SUN_HOURS) / Math.PI) *
  (1 - Math.cos((Math.PI * (Math.min(Math.max(h, SUNRISE_HOUR), SUNSET_HOUR) - SUNRISE_HOUR)) / SUN_HOURS));
/** A whole day's export: every local day the same (no zone changes its clock between 06:00 and 18:00). */
export const SOLAR_DAY_KWH = solarSoFar(SUNSET_HOUR);

const localHour = (zone: ReturnType<typeof zoneInfo>, at: number): number => mod(toLocalMs(zone, at), DAY) / HOUR;

/** The export's power in kW at `at`: 0 at night, the sine by the local hour of `timezone` in the day. */
export function solarKw(at: number, timezone: string): number {
  const h = localHour(zoneInfo(timezone), at);
  return h <= SUNRISE_HOUR || h >= SUNSET_HOUR ? 0 : SOLAR_PEAK_KW * Math.sin((Math.PI * (h - SUNRISE_HOUR)) / SUN_HOURS);
}

/** Cumulative export in kWh: whole local days since METER_START's and the sun so far today, exact (no sum over days). */
export function solarExportKwh(at: number, timezone: string): number {
  const zone = zoneInfo(timezone);
  const days = localDayNumber(zone, at) - localDayNumber(zone, METER_START);
  // whole days and today's share as one number: 18:00's share is exactly 1, so the night never steps back by a rounding
  const share = (h: number) => solarSoFar(h) / SOLAR_DAY_KWH;
  return SOLAR_START_KWH + (days + share(localHour(zone, at)) - share(localHour(zone, METER_START))) * SOLAR_DAY_KWH;
}

// ---------------------------------------------------------------------------------------
// Sensors of DEMO

export interface DemoSensor {
  id: string;
  name: string;
  unit: string | null;
  /** Seconds between samples; the reported timestamp is the instant floored to it. */
  interval: number;
  /** The value the gateway sampled at `at` (already rounded as the gateway reports it). */
  valueAt(at: number): number;
}

/** A slow, smooth wiggle between -1 and 1 with the given period, so values visibly move. */
function wave(at: number, periodMs: number, phase = 0): number {
  return Math.sin((2 * Math.PI * at) / periodMs + phase);
}

const PHASES = [1, 2, 3];
const NOMINAL_VOLTS = 230;

function powerFactor(at: number): number {
  return 0.93 + 0.04 * wave(at, 37 * MINUTE);
}

const ZONE_FREE_SENSORS: DemoSensor[] = [
  { id: 'e1.kwh', name: 'Main Incomer kWh', unit: 'kWh', interval: 60, valueAt: (at) => round(energyKwh(at), 2) },
  ...PHASES.map((phase) => ({
    id: `e1.v3p@${phase}`,
    name: `Main Incomer Voltage L${phase}`,
    unit: 'V',
    interval: 60,
    valueAt: (at: number) => round(NOMINAL_VOLTS + 4 * wave(at, 11 * MINUTE, phase), 1),
  })),
  ...PHASES.map((phase) => ({
    id: `e1.i3p@${phase}`,
    name: `Main Incomer Current L${phase}`,
    unit: 'A',
    interval: 60,
    // The load spread over three phases, with a small imbalance per phase.
    valueAt: (at: number) =>
      round(((powerKw(at) * 1000) / (3 * NOMINAL_VOLTS * powerFactor(at))) * (1 + 0.05 * wave(at, 7 * MINUTE, phase)), 2),
  })),
  { id: 'e1.freq', name: 'Main Incomer Frequency', unit: 'Hz', interval: 60, valueAt: (at) => round(50 + 0.08 * wave(at, 5 * MINUTE), 2) },
  { id: 'e1.pf', name: 'Main Incomer Power Factor', unit: null, interval: 60, valueAt: (at) => round(powerFactor(at), 3) },
  // Watt-hours, so that the power between two minute readings is known to 0.06 kW
  { id: 'e2.kwh', name: 'Workshop kWh', unit: 'kWh', interval: 60, valueAt: (at) => round(workshopEnergyKwh(at), 3) },
  { id: '1', name: 'Generator running', unit: null, interval: 60, valueAt: (at) => (generatorOn(at) ? 1 : 0) },
  // Door contact: closed (1) in even UTC hours.
  { id: '2', name: 'Plant room door', unit: null, interval: 60, valueAt: (at) => (Math.floor(at / HOUR) % 2 === 0 ? 1 : 0) },
  // Relay 17 switches the generator changeover, so it follows input "1".
  { id: '17', name: 'Generator changeover relay', unit: null, interval: 60, valueAt: (at) => (generatorOn(at) ? 1 : 0) },
  // Relay 18 (water heater) is on in the second half of every hour.
  { id: '18', name: 'Water heater relay', unit: null, interval: 60, valueAt: (at) => (mod(at, HOUR) >= HOUR / 2 ? 1 : 0) },
  {
    id: '129',
    name: 'Plant room temperature',
    unit: '°C',
    interval: 60,
    valueAt: (at) => round(21 + 3 * wave(at, DAY) + 0.5 * wave(at, 13 * MINUTE), 1),
  },
  { id: '130', name: 'Tank level', unit: '%', interval: 60, valueAt: (at) => round(55 + 40 * wave(at, 6 * HOUR), 1) },
  { id: '158', name: 'GSM signal', unit: 'dBm', interval: 300, valueAt: (at) => Math.round(-75 + 8 * wave(at, 47 * MINUTE)) },
];

const byZone = new Map<string, DemoSensor[]>();

/** The sensors of DEMO for the demo's zone (the sun rises by its wall clock): the list above and the export register. */
export function demoSensors(timezone = 'UTC'): DemoSensor[] {
  let sensors = byZone.get(timezone);
  if (!sensors) {
    zoneInfo(timezone); // an unknown zone is an error here, not at the first read
    const solar: DemoSensor = {
      id: 'e3.kwh',
      name: 'Solar export kWh',
      unit: 'kWh',
      interval: 60,
      valueAt: (at) => round(solarExportKwh(at, timezone), 3),
    };
    byZone.set(timezone, (sensors = [...ZONE_FREE_SENSORS, solar]));
  }
  return sensors;
}

/** DEMO's sensors in UTC (the simulator's default zone). */
export const DEMO_SENSORS: DemoSensor[] = demoSensors('UTC');

export function findDemoSensor(id: string, timezone = 'UTC'): DemoSensor | undefined {
  return demoSensors(timezone).find((sensor) => sensor.id === id);
}

/** The instant of the last sample at or before `at`. */
export function sampleTime(sensor: DemoSensor, at: number): number {
  return at - mod(at, sensor.interval * 1000);
}

/** A sensor as the gateway endpoint reports it at `now`. */
export function sensorReading(sensor: DemoSensor, now: number) {
  const at = sampleTime(sensor, now);
  return {
    id: sensor.id,
    name: sensor.name,
    timestamp: formatMinuteUtc(at),
    value: sensor.valueAt(at),
    unit: sensor.unit,
    interval: sensor.interval,
  };
}

// ---------------------------------------------------------------------------------------
// Archive

/** Most points one archive response carries; a longer range gets a coarser step. */
export const MAX_ARCHIVE_POINTS = 5000;
/** Steps the archive may use, smallest first; each divides a day so points stay on round instants. */
const ARCHIVE_STEPS_MIN = [1, 5, 15, 30, 60, 120, 360, 720, 1440];

/** The step the archive uses for [from, to]: one minute if it fits MAX_ARCHIVE_POINTS, else coarser. */
export function archiveStepMs(from: number, to: number): number {
  const minutes = Math.max(0, to - from) / MINUTE;
  const needed = minutes / (MAX_ARCHIVE_POINTS - 1);
  const step = ARCHIVE_STEPS_MIN.find((candidate) => candidate >= needed);
  // Beyond the list (more than ~13 years), whole days.
  return (step ?? Math.ceil(needed / 1440) * 1440) * MINUTE;
}

/** Archive rows for [from, to] (both inclusive), on multiples of the step, none before METER_START. */
export function archive(sensor: DemoSensor, from: number, to: number): Array<[string, number]> {
  const step = Math.max(archiveStepMs(from, to), sensor.interval * 1000);
  const rows: Array<[string, number]> = [];
  const first = Math.max(from, METER_START);
  for (let at = first + mod(-first, step); at <= to; at += step) {
    rows.push([new Date(at).toISOString().slice(0, 19), sensor.valueAt(at)]);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------

/** `YYYY-MM-DDThh:mmZ`, the sensor timestamp shape of the interface. */
export function formatMinuteUtc(at: number): string {
  return new Date(at).toISOString().slice(0, 16) + 'Z';
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
