import should from 'should';
import fc from 'fast-check';
import {
  civilFromDays,
  daysFromCivil,
  localDate,
  localDayStart,
  localPeriod,
  LOCAL_PERIOD_KINDS,
  LocalPeriodKind,
  namedPeriod,
  PERIOD_NAMES,
  zoneInfo,
  DAY_MS,
  HOUR_MS,
} from '../../nodes/lib/engine/time/time';
import * as lib from '../../nodes/lib';
import { FC, withProcessTz } from './engine-fixtures';
import { iso, judgePeriod, MIDNIGHT_CASES, Verdict } from './local-period-reference';

const FROM_1970 = Date.UTC(1970, 0, 1);
const UNTIL_2038 = Date.UTC(2038, 0, 1);

/** Every canonical zone of the tz database (moment-timezone's data, links left out). */
function canonicalZones(): string[] {
  const packed = require('moment-timezone/data/packed/latest.json') as { zones: string[] };
  return packed.zones.map((z) => z.split('|')[0]).sort();
}

/** Instants 1970-2037: uniform, or within 36 h of one of the zone's transitions (where periods go wrong). */
function instantIn(zone: string): fc.Arbitrary<number> {
  const uniform = fc.integer({ min: FROM_1970, max: UNTIL_2038 - 1 });
  const changes = Array.from(zoneInfo(zone).untils).filter((u) => u >= FROM_1970 && u < UNTIL_2038);
  if (changes.length === 0) return uniform;
  const near = fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -36 * HOUR_MS, max: 36 * HOUR_MS })).map(([u, d]) => u + d);
  return fc.oneof({ arbitrary: uniform, weight: 1 }, { arbitrary: near, weight: 2 });
}

function intlKnows(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

describe('time: localPeriod against an Intl reference in every canonical zone (fast-check, fixed seed)', function () {
  this.timeout(120_000);
  const RUNS_PER_ZONE = 24;
  const zones = canonicalZones();
  const disagreeing = new Map<string, number>();
  const unknownToIntl: string[] = [];
  let judged = 0;
  let takenBack = 0;

  it(`${RUNS_PER_ZONE} instants per zone and kind of period, 1970-2037: contains the instant, one local date inside, another at the edges`, () => {
    should(zones.length).be.above(300);
    for (const zone of zones) {
      // a zone newer than this Node's ICU (America/Coyhaique on Node 18) has no reference
      if (!intlKnows(zone)) {
        unknownToIntl.push(zone);
        continue;
      }
      fc.assert(
        fc.property(instantIn(zone), fc.constantFrom(...LOCAL_PERIOD_KINDS), (at, kind) => {
          const verdict: Verdict = judgePeriod(zone, kind, at, localPeriod(kind, at, { timezone: zone }));
          if (verdict.kind === 'disagree') {
            disagreeing.set(zone, (disagreeing.get(zone) ?? 0) + 1);
            return;
          }
          if (verdict.kind === 'wrong') throw new Error(`${zone} ${kind} of ${iso(at)}: ${verdict.why}`);
          judged++;
          takenBack += verdict.takenBack;
        }),
        { seed: FC.seed, numRuns: RUNS_PER_ZONE * LOCAL_PERIOD_KINDS.length },
      );
    }
    // Most cases are judged: the two databases agree nearly everywhere.
    should(judged).be.above(zones.length * RUNS_PER_ZONE * LOCAL_PERIOD_KINDS.length * 0.9);
  });

  after(() => {
    const list = [...disagreeing].map(([z, n]) => `${z} (${n})`).join(', ');
    console.log(
      `      localPeriod: ${judged} cases judged in ${zones.length} zones; instants taken back by a clock set back across midnight: ${takenBack}; ` +
        `cases where ICU ${process.versions.tz} and moment-timezone disagree, not judged: ${list || 'none'}` +
        `; zones ICU does not know: ${unknownToIntl.join(', ') || 'none'}`,
    );
  });
});

describe('time: local periods where the clock changes at or near midnight', () => {
  for (const c of MIDNIGHT_CASES) {
    it(`${c.zone} ${c.at}: ${c.note}`, () => {
      for (const kind of LOCAL_PERIOD_KINDS) {
        const period = localPeriod(kind, c.at, { timezone: c.zone });
        const verdict = judgePeriod(c.zone, kind, Date.parse(c.at), period);
        should(verdict.kind).equal('ok', `${kind}: ${JSON.stringify(verdict)}`);
      }
      if (c.day) {
        const day = localPeriod('day', c.at, { timezone: c.zone });
        should([iso(day.from), iso(day.to)]).eql(c.day.map((s) => iso(Date.parse(s))));
      }
    });
  }

  it('consecutive days tile time: each ends where the next starts, through every change of 1970-2037 in those zones', () => {
    for (const zone of new Set(MIDNIGHT_CASES.map((c) => c.zone))) {
      let day = localPeriod('day', FROM_1970, { timezone: zone });
      while (day.from < UNTIL_2038) {
        const next = localPeriod('day', day.to, { timezone: zone });
        should(next.from).equal(day.to, `${zone} after ${iso(day.from)}`);
        should(day.to - day.from).be.within(HOUR_MS, 26 * HOUR_MS);
        day = next;
      }
    }
  });

  it("a day the clock skipped (Samoa's 2011-12-30) has no period: the day before ends where the one after starts", () => {
    const zone = 'Pacific/Apia';
    const dec31 = localPeriod('day', '2011-12-31T12:00+14:00', { timezone: zone });
    should(localDate(dec31.from, { timezone: zone })).equal('2011-12-31');
    should(namedPeriod('yesterday', dec31.from, { timezone: zone })).eql(localPeriod('day', '2011-12-29T12:00-10:00', { timezone: zone }));
    should(localPeriod('day', dec31.from - 1, { timezone: zone }).to).equal(dec31.from);
  });
});

describe('time: namedPeriod', () => {
  const zone = 'Atlantic/Azores';
  const now = '2024-04-01T12:00Z';

  it('gives every named period relative to now, the "last" ones ending where the current ones start', () => {
    const expect: Record<string, [string, string]> = {
      today: ['2024-04-01T00:00Z', '2024-04-02T00:00Z'],
      yesterday: ['2024-03-31T01:00Z', '2024-04-01T00:00Z'], // not overlapping today: the day started at 01:00
      'this-week': ['2024-04-01T00:00Z', '2024-04-08T00:00Z'],
      'last-week': ['2024-03-25T01:00Z', '2024-04-01T00:00Z'],
      'this-month': ['2024-04-01T00:00Z', '2024-05-01T00:00Z'],
      'last-month': ['2024-03-01T01:00Z', '2024-04-01T00:00Z'],
      'this-year': ['2024-01-01T01:00Z', '2025-01-01T01:00Z'],
      'last-year': ['2023-01-01T01:00Z', '2024-01-01T01:00Z'],
    };
    should([...PERIOD_NAMES].sort()).eql(Object.keys(expect).sort());
    for (const name of PERIOD_NAMES) {
      const p = namedPeriod(name, now, { timezone: zone });
      should([iso(p.from), iso(p.to)]).eql(
        expect[name].map((s) => iso(Date.parse(s))),
        name,
      );
    }
  });

  it('is the same whatever the process TZ, and exported in the package main', () => {
    const answers = () => PERIOD_NAMES.map((n) => lib.namedPeriod(n, now, { timezone: zone }));
    const reference = answers();
    for (const tz of ['Pacific/Chatham', 'America/St_Johns', 'Asia/Kolkata']) should(withProcessTz(tz, answers)).eql(reference);
    should(lib.localPeriod('day', now, { timezone: zone })).eql(reference[0]);
    should(lib.PERIOD_NAMES).equal(PERIOD_NAMES);
  });

  it('names the valid periods for any other name, "constructor" and "__proto__" included', () => {
    for (const bad of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'Today', '', 7, null, undefined]) {
      should(() => namedPeriod(bad as never, now, { timezone: zone })).throw(
        /must be one of today, yesterday, this-week, last-week, this-month, last-month, this-year, last-year/,
      );
    }
  });
});

describe('time: localPeriod arguments and calendar arithmetic', () => {
  it('takes epoch ms, Dates and ISO strings and needs a zone', () => {
    const at = Date.parse('2024-06-15T12:00Z');
    const expected = { from: Date.parse('2024-06-14T23:00Z'), to: Date.parse('2024-06-15T23:00Z') };
    should(localPeriod('day', at, { timezone: 'Europe/London' })).eql(expected);
    should(localPeriod('day', new Date(at), { timezone: 'Europe/London' })).eql(expected);
    should(localPeriod('day', '2024-06-15T12:00Z', { timezone: 'Europe/London' })).eql(expected);
    should(() => localPeriod('day', at, {} as never)).throw(/options.timezone is required/);
    should(() => localPeriod('day', at, undefined as never)).throw(/options must be an object with a timezone/);
    should(() => localPeriod('day', at, { timezone: 'Mars/Olympus' })).throw(/unknown time zone "Mars\/Olympus"/);
    should(() => localPeriod('fortnight' as LocalPeriodKind, at, { timezone: 'UTC' })).throw(/kind must be one of day, week, month, year/);
    should(() => localPeriod('day', 'soon', { timezone: 'UTC' })).throw(/at must be epoch milliseconds/);
  });

  it('civilFromDays inverts daysFromCivil (property) and agrees with Date', () => {
    fc.assert(
      fc.property(fc.integer({ min: -800_000, max: 800_000 }), (days) => {
        const { year, month, day } = civilFromDays(days);
        should(daysFromCivil(year, month, day)).equal(days);
        const d = new Date(days * DAY_MS);
        should([year, month, day]).eql([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]);
      }),
      FC,
    );
  });

  it('localDayStart is the instant the local date becomes that day for good', () => {
    const stJohns = zoneInfo('America/St_Johns');
    should(iso(localDayStart(stJohns, daysFromCivil(2010, 11, 7)))).equal('2010-11-07T03:30:00.000Z');
    should(iso(localDayStart(zoneInfo('UTC'), daysFromCivil(2024, 2, 29)))).equal('2024-02-29T00:00:00.000Z');
  });
});
