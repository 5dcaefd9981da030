// The sizes the package accepts from outside, in one place (docs/limits.md). Each is
// far above what a real account has, and low enough that the worst case stays within
// the figures of `npm run bench` (worst case section) and a few MB of memory, except a
// plan's search at MAX_PLAN_WORK (below).

/** Rules one tariff may have; a tariff with more is invalid (left out, with an error). */
export const MAX_RULES_PER_TARIFF = 1000;
/** Tariffs read from one answer; the rest are left out, with one error saying so. */
export const MAX_TARIFFS_PER_ANSWER = 100;
/** Problems reported for one answer: the first ones, then one "… and N more" entry. */
export const MAX_PROBLEMS_PER_ANSWER = 100;
/** Characters of an id (tariff, gateway, sensor) in a tariff; a longer one is an error. */
export const MAX_ID_CHARS = 200;
/** Characters of any value quoted in a message; longer ones are cut, ending in "…". */
export const MAX_QUOTED_CHARS = 40;
/**
 * Sensors named at once: those of one gateway an edit dialog lists (the answer counts the
 * ones left out), and the sensors that are no energy meter a stream node (easy-cost stream
 * mode, easy-peak) warns about one by one (one more warning says the rest are ignored).
 */
export const MAX_SENSORS_LISTED = 1000;
/** Different values of the sensor computeCost splits by (splitBy: a digital input has two). */
export const MAX_SPLIT_VALUES = 256;
/**
 * Steps a plan's minimum-block or switch-off search may take, counted before it starts as
 * an upper bound of what it really does (cells × states × residue classes × moves × planned
 * units, plus each move's and point's set-up in the same steps; a test counts the real
 * steps against it); a plan that needs more is refused with an error saying why. One step
 * costs ~3–7 ns here (2 cores, loaded), so the worst accepted plan stays well within 100 ms
 * (`npm run bench`: "worst accepted"). Its table holds about half a number per counted
 * step: the worst accepted plan holds ~30 MB of typed arrays while it runs (docs/limits.md).
 */
export const MAX_PLAN_WORK = 8_000_000;
/**
 * Price changes a plan's window may hold (cheapestWindows, dearestWindows,
 * savingOffWindows): a year of quarter-hour prices is 35,040; a window with more is
 * refused as the tariff is walked, before anything is built.
 */
export const MAX_PLAN_SEGMENTS = 50_000;
/** Local days easy-cost's range mode splits one range into (msg.split = "day"): a year and a day. */
export const MAX_SPLIT_DAYS = 366;
/**
 * Points of one line of a schedule chart (easy-tariff's second output): a week of
 * quarter-hour prices is 1,344; a schedule with more changes is cut, marked `truncated`.
 */
export const MAX_CHART_POINTS = 2000;
/**
 * How far ahead of this machine's clock a reading's own timestamp may be and still count
 * (a gateway's clock a little fast, minute-stamped readings): beyond this it is a clock that
 * lies, and the reading is refused with an error instead of moving live totals or windows
 * into the future (docs/semantics.md, "Readings from the future").
 */
export const MAX_CLOCK_AHEAD_MS = 10 * 60 * 1000;
/**
 * How far ahead of this machine's clock what a node stored (its context) may lie and still be
 * kept: state stored under a later clock and read back while this one is behind (a Pi without
 * a real-time clock boots at the last time it saved, hours or days behind, until NTP steps it).
 * Further ahead (a year, 366 days, so any calendar year fits) it is tampering or a broken
 * clock, and dropped (docs/semantics.md, "Stored state").
 */
export const MAX_STORED_AHEAD_MS = 366 * 24 * 60 * 60 * 1000;
/**
 * Demand windows one demandWindows call makes, and monthlyPeaks reads: 100,000 is 2.8
 * years of 15-minute windows, 11 of hourly ones (~10 MB of window objects); a range
 * holding more is refused with an error naming it, before any window is made.
 */
export const MAX_DEMAND_WINDOWS = 100_000;
/**
 * The longest stored line of one meter a stream node reads back (easy-cost stream mode:
 * 128 readings with their intervals' costs take under 25 kB; easy-peak: a few hundred
 * characters), the rest room for long meter names. A longer line was not written by the
 * node (a forged or damaged store): it is dropped unparsed, so a huge one costs nothing.
 */
export const MAX_STORED_LINE_CHARS = 256 * 1024;
/**
 * The average power (kW) above which a rise between two readings of one meter is a jump, not
 * usage (semantics rule 10): 10 MW is above any low-voltage connection with a wide margin
 * (a 400 V 3 × 630 A supply is ~440 kW), while a register-sized spike (ten times a 12,345 kWh
 * register) is above it for any interval under 11 hours. Infinity switches jumps off.
 */
export const DEFAULT_MAX_POWER_KW = 10_000;
/** Meters one stream node (easy-cost stream mode, easy-peak) keeps: more is a wiring mistake (an unfiltered gateway), not a site. */
export const MAX_METERS = 128;
/**
 * Prices one message may carry (a price list: power-saver, Tibber, Nord Pool or a plain
 * list): two days of quarter hours are 192, 62 days 5,952; a longer list is refused with
 * an error saying so, before any entry is read.
 */
export const MAX_PRICE_ENTRIES = 10_000;
/**
 * Entries one price list of the engine may hold (priceList, the list of a price stack): a
 * kept history fits (62 days of 5-minute prices are 17,856), a year of quarter hours not.
 */
export const MAX_PRICE_LIST_ENTRIES = 20_000;
