// Shared by the client test files: a simulator per file on loopback, reset between
// tests, and timings small enough for the whole client suite to run in seconds.
import should from 'should';
import { EasyApiError, EasyClient, EasyClientOptions } from '../../nodes/lib/api/client';
import { DEMO_TOKENS, Simulator, startSimulator } from '../../sim/server';

/** Fast retries: the logic is the same at 5 ms as at 1 s. */
export const FAST: Omit<EasyClientOptions, 'token'> = {
  timeoutMs: 2000,
  retries: 2,
  backoffBaseMs: 5,
  backoffCapMs: 20,
  retryAfterCapMs: 2000,
};

/** A token no message may ever contain; the simulator accepts it with full access. */
export const CANARY = 'CANARY-tok-5f1e9c7a2b';

/** Starts one simulator for the enclosing describe and resets it after every test. */
export function useSimulator(): { sim: Simulator; client(options?: Partial<EasyClientOptions>): EasyClient } {
  const context = {} as { sim: Simulator; client(options?: Partial<EasyClientOptions>): EasyClient };
  before(async () => {
    context.sim = await startSimulator({ port: 0, tokens: { ...DEMO_TOKENS, [CANARY]: { tariffs: true } } });
  });
  afterEach(() => {
    context.sim.clearFaults();
    context.sim.resetRequests();
  });
  after(() => context.sim.close());
  context.client = (options = {}) => new EasyClient({ ...FAST, baseUrl: context.sim.url, token: 'demo-token', ...options });
  return context;
}

/** The EasyApiError a promise rejects with; fails the test if it resolves or throws something else. */
export async function rejection(promise: Promise<unknown>): Promise<EasyApiError> {
  let result: unknown;
  try {
    result = await promise;
  } catch (err) {
    should(err).be.instanceOf(EasyApiError);
    return err as EasyApiError;
  }
  throw new Error(`expected an EasyApiError, got a result: ${JSON.stringify(result)?.slice(0, 200)}`);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
