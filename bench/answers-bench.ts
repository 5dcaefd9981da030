// npm run bench, big answers: what reading an answer of 2 MiB (the client's body limit)
// costs the event loop. Each kind is read the way the client reads it (responses.ts) while
// a setImmediate ticker notes every turn of the loop; printed per kind: the whole read,
// the worst block (the longest stretch without a turn, from the call to the result) and,
// for comparison, JSON.parse of the same text alone (which cannot be cut). Target: no
// block over 250 ms.
import * as os from 'os';
import { readReadings, readSensors, readTariffs } from '../nodes/lib/api/responses';
import { BIG_ANSWERS, HOSTILE_ANSWERS } from './big-answers';
import { elapsedMs, median } from './measure';

const RUNS = 5;
const TARGET_BLOCK_MS = 250;
/** Hostile shapes: read in slices from the first character (api/json-slices.ts), so a tighter target. */
const HOSTILE_TARGET_MS = 100;

/** Reads `body` as the client reads an answer of that kind. */
export function readAnswer(kind: string, body: string, contentType: string): Promise<unknown> {
  if (kind.startsWith('sensors')) return Promise.resolve(readSensors(body, contentType, 'GW'));
  if (kind === 'tariffs') return Promise.resolve(readTariffs(body, contentType));
  return Promise.resolve(readReadings(body, contentType));
}

/** Notes every turn of the event loop until stopped; `stop` gives the longest gap, ms. */
export function watchLoop(): { turns: () => number; stop: () => number } {
  let last = process.hrtime.bigint();
  let worst = 0n;
  let turns = 0;
  const tick = () => {
    const now = process.hrtime.bigint();
    if (now - last > worst) worst = now - last;
    last = now;
    turns++;
    handle = setImmediate(tick);
  };
  let handle = setImmediate(tick);
  return {
    turns: () => turns,
    stop: () => {
      clearImmediate(handle);
      const now = process.hrtime.bigint();
      return Number(now - last > worst ? now - last : worst) / 1e6;
    },
  };
}

/** The whole read and the event loop's worst block during it, ms (an answer refused counts 0 items). */
async function measured(kind: string, body: string, contentType: string): Promise<{ totalMs: number; worstMs: number; items: number }> {
  const t0 = process.hrtime.bigint();
  const loop = watchLoop();
  const result = await readAnswer(kind, body, contentType).catch(() => []);
  const worstMs = loop.stop();
  const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const items = Array.isArray(result) ? result.length : (result as { tariffs: unknown[] }).tariffs.length;
  return { totalMs, worstMs, items };
}

async function main(): Promise<void> {
  console.log(`big answers: 2 MiB each, read as the client reads them; medians of ${RUNS} runs, worst block = the longest the event`);
  console.log(
    `  loop was held (a setImmediate ticker); target <= ${TARGET_BLOCK_MS} ms; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`,
  );
  for (const { kind, body: make, contentType } of BIG_ANSWERS) {
    const body = make();
    await readAnswer(kind, body, contentType); // warm up
    const runs: Array<{ totalMs: number; worstMs: number; items: number }> = [];
    for (let r = 0; r < RUNS; r++) runs.push(await measured(kind, body, contentType));
    const parseMs = kind.endsWith('CSV') ? NaN : median(Array.from({ length: RUNS }, () => elapsedMs(() => JSON.parse(body))));
    const worst = median(runs.map((r) => r.worstMs));
    const worstOfAll = Math.max(...runs.map((r) => r.worstMs));
    console.log(
      `  ${kind.padEnd(14)} ${(body.length / 1048576).toFixed(2)} MiB ${String(runs[0].items).padStart(6)} items   read ${median(
        runs.map((r) => r.totalMs),
      )
        .toFixed(0)
        .padStart(
          5,
        )} ms   worst block ${worst.toFixed(0).padStart(4)} ms (max ${worstOfAll.toFixed(0).padStart(4)})   JSON.parse alone ${Number.isNaN(parseMs) ? '   -' : parseMs.toFixed(0).padStart(4)} ms   ${worstOfAll <= TARGET_BLOCK_MS ? 'ok' : 'OVER TARGET'}`,
    );
  }
  console.log(
    `hostile shapes, 2 MiB each (the costliest JSON for its size); target <= ${HOSTILE_TARGET_MS} ms; "JSON.parse alone" is the block of one parse`,
  );
  for (const { kind, read, body: make } of HOSTILE_ANSWERS) {
    const body = make();
    await readAnswer(read, body, 'application/json').catch(() => undefined); // warm up
    const runs: Array<{ totalMs: number; worstMs: number; items: number }> = [];
    for (let r = 0; r < RUNS; r++) runs.push(await measured(read, body, 'application/json'));
    const parseMs = median(Array.from({ length: RUNS }, () => elapsedMs(() => JSON.parse(body))));
    const worst = median(runs.map((r) => r.worstMs));
    const worstOfAll = Math.max(...runs.map((r) => r.worstMs));
    console.log(
      `  ${kind.padEnd(14)} ${(body.length / 1048576).toFixed(2)} MiB as ${read.padEnd(13)} read ${median(runs.map((r) => r.totalMs))
        .toFixed(0)
        .padStart(
          5,
        )} ms   worst block ${worst.toFixed(0).padStart(4)} ms (max ${worstOfAll.toFixed(0).padStart(4)})   JSON.parse alone ${parseMs
        .toFixed(0)
        .padStart(4)} ms (${(parseMs / worst).toFixed(1)}x the worst block)   ${worst <= HOSTILE_TARGET_MS ? 'ok' : 'OVER TARGET'}`,
    );
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
