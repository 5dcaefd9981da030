// The checking of answers: the docs' sample responses, the CSV form of the sensors over
// loopback, and the shapes the readers refuse.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import { EasyApiError } from '../../nodes/lib/api/client';
import { readReadings, readSensors, readTariffs } from '../../nodes/lib/api/responses';
import { rejection, useSimulator } from './client-support';
import { MAX_PROBLEMS_PER_ANSWER, MAX_RULES_PER_TARIFF } from '../../nodes/lib/engine/common/limits';

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', name), 'utf8');

/** The invalid_response message a reader throws for a body. */
async function refusal(read: () => Promise<unknown>): Promise<string> {
  try {
    await read();
  } catch (err) {
    should(err).be.instanceOf(EasyApiError);
    should((err as EasyApiError).code).equal('invalid_response');
    return (err as Error).message;
  }
  throw new Error('the reader accepted it');
}

describe('reading answers', () => {
  describe("the docs' sample responses", () => {
    it('docs-tariffs.json: both tariffs, the weekday spelling included', async () => {
      const { tariffs, problems } = await readTariffs(fixture('docs-tariffs.json'), 'application/json');
      should(tariffs.map((t) => [t.id, t.currency, t.vat])).eql([
        ['Q123456789', 'GBP', 20],
        ['Q123456799', 'EUR', 8.5],
      ]);
      should(problems.filter((p) => p.severity === 'error')).eql([]);
    });

    it('docs-sensors.json: the e1.kwh sensor', async () => {
      should(await readSensors(fixture('docs-sensors.json'), 'application/json', 'GATEWAY_ID')).eql([
        {
          id: 'e1.kwh',
          name: 'Main Incomer kWh',
          value: 1544.12,
          unit: 'kWh',
          interval: 60,
          timestamp: Date.UTC(2020, 0, 2, 15, 22),
          timestampRaw: '2020-01-02T15:22Z',
        },
      ]);
    });

    it('docs-sensors.csv: the same sensor (with the docs’ own 1554.12)', async () => {
      should(await readSensors(fixture('docs-sensors.csv'), 'text/csv', 'GATEWAY_ID')).eql([
        {
          id: 'e1.kwh',
          name: 'Main Incomer kWh',
          value: 1554.12,
          unit: 'kWh',
          interval: 60,
          timestamp: Date.UTC(2020, 0, 2, 15, 22),
          timestampRaw: '2020-01-02T15:22Z',
        },
      ]);
    });

    it('docs-data.json: seven rows, timestamps without offset read as UTC', async () => {
      const rows = await readReadings(fixture('docs-data.json'), 'application/json');
      should(rows.length).equal(7);
      should(rows[0]).eql([Date.UTC(2020, 1, 4, 12, 0), 1200.15]);
      should(rows[6]).eql([Date.UTC(2020, 1, 4, 12, 6), 1206.55]);
    });
  });

  describe('the CSV form of the sensors over loopback', () => {
    const ctx = useSimulator();

    it('is read when the service answers CSV to .json, the same sensors as the JSON form', async () => {
      const json = await ctx.client().fetchSensors('DEMO');
      ctx.sim.setFaults({ sensorsCsv: true });
      const csv = await ctx.client().fetchSensors('DEMO');
      should(ctx.sim.requests.map((r) => r.path)).eql(['/easy/v1/gateways/DEMO.json', '/easy/v1/gateways/DEMO.json']);
      should(csv.map((s) => s.id)).eql(json.map((s) => s.id));
      for (const sensor of csv) {
        should(sensor.value).be.a.Number();
        should(sensor.timestamp).equal(Date.parse(sensor.timestampRaw));
      }
      // Built-in ids are bare in the CSV and must stay text.
      should(csv.find((s) => s.id === '158')).match({ unit: 'dBm', interval: 300 });
      should(csv.find((s) => s.id === '1')).match({ unit: null });
    });

    it('a malformed CSV → invalid_response naming the CSV problem, not retried', async () => {
      ctx.sim.setFaults({ sensorsCsv: true, body: 'malformed' });
      const err = await rejection(ctx.client().fetchSensors('DEMO'));
      should(err).match({ code: 'invalid_response', attempts: 1 });
      should(err.message).match(/^the sensors answer of gateway DEMO: the CSV is malformed: /);
      should(ctx.sim.requests.length).equal(1);
    });

    it('a CSV cut inside a line is refused', async () => {
      // A cut exactly at a line end cannot be seen in CSV (unlike JSON); a cut connection
      // is still caught by its Content-Length (see the 'cut' fault in client-retries).
      const csv = fixture('docs-sensors.csv');
      should(await refusal(() => readSensors(csv.slice(0, csv.length - 10), 'text/csv', 'GW'))).match(/the CSV is malformed/);
    });
  });

  describe('a hostile tariffs answer over loopback', () => {
    const ctx = useSimulator();
    afterEach(() => ctx.sim.setAnswers(null));

    it(`2 MB of bare numbers: ${MAX_PROBLEMS_PER_ANSWER} problems and one counting the rest, not a million`, async () => {
      ctx.sim.setAnswers({ tariffs: Array.from({ length: 999_999 }, () => 7) }); // "[7,7,…]": 2 MB
      const { tariffs, problems } = await ctx.client().fetchTariffs();
      should(tariffs).eql([]);
      should(problems).have.length(MAX_PROBLEMS_PER_ANSWER + 1);
      should(problems[0].message).match(/^the answer lists 999999 tariffs, more than the 100 allowed/);
      should(problems[MAX_PROBLEMS_PER_ANSWER].message).match(/^and \d+ more problems? \(\d+ errors?\), not listed/);
      should(JSON.stringify(problems).length).be.below(20_000);
    });

    it(`a tariff of ${MAX_RULES_PER_TARIFF + 1} rules is left out with one error; the others stay usable`, async () => {
      const rules = Array.from({ length: MAX_RULES_PER_TARIFF + 1 }, (_, k) => ({ priority: k, price: 0.1 }));
      const good = { id: 'good', name: 'good', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.2 }] };
      ctx.sim.setAnswers({ tariffs: [{ ...good, id: 'huge', rules }, good] });
      const { tariffs, problems } = await ctx.client().fetchTariffs();
      should(tariffs.map((t) => t.id)).eql(['good']);
      should(problems.map((p) => p.message)).eql([
        `tariff "huge": rules has ${MAX_RULES_PER_TARIFF + 1} rules, more than the ${MAX_RULES_PER_TARIFF} a tariff may have`,
      ]);
    });
  });

  describe('shapes the readers refuse, each named', () => {
    const sensor = { id: 'e1.kwh', name: 'Main', timestamp: '2020-01-02T15:22Z', value: 1, unit: 'kWh', interval: 60 };
    const sensors = (changes: object) => JSON.stringify([{ ...sensor, ...changes }]);

    it('accepts seconds in the sensor timestamp, and no unit or interval at all', async () => {
      const [s] = await readSensors(sensors({ timestamp: '2020-01-02T15:22:30Z', unit: undefined, interval: null }));
      should(s).match({ timestamp: Date.UTC(2020, 0, 2, 15, 22, 30), unit: null, interval: null });
    });

    const cases: Array<[string, object, RegExp]> = [
      ['no id', { id: undefined }, /item 0 has id missing, expected a non-empty text/],
      ['a numeric id', { id: 7 }, /item 0 has id a number, expected a non-empty text/],
      ['a name that is not text', { name: null }, /sensor e1\.kwh has name null, expected a text/],
      [
        'a timestamp with an offset',
        { timestamp: '2020-01-02T15:22+01:00' },
        /has timestamp the text "2020-01-02T15:22\+01:00", expected a UTC time/,
      ],
      ['a timestamp without Z', { timestamp: '2020-01-02T15:22' }, /has timestamp the text/],
      ['an impossible date', { timestamp: '2020-13-40T15:22Z' }, /has timestamp the text/],
      ['a numeric timestamp', { timestamp: 1577978520000 }, /has timestamp a number/],
      ['a value as text', { value: '1.5' }, /has value the text "1\.5", expected a number/],
      ['a null value', { value: null }, /has value null, expected a number/],
      ['a unit that is a number', { unit: 3 }, /has unit a number, expected a text or nothing/],
      ['a negative interval', { interval: -60 }, /has interval a number, expected a number or nothing/],
      ['an interval as text', { interval: '60' }, /has interval the text "60"/],
    ];
    for (const [name, changes, message] of cases) {
      it(`a sensor with ${name}`, async () => {
        should(await refusal(() => readSensors(sensors(changes), '', 'GW'))).match(message);
      });
    }

    it('shortens a runaway id or text in the message', async () => {
      const message = await refusal(() => readSensors(sensors({ id: 'x'.repeat(5000), value: 'y'.repeat(5000) }), '', 'GW'));
      should(message.length).be.below(200);
      should(message).containEql(`sensor ${'x'.repeat(39)}… has value the text "${'y'.repeat(39)}…"`);
    });

    it('items that are not objects, and answers that are not lists', async () => {
      should(await refusal(() => readSensors('[1]', '', 'GW'))).equal('the sensors answer of gateway GW: item 0 is a number, not a sensor');
      should(await refusal(() => readSensors('[[]]', '', 'GW'))).match(/item 0 is a list, not a sensor/);
      should(await refusal(() => readSensors('null', '', 'GW'))).equal('the sensors answer of gateway GW is null, not a list of sensors');
      should(await refusal(() => readTariffs('"tariffs"'))).equal('the tariffs answer is a string, not a list of tariffs');
      should(await refusal(() => readReadings('{}'))).equal('the data answer is an object, not a list of readings');
    });

    it('JSON cut anywhere is "cut off"; broken but complete JSON is "not valid JSON"', async () => {
      const body = fixture('docs-sensors.json');
      for (let end = 1; end < body.trimEnd().length - 1; end++) {
        should(await refusal(() => readSensors(body.slice(0, end), '', 'GW'))).equal(
          'the sensors answer of gateway GW is cut off (incomplete JSON)',
        );
      }
      for (const broken of ["[{'id': 1}]", '[1,]', '[{"a":"x\\""}]]', '[tru]']) {
        should(await refusal(() => readSensors(broken, '', 'GW'))).equal('the sensors answer of gateway GW is not valid JSON');
      }
    });

    it('empty bodies and web pages (a captive portal on the mobile link)', async () => {
      should(await refusal(() => readTariffs('  '))).equal('the tariffs answer is empty');
      should(await refusal(() => readTariffs('<!doctype html><title>Login</title>', 'text/html'))).match(/is a web page, not data/);
    });

    const rows: Array<[string, string, RegExp]> = [
      ['a row that is not a pair', '[["2020-02-04T12:00:00", 1, 2]]', /row 0 is a list of 3, expected \[timestamp, value\]/],
      ['a row that is an object', '[{"t": 1}]', /row 0 is an object, expected \[timestamp, value\]/],
      ['a numeric timestamp (seconds or ms?)', '[[1580817600, 1]]', /row 0 has timestamp a number, expected an ISO date and time/],
      ['an unreadable timestamp', '[["noon", 1]]', /row 0 has timestamp the text "noon"/],
      ['a null value', '[["2020-02-04T12:00:00", 1], ["2020-02-04T12:01:00", null]]', /row 1 has value null, expected a number/],
    ];
    for (const [name, body, message] of rows) {
      it(`data with ${name}`, async () => {
        should(await refusal(() => readReadings(body))).match(message);
      });
    }

    it('data timestamps with an offset are honoured', async () => {
      should(await readReadings('[["2020-02-04T13:00:00+01:00", 5]]')).eql([[Date.UTC(2020, 1, 4, 12), 5]]);
    });
  });
});
