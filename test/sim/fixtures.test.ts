import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseCsv } from 'csv-parse/sync';
import { startSimulator, Simulator } from '../../sim/server';
import { DOCS_TARIFFS } from '../../sim/demo-data';
import { getJson, manualClock, request } from './helpers';

const FIXTURES = path.join(__dirname, '..', 'fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

/** The kind of each value: what a client's validation looks at. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return typeof value;
}

/** A CSV line with every number replaced by N: quoting and field order remain. */
function digitsAside(line: string): string {
  return line.replace(/\d+(\.\d+)?/g, 'N');
}

describe('simulator: the docs samples (test/fixtures)', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ now: manualClock('2020-02-04T12:06:30Z').now });
  });
  after(() => sim.close());

  it('serves the docs tariffs sample unchanged within the demo account', async () => {
    const docs = JSON.parse(fixture('docs-tariffs.json'));
    should(DOCS_TARIFFS).eql(docs);
    const { json } = await getJson(sim.url, '/easy/v1/tariffs.json');
    should(json.slice(-docs.length)).eql(docs);
  });

  it('serves sensors with the fields and types of the docs sample, e1.kwh named alike', async () => {
    const [docsSensor] = JSON.parse(fixture('docs-sensors.json'));
    const { json } = await getJson(sim.url, '/easy/v1/gateways/DEMO.json');
    const kwh = json.find((s: { id: string }) => s.id === 'e1.kwh');
    should(shapeOf(kwh)).eql(shapeOf(docsSensor));
    should(kwh).containEql({ name: docsSensor.name, unit: docsSensor.unit, interval: docsSensor.interval });
    should(kwh.timestamp).match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
    should(docsSensor.timestamp).match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
  });

  it('serves the sensors CSV in the quoting of the docs sample', async () => {
    const docs = fixture('docs-sensors.csv').split('\n');
    const served = (await request(sim.url, '/easy/v1/gateways/DEMO.csv')).body.split('\n');
    should(served[0]).equal(docs[0]);
    // Digits aside, the e1.kwh line reads exactly like the docs' line.
    should(digitsAside(served[1])).equal(digitsAside(docs[1]));
    const docsRows = parseCsv(fixture('docs-sensors.csv'), { columns: true });
    should(docsRows).eql([
      { id: 'e1.kwh', name: 'Main Incomer kWh', timestamp: '2020-01-02T15:22Z', value: '1554.12', unit: 'kWh', interval: '60' },
    ]);
  });

  it('serves archive rows shaped like the docs sample, one a minute, for the same range', async () => {
    const docs = JSON.parse(fixture('docs-data.json'));
    const { json } = await getJson(sim.url, '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2020-02-04T12:00:00Z&to=2020-02-04T12:06:00Z');
    should(shapeOf(json)).eql(shapeOf(docs));
    should(json.map((row: [string]) => row[0])).eql(docs.map((row: [string]) => row[0]));
  });

  it('serves the archive CSV with the header and quoted timestamps of the docs sample', async () => {
    const docs = fixture('docs-data.csv').split('\n');
    const served = (
      await request(sim.url, '/easy/v1/gateways/DEMO/e1.kwh/data.csv?from=2020-02-04T12:00Z&to=2020-02-04T12:01Z')
    ).body.split('\n');
    should(served[0]).equal(docs[0]);
    // The docs end each row with a comma; the simulator does not.
    const withoutTrailingComma = (line: string) => line.replace(/,$/, '');
    should(served.slice(1, 3).map(digitsAside)).eql(docs.slice(1, 3).map(withoutTrailingComma).map(digitsAside));
  });
});
