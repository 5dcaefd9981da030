'use strict';
// mocha settings of `npm run test:e2e`: the root ones (ts-node, the closing-line reporter)
// plus the e2e environment as a root hook plugin, longer timeouts, only the e2e suites.
const path = require('path');
const root = require('../../.mocharc.js');

module.exports = {
  ...root,
  require: [...root.require, path.join(__dirname, 'env.ts')],
  // in this order: the install checks first, then the browser on the same Node-RED, the demo
  spec: ['install', 'browser', 'demo', 'pack'].map((n) => path.join(__dirname, `${n}.e2e.ts`)),
  timeout: 120000,
  slow: 10000,
};
