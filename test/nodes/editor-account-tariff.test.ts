// The editor side of easy-account and easy-tariff as Node-RED reads it: the literal
// registerType, the property names flows store (a public interface), icons, help
// sections, and every i18n key resolving in the catalogue.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import { lookup, read, ROOT } from './editor-support';

const NODES = [
  { type: 'easy-account', category: 'config', defaults: ['name', 'baseUrl', 'timezone', 'proxyMode', 'proxyUrl'], help: [] as string[] },
  {
    type: 'easy-tariff',
    category: 'energy',
    defaults: [
      'name',
      'account',
      'prices',
      'tariff',
      'refresh',
      'chart',
      'chartDays',
      'records',
      'recordsDevice',
      'recordsTopic',
      'recordsPrefix',
      'recordsConfirm',
      'outputs',
    ],
    help: ['Inputs', 'Outputs', 'Records', 'Details'],
  },
  {
    type: 'easy-sensors',
    category: 'energy',
    defaults: ['name', 'account', 'gateway', 'interval', 'output', 'onlyChanged', 'sensors'],
    help: ['Inputs', 'Outputs', 'Details'],
  },
  {
    type: 'easy-cost',
    category: 'energy',
    defaults: [
      'name',
      'account',
      'prices',
      'tariff',
      'mode',
      'generator',
      'generatorGateway',
      'generatorSensor',
      'generatorOn',
      'dailyCharge',
      'maxPowerKw',
      'exportMeters',
      'exportPrice',
      'exportTariff',
      'exportRate',
      'exportPrices',
      'exportAddOns',
      'exportVat',
      'floorAtZero',
      'netting',
      'nettingMinutes',
      'productionMeters',
      'records',
      'recordsDevice',
      'recordsTopic',
      'recordsPrefix',
      'recordsConfirm',
      'outputs',
    ],
    help: ['Inputs', 'Outputs', 'Details'],
  },
];

/** The keys of `defaults: { ... }` in the editor definition (top-level names only). */
function defaultNames(html: string): string[] {
  const body = /defaults:\s*\{([\s\S]*?)\n {4}\},/.exec(html);
  should(body).not.be.null();
  return [...body![1].matchAll(/^\s{6}(\w+):/gm)].map((m) => m[1]);
}

describe('editor files of easy-account and easy-tariff', () => {
  for (const node of NODES) {
    describe(node.type, () => {
      const html = read('nodes', `${node.type}.html`);
      const catalogue = JSON.parse(read('nodes', 'locales', 'en-US', `${node.type}.json`));
      const help = read('nodes', 'locales', 'en-US', `${node.type}.html`);

      it('registers the type literally, in its category, with the property names flows store', () => {
        should(html).containEql(`RED.nodes.registerType('${node.type}', {`);
        should(html).match(new RegExp(`category: '${node.category}'`));
        should(defaultNames(html)).eql(node.defaults);
        should(html).containEql(`data-template-name="${node.type}"`);
      });

      it('resolves every i18n key it uses in its catalogue', () => {
        const keys = [
          ...[...html.matchAll(/data-i18n="(?:\[\w+\])?([^"]+)"/g)].map((m) => m[1]),
          ...[...html.matchAll(/this\._\('([^']+)'/g)].map((m) => m[1]),
        ];
        should(keys.length).be.above(3);
        for (const key of keys) should(typeof lookup(catalogue, key)).equal('string', `${node.type}: ${key} is not in the catalogue`);
      });

      it('has a help page in Node-RED style', () => {
        should(help).containEql(`data-help-name="${node.type}"`);
        for (const section of node.help) should(help).containEql(`<h3>${section}</h3>`);
        should(help).containEql('<dl class="message-properties">');
      });

      it('is in package.json and has its icon', () => {
        const pkg = JSON.parse(read('package.json'));
        should(pkg['node-red'].nodes[node.type]).equal(`dist/nodes/${node.type}.js`);
        const icon = /icon: '([^']+)'/.exec(html);
        if (node.category !== 'config') should(fs.existsSync(path.join(ROOT, 'icons', icon![1]))).be.true();
      });
    });
  }

  it('keeps the token a password credential, required', () => {
    should(read('nodes', 'easy-account.html')).match(/credentials: \{\s*token: \{ type: 'password', required: true \}/);
  });
});
