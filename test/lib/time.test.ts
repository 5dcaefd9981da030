import should from 'should';
import assert from 'assert';
import vm from 'vm';
import fc from 'fast-check';
import moment from 'moment-timezone';
import {
  toEpochMs,
  requireEpochMs,
  assertTimeZone,
  machineTimeZone,
  zoneInfo,
  toLocalMs,
  localToUtc,
  isoWeekday,
  DAY_MS,
} from '../../nodes/lib/engine/time/time';
import { FC, withProcessTz } from './engine-fixtures';

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');

describe('time: toEpochMs (semantics rule 8)', () => {
  it('passes finite epoch ms through and rejects NaN and infinities', () => {
    should(toEpochMs(1580817600000)).equal(1580817600000);
    should(toEpochMs(-1)).equal(-1);
    should(toEpochMs(NaN)).be.null();
    should(toEpochMs(Infinity)).be.null();
  });

  it('takes valid Dates and rejects invalid ones', () => {
    should(toEpochMs(new Date(1580817600123))).equal(1580817600123);
    should(toEpochMs(new Date('nonsense'))).be.null();
  });

  it("takes a Date made in a function node's own context (another realm)", () => {
    const foreign = vm.runInNewContext('new Date(1580817600123)');
    should(foreign instanceof Date).be.false(); // the trap
    should(toEpochMs(foreign)).equal(1580817600123);
    should(toEpochMs(vm.runInNewContext('new Date(NaN)'))).be.null();
    should(toEpochMs({ getTime: () => 5 })).be.null(); // a look-alike is not a Date
    should(toEpochMs({ [Symbol.toStringTag]: 'Date' })).be.null();
  });

  it('reads an ISO string without offset as UTC whatever the process TZ', () => {
    const expected = Date.UTC(2020, 1, 4, 12, 0, 0);
    for (const tz of ['Pacific/Chatham', 'America/St_Johns', 'Asia/Kolkata']) {
      withProcessTz(tz, () => {
        // the trap this guards against: Date.parse reads it as host-local time
        should(new Date(2020, 1, 4, 12).getTime()).not.equal(expected);
        should(toEpochMs('2020-02-04T12:00:00')).equal(expected);
        should(toEpochMs('2020-02-04 12:00')).equal(expected);
        should(toEpochMs('2020-02-04')).equal(Date.UTC(2020, 1, 4));
      });
    }
  });

  it('applies Z and numeric offsets in every accepted spelling', () => {
    const noon = Date.UTC(2020, 1, 4, 12);
    should(toEpochMs('2020-02-04T12:00Z')).equal(noon);
    should(toEpochMs('2020-02-04t12:00:00z')).equal(noon);
    should(toEpochMs('2020-02-04T13:00:00+01:00')).equal(noon);
    should(toEpochMs('2020-02-04T13:00:00+0100')).equal(noon);
    should(toEpochMs('2020-02-04T13:00+01')).equal(noon);
    should(toEpochMs('2020-02-04T06:30:00-05:30')).equal(noon);
    should(toEpochMs('2020-02-04T12:00:00.5Z')).equal(noon + 500);
    should(toEpochMs('2020-02-04T12:00:00.25')).equal(noon + 250);
    should(toEpochMs('2020-02-04T12:00:00.123456789Z')).equal(noon + 123);
  });

  it('rejects malformed strings and other types', () => {
    const bad = [
      '',
      'garbage',
      '2020-2-4',
      '2020-02-30',
      '2019-02-29',
      '2020-13-01',
      '2020-00-10',
      '2020-02-04T24:00',
      '2020-02-04T12:60',
      '2020-02-04T12:00:60',
      '2020-02-04T12',
      '2020-02-04T12:00:00.',
      '2020-02-04T12:00:00Zjunk',
      '2020-02-04T12:00:00+25:00',
      '2020-02-04T12:00:00+01:60',
      '2020-02-04T12:00:00+1',
      '2020-02-04X12:00',
      '1580817600000',
    ];
    for (const s of bad) assert.strictEqual(toEpochMs(s), null, `${s} should not parse`);
    for (const x of [null, undefined, true, {}, [1], () => 1]) should(toEpochMs(x)).be.null();
    should(toEpochMs('2020-02-29T00:00')).equal(Date.UTC(2020, 1, 29)); // leap day is fine
  });

  it('round-trips every instant of years 0000-9999 in any offset (property)', () => {
    const min = -62167219200000; // 0000-01-01T00:00:00Z
    const max = 253402300799999; // 9999-12-31T23:59:59.999Z
    fc.assert(
      fc.property(fc.integer({ min, max }), fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (ms, offMin) => {
        should(toEpochMs(new Date(ms).toISOString())).equal(ms);
        const wall = new Date(ms + offMin * 60000).toISOString().slice(0, 23);
        if (!/^\d{4}/.test(wall)) return; // shifted out of the 4-digit years
        const sign = offMin < 0 ? '-' : '+';
        const text = `${wall}${sign}${pad(Math.trunc(Math.abs(offMin) / 60))}:${pad(Math.abs(offMin) % 60)}`;
        should(toEpochMs(text)).equal(ms);
      }),
      FC,
    );
  });

  it('requireEpochMs names the argument in its TypeError', () => {
    should(requireEpochMs('2020-02-04', 'from')).equal(Date.UTC(2020, 1, 4));
    should(() => requireEpochMs('yesterday', 'from')).throw(TypeError, { message: /^from must be .*"yesterday"/ });
    should(() => requireEpochMs(undefined, 'at')).throw(TypeError, { message: /^at must be/ });
  });
});

describe('time: zones', () => {
  it('assertTimeZone accepts IANA names and rejects anything else clearly', () => {
    assertTimeZone('Europe/London');
    assertTimeZone('UTC');
    for (const bad of ['Europe/Londn', '', 'GMT+25']) {
      should(() => assertTimeZone(bad)).throw(`unknown time zone "${bad}" (use an IANA name such as Europe/London)`);
    }
    should(() => assertTimeZone(undefined as unknown as string)).throw(/unknown time zone "undefined"/);
  });

  it('machineTimeZone follows the machine and is always a known zone', () => {
    should(withProcessTz('America/St_Johns', machineTimeZone)).equal('America/St_Johns');
    should(withProcessTz('Pacific/Chatham', machineTimeZone)).equal('Pacific/Chatham');
    assertTimeZone(machineTimeZone());
  });

  it('machineTimeZone reads TZ, /etc/localtime or /etc/timezone, not Intl, and names the zone Intl names', () => {
    const intlZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zones = ['Europe/London', ':Europe/London', 'Asia/Calcutta', 'Etc/GMT+5', 'Atlantic/Azores', 'America/Havana'];
    for (const tz of [...zones, 'Asia/Beirut', 'America/Santiago', 'Etc/UTC', 'GMT', 'Zulu', 'Etc/Greenwich']) {
      should(withProcessTz(tz, machineTimeZone)).equal(withProcessTz(tz, intlZone), tz);
    }
    // where Intl names nothing, the process's own clock decides: a zoneinfo path is that
    // zone, an unknown or empty TZ is UTC (as the C library takes it)
    should(withProcessTz('/usr/share/zoneinfo/Europe/Paris', machineTimeZone)).equal('Europe/Paris');
    for (const tz of ['Mars/Olympus', '', 'europe/london']) should(withProcessTz(tz, machineTimeZone)).equal('UTC', tz);
    // no TZ: the machine's setting, as Intl reads it
    const saved = process.env.TZ;
    delete process.env.TZ;
    try {
      should(machineTimeZone()).equal(intlZone());
    } finally {
      if (saved !== undefined) process.env.TZ = saved;
    }
  });

  const zones = [
    'Europe/London',
    'America/New_York',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/St_Johns',
    'America/Sao_Paulo',
    'Asia/Kolkata',
    'Asia/Tokyo',
    'UTC',
  ];

  it('toLocalMs agrees with moment-timezone formatting (property, 1850-2100)', () => {
    const oracle = (ms: number, zone: string) => Date.parse(`${moment(ms).tz(zone).format('YYYY-MM-DDTHH:mm:ss.SSS')}Z`);
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: -3786825600000, max: 4102444800000 }), (zone, ms) => {
        should(toLocalMs(zoneInfo(zone), ms)).equal(oracle(ms, zone));
      }),
      FC,
    );
  });

  it('localToUtc finds exactly the instants that show a wall-clock time (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: 0, max: 4102444800000 }), (zone, local) => {
        const info = zoneInfo(zone);
        // obviously complete: try every offset the zone ever had
        const expected = [...new Set(Array.from(info.offsetMs, (off) => local - off))]
          .filter((utc) => toLocalMs(info, utc) === local)
          .sort((a, b) => a - b);
        should(localToUtc(info, local)).eql(expected);
      }),
      FC,
    );
  });

  it('localToUtc gives none in a spring-forward gap and two in a repeated hour', () => {
    const london = zoneInfo('Europe/London');
    should(localToUtc(london, Date.UTC(2021, 2, 28, 1, 30))).eql([]);
    should(localToUtc(london, Date.UTC(2021, 9, 31, 1, 30))).eql([Date.UTC(2021, 9, 31, 0, 30), Date.UTC(2021, 9, 31, 1, 30)]);
    should(localToUtc(london, Date.UTC(2021, 5, 1, 12))).eql([Date.UTC(2021, 5, 1, 11)]);
  });

  it('isoWeekday counts 1 = Monday to 7 = Sunday, also before 1970 (property)', () => {
    should(isoWeekday(Date.UTC(2024, 0, 1))).equal(1); // a Monday
    should(isoWeekday(Date.UTC(2024, 0, 7) + DAY_MS - 1)).equal(7);
    fc.assert(
      fc.property(fc.integer({ min: -62167219200000, max: 253402300799999 }), (ms) => {
        should(isoWeekday(ms)).equal(new Date(ms).getUTCDay() || 7);
      }),
      FC,
    );
  });
});
