// What a Catch node gets from bad input to each node: a sentence saying what is wrong
// and what is expected, never "TypeError: …" or "RangeError: …" (the engine throws those
// classes for library callers; the nodes word them for Node-RED users).
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyCost = require('../../nodes/easy-cost');
import easyPlan = require('../../nodes/easy-plan');
import easyTariff = require('../../nodes/easy-tariff');
import { NodeProblem, asSentence, nodeProblem, settleOnce } from '../../nodes/lib/runtime/account/account-link';
import { GATEWAY, accountNode, catchNodes, helper, inbox, loadFlow, withSimulator } from './flow-support';

const CLASS_PREFIX = /^\s*[A-Za-z]*Error\b|\b(TypeError|RangeError|SyntaxError)\b/;

function assertSentence(text: string): void {
  should(text).not.match(CLASS_PREFIX);
  should(text).match(/^(msg\.\S+|[A-Z0-9"])/, `starts like a sentence: ${text}`);
  should(text).match(/[.!?]$/, `ends like a sentence: ${text}`);
}

describe('problems at a Catch node are sentences', () => {
  describe('asSentence and nodeProblem', () => {
    it('capitalises a plain first word, keeps an identifier, and ends with a full stop once', () => {
      should(asSentence('batch mode needs readings')).equal('Batch mode needs readings.');
      should(asSentence('msg.period must be one of today, got "x"')).equal('msg.period must be one of today, got "x".');
      should(asSentence('baseUrl must start with https://')).equal('baseUrl must start with https://.');
      should(asSentence('Done already.')).equal('Done already.');
      should(asSentence('  sensor 1: msg.payload must be a number ')).equal('Sensor 1: msg.payload must be a number.');
    });

    it('keeps the original error as cause and its code, and shows no class name', () => {
      const original = Object.assign(new TypeError('the access token contains spaces'), { code: 'bad_token' });
      const problem = nodeProblem(original);
      should(problem).be.instanceOf(NodeProblem);
      should(problem.cause).equal(original);
      should(problem.code).equal('bad_token');
      should(String(problem)).equal('The access token contains spaces.');
      should(nodeProblem(problem)).equal(problem);
      should(nodeProblem('plain text').message).equal('Plain text.');
    });

    it('settleOnce hands done() the worded problem, once', () => {
      const got: Array<Error | undefined> = [];
      const finish = settleOnce((err) => got.push(err));
      finish(new RangeError('the window (1 h) is shorter than the duration (2 h)'));
      finish(new Error('second'));
      should(got).have.length(1);
      should(String(got[0])).equal('The window (1 h) is shorter than the duration (2 h).');
    });
  });

  describe('through the runtime', () => {
    let sim: Simulator;
    beforeEach(async () => {
      sim = await withSimulator();
    });
    afterEach(async () => {
      await helper.unload();
      await sim.close();
    });

    async function caughtFrom(node: { type: string; [key: string]: unknown }, module: unknown, messages: Array<Record<string, unknown>>) {
      await loadFlow([module], [accountNode(sim, 'UTC'), { ...node, id: 'n', account: 'acc', wires: [[], []] }, ...catchNodes()]);
      const caught = inbox('caught');
      for (const msg of messages) helper.getNode('n').receive(msg);
      return (await caught.next(messages.length, 8000)).map((m) => m.error.message as string);
    }

    it('easy cost: batch, stream and range inputs the engine refuses', async () => {
      const errs = [
        ...(await caughtFrom({ type: 'easy-cost', tariff: 'DEMO-FLAT', mode: 'batch' }, easyCost, [
          { payload: 'abc' },
          {
            payload: [
              [Date.now(), 1],
              [1e300, 2],
            ],
          },
        ])),
      ];
      await helper.unload();
      errs.push(
        ...(await caughtFrom({ type: 'easy-cost', tariff: 'DEMO-FLAT', mode: 'stream' }, easyCost, [
          { payload: 'abc' },
          { payload: 1, ts: 1e300 },
          { payload: 1, reset: 42 },
        ])),
      );
      await helper.unload();
      errs.push(
        ...(await caughtFrom({ type: 'easy-cost', tariff: 'DEMO-FLAT', mode: 'range' }, easyCost, [
          { period: 'today' },
          { gateway: GATEWAY, period: 'constructor' },
          { gateway: GATEWAY, from: 2, to: 1 },
        ])),
      );
      should(errs).have.length(8);
      for (const text of errs) assertSentence(text);
      should(errs[0]).startWith('Batch mode needs msg.payload as an array of readings');
      should(errs[5]).startWith('Range mode needs msg.gateway');
    });

    it('easy tariff and easy plan: a message they cannot use', async () => {
      const errs = await caughtFrom({ type: 'easy-tariff', tariff: 'DEMO-WORKDAY', refresh: 60 }, easyTariff, [
        { payload: { nothing: true } },
        { payload: 'chart', days: 99 },
      ]);
      await helper.unload();
      errs.push(
        ...(await caughtFrom(
          {
            type: 'easy-plan',
            tariff: 'DEMO-WORKDAY',
            durationHours: 1,
            durationMinutes: 0,
            mode: 'daily',
            from: '22:00',
            until: '07:00',
            contiguous: false,
            maxPrice: '',
          },
          easyPlan,
          [{ duration: -5 }],
        )),
      );
      for (const text of errs) assertSentence(text);
    });
  });
});
