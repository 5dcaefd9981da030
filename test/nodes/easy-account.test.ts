// easy-account in the real runtime against the simulator: the hub it builds, the
// context it keeps, its warnings, and what a bad configuration does.
import should from 'should';
import type { TariffSnapshot } from '../../nodes/lib/runtime/account/hub';
import type { AccountNode } from '../../nodes/lib/runtime/account/account-link';
import { machineTimeZone } from '../../nodes/lib/engine/time/time';
import { accountNode, FlowNode, helper, loadFlow, quiet, simulatorHooks, TOKEN } from './flow-support';
import easyAccount = require('../../nodes/easy-account');
import { NO_PROXY_ENV, startProxy, TestServer, withEnv } from '../lib/transport-support';

function firstTariffs(account: AccountNode): Promise<TariffSnapshot> {
  return new Promise((resolve) => {
    const stop = account.hub!.watchTariffs(60, (s) => {
      stop();
      resolve(s);
    });
  });
}

function logged(level: 'INFO' | 'WARN' | 'ERROR'): string[] {
  const log = (helper as any).log();
  return log.args.filter((a: any[]) => a[0].level === log[level]).map((a: any[]) => String(a[0].msg));
}

describe('easy-account node', function () {
  const suite = simulatorHooks();

  const load = (over: Partial<FlowNode> = {}) => loadFlow([], [{ ...accountNode(suite.sim), ...over }]);
  const account = () => helper.getNode('acc') as AccountNode;

  it('builds one hub that fetches with the token credential and keeps the tariffs in its context', async () => {
    await load();
    const snapshot = await firstTariffs(account());
    should(snapshot.error).be.null();
    should(snapshot.tariffs.map((t) => t.id)).containEql('DEMO-NIGHT');
    const kept = await new Promise<any>((resolve) =>
      (account() as any).context().get('lastGoodTariffs', (_e: unknown, v: unknown) => resolve(v)),
    );
    should(kept.baseUrl).equal(suite.sim.url);
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

  describe('proxy', () => {
    const PASSWORD = 'PROXY-pw-4b9e';
    let proxy: TestServer;
    beforeEach(async () => {
      proxy = await startProxy((host) => (host === 'api.example.test' ? { host: '127.0.0.1', port: suite.sim.port } : null), {
        auth: `easy:${PASSWORD}`,
      });
    });
    afterEach(() => proxy.close());

    const loadWith = (over: Partial<FlowNode>, credentials: Record<string, string> = {}) =>
      helper.load([easyAccount], [{ ...accountNode(suite.sim), baseUrl: 'http://api.example.test', ...over }], {
        acc: { token: TOKEN, ...credentials },
      });

    it('this proxy: its user and password from the credentials; the log names the proxy, never the password', async () => {
      await loadWith({ proxyMode: 'url', proxyUrl: proxy.url }, { proxyUser: 'easy', proxyPassword: PASSWORD });
      const snapshot = await firstTariffs(account());
      should(snapshot.error).be.null();
      should(proxy.seen.map((r) => r.url)).eql(['http://api.example.test/easy/v1/tariffs.json']);
      should(logged('INFO')).containEql(`requests go through the proxy ${proxy.url} (set by the account)`);
      const log = JSON.stringify((helper as any).log().args);
      should(log).not.containEql(PASSWORD);
    });

    it("a wrong proxy password: the account's error says 407 and names the proxy", async () => {
      await loadWith({ proxyMode: 'url', proxyUrl: proxy.url, retries: 0 }, { proxyUser: 'easy', proxyPassword: 'wrong' });
      const snapshot = await firstTariffs(account());
      should(snapshot.error!.message).containEql(`the proxy ${proxy.url} wants a user name and password`);
    });

    it("Node-RED's environment by default, none when chosen", async () => {
      await withEnv({ ...NO_PROXY_ENV, HTTP_PROXY: proxy.url.replace('//', `//easy:${PASSWORD}@`) }, async () => {
        await loadWith({});
        should((await firstTariffs(account())).error).be.null();
        should(proxy.seen.length).equal(1);
        should(logged('INFO')).containEql(`requests go through the proxy ${proxy.url} (set by the environment (HTTP_PROXY))`);
        await helper.unload();
        await loadWith({ proxyMode: 'none', baseUrl: suite.sim.url });
        should((await firstTariffs(account())).error).be.null();
        should(proxy.seen.length).equal(1);
      });
    });

    it('a proxy URL holding a password is a configuration error that does not quote it', async () => {
      await loadWith({ proxyMode: 'url', proxyUrl: `http://easy:${PASSWORD}@127.0.0.1:${proxy.port}` });
      should(account().hub).be.null();
      should(account().configError!.message).match(/must not hold a user name or password/);
      const shown: unknown[] = [];
      account().registerUser({ id: 'u1', status: (st: unknown) => shown.push(st) } as any);
      should(shown).eql([{ fill: 'red', shape: 'ring', text: 'bad proxy' }]);
      should(JSON.stringify((helper as any).log().args)).not.containEql(PASSWORD);
      await helper.unload();
      await loadWith({ proxyMode: 'url', proxyUrl: '' });
      should(account().configError!.message).equal('the proxy of the account has no URL (type one, or use the environment or no proxy)');
    });
  });

  it('closing aborts what is in flight and stops every timer', async () => {
    await load();
    const hub = account().hub!;
    hub.watchTariffs(0.005, () => undefined);
    hub.watchSensors('DEMO', 0.2, () => undefined);
    await quiet(100);
    suite.sim.setFaults({ latencyMs: 5000 });
    const started = Date.now();
    await helper.unload();
    should(Date.now() - started).be.below(1000);
    const before = suite.sim.requests.length;
    await quiet(500);
    should(suite.sim.requests.length).equal(before);
  });
});
