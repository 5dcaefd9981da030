// EasyClient's transport (axios) against real servers on loopback: a forward proxy, an
// https service with a self-signed certificate reached through a CONNECT-only proxy,
// NO_PROXY, an account's own proxy with a password, gzip answers and a gzip bomb, and
// redirects (followed a few times, the token never carried to another host).
import should from 'should';
import * as util from 'util';
import { EasyApiError } from '../../nodes/lib/api/client';
import { DEMO_GATEWAY } from '../../sim/demo-data';
import { CANARY, rejection, useSimulator } from './client-support';
import { NO_PROXY_ENV, TestServer, relayTo, selfSignedCertificate, startProxy, startRecorder, withEnv } from './transport-support';

const SECRET = 'PROXY-pw-8d2c71';

function renderings(err: unknown): string {
  const e = err as Error;
  return [String(e), e.stack, JSON.stringify(e), util.inspect(e, { depth: Infinity, showHidden: true })].join('\n');
}

describe('EasyClient transport (axios): proxies, compression, redirects', function () {
  this.timeout(20_000);
  const ctx = useSimulator();
  const simTarget = () => ({ host: '127.0.0.1', port: ctx.sim.port });

  describe('an HTTP forward proxy from the environment', () => {
    let proxy: TestServer;
    before(async () => {
      proxy = await startProxy((host) => (host === 'api.example.test' ? simTarget() : null));
    });
    after(() => proxy.close());
    afterEach(() => (proxy.seen.length = 0));

    for (const name of ['HTTP_PROXY', 'http_proxy', 'ALL_PROXY']) {
      it(`${name}: an http:// service whose name only the proxy knows is reached through it`, async () => {
        const client = await withEnv({ ...NO_PROXY_ENV, [name]: proxy.url }, () => ctx.client({ baseUrl: 'http://api.example.test' }));
        should(client.proxy).eql({ url: proxy.url, source: `the environment (${name})` });
        const { tariffs } = await client.fetchTariffs();
        should(tariffs.length).be.above(3);
        should(proxy.seen.map((s) => `${s.method} ${s.url}`)).eql(['GET http://api.example.test/easy/v1/tariffs.json']);
        should(ctx.sim.requests.map((r) => r.path)).eql(['/easy/v1/tariffs.json']);
      });
    }

    it('lower case wins over upper case, as curl and Node-RED read them', async () => {
      const client = await withEnv({ ...NO_PROXY_ENV, http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9' }, () =>
        ctx.client({ baseUrl: 'http://api.example.test' }),
      );
      should((await client.fetchTariffs()).tariffs.length).be.above(3);
    });

    it('NO_PROXY: a listed host is asked directly, the proxy sees nothing', async () => {
      for (const noProxy of ['127.0.0.1', `127.0.0.1:${ctx.sim.port}`, 'example.net, 127.0.0.1', '*']) {
        const client = await withEnv({ ...NO_PROXY_ENV, HTTP_PROXY: proxy.url, NO_PROXY: noProxy }, () => ctx.client());
        should(client.proxy).be.null();
        should((await client.fetchSensors(DEMO_GATEWAY)).length).be.above(0);
      }
      should(proxy.seen).eql([]);
      // and a host not listed still goes through the proxy (here it knows no such host: 502)
      const through = await withEnv({ ...NO_PROXY_ENV, HTTP_PROXY: proxy.url, no_proxy: '127.0.0.2,:1' }, () => ctx.client({ retries: 0 }));
      const err = await rejection(through.fetchTariffs());
      should(err).match({ code: 'server', status: 502 });
      should(err.message).equal(`the service or the proxy ${proxy.url} has a problem on its side (502)`);
      should(proxy.seen.length).equal(1);
    });

    it('proxy: false ignores the environment; an unreachable proxy is named as such', async () => {
      const direct = await withEnv({ ...NO_PROXY_ENV, HTTP_PROXY: 'http://127.0.0.1:9' }, () => ctx.client({ proxy: false }));
      should(direct.proxy).be.null();
      should((await direct.fetchTariffs()).tariffs.length).be.above(3);
      const broken = await withEnv({ ...NO_PROXY_ENV, HTTP_PROXY: 'http://127.0.0.1:9' }, () => ctx.client({ retries: 0 }));
      const err = await rejection(broken.fetchTariffs());
      should(err.code).equal('network');
      should(err.message).equal('could not reach the proxy http://127.0.0.1:9 (on the way to 127.0.0.1): connection refused');
    });

    it("an account's own proxy with a user and password: sent to the proxy, never shown", async () => {
      const guarded = await startProxy((host) => (host === 'api.example.test' ? simTarget() : null), { auth: `easy:${SECRET}` });
      try {
        const client = ctx.client({ baseUrl: 'http://api.example.test', proxy: { url: guarded.url, username: 'easy', password: SECRET } });
        should(client.proxy).eql({ url: guarded.url, source: 'the account' });
        should((await client.fetchTariffs()).tariffs.length).be.above(3);
        // in the URL works too
        const inUrl = ctx.client({ baseUrl: 'http://api.example.test', proxy: guarded.url.replace('//', `//easy:${SECRET}@`) });
        should((await inUrl.fetchTariffs()).tariffs.length).be.above(3);
        const wrong = ctx.client({
          baseUrl: 'http://api.example.test',
          retries: 0,
          proxy: { url: guarded.url, username: 'easy', password: 'nope' },
        });
        const err = await rejection(wrong.fetchTariffs());
        should(err).match({ code: 'network', status: 407 });
        should(err.message).equal(`the proxy ${guarded.url} wants a user name and password, or refused the ones given (407)`);
        for (const c of [client, inUrl, wrong]) should(util.inspect(c, { depth: Infinity, showHidden: true })).not.containEql(SECRET);
        should(renderings(err)).not.containEql(SECRET);
        should(() => ctx.client({ proxy: `socks5://easy:${SECRET}@127.0.0.1:1080` })).throw(/must be an http:\/\/ or https:\/\/ proxy/);
        should(() => ctx.client({ proxy: `http://easy:${SECRET}@[bad` })).throw(TypeError, { message: /not a URL/ });
      } finally {
        await guarded.close();
      }
    });
  });

  describe('an https service with its own certificate, through a CONNECT-only proxy', () => {
    const HOST = 'secure.example.test';
    let tls: { key: string; cert: string };
    let front: TestServer;
    let proxy: TestServer;
    before(async () => {
      tls = selfSignedCertificate(HOST);
      front = await startRecorder(relayTo(ctx.sim.url), tls);
      proxy = await startProxy((host, port) => (host === HOST && port === 443 ? { host: '127.0.0.1', port: front.port } : null), {
        connectOnly: true,
        auth: `easy:${SECRET}`,
      });
    });
    after(async () => {
      await proxy.close();
      await front.close();
    });
    afterEach(() => {
      proxy.seen.length = 0;
      front.seen.length = 0;
    });

    it('HTTPS_PROXY (with a password): one CONNECT tunnel; the token travels inside TLS only', async () => {
      const withAuth = proxy.url.replace('//', `//easy:${SECRET}@`);
      const client = await withEnv({ ...NO_PROXY_ENV, HTTPS_PROXY: withAuth }, () =>
        ctx.client({ baseUrl: `https://${HOST}`, ca: tls.cert, token: CANARY }),
      );
      should(client.proxy).eql({ url: proxy.url, source: 'the environment (HTTPS_PROXY)' });
      should((await client.fetchSensors(DEMO_GATEWAY)).length).be.above(0);
      should(proxy.seen.map((s) => `${s.method} ${s.url}`)).eql([`CONNECT ${HOST}:443`]);
      should(JSON.stringify(proxy.seen)).not.containEql(CANARY);
      should(front.seen.map((s) => [s.url, s.headers.authorization, s.headers['proxy-authorization']])).eql([
        [`/easy/v1/gateways/${DEMO_GATEWAY}.json`, `Bearer ${CANARY}`, undefined],
      ]);
    });

    it("a certificate the client does not trust is refused, in words naming the service's host", async () => {
      const client = ctx.client({ baseUrl: `https://${HOST}`, proxy: { url: proxy.url, username: 'easy', password: SECRET }, retries: 0 });
      const err = await rejection(client.fetchTariffs());
      should(err.code).equal('network');
      should(err.message).match(
        /^could not reach secure\.example\.test: its TLS certificate was not accepted \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/,
      );
      should(front.seen).eql([]);
    });

    it('a CONNECT refused for want of a password: 407, the proxy named', async () => {
      const client = ctx.client({ baseUrl: `https://${HOST}`, ca: tls.cert, proxy: proxy.url, retries: 0 });
      const err = await rejection(client.fetchTariffs());
      should(err).match({ code: 'network', status: 407 });
      should(err.message).containEql(`the proxy ${proxy.url} wants a user name and password`);
    });

    it('a redirect from https to plain http is not followed', async () => {
      const downgrading = await startRecorder((req, res) => void res.writeHead(302, { Location: `${ctx.sim.url}${req.url}` }).end(), tls);
      const tunnel = await startProxy((host) => (host === HOST ? { host: '127.0.0.1', port: downgrading.port } : null), {
        connectOnly: true,
      });
      try {
        const client = ctx.client({ baseUrl: `https://${HOST}`, ca: tls.cert, proxy: tunnel.url });
        const err = await rejection(client.fetchTariffs());
        should(err.code).equal('invalid_response');
        should(err.message).equal(
          'the service redirected from https to plain http; not followed, so the token never travels unencrypted (check the base URL)',
        );
        should(downgrading.seen.length).equal(1);
        should(ctx.sim.requests).eql([]);
      } finally {
        await tunnel.close();
        await downgrading.close();
      }
    });
  });

  describe('compressed answers', () => {
    it('asks for gzip, deflate or br and reads a gzip answer', async () => {
      ctx.sim.setFaults({ gzip: true });
      const raw = await fetch(`${ctx.sim.url}/easy/v1/tariffs.json`, {
        headers: { Authorization: 'Bearer demo-token', 'Accept-Encoding': 'gzip' },
      });
      should(raw.headers.get('content-encoding')).equal('gzip');
      const plain = await ctx.client().fetchTariffs();
      ctx.sim.setFaults({ gzip: false });
      should(plain).eql(await ctx.client().fetchTariffs());
      const recorder = await startRecorder((_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]'));
      try {
        await ctx.client({ baseUrl: recorder.url }).fetchTariffs();
        should(recorder.seen[0].headers['accept-encoding']).equal('gzip, deflate, br');
      } finally {
        await recorder.close();
      }
    });

    it('a gzip bomb (1 MB on the wire, 1 GiB inflated) is cut at the size limit; memory stays flat', async () => {
      ctx.sim.setFaults({ body: 'gzip-bomb', hugeBytes: 2 ** 30 });
      global.gc?.();
      const before = process.memoryUsage();
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - before.rss)), 5);
      try {
        const err = await rejection(ctx.client({ retries: 0 }).fetchSensors(DEMO_GATEWAY));
        should(err).match({ code: 'invalid_response', message: 'the answer was larger than the 2 MB limit' });
      } finally {
        clearInterval(sampler);
      }
      // 1 GiB would show; the limit (2 MB) plus zlib's buffers and test noise is far below 64 MB
      should(peak).be.below(64 * 1024 * 1024);
      should(process.memoryUsage().rss - before.rss).be.below(64 * 1024 * 1024);
    });

    it('a body that says gzip but is not is named, not retried', async () => {
      const liar = await startRecorder(
        (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end('[]'),
      );
      try {
        const err = await rejection(ctx.client({ baseUrl: liar.url }).fetchTariffs());
        should(err).match({ code: 'invalid_response', attempts: 1 });
        should(err.message).equal('the answer was compressed (gzip, deflate or br) but could not be decompressed');
      } finally {
        await liar.close();
      }
    });
  });

  describe('redirects', () => {
    it('within the service (same origin): followed, with the token', async () => {
      const moved = await startRecorder((req, res) => {
        if (!req.url?.startsWith('/v2/')) return void res.writeHead(301, { Location: `/v2${req.url}` }).end();
        relayTo(ctx.sim.url)(Object.assign(req, { url: req.url.slice(3) }), res);
      });
      try {
        should((await ctx.client({ baseUrl: moved.url, token: CANARY }).fetchTariffs()).tariffs.length).be.above(3);
        should(moved.seen.map((s) => [s.url, s.headers.authorization])).eql([
          ['/easy/v1/tariffs.json', `Bearer ${CANARY}`],
          ['/v2/easy/v1/tariffs.json', `Bearer ${CANARY}`],
        ]);
      } finally {
        await moved.close();
      }
    });

    it('to another host: followed without the token; that host refusing says so', async () => {
      const elsewhere = await startRecorder((req, res) => {
        if (req.headers.authorization) return void res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]');
        res.writeHead(401).end();
      });
      try {
        ctx.sim.setFaults({ redirectTo: `${elsewhere.url.replace('127.0.0.1', 'localhost')}/easy/v1/tariffs.json` });
        const err = await rejection(ctx.client({ token: CANARY }).fetchTariffs());
        should(err).match({ code: 'unauthorized', status: 401, attempts: 1 });
        should(err.message).equal(
          `the service redirected to localhost:${elsewhere.port}, where the token is not sent (401); check the base URL`,
        );
        should(elsewhere.seen.length).equal(1);
        should(elsewhere.seen[0].headers.authorization).be.undefined();
        should(JSON.stringify(elsewhere.seen)).not.containEql(CANARY);
        should(renderings(err)).not.containEql(CANARY);
      } finally {
        await elsewhere.close();
      }
    });

    it('at most 3: a loop ends with a clear error after 4 requests', async () => {
      ctx.sim.setFaults({ redirectTo: '/easy/v1/tariffs.json', scope: ['tariffs'] });
      const err = await rejection(ctx.client().fetchTariffs());
      should(err).match({ code: 'invalid_response', retryable: false, attempts: 1 });
      should(err.message).equal('the service redirected more than 3 times; check the base URL');
      should(ctx.sim.requests.length).equal(4);
      should(err).be.instanceOf(EasyApiError);
    });
  });
});
