// easy-account in the real runtime against the simulator: the hub it builds, the
// context it keeps, its warnings, and what a bad configuration does.
import should from 'should';
import type { Simulator } from '../../sim/server';
import type { TariffSnapshot } from '../../nodes/lib/runtime/hub';
import type { AccountNode } from '../../nodes/lib/runtime/red-types';
import { machineTimeZone } from '../../nodes/lib/engine/time';
import { accountNode, FlowNode, helper, loadFlow, quiet, TOKEN, withSimulator } from './flow-support';

function firstTariffs(account: AccountNode): Promise<TariffSnapshot> {
  return new Promise((resolve) => {
    const stop = account.hub!.watchTariffs(60, (s) => {
      stop();
      resolve(s);
    });
  });
}

function logged(level: 'WARN' | 'ERROR'): string[] {
  const log = (helper as any).log();
  return log.args.filter((a: any[]) => a[0].level === log[level]).map((a: any[]) => String(a[0].msg));
}

describe('easy-account node', function () {
  let sim: Simulator;

  beforeEach(async () => {
    sim = await withSimulator();
  });
  afterEach(async () => {
    await helper.unload();
    await sim.close();
  });

  const load = (over: Partial<FlowNode> = {}) => loadFlow([], [{ ...accountNode(sim), ...over }]);
  const account = () => helper.getNode('acc') as AccountNode;

  it('builds one hub that fetches with the token credential and keeps the tariffs in its context', async () => {
    await load();
    const snapshot = await firstTariffs(account());
    should(snapshot.error).be.null();
    should(snapshot.tariffs.map((t) => t.id)).containEql('DEMO-NIGHT');
    const kept = await new Promise<any>((resolve) =>
      (account() as any).context().get('lastGoodTariffs', (_e: unknown, v: unknown) => resolve(v)),
    );
    should(kept.baseUrl).equal(sim.url);
    should(kept.lastGood.tariffs.map((t: any) => t.id)).eql(snapshot.tariffs.map((t) => t.id));
    should(kept.lastGood.fetchedAt).equal(snapshot.fetchedAt);
    should(JSON.stringify(kept)).not.containEql(TOKEN);
  });

  it("defaults to the public service and the machine's time zone", async () => {
    await loadFlow([], [{ id: 'acc', type: 'easy-account' }]);
    should(account().baseUrl).equal('https://api.rayleighconnect.net');
    should(account().timezone).equal(machineTimeZone());
    should(account().hub!.timezone).equal(machineTimeZone());
  });

  it('a bad time zone leaves no hub, logs the reason and marks every user red', async () => {
    await load({ timezone: 'Europe/Londn' });
    should(account().hub).be.null();
    should(account().configError!.message).match(/unknown time zone "Europe\/Londn"/);
    should(logged('ERROR').join('\n')).match(/unknown time zone/);
    const shown: unknown[] = [];
    account().registerUser({ id: 'u1', status: (s: unknown) => shown.push(s) } as any);
    should(shown).eql([{ fill: 'red', shape: 'ring', text: 'bad time zone' }]);
    should(Object.keys(account().users)).eql(['u1']);
    account().deregisterUser({ id: 'u1' } as any);
    should(account().users).eql({});
  });

  it('warns about plain http to another machine, not to loopback', async () => {
    await load({ baseUrl: 'http://192.0.2.10:8080' });
    should(logged('WARN').join('\n')).match(/http:\/\/192\.0\.2\.10:8080 uses plain http/);
    await helper.unload();
    await load();
    should(logged('WARN').filter((w) => /plain http/.test(w))).eql([]);
  });

  it('closing aborts what is in flight and stops every timer', async () => {
    await load();
    const hub = account().hub!;
    hub.watchTariffs(0.005, () => undefined);
    hub.watchSensors('DEMO', 0.2, () => undefined);
    await quiet(100);
    sim.setFaults({ latencyMs: 5000 });
    const started = Date.now();
    await helper.unload();
    should(Date.now() - started).be.below(1000);
    const before = sim.requests.length;
    await quiet(500);
    should(sim.requests.length).equal(before);
  });
});
