// Which proxy a request takes: the environment's variables and NO_PROXY, an account's own
// proxy URL, or none; and that no password of a proxy is ever quoted.
import should from 'should';
import * as util from 'util';
import { bypassesProxy, chooseProxy, parseProxyUrl, proxyFromEnv } from '../../nodes/lib/api/proxy';
import { accountProxy } from '../../nodes/lib/api/account-config';
import { EasyClient } from '../../nodes/lib/api/client';

const HTTPS = new URL('https://api.rayleighconnect.net/easy/v1');
const HTTP = new URL('http://gateway.local:8080/');

describe('proxy choice', () => {
  describe('from the environment', () => {
    it('the variable of the scheme, lower case first, then ALL_PROXY', () => {
      should(proxyFromEnv(HTTPS, {})).be.null();
      should(proxyFromEnv(HTTPS, { HTTP_PROXY: 'http://p:1' })).be.null();
      should(proxyFromEnv(HTTPS, { HTTPS_PROXY: 'http://p:1' })).match({ display: 'http://p:1', source: 'the environment (HTTPS_PROXY)' });
      should(proxyFromEnv(HTTPS, { https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:1' })).match({ display: 'http://a:1' });
      should(proxyFromEnv(HTTPS, { https_proxy: ' ', HTTPS_PROXY: 'http://b:1' })).match({ display: 'http://b:1' });
      should(proxyFromEnv(HTTP, { HTTP_PROXY: 'http://p:2', HTTPS_PROXY: 'http://q:3' })).match({ display: 'http://p:2' });
      should(proxyFromEnv(HTTP, { ALL_PROXY: 'http://all:4' })).match({ display: 'http://all:4', source: 'the environment (ALL_PROXY)' });
    });

    it('a bare host:port is an http proxy; other schemes are refused in words', () => {
      should(proxyFromEnv(HTTPS, { HTTPS_PROXY: 'proxy.corp:3128' })).match({ display: 'http://proxy.corp:3128' });
      should(proxyFromEnv(HTTPS, { HTTPS_PROXY: 'https://proxy.corp' })).match({ display: 'https://proxy.corp' });
      should(() => proxyFromEnv(HTTPS, { HTTPS_PROXY: 'socks5://proxy:1080' })).throw(
        'the proxy of the environment (HTTPS_PROXY) must be an http:// or https:// proxy, not socks5://',
      );
    });

    it('NO_PROXY, lower case first, decides before the proxy is even read', () => {
      should(proxyFromEnv(HTTPS, { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'rayleighconnect.net' })).be.null();
      should(proxyFromEnv(HTTPS, { HTTPS_PROXY: 'http://p:1', no_proxy: 'other.net', NO_PROXY: 'rayleighconnect.net' })).not.be.null();
    });
  });

  describe('NO_PROXY entries', () => {
    const cases: Array<[string, string, boolean]> = [
      ['https://api.example.com/', 'example.com', true],
      ['https://api.example.com/', '.example.com', true],
      ['https://api.example.com/', '*.example.com', true],
      ['https://example.com/', '.example.com', true],
      ['https://badexample.com/', 'example.com', false],
      ['https://API.Example.COM/', 'api.example.com', true],
      ['https://api.example.com/', 'api.example.com:443', true],
      ['https://api.example.com/', 'api.example.com:8443', false],
      ['http://api.example.com/', 'api.example.com:80', true],
      ['http://10.1.2.3:8080/', '10.1.2.3', true],
      ['http://10.1.2.3:8080/', '10.1.2.3:8080', true],
      ['http://10.1.2.3:8080/', '10.1.2.30', false],
      ['http://[::1]:8080/', '::1', true],
      ['http://[::1]:8080/', '[::1]:8080', true],
      ['http://[::1]:8080/', '[::1]:9', false],
      ['https://x.example/', 'a.example b.example,, x.example', true],
      ['https://x.example/', '*', true],
      ['https://x.example/', '', false],
    ];
    for (const [url, noProxy, bypass] of cases) {
      it(`${url} with NO_PROXY="${noProxy}" → ${bypass ? 'direct' : 'proxy'}`, () => {
        should(bypassesProxy(new URL(url), noProxy)).equal(bypass);
      });
    }
  });

  describe("an account's own proxy", () => {
    it('credentials in the URL or beside it; the URL kept has none', () => {
      const inUrl = parseProxyUrl('http://me:p%40ss@proxy:3128', 'the account');
      should(inUrl.auth).eql({ username: 'me', password: 'p@ss' });
      should(inUrl.url.href).equal('http://proxy:3128/');
      const beside = chooseProxy({ mode: 'url', url: 'proxy:3128', username: 'me', password: 'secret' }, HTTPS);
      should(beside).match({ display: 'http://proxy:3128', source: 'the account', auth: { username: 'me', password: 'secret' } });
    });

    it('none and env modes', () => {
      should(chooseProxy({ mode: 'none' }, HTTPS, { HTTPS_PROXY: 'http://p:1' })).be.null();
      should(chooseProxy({ mode: 'env' }, HTTPS, { HTTPS_PROXY: 'http://p:1' })).match({ display: 'http://p:1' });
      // an account's proxy is used whatever NO_PROXY says
      should(chooseProxy({ mode: 'url', url: 'http://p:1' }, HTTPS, { NO_PROXY: '*' })).match({ display: 'http://p:1' });
    });

    it("an account's proxy fields and the client's proxy option: each wrong form said in words", () => {
      should(accountProxy({})).be.undefined();
      should(accountProxy({ proxyMode: 'none' })).be.false();
      should(accountProxy({ proxyMode: 'url', proxyUrl: ' http://p:1 ', proxyUser: 'me' })).eql({
        url: 'http://p:1',
        username: 'me',
        password: undefined,
      });
      should(() => accountProxy({ proxyMode: 'socks' })).throw(TypeError, {
        message: 'account setting proxyMode must be env, none or url, got "socks"',
      });
      should(() => accountProxy({ proxyMode: 'url', proxyUrl: '' })).throw(/the proxy of the account has no URL/);
      should(() => accountProxy({ proxyMode: 'url', proxyUrl: 'http://me:pw@p:1' })).throw(/must not hold a user name or password/);
      for (const proxy of [42, { host: 'p' }, true]) {
        should(() => new EasyClient({ token: 't', proxy } as never)).throw(TypeError, {
          message: 'proxy must be false, a proxy URL, or { url, username?, password? }',
        });
      }
    });

    it('errors never quote the password', () => {
      for (const text of ['http://me:TOPSECRET@[bad', 'ftp://me:TOPSECRET@proxy', 'http://me:TOPSECRET@']) {
        let thrown: unknown;
        try {
          parseProxyUrl(text, 'the account');
        } catch (err) {
          thrown = err;
        }
        should(thrown).be.instanceOf(TypeError);
        should(util.inspect(thrown)).not.containEql('TOPSECRET');
      }
    });
  });
});
