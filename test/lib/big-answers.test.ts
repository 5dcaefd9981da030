// Answers as big as the client accepts are read in slices: the event loop keeps turning
// (timers fire, other flows run) while a 2 MiB answer of each kind is read, and what comes
// out is what reading it in one go gives. No timing bound here: the figures are the bench's.
import should from 'should';
import { parseSensorsCsv } from '../../nodes/lib/api/csv';
import { readSensors, readTariffs } from '../../nodes/lib/api/responses';
import { parseTariffs, parseTariffsInSlices } from '../../nodes/lib/engine/tariff/tariff';
import { BIG_ANSWERS, sensorItem, sensorsCsv, tariffsJson } from '../../bench/big-answers';
import { readAnswer } from '../../bench/answers-bench';
import { MAX_TARIFFS_PER_ANSWER } from '../../nodes/lib/engine/common/limits';

/** Counts turns of the event loop (a setImmediate chain) and notes whether a timer fired. */
function loopWatch(): { stop: () => { turns: number; timerFired: boolean } } {
  let turns = 0;
  let timerFired = false;
  let handle = setImmediate(function tick() {
    turns++;
    handle = setImmediate(tick);
  });
  const timer = setTimeout(() => (timerFired = true), 0);
  return {
    stop: () => {
      clearImmediate(handle);
      clearTimeout(timer);
      return { turns, timerFired };
    },
  };
}

describe('big answers: the event loop keeps turning', function () {
  this.timeout(60_000);

  for (const { kind, body: make, contentType } of BIG_ANSWERS) {
    it(`a 2 MiB answer (${kind}): timers fire and the loop turns many times while it is read`, async () => {
      const body = make();
      should(body.length).be.above(2_000_000);
      const watch = loopWatch();
      const result = await readAnswer(kind, body, contentType);
      const { turns, timerFired } = watch.stop();
      should(timerFired).be.true();
      should(turns).be.aboveOrEqual(10, `the loop turned ${turns} times`);
      const items = Array.isArray(result) ? result.length : (result as { tariffs: unknown[] }).tariffs.length;
      should(items).equal(kind.endsWith('CSV') ? body.trimEnd().split('\n').length - 1 : JSON.parse(body).length);
    });
  }
});

describe('big answers: read in slices, the same result as in one go', function () {
  this.timeout(60_000);

  it('2 MiB of sensors in CSV read the same as the same sensors in JSON', async () => {
    const csv = sensorsCsv();
    const fromCsv = await readSensors(csv, 'text/csv', 'GW');
    const json = JSON.stringify(Array.from({ length: fromCsv.length }, (_, k) => sensorItem(k)));
    should(fromCsv).eql(await readSensors(json, 'application/json', 'GW'));
  });

  it('CSV cut into slices anywhere (inside quotes, line breaks, CRLF, characters beyond the BMP) reads the same', async () => {
    const text =
      '\uFEFFid,name,timestamp,value,unit,interval\r\n' +
      'e1.kwh,"Küche ""süd"", 2.OG",2026-11-25T12:00Z,12.5,"kWh",60\r\n' +
      '"e2.pf","Hall 😀\nnorth",2026-11-25T12:01Z,-0.98,"",900\r\n' +
      '\r\n' +
      '1,"Generator ⚡",2026-11-25T12:02Z,1,,\r\n';
    const whole = await parseSensorsCsv(text, text.length);
    should(whole).have.length(3);
    should(whole[1].name).equal('Hall 😀\nnorth');
    for (let slice = 1; slice <= 41; slice++) should(await parseSensorsCsv(text, slice)).eql(whole, `slices of ${slice}`);
  });

  it('a broken CSV is refused the same in any slice size', async () => {
    const text = 'id,name,timestamp,value,unit,interval\n1,"In",2026-11-25T12:00Z,1,,\n2,"Out,2026-11-25T12:00Z,1,,\n';
    for (const slice of [1, 7, 64, text.length]) {
      await should(parseSensorsCsv(text, slice)).be.rejectedWith(/the CSV is malformed: Quote Not Closed/);
    }
  });

  it(`2 MiB of tariffs: ${MAX_TARIFFS_PER_ANSWER} tariffs, the same as parseTariffs in one go`, async () => {
    const body = tariffsJson();
    const sliced = await readTariffs(body, 'application/json');
    should(sliced.tariffs).have.length(MAX_TARIFFS_PER_ANSWER);
    should(sliced).eql(parseTariffs(body));
  });

  it('tariffs with problems: the same tariffs and problems (the first ones, then a count) sliced or not', async () => {
    const good = (id: string, rules: number) => ({
      id,
      name: id,
      vat: 20,
      currency: 'EUR',
      rules: Array.from({ length: rules }, (_, k) => ({ priority: k, price: k / 100, time_start: '01:00', time_end: '02:00' })),
    });
    const answer: unknown[] = [];
    for (let k = 0; k < MAX_TARIFFS_PER_ANSWER + 5; k++) {
      if (k % 3 === 0) answer.push({ ...good(`bad${k}`, 3), vat: '20' });
      else if (k % 3 === 1) answer.push(good(`big${k}`, 900));
      else answer.push(good(k % 2 ? 'dup' : `ok${k}`, 2), 7);
    }
    const sliced = await parseTariffsInSlices(answer);
    should(sliced).eql(parseTariffs(answer));
    should(sliced.problems.length).be.above(50);
    should(await parseTariffsInSlices(JSON.stringify(answer))).eql(parseTariffs(JSON.stringify(answer)));
    should(await parseTariffsInSlices('{')).eql(parseTariffs('{'));
  });
});
