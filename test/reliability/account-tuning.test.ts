// The flow-file-only tuning of easy-account (nodes/lib/account-config.ts): the client's
// deadline and retries reach the requests, and a bad value is a configuration error.
import should from 'should';
import type { Simulator } from '../../sim/server';
import type { AccountNode } from '../../nodes/lib/runtime/account/account-link';
import { accountTuning } from '../../nodes/lib/api/account-config';
import { helper } from '../nodes/flow-support';
import { canarySimulator, fastAccount, loadWithCanary } from './support';

describe('reliability: easy-account tuning in the flow file', () => {
  let sim: Simulator;
  afterEach(async () => {
    await helper.unload();
    await sim?.close();
  });

  it('uses timeoutMs and retries of the account node for its requests', async () => {
    sim = await canarySimulator({ faults: { latencyMs: 3000 } });
    await loadWithCanary([], [fastAccount(sim, { timeoutMs: 500, retries: 2 })], false);
    const started = Date.now();
    const snapshot = await (helper.getNode('acc') as AccountNode).hub!.refreshTariffs();
    should(snapshot.error!.message).equal('the service did not answer within 500 ms (gave up after 3 attempts)');
    should(Date.now() - started).be.below(5000); // not the default 15 s × 4
    should(sim.requests).have.length(3);
  });

  it('refuses a bad value as a configuration error, in words', async () => {
    sim = await canarySimulator();
    await loadWithCanary([], [fastAccount(sim, { timeoutMs: 'soon' })], false);
    const account = helper.getNode('acc') as AccountNode;
    should(account.hub).be.null();
    should(account.configError!.message).equal('account setting timeoutMs must be a number of ms, got "soon"');
    should(accountTuning({ retries: '2', timeoutMs: '', retryMs: undefined })).eql({ retries: 2 });
    should(() => accountTuning({ retryMs: 0 })).throw(/retryMs/);
  });
});
