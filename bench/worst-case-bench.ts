// npm run bench, worst case: tariffs at the rule limit made of one-second windows, as a
// hostile or broken service could send them, priced, searched for the next change,
// scheduled for 7 days and charted; each as the median of fresh tariff objects (so the
// compile and the day profiles are in every run, as after each fetch), with the ratio
// to the interface's 3-rule tariff measured in the same rounds. Then the memory one
// 2 MB answer of bare numbers costs to read, in a child process of its own.
import { spawnSync } from 'child_process';
import * as os from 'os';
import { chartData } from '../nodes/lib/editor/editor-data';
import { MAX_RULES_PER_TARIFF } from '../nodes/lib/engine/common/limits';
import { nextPriceChange, priceAt, schedule } from '../nodes/lib/engine/prices/price-source';
import { readTariffs } from '../nodes/lib/api/responses';
import type { Rule, Tariff } from '../nodes/lib/engine/tariff/tariff';
import { BASELINE_TARIFF, interleaved } from './measure';

const ZONE = 'Europe/London';
const ROUNDS = 15;
const TARGET_MS = 50;
const NOW = Date.UTC(2026, 2, 25, 12); // the chart's week holds the change to summer time
const WEEK_MS = 7 * 86400000;

const two = (n: number) => String(n).padStart(2, '0');
const clock = (sec: number) => `${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)}`;

/**
 * MAX_RULES_PER_TARIFF rules, each a one-second window spread over the day (two
 * boundaries each), the last a fallback. `mixed`: every rule also on some weekdays,
 * every other one on one of 50 sensors. `flat`: every price equal, so no price changes
 * within the horizon and nextPriceChange must look at all of it.
 */
function worstTariff(variant: 'windows' | 'mixed' | 'flat'): Tariff {
  const n = MAX_RULES_PER_TARIFF - 1;
  const rules: Rule[] = [];
  for (let k = 0; k < n; k++) {
    const start = Math.floor((k * 86399) / n);
    const rule: Rule = {
      priority: k,
      price: variant === 'flat' ? 0.1 : 0.1 + k / 1e4,
      time_start: clock(start),
      time_end: clock(start + 1),
    };
    if (variant === 'mixed') {
      rule.weekdays = [1 + (k % 7), 1 + ((k + 3) % 7)];
      if (k % 2 === 0) Object.assign(rule, { gateway_id: 'gw', sensor_id: `s${k % 50}`, sensor_value: k % 3, sensor_condition: 'eq' });
    }
    rules.push(rule);
  }
  rules.push({ priority: n, price: 0.1 });
  return { id: variant, name: variant, vat: 20, currency: 'GBP', rules };
}

/** Sensor values for the mixed tariff: a third of the sensors known. */
function sensorsFor(t: Tariff): { gw: Record<string, number> } | undefined {
  if (t.id !== 'mixed') return undefined;
  const gw: Record<string, number> = Object.create(null);
  for (let s = 0; s < 50; s += 3) gw[`s${s}`] = s % 3;
  return { gw };
}

type Op = (t: Tariff) => unknown;
const OPS: Array<[string, Op]> = [
  ['priceAt', (t) => priceAt(t, NOW, { timezone: ZONE, sensors: sensorsFor(t) })],
  ['nextPriceChange', (t) => nextPriceChange(t, NOW, { timezone: ZONE, sensors: sensorsFor(t) })],
  ['schedule, 7 days', (t) => schedule(t, NOW, NOW + WEEK_MS, { timezone: ZONE, sensors: sensorsFor(t) })],
  ['chartData', (t) => chartData(t, NOW, ZONE)],
];

/**
 * A fresh copy of `t` per call, so nothing compiled for the previous run is reused; the
 * copies are made before the timing starts, so copying is not timed.
 */
function freshCopies(t: Tariff, count: number): () => Tariff {
  const copies = Array.from({ length: count }, (): Tariff => JSON.parse(JSON.stringify(t)));
  return () => copies.pop() as Tariff;
}

/** Child process: peak RSS growth of reading a 2 MB answer of bare numbers, and what it gives. */
async function hostileAnswerMemory(): Promise<{ bytes: number; rssMiB: number; problems: number; answerChars: number }> {
  const body = `[${Array.from({ length: 1_000_000 }, () => '7').join(',')}]`;
  const gc = (global as { gc?: () => void }).gc!;
  gc();
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  const parsed = await readTariffs(body, 'application/json');
  const peak = process.resourceUsage().maxRSS * 1024;
  return {
    bytes: body.length,
    rssMiB: (Math.max(peak, peakBefore) - Math.max(rssBefore, peakBefore)) / 1048576,
    problems: parsed.problems.length,
    answerChars: JSON.stringify(parsed).length,
  };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--memory') {
    process.stdout.write(JSON.stringify(await hostileAnswerMemory()));
    return;
  }
  const base = BASELINE_TARIFF;
  const variants: Array<[string, Tariff]> = [
    [`${MAX_RULES_PER_TARIFF} one-second windows`, worstTariff('windows')],
    ['  with weekdays and sensors', worstTariff('mixed')],
    ['  all at one price', worstTariff('flat')],
  ];
  console.log(`worst case: tariffs at the rule limit (${MAX_RULES_PER_TARIFF} rules), ${ZONE}, a fresh tariff object each run`);
  console.log(`  (compile and day profiles included); medians of ${ROUNDS} rounds, interleaved with the 3-rule tariff`);
  console.log(
    `  (ratio = worst / 3-rule); target <= ${TARGET_MS} ms each; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`,
  );
  for (const [label, op] of OPS) {
    for (const [name, worst] of variants) {
      const worstCopy = freshCopies(worst, ROUNDS + 3);
      const baseCopy = freshCopies(base, ROUNDS);
      for (let k = 0; k < 3; k++) op(worstCopy()); // warm up the JIT
      const [ms, baseMs] = interleaved(ROUNDS, [{ fn: () => op(worstCopy()) }, { fn: () => op(baseCopy()) }]);
      const verdict = ms <= TARGET_MS ? 'ok' : 'OVER TARGET';
      console.log(
        `  ${label.padEnd(17)} ${name.padEnd(30)} ${ms.toFixed(2).padStart(8)} ms   3-rule ${baseMs.toFixed(3).padStart(7)} ms   ratio ${(ms / baseMs).toFixed(0).padStart(5)} x   ${verdict}`,
      );
    }
  }
  const out = spawnSync(process.execPath, ['--expose-gc', __filename, '--memory'], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  const m = JSON.parse(out.stdout) as Awaited<ReturnType<typeof hostileAnswerMemory>>;
  const size = (m.bytes / 1048576).toFixed(1);
  console.log(`reading a ${size} MiB answer of bare numbers (readTariffs): peak RSS +${m.rssMiB.toFixed(1)} MiB`);
  console.log(`  (JSON.parse's list of a million numbers, garbage right after the call);`);
  console.log(`  ${m.problems} problems, the result ${(m.answerChars / 1024).toFixed(1)} KiB as JSON`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
