// easy-peak's dialog route (POST /easy-account/peaks) in the real runtime against the
// simulator: this month's peaks of a meter from the archive equal the engine's
// demandWindows and monthlyPeaks over the same archive, and bad settings are said in words.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';
import { monthlyPeaks } from '../../nodes/lib/engine/peak/monthly-peaks';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import easyAccount = require('../../nodes/easy-account');
import easyPeak = require('../../nodes/easy-peak');
import { FakeClock, helper, installClock, TOKEN, withSimulator } from './flow-support';

const ZONE = 'Europe/Brussels';
/**
 * The clock the route and the simulator run at: nine days into a month, so the meter has
 * complete windows on distinct days whatever the day the suite runs (the real 1st of a
 * month has none: the peaks' check would compare two empty lists).
 */
const NOW = Date.parse('2026-03-10T10:17:00Z');

async function post(body: object) {
  const res = await (helper as any).request().post('/easy-account/peaks').send(body).set('Content-Type', 'application/json');
  return { status: res.status as number, body: res.body, text: res.text as string };
}

describe("easy-peak's dialog: this month's peaks from the archive", function () {
  let sim: Simulator;
  let clock: FakeClock | null = null;

  before(async () => {
    // the simulator reads the (fake) clock at each request
    sim = await withSimulator({ now: () => Date.now() });
  });
  after(async () => sim.close());
  beforeEach(async () => {
    clock = installClock(NOW);
    await helper.load([easyAccount, easyPeak], [{ id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE }], {
      acc: { token: TOKEN },
    });
  });
  afterEach(async () => {
    await helper.unload();
    clock?.uninstall();
    clock = null;
  });

  it("counts the deployed account's archive with the settings as typed, as the engine does", async () => {
    const settings = { minutes: '30', top: '3', distinctDays: true };
    const r = await post({ id: 'acc', gateway: 'DEMO', sensor: 'e1.kwh', settings });
    should(r.status).equal(200);
    should(r.text).not.match(new RegExp(TOKEN));
    const now = Date.now();
    should(now).equal(NOW);
    const { from } = localPeriod('month', now, { timezone: ZONE });
    should(r.body).match({ gateway: 'DEMO', sensor: 'e1.kwh', timezone: ZONE, minutes: 30, month: { fromMs: from } });
    // the same archive through the engine: the answer's month is monthlyPeaks of demandWindows
    const archive = await (helper.getNode('acc') as any).hub.fetchData('DEMO', 'e1.kwh', from, now);
    const windows = demandWindows(archive, { timezone: ZONE, minutes: 30, from, to: now });
    const [month] = monthlyPeaks(windows, { timezone: ZONE, top: 3, distinctDays: true }).filter((m) => m.from === from);
    should(r.body.readings).equal(archive.length);
    // nine days into the month the simulator's meter has complete windows: the comparison is not of two empty lists
    should(r.body.month.peaks).have.length(3);
    should(r.body.month.peaks.map((p: { fromMs: number; kw: number }) => [p.fromMs, p.kw])).eql(
      (month?.peaks ?? []).map((p) => [p.from, Number(p.kw.toFixed(9))]),
    );
  });

  it('says in words what is missing or wrong', async () => {
    should(await post({ id: 'acc', settings: {} })).match({
      status: 400,
      body: { error: { code: 'bad_request', message: 'no gateway id given' } },
    });
    should(await post({ id: 'acc', gateway: 'DEMO', settings: { minutes: '20' } })).match({
      status: 400,
      body: { error: { message: 'the window must be 15, 30 or 60 minutes, got "20"' } },
    });
    should(await post({ gateway: 'DEMO' })).match({ status: 400, body: { error: { code: 'bad_request' } } });
  });
});
