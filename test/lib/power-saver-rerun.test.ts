// docs/power-saver.md's comparison with power-saver 5.2.2, re-run (bench/power-saver-rerun.ts
// and power-saver-best-save.ts, printed by npm run compare:power-saver): easy plan stays
// exact on power-saver's own Lowest Price fixtures and on generated Best Save cases, the
// ports plan as power-saver's own tests expect, and every figure the page quotes is the
// one the re-run finds today (a change of either planner fails here until the page says
// what it does).
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';
import { Settings } from 'luxon';
import { groupDigits } from '../../nodes/lib/engine/common/format';
import { bestSaveCases, bestSaveRerun, BestSaveSummary, peerRuleSaving } from '../../bench/power-saver-best-save';
import { LOWEST_PRICE_CASES } from '../../bench/power-saver-cases';
import { lowestPriceRerun, LowestPriceSummary } from '../../bench/power-saver-rerun';
import { calculate, isOnOffSequencesOk } from '../../bench/peer-best-save';

const DOC = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'power-saver.md'), 'utf8').replace(/\s+/g, ' ');
const BEST_SAVE_CASES = 1500;
const ZONE_BEFORE = Settings.defaultZone.name;

function quotes(phrase: string): void {
  should(DOC.includes(phrase)).be.true(
    `docs/power-saver.md should say "${phrase}": what the re-run finds today (npm run compare:power-saver prints it; update the page's "The re-run" and "Exactness")`,
  );
}

describe('docs/power-saver.md: the re-run against power-saver 5.2.2', function () {
  this.timeout(60_000);
  let lowest: LowestPriceSummary;
  let save: BestSaveSummary;
  before(() => {
    lowest = lowestPriceRerun();
    save = bestSaveRerun(BEST_SAVE_CASES);
  });

  it('Lowest Price: every window of the fixtures planned at the optimum, the settings restored after', () => {
    should(lowest.windows).be.above(30);
    should(lowest.oursOptimal).equal(lowest.windows, JSON.stringify(lowest.rows.filter((r) => !r.oursOptimal)));
    should(lowest.outcomes['ours worse']).equal(0);
    should(Settings.defaultZone.name).equal(ZONE_BEFORE);
  });

  it("the ports plan as power-saver's own tests expect", () => {
    // Lowest Price: every window whose schedule a test states (result files, schedules in the tests)
    should(lowest.statedByTests).be.above(30);
    should(lowest.peerAsItsTests).equal(lowest.statedByTests, JSON.stringify(lowest.rows.filter((r) => r.peerAsItsTest === false)));
    // Best Save's sequence rule: power-saver's test/mostSavedStrategy.test.js
    const onOff = [true, true, false, false, false, true, true, false];
    should(isOnOffSequencesOk([], 0, 0, 1)).be.true();
    should(isOnOffSequencesOk([true], 0, 0, 1)).be.true();
    should(isOnOffSequencesOk([false], 0, 0, 1)).be.false();
    should(isOnOffSequencesOk([true, false], 0, 0, 1)).be.false();
    should(isOnOffSequencesOk([true, false], 1, 0, 1)).be.true();
    should(isOnOffSequencesOk(onOff, 3, 2, 1)).be.true();
    should(isOnOffSequencesOk(onOff, 4, 2, 1)).be.true();
    should(isOnOffSequencesOk(onOff, 2, 2, 1)).be.false();
    should(isOnOffSequencesOk(onOff, 3, 3, 100)).be.false();
    should(isOnOffSequencesOk(onOff, 3, 3, 50)).be.true();
    should(isOnOffSequencesOk(onOff, 3, 3, 50, 3)).be.true();
    should(isOnOffSequencesOk(onOff, 3, 3, 90)).be.false();
    should(isOnOffSequencesOk(onOff, 3, 3, 100, null)).be.false();
    const runs: Array<[number, boolean]> = [
      [465, true],
      [75, false],
      [541, true],
      [74, false],
      [15, true],
      [75, false],
      [1335, true],
      [75, false],
      [315, true],
    ];
    should(
      isOnOffSequencesOk(
        runs.flatMap(([count, value]) => Array<boolean>(count).fill(value)),
        75,
        15,
        85,
      ),
    ).be.false();
  });

  it("Lowest Price: the page quotes the re-run's figures", () => {
    const { windows, outcomes } = lowest;
    should(lowest.peerOptimal).equal(lowest.oursOptimal, 'the page says both are optimal in as many windows');
    quotes(`${LOWEST_PRICE_CASES.length} settings, ${windows} windows`);
    quotes(`On power-saver's own Lowest Price fixtures: optimal in ${lowest.oursOptimal} of ${windows} windows.`);
    quotes(
      `Lowest Price: optimal in ${lowest.peerOptimal} of ${windows} windows of its own fixtures (the same minutes as easy plan in ${outcomes.same}, other minutes of the same cost in ${outcomes.tie}).`,
    );
    quotes(`both optimal in ${lowest.oursOptimal} of ${windows}, the same minutes in ${outcomes.same}, ties in ${outcomes.tie}`);
    quotes(`plans ${lowest.peerAsItsTests} of the ${lowest.statedByTests} windows whose schedule power-saver's tests state as they expect`);
    const hhmm = (window: string) => window.replace(/\d{4}-\d\d-\d\dT/, '');
    const blocks = (b: string[]) => b.join(' and ') || 'nothing';
    for (const row of lowest.rows.filter((r) => r.outcome === 'tie')) {
      quotes(`${row.test}, ${hhmm(row.window)}: easy plan ${blocks(row.oursBlocks)}, power-saver ${blocks(row.peerBlocks)}`);
    }
    should(outcomes.semantics + outcomes['peer worse']).equal(0, 'the page names no other outcome');
  });

  it("Best Save: easy plan at its own rule's optimum in every case; the peer's plans pass the peer's rule", () => {
    should(save.oursOptimalOwnRule).equal(save.cases);
    should(save.peerRefused).equal(0);
    // the brute force is not vacuous: most cases switch something off
    const saving = bestSaveCases(200).filter((k) =>
      calculate(k.values, k.maxMinutesOff, k.minMinutesOff, k.recoveryPercentage, k.recoveryMaxMinutes, k.minSaving).includes(false),
    );
    should(saving.length).be.above(100);
    should(
      peerRuleSaving(
        saving[0],
        saving[0].values.map(() => false),
      ),
    ).be.null();
  });

  it("Best Save: the page quotes the re-run's figures", () => {
    const g = groupDigits;
    const s = save;
    quotes(
      `optimal in ${g(s.oursOptimalOwnRule)} of ${g(s.cases)} generated cases under its own rule (rule 36, the least saving at every minute off, its default), in ${g(s.oursOptimal)} under power-saver's`,
    );
    quotes(
      `optimal under its own rule in ${g(s.peerOptimal)} of ${g(s.cases)} generated cases; where both rules allow the same most, in ${g(s.peerOptimalWhereSame)} of ${g(s.sameOptimum)} (easy plan ${g(s.oursOptimalWhereSame)})`,
    );
    quotes(`on ${g(s.cases)} generated cases`);
    quotes(`easy plan optimal in ${g(s.oursOptimal)}, power-saver's greedy search in ${g(s.peerOptimal)}.`);
    quotes(
      `Of easy plan's other ${g(s.cases - s.oursOptimal)}, power-saver's rule refuses ${g(s.oursRefused)} for an off run that saves exactly the least saving`,
    );
    quotes(`and allows more in ${g(s.cases - s.oursOptimal - s.oursRefused)}`);
    quotes(
      `Where both rules allow the same most (${g(s.sameOptimum)} cases): easy plan ${g(s.oursOptimalWhereSame)}, power-saver ${g(s.peerOptimalWhereSame)}.`,
    );
    quotes(
      `Under easy plan's own rule (docs/semantics.md rule 36, the least saving at every minute off): ${g(s.oursOptimalOwnRule)} of ${g(s.cases)}.`,
    );
  });
});
