// The demo's solar export register (DEMO e3.kwh): a solar-shaped day by the wall clock of the
// simulator's zone: nothing at night, a sine from 06:00 to 18:00 local with its peak at
// local noon, every local day the same energy (clock changes included), the counter the
// exact integral of the power, and the simulator serving it in the zone it was started with.
import should from 'should';
import fc from 'fast-check';
import { METER_START, SOLAR_DAY_KWH, SOLAR_PEAK_KW, demoSensors, findDemoSensor, solarExportKwh, solarKw } from '../../sim/demo-data';
import { startSimulator } from '../../sim/server';
import { getJson, manualClock } from './helpers';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

describe('demo data: the solar export (e3.kwh)', () => {
  const cases = [
    { zone: 'Europe/London', noon: '2026-06-10T12:00:00+01:00', night: '2026-06-10T03:00:00+01:00' },
    { zone: 'Australia/Sydney', noon: '2026-06-10T12:00:00+10:00', night: '2026-06-10T22:00:00+10:00' },
    { zone: 'America/New_York', noon: '2026-01-15T12:00:00-05:00', night: '2026-01-15T05:30:00-05:00' },
  ];
  for (const c of cases) {
    it(`${c.zone}: ${SOLAR_PEAK_KW} kW at local noon, nothing at night, half at 08:00 and 16:00 local`, () => {
      should(solarKw(at(c.noon), c.zone)).be.approximately(SOLAR_PEAK_KW, 1e-9);
      should(solarKw(at(c.night), c.zone)).equal(0);
      should(solarKw(at(c.noon) - 4 * 3_600_000, c.zone)).be.approximately(SOLAR_PEAK_KW / 2, 1e-9);
      should(solarKw(at(c.noon) + 4 * 3_600_000, c.zone)).be.approximately(SOLAR_PEAK_KW / 2, 1e-9);
    });
  }

  it('the sun follows the zone: at 12:00 UTC London exports at its peak in winter, Sydney (22:00) nothing', () => {
    const t = at('2026-01-15T12:00:00Z');
    should(solarKw(t, 'Europe/London')).be.approximately(SOLAR_PEAK_KW, 1e-9);
    should(solarKw(t, 'Australia/Sydney')).equal(0);
  });

  it('every local day exports the same, the 23- and 25-hour days of London and Sydney too', () => {
    const days = [
      ['Europe/London', '2026-03-29T00:00:00Z', '2026-03-29T23:00:00Z'], // 23 hours
      ['Europe/London', '2026-10-24T23:00:00Z', '2026-10-26T00:00:00Z'], // 25 hours
      ['Australia/Sydney', '2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z'], // 25 hours
      ['Europe/London', '2026-06-09T23:00:00Z', '2026-06-10T23:00:00Z'],
    ];
    for (const [zone, from, to] of days)
      should(solarExportKwh(at(to), zone) - solarExportKwh(at(from), zone)).be.approximately(SOLAR_DAY_KWH, 1e-6, `${zone} ${from}`);
    should(SOLAR_DAY_KWH).be.approximately((SOLAR_PEAK_KW * 12 * 2) / Math.PI, 1e-9);
  });

  it('the counter is the power integrated minute by minute, never falls, and starts at 200 kWh at METER_START', () => {
    for (const zone of ['Europe/London', 'Australia/Sydney', 'Asia/Kolkata']) {
      should(solarExportKwh(METER_START, zone)).be.approximately(200, 1e-9);
      fc.assert(
        fc.property(fc.integer({ min: at('2020-01-02T00:00:00Z'), max: at('2030-01-01T00:00:00Z') }), (t0) => {
          // an hour minute by minute (midpoints): the counter's step is the power's integral
          let walked = 0;
          for (let m = 0; m < 60; m++) walked += (solarKw(t0 + m * MINUTE + MINUTE / 2, zone) * MINUTE) / 3_600_000;
          const step = solarExportKwh(t0 + 60 * MINUTE, zone) - solarExportKwh(t0, zone);
          should(step).be.aboveOrEqual(0);
          should(step).be.approximately(walked, 1e-4);
        }),
        { numRuns: 150 },
      );
    }
  });

  it('is a sensor of DEMO in the zone asked for (UTC by default); an unknown zone is an error', () => {
    const noonLondon = at('2026-06-10T12:00:00+01:00');
    should(findDemoSensor('e3.kwh')!.valueAt(noonLondon)).equal(Math.round(solarExportKwh(noonLondon, 'UTC') * 1000) / 1000);
    should(demoSensors('Europe/London').map((s) => s.id)).containEql('e3.kwh');
    should(findDemoSensor('e3.kwh', 'Europe/London')!.unit).equal('kWh');
    should(() => demoSensors('Mars/Olympus')).throw(/unknown time zone "Mars\/Olympus"/);
  });

  it('the simulator serves it by the zone it was started with: Sydney exports at its noon, London at its own', async () => {
    const clock = manualClock('2026-06-10T13:00:00Z');
    const sydney = await startSimulator({ now: clock.now, timezone: 'Australia/Sydney' });
    const london = await startSimulator({ now: clock.now, timezone: 'Europe/London' });
    try {
      // 01:00-02:00 UTC is 11:00-12:00 in Sydney (02:00-03:00 in London); 11:00-12:00 UTC is London's 12:00-13:00
      const path = (from: string, to: string) => `/easy/v1/gateways/DEMO/e3.kwh/data.json?from=${from}&to=${to}`;
      const step = async (url: string, from: string, to: string) => {
        const rows = (await getJson(url, path(from, to))).json as Array<[string, number]>;
        return rows[rows.length - 1][1] - rows[0][1];
      };
      should(await step(sydney.url, '2026-06-10T01:00Z', '2026-06-10T02:00Z')).be.above(3.5);
      should(await step(london.url, '2026-06-10T01:00Z', '2026-06-10T02:00Z')).equal(0);
      should(await step(london.url, '2026-06-10T11:00Z', '2026-06-10T12:00Z')).be.above(3.5);
      should(await step(sydney.url, '2026-06-10T11:00Z', '2026-06-10T12:00Z')).equal(0);
    } finally {
      await sydney.close();
      await london.close();
    }
  });
});
