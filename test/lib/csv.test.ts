import should from 'should';
import { looksLikeSensorsCsv, parseSensorsCsv } from '../../nodes/lib/api/csv';

const HEADER = 'id,name,timestamp,value,unit,interval';

describe('sensors CSV', () => {
  it('types cells like JSON: quoted text, unquoted numbers, empty = null', async () => {
    const rows = await parseSensorsCsv(
      `${HEADER}\n"e1.kwh","Main meter","2020-02-04T12:00Z",1200.15,"kWh",60\n"1","Generator","2020-02-04T12:01:30Z",0,,\n`,
    );
    should(rows).eql([
      { id: 'e1.kwh', name: 'Main meter', timestamp: '2020-02-04T12:00Z', value: 1200.15, unit: 'kWh', interval: 60 },
      { id: '1', name: 'Generator', timestamp: '2020-02-04T12:01:30Z', value: 0, unit: null, interval: null },
    ]);
  });

  it('keeps bare ids and timestamps as text, as the docs print them', async () => {
    const rows = await parseSensorsCsv(`${HEADER}\n1,"Generator",2020-02-04T12:00Z,1,,60\n158,"GSM",2020-02-04T12:00Z,-71,"dBm",300\n`);
    should(rows.map((r) => [r.id, r.timestamp, r.value])).eql([
      ['1', '2020-02-04T12:00Z', 1],
      ['158', '2020-02-04T12:00Z', -71],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted names', async () => {
    const rows = await parseSensorsCsv(`${HEADER}\r\n"e2.pf","Hall, ""north""\nwing","2020-02-04T12:00Z",-0.98,"",900\r\n`);
    should(rows[0].name).equal('Hall, "north"\nwing');
    should(rows[0].value).equal(-0.98);
    should(rows[0].unit).equal('');
  });

  it('keeps a quoted number as text, so validation can tell it was not a number', async () => {
    const rows = await parseSensorsCsv(`${HEADER}\n"158","GSM","2020-02-04T12:00Z","-71","dBm",60\n`);
    should(rows[0].value).equal('-71');
  });

  it('keeps an unquoted non-number as text', async () => {
    should((await parseSensorsCsv(`${HEADER}\n"1","In","2020-02-04T12:00Z",on,,\n`))[0].value).equal('on');
    should((await parseSensorsCsv(`${HEADER}\n"1","In","2020-02-04T12:00Z",1.2.3,,\n`))[0].value).equal('1.2.3');
  });

  it('reads numbers in every plain decimal form and exponent form', async () => {
    const values = await Promise.all(
      ['0', '-3', '+4', '12.', '.5', '1e3', '2.5E-2'].map(
        async (v) => (await parseSensorsCsv(`${HEADER}\n"1","In","2020-02-04T12:00Z",${v},,\n`))[0].value,
      ),
    );
    should(values).eql([0, -3, 4, 12, 0.5, 1000, 0.025]);
  });

  it('accepts a byte-order mark, a header in another order and no trailing newline', async () => {
    const rows = await parseSensorsCsv(`\uFEFFname,id,value,timestamp,unit,interval\n"Main","e1.kwh",5,"2020-02-04T12:00Z","kWh",60`);
    should(rows).eql([{ name: 'Main', id: 'e1.kwh', value: 5, timestamp: '2020-02-04T12:00Z', unit: 'kWh', interval: 60 }]);
  });

  it('gives no rows for a header with no sensors', async () => {
    should(await parseSensorsCsv(`${HEADER}\n`)).eql([]);
  });

  it('names the missing required columns', async () => {
    await should(parseSensorsCsv('id,name,unit\n"1","In","V"\n')).be.rejectedWith(/lacks the column\(s\) timestamp, value/);
    await should(parseSensorsCsv('')).be.rejectedWith(/lacks the column\(s\) id, name, timestamp, value/);
  });

  it('reports a line with the wrong number of cells or a broken quote as malformed', async () => {
    await should(parseSensorsCsv(`${HEADER}\n"1","In","2020-02-04T12:00Z",1\n`)).be.rejectedWith(/the CSV is malformed/);
    await should(parseSensorsCsv(`${HEADER}\n"1","In,"2020-02-04T12:00Z",1,,\n`)).be.rejectedWith(/the CSV is malformed/);
  });

  describe('looksLikeSensorsCsv', () => {
    it('recognises the header line, quoted or not, with a BOM or leading blank lines', () => {
      should(looksLikeSensorsCsv(`${HEADER}\n`)).be.true();
      should(looksLikeSensorsCsv('"id","name","timestamp","value","unit","interval"\n')).be.true();
      should(looksLikeSensorsCsv(`\uFEFF\n${HEADER}`)).be.true();
    });

    it('does not mistake JSON or other text for it', () => {
      should(looksLikeSensorsCsv('[{"id":"1","name":"x"}]')).be.false();
      should(looksLikeSensorsCsv('<html>id,name</html>')).be.false();
      should(looksLikeSensorsCsv('identity,name\n')).be.false();
      should(looksLikeSensorsCsv('')).be.false();
    });
  });
});
