// semantics rule 6: every DST transition 2020-2030 in zones with unusual rules (30-minute
// shift, 02:45 changes, midnight changes), taken from moment-timezone's zone data
// rather than a hand-made list.
import should from 'should';
import moment from 'moment-timezone';
import { priceAt, nextPriceChange, schedule } from '../../nodes/lib/engine/prices/price-source';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { slowRuleIndex } from './engine-fixtures';

const MINUTE = 60000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface Transition {
  at: number; // UTC instant of the change
  before: number; // offset in ms before it (local = utc + offset)
  after: number;
}

function transitions(zone: string, fromYear: number, toYear: number): Transition[] {
  const z = moment.tz.zone(zone)!;
  const out: Transition[] = [];
  for (let i = 0; i + 1 < z.untils.length; i++) {
    const at = z.untils[i];
    if (at < Date.UTC(fromYear, 0, 1) || at >= Date.UTC(toYear + 1, 0, 1)) continue;
    const before = -z.offsets[i] * MINUTE;
    const after = -z.offsets[i + 1] * MINUTE;
    if (before !== after) out.push({ at, before, after });
  }
  return out;
}

/** `HH:mm` of a local "epoch ms". */
const hhmm = (localMs: number) => new Date(localMs).toISOString().slice(11, 16);

/** A tariff with one local range (rule 0, price 1) over a fallback (rule 1, price 2). */
const rangeTariff = (startLocal: number, endLocal: number): Tariff => ({
  id: 'DST',
  name: 'dst',
  vat: 0,
  currency: 'EUR',
  rules: [
    { priority: 1, price: 1, time_start: hhmm(startLocal), time_end: hhmm(endLocal) },
    { priority: 2, price: 2 },
  ],
});

// The ranges lie within 2 hours of the transition, their other days 20 hours away or more.
const WINDOW = 3 * HOUR;

const entriesOf = (t: Tariff, zone: string, around: number) =>
  schedule(t, around - WINDOW, around + WINDOW, { timezone: zone }).map((e) => [e.from, e.to, e.ruleIndex]);

/** Every schedule boundary agrees with the oracle a millisecond either side. */
function agreesWithOracle(t: Tariff, zone: string, around: number) {
  for (const e of schedule(t, around - WINDOW, around + WINDOW, { timezone: zone })) {
    should(slowRuleIndex(t, e.from, zone)).equal(e.ruleIndex);
    should(slowRuleIndex(t, e.to - 1, zone)).equal(e.ruleIndex);
  }
}

/** Checks one transition; returns which kind it was. */
function checkTransition(zone: string, { at, before, after }: Transition): 'gap' | 'overlap' {
  const shift = Math.abs(after - before);
  const tz = { timezone: zone };
  if (after > before) {
    // Spring forward: local [at + before, at + after) never happens.
    const gapStart = at + before;
    const inside = rangeTariff(gapStart + shift / 3, gapStart + (2 * shift) / 3);
    should(entriesOf(inside, zone, at)).eql([[at - WINDOW, at + WINDOW, 1]]); // never matches
    for (let t = at - 2 * HOUR; t < at + 2 * HOUR; t += MINUTE) should(priceAt(inside, t, tz)!.ruleIndex).equal(1);
    should(nextPriceChange(inside, at - 3 * HOUR, { ...tz, horizonMs: 6 * HOUR })).be.null();
    // A range that starts in the gap and ends after it begins at the jump itself.
    const across = rangeTariff(gapStart + shift / 3, gapStart + shift + 30 * MINUTE);
    const end = gapStart + shift + 30 * MINUTE - after;
    should(entriesOf(across, zone, at)).eql([
      [at - WINDOW, at, 1],
      [at, end, 0],
      [end, at + WINDOW, 1],
    ]);
    should(nextPriceChange(across, at - 3 * HOUR, tz)).match({ at, price: { ruleIndex: 0 } });
    should(nextPriceChange(across, at, tz)).match({ at: end, price: { ruleIndex: 1 } });
    agreesWithOracle(across, zone, at);
    return 'gap';
  }
  // Fall back: local [at + after, at + before) happens twice.
  const repeatStart = at + after;
  const inside = rangeTariff(repeatStart + shift / 3, repeatStart + (2 * shift) / 3);
  const first = repeatStart + shift / 3 - before;
  const second = repeatStart + shift / 3 - after;
  const length = shift / 3;
  should(second - first).equal(shift);
  should(entriesOf(inside, zone, at)).eql([
    [at - WINDOW, first, 1],
    [first, first + length, 0],
    [first + length, second, 1],
    [second, second + length, 0],
    [second + length, at + WINDOW, 1],
  ]);
  should(nextPriceChange(inside, at - 3 * HOUR, tz)!.at).equal(first);
  should(nextPriceChange(inside, first, tz)!.at).equal(first + length);
  should(nextPriceChange(inside, first + length, tz)!.at).equal(second);
  agreesWithOracle(inside, zone, at);
  // A range that starts in the repeated hour and ends after it: left at the jump back, entered again.
  const across = rangeTariff(repeatStart + shift / 3, repeatStart + shift + 30 * MINUTE);
  const end = repeatStart + shift + 30 * MINUTE - after;
  should(entriesOf(across, zone, at)).eql([
    [at - WINDOW, first, 1],
    [first, at, 0],
    [at, second, 1],
    [second, end, 0],
    [end, at + WINDOW, 1],
  ]);
  agreesWithOracle(across, zone, at);
  return 'overlap';
}

describe('DST (semantics rule 6), every transition from the zone data', () => {
  const cases: Array<[string, number, number, number, number]> = [
    // zone, first year, last year, gaps and repeats expected
    ['Europe/London', 2020, 2030, 11, 11],
    ['America/New_York', 2020, 2030, 11, 11],
    ['Australia/Lord_Howe', 2020, 2030, 11, 11], // 30-minute shift
    ['Pacific/Chatham', 2020, 2030, 11, 11], // changes at 02:45
    ['America/St_Johns', 2020, 2030, 11, 11],
    ['America/Sao_Paulo', 2018, 2019, 1, 2], // DST at midnight, abolished in 2019
    ['America/Sao_Paulo', 2020, 2030, 0, 0],
  ];
  for (const [zone, from, to, gaps, repeats] of cases) {
    it(`${zone} ${from}-${to}: ${gaps} gaps never match, ${repeats} repeated hours match twice`, () => {
      const kinds = transitions(zone, from, to).map((t) => checkTransition(zone, t));
      should(kinds.filter((k) => k === 'gap')).have.length(gaps);
      should(kinds.filter((k) => k === 'overlap')).have.length(repeats);
    });
  }

  it('Sao Paulo changed at local midnight: the weekday changes where the wall clock says', () => {
    const sundays: Tariff = {
      id: 'S',
      name: 's',
      vat: 0,
      currency: 'BRL',
      rules: [
        { priority: 1, price: 1, weekdays: [7] },
        { priority: 2, price: 2 },
      ],
    };
    const tz = { timezone: 'America/Sao_Paulo' };
    // 2018-11-04: Saturday 23:59:59.999 -03:00 is followed by Sunday 01:00 -02:00
    const springAt = Date.UTC(2018, 10, 4, 3);
    should(priceAt(sundays, springAt - 1, tz)!.ruleIndex).equal(1);
    should(priceAt(sundays, springAt, tz)!.ruleIndex).equal(0);
    should(nextPriceChange(sundays, springAt - HOUR, tz)).match({ at: springAt, price: { ruleIndex: 0 } });
    // 2019-02-17: Saturday 23:59:59.999 -02:00 is followed by Saturday 23:00 -03:00 again;
    // Sunday begins an hour later, once
    const fallAt = Date.UTC(2019, 1, 17, 2);
    should(nextPriceChange(sundays, fallAt - 2 * HOUR, tz)).match({ at: fallAt + HOUR, price: { ruleIndex: 0 } });
    should(schedule(sundays, fallAt - HOUR, fallAt + 2 * HOUR, tz).map((e) => [e.from, e.ruleIndex])).eql([
      [fallAt - HOUR, 1],
      [fallAt + HOUR, 0],
    ]);
  });

  it('a zone without DST (Asia/Kolkata, +05:30): 09:00-17:00 lands at 03:30-11:30 UTC every day for a year', () => {
    should(transitions('Asia/Kolkata', 2020, 2030)).have.length(0);
    const t = rangeTariff(9 * HOUR, 17 * HOUR);
    const from = Date.UTC(2024, 0, 1);
    const entries = schedule(t, from, from + 366 * DAY, { timezone: 'Asia/Kolkata' }).filter((e) => e.ruleIndex === 0);
    should(entries).have.length(366);
    entries.forEach((e, d) => should([e.from, e.to]).eql([from + d * DAY + 3.5 * HOUR, from + d * DAY + 11.5 * HOUR]));
  });
});
