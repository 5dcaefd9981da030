'use strict';
// Tests are TypeScript run through ts-node without type checking (npm test type-checks
// them separately with `tsc -p test/tsconfig.json`, once, which is much faster).
process.env.TS_NODE_TRANSPILE_ONLY = 'true';
process.env.TS_NODE_PROJECT = require('path').join(__dirname, 'test', 'tsconfig.json');

module.exports = {
  require: ['ts-node/register'],
  reporter: require('path').join(__dirname, 'test', 'reporter.js'),
  'node-option': ['unhandled-rejections=strict'],
  timeout: 10000,
  exit: true,
};
