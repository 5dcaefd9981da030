'use strict';
// mocha settings of `npm run test:e2e`: the root ones (ts-node, the closing-line reporter)
// plus the e2e environment as a root hook plugin, longer timeouts, only the e2e suites.
const path = require('path');
const root = require('../../.mocharc.js');

module.exports = {
  ...root,
  require: [...root.require, path.join(__dirname, 'env.ts')],
  spec: [path.join(__dirname, '*.e2e.ts')],
  timeout: 120000,
  slow: 10000,
};
