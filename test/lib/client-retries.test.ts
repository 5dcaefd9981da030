// What the client does when the link or the service misbehaves: deadline, retries with
// capped backoff, Retry-After, abort and the sharing of identical requests. Retries are
// counted in the simulator's request log, not trusted from the client. Waits of a second
// and more run on a fake clock (the simulator's latency and request times included).
import should from 'should';
import { FakeClock, installClock, until } from '../fake-clock';
import { RetryInfo } from '../../nodes/lib/api/client';
import { parseRetryAfter } from '../../nodes/lib/api/http';
import { startSimulator } from '../../sim/server';
import { delay, rejection, useSimulator } from './client-support';

describe('EasyClient when things go wrong', () => {
  const ctx = useSimulator();
  const gaps = () => ctx.sim.requests.slice(1).map((r, i) => r.at - ctx.sim.requests[i].at);
  let clock: FakeClock | null = null;
  afterEach(() => {
    clock?.uninstall();
    clock = null;
  });
  const arrived = (n: number) => until(`request ${n} at the simulator`, () => ctx.sim.requests.length === n);

  describe('deadline', () => {
    it('gives up on a slow answer at timeoutMs, in words', async () => {
      ctx.sim.setFaults({ latencyMs: 1000 });
      const started = Date.now();
      const err = await rejection(ctx.client({ timeoutMs: 150, retries: 0 }).fetchSensors('DEMO'));
      should(Date.now() - started).be.within(140, 1000);
      should(err).match({ code: 'timeout', retryable: true, attempts: 1, message: 'the service did not answer within 150 ms' });
    });

    it('is a total deadline: a body that keeps trickling in past it is cut off', async () => {
      // Pieces every 60 ms keep the socket busy, so an idle timeout would never fire.
      ctx.sim.setFaults({ trickleMs: 600 });
      const started = Date.now();
      const err = await rejection(ctx.client({ timeoutMs: 250, retries: 0 }).fetchSensors('DEMO'));
      should(err).match({ code: 'timeout', message: 'the service did not answer within 250 ms' });
      should(Date.now() - started).be.within(240, 1500);
      // The same trickle inside the deadline is read whole.
      should((await ctx.client({ timeoutMs: 2000 }).fetchSensors('DEMO')).length).be.above(10);
    });

    it('retries a timeout and says how many attempts it made', async () => {
      clock = installClock();
      ctx.sim.setFaults({ latencyMs: 3000 });
      const retries: RetryInfo[] = [];
      const failing = rejection(ctx.client({ timeoutMs: 500, retries: 2, onRetry: (i) => retries.push(i) }).fetchTariffs());
      for (let attempt = 1; attempt <= 3; attempt++) {
        await arrived(attempt);
        await clock.tickAsync(500); // the deadline, long before the simulator answers
        if (attempt < 3) {
          await until(`retry ${attempt}`, () => retries.length === attempt);
          await clock.tickAsync(Math.ceil(retries[attempt - 1].delayMs));
        }
      }
      const err = await failing;
      should(err).match({ code: 'timeout', attempts: 3 });
      should(err.message).equal('the service did not answer within 500 ms (gave up after 3 attempts)');
      should(ctx.sim.requests.length).equal(3);
    });

    it('states a deadline in seconds the way a user reads it', async () => {
      clock = installClock();
      ctx.sim.setFaults({ latencyMs: 1500 });
      const failing = rejection(ctx.client({ timeoutMs: 1200, retries: 0 }).fetchTariffs());
      await arrived(1);
      await clock.tickAsync(1200);
      const err = await failing;
      should(err.message).equal('the service did not answer within 1.2 s');
    });
  });

  describe('network', () => {
    it('a dropped connection is retried, and the next attempt succeeds', async () => {
      ctx.sim.setFaults({ drop: 1 });
      should((await ctx.client().fetchSensors('DEMO')).length).be.above(0);
      should(ctx.sim.requests.map((r) => r.status)).eql([null, 200]);
    });

    it('connections dropped every time → network error after the retries', async () => {
      ctx.sim.setFaults({ drop: 'all' });
      const err = await rejection(ctx.client({ retries: 2 }).fetchSensors('DEMO'));
      should(err).match({ code: 'network', retryable: true, attempts: 3 });
      should(err.message).equal('could not reach 127.0.0.1: the connection was dropped (gave up after 3 attempts)');
      should(ctx.sim.requests.length).equal(3);
    });

    it('a connection lost in mid-answer is a network error, retried', async () => {
      ctx.sim.setFaults({ body: 'cut', bodyTimes: 1 });
      should((await ctx.client().fetchTariffs()).tariffs.length).be.above(0);
      should(ctx.sim.requests.length).equal(2);
      ctx.sim.setFaults({ body: 'cut', bodyTimes: 'all' });
      should(await rejection(ctx.client({ retries: 1 }).fetchTariffs())).match({
        code: 'network',
        message: 'could not reach 127.0.0.1: the connection was dropped mid-answer (gave up after 2 attempts)',
      });
    });

    it('a host that does not resolve → "DNS lookup failed", retried', async () => {
      const retries: RetryInfo[] = [];
      const client = ctx.client({ baseUrl: 'http://nonexistent.invalid', retries: 1, onRetry: (info) => retries.push(info) });
      const err = await rejection(client.fetchTariffs());
      should(err).match({ code: 'network', attempts: 2 });
      should(err.message).match(/^could not reach nonexistent\.invalid: DNS lookup failed/);
      should(retries.length).equal(1);
    });

    it('a closed port → "connection refused"', async () => {
      const gone = await startSimulator({ port: 0 });
      await gone.close();
      const err = await rejection(ctx.client({ baseUrl: gone.url, retries: 0 }).fetchTariffs());
      should(err).match({ code: 'network', message: 'could not reach 127.0.0.1: connection refused' });
    });
  });

  describe('429 and Retry-After', () => {
    it('waits the seconds Retry-After asks for, then succeeds', async () => {
      clock = installClock();
      ctx.sim.setFaults({ rateLimit: 1, retryAfter: 1 });
      const retries: RetryInfo[] = [];
      const fetching = ctx.client({ onRetry: (i) => retries.push(i) }).fetchTariffs();
      await until('the 429', () => retries.length === 1);
      should(retries[0].delayMs).equal(1000);
      await clock.tickAsync(1000);
      await fetching;
      should(ctx.sim.requests.map((r) => r.status)).eql([429, 200]);
      // the simulator's arrival times are on the fake clock: exactly the wait asked for
      should(gaps()).eql([1000]);
    });

    it('reads Retry-After as an HTTP date', async () => {
      clock = installClock();
      const date = new Date(Date.now() + 2000).toUTCString(); // whole seconds: 1 to 2 s ahead
      const wait = Date.parse(date) - Date.now(); // the fake clock stands still until ticked
      ctx.sim.setFaults({ rateLimit: 1, retryAfter: date });
      const retries: RetryInfo[] = [];
      const fetching = ctx.client({ retryAfterCapMs: 5000, onRetry: (i) => retries.push(i) }).fetchTariffs();
      await until('the 429', () => retries.length === 1);
      should(retries[0].delayMs).equal(wait);
      await clock.tickAsync(wait);
      await fetching;
      should(gaps()).eql([wait]);
    });

    it('caps an absurd Retry-After instead of obeying it', async () => {
      ctx.sim.setFaults({ rateLimit: 1, retryAfter: 86400 * 365 });
      const retries: RetryInfo[] = [];
      await ctx.client({ retryAfterCapMs: 200, onRetry: (info) => retries.push(info) }).fetchTariffs();
      should(gaps()[0]).be.within(190, 1500);
      should(retries[0].delayMs).equal(200);
      should(retries[0].error.retryAfterMs).equal(86400 * 365 * 1000);
      should(retries[0].error.message).equal('the service is limiting requests (429), it asks to wait 365 days');
    });

    it('falls back to backoff when Retry-After is missing or unreadable', async () => {
      for (const retryAfter of [null, 'soon']) {
        ctx.sim.resetRequests();
        ctx.sim.setFaults({ rateLimit: 1, retryAfter });
        const retries: RetryInfo[] = [];
        await ctx.client({ backoffBaseMs: 10, onRetry: (info) => retries.push(info) }).fetchTariffs();
        should(retries[0].delayMs).be.within(5, 10);
        should(ctx.sim.requests.map((r) => r.status)).eql([429, 200]);
      }
    });

    it('still limited after the retries → rate_limited with its status', async () => {
      ctx.sim.setFaults({ rateLimit: 'all', retryAfter: 0 });
      const err = await rejection(ctx.client({ retries: 2 }).fetchSensors('DEMO'));
      should(err).match({ code: 'rate_limited', status: 429, retryable: true, attempts: 3 });
      should(err.message).equal('the service is limiting requests (429), it asks to wait 0 ms (gave up after 3 attempts)');
      should(ctx.sim.requests.length).equal(3);
    });

    it('parseRetryAfter: seconds, HTTP date (past = now), garbage', () => {
      const now = Date.UTC(2026, 0, 1, 12, 0, 0);
      should(parseRetryAfter('120', now)).equal(120_000);
      should(parseRetryAfter(' 0 ', now)).equal(0);
      should(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).equal(30_000);
      should(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).equal(0);
      for (const bad of ['-5', '1.5', 'soon', '', undefined, 7]) should(parseRetryAfter(bad, now)).be.undefined();
    });
  });

  describe('5xx', () => {
    it('a burst of 503s is ridden out', async () => {
      ctx.sim.setFaults({ serverError: 2 });
      await ctx.client({ retries: 2 }).fetchSensors('DEMO');
      should(ctx.sim.requests.map((r) => r.status)).eql([503, 503, 200]);
    });

    for (const status of [500, 502, 504]) {
      it(`a ${status} that lasts → server error with the status`, async () => {
        ctx.sim.setFaults({ serverError: 'all', serverErrorStatus: status });
        const err = await rejection(ctx.client({ retries: 1 }).fetchTariffs());
        should(err).match({ code: 'server', status, retryable: true, attempts: 2 });
        should(err.message).equal(`the service has a problem on its side (${status}) (gave up after 2 attempts)`);
      });
    }

    it('a throwing onRetry callback does not stop the retries', async () => {
      ctx.sim.setFaults({ serverError: 1 });
      const client = ctx.client({
        onRetry: () => {
          throw new Error('bug in a status display');
        },
      });
      should((await client.fetchTariffs()).tariffs.length).be.above(0);
      should(ctx.sim.requests.map((r) => r.status)).eql([503, 200]);
    });

    it('retries: 0 means exactly one request', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      should(await rejection(ctx.client({ retries: 0 }).fetchTariffs())).match({ code: 'server', attempts: 1 });
      should(ctx.sim.requests.length).equal(1);
    });
  });

  describe('backoff', () => {
    it('grows exponentially with jitter, never above its cap', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      const retries: RetryInfo[] = [];
      await rejection(ctx.client({ retries: 6, backoffBaseMs: 20, backoffCapMs: 60, onRetry: (i) => retries.push(i) }).fetchTariffs());
      should(ctx.sim.requests.length).equal(7);
      // Ceilings 20, 40, 60, 60, 60, 60; each wait is in [ceiling/2, ceiling].
      const ceilings = [20, 40, 60, 60, 60, 60];
      should(retries.map((r) => r.attempt)).eql([1, 2, 3, 4, 5, 6]);
      retries.forEach((r, i) => should(r.delayMs).be.within(ceilings[i] / 2, ceilings[i]));
      // the four waits at the cap are drawn, not all the same
      should(new Set(retries.slice(2).map((r) => r.delayMs)).size).be.above(1);
      // The simulator saw the waits (timers never fire early; allow slack for a busy machine).
      gaps().forEach((gap, i) => should(gap).be.within(retries[i].delayMs - 2, retries[i].delayMs + 500));
    });

    it('spreads each wait over the upper half of its step by the random source', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      const draws = [0, 0.999, 0.5, 0.25];
      let used = 0;
      const retries: RetryInfo[] = [];
      const random = () => draws[used++];
      await rejection(
        ctx.client({ retries: 4, backoffBaseMs: 16, backoffCapMs: 48, random, onRetry: (i) => retries.push(i) }).fetchTariffs(),
      );
      should(used).equal(4);
      // ceilings 16, 32, 48, 48: ceiling / 2 + draw * ceiling / 2
      should(retries.map((r) => r.delayMs)).eql([8, 16 + 0.999 * 16, 36, 24 + 0.25 * 24]);
    });

    it('keeps the request rate bounded while the service is down', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      const client = ctx.client({ retries: 3, backoffBaseMs: 40, backoffCapMs: 40 });
      const started = Date.now();
      await rejection(client.fetchSensors('DEMO'));
      // 4 requests with at least 3 waits of >= 20 ms between them.
      should(ctx.sim.requests.length).equal(4);
      should(Date.now() - started).be.above(60);
    });
  });

  describe('abort', () => {
    it('an already aborted signal makes no request', async () => {
      const controller = new AbortController();
      controller.abort();
      should(await rejection(ctx.client().fetchTariffs({ signal: controller.signal }))).match({
        code: 'aborted',
        retryable: false,
        message: 'the request was cancelled',
      });
      should(ctx.sim.requests).eql([]);
    });

    it('aborting while the service is slow rejects at once', async () => {
      ctx.sim.setFaults({ latencyMs: 2000 });
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 50);
      should(await rejection(ctx.client().fetchSensors('DEMO', { signal: controller.signal }))).match({ code: 'aborted' });
      should(Date.now() - started).be.below(500);
    });

    it('aborting during a backoff wait rejects at once and sends no more requests', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      const controller = new AbortController();
      const client = ctx.client({
        retries: 5,
        backoffBaseMs: 10_000,
        backoffCapMs: 10_000,
        onRetry: () => setTimeout(() => controller.abort(), 20),
      });
      const started = Date.now();
      should(await rejection(client.fetchTariffs({ signal: controller.signal }))).match({ code: 'aborted' });
      should(Date.now() - started).be.below(1000);
      await delay(100);
      should(ctx.sim.requests.length).equal(1);
    });
  });

  describe('identical requests in flight share one', () => {
    it('two concurrent calls make one request and both get the answer', async () => {
      ctx.sim.setFaults({ latencyMs: 50 });
      const client = ctx.client();
      const [a, b] = await Promise.all([client.fetchTariffs(), client.fetchTariffs()]);
      should(ctx.sim.requests.length).equal(1);
      should(a).eql(b);
      // Each caller gets its own objects: one changing its result cannot change the other's.
      should(a).not.equal(b);
    });

    it('different requests are not shared, and a settled request is not reused', async () => {
      const client = ctx.client();
      await Promise.all([client.fetchSensors('DEMO'), client.fetchTariffs(), client.fetchData('DEMO', 'e1.kwh', '2020-02-04T12:00Z')]);
      should(ctx.sim.requests.length).equal(3);
      await client.fetchTariffs();
      should(ctx.sim.requests.length).equal(4);
    });

    it('callers share a failure too, after one round of retries', async () => {
      ctx.sim.setFaults({ serverError: 'all' });
      const client = ctx.client({ retries: 1 });
      const [a, b] = await Promise.all([rejection(client.fetchSensors('DEMO')), rejection(client.fetchSensors('DEMO'))]);
      should(a).match({ code: 'server', attempts: 2 });
      should(b).match({ code: 'server', attempts: 2 });
      should(ctx.sim.requests.length).equal(2);
    });

    it('one caller aborting does not abort the request for the others', async () => {
      ctx.sim.setFaults({ latencyMs: 200 });
      const client = ctx.client();
      const leaving = new AbortController();
      const first = rejection(client.fetchTariffs({ signal: leaving.signal }));
      const second = client.fetchTariffs();
      setTimeout(() => leaving.abort(), 30);
      should(await first).match({ code: 'aborted' });
      should((await second).tariffs.length).be.above(0);
      should(ctx.sim.requests.length).equal(1);
    });

    it('when every caller aborted, the request is cancelled and the next call starts afresh', async () => {
      ctx.sim.setFaults({ latencyMs: 200 });
      const client = ctx.client();
      const a = new AbortController();
      const b = new AbortController();
      const calls = [rejection(client.fetchTariffs({ signal: a.signal })), rejection(client.fetchTariffs({ signal: b.signal }))];
      await delay(30);
      a.abort();
      b.abort();
      for (const err of await Promise.all(calls)) should(err.code).equal('aborted');
      ctx.sim.clearFaults();
      should((await client.fetchTariffs()).tariffs.length).be.above(0);
      should(ctx.sim.requests.length).equal(2);
    });

    it('a late caller joining after another left still gets the answer', async () => {
      ctx.sim.setFaults({ latencyMs: 150 });
      const client = ctx.client();
      const leaving = new AbortController();
      const first = rejection(client.fetchSensors('DEMO', { signal: leaving.signal }));
      const stays = client.fetchSensors('DEMO');
      await delay(20);
      leaving.abort();
      const late = client.fetchSensors('DEMO');
      should(await first).match({ code: 'aborted' });
      should((await stays).length).equal((await late).length);
      should(ctx.sim.requests.length).equal(1);
    });
  });
});
