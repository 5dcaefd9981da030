'use strict';
// mocha settings of one cell of `npm run test:compat` (scripts/compat.js): the e2e ones,
// the install suite only (the browser suite needs one Node-RED, not every cell).
const path = require('path');
const e2e = require('./mocharc.js');

module.exports = { ...e2e, spec: [path.join(__dirname, 'install.e2e.ts')] };
