// npm run compare:power-saver: docs/power-saver.md's comparison re-run and printed (the
// figures come from bench/power-saver-rerun.ts and power-saver-best-save.ts;
// test/lib/power-saver-rerun.test.ts holds the page to them), with Best Save's speed on a
// day of quarter-hour prices.
import * as os from 'os';
import { savingOffWindows } from '../nodes/lib/engine/plan/plan-saving';
import { interleaved } from './measure';
import { calculate } from './peer-best-save';
import { bestSaveRerun } from './power-saver-best-save';
import { LOWEST_PRICE_CASES } from './power-saver-cases';
import { lowestPriceRerun } from './power-saver-rerun';

const BEST_SAVE_CASES = 1500;

function lowestPrice(): void {
  const r = lowestPriceRerun();
  console.log(
    `Lowest Price: power-saver 5.2.2's own test fixtures (test/fixtures/power-saver), ${LOWEST_PRICE_CASES.length} settings, ${r.windows} windows; cost of 1 kW (price × hours)`,
  );
  console.log(`  ${'power-saver test'.padEnd(32)}${'window'.padEnd(24)}   min      easy plan    power-saver        optimum   outcome`);
  for (const row of r.rows) {
    console.log(
      `  ${row.test.padEnd(32)}${row.window.padEnd(24)}${String(row.minutes).padStart(6)}${row.ours.toFixed(6).padStart(15)}${row.peer.toFixed(6).padStart(15)}${row.best.toFixed(6).padStart(15)}   ${row.outcome}`,
    );
  }
  for (const row of r.rows.filter((x) => x.outcome !== 'same')) {
    console.log(
      `  ${row.test}, ${row.window}: easy plan ${row.oursBlocks.join(', ') || 'nothing'}; power-saver ${row.peerBlocks.join(', ') || 'nothing'}`,
    );
  }
  console.log(
    `  the port plans ${r.peerAsItsTests} of the ${r.statedByTests} windows whose schedule power-saver's tests state as they expect`,
  );
  const o = r.outcomes;
  console.log(
    `  optimal: easy plan ${r.oursOptimal} of ${r.windows}, power-saver ${r.peerOptimal} of ${r.windows}; the same minutes in ${o.same}, ` +
      `other minutes of the same cost (ties) in ${o.tie}, different price-limit rules in ${o.semantics}, easy plan worse in ${o['ours worse']}, power-saver worse in ${o['peer worse']}`,
  );
}

function bestSave(): void {
  const s = bestSaveRerun(BEST_SAVE_CASES);
  console.log(`Best Save: ${s.cases} generated cases (4-12 minutes of prices), against a brute force over every on/off assignment`);
  console.log(
    `  under power-saver's rule: easy plan optimal in ${s.oursOptimal}, power-saver's greedy search in ${s.peerOptimal}; ` +
      `refused by that rule: easy plan ${s.oursRefused} (an off run saving exactly minSaving), power-saver ${s.peerRefused}`,
  );
  console.log(
    `  where both rules allow the same most (${s.sameOptimum} cases): easy plan optimal in ${s.oursOptimalWhereSame}, power-saver in ${s.peerOptimalWhereSame}`,
  );
  console.log(
    `  under easy plan's rule (docs/semantics.md rule 36, the least saving at every minute off, its default, as planned here): easy plan optimal in ${s.oursOptimalOwnRule}; ` +
      `easy plan saves less than power-saver's rule allows in ${s.cases - s.oursOptimal - s.oursRefused} (that rule lets an off minute save less than minSaving, and rounds the recovery to the nearest minute)`,
  );
}

/** Best Save on a day of quarter-hour prices (1,440 minutes), both planners, medians of interleaved rounds. */
function bestSaveSpeed(): void {
  const from = Date.parse('2026-01-05T00:00:00Z');
  const quarters = Array.from({ length: 96 }, (_, k) => 0.05 + ((k * 7919) % 1009) / 2000);
  const values = quarters.flatMap((p) => Array<number>(15).fill(p));
  const clock = (q: number) => `${String(Math.floor(q / 4) % 24).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
  const tariff = {
    id: 'q',
    name: 'quarter hours',
    vat: 0,
    currency: 'EUR',
    rules: quarters.map((price, q) => ({ priority: q + 1, price, time_start: clock(q), time_end: clock(q + 1) })),
  };
  console.log(
    `Best Save speed, a day of quarter-hour prices (1,440 minutes), recovery 50 %, medians (node ${process.version}, load ${os.loadavg()[0].toFixed(2)}):`,
  );
  for (const maxOff of [15, 30, 60]) {
    const variants = [
      {
        fn: () =>
          savingOffWindows(tariff, { timezone: 'UTC', from, to: from + 86_400_000, maxOffInRow: maxOff * 60_000, recoveryPercent: 50 }),
      },
      { fn: () => calculate(values, maxOff, 0, 50, null, 0) },
    ];
    interleaved(3, variants); // the first rounds warm the JIT
    const [ours, peer] = interleaved(15, variants);
    console.log(
      `  at most ${String(maxOff).padStart(2)} min off: easy plan ${ours.toFixed(2)} ms, power-saver ${peer.toFixed(1)} ms (easy plan ${(peer / ours).toFixed(0)} x faster)`,
    );
  }
}

lowestPrice();
bestSave();
bestSaveSpeed();
