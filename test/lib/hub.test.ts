// AccountHub against the real simulator over loopback: sharing, dedup, the store, close.
// What depends on waiting (retries, poll intervals, no timer left) runs on a fake clock.
import should from 'should';
import { FakeClock, installClock, until } from '../fake-clock';
import { AccountHub, HubStore, NoTokenError, SensorSnapshot, TariffSnapshot } from '../../nodes/lib/runtime/account/hub';
import { EasyClient } from '../../nodes/lib/api/client';
import { startSimulator, Simulator } from '../../sim/server';

const FAST = { retries: 0, timeoutMs: 2000 };

function client(sim: Simulator, token = 'demo-token'): EasyClient {
  return new EasyClient({ baseUrl: sim.url, token, ...FAST });
}

function memoryStore(): HubStore & { value: unknown; saves: number } {
  const store = {
    value: undefined as unknown,
    saves: 0,
    load: async () => store.value,
    save: async (value: unknown) => {
      store.value = value;
      store.saves++;
    },
  };
  return store;
}

/** Resolves with the next n updates a watch delivers. */
function updates<T>(n: number, watch: (cb: (s: T) => void) => () => void): Promise<T[]> {
  return new Promise((resolve) => {
    const seen: T[] = [];
    const stop = watch((s) => {
      seen.push(s);
      if (seen.length === n) {
        stop();
        resolve(seen);
      }
    });
  });
}

/**
 * A client that counts the requests the hub starts, at once (the simulator's log sees them
 * only after the I/O): on a fake clock, "none before the interval" is then exact.
 */
function countingClient(sim: Simulator): { client: EasyClient; started: { tariffs: number; sensors: number } } {
  const c = client(sim);
  const started = { tariffs: 0, sensors: 0 };
  const fetchTariffs = c.fetchTariffs.bind(c);
  const fetchSensors = c.fetchSensors.bind(c);
  c.fetchTariffs = (options) => {
    started.tariffs++;
    return fetchTariffs(options);
  };
  c.fetchSensors = (gatewayId, options) => {
    started.sensors++;
    return fetchSensors(gatewayId, options);
  };
  return { client: c, started };
}

const count = (sim: Simulator, endpoint: string) => sim.requests.filter((r) => r.endpoint === endpoint).length;
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('AccountHub', () => {
  let sim: Simulator;
  let clock: FakeClock | null = null;
  const hubs: AccountHub[] = [];
  const hub = (opts: Partial<ConstructorParameters<typeof AccountHub>[0]> = {}) => {
    const h = new AccountHub({ client: client(sim), timezone: 'Europe/London', ...opts });
    hubs.push(h);
    return h;
  };

  beforeEach(async () => {
    sim = await startSimulator();
  });
  afterEach(async () => {
    clock?.uninstall();
    clock = null;
    await Promise.all(hubs.splice(0).map((h) => h.close()));
    await sim.close();
  });

  it('refuses a time zone that is not IANA', () => {
    should(() => new AccountHub({ client: null, timezone: 'Mars/Olympus' })).throw(/unknown time zone "Mars\/Olympus"/);
  });

  it('serves every tariff watcher from one request', async () => {
    const h = hub();
    const [a, b] = await Promise.all([
      updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb)),
      updates<TariffSnapshot>(1, (cb) => h.watchTariffs(5, cb)),
    ]);
    should(a[0].tariffs.map((t) => t.id)).containEql('DEMO-FLAT');
    should(b[0]).equal(a[0]);
    should(a[0].stale).be.false();
    should(count(sim, 'tariffs')).equal(1);
    // a later watcher gets the fresh snapshot without another request
    const [c] = await updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb));
    should(c).equal(a[0]);
    should(count(sim, 'tariffs')).equal(1);
  });

  it('shares a refresh that is in flight', async () => {
    const h = hub();
    sim.setFaults({ latencyMs: 100 });
    const [x, y] = await Promise.all([h.refreshTariffs(), h.refreshTariffs()]);
    should(x).equal(y);
    should(count(sim, 'tariffs')).equal(1);
  });

  it('refreshes at the shortest interval any watcher asks for', async () => {
    clock = installClock();
    const { client: counted, started } = countingClient(sim);
    const h = hub({ client: counted });
    const stopSlow = h.watchTariffs(60, () => undefined);
    const seen: TariffSnapshot[] = [];
    h.watchTariffs(0.005 /* 300 ms */, (s) => seen.push(s));
    for (let fetches = 1; fetches <= 3; fetches++) {
      if (fetches > 1) {
        await clock.tickAsync(299);
        should(started.tariffs).equal(fetches - 1);
        await clock.tickAsync(1);
      }
      await until(`fetch ${fetches}`, () => seen.length === fetches);
    }
    should(seen[2].fetchedAt! - seen[1].fetchedAt!).equal(300);
    stopSlow();
  });

  it('keeps the last good tariffs in the store and prices from them after a restart offline', async () => {
    const store = memoryStore();
    const first = hub({ store });
    await updates<TariffSnapshot>(1, (cb) => first.watchTariffs(60, cb));
    await first.close();
    should(store.saves).equal(1);
    should(JSON.parse(JSON.stringify(store.value))).eql(store.value); // plain JSON for any context store

    const offline = new EasyClient({ baseUrl: 'http://127.0.0.1:9', token: 'demo-token', ...FAST });
    const second = hub({ client: offline, store });
    // the fetch fails before the wait for it ends: the kept tariffs come with the failure
    const [failed] = await updates<TariffSnapshot>(1, (cb) => second.watchTariffs(60, cb));
    should(failed.stale).be.true();
    should(failed.error).have.property('code', 'network');
    should(failed.tariffs.map((t) => t.id)).containEql('DEMO-GENERATOR');
    should(failed.fetchedAt).equal((store.value as { fetchedAt: number }).fetchedAt);
  });

  it('with kept tariffs and a reachable service, watchers get the fresh tariffs only', async () => {
    const store = memoryStore();
    const first = hub({ store });
    await updates<TariffSnapshot>(1, (cb) => first.watchTariffs(60, cb));
    await first.close();
    const second = hub({ store });
    const seen: TariffSnapshot[] = [];
    const stop = second.watchTariffs(60, (s) => seen.push(s));
    const late = updates<TariffSnapshot>(1, (cb) => second.watchTariffs(60, cb));
    await late;
    await delay(100);
    stop();
    should(seen).have.length(1);
    should(seen[0]).containEql({ stale: false, error: null });
    should(seen[0].fetchedAt).be.above((store.value as { fetchedAt: number }).fetchedAt - 1);
  });

  it('a first fetch slower than the wait: the kept tariffs (stale) at the wait, then the fresh ones', async () => {
    const store = memoryStore();
    const first = hub({ store });
    await updates<TariffSnapshot>(1, (cb) => first.watchTariffs(60, cb));
    await first.close();
    sim.setFaults({ latencyMs: 800 });
    const second = hub({ store, firstAnswerWaitMs: 200 });
    const started = Date.now();
    const [kept, fresh] = await updates<TariffSnapshot>(2, (cb) => second.watchTariffs(60, cb));
    should(kept).containEql({ stale: true, error: null });
    should(fresh).containEql({ stale: false, error: null });
    should(Date.now() - started).be.aboveOrEqual(700);
  });

  it('starts from the API when the store is empty, unreadable or holds something else', async () => {
    for (const load of [async () => undefined, async () => ({ junk: true }), async () => Promise.reject(new Error('disk'))]) {
      const h = hub({ store: { load, save: async () => undefined } });
      const [s] = await updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb));
      should(s.stale).be.false();
      should(s.tariffs.length).be.above(0);
    }
  });

  it('reports 401 and 403 as errors with no tariffs, never made-up ones', async () => {
    for (const [token, code] of [
      ['wrong-token', 'unauthorized'],
      ['demo-no-tariffs', 'forbidden'],
    ]) {
      const h = hub({ client: client(sim, token) });
      const [s] = await updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb));
      should(s.error).have.property('code', code);
      should(s.tariffs).eql([]);
      should(s.stale).be.false();
    }
  });

  it('retries a failed fetch sooner than the refresh, and recovers', async () => {
    clock = installClock();
    const { client: counted, started } = countingClient(sim);
    const h = hub({ client: counted, retryMs: 100 });
    sim.setFaults({ tariffsRemoved: true });
    const seen: TariffSnapshot[] = [];
    const stop = h.watchTariffs(60, (s) => seen.push(s));
    await until('the first fetch', () => seen.length === 1);
    const failedAt = Date.now();
    sim.clearFaults();
    await clock.tickAsync(99);
    should(started.tariffs).equal(1);
    await clock.tickAsync(1);
    await until('the retry', () => seen.length === 2);
    stop();
    should(seen.map((s) => s.error?.message ?? null)).match([/no access to tariffs/, null]);
    should(seen[1].tariffs.length).be.above(0);
    should(seen[1].fetchedAt).equal(failedAt + 100);
  });

  it('makes no request while a failed fetch waits for its Retry-After, whoever asks', async () => {
    const h = hub();
    sim.setFaults({ rateLimit: 'all', retryAfter: 600 });
    // a watcher that stays, as easy-cost's does
    const failed = await new Promise<TariffSnapshot>((resolve) => h.watchTariffs(60, resolve));
    should(failed.error).have.property('code', 'rate_limited');
    should(count(sim, 'tariffs')).equal(1);
    // a message rate of refreshes (easy-cost before any tariffs) and of newcomers
    const refreshed = await Promise.all(Array.from({ length: 20 }, () => h.refreshTariffs()));
    const newcomers = await Promise.all(Array.from({ length: 5 }, () => updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb))));
    await delay(100);
    should(count(sim, 'tariffs')).equal(1);
    for (const s of refreshed) should(s).equal(failed);
    for (const [s] of newcomers) should(s).equal(failed);
  });

  it('without a token every watcher learns why', async () => {
    const h = hub({ client: null });
    const [t] = await updates<TariffSnapshot>(1, (cb) => h.watchTariffs(60, cb));
    should(t.error).be.instanceOf(NoTokenError);
    const [s] = await updates<SensorSnapshot>(1, (cb) => h.watchSensors('DEMO', 60, cb));
    should(s.error).be.instanceOf(NoTokenError);
    await should(h.fetchData('DEMO', 'e1.kwh', 0)).be.rejectedWith(NoTokenError);
  });

  it('polls each gateway once for all its watchers, at the shortest interval', async () => {
    clock = installClock();
    const { client: counted, started } = countingClient(sim);
    const h = hub({ client: counted });
    const a: SensorSnapshot[] = [];
    const b: SensorSnapshot[] = [];
    h.watchSensors('DEMO', 0.3, (s) => a.push(s));
    h.watchSensors('DEMO', 60, (s) => b.push(s));
    await until('the first poll', () => a.length === 1 && b.length === 1);
    await clock.tickAsync(299);
    should(started.sensors).equal(1);
    await clock.tickAsync(1);
    await until('the second poll', () => a.length === 2 && b.length === 2);
    should(a[0]).equal(b[0]);
    should(a[1]).equal(b[1]);
    should(a[0].sensors.map((x) => x.id)).containEql('1');
    should(a[1].polledAt! - a[0].polledAt!).equal(300);
    should(count(sim, 'sensors')).equal(2);
  });

  it('says which gateway is not on the account', async () => {
    const h = hub();
    const [s] = await updates<SensorSnapshot>(1, (cb) => h.watchSensors('NOPE', 60, cb));
    should(s.error).have.property('code', 'not_found');
    should(s.gatewayId).equal('NOPE');
  });

  it('keeps to the interval while polls fail after a good one (no busy loop)', async () => {
    clock = installClock();
    const { client: counted, started } = countingClient(sim);
    const h = hub({ client: counted });
    const seen: SensorSnapshot[] = [];
    const stop = h.watchSensors('DEMO', 0.2, (s) => seen.push(s));
    await until('the first poll', () => seen.length === 1 && !h.pollInFlight('DEMO'));
    sim.setFaults({ removedGateways: ['DEMO'] });
    for (let polls = 2; polls <= 4; polls++) {
      // one poll per interval, however often it fails: none before, exactly one at it
      await clock.tickAsync(199);
      should(started.sensors).equal(polls - 1);
      await clock.tickAsync(1);
      await until(`poll ${polls}`, () => count(sim, 'sensors') === polls && !h.pollInFlight('DEMO'));
    }
    stop();
    should(seen[0].error).be.null();
    should(seen[seen.length - 1].error).have.property('code', 'not_found');
    should(seen[seen.length - 1].sensors).equal(seen[0].sensors); // the last good values stay
  });

  it('close() aborts requests in flight and leaves no timer that fetches again', async () => {
    clock = installClock();
    const { client: counted, started } = countingClient(sim);
    const h = hub({ client: counted });
    h.watchTariffs(0.005, () => undefined);
    h.watchSensors('DEMO', 0.2, () => undefined);
    await until('the first fetches', () => count(sim, 'tariffs') === 1 && count(sim, 'sensors') === 1);
    // the simulator's latency runs on the fake clock too: this request hangs until closed
    sim.setFaults({ latencyMs: 5000 });
    const data = h.fetchData('DEMO', 'e1.kwh', Date.now() - 3_600_000);
    await until('the data request', () => count(sim, 'data') === 1);
    await h.close();
    await should(data).be.rejected();
    const before = { ...started };
    await clock.tickAsync(60_000); // a timer left behind would fetch here, every 0.3 s
    should(started).eql(before);
  });

  it('fetchData also stops when the caller aborts', async () => {
    const h = hub();
    sim.setFaults({ latencyMs: 5000 });
    const controller = new AbortController();
    const data = h.fetchData('DEMO', 'e1.kwh', Date.now() - 3_600_000, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await should(data).be.rejectedWith({ code: 'aborted' });
  });
});
