// easy-plan through a simulated week in the real runtime: fake clock, the simulator over
// loopback, the node's own hourly tariff refresh (and extra ones mid-block), one-offs by
// msg.duration and msg.until, boosts in and out of the window, a restart in the middle of
// a slot and a night whose clocks go forward. Every run the relay saw is checked against
// what each request was owed; not one error reaches the Catch node.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyPlan = require('../../nodes/easy-plan');
import easyAccount = require('../../nodes/easy-account');
import { catchNodes, FakeClock, FileContext, FlowNode, helper, inbox, quiet, TOKEN, withSimulator } from './flow-support';
import { installClock } from '../fake-clock';

const ZONE = 'Europe/London';
const H = 3_600_000;
const at = (iso: string) => Date.parse(iso);

/** 0.3 per kWh, cheaper in the given local ranges. */
function tariff(cheap: Array<[string, string, number]>) {
  return {
    id: 'NIGHT',
    name: 'night',
    vat: 20,
    currency: 'GBP',
    rules: [...cheap.map(([start, end, price]) => ({ priority: 1, price, time_start: start, time_end: end })), { priority: 2, price: 0.3 }],
  };
}

describe('easy-plan through a week of refreshes, one-offs, boosts and restarts', function () {
  this.timeout(120_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;
  let context: FileContext | null = null;
  let served: unknown[] = [];

  afterEach(async () => {
    // the stores' cleans awaited one after another (a clean racing a write failed with ENOTEMPTY under load)
    await (context ? context.unload() : helper.unload());
    context = null;
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  /** Every value output 1 sent, with the fake instant it arrived at, across restarts. */
  const sent: Array<{ on: boolean; at: number; state: string; override: string }> = [];
  function listen() {
    helper
      .getNode('sw')
      .on('input', (msg: { payload: boolean; state: string; override: string }) =>
        sent.push({ on: msg.payload, at: Date.now(), state: msg.state, override: msg.override }),
      );
  }

  async function start(now: string, config: Record<string, unknown>) {
    sent.length = 0;
    context = new FileContext('easy-plan-week-');
    const loadStores = context.use();
    clock = installClock(at(now));
    sim = await withSimulator({ tariffs: () => served, now: () => Date.now() });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 7 * 86_400_000 };
    const node: FlowNode = {
      id: 'p',
      type: 'easy-plan',
      account: 'acc',
      tariff: 'NIGHT',
      mode: 'daily',
      from: '22:00',
      until: '07:00',
      contiguous: false,
      maxPrice: '',
      wires: [['sw'], ['plan']],
      ...config,
    };
    const flow = [account, node, { id: 'sw', type: 'helper' }, { id: 'plan', type: 'helper' }, ...catchNodes()];
    // the helper skips loading the context stores: a "module" does it before the flow starts
    await helper.load([easyAccount, easyPlan, loadStores], flow, { acc: { token: TOKEN } });
    listen();
    const caught = inbox('caught');
    await quiet(50);
    return { flow, caught };
  }

  /** Advances the fake clock an hour at most per step, letting the refreshes (real HTTP) settle. */
  async function tickTo(target: number) {
    while (Date.now() < target) {
      await clock!.tickAsync(Math.min(H, target - Date.now()));
      await quiet(5);
    }
    await quiet(10);
  }

  const node = () => helper.getNode('p');
  async function send(msg: Record<string, unknown>) {
    node().receive(msg);
    await quiet(30);
  }
  async function refreshNow() {
    await helper.getNode('acc').hub.refreshTariffs();
    await quiet(30);
  }
  async function restart() {
    await context!.restart();
    listen();
    await quiet(100);
  }

  /** The runs the relay saw: [on, off) from the values sent (a value sent again changes nothing). */
  function runs(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let since: number | null = null;
    for (const s of sent) {
      if (s.on && since === null) since = s.at;
      if (!s.on && since !== null) {
        out.push([since, s.at]);
        since = null;
      }
    }
    if (since !== null) out.push([since, Infinity]);
    return out;
  }
  const ranIn = (a: number, b: number) => runs().reduce((sum, [x, y]) => sum + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
  const runsIn = (a: number, b: number) => runs().filter(([x, y]) => x < b && y > a);
  const iso = (r: Array<[number, number]>) => r.map(([a, b]) => [new Date(a).toISOString(), new Date(b).toISOString()]);

  it('every run is what its request was owed, night after night', async () => {
    // 2 h a night in blocks of at least an hour
    served = [
      tariff([
        ['01:00', '02:00', 0.1],
        ['04:00', '05:00', 0.1],
      ]),
    ];
    const { caught } = await start('2026-03-23T12:00:00Z', { durationHours: 2, durationMinutes: 0, minBlockHours: 1, minBlockMinutes: 0 });
    const owed: Array<{ night: string; from: number; to: number; ran: number }> = [];

    // Monday night: the optimum 01:00–02:00 + 04:00–05:00; a refresh at 04:30 inside the second block
    await tickTo(at('2026-03-24T04:30:00Z'));
    await refreshNow();
    await tickTo(at('2026-03-24T12:00:00Z'));
    should(iso(runsIn(at('2026-03-23T22:00:00Z'), at('2026-03-24T07:00:00Z')))).eql([
      ['2026-03-24T01:00:00.000Z', '2026-03-24T02:00:00.000Z'],
      ['2026-03-24T04:00:00.000Z', '2026-03-24T05:00:00.000Z'],
    ]);
    owed.push({ night: 'Monday', from: at('2026-03-23T22:00:00Z'), to: at('2026-03-24T07:00:00Z'), ran: 2 * H });

    // Tuesday night: 22:00–23:00 runs; at 23:30 "2h" more: 2 h of its own after the request, whatever the
    // refreshes, on top of the configured hour still owed (01:00–02:00, the cheapest); the 2 h go to
    // 02:00–04:00, one run with that hour (23:30–00:30 and 02:00–03:00 cost the same: one start more, rule 31)
    served = [
      tariff([
        ['22:00', '23:00', 0.1],
        ['01:00', '03:00', 0.15],
      ]),
    ];
    await tickTo(at('2026-03-24T23:30:00Z'));
    await send({ duration: '2h' });
    await tickTo(at('2026-03-24T23:45:00Z'));
    await refreshNow();
    await tickTo(at('2026-03-25T12:00:00Z'));
    should(iso(runsIn(at('2026-03-24T22:00:00Z'), at('2026-03-25T07:00:00Z')))).eql([
      ['2026-03-24T22:00:00.000Z', '2026-03-24T23:00:00.000Z'],
      ['2026-03-25T01:00:00.000Z', '2026-03-25T04:00:00.000Z'],
    ]);
    should(ranIn(at('2026-03-24T23:30:00Z'), at('2026-03-25T07:00:00Z'))).equal(3 * H);
    owed.push({ night: 'Tuesday', from: at('2026-03-24T22:00:00Z'), to: at('2026-03-25T07:00:00Z'), ran: 4 * H });

    // Wednesday night: at 23:00 one hour more until 02:00: the earliest free hour at 0.3, the configured 2 h where they were
    served = [
      tariff([
        ['00:00', '01:00', 0.1],
        ['04:00', '05:00', 0.12],
      ]),
    ];
    await tickTo(at('2026-03-25T23:00:00Z'));
    await send({ duration: 60, until: '02:00' });
    await tickTo(at('2026-03-26T12:00:00Z'));
    should(ranIn(at('2026-03-25T23:00:00Z'), at('2026-03-26T02:00:00Z'))).equal(2 * H);
    should(iso(runsIn(at('2026-03-25T22:00:00Z'), at('2026-03-26T07:00:00Z')))).eql([
      ['2026-03-25T23:00:00.000Z', '2026-03-26T01:00:00.000Z'],
      ['2026-03-26T04:00:00.000Z', '2026-03-26T05:00:00.000Z'],
    ]);
    owed.push({ night: 'Wednesday', from: at('2026-03-25T22:00:00Z'), to: at('2026-03-26T07:00:00Z'), ran: 3 * H });

    // Thursday: a boost of an hour at 21:00 (before the window: it does not count), one of an
    // hour at an arbitrary instant inside it (it counts: the plan owes 1 h more)
    served = [
      tariff([
        ['01:00', '02:00', 0.1],
        ['04:00', '05:00', 0.12],
      ]),
    ];
    await tickTo(at('2026-03-26T21:00:00Z'));
    await send({ payload: 'boost', duration: '1h' });
    const boostAt = at('2026-03-27T00:10:00Z') + 7;
    await tickTo(boostAt);
    await send({ payload: 'boost', duration: 60 });
    await tickTo(at('2026-03-27T12:00:00Z'));
    should(iso(runsIn(at('2026-03-26T20:00:00Z'), at('2026-03-27T07:00:00Z')))).eql([
      ['2026-03-26T21:00:00.000Z', '2026-03-26T22:00:00.000Z'],
      [new Date(boostAt).toISOString(), new Date(boostAt + H).toISOString()],
      ['2026-03-27T04:00:00.000Z', '2026-03-27T05:00:00.000Z'],
    ]);
    owed.push({ night: 'Thursday', from: at('2026-03-26T22:00:00Z'), to: at('2026-03-27T07:00:00Z'), ran: 2 * H });

    // Friday night: at 01:20, inside the block planned 01:00–03:00, the prices change (cheaper from
    // 05:00): the block runs its minimum hour, the hour still owed moves; Node-RED restarts at
    // 01:30 in the middle of it: on at once, off at 02:00
    served = [tariff([['01:00', '03:00', 0.1]])];
    await tickTo(at('2026-03-28T01:20:00Z'));
    served = [tariff([['05:00', '07:00', 0.05]])];
    await refreshNow();
    await tickTo(at('2026-03-28T01:30:00Z'));
    await restart();
    should(sent[sent.length - 1]).match({ on: true, at: at('2026-03-28T01:30:00Z') });
    await tickTo(at('2026-03-28T12:00:00Z'));
    should(iso(runsIn(at('2026-03-27T22:00:00Z'), at('2026-03-28T07:00:00Z')))).eql([
      ['2026-03-28T01:00:00.000Z', '2026-03-28T02:00:00.000Z'],
      ['2026-03-28T05:00:00.000Z', '2026-03-28T06:00:00.000Z'],
    ]);
    owed.push({ night: 'Friday', from: at('2026-03-27T22:00:00Z'), to: at('2026-03-28T07:00:00Z'), ran: 2 * H });

    // Saturday night the clocks go forward (22:00 GMT to 07:00 BST is 8 h): cheap 02:30–04:30 BST
    served = [tariff([['02:30', '04:30', 0.1]])];
    await tickTo(at('2026-03-29T12:00:00Z'));
    should(iso(runsIn(at('2026-03-28T22:00:00Z'), at('2026-03-29T06:00:00Z')))).eql([
      ['2026-03-29T01:30:00.000Z', '2026-03-29T03:30:00.000Z'],
    ]);
    owed.push({ night: 'Saturday', from: at('2026-03-28T22:00:00Z'), to: at('2026-03-29T06:00:00Z'), ran: 2 * H });

    // the reference: each night ran what it was owed; every run outside a boost lasted at least the minimum block
    for (const night of owed) should(ranIn(night.from, night.to)).equal(night.ran, night.night);
    const boosts = [at('2026-03-26T21:00:00Z'), boostAt];
    for (const [a, b] of runs()) if (!boosts.includes(a)) should(b - a).be.aboveOrEqual(H, `a run from ${new Date(a).toISOString()}`);
    should(caught.received).eql([]);
  });

  it('rolling windows run back to back: 2 h in every 12 h, through flat nights, a restart and a boost', async () => {
    // deployed at 10:00 with cheap hours at 14:00 and 18:00; the nights are flat
    served = [
      tariff([
        ['14:00', '15:00', 0.1],
        ['18:00', '19:00', 0.1],
      ]),
    ];
    const { caught } = await start('2026-01-12T10:00:00Z', { mode: 'rolling', hours: 12, durationHours: 2, minBlockMinutes: 30 });
    const before = inbox('plan');
    await tickTo(at('2026-01-13T14:30:00Z'));
    await restart(); // in the middle of the third window's first slot
    const after = inbox('plan');
    await tickTo(at('2026-01-14T11:00:00Z'));
    await send({ payload: 'boost', duration: 30 }); // inside the fifth window: it counts, the window owes 1.5 h more
    await tickTo(at('2026-01-15T10:00:00Z'));
    await quiet(200); // the last refresh's store writes land before the flow is unloaded
    const cycles = [0, 1, 2, 3, 4, 5].map((k) => [at('2026-01-12T10:00:00Z') + 12 * k * H, at('2026-01-12T22:00:00Z') + 12 * k * H]);
    // each window ran exactly its 2 h, in its cheap hours or (flat) from its start, never where a run ended
    for (const [a, b] of cycles) should(ranIn(a, b)).equal(2 * H, new Date(a).toISOString());
    should(iso(runs())).eql([
      ['2026-01-12T14:00:00.000Z', '2026-01-12T15:00:00.000Z'],
      ['2026-01-12T18:00:00.000Z', '2026-01-12T19:00:00.000Z'],
      ['2026-01-12T22:00:00.000Z', '2026-01-13T00:00:00.000Z'],
      ['2026-01-13T14:00:00.000Z', '2026-01-13T15:00:00.000Z'],
      ['2026-01-13T18:00:00.000Z', '2026-01-13T19:00:00.000Z'],
      ['2026-01-13T22:00:00.000Z', '2026-01-14T00:00:00.000Z'],
      ['2026-01-14T11:00:00.000Z', '2026-01-14T11:30:00.000Z'],
      ['2026-01-14T14:00:00.000Z', '2026-01-14T15:00:00.000Z'],
      ['2026-01-14T18:00:00.000Z', '2026-01-14T18:30:00.000Z'],
      ['2026-01-14T22:00:00.000Z', '2026-01-15T00:00:00.000Z'],
    ]);
    // the plan messages (after the deploy's) name the windows: each begins where the last one ended
    const windows = [
      ...new Set([...before.received, ...after.received].map((m: any) => `${m.payload.window.from} ${m.payload.window.to}`)),
    ];
    should(windows).eql(
      [...cycles.slice(1), [cycles[5][1], cycles[5][1] + 12 * H]].map(
        ([a, b]) => `${new Date(a).toISOString()} ${new Date(b).toISOString()}`,
      ),
    );
    should(caught.received).eql([]);
  });

  it('an override holds the output through a redeploy with new settings and a restart; auto, resend and resend every', async () => {
    served = [tariff([['01:00', '02:00', 0.1]])];
    const { flow, caught } = await start('2026-03-23T12:00:00Z', {
      durationHours: 1,
      onType: 'num',
      onValue: '1',
      offType: 'str',
      offValue: 'idle',
      outsideType: 'json',
      outsideValue: '{"relay":"off"}',
      resendMinutes: 15,
    });
    should(sent.map((s) => [s.on, s.state])).eql([[{ relay: 'off' }, 'outside']]);
    await send({ payload: 'on' });
    should(sent[sent.length - 1]).match({ on: 1, state: 'on', override: 'on' });
    // a redeploy with other settings: a fresh plan, the override stays
    const changed = flow.map((n) => (n.id === 'p' ? { ...n, durationHours: 2 } : n));
    await (helper as any).setFlows(changed, 'full', { acc: { token: TOKEN } });
    listen();
    await quiet(100);
    should(sent[sent.length - 1]).match({ on: 1, override: 'on' });
    await restart();
    should(sent[sent.length - 1]).match({ on: 1, override: 'on' });
    // the window and the slots pass under the override: nothing is sent but the resends
    const before = sent.length;
    await tickTo(at('2026-03-23T13:00:00Z'));
    should(sent.slice(before).map((s) => s.on)).eql([1, 1, 1, 1]); // every 15 minutes
    await send({ override: 'auto' });
    should(sent[sent.length - 1]).match({ on: { relay: 'off' }, state: 'outside', override: 'auto' });
    await send({ payload: 'resend' });
    await send({ resend: true });
    should(sent.slice(-3).map((s) => s.state)).eql(['outside', 'outside', 'outside']);
    // the night: off in the window, on in the slot (the two cheapest hours: 01:00–02:00 and the earliest other)
    await tickTo(at('2026-03-23T22:00:00Z'));
    should(sent[sent.length - 1]).match({ on: 'idle', state: 'off' });
    should(caught.received).eql([]);
  });
});
