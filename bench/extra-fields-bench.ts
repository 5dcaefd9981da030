// npm run bench, extra fields: engine calls on a tariff that carries ~1.9 MB of fields the
// engine does not read (kept and ignored, semantics rule 7), beside the same tariff
// without them, in the same interleaved rounds. The same tariff object is used call after
// call, as a flow does with the tariffs of one fetch: per-call cost must follow the rules,
// not the size of the object. Target: within 2x of the plain tariff.
import * as os from 'os';
import { computeCost } from '../nodes/lib/engine/cost/cost';
import { cheapestWindows } from '../nodes/lib/engine/plan/plan';
import { nextPriceChange, priceAt } from '../nodes/lib/engine/prices/price-source';
import { MAX_RULES_PER_TARIFF } from '../nodes/lib/engine/common/limits';
import type { Rule, Tariff } from '../nodes/lib/engine/tariff/tariff';
import { BASELINE_TARIFF, interleaved } from './measure';

const ZONE = 'Europe/London';
const ROUNDS = 41;
const TARGET_RATIO = 2;
const NOW = Date.UTC(2026, 2, 25, 12);
const HOUR = 3_600_000;

/** An ordinary day of 96 quarter-hour price slots (a dynamic tariff), every day of the week. */
function slotsTariff(): Tariff {
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = (q: number) => (q === 96 ? '24:00' : `${two(Math.floor(q / 4))}:${two((q % 4) * 15)}`);
  const rules: Rule[] = [];
  for (let q = 0; q < 96; q++)
    rules.push({ priority: q, price: 0.1 + ((q * 37) % 23) / 100, time_start: clock(q), time_end: clock(q + 1) });
  return { id: 'slots', name: '96 quarter hours', vat: 20, currency: 'GBP', rules };
}

/** At the rule limit: one-minute windows spread over the day, then a fallback. */
function limitTariff(): Tariff {
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = (min: number) => `${two(Math.floor(min / 60))}:${two(min % 60)}`;
  const n = MAX_RULES_PER_TARIFF - 1;
  const rules: Rule[] = [];
  for (let k = 0; k < n; k++) {
    const start = Math.floor((k * 1439) / n);
    rules.push({ priority: k, price: 0.1 + k / 1e4, time_start: clock(start), time_end: clock(start + 1) });
  }
  rules.push({ priority: n, price: 0.1 });
  return { id: 'limit', name: 'one-minute windows', vat: 20, currency: 'GBP', rules };
}

/**
 * The same tariff with ~1.9 MB of extra fields: a price history at the top and a note on
 * every rule, as an API or a function node might add them.
 */
export function withExtraFields(t: Tariff, bytes = 1.9e6): Tariff {
  const copy = JSON.parse(JSON.stringify(t)) as Tariff;
  copy.rules.forEach((rule, k) => Object.assign(rule, { note: `rule ${k}: ${'n'.repeat(80)}`, source: { feed: 'market', k } }));
  const history: unknown[] = [];
  const entry = (k: number) => ({ at: NOW - k * 900_000, price: 0.1 + Math.sin(k) / 10, volume: Math.cos(k) * 1e3, flags: [k % 2, k % 3] });
  let size = JSON.stringify(copy).length;
  for (let k = 0; size < bytes; k++) {
    const e = entry(k);
    history.push(e);
    size += JSON.stringify(e).length + 1;
  }
  copy.history = history;
  return copy;
}

/** Readings every 5 minutes over a day. */
const READINGS: Array<[number, number]> = Array.from({ length: 289 }, (_, k) => [NOW - 24 * HOUR + k * 300_000, k * 0.25]);

type Op = (t: Tariff) => unknown;
export const ENGINE_OPS: Array<[string, Op]> = [
  ['priceAt', (t) => priceAt(t, NOW, { timezone: ZONE })],
  ['nextPriceChange', (t) => nextPriceChange(t, NOW, { timezone: ZONE })],
  ['computeCost, a day', (t) => computeCost(t, READINGS, { timezone: ZONE })],
  ['cheapestWindows, 24 h', (t) => cheapestWindows(t, { timezone: ZONE, from: NOW, to: NOW + 24 * HOUR, duration: 3 * HOUR })],
];

function main(): void {
  console.log(
    `extra fields: the same tariff object call after call, plain and with ~1.9 MB of extra fields; medians of ${ROUNDS} interleaved rounds`,
  );
  console.log(`  target: ratio <= ${TARGET_RATIO} x; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
  for (const plain of [BASELINE_TARIFF, slotsTariff(), limitTariff()]) {
    const heavy = withExtraFields(plain);
    const mb = (JSON.stringify(heavy).length / 1e6).toFixed(2);
    console.log(`  ${plain.name} (${plain.rules.length} rules; with extras ${mb} MB of JSON)`);
    for (const [label, op] of ENGINE_OPS) {
      // warm up the JIT and the caches
      for (let k = 0; k < 3; k++) {
        op(plain);
        op(heavy);
      }
      const [plainMs, heavyMs] = interleaved(ROUNDS, [{ fn: () => op(plain) }, { fn: () => op(heavy) }]);
      const ratio = heavyMs / plainMs;
      console.log(
        `    ${label.padEnd(22)} plain ${plainMs.toFixed(4).padStart(9)} ms   extras ${heavyMs.toFixed(4).padStart(9)} ms   ratio ${ratio.toFixed(2).padStart(7)} x   ${ratio <= TARGET_RATIO ? 'ok' : 'OVER TARGET'}`,
      );
    }
  }
}

if (require.main === module) main();
