import should from 'should';
import { parseTariffs, compileTariff, sensorsUsedBy, TIME_WITHIN, TIME_WRAPS, TIME_ALWAYS } from '../../nodes/lib/engine/tariff/tariff';
import type { Problem, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { workdayTariff } from './engine-fixtures';
import {
  MAX_ID_CHARS,
  MAX_PROBLEMS_PER_ANSWER,
  MAX_QUOTED_CHARS,
  MAX_RULES_PER_TARIFF,
  MAX_TARIFFS_PER_ANSWER,
} from '../../nodes/lib/engine/common/limits';

type Json = Record<string, unknown>;

/** The workday tariff with rule `ruleIndex` changed by `edit`. */
function withRule(ruleIndex: number, edit: (rule: Json) => void, id = 'BAD'): Json {
  const t = workdayTariff(id) as unknown as Json;
  edit((t.rules as Json[])[ruleIndex]);
  return t;
}

const errors = (problems: Problem[]) => problems.filter((p) => p.severity === 'error');
const warnings = (problems: Problem[]) => problems.filter((p) => p.severity === 'warning');

describe('tariff: parseTariffs accepts the interface', () => {
  it('takes the interface example without problems and returns the same objects', () => {
    const input = [workdayTariff('A'), workdayTariff('B')];
    const { tariffs, problems } = parseTariffs(input);
    should(problems).eql([]);
    should(tariffs).have.length(2);
    should(tariffs[0]).equal(input[0]);
  });

  it('keeps unknown extra fields and ignores them', () => {
    const t = { ...workdayTariff(), valid_from: '2020-01-01', extra: { a: 1 } } as Tariff;
    (t.rules[2] as Json).comment = 'fallback';
    const { tariffs, problems } = parseTariffs([t]);
    should(problems).eql([]);
    should(tariffs[0].valid_from).equal('2020-01-01');
    should(tariffs[0].rules[2].comment).equal('fallback');
  });

  it('accepts JSON text and a single tariff object', () => {
    should(parseTariffs(JSON.stringify([workdayTariff()])).tariffs).have.length(1);
    should(parseTariffs(workdayTariff()).tariffs).have.length(1);
  });

  it('reports a response that is not a list of tariffs', () => {
    for (const bad of ['{nope', 42, null, { tariffs: 'x' }]) {
      const { tariffs, problems } = parseTariffs(bad);
      should(tariffs).eql([]);
      should(errors(problems)).have.length(1);
      should(problems[0]).match({ tariffId: null, ruleIndex: null, field: null });
    }
  });

  it('accepts HH:mm:SS, 24:00 and 24:00:00 as an end, and sensor_value as a numeric string', () => {
    const t = workdayTariff();
    Object.assign(t.rules[0], { time_start: '09:00:30', time_end: '24:00:00' });
    t.rules.push({ priority: 65, price: 1, time_start: '18:00', time_end: '24:00' });
    t.rules.push({ priority: 40, price: 2, gateway_id: 'g', sensor_id: '1', sensor_value: '1', sensor_condition: 'eq' });
    should(parseTariffs([t]).problems).eql([]);
  });
});

describe('tariff: parseTariffs rejects a broken tariff as a whole (semantics rule 7)', () => {
  // [what is broken, the tariff, expected rule index, expected field]
  const cases: Array<[string, Json, number | null, string | null]> = [
    ['missing priority', withRule(1, (r) => delete r.priority), 1, 'priority'],
    ['non-numeric priority', withRule(1, (r) => (r.priority = 'high')), 1, 'priority'],
    ['missing price', withRule(2, (r) => delete r.price), 2, 'price'],
    ['non-numeric price', withRule(0, (r) => (r.price = '0.5')), 0, 'price'],
    ['NaN-like price', withRule(0, (r) => (r.price = null)), 0, 'price'],
    ['only time_start', withRule(2, (r) => (r.time_start = '10:00')), 2, 'time_end'],
    ['only time_end', withRule(0, (r) => delete r.time_start), 0, 'time_start'],
    ['single-digit hour', withRule(0, (r) => (r.time_start = '9:00')), 0, 'time_start'],
    ['hour 25', withRule(0, (r) => (r.time_end = '25:00')), 0, 'time_end'],
    ['minute 60', withRule(0, (r) => (r.time_start = '09:60')), 0, 'time_start'],
    ['second 60', withRule(0, (r) => (r.time_end = '17:00:60')), 0, 'time_end'],
    ['24:00 as a start', withRule(0, (r) => (r.time_start = '24:00')), 0, 'time_start'],
    ['24:30 as an end', withRule(0, (r) => (r.time_end = '24:30')), 0, 'time_end'],
    ['time as a number', withRule(0, (r) => (r.time_end = 17)), 0, 'time_end'],
    ['weekday 0', withRule(1, (r) => (r.weekdays = [0, 1])), 1, 'weekdays'],
    ['weekday 8', withRule(1, (r) => (r.weekdays = [8])), 1, 'weekdays'],
    ['fractional weekday', withRule(1, (r) => (r.weekdays = [1.5])), 1, 'weekdays'],
    ['weekday as a string', withRule(1, (r) => (r.weekdays = ['1'])), 1, 'weekdays'],
    ['weekdays not a list', withRule(1, (r) => (r.weekdays = 5)), 1, 'weekdays'],
    [
      'bad alias weekday',
      withRule(1, (r) => {
        delete r.weekdays;
        r.weekday = [9];
      }),
      1,
      'weekday',
    ],
    ...(['gateway_id', 'sensor_id', 'sensor_value', 'sensor_condition'] as const).map((missing): [string, Json, number, string] => {
      const rule: Json = { priority: 1, price: 9, gateway_id: 'g', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' };
      delete rule[missing];
      return [`sensor rule without ${missing}`, withRule(0, (r) => Object.assign(r, rule)), 0, missing];
    }),
    [
      'non-numeric sensor_value',
      withRule(0, (r) => Object.assign(r, { gateway_id: 'g', sensor_id: '1', sensor_value: 'on', sensor_condition: 'eq' })),
      0,
      'sensor_value',
    ],
    ['vat as a string', { ...workdayTariff('BAD'), vat: '20' }, null, 'vat'],
    ['vat missing', { ...workdayTariff('BAD'), vat: undefined }, null, 'vat'],
    ['no rules', { ...workdayTariff('BAD'), rules: [] }, null, 'rules'],
    ['rules missing', { ...workdayTariff('BAD'), rules: undefined }, null, 'rules'],
    ['a rule that is not an object', { ...workdayTariff('BAD'), rules: [{ priority: 1, price: 1 }, 'x'] }, 1, null],
    ['currency missing', { ...workdayTariff('BAD'), currency: undefined }, null, 'currency'],
  ];

  for (const [what, broken, ruleIndex, field] of cases) {
    it(`${what}: an error naming tariff, rule ${ruleIndex} and ${field}; the other tariff stays usable`, () => {
      const good = workdayTariff('GOOD');
      const { tariffs, problems } = parseTariffs([good, broken]);
      should(tariffs).eql([good]);
      const errs = errors(problems);
      should(errs).have.length(1);
      should(errs[0]).match({ tariffId: 'BAD', ruleIndex, field });
      should(errs[0].message).startWith(ruleIndex === null ? 'tariff "BAD": ' : `tariff "BAD" rule ${ruleIndex}: `);
      if (field) should(errs[0].message).containEql(field);
      // given directly to the engine, the same tariff is a TypeError with that message
      should(() => compileTariff(broken)).throw(TypeError, { message: errs[0].message });
    });
  }

  it('reports a BigInt or cyclic field as a problem instead of throwing, keeping the good tariffs', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const good = { id: 'G', name: 'Good', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.2 }] };
    const { tariffs, problems } = parseTariffs([
      good,
      { id: 'B', name: 'Big', vat: 20, currency: 'GBP', rules: [{ priority: BigInt(1), price: 0.2 }] },
      { id: 'C', name: 'Cyclic', vat: cyclic, currency: 'GBP', rules: [{ priority: 1, price: 0.2 }] },
    ]);
    should(tariffs.map((t) => t.id)).eql(['G']);
    should(problems.find((p) => p.tariffId === 'B')).match({ severity: 'error', ruleIndex: 0, field: 'priority' });
    should(problems.find((p) => p.tariffId === 'B')!.message).match(/1n/);
    should(problems.find((p) => p.tariffId === 'C')).match({ severity: 'error', field: 'vat' });
  });

  it('names a tariff without id by its position', () => {
    const { problems } = parseTariffs([workdayTariff(), { ...workdayTariff(), id: undefined }]);
    should(errors(problems)[0]).match({ tariffId: null, field: 'id', message: /^tariff #1: id / });
  });

  it('reports every error of a tariff, not only the first', () => {
    const t = withRule(0, (r) => {
      r.price = 'x';
      r.weekdays = [0];
    });
    should(errors(parseTariffs([t]).problems).map((p) => p.field)).eql(['price', 'weekdays']);
  });
});

describe('tariff: warnings of semantics rules 3 and 4', () => {
  it('both weekdays and weekday: weekdays wins, with a warning', () => {
    const t = withRule(
      1,
      (r) => {
        r.weekdays = [6, 7];
        r.weekday = [1];
      },
      'W',
    );
    const { tariffs, problems } = parseTariffs([t]);
    should(tariffs).have.length(1);
    should(warnings(problems)).match([{ tariffId: 'W', ruleIndex: 1, field: 'weekday' }]);
    should(compileTariff(t).rules[1].weekdayMask).equal((1 << 6) | (1 << 7));
  });

  it('the alias weekday alone works like weekdays, without a warning', () => {
    const t = withRule(1, (r) => {
      delete r.weekdays;
      r.weekday = [6, 7];
    });
    should(parseTariffs([t]).problems).eql([]);
    should(compileTariff(t).rules[1].weekdayMask).equal((1 << 6) | (1 << 7));
  });

  it('an empty weekday list means no restriction, with a warning', () => {
    const t = withRule(1, (r) => (r.weekdays = []), 'E');
    const { tariffs, problems } = parseTariffs([t]);
    should(tariffs).have.length(1);
    should(problems).match([{ severity: 'warning', tariffId: 'E', ruleIndex: 1, field: 'weekdays' }]);
    should(compileTariff(t).rules[1].weekdayMask).equal(0);
  });

  it('a sensor_condition other than eq is kept, never matches, with a warning', () => {
    const t = withRule(0, (r) => Object.assign(r, { gateway_id: 'g', sensor_id: '1', sensor_value: 1, sensor_condition: 'gt' }), 'S');
    const { tariffs, problems } = parseTariffs([t]);
    should(tariffs).have.length(1);
    should(problems).match([{ severity: 'warning', ruleIndex: 0, field: 'sensor_condition' }]);
    should(compileTariff(t).rules[0].sensorNever).be.true();
  });
});

describe('tariff: compiled form', () => {
  it('orders rules by ascending priority, equal priorities in array order, keeping original indexes', () => {
    const t: Tariff = {
      id: 'P',
      name: 'p',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 5, price: 1 },
        { priority: 1, price: 2 },
        { priority: 5, price: 3 },
        { priority: -2, price: 4 },
        { priority: 1, price: 5 },
      ],
    };
    should(compileTariff(t).rules.map((r) => r.ruleIndex)).eql([3, 1, 4, 0, 2]);
  });

  it('turns ranges into local milliseconds of the day and the boundaries where the price can change', () => {
    const t: Tariff = {
      id: 'R',
      name: 'r',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 1, price: 1, time_start: '22:00', time_end: '06:00:30' },
        { priority: 2, price: 2, time_start: '09:00', time_end: '24:00' },
        { priority: 3, price: 3, time_start: '07:00', time_end: '07:00' },
        { priority: 4, price: 4, time_start: '00:00', time_end: '24:00', weekdays: [1, 2, 3, 4, 5, 6, 7] },
      ],
    };
    const c = compileTariff(t);
    should(c.rules.map((r) => [r.timeKind, r.startMs, r.endMs])).eql([
      [TIME_WRAPS, 22 * 3600e3, 6 * 3600e3 + 30e3],
      [TIME_WITHIN, 9 * 3600e3, 24 * 3600e3],
      [TIME_ALWAYS, 0, 0],
      [TIME_ALWAYS, 0, 0],
    ]);
    should(c.rules[3].weekdayMask).equal(0); // all seven days is no condition
    should(c.boundariesMs).eql([0, 6 * 3600e3 + 30e3, 9 * 3600e3, 22 * 3600e3]);
    should(compileTariff(workdayTariff()).boundariesMs).eql([0, 9 * 3600e3, 17 * 3600e3]);
  });

  it('caches per tariff object but notices a tariff changed in place', () => {
    const t = workdayTariff();
    const first = compileTariff(t);
    should(compileTariff(t)).equal(first);
    t.rules[0].price = 0.55;
    should(compileTariff(t).rules[0].price).equal(0.55);
  });

  it('throws a TypeError for things that are not tariffs', () => {
    should(() => compileTariff(null)).throw(TypeError, { message: /^tariff #0: is not an object/ });
    should(() => compileTariff([workdayTariff()])).throw(TypeError);
  });
});

describe('tariff: sensorsUsedBy', () => {
  it('lists each sensor of the sensor rules once, in rule order', () => {
    const sensorRule = (gw: string, id: string, value: number) => ({
      priority: 1,
      price: 1,
      gateway_id: gw,
      sensor_id: id,
      sensor_value: value,
      sensor_condition: 'eq',
    });
    const t = workdayTariff();
    t.rules.push(sensorRule('gw2', 'e1.kwh', 1), sensorRule('gw1', '1', 1), sensorRule('gw2', 'e1.kwh', 0));
    should(sensorsUsedBy(t)).eql([
      { gatewayId: 'gw2', sensorId: 'e1.kwh' },
      { gatewayId: 'gw1', sensorId: '1' },
    ]);
    should(sensorsUsedBy(workdayTariff())).eql([]);
  });
});

describe('tariff: limits on what an answer may hold', () => {
  const rulesOf = (n: number) =>
    Array.from({ length: n }, (_, k) => ({ priority: k, price: k / 1000, time_start: '00:00', time_end: '00:00:01' }));
  const tariffWith = (id: string, rules: unknown[]): Tariff => ({ id, name: id, vat: 0, currency: 'EUR', rules: rules as Tariff['rules'] });

  it(`a tariff may have ${MAX_RULES_PER_TARIFF} rules; one more makes it invalid with one clear error`, () => {
    should(parseTariffs([tariffWith('full', rulesOf(MAX_RULES_PER_TARIFF))]).tariffs).have.length(1);
    const over = parseTariffs([tariffWith('over', rulesOf(MAX_RULES_PER_TARIFF + 1)), workdayTariff()]);
    should(over.tariffs.map((t) => t.id)).eql(['T1']);
    should(over.problems).eql([
      {
        severity: 'error',
        tariffId: 'over',
        ruleIndex: null,
        field: 'rules',
        message: `tariff "over": rules has ${MAX_RULES_PER_TARIFF + 1} rules, more than the ${MAX_RULES_PER_TARIFF} a tariff may have`,
      },
    ]);
    should(() => compileTariff(tariffWith('over', rulesOf(MAX_RULES_PER_TARIFF + 1)))).throw(/more than the 1000 a tariff may have/);
  });

  it(`reads the first ${MAX_TARIFFS_PER_ANSWER} tariffs of an answer and says the rest were left out`, () => {
    const answer = Array.from({ length: MAX_TARIFFS_PER_ANSWER + 5 }, (_, k) => workdayTariff(`T${k}`));
    const { tariffs, problems } = parseTariffs(answer);
    should(tariffs).have.length(MAX_TARIFFS_PER_ANSWER);
    should(tariffs[MAX_TARIFFS_PER_ANSWER - 1].id).equal(`T${MAX_TARIFFS_PER_ANSWER - 1}`);
    should(problems.map((p) => p.message)).eql([
      `the answer lists ${MAX_TARIFFS_PER_ANSWER + 5} tariffs, more than the ${MAX_TARIFFS_PER_ANSWER} allowed: only the first ${MAX_TARIFFS_PER_ANSWER} are read`,
    ]);
  });

  it(`a 2 MB answer of bare numbers gives ${MAX_PROBLEMS_PER_ANSWER} problems and one counting the rest`, () => {
    const body = `[${Array.from({ length: 1_000_000 }, () => '1').join(',')}]`;
    should(body.length).be.above(1.9e6);
    const { tariffs, problems } = parseTariffs(body);
    should(tariffs).eql([]);
    should(problems).have.length(MAX_PROBLEMS_PER_ANSWER + 1);
    should(problems[1].message).equal('tariff #0: is not an object (got 1)');
    const rest = 1 + MAX_TARIFFS_PER_ANSWER - MAX_PROBLEMS_PER_ANSWER;
    should(problems[MAX_PROBLEMS_PER_ANSWER]).eql({
      severity: 'error',
      tariffId: null,
      ruleIndex: null,
      field: null,
      message: `and ${rest} more problem${rest === 1 ? '' : 's'} (${rest} error${rest === 1 ? '' : 's'}), not listed (at most ${MAX_PROBLEMS_PER_ANSWER} are)`,
    });
    should(JSON.stringify(problems).length).be.below(20_000);
  });

  it('many bad rules in one tariff: the problem list stays bounded', () => {
    const rules = Array.from({ length: MAX_RULES_PER_TARIFF }, () => ({ priority: 'x', price: 'y' }));
    const { problems } = parseTariffs([tariffWith('bad', rules)]);
    should(problems).have.length(MAX_PROBLEMS_PER_ANSWER + 1);
    should(problems[MAX_PROBLEMS_PER_ANSWER].message).startWith(`and ${2 * MAX_RULES_PER_TARIFF - MAX_PROBLEMS_PER_ANSWER} more problems`);
  });

  it(`quotes at most ${MAX_QUOTED_CHARS} characters of any value, and refuses ids longer than ${MAX_ID_CHARS}`, () => {
    const huge = 'v'.repeat(1_000_000);
    const { problems } = parseTariffs([
      {
        id: 'q',
        name: 'q',
        currency: 'EUR',
        vat: huge,
        rules: [{ priority: 1, price: 1, sensor_condition: huge, gateway_id: 'g', sensor_id: 's', sensor_value: huge }],
      },
      { ...workdayTariff(), id: 'i'.repeat(MAX_ID_CHARS + 1) },
      {
        ...workdayTariff(),
        id: 'ok',
        rules: [
          { priority: 1, price: 1, gateway_id: 'g'.repeat(MAX_ID_CHARS + 1), sensor_id: 's', sensor_value: 1, sensor_condition: 'eq' },
        ],
      },
    ]);
    for (const p of problems) should(p.message.length).be.below(3 * MAX_QUOTED_CHARS + 100);
    should(problems.map((p) => [p.field, p.message.endsWith('…)') || p.message.includes('…')])).eql([
      ['vat', true],
      ['sensor_condition', false],
      ['sensor_value', true],
      ['sensor_condition', true],
      ['id', true],
      ['gateway_id', false],
    ]);
    should(problems[4].message).match(/id is longer than 200 characters$/);
    should(problems[4].tariffId!.length).equal(MAX_ID_CHARS);
    should(problems[5].message).equal('tariff "ok" rule 0: gateway_id is longer than 200 characters');
  });
});
