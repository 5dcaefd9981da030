'use strict';
// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed".
const Mocha = require('mocha');
const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class ClosingLineReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      // printed after spec's own epilogue
      process.nextTick(() => {
        const skipped = pending ? `, ${pending} skipped` : '';
        console.log(`${passes} passed, ${failures} failed${skipped}`);
      });
    });
  }
}
module.exports = ClosingLineReporter;
