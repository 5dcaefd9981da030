'use strict';
// eslint (flat config): JavaScript's and typescript-eslint's recommended rules over the
// package, the simulator, benchmark, scripts and tests; formatting is prettier's
// (eslint-config-prettier turns off the rules that would fight it). Rules turned off or
// relaxed, and why:
// - no-this-alias allows `node`: `const node = this` in a node's constructor is how
//   Node-RED nodes refer to themselves inside callbacks.
// - no-unused-vars ignores rest siblings (`const { at, ...rest } = x` drops a field) and
//   names starting with `_`.
// - tests and plain JS scripts may require(): tests load the built and the installed
//   package by computed path, which import cannot do.
// - tests may use `any`: they read untyped JSON from Node-RED's admin API, the flow files
//   and the test helper, and assert on its shape.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-config-prettier');
const globals = require('globals');

// The layers of nodes/lib (docs/architecture.md): each folder may import only the floors
// below it — engine ← api ← runtime ← editor ← the node files — and only node files and
// the runtime's common/red-types speak of Node-RED. Type imports count too: a layer that
// needs a type from above is drawn wrong. Engine and runtime are one folder per part, so
// their files sit one level deeper than api's and editor's.
const NODE_RED = ['node-red', 'node-red/*', '@node-red/*'];
const restrict = (files, groups) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          ...groups.map(([group, message]) => ({ group, message })),
          { group: NODE_RED, message: 'no layer of nodes/lib imports Node-RED' },
        ],
      },
    ],
  },
});
const layers = [
  restrict(
    ['nodes/lib/engine/**/*.ts'],
    [
      [
        ['../../api/*', '../../runtime/**', '../../editor/*', '../../../*', '../../index'],
        'the engine imports no other layer (docs/architecture.md)',
      ],
    ],
  ),
  restrict(
    ['nodes/lib/api/**/*.ts'],
    [[['../runtime/**', '../editor/*', '../../*', '../index'], 'the API client imports only the engine (docs/architecture.md)']],
  ),
  restrict(
    ['nodes/lib/runtime/**/*.ts'],
    [
      [
        ['../../editor/*', '../../../*', '../../index', '../../runtime/**'],
        'the runtime imports only the engine and the API client (docs/architecture.md)',
      ],
    ],
  ),
  restrict(['nodes/lib/editor/**/*.ts'], [[['../../*', '../index'], 'the editor layer imports no node file (docs/architecture.md)']]),
  restrict(
    ['nodes/lib/index.ts'],
    [[['./runtime/**', './editor/*', '../*'], "the package's main exports the engine and the API client only"]],
  ),
  restrict(
    ['nodes/*.ts'],
    [[['./lib/engine/**', './lib/api/*', './lib/index'], 'node files are glue over the runtime and editor layers (docs/architecture.md)']],
  ),
];

// The runtime's parts (docs/architecture.md): one folder per node, a node's folder never
// imports another node's. What several share is in common/; every node talks to its
// account through account/'s hub (the config node's face, as Node-RED's MQTT broker node
// is its clients'); easy-plan follows the price with easy-tariff's own TariffWatch, so
// plan/ may import tariff/; easy-cost's generator report is a part of its own (generator/),
// which cost/ imports; easy-peak's billing period (its months' peaks and bill, the reactive
// energy summed over it) is a part of its own (peak-period/), which peak/ imports. Nothing else
// crosses, so no part can lean on a sibling.
const RUNTIME_PARTS = {
  common: [],
  account: ['common'],
  prices: ['common'],
  tariff: ['common', 'account', 'prices'],
  sensors: ['common', 'account'],
  generator: [],
  cost: ['common', 'account', 'prices', 'generator'],
  plan: ['common', 'account', 'tariff', 'prices'],
  'peak-period': [],
  peak: ['common', 'account', 'peak-period'],
};
const parts = Object.entries(RUNTIME_PARTS).map(([part, allowed]) => {
  const others = Object.keys(RUNTIME_PARTS).filter((p) => p !== part && !allowed.includes(p));
  return restrict(
    [`nodes/lib/runtime/${part}/**/*.ts`],
    [
      [
        ['../../editor/*', '../../../*', '../../index', '../../runtime/**'],
        'the runtime imports only the engine and the API client (docs/architecture.md)',
      ],
      [
        others.map((p) => `../${p}/*`),
        `runtime/${part}/ may import only ${allowed.length ? allowed.map((p) => `runtime/${p}/`).join(', ') : 'no other runtime folder'} (docs/architecture.md: one folder per node)`,
      ],
    ],
  );
});

module.exports = tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cache/', '.demo/', '.e2e/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'commonjs', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['node'] }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    languageOptions: { globals: { ...globals.mocha } },
    rules: { '@typescript-eslint/no-require-imports': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['resources/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.jquery, RED: 'readonly' } },
  },
  ...layers,
  ...parts,
  prettier,
);
