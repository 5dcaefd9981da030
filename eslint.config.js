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
  prettier,
);
