// JSON read in slices (api/json-slices.ts) against JSON.parse itself: the same value for
// any JSON text, cut at any slice size, and the same refusals; hostile shapes read through
// the client from the simulator while the event loop keeps turning.
import should from 'should';
import fc from 'fast-check';
import { parseJsonSteps } from '../../nodes/lib/api/json-slices';
import { runAtOnce, runInSlices } from '../../nodes/lib/engine/common/slices';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import { EasyClient } from '../../nodes/lib/api/client';
import { startSimulator, Simulator } from '../../sim/server';
import { HOSTILE_ANSWERS } from '../../bench/big-answers';
import { readAnswer, watchLoop } from '../../bench/answers-bench';

/** The value, or the error's kind: what a reader can tell apart. */
function outcome(run: () => unknown): { value?: unknown; error?: string } {
  try {
    return { value: run() };
  } catch (err) {
    return { error: (err as Error).name };
  }
}

/** Deep equality that also compares prototypes and own keys in order (should's eql does not see `__proto__` keys). */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Reflect.ownKeys(a);
  const kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => sameJson((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k]));
}

/** JSON text with random white space around its punctuation (outside strings). */
const spaced = fc
  .tuple(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.constantFrom('', ' ', '\n', '\t ', '\r\n'), { minLength: 1, maxLength: 8 }))
  .map(([value, spaces]) => {
    const text = JSON.stringify(value);
    let out = '';
    let inString = false;
    let k = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        out += c;
        if (c === '\\') out += text[++i];
        else if (c === '"') inString = false;
      } else if (c === '"') {
        inString = true;
        out += c;
      } else if (',:[]{}'.includes(c)) out += `${spaces[k++ % spaces.length]}${c}${spaces[k++ % spaces.length]}`;
      else out += c;
    }
    return out;
  });

describe('JSON in slices: the same as JSON.parse', () => {
  it('any JSON text, at any slice size, gives the same value (keys, order, duplicates, __proto__ as a key)', () => {
    fc.assert(
      fc.property(spaced, fc.integer({ min: 1, max: 64 }), (text, slice) => {
        should(sameJson(runAtOnce(parseJsonSteps(text, slice)), JSON.parse(text))).be.true(`${text} at ${slice}`);
      }),
      { numRuns: 3000, seed: 20261126 },
    );
  });

  it('keeps __proto__ a key and duplicate keys as JSON.parse does, pollutes nothing', () => {
    const text = '{"a":1,"__proto__":{"polluted":true},"b":[1,2,{"__proto__":5}],"a":3,"1":"one","c":"x\\u0041\\"]"}';
    for (const slice of [1, 2, 3, 5, 8, 13, 1000]) {
      const value = runAtOnce(parseJsonSteps(text, slice)) as Record<string, unknown>;
      should(sameJson(value, JSON.parse(text))).be.true(`slice ${slice}`);
      should(Object.getPrototypeOf(value)).equal(Object.prototype);
      should((value as { polluted?: unknown }).polluted).be.undefined();
      should(({} as { polluted?: unknown }).polluted).be.undefined();
    }
  });

  it('refuses what JSON.parse refuses, with a SyntaxError, at any slice size', () => {
    const bad = [
      '[1,,2]',
      '[1,2,]',
      '[,1]',
      '{"a":1,}',
      '{"a" 1}',
      '{a:1}',
      '[1,2',
      '[1,2]]',
      '[1,2]x',
      '{"a":[1,}',
      '["a\\"]',
      '[1 2]',
      '{"a":1,"b"}',
      '[]]',
      '',
      ' ',
    ];
    for (const text of bad) {
      for (const slice of [1, 2, 3, 4, 7, 1000]) {
        should(outcome(() => runAtOnce(parseJsonSteps(text, slice)))).eql({ error: 'SyntaxError' }, `${JSON.stringify(text)} at ${slice}`);
      }
    }
  });

  it('refuses generated broken text exactly when JSON.parse does', () => {
    fc.assert(
      fc.property(
        spaced,
        fc.nat(),
        fc.constantFrom(',', ']', '}', '[', '{', '"', ':', ''),
        fc.integer({ min: 1, max: 16 }),
        (text, at, insert, slice) => {
          const k = at % (text.length + 1);
          const broken = text.slice(0, k) + insert + text.slice(k + (insert ? 0 : 1));
          const ours = outcome(() => runAtOnce(parseJsonSteps(broken, slice)));
          const theirs = outcome(() => JSON.parse(broken));
          should(ours.error).equal(theirs.error, broken);
          if (!theirs.error) should(sameJson(ours.value, theirs.value)).be.true(broken);
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('reads a deeply nested text without running out of stack', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    let value = runAtOnce(parseJsonSteps(text, 16)) as unknown;
    let depth = 0;
    while (Array.isArray(value) && value.length === 1) {
      value = value[0];
      depth++;
    }
    should(depth + 1).equal(100_000);
    should(value).eql([]);
  });
});

describe('JSON in slices: hostile shapes through the client, the loop turning', function () {
  this.timeout(60_000);
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ port: 0 });
  });
  after(async () => {
    await sim.close();
  });

  for (const { kind, read, body } of HOSTILE_ANSWERS) {
    it(`2 MiB of ${kind} as the ${read} answer: timers fire and the loop turns while it is read, the result as in one go`, async () => {
      const text = body();
      should(text.length).be.above(2_000_000);
      const value = JSON.parse(text);
      if (read === 'tariffs') sim.setAnswers({ tariffs: value });
      else if (read === 'readings') sim.setAnswers({ data: { 'DEMO/e1.kwh': value } });
      else sim.setAnswers({ sensors: { DEMO: value } });
      const client = new EasyClient({ baseUrl: sim.url, token: 'demo-token', retries: 0 });
      const loop = watchLoop();
      let timerFired = false;
      const timer = setTimeout(() => (timerFired = true), 0);
      const fetched =
        read === 'tariffs'
          ? client.fetchTariffs()
          : read === 'readings'
            ? client.fetchData('DEMO', 'e1.kwh', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')
            : client.fetchSensors('DEMO');
      const result = await fetched.then(
        (v) => ({ v }),
        (e: Error) => ({ e: e.message }),
      );
      const turns = loop.turns();
      loop.stop();
      clearTimeout(timer);
      should(timerFired).be.true();
      should(turns).be.aboveOrEqual(20, `the loop turned ${turns} times`);
      if (read === 'tariffs') {
        const { tariffs } = (result as { v: { tariffs: unknown[] } }).v;
        should(tariffs).eql(parseTariffs(value).tariffs);
      } else {
        should((result as { e?: string }).e).match(/item 0|row 0|first|not a/i);
      }
      sim.setAnswers(null);
    });
  }

  for (const { kind, read, body } of HOSTILE_ANSWERS) {
    it(`2 MiB of ${kind} read as the ${read} answer once received: the parse itself turns the loop`, async () => {
      const text = body();
      const loop = watchLoop();
      await readAnswer(read, text, 'application/json').catch(() => undefined);
      const turns = loop.turns();
      loop.stop();
      // one JSON.parse of the whole text would be one turn; 2 MiB in 64 KiB slices is 32 and more
      should(turns).be.aboveOrEqual(32, `the loop turned ${turns} times`);
    });
  }

  it('a small answer is read in one go, as before (no turn of the loop)', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const value = await runInSlices(parseJsonSteps('[{"a":1},[2,3],"x"]'));
    should(turned).be.false();
    should(value).eql([{ a: 1 }, [2, 3], 'x']);
  });
});
