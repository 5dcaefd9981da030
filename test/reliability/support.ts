// Shared by the reliability suites: the simulator with a canary token (so every suite is
// also a leak test), an account tuned for faults that play out in milliseconds, a
// tariff whose price flips every second (a boundary is always a second away), and
// everything a node said, gathered for the canary grep.
import should from 'should';
import * as util from 'util';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { DEMO_TOKENS, Faults, Simulator } from '../../sim/server';
import easyAccount = require('../../nodes/easy-account');
import { catchNodes, FlowNode, helper, inbox, withSimulator } from '../nodes/flow-support';
export { lastStatus } from '../nodes/flow-support';

/** The account token in every reliability suite; it must never show anywhere. */
export const CANARY = 'CANARY-rel-7c41d09e55';

/**
 * Client and hub tuning on the account node (flow-file only, nodes/lib/account-config.ts):
 * a 400 ms deadline, one retry after 20-50 ms, Retry-After obeyed up to 250 ms, and the
 * account's first tariff retry 300 ms after a failure.
 */
// the deadline leaves a loaded 2-core CI machine room to get a request to the simulator at all
export const FAST_ACCOUNT = {
  timeoutMs: 1000,
  retries: 1,
  backoffBaseMs: 20,
  backoffCapMs: 50,
  retryAfterCapMs: 250,
  retryMs: 300,
  minRefreshMs: 100,
};

export async function canarySimulator(opts: Parameters<typeof withSimulator>[0] = {}): Promise<Simulator> {
  return withSimulator({ tokens: { ...DEMO_TOKENS, [CANARY]: { tariffs: true } }, ...opts });
}

/** Every fault of the simulator the package must survive, by name (the service's tariffs endpoint unless scoped). */
export const SERVICE_FAULTS = {
  'latency beyond the deadline': () => ({ latencyMs: 1500 }),
  'dropped connections': () => ({ drop: 'all' }),
  '429 with Retry-After in seconds': () => ({ rateLimit: 'all', retryAfter: 1 }),
  '429 with Retry-After as an HTTP date': () => ({ rateLimit: 'all', retryAfter: new Date(Date.now() + 10_000).toUTCString() }),
  '429 with an absurdly large Retry-After': () => ({ rateLimit: 'all', retryAfter: 999_999_999 }),
  'a burst of 503s': () => ({ serverError: 'all' }),
  'a burst of 500s': () => ({ serverError: 'all', serverErrorStatus: 500 }),
  'malformed JSON': () => ({ body: 'malformed' }),
  'truncated JSON': () => ({ body: 'truncated' }),
  'a connection cut mid-answer': () => ({ body: 'cut' }),
  'an object instead of the list': () => ({ body: 'object' }),
  'tariffs missing required fields': () => ({ body: 'missing-fields' }),
  'numbers sent as strings': () => ({ body: 'string-numbers' }),
  'a 5 MB body': () => ({ body: 'huge' }),
  'token revoked mid-run (401)': () => ({ revokedTokens: [CANARY] }),
  'tariffs feature removed (403)': () => ({ tariffsRemoved: true }),
} satisfies Record<string, () => Partial<Faults>>;

export function fastAccount(sim: Simulator | { url: string }, over: Record<string, unknown> = {}): FlowNode {
  return { id: 'acc', type: 'easy-account', name: 'rel', baseUrl: sim.url, timezone: 'UTC', ...FAST_ACCOUNT, ...over };
}

/** Loads a flow whose account 'acc' has the canary token, with a Catch node wired to helper 'caught'. */
export async function loadWithCanary(nodeModules: unknown[], flow: FlowNode[], withCatch = true): Promise<void> {
  await helper.load([easyAccount, ...nodeModules], [...flow, ...(withCatch ? catchNodes() : [])], { acc: { token: CANARY } });
}

const hms = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/**
 * Tariff FLICKER (UTC): 0.40 during every other second from `start` on for `seconds`,
 * else 0.20. Whatever a test is doing, the next price change is at most a second away.
 */
export function flickerTariff(start = Date.now(), seconds = 300): Record<string, unknown> {
  const first = Math.ceil(start / 1000) * 1000;
  const rules: Array<Record<string, unknown>> = [];
  for (let k = 0; k < seconds; k += 2) {
    rules.push({ priority: 1, price: 0.4, time_start: hms(first + k * 1000), time_end: hms(first + (k + 1) * 1000) });
  }
  rules.push({ priority: 2, price: 0.2 });
  return { id: 'FLICKER', name: 'Flicker', vat: 20, currency: 'GBP', rules };
}

/** The demo tariffs plus FLICKER, afresh for each request (the simulator's `tariffs` option). */
export function tariffsWithFlicker(start = Date.now()): () => unknown[] {
  const flicker = flickerTariff(start);
  return () => [JSON.parse(JSON.stringify(flicker)), ...JSON.parse(JSON.stringify(DEMO_TARIFFS))];
}

/** Every log line the runtime wrote since the flow was loaded (the helper's log spy). */
export function logLines(): string[] {
  const spy = (helper as any)._logSpy;
  return spy ? spy.args.map((a: any[]) => util.inspect(a[0], { depth: 6 })) : [];
}

/** Every status any node showed since the flow was loaded. */
export function allStatuses(): unknown[] {
  const status = (helper as any)._NodePrototype.status;
  return status?.getCalls ? status.getCalls().map((c: any) => c.args[0]) : [];
}

/** Fails if the canary token is in anything given, in any of the renderings a user could see. */
export function shouldNotLeak(...things: unknown[]): void {
  for (const thing of things) {
    const seen = [util.inspect(thing, { depth: 12, showHidden: true }), safeJson(thing)];
    for (const text of seen) should(text.includes(CANARY)).be.false(`the token leaked into: ${text.slice(0, 300)}`);
  }
}

/** Statuses, log lines, and the messages given: grepped for the canary. */
export function shouldNotLeakAnywhere(...messages: unknown[]): void {
  shouldNotLeak(allStatuses(), logLines(), ...messages);
}

function safeJson(x: unknown): string {
  try {
    return JSON.stringify(x, (_k, v) => (v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v)) ?? '';
  } catch {
    return '';
  }
}

export { inbox };
