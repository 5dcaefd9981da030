// The dialogs' static side: every node's HTML loads the one shared editor
// script from the package's resources/ folder (shipped in the package), then the dialog
// scripts it calls, the stable element ids other suites and users rely on, and every
// message the editor scripts can show resolving in easy-account's catalogue.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import * as vm from 'vm';
import { lookup, read, ROOT } from './editor-support';
import { ADMIN_ROUTES } from '../../nodes/lib/editor/admin-routes';

const pkg = JSON.parse(read('package.json'));
/** The editor scripts in resources/: the shared one and one per dialog part. */
const SCRIPTS = new Map(
  fs
    .readdirSync(path.join(ROOT, 'resources'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => [f, read('resources', f)] as const),
);
const SHARED = read('resources', 'easy-editor.js');
const SCRIPT = [...SCRIPTS.values()].join('\n');
const ACCOUNT = JSON.parse(read('nodes', 'locales', 'en-US', 'easy-account.json'))['easy-account'].editor;

/** The ids the browser test (test/e2e) and users' own tests find the dialogs' parts by. */
export const DIALOG_IDS: Record<string, string[]> = {
  'easy-account': [
    'node-config-input-baseUrl',
    'node-config-input-token',
    'node-config-input-timezone',
    'easy-account-zone-search',
    'easy-account-test',
    'easy-account-test-result',
  ],
  'easy-tariff': [
    'node-input-account',
    'node-input-tariff',
    'easy-tariff-tariff-status',
    'easy-tariff-rules',
    'easy-tariff-chart-status',
    'easy-tariff-chart',
  ],
  'easy-sensors': [
    'node-input-account',
    'node-input-gateway',
    'easy-sensors-gateways',
    'node-input-sensors',
    'easy-sensors-status',
    'easy-sensors-list',
  ],
  'easy-cost': [
    'node-input-account',
    'node-input-tariff',
    'easy-cost-tariff-status',
    'easy-cost-rules',
    'node-input-mode',
    'easy-cost-mode-help',
    'node-input-exportPrice',
    'node-input-exportTariff',
    'node-input-exportPrices',
  ],
  'easy-plan': [
    'node-input-account',
    'node-input-tariff',
    'easy-plan-tariff-status',
    'easy-plan-rules',
    'easy-plan-chart-status',
    'easy-plan-chart',
    'node-input-durationHours',
    'node-input-mode',
    'easy-plan-checks',
    'node-input-onValue',
    'node-input-offValue',
    'node-input-outsideValue',
    'node-input-resendMinutes',
  ],
  'easy-peak': [
    'node-input-account',
    'node-input-minutes',
    'node-input-top',
    'node-input-limit',
    'node-input-shedValue',
    'node-input-restoreValue',
    'easy-peak-preview-gateway',
    'easy-peak-preview-sensor',
    'easy-peak-preview-show',
    'easy-peak-preview',
  ],
};

describe('editor dialogs', () => {
  it('one shared script, served from resources/ under the scoped package name and shipped', () => {
    const src = `resources/${pkg.name}/easy-editor.js`;
    for (const type of Object.keys(DIALOG_IDS)) {
      const html = read('nodes', `${type}.html`);
      should(html.split(`<script type="text/javascript" src="${src}"></script>`)).have.length(2, type);
    }
    should(pkg.files).containEql('resources');
    // Node-RED's editor serves /resources/<module>/<file>, scoped names included
    should(/^\/resources\/((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(`/${src}`)![1]).equal(pkg.name);
    should(SHARED).match(/var E = \(window\.EasyEditor = window\.EasyEditor \|\| \{\}\);\n\s*if \(E\.t\) return;/);
  });

  it('each dialog loads the shared script first, then a script for each EasyEditor function it calls', () => {
    /** EasyEditor's functions by the script defining them. */
    const definedIn = new Map<string, string>();
    for (const [file, text] of SCRIPTS) for (const m of text.matchAll(/^ {2}E\.(\w+) = /gm)) definedIn.set(m[1], file);
    should(definedIn.get('tariffPicker')).equal('easy-tariff-editor.js');
    for (const type of Object.keys(DIALOG_IDS)) {
      const html = read('nodes', `${type}.html`);
      const loaded = [...html.matchAll(/<script type="text\/javascript" src="resources\/[^"]+\/([^"/]+)"><\/script>/g)].map((m) => m[1]);
      should(loaded[0]).equal('easy-editor.js', type);
      for (const file of loaded) should(SCRIPTS.has(file)).be.true(`${type} loads ${file}`);
      const called = [...html.matchAll(/EasyEditor\.(\w+)\(/g)].map((m) => m[1]);
      // the tariff dropdown draws the week's chart where the dialog asks for one
      if (/\bchart: '#/.test(html)) called.push('renderChart');
      should(called.length > 0).be.true(type);
      for (const name of called) should(loaded.includes(definedIn.get(name) ?? '')).be.true(`${type} calls EasyEditor.${name}`);
    }
  });

  for (const [type, ids] of Object.entries(DIALOG_IDS)) {
    it(`${type}: the stable element ids, each once`, () => {
      const html = read('nodes', `${type}.html`);
      for (const id of ids) should(html.split(`id="${id}"`)).have.length(2, `${type}: #${id}`);
    });
  }

  it('the tariff and zone fields are dropdowns; property names unchanged', () => {
    should(read('nodes', 'easy-tariff.html')).match(/<select id="node-input-tariff"/);
    should(read('nodes', 'easy-cost.html')).match(/<select id="node-input-tariff"/);
    // the export tariff too: the account's tariffs as the import's field lists them
    should(read('nodes', 'easy-cost.html')).match(/<select id="node-input-exportTariff"/);
    should(read('nodes', 'easy-account.html')).match(/<select id="node-config-input-timezone"/);
  });

  it('the dialogs call only routes that exist', () => {
    const called = [
      ...SCRIPT.matchAll(/E\.(post|get)\('([^']+)'/g),
      ...[...read('nodes', 'easy-account.html').matchAll(/EasyEditor\.(post|get)\('([^']+)'/g)],
    ];
    should(called.length).be.above(4);
    for (const [, method, route] of called) {
      should(ADMIN_ROUTES.some((r) => r.method === method && r.path === `/${route}`)).be.true(`${method} ${route}`);
    }
  });

  it("every message the shared script shows is in easy-account's catalogue", () => {
    const counted = [...SCRIPT.matchAll(/\btn\('([^']+)'/g)].flatMap((m) => [m[1], `${m[1]}One`]);
    should(counted.length).be.above(7);
    const literal = [...[...SCRIPT.matchAll(/\bt\('([^']+)'/g)].map((m) => m[1]).filter((k) => !k.endsWith('.')), ...counted];
    should(literal.length).be.above(30);
    const dynamic = [
      ...[
        'bad_request',
        'token_rejected',
        'no_access',
        'not_found',
        'unreachable',
        'rate_limited',
        'server',
        'invalid_response',
        'unknown_tariff',
        'permission',
        'no_runtime',
        'failed',
      ].map((c) => `errors.${c}`),
      ...['ok', 'okOne', 'invalid', 'invalidOne', 'detail', 'token_rejected', 'no_access', 'unreachable'].map((c) => `test.${c}`),
      ...[1, 2, 3, 4, 5, 6, 7].map((d) => `days.${d}`),
      ...['priority', 'net', 'gross', 'time', 'days', 'sensor'].map((k) => `rules.head.${k}`),
      ...['pick', 'id', 'name', 'value', 'kind'].map((k) => `sensors.head.${k}`),
      ...['energy', 'voltage', 'current', 'frequency', 'power_factor', 'unknown'].map((q) => `kind.quantity.${q}`),
      ...['digital_input', 'relay', 'analogue_input', 'gsm_signal'].map((k) => `kind.${k}`),
    ];
    for (const key of [...literal, ...dynamic]) should(typeof lookup(ACCOUNT, key)).equal('string', `easy-account.editor.${key}`);
  });

  it("every editor script parses: a syntax error in one node's HTML unregisters that node in the editor (every dialog that uses its account then shows raw message keys)", () => {
    const scripts: Array<[string, string]> = [...SCRIPTS.entries()].map(([file, code]) => [`resources/${file}`, code]);
    for (const type of Object.keys(DIALOG_IDS)) {
      const html = read('nodes', `${type}.html`);
      const inline = [...html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)].map((m) => m[1]);
      should(inline.length).be.above(0, type);
      for (const code of inline) scripts.push([`nodes/${type}.html`, code]);
    }
    const parses = (code: string) => {
      try {
        new vm.Script(code);
        return true;
      } catch {
        return false;
      }
    };
    should(scripts.filter(([, code]) => !parses(code)).map(([where]) => where)).eql([], 'scripts that do not parse');
  });

  it('sets data as text, never as HTML', () => {
    should(SCRIPT).not.match(/\.html\(|innerHTML|\.append\(['"]<[^>]*>\s*['"]\s*\+/);
  });

  describe('words the dialogs build (the scripts run with a stand-in for jQuery and RED)', () => {
    /** The scripts' EasyEditor, its words from the real catalogue as Node-RED's i18n fills them in. */
    function editor(order = ['easy-editor.js', 'easy-account-editor.js']): Record<string, (...args: any[]) => string> {
      const chain: any = new Proxy(function () {}, {
        get: (_t, key) => (key === 'extend' ? Object.assign : () => chain),
        apply: () => chain,
      });
      const RED = {
        nodes: {
          getType: () => ({
            _: (key: string, subs: Record<string, unknown> = {}) => {
              const text = lookup({ 'easy-account': { editor: ACCOUNT } }, key);
              return typeof text === 'string' ? text.replace(/__(\w+)__/g, (_m, k) => String(subs[k])) : key;
            },
          }),
        },
      };
      const window: Record<string, any> = {};
      const sandbox = vm.createContext({ window, RED, $: chain, jQuery: chain, console });
      for (const file of order) vm.runInContext(read('resources', file), sandbox);
      return window.EasyEditor;
    }

    it('counts in words: 1 tariff, 7 tariffs (never "tariff(s)")', () => {
      const E = editor();
      should(E.connectionText({ ok: true, tariffs: 1, invalid: 0 })).equal('Connected: the account has 1 tariff.');
      should(E.connectionText({ ok: true, tariffs: 7, invalid: 1 })).equal(
        'Connected: the account has 7 tariffs. 1 more breaks the interface and is left out.',
      );
      should(E.tn('status.tariffs', 2)).equal('2 tariffs in the account.');
      should(JSON.stringify(ACCOUNT)).not.match(/\(s\)/);
    });

    it('a failed test says the details as a sentence of their own, never brackets in brackets', () => {
      const E = editor();
      const text = E.connectionText({ ok: false, outcome: 'unreachable', message: 'could not reach 127.0.0.1:1 (connection refused).' });
      should(text).equal(
        'The service could not be reached: check the base URL and the network. Details: could not reach 127.0.0.1:1 (connection refused).',
      );
      should(text).not.match(/\([^)]*\(/);
      should(E.connectionText({ ok: false, outcome: 'token_rejected' })).equal('The token was rejected: check it, or create a new one.');
    });

    it('a mistake in the dialog says what is missing, not only that it cannot be tried', () => {
      const E = editor();
      should(
        E.errorText({ code: 'bad_request', message: 'no token: type the access token in the account (or deploy the account first)' }),
      ).equal('No token: type the access token in the account (or deploy the account first).');
      should(
        E.errorText({
          code: 'bad_request',
          message: 'the base URL has no scheme: begin it with https:// (e.g. https://api.rayleighconnect.net)',
        }),
      ).equal('The base URL has no scheme: begin it with https:// (e.g. https://api.rayleighconnect.net).');
      should(E.errorText({ code: 'bad_request', message: 'no token: type the access token' })).not.match(/cannot be tried/);
    });

    it("work whatever order Node-RED runs the scripts in (it loads a node's scripts side by side)", () => {
      const parts = [...SCRIPTS.keys()].filter((f) => f !== 'easy-editor.js');
      const E = editor([...parts, 'easy-editor.js']);
      should(E.connectionText({ ok: true, tariffs: 2, invalid: 0 })).equal('Connected: the account has 2 tariffs.');
      should(typeof E.zonePicker).equal('function');
      should(E.errorText({ code: 'unreachable', message: 'could not reach host (timeout)' })).equal(
        'The service could not be reached. Details: could not reach host (timeout).',
      );
    });
  });
});
