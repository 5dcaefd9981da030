// The event loop of a Node-RED running a tariff at the rule limit made of one-second
// windows (npm run bench's event-loop figures, run here as a child process for a few
// seconds): easy-tariff re-prices every second while the editor's calls arrive, and no
// call or block comes near the multi-second stalls such a tariff once caused. The bound
// is generous (a loaded, shared machine); the bench prints the real figures.
import should from 'should';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { JSON_MARK, LoopFigures } from '../../bench/event-loop-bench';

const BENCH = path.join(__dirname, '..', '..', 'dist', 'bench', 'event-loop-bench.js');
/** Far above the 100 ms target, far below the seconds a quadratic engine took. */
const GENEROUS_MS = 1000;

describe('reliability: the event loop with a worst-case tariff', function () {
  this.timeout(180000);

  it('stays responsive: no block, GET /settings or schedule call near a second, easy-tariff re-pricing every second', () => {
    if (!fs.existsSync(BENCH)) throw new Error('run `npm run build` first: the bench runs from dist/');
    const run = spawnSync(process.execPath, [BENCH, '--json', '--seconds', '6'], { encoding: 'utf8', timeout: 150000 });
    should(run.status).equal(0, run.stderr);
    const mark = run.stdout.split('\n').find((l) => l.startsWith(`${JSON_MARK} `));
    should(mark).be.ok();
    const { worst, base } = JSON.parse(mark!.slice(JSON_MARK.length + 1)) as { worst: LoopFigures; base: LoopFigures };
    should(worst.rules).equal(1000);
    should(base.rules).equal(3);
    should(worst.prices).be.aboveOrEqual(3); // a change every second: it really re-priced
    should(worst.settings.calls).be.aboveOrEqual(10);
    should(worst.schedule.calls).be.aboveOrEqual(3);
    for (const f of [worst, base]) {
      should(f.maxBlockMs).be.below(GENEROUS_MS, `${f.tariff}: event loop blocked ${f.maxBlockMs} ms`);
      should(f.settings.maxMs).be.below(GENEROUS_MS, `${f.tariff}: GET /settings took ${f.settings.maxMs} ms`);
      should(f.schedule.maxMs).be.below(GENEROUS_MS, `${f.tariff}: the schedule route took ${f.schedule.maxMs} ms`);
    }
  });
});
